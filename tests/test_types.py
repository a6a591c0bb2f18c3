"""fibnim's type hints as a user's type checker reads them: mypy --strict and
pyright (basedpyright, which bundles its own Node.js) infer the types that
tests/typecheck/user_script.py asserts, and report each mistake marked in
tests/typecheck/mistakes.py, and nothing else. Both checkers come with the lint
extra; each test runs where its checker is installed (CI installs both)."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys
import typing

import numpy as np
import pytest

import fibnim
from fibnim._classify import GameName
from fibnim._declarations import DECLARATIONS

TYPING = pathlib.Path(__file__).parent / "typecheck"
SCRIPTS = [TYPING / "user_script.py", TYPING / "mistakes.py"]


def marked_lines() -> set[int]:
    text = (TYPING / "mistakes.py").read_text().splitlines()
    return {number for number, line in enumerate(text, 1) if line.endswith("# error")}


def test_the_game_names_are_the_games():
    assert set(typing.get_args(GameName)) == set(fibnim.GAMES)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="typing.get_overloads: Python 3.11")
@pytest.mark.parametrize("name", DECLARATIONS)
def test_the_array_overload_returns_the_declared_dtypes(name):
    declaration = DECLARATIONS[name]
    overloads = typing.get_overloads(declaration.public)
    assert len(overloads) == 2, "an overload for Python ints, one for arrays"
    hints = typing.get_type_hints(
        overloads[1], globalns=vars(sys.modules[overloads[1].__module__])
    )
    returned = hints["return"]
    arrays = typing.get_args(returned) if typing.get_origin(returned) is tuple else (returned,)
    assert [np.dtype(scalar_of(a)) for a in arrays] == [np.dtype(d) for d in declaration.outputs]


def scalar_of(hint: object) -> type:
    """The numpy scalar type inside an NDArray[...] hint, however this numpy spells
    NDArray (an alias of ndarray[shape, dtype[T]], or a type alias of its own)."""
    waiting = [hint]
    while waiting:
        here = waiting.pop(0)
        if typing.get_origin(here) is None and isinstance(here, type):
            if issubclass(here, np.generic):
                return here
        waiting.extend(typing.get_args(here))
        if getattr(here, "__value__", None) is not None:
            waiting.append(here.__value__)  # type: ignore[attr-defined]
    raise AssertionError(f"no numpy scalar type in {hint}")


def test_mypy_infers_what_the_user_script_asserts_and_reports_each_mistake():
    api = pytest.importorskip("mypy.api", reason="mypy comes with the lint extra")
    stdout, _, _ = api.run(["--strict", "--no-incremental", "--", *map(str, SCRIPTS)])
    errors = [line for line in stdout.splitlines() if ": error: " in line]
    assert not [e for e in errors if "user_script.py" in e], stdout
    lines = {int(e.split(":")[1]) for e in errors if "mistakes.py" in e}
    assert lines == marked_lines(), stdout


def test_pyright_infers_what_the_user_script_asserts_and_reports_each_mistake():
    # the one installed with this interpreter (as mypy is imported from it), which
    # reads this interpreter's packages, activated or not
    checker = shutil.which("basedpyright", path=str(pathlib.Path(sys.executable).parent))
    if checker is None:
        pytest.skip("basedpyright comes with the lint extra")
    done = subprocess.run(
        [checker, "--outputjson", "--pythonpath", sys.executable, *map(str, SCRIPTS)],
        capture_output=True,
        text=True,
        check=False,
    )
    found = json.loads(done.stdout)["generalDiagnostics"]
    errors = [
        (pathlib.Path(d["file"]).name, d["range"]["start"]["line"] + 1, d["message"])
        for d in found
        if d["severity"] == "error"
    ]
    assert not [e for e in errors if e[0] == "user_script.py"], errors
    assert {line for name, line, _ in errors if name == "mistakes.py"} == marked_lines(), errors
