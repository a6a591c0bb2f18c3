"""Sphinx configuration of fibnim's documentation.

Build (from the project root, after ``pip install ".[docs]"``)::

    sphinx-build -W -b html docs docs/_build/html

and run every example of the pages and of the API reference::

    sphinx-build -W -b doctest docs docs/_build/doctest
"""

from __future__ import annotations

import doctest
import importlib
import sys
from pathlib import Path

import matplotlib

import fibnim

matplotlib.use("Agg")  # the gallery is drawn when the docs build, with no screen

project = "fibnim"
author = "the fibnim developers"
copyright = "fibnim developers, MIT license"
version = release = fibnim.__version__

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

extensions = [
    "fibnim_docs",  # the shell directive: a tutorial's commands, run by the doctest build
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",  # the numpydoc sections of fibnim's docstrings
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "matplotlib.sphinxext.plot_directive",  # the gallery, drawn at build time
]

exclude_patterns = ["_build", "_ext"]
html_theme = "furo"
html_title = f"fibnim {release}"

autodoc_member_order = "bysource"
autodoc_typehints = "signature"  # the overloads show the types; the docstrings explain them
# the signatures show the names the code writes (NDArray[np.int64], GameName),
# not what they expand to
autodoc_type_aliases = {
    name: target
    for target in ("numpy.typing.NDArray", "numpy.typing.ArrayLike", "numpy.typing.DTypeLike")
    for name in (target.rpartition(".")[2],)
} | {
    "GameName": "fibnim.GameName",
    "DaskArray": "dask.array.Array",
    "DataFrame": "pandas.DataFrame",
    "DataArray": "xarray.DataArray",
}
autodoc_default_options = {"members": True}
napoleon_numpy_docstring = True
napoleon_google_docstring = False

# the examples run as the test suite runs them (tests/test_doctests.py)
doctest_default_flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
# each page's examples and commands run in a new empty directory of their own
doctest_global_setup = (
    "import numpy as np\nimport fibnim\n"
    "from fibnim_docs import run_shell, enter_workdir\nenter_workdir()"
)
doctest_global_cleanup = "from fibnim_docs import leave_workdir\nleave_workdir()"

plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]
plot_pre_code = "import numpy as np\nimport fibnim"

#: the modules of the API reference: every name in each one's __all__ has a page entry
DOCUMENTED = [
    "fibnim",
    "fibnim.zeckendorf",
    "fibnim.wythoff",
    "fibnim.fibonacci_nim",
    "fibnim.power_nim",
    "fibnim.solvers",
    "fibnim.coding",
    "fibnim.plot",
]


def _check_every_public_name(app, env):  # type: ignore[no-untyped-def]
    """A warning (an error under -W) for each public name the API reference misses."""
    from sphinx.util import logging

    logger = logging.getLogger("fibnim.docs")
    documented = set(env.get_domain("py").objects)
    modules = {name: importlib.import_module(name) for name in DOCUMENTED}
    for name, module in modules.items():
        for public in module.__all__:
            value = getattr(module, public)
            if isinstance(value, type(module)):
                continue  # a module, with a page of its own
            # documented here, or in a module that holds the same object
            homes = [name] + [m for m, o in modules.items() if getattr(o, public, None) is value]
            if not any(f"{home}.{public}" in documented for home in homes):
                logger.warning(f"{name}.{public} is public but not in the API reference")


def setup(app):  # type: ignore[no-untyped-def]
    app.connect("env-check-consistency", _check_every_public_name)
