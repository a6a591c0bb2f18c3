"""The `fibnim` command, run as a user runs it."""

from __future__ import annotations

import subprocess
import sys

from _support import run_fibnim as fibnim


def test_encode():
    result = fibnim("encode", "46", "8")
    assert result.returncode == 0, result.stderr
    assert "46 = 34 + 8 + 3 + 1" in result.stdout
    assert "code              149 = 0b10010101" in result.stdout
    assert "silber            100101010" in result.stdout
    assert "second canonical  10101" in result.stdout  # of 8


def test_decode():
    result = fibnim("decode", "149", "0b10000")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["149", "46", "16", "8"]


def test_errors_are_messages_not_tracebacks():
    result = fibnim("decode", "3")
    assert result.returncode == 1
    assert (
        "code = 3 has two adjacent set bits" in result.stderr and "Traceback" not in result.stderr
    )
    result = fibnim("encode", "-3")
    assert result.returncode == 2 and "-3 is negative" in result.stderr
    result = fibnim("encode", "4.5")
    assert result.returncode == 2 and "not a decimal integer" in result.stderr


# --- fibnim wythoff and fibnim classify ----------------------------------------------------

import contextlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from _support import subprocess_env, sweep, tier  # noqa: E402

from fibnim import _backend, classify  # noqa: E402

# fibnim(...) here is run_fibnim: nearly every test starts the command
pytestmark = pytest.mark.commands


def test_wythoff_command():
    result = fibnim("wythoff", "10", "15")
    assert result.returncode == 0, result.stderr
    assert "(10, 15) is an N-position" in result.stdout
    assert "winning move: to (10, 6)" in result.stdout and "B-number" in result.stdout
    result = fibnim("wythoff", "3", "5")
    assert "a P-position" in result.stdout and "winning move: none" in result.stdout
    assert "a P-position (misere" in fibnim("wythoff", "0", "1", "--misere").stdout


def test_classify_random_prints_a_summary_on_stderr():
    result = fibnim("classify", "--random", "5000", "--game", "wythoff", "--seed", "3")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr.startswith("wythoff: 5,000 random positions: ")
    assert f"backend {_backend.name()}" in result.stderr and "positions/s" in result.stderr


@pytest.mark.parametrize("to_stdout", [False, True])
def test_json_summary(tmp_path, to_stdout):
    positions = positions_for("nim", 300)
    np.save(tmp_path / "in.npy", positions)
    output = "-" if to_stdout else "out.csv"
    result = fibnim("classify", "in.npy", "-o", output, "--game", "nim", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # the JSON goes where the data does not
    summary = json.loads(result.stderr if to_stdout else result.stdout)
    expected = classify(positions, "nim")
    assert summary["positions"] == 300
    assert summary["p_positions"] == int(expected[:, 0].sum())
    assert summary["backend"] == _backend.name() and summary["output"] == output
    assert summary["implementation"] == _backend.implementation()
    if os.path.exists("/proc/self/status"):  # the process's own peak, as the kernel counts it
        assert 10 < summary["peak_mb"] < 2000
    else:
        assert summary["peak_mb"] is None
    data = result.stdout if to_stdout else (tmp_path / "out.csv").read_text()
    assert data.splitlines()[0] == "pile_1,pile_2,pile_3,is_p,move_1,move_2,move_3"
    assert summary["piles"] == ["pile_1", "pile_2", "pile_3"]


def positions_for(game: str, rows: int, seed: int = 1) -> np.ndarray:
    k = {"fibonacci-nim": 1, "nim": 3}.get(game, 2)
    return np.random.default_rng(seed).integers(0, 500, size=(rows, k))


@pytest.mark.parametrize("game", ["wythoff", "wythoff-misere", "fibonacci-nim", "nim"])
@pytest.mark.parametrize("rows", [0, 1, 1001])  # 1001: chunks of 100 and a last one of 1
def test_npy_round_trip(tmp_path, game, rows):
    positions = positions_for(game, rows)
    np.save(tmp_path / "in.npy", positions)
    result = fibnim(
        "classify", "in.npy", "-o", "out.npy", "--game", game, "--chunk", "100", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    written = np.load(tmp_path / "out.npy")
    assert written.dtype == np.int64 and (written == classify(positions, game)).all()
    assert written.shape == (rows, 1 + positions.shape[1])


def read_text(path: Path, delimiter: str) -> tuple[list[str], list[list[str]]]:
    header, *lines = path.read_text().splitlines()
    return header.split(delimiter), [line.split(delimiter) for line in lines]


def expected_rows(positions: np.ndarray, game: str, bound: int | None = None) -> list[list[str]]:
    rows = []
    for position, (p, *target) in zip(
        positions.tolist(), classify(positions, game, bound).tolist(), strict=True
    ):
        moves = [str(t) if t >= 0 else "" for t in target]
        rows.append([*map(str, position), "P" if p else "N", *moves])
    return rows


@pytest.mark.parametrize(("suffix", "delimiter"), [(".csv", ","), (".tsv", "\t")])
@pytest.mark.parametrize("header", [True, False])
def test_text_round_trip(tmp_path, suffix, delimiter, header):
    positions = positions_for("global-fibonacci-nim", 257)
    lines = [delimiter.join(map(str, row)) for row in positions.tolist()]
    if header:
        lines.insert(0, delimiter.join(["small", "large"]))
    (tmp_path / f"in{suffix}").write_text("\n".join(lines) + "\n")
    result = fibnim(
        "classify",
        f"in{suffix}",
        "-o",
        f"out{suffix}",
        "--game",
        "global-fibonacci-nim",
        "--bound",
        "5",
        "--chunk",
        "50",
        "--columns",
        "*",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    names, rows = read_text(tmp_path / f"out{suffix}", delimiter)
    piles = ["small", "large"] if header else ["pile_1", "pile_2"]
    assert names == [*piles, "is_p", "move_1", "move_2"]
    assert rows == expected_rows(positions, "global-fibonacci-nim", 5)


def test_stdin_to_stdout():
    positions = positions_for("nim", 30)
    text = "\n".join(",".join(map(str, row)) for row in positions.tolist())
    result = fibnim("classify", "-", "-o", "-", "--game", "nim", stdin=text)
    assert result.returncode == 0, result.stderr
    header, *lines = result.stdout.splitlines()
    assert header == "pile_1,pile_2,pile_3,is_p,move_1,move_2,move_3"
    assert [line.split(",") for line in lines] == expected_rows(positions, "nim")


def test_parquet_round_trip(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    positions = positions_for("wythoff", 300)
    table = pa.table({"x": positions[:, 0], "y": positions[:, 1].astype(np.uint32)})
    pq.write_table(table, tmp_path / "in.parquet", row_group_size=70)
    result = fibnim(
        "classify",
        "in.parquet",
        "-o",
        "out.parquet",
        "--game",
        "wythoff",
        "--chunk",
        "64",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    out = pq.read_table(tmp_path / "out.parquet").to_pydict()
    assert list(out) == ["x", "y", "is_p", "move_1", "move_2"]
    out["is_p"] = ["P" if p else "N" for p in out["is_p"]]  # a boolean in parquet
    columns = list(out.values())
    rows = [[str(v) if v is not None else "" for v in row] for row in zip(*columns, strict=True)]
    assert rows == expected_rows(positions, "wythoff")


def test_threads_do_not_change_the_answer(tmp_path):
    np.save(tmp_path / "in.npy", positions_for("wythoff", 5000))
    for threads in ("1", "2"):
        result = fibnim(
            "classify",
            "in.npy",
            "-o",
            f"out{threads}.npy",
            "--game",
            "wythoff",
            "--threads",
            threads,
            "--chunk",
            "333",
            cwd=tmp_path,
        )
        assert result.returncode == 0, result.stderr
    assert (np.load(tmp_path / "out1.npy") == np.load(tmp_path / "out2.npy")).all()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1,2\n3,abc\n", "in.csv:2: column 1: 'abc' is not an integer"),
        ("x,y\n1,2\n\n3,-4\n", "in.csv:4: column 1 ('y'): -4 is negative"),
        ("1,2\n3,4,5\n", "in.csv:2: 3 columns, expected 2: '3,4,5'"),
        ("1,2\n1.5,2\n", "in.csv:2: column 0: '1.5' is not an integer"),
        ("1,99999999999999999999\n", "in.csv:1: column 1: 99999999999999999999 is too large"),
        ("", "in.csv: is empty"),
    ],
)
def test_bad_csv_rows_stop_the_run_with_the_line(tmp_path, text, message):
    (tmp_path / "in.csv").write_text(text)
    result = fibnim("classify", "in.csv", "-o", "out.csv", "--game", "wythoff", cwd=tmp_path)
    assert result.returncode == 1 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]  # no partial output


def test_bad_npy_files(tmp_path):
    np.save(tmp_path / "floats.npy", np.ones((3, 2)))
    np.save(tmp_path / "negative.npy", np.array([[1, 2], [3, 4], [5, -6]]))
    np.save(tmp_path / "big.npy", np.array([[1, 2**63]], dtype=np.uint64))
    (tmp_path / "junk.npy").write_bytes(b"not numpy")
    for name, message in [
        ("floats.npy", "floats.npy: holds float64, not integers"),
        ("negative.npy", "negative.npy: row 2, column 1: -6 is negative"),
        ("big.npy", "big.npy: row 0, column 1: 9223372036854775808 is too large for int64"),
        ("junk.npy", "junk.npy: not a .npy file"),
    ]:
        result = fibnim("classify", name, "-o", "out.npy", "--game", "wythoff", cwd=tmp_path)
        assert result.returncode == 1 and message in result.stderr, result.stderr
    assert not (tmp_path / "out.npy").exists()


def test_usage_errors_exit_2(tmp_path):
    np.save(tmp_path / "in.npy", np.ones((3, 2), dtype=np.int64))
    (tmp_path / "taken.npy").write_bytes(b"keep me")
    for arguments, message in [
        (["missing.npy", "-o", "o.npy", "--game", "wythoff"], "missing.npy: no such file"),
        (["in.npy", "-o", "taken.npy", "--game", "wythoff"], "taken.npy: exists; --force"),
        (["in.npy", "-o", "o.txt", "--game", "wythoff"], "o.txt: unknown format .txt"),
        (["in.npy", "--game", "wythoff"], "-o OUTPUT is needed"),
        (["in.npy", "-o", "o.npy", "--game", "nim", "--bound", "3"], "nim has no bound"),
        (["--random", "5", "--game", "chess"], "invalid choice: 'chess'"),
        (["in.npy", "--random", "5", "--game", "nim"], "give INPUT or --random N"),
    ]:
        result = fibnim("classify", *arguments, cwd=tmp_path)
        assert result.returncode == 2 and message in result.stderr, (arguments, result.stderr)
        assert "Traceback" not in result.stderr
    assert (tmp_path / "taken.npy").read_bytes() == b"keep me"
    result = fibnim(
        "classify", "in.npy", "-o", "taken.npy", "--game", "wythoff", "--force", cwd=tmp_path
    )
    assert result.returncode == 0 and np.load(tmp_path / "taken.npy").shape == (3, 3)


def test_a_wrong_number_of_piles_is_a_data_error(tmp_path):
    np.save(tmp_path / "in.npy", np.ones((3, 3), dtype=np.int64))
    result = fibnim("classify", "in.npy", "-o", "o.npy", "--game", "wythoff", cwd=tmp_path)
    assert result.returncode == 1
    assert "in.npy: wythoff takes positions of 2 piles (columns), not 3" in result.stderr


@pytest.mark.parametrize("name", ["SIGKILL", "SIGTERM"])
def test_a_killed_run_leaves_nothing(tmp_path, name):
    how = getattr(signal, name, None)
    if how is None or os.name == "nt":
        pytest.skip(f"no {name} to send on this platform")
    count = "400000000" if _backend.name() == "cython" else "4000000"
    arguments = ["classify", "--random", count, "--game", "global-fibonacci-nim", "-o", "out.npy"]
    env = subprocess_env()
    process = subprocess.Popen(
        [sys.executable, "-m", "fibnim", *arguments],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(3)  # well into the run
    assert process.poll() is None, process.communicate()
    process.send_signal(how)
    process.communicate(timeout=60)
    assert process.returncode != 0
    assert list(tmp_path.iterdir()) == []


def test_peak_memory_stays_bounded_on_a_large_npy(tmp_path):
    if _backend.name() == "python":
        pytest.skip("the pure twin would take hours over this many positions")
    if not os.path.exists("/proc/self/status"):
        pytest.skip("reads the peak RSS from /proc (Linux)")
    rows = 20_000_000  # 320 MB in, 480 MB out
    positions = np.lib.format.open_memmap(tmp_path / "in.npy", "w+", np.int64, (rows, 2))
    for start in range(0, rows, 1 << 22):
        stop = min(start + (1 << 22), rows)
        positions[start:stop] = np.arange(start, stop)[:, None] % 1000
    positions.flush()
    del positions
    # VmHWM, the peak RSS of this process image (ru_maxrss would carry pytest's
    # own peak across the fork and exec)
    script = (
        "import sys; from fibnim.cli import main; code = main(sys.argv[1:]); "
        "peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]; "
        "print(int(peak.split()[1]) // 1024); sys.exit(code)"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, "classify", "in.npy", "-o", "out.npy", "--game", "wythoff"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    peak_mb = int(result.stdout.split()[-1])
    assert peak_mb < 200, f"peak RSS {peak_mb} MB"  # the input alone is 320 MB
    out = np.load(tmp_path / "out.npy", mmap_mode="r")
    assert (
        out.shape == (rows, 3)
        and (
            out[-1000:]
            == classify(np.arange(rows - 1000, rows)[:, None].repeat(2, 1) % 1000, "wythoff")
        ).all()
    )


def local_cluster():
    """A scheduler on a TCP port with two workers: threads of this process, so
    that the test's backend is the one they run."""
    distributed = pytest.importorskip("distributed")
    # the dashboard on a free port: None still took 8787, which another run held
    return distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=":0"
    )


def test_classify_on_a_dask_scheduler(tmp_path):
    positions = positions_for("wythoff", 20_000)
    np.save(tmp_path / "in.npy", positions)
    with local_cluster() as cluster:
        result = fibnim(
            "classify",
            "in.npy",
            "-o",
            "out.npy",
            "--game",
            "wythoff",
            "--chunk",
            "3000",
            "--dask",
            cluster.scheduler_address,
            cwd=tmp_path,
        )
    assert result.returncode == 0, result.stderr
    assert "dask at tcp://" in result.stderr and "2 workers" in result.stderr
    assert (np.load(tmp_path / "out.npy") == classify(positions, "wythoff")).all()


@pytest.mark.parametrize("quiet", [False, True])
def test_progress_bar_only_on_a_terminal(quiet):
    pty = pytest.importorskip("pty")
    import fcntl
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    count = "3000000" if _backend.name() == "cython" else "30000"
    arguments = ["classify", "--random", count, "--game", "wythoff", "--chunk", "10000"]
    env = subprocess_env()
    process = subprocess.Popen(
        [sys.executable, "-m", "fibnim", *arguments, *(["--quiet"] if quiet else [])],
        stderr=follower,
        stdout=subprocess.PIPE,
        env=env,
    )
    os.close(follower)
    seen = b""
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not data:
            break
        seen += data
    stdout, _ = process.communicate(timeout=120)
    os.close(leader)
    assert process.returncode == 0
    assert (b"100%|" in seen) == (not quiet)
    assert stdout == b""  # the summary goes with the bar, to stderr
    assert (b"positions/s" in seen) == (not quiet)
    # and with stderr not a terminal (every other test here), no bar at all
    assert "100%|" not in fibnim(*arguments).stderr


# --- the CLI never destroys data ----------------------------------------------------------


@pytest.mark.parametrize("how", ["same path", "symlink", "hard link"])
def test_the_input_is_never_the_output(tmp_path, how):
    # `classify same.csv -o same.csv --force` once replaced the input by the results
    (tmp_path / "in.csv").write_text("1,2\n3,5\n")
    output = {"same path": "in.csv", "symlink": "link.csv", "hard link": "hard.csv"}[how]
    if how == "symlink":
        os.symlink("in.csv", tmp_path / "link.csv")
    elif how == "hard link":
        os.link(tmp_path / "in.csv", tmp_path / "hard.csv")
    result = fibnim(
        "classify", "in.csv", "-o", output, "--game", "wythoff", "--force", cwd=tmp_path
    )
    assert result.returncode == 2
    assert "is the input" in result.stderr
    assert (tmp_path / "in.csv").read_text() == "1,2\n3,5\n"


def _unread(pipe) -> int:
    """Bytes written to pipe and not yet read at its other end (Linux's FIONREAD)."""
    import fcntl
    import struct
    import termios

    answer = fcntl.ioctl(pipe.fileno(), termios.FIONREAD, b"\0\0\0\0")
    return int(struct.unpack("i", answer)[0])


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
def test_a_signal_is_never_lost_and_the_old_output_stays(tmp_path):
    # In about 1 run in 3, SIGINT during an npy -> csv run was ignored: the run
    # finished, exited 0, and with --force replaced the old output. And a run
    # whose input waited on a pipe noted the signal and waited on. The input
    # comes through a pipe this test holds open, so no run can end before its
    # signal (a run timed against a clock once did, on a busy machine): the
    # signal lands while the run reads, computes or writes, at no fixed moment.
    env = subprocess_env()
    env["PYTHONFAULTHANDLER"] = "1"  # a run the guard below ends shows where it waited
    command = [sys.executable, "-m", "fibnim", "classify", "-", "--game", "wythoff", "-q"]
    rows = "".join(f"{x},{x + 7}\n" for x in range(100_000, 110_000))  # 140 kB
    for attempt in range(8):
        (tmp_path / "out.csv").write_text("old\n")
        with subprocess.Popen(
            [*command, "-o", "out.csv", "--force", "--chunk", "1000"],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as process:
            assert process.stdin is not None
            # more than a pipe holds: the write returns once the run reads, so
            # past its start (a signal while the interpreter starts is out of reach)
            process.stdin.write("x,y\n" + rows * (1 + attempt))
            process.stdin.flush()
            if attempt >= 4:  # the pipe read empty: the run reads on, or waits for more
                while _unread(process.stdin):
                    time.sleep(0.01)
            number = signal.SIGINT if attempt % 2 == 0 else signal.SIGTERM
            process.send_signal(number)
            assert process.stderr is not None
            # until the run ends, with the input still open; a run that waits
            # on forever is aborted, its threads' stacks in err (a guard against
            # a hang, not a figure)
            guard = threading.Timer(120, process.send_signal, (signal.SIGABRT,))
            guard.start()
            err = process.stderr.read()
            guard.cancel()
            process.stdin.close()
        assert process.returncode == 128 + number, err
        assert f"stopped by {signal.Signals(number).name}" in err
        assert (tmp_path / "out.csv").read_text() == "old\n"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_an_interrupt_stops_a_long_run_and_the_old_output_stays(tmp_path, name):
    # a run of minutes: the queued chunks are cancelled, the running ones end
    # their chunk (a chunk takes well under a second), the old output stays.
    # How soon is a benchmark's question, not a test's: the timeout below only
    # guards against a run that goes on to its end
    number = getattr(signal, name)
    cython = _backend.name() == "cython"
    count, chunk = ("100000000", "262144") if cython else ("10000000", "5000")
    (tmp_path / "out.csv").write_bytes(b"old")
    arguments = ["classify", "--random", count, "--game", "global-fibonacci-nim"]
    arguments += ["-o", "out.csv", "--force", "--chunk", chunk, "-q"]
    process = subprocess.Popen(
        [sys.executable, "-m", "fibnim", *arguments],
        cwd=tmp_path,
        env=subprocess_env(),
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(3)
    assert process.poll() is None, process.communicate()
    process.send_signal(number)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 128 + number, err
    assert f"stopped by {name}" in err
    assert (tmp_path / "out.csv").read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_a_parquet_dataset_of_mixed_integer_types_is_read_exactly(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    pytest.importorskip("dask.dataframe")
    import pyarrow as pa

    (tmp_path / "dataset").mkdir()
    for i, x in enumerate([2**53 + 1, 2**63 + 5]):  # a uint64 column beside an int64 one
        table = pa.table({"x": pa.array([x, 3], pa.uint64()), "y": pa.array([2**53, 5])})
        pq.write_table(table, tmp_path / "dataset" / f"part-{i}.parquet")
    result = fibnim(
        "classify", "dataset", "-o", "out", "--game", "nim", "--columns", "*", cwd=tmp_path
    )
    assert result.returncode == 1
    said = "dataset/part-1.parquet: row 0, column 0 ('x'): 9223372036854775813 is too large"
    assert said in result.stderr, result.stderr
    (tmp_path / "dataset" / "part-1.parquet").unlink()
    result = fibnim(
        "classify", "dataset", "-o", "out", "--game", "nim", "--columns", "*", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    frame = pq.read_table(tmp_path / "out").to_pandas()
    assert frame["x"].tolist() == [2**53 + 1, 3] and frame["is_p"].tolist() == [False, False]


def test_a_parquet_dataset_on_a_local_cluster(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    pd = pytest.importorskip("pandas")
    pytest.importorskip("dask.dataframe")
    import pyarrow as pa

    rng = np.random.default_rng(8)
    parts = [rng.integers(0, 10**6, size=(2_000 + 100 * i, 2)) for i in range(9)]
    (tmp_path / "dataset").mkdir()
    for i, part in enumerate(parts):
        table = pa.table({"x": part[:, 0], "y": part[:, 1]})
        pq.write_table(table, tmp_path / "dataset" / f"part-{i:02}.parquet")
    (tmp_path / "out").mkdir()  # in the way: replaced with --force only
    with local_cluster() as cluster:
        arguments = ["classify", "dataset", "-o", "out", "--game", "wythoff"]
        arguments += ["--dask", cluster.scheduler_address]
        refused = fibnim(*arguments, cwd=tmp_path)
        result = fibnim(*arguments, "--force", cwd=tmp_path)
    assert refused.returncode == 2 and "exists" in refused.stderr
    assert result.returncode == 0, result.stderr
    total = sum(len(p) for p in parts)
    assert f"wythoff: {total:,} positions (piles x, y)" in result.stderr
    assert "9 files on dask at" in result.stderr
    written = sorted((tmp_path / "out").glob("*.parquet"))
    assert [p.name for p in written] == [f"part-{i:02}.parquet" for i in range(9)]  # by workers
    frame = pd.concat([pd.read_parquet(path) for path in written], ignore_index=True)
    positions = np.concatenate(parts)
    expected = classify(positions, "wythoff")
    assert (frame[["x", "y"]].to_numpy() == positions).all()
    assert frame["is_p"].dtype == bool and (frame["is_p"] == (expected[:, 0] == 1)).all()
    assert str(frame["move_1"].dtype) == "Int64"
    assert (frame["move_1"].fillna(-1).to_numpy() == expected[:, 1]).all()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataset", "out"]  # nothing else


def test_a_bad_value_in_a_dataset_is_a_data_error(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    pytest.importorskip("dask.dataframe")
    import pyarrow as pa

    (tmp_path / "dataset").mkdir()
    for i, x in enumerate([[1, 2], [3, -4]]):
        pq.write_table(pa.table({"x": x, "y": [5, 6]}), tmp_path / "dataset" / f"{i}.parquet")
    result = fibnim("classify", "dataset", "-o", "out", "--game", "wythoff", cwd=tmp_path)
    assert result.returncode == 1
    assert "dataset/1.parquet: row 1, column 0 ('x'): -4 is negative" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataset"]


# --- pictures: fibnim wythoff --plot, fibnim classify --summary-plot ------------------------


def is_png(path: Path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_wythoff_plot_writes_a_picture_once(tmp_path):
    pytest.importorskip("matplotlib")
    picture = tmp_path / "move.png"
    result = fibnim("wythoff", "24", "32", "--plot", str(picture))
    assert result.returncode == 0, result.stderr
    assert "winning move: to (12, 20)" in result.stdout and is_png(picture)
    before = picture.read_bytes()
    again = fibnim("wythoff", "3", "5", "--plot", str(picture))
    assert again.returncode == 2 and "exists; --force overwrites it" in again.stderr
    assert picture.read_bytes() == before
    forced = fibnim("wythoff", "3", "5", "--plot", str(picture), "--force")
    assert forced.returncode == 0 and picture.read_bytes() != before
    svg = tmp_path / "move.svg"
    assert fibnim("wythoff", "3", "5", "--plot", str(svg)).returncode == 0
    assert svg.read_text().lstrip().startswith("<?xml")
    wrong = fibnim("wythoff", "3", "5", "--plot", str(tmp_path / "move.txt"))
    assert wrong.returncode == 2 and "name a picture file, one of" in wrong.stderr
    assert not (tmp_path / "move.txt").exists()


def test_summary_plot_draws_each_chunk(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from fibnim import _run, cli

    drawn = {}
    monkeypatch.setattr(_run, "save_figure", lambda figure, *rest: drawn.update(figure=figure))
    positions = positions_for("wythoff", 5000)
    # small piles: many P-positions, so that the shares differ from chunk to chunk
    positions = positions % 40
    np.save(tmp_path / "in.npy", positions)
    arguments = [str(tmp_path / "in.npy"), "-o", str(tmp_path / "out.npy"), "--game", "wythoff"]
    picture = str(tmp_path / "summary.png")
    assert cli.main(["classify", *arguments, "--chunk", "1000", "--summary-plot", picture]) == 0
    share, rate = drawn["figure"].axes
    expected = [
        100 * classify(positions[i : i + 1000], "wythoff")[:, 0].mean()
        for i in range(0, 5000, 1000)
    ]
    assert np.allclose(share.lines[0].get_ydata(), expected)
    assert (np.asarray(rate.lines[0].get_ydata()) > 0).all()


def test_summary_plot_checks_come_before_the_run(tmp_path):
    pytest.importorskip("matplotlib")
    picture = tmp_path / "summary.png"
    picture.write_bytes(b"mine")
    result = fibnim(
        "classify", "--random", "1000", "--game", "nim", "--summary-plot", str(picture)
    )
    assert result.returncode == 2 and "exists; --force overwrites it" in result.stderr
    assert picture.read_bytes() == b"mine"
    written = fibnim(
        "classify", "--random", "1000", "--game", "nim", "--summary-plot", str(picture), "--force"
    )
    assert written.returncode == 0, written.stderr
    assert is_png(picture)
    empty = tmp_path / "empty.png"  # no positions: the axes, no points
    nothing = fibnim("classify", "--random", "0", "--game", "nim", "--summary-plot", str(empty))
    assert nothing.returncode == 0, nothing.stderr
    assert is_png(empty)


def test_pictures_without_matplotlib_are_a_clear_usage_error(tmp_path):
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from fibnim.cli import main\n"
        f"sys.exit(main(['wythoff', '3', '5', '--plot', {str(tmp_path / 'p.png')!r}]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=subprocess_env()
    )
    assert result.returncode == 2
    assert 'needs matplotlib: pip install "fibnim[plot]"' in result.stderr
    assert not (tmp_path / "p.png").exists()


def test_exit_statuses_are_those_the_help_gives(tmp_path):
    np.save(tmp_path / "in.npy", positions_for("wythoff", 10))
    (tmp_path / "bad.csv").write_text("x,y\n3,-1\n")
    (tmp_path / "taken.npy").write_bytes(b"")
    game = ["--game", "wythoff"]
    cases = [
        (0, ["in.npy", "-o", "new.npy"]),
        (1, ["bad.csv", "-o", "never.csv"]),  # bad data
        (2, ["missing.npy", "-o", "never.npy"]),  # an input that does not exist
        (2, ["in.npy", "-o", "taken.npy"]),  # an output in the way
        (2, ["in.npy", "-o", "never.txt"]),  # an unknown format
        (2, ["in.npy", "-o", "never.npy", "--columns", "0,5"]),  # no such column
        (2, ["in.npy", "-o", "never.npy", "--no-such-option"]),
    ]
    for status, arguments in cases:
        result = fibnim("classify", *arguments, *game, cwd=tmp_path)
        assert result.returncode == status, (arguments, result.stderr)
    assert not any(path.name.startswith("never") for path in tmp_path.iterdir())
    help_text = fibnim("classify", "--help").stdout
    assert "exit status: 0 done; 1 bad data" in help_text and "2 a bad command" in help_text


def test_sizes_past_int64_and_past_the_free_memory_are_one_line(tmp_path):
    # "Python int too large to convert to C long"; and 4,096 rows of 10**8
    # piles at least, which the kernel's out-of-memory killer ended unsaid
    result = fibnim("classify", "--random", "99999999999999999999", "--game", "nim")
    assert result.returncode == 2
    assert "--random: 99999999999999999999 is past 2**63 - 1" in result.stderr
    from fibnim import _errors, _run

    with pytest.raises(_errors.UsageError, match=r"^--random: 3 chunks of 1 rows .* MB are free"):
        _run.check_room(1, 10**12, 2, "--random")
    _run.check_room(_run.default_chunk(2, 10**6), 10**6, 2, "--random")  # 48 MB: room


def test_the_default_chunk_is_bounded_by_bytes_down_to_one_row():
    from fibnim._run import IN_FLIGHT, default_chunk

    for piles in (2, 20_000, 10**8):
        chunk = default_chunk(2, piles)
        assert chunk >= 1
        assert chunk == 1 or chunk * 8 * (2 * piles + 1) * 3 <= IN_FLIGHT


@pytest.mark.skipif(os.name != "posix", reason="a pseudo-terminal")
@pytest.mark.parametrize("command", ["pack", "unpack"])
def test_binary_output_is_not_written_to_a_terminal(tmp_path, command):
    # unpack ids.fnc -o - on a terminal wrote the .npy's bytes to it
    np.save(tmp_path / "v.npy", np.arange(1, 5, dtype=np.uint64))
    from fibnim import coding

    coding.write(tmp_path / "v.fnc", np.arange(1, 5, dtype=np.uint64))
    source = "v.npy" if command == "pack" else "v.fnc"
    leader, follower = os.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "fibnim", command, source, "-o", "-"],
            cwd=tmp_path, stdout=follower, stderr=subprocess.PIPE, text=True,
            env=subprocess_env(), check=False,
        )  # fmt: skip
    finally:
        os.close(follower)
        os.close(leader)
    assert result.returncode == 2
    assert "is binary, and standard output is a terminal" in result.stderr


def test_a_width_read_from_a_header_costs_no_memory_of_its_own(tmp_path):
    # a 128-byte .npy of shape (0, 20000000) took 1.4 GB (its pile names, made
    # as a list), and 5.7 GB to CSV; its memory is held to what is read
    with open(tmp_path / "wide.npy", "wb") as file:
        np.lib.format.write_array_header_1_0(
            file, {"descr": "<i8", "fortran_order": False, "shape": (0, 20_000_000)}
        )
    if not os.path.exists("/proc/self/status"):
        pytest.skip("the peak of a process's own memory is read from /proc")
    # VmHWM, the peak of the process's own memory: ru_maxrss keeps the peak of
    # the process that forked it (this test's), which exec does not clear
    script = (
        "import re, sys\nfrom fibnim import cli\n"
        "status = cli.main(sys.argv[1:])\n"
        "text = open('/proc/self/status').read()\n"
        "print(status, re.search(r'VmHWM:\\s*(\\d+)', text)[1])"
    )
    for game, output, status in [("wythoff", "never.npy", 1), ("nim", "out.npy", 0)]:
        result = subprocess.run(
            [sys.executable, "-c", script, "classify", "wide.npy", "-o", output, "-q",
             "--game", game],
            cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, check=False,
        )  # fmt: skip
        done, peak_kb = map(int, result.stdout.split())
        assert done == status, result.stderr
        assert peak_kb < 400 * 1024, (game, peak_kb)
    assert np.load(tmp_path / "out.npy").shape == (0, 20_000_001)


@pytest.mark.parametrize("width", [1, sweep((1 << 16) - 1), 1 << 16, sweep(70_000)])
def test_a_header_of_many_columns_is_written_whole(tmp_path, width):
    # written a piece of 65,536 names at a time: no name lost or doubled at a seam
    np.save(tmp_path / "wide.npy", np.ones((1, width), dtype=np.int64))
    result = fibnim("classify", "wide.npy", "-o", "out.csv", "--game", "nim", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with open(tmp_path / "out.csv") as file:
        header = file.readline().rstrip("\n").split(",")
        row = file.readline().rstrip("\n").split(",")
    piles = [f"pile_{j + 1}" for j in range(width)]
    assert header == [*piles, "is_p", *(f"move_{j + 1}" for j in range(width))]
    assert len(row) == len(header)


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals and FIFOs")
@pytest.mark.parametrize("kind", [".csv", ".tsv", ".parquet", ".npy"])
def test_a_signal_is_never_lost_whatever_the_input_and_wherever_the_run_is(tmp_path, kind):
    # A SIGINT 0.5 to 10 s into a CSV or TSV run was ignored in 5 of about 40
    # runs. The output here is a FIFO this test reads from: the run cannot end
    # before its signal, which lands after some of its output was read; then
    # the rest is read, so that no run waits forever.
    piles = np.random.default_rng(7).integers(0, 10**9, size=(200_000, 2))
    if kind == ".npy":
        np.save(tmp_path / "in.npy", piles)
    elif kind == ".parquet":
        pq = pytest.importorskip("pyarrow.parquet")
        import pyarrow as pa

        pq.write_table(pa.table({"x": piles[:, 0], "y": piles[:, 1]}), tmp_path / "in.parquet")
    else:
        delimiter = "\t" if kind == ".tsv" else ","
        np.savetxt(tmp_path / f"in{kind}", piles, fmt="%d", delimiter=delimiter,
                   header=f"x{delimiter}y", comments="")  # fmt: skip
    env = subprocess_env()
    env["PYTHONFAULTHANDLER"] = "1"
    # after the first byte (its header: the run reads and computes) and later
    # (it waits to write, or computes), never before the run is under way
    moments = [1, 2, 100, 4096, 65536, 1 << 18, 1 << 20, 3 << 20]
    for attempt, read_first in enumerate(tier(moments, moments[1::3])):
        fifo = tmp_path / f"out{attempt}.csv"
        os.mkfifo(fifo)
        # the test's ends of the FIFO, open before the run's: a read waits for
        # the run's bytes (not for a writer), and the run never waits to open it
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        keeper = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        command = [sys.executable, "-m", "fibnim", "classify", f"in{kind}", "-o", fifo.name]
        command += ["--game", "wythoff", "-q", "--chunk", "5000"]
        with subprocess.Popen(
            command, cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True
        ) as process:

            def drain(limit: float, reader: int = reader) -> None:
                """Read the run's output until limit bytes came, or the run ended."""
                got = 0
                while got < limit:
                    if select.select([reader], [], [], 0.05)[0]:
                        with contextlib.suppress(BlockingIOError):
                            got += len(os.read(reader, 1 << 16))
                    elif process.poll() is not None:
                        return

            number = signal.SIGINT if attempt % 2 == 0 else signal.SIGTERM
            guard = threading.Timer(120, process.send_signal, (signal.SIGABRT,))
            guard.start()
            drain(read_first)
            process.send_signal(number)
            drain(float("inf"))
            assert process.stderr is not None
            err = process.stderr.read()
            guard.cancel()
        os.close(reader)
        os.close(keeper)
        assert process.returncode == 128 + number, (kind, read_first, err)
        assert f"stopped by {signal.Signals(number).name}" in err
