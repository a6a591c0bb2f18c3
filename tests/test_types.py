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


def declared_answers(folder: pathlib.Path) -> pathlib.Path:
    """A script asserting, for every elementwise function, that a checker reads
    its answer for arrays as the dtypes it is declared to give."""
    lines = [
        "import numpy as np",
        "from numpy.typing import NDArray",
        "from typing_extensions import assert_type",
        "import fibnim",
        "v = np.arange(3)",
    ]
    for name, declaration in DECLARATIONS.items():
        arrays = [f"NDArray[np.{np.dtype(d).type.__name__}]" for d in declaration.outputs]
        answer = arrays[0] if len(arrays) == 1 else f"tuple[{', '.join(arrays)}]"
        inputs = ", ".join("v" for _ in declaration.inputs)
        lines.append(f"assert_type(fibnim.{name}({inputs}), {answer})")
    script = folder / "declared_answers.py"
    script.write_text("\n".join(lines) + "\n")
    return script


@pytest.mark.exhaustive
def test_mypy_infers_what_the_user_script_asserts_and_reports_each_mistake(tmp_path):
    api = pytest.importorskip("mypy.api", reason="mypy comes with the lint extra")
    scripts = [*SCRIPTS, declared_answers(tmp_path)]
    stdout, _, _ = api.run(["--strict", "--no-incremental", "--", *map(str, scripts)])
    errors = [line for line in stdout.splitlines() if ": error: " in line]
    assert not [e for e in errors if "mistakes.py" not in e], stdout
    lines = {int(e.split(":")[1]) for e in errors if "mistakes.py" in e}
    assert lines == marked_lines(), stdout


@pytest.mark.exhaustive
def test_pyright_infers_what_the_user_script_asserts_and_reports_each_mistake(tmp_path):
    # the one installed with this interpreter (as mypy is imported from it), which
    # reads this interpreter's packages, activated or not
    checker = shutil.which("basedpyright", path=str(pathlib.Path(sys.executable).parent))
    if checker is None:
        pytest.skip("basedpyright comes with the lint extra")
    scripts = [*SCRIPTS, declared_answers(tmp_path)]
    done = subprocess.run(
        [checker, "--outputjson", "--pythonpath", sys.executable, *map(str, scripts)],
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
    assert not [e for e in errors if e[0] != "mistakes.py"], errors
    assert {line for name, line, _ in errors if name == "mistakes.py"} == marked_lines(), errors
