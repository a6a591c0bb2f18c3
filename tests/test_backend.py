"""The seam between the public API and the kernels: twins, switches, and fibnim.backend."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap

import pytest

import fibnim
from fibnim import _backend
from fibnim._declarations import DECLARATIONS


def public_kernels(module, home: str) -> dict[str, inspect.Signature]:
    """The functions `module` defines (those whose home module is `home`)."""
    return {
        name: inspect.signature(function)
        for name, function in vars(module).items()
        if callable(function)
        and not name.startswith("_")
        and not inspect.isclass(function)
        and getattr(function, "__module__", home) == home
    }


@pytest.mark.parametrize("topic", _backend.TOPICS)
def test_twins_export_the_same_kernels(topic):
    compiled, pure = _backend.twins(topic)
    if compiled is None:
        pytest.skip("no compiled extension in this installation")
    compiled_kernels = public_kernels(compiled, "fibnim._core")  # a topic's part of the core
    pure_kernels = public_kernels(pure, pure.__name__)
    # the declared kernels' twins come from their declarations: tests/test_declarations.py
    for d in DECLARATIONS.values():
        if d.topic == topic:
            compiled_kernels.pop(d.function)
    assert compiled_kernels.keys() == pure_kernels.keys()
    assert compiled_kernels, "no kernels found"
    for name in compiled_kernels:
        assert list(compiled_kernels[name].parameters) == list(pure_kernels[name].parameters), name


def test_backend_attribute_follows_the_fixture(backend):
    assert fibnim.backend == backend
    assert _backend.kernels("zeckendorf") is _backend.twins("zeckendorf")[backend == "python"]


def test_use_refuses_unknown_backends():
    with pytest.raises(ValueError, match="cython"):
        _backend.use("fortran")


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FIBNIM_")}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )


# Importing fibnim with its compiled module hidden, as a pure install would be.
HIDE_EXTENSION = textwrap.dedent("""
    import importlib.abc, sys
    class Hide(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "fibnim._core":
                raise ImportError("hidden by the test: " + name)
    sys.meta_path.insert(0, Hide())
""")


def test_pure_python_switch():
    result = run_python(
        "import fibnim; print(fibnim.backend, fibnim.encode(46))", FIBNIM_PURE_PYTHON="1"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["python", "149"]


def test_missing_extension_falls_back_to_pure():
    result = run_python(HIDE_EXTENSION + "import fibnim; print(fibnim.backend)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "python"


def test_require_extension_turns_a_missing_extension_into_import_error():
    result = run_python(HIDE_EXTENSION + "import fibnim", FIBNIM_REQUIRE_EXTENSION="1")
    assert result.returncode != 0
    assert "ImportError" in result.stderr and "FIBNIM_REQUIRE_EXTENSION" in result.stderr


def test_require_extension_with_the_extension_built():
    if "cython" not in _backend.available():
        pytest.skip("no compiled extension in this installation")
    result = run_python("import fibnim; print(fibnim.backend)", FIBNIM_REQUIRE_EXTENSION="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "cython"


def test_the_cython_that_built_the_core_is_known():
    # the bench reports it; the build's Cython is seldom where fibnim runs
    version = _backend.built_with()
    if "cython" not in _backend.available():
        assert version is None
        return
    assert version is not None
    assert tuple(map(int, version.split("."))) >= (3, 0, 0)  # pyproject.toml requires it
    from fibnim.bench import run

    assert run.machine()["cython"] == version


@pytest.mark.parametrize(
    "module", ["wythoff", "zeckendorf", "fibonacci_nim", "power_nim", "solvers", "cli", "plot"]
)
def test_each_public_module_imports_first(module):
    # `import fibnim.wythoff` as a program's first import once failed: the
    # kernels' module and the declarations imported each other
    flags = {"FIBNIM_PURE_PYTHON": "1"} if _backend.name() == "python" else {}
    done = run_python(f"import fibnim.{module}; print('ok')", **flags)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr
