"""Outputs resolved once: what the final name is (a regular file, a link to a
stream, a link that leads nowhere) is decided before any work, and the
directory is held open from then to the commit."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from _support import run_fibnim, subprocess_env

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
        ("data/sub", "is inside the input data;"),
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


def _dataset(folder, rows=((1, 2), (3, 5))):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("dask")
    pytest.importorskip("pyarrow")
    folder.mkdir(parents=True)
    frame = pd.DataFrame({"x": [r[0] for r in rows], "y": [r[1] for r in rows]})
    frame.to_parquet(folder / "a.parquet")


def _tree(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_an_output_directory_that_contains_the_input_is_refused_even_with_force(tmp_path):
    # the dataset's output replaced its parent: the input and a file beside it were deleted
    _dataset(tmp_path / "proj" / "ds")
    (tmp_path / "proj" / "notes.txt").write_text("mine\n")
    before = _tree(tmp_path)
    for output in ("proj", ".", str(tmp_path)):
        done = run_fibnim(
            "classify", "proj/ds", "-o", output, "--game", "wythoff", "--columns", "x,y",
            "--force", cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert "contains the input proj/ds" in done.stderr
    assert _tree(tmp_path) == before
    assert (tmp_path / "proj" / "notes.txt").read_text() == "mine\n"


@POSIX
@pytest.mark.parametrize("leads_to", ["in.csv", "out.csv"])
def test_a_summary_plot_linked_to_the_input_or_the_results_is_refused(tmp_path, leads_to):
    # a plot path linked to the input replaced it with a PNG
    pytest.importorskip("matplotlib")
    (tmp_path / "in.csv").write_text("x,y\n1,2\n3,5\n")
    (tmp_path / "out.csv").write_text("old results\n")
    (tmp_path / "plot.png").symlink_to(leads_to)
    done = run_fibnim(
        "classify", "in.csv", "-o", "out.csv", "--game", "wythoff", "--summary-plot",
        "plot.png", "--force", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    what = "input" if leads_to == "in.csv" else "output"
    assert f"--summary-plot plot.png: is the {what} {leads_to} itself" in done.stderr
    assert (tmp_path / "in.csv").read_text() == "x,y\n1,2\n3,5\n"
    assert (tmp_path / "out.csv").read_text() == "old results\n"


def test_the_plot_and_the_results_at_one_new_path_are_refused(tmp_path):
    pytest.importorskip("matplotlib")
    done = run_fibnim(
        "classify", "--random", "10", "-o", "same.png.csv", "--game", "wythoff",
        "--summary-plot", "sub/../same.png.csv", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert "is the output same.png.csv itself" in done.stderr or "picture" in done.stderr
    assert os.listdir(tmp_path) == []


def test_force_replaces_only_a_directory_fibnim_wrote(tmp_path):
    _dataset(tmp_path / "ds")
    command = ("classify", "ds", "-o", "out", "--game", "wythoff", "-q")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "thesis.tex").write_text("years of work\n")
    done = run_fibnim(*command, "--force", cwd=tmp_path)
    assert done.returncode == 2
    assert "holds thesis.tex and was not written by fibnim (it has no _fibnim.json)" in (
        done.stderr
    )
    assert _tree(tmp_path / "out") == ["thesis.tex"]
    (tmp_path / "out" / "thesis.tex").unlink()  # an empty directory holds nothing to lose
    assert run_fibnim(*command, "--force", cwd=tmp_path).returncode == 0
    written = _tree(tmp_path / "out")
    assert "_fibnim.json" in written and len(written) >= 2
    done = run_fibnim(*command, cwd=tmp_path)
    assert done.returncode == 2 and "exists; --force replaces it" in done.stderr
    assert run_fibnim(*command, "--force", cwd=tmp_path).returncode == 0  # fibnim's own
    assert _tree(tmp_path / "out") == written
    (tmp_path / "out" / "notes.txt").write_text("added later\n")
    done = run_fibnim(*command, "--force", cwd=tmp_path)
    assert done.returncode == 2
    assert "holds notes.txt, which fibnim did not write there" in done.stderr
    assert (tmp_path / "out" / "notes.txt").read_text() == "added later\n"


def test_a_dataset_fibnim_wrote_reads_back_as_a_dataset(tmp_path):
    # the marker is skipped by the readers, as every name that starts with "_"
    _dataset(tmp_path / "ds")
    assert run_fibnim("classify", "ds", "-o", "out", "--game", "wythoff", "-q", cwd=tmp_path)
    done = run_fibnim(
        "classify", "out", "-o", "again", "--game", "wythoff", "--columns", "x,y", "-q",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2 and "has a column named 'is_p'" in done.stderr, done.stderr


def test_a_file_put_in_the_output_directory_during_the_run_is_kept(tmp_path, monkeypatch):
    # --force was decided on the directory as it was before the run; one
    # written there meanwhile is looked for again just before the replacement
    from fibnim import _dataset as dataset_run
    from fibnim import cli

    _dataset(tmp_path / "ds")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["classify", "ds", "-o", "out", "--game", "wythoff", "-q"]) == 0
    mark = dataset_run._mark

    def meanwhile(directory, game, where):
        (tmp_path / "out" / "late.txt").write_text("written during the run\n")
        mark(directory, game, where)

    monkeypatch.setattr(dataset_run, "_mark", meanwhile)
    status = cli.main(["classify", "ds", "-o", "out", "--game", "wythoff", "-q", "--force"])
    assert status == 2
    assert (tmp_path / "out" / "late.txt").read_text() == "written during the run\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds", "out"]
