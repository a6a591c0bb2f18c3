"""Every documented path of the command line but parquet works without
pyarrow, to the bytes it writes with pyarrow: CSV, TSV and .npy in and out,
stdin and stdout, with and without --columns. fibnim runs here as in an
install without pyarrow (its import fails, as a missing package's does)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from _support import run_fibnim, subprocess_env

pytest.importorskip("pyarrow")  # the bytes with pyarrow, to compare

WITHOUT_PYARROW = (
    "import runpy, sys; sys.modules['pyarrow'] = None; "  # `import pyarrow` now fails
    "runpy.run_module('fibnim', run_name='__main__')"
)


def _without_pyarrow(*arguments: str, cwd, stdin: str | None = None):
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_PYARROW, *arguments],
        capture_output=True, text=True, input=stdin, cwd=cwd, env=subprocess_env(),
        check=False,
    )  # fmt: skip


CASES = [
    ("in.csv", "out.csv", ["--columns", "x,y"]),
    ("in.csv", "out.tsv", ["--columns", "x,y"]),
    ("in.csv", "out.npy", ["--columns", "x,y"]),
    ("in.csv", "-", ["--columns", "y,x"]),
    ("in.tsv", "out.csv", ["--columns", "x,y"]),
    ("plain.csv", "out.csv", []),
    ("plain.csv", "out.tsv", ["--no-header", "--columns", "1,0"]),
    ("pos.npy", "out.csv", []),
    ("pos.npy", "out.tsv", ["--columns", "0,1"]),
    ("pos.npy", "-", ["--columns", "0,1"]),
    ("pos.npy", "out.npy", ["--columns", "1,0"]),
    ("-", "-", ["--columns", "x,y"]),
]


@pytest.fixture
def inputs(tmp_path):
    rng = np.random.default_rng(69)
    rows = rng.integers(0, 10**6, size=(500, 2))
    lines = [f'{i},"id {i}, ""q""",{x},{y}' for i, (x, y) in enumerate(rows.tolist())]
    (tmp_path / "in.csv").write_text("n,note,x,y\n" + "\n".join(lines) + "\n")
    tsv = [f"{i}\tid {i}\t{x}\t{y}" for i, (x, y) in enumerate(rows.tolist())]
    (tmp_path / "in.tsv").write_text("n\tnote\tx\ty\n" + "\n".join(tsv) + "\n")
    (tmp_path / "plain.csv").write_text("\n".join(f"{x},{y}" for x, y in rows.tolist()) + "\n")
    np.save(tmp_path / "pos.npy", np.hstack([rows, rows[:, :1]]))
    return tmp_path


@pytest.mark.parametrize(("source", "target", "options"), CASES)
def test_text_and_npy_paths_write_the_same_bytes_without_pyarrow(inputs, source, target, options):
    # "fibnim: No module named 'pyarrow'", exit 2, for CSV to TSV with --columns
    # and for an .npy to stdout with --columns
    if source.endswith(".npy") and not options:
        options = ["--columns", "0,1"]
    command = ["classify", source, "-o", target, "--game", "wythoff", "-q", *options]
    stdin = (inputs / "in.csv").read_text() if source == "-" else None
    written = []
    for run in (run_fibnim, _without_pyarrow):
        done = run(*command, "--force", cwd=inputs, stdin=stdin)
        assert done.returncode == 0, (run.__name__, done.stderr)
        assert done.stderr == ""
        written.append(done.stdout if target == "-" else (inputs / target).read_bytes())
    assert written[0] == written[1]
    assert len(written[0]) > 500


def test_the_readme_commands_without_pyarrow_but_parquet(tmp_path):
    (tmp_path / "games.csv").write_text('game_id,x,y,note\n1,3,5,"first, of two"\n2,4,8,second\n')
    done = _without_pyarrow(
        "classify", "games.csv", "-o", "answers.csv", "--game", "wythoff", "--columns", "x,y",
        "-q", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "answers.csv").read_text().splitlines() == [
        "game_id,x,y,note,is_p,move_1,move_2",
        '1,3,5,"first, of two",P,,',
        "2,4,8,second,N,4,7",
    ]
    for arguments in (
        ["classify", "games.csv", "-o", "answers.parquet", "--game", "wythoff"],
        ["classify", "answers.parquet", "-o", "back.csv", "--game", "wythoff"],
    ):
        done = _without_pyarrow(*arguments, "--columns", "x,y", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("fibnim: parquet files need pyarrow: pip install")
        assert done.stderr.count("\n") == 1
