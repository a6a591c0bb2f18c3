"""The examples in the docstrings and in README.md run, on both backends."""

from __future__ import annotations

import doctest
import importlib
import os
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fibnim import _backend

README = Path(__file__).resolve().parent.parent / "README.md"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules() -> list[str]:
    """Every module of the package (found, not listed, so none is left out), but
    __main__, which would run the command line."""
    import fibnim

    found = pkgutil.walk_packages(fibnim.__path__, "fibnim.")
    return ["fibnim", *sorted(m.name for m in found if not m.name.endswith("__main__"))]


#: the modules that need an optional package (an extra of pyproject.toml)
OPTIONAL = {
    "fibnim.plot": "matplotlib",
    "fibnim.bench.peers": "numba",
}


@pytest.mark.parametrize("module", _modules())
def test_docstring_examples(module):
    if module in OPTIONAL:
        pytest.importorskip(OPTIONAL[module])
    imported = importlib.import_module(module)
    result = doctest.testmod(imported, optionflags=FLAGS)
    assert result.failed == 0
    # a module whose source shows examples has them run (none hides behind a typo)
    source = Path(imported.__file__ or "")
    if source.suffix == ".py" and ">>> " in source.read_text(encoding="utf-8"):
        assert result.attempted > 0


def test_readme_examples():
    if not README.exists():
        pytest.skip("README.md is not beside the tests (an installed test run)")
    result = doctest.testfile(str(README), module_relative=False, optionflags=FLAGS)
    assert result.failed == 0 and result.attempted > 0


def test_readme_commands_run_as_written(tmp_path, backend):
    # the README's commands once used files it never made, and its unpack
    # refused to write over the ids.npy that pack had read
    if not README.exists():
        pytest.skip("README.md is not beside the tests (an installed test run)")
    if backend != _backend.available()[0]:
        pytest.skip("its commands run in processes of their own, whatever this test's backend")
    text = README.read_text(encoding="utf-8")
    tour = text[text.index("## A short tour") : text.index("## Where to read on")]
    commands = "".join(re.findall(r"```sh\n(.*?)```", tour, re.S))
    assert "fibnim classify" in commands and "fibnim pack" in commands
    # fibnim and python as this test run has them (the venv's), and a shell's
    # own tools (cat) where a user's shell has them: the wheel's test run
    # gives a PATH of its venv alone
    path = os.pathsep.join(
        [str(Path(sys.executable).parent), os.environ.get("PATH", ""), os.defpath]
    )
    shell = shutil.which("bash", path=path)
    assert shell is not None, "a shell to run the README's commands"
    done = subprocess.run(
        [shell, "-e", "-c", commands],
        cwd=tmp_path,
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert '1,3,5,"first, of two",P,,' in done.stdout  # the answers of the tour's table
    assert (tmp_path / "answers.parquet").exists() and (tmp_path / "back.npy").exists()


def test_the_docs_named_in_the_code_exist():
    # the code points into docs/ for the mathematics; each page it names is there
    root = README.parent
    if not (root / "docs").is_dir():
        pytest.skip("docs/ is not beside the tests (an installed test run)")
    named = set()
    for folder in ("src", "fibnim_c", "tests"):
        for path in (root / folder).rglob("*"):
            if path.suffix in {".py", ".pyx", ".pxi", ".pxd", ".h"}:
                named.update(re.findall(r"docs/[\w/]+\.rst", path.read_text(encoding="utf-8")))
    assert len(named) >= 6
    assert [name for name in sorted(named) if not (root / name).is_file()] == []


def test_the_docs_link_nothing_outside_the_built_site():
    # the speed page linked benchmarks/report/report.md, a path that the built
    # site does not hold: a file is linked with :download: (the site keeps a
    # copy) or :doc:, a page elsewhere by its whole address
    root = README.parent
    if not (root / "docs").is_dir():
        pytest.skip("docs/ is not beside the tests (an installed test run)")
    link = re.compile(r"`[^`<]*<([^>]+)>`__?")
    relative = [
        (path.name, target)
        for path in (root / "docs").rglob("*.rst")
        for target in link.findall(path.read_text(encoding="utf-8"))
        if not re.match(r"[a-z]+://|mailto:", target)
    ]
    assert relative == []
