"""Outputs resolved once: what the final name is (a regular file, a link to a
stream, a link that leads nowhere) is decided before any work, and the
directory is held open from then to the commit."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from _support import subprocess_env

from fibnim._errors import UsageError
from fibnim._output import AtomicFile, output_is_stream

POSIX = pytest.mark.skipif(os.name != "posix", reason="links and /proc are POSIX's")


@POSIX
def test_a_directory_link_repointed_during_the_run_cannot_redirect_the_commit(tmp_path):
    # the commit looked the directory up again by its name: a --force output
    # reached through a re-pointed link replaced the input
    (tmp_path / "work").mkdir()
    (tmp_path / "inputs").mkdir()
    (tmp_path / "inputs" / "out.csv").write_text("the input\n")
    link = tmp_path / "here"
    link.symlink_to(tmp_path / "work")
    target = AtomicFile(str(link / "out.csv"), replace=True)
    target.stream.write(b"answers\n")
    link.unlink()
    link.symlink_to(tmp_path / "inputs")
    target.commit(lambda: None)
    assert (tmp_path / "work" / "out.csv").read_text() == "answers\n"
    assert (tmp_path / "inputs" / "out.csv").read_text() == "the input\n"
    assert sorted(os.listdir(tmp_path / "work")) == ["out.csv"]


@POSIX
def test_a_link_to_a_file_is_written_through(tmp_path):
    (tmp_path / "real.csv").write_text("old\n")
    (tmp_path / "link.csv").symlink_to(tmp_path / "real.csv")
    assert output_is_stream(str(tmp_path / "link.csv"), force=True) is False
    target = AtomicFile(str(tmp_path / "link.csv"), replace=True)
    target.stream.write(b"new\n")
    target.commit(lambda: None)
    assert (tmp_path / "link.csv").is_symlink()
    assert (tmp_path / "real.csv").read_text() == "new\n"


@POSIX
@pytest.mark.parametrize("name", ["out.csv", "/dev/stdout"])
def test_a_link_to_standard_output_is_a_stream_written_through(tmp_path, name):
    # with --force, the link itself was replaced by a regular file, and the file
    # that stdout was redirected to stayed empty
    (tmp_path / "in.csv").write_text("1,2\n3,5\n")
    if name == "out.csv":
        (tmp_path / name).symlink_to("/proc/self/fd/1")
    with open(tmp_path / "redirected.txt", "wb") as stdout:
        result = subprocess.run(
            [sys.executable, "-m", "fibnim", "classify", "in.csv", "-o", name, "--force",
             "--game", "wythoff", "-q"],
            cwd=tmp_path, stdout=stdout, stderr=subprocess.PIPE, text=True,
            env=subprocess_env(), check=False,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "redirected.txt").read_text().splitlines()[1:] == ["1,2,P,,", "3,5,P,,"]
    if name == "out.csv":
        assert (tmp_path / name).is_symlink()


@POSIX
def test_a_link_that_leads_nowhere_is_refused_before_any_work(tmp_path):
    (tmp_path / "out.csv").symlink_to(tmp_path / "missing" / "x.csv")
    with pytest.raises(UsageError, match=r"out.csv: is a link to .*x.csv, which does not exist"):
        output_is_stream(str(tmp_path / "out.csv"), force=True)
    result = subprocess.run(
        [sys.executable, "-m", "fibnim", "classify", "--random", "10", "-o", "out.csv",
         "--game", "wythoff"],
        cwd=tmp_path, capture_output=True, text=True, env=subprocess_env(), check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "which does not exist" in result.stderr
    assert sorted(os.listdir(tmp_path)) == ["out.csv"]


def test_a_datasets_output_is_never_inside_it_nor_a_file_format(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("dask")
    pytest.importorskip("pyarrow")
    (tmp_path / "data").mkdir()
    pd.DataFrame({"x": [1, 3], "y": [2, 5]}).to_parquet(tmp_path / "data" / "p.parquet")
    for output, said in [
        ("data/sub", "is inside the input dataset data"),
        ("out.csv", "a dataset goes to a directory of parquet files, not .csv"),
    ]:
        result = subprocess.run(
            [sys.executable, "-m", "fibnim", "classify", "data", "-o", output,
             "--game", "wythoff"],
            cwd=tmp_path, capture_output=True, text=True, env=subprocess_env(), check=False,
        )  # fmt: skip
        assert result.returncode == 2 and said in result.stderr, result.stderr
    assert sorted(os.listdir(tmp_path)) == ["data"]
    assert os.listdir(tmp_path / "data") == ["p.parquet"]
