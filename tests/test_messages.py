"""One clear line, pointing at the right value: the messages of calls and
commands that named the wrong value, no function or file, or said more than
the line that matters."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from _support import run_fibnim, subprocess_env

import fibnim
from fibnim import classify


def test_a_missing_value_is_named_not_the_first_value():
    # named positions[0, 0] (column 'x') = 3.0, the good value, not the missing one
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x": [3, None], "y": [5, 8]})
    with pytest.raises(TypeError) as refused:
        classify(frame, "wythoff")
    said = str(refused.value)
    assert "positions[1, 0] (column 'x') = nan: a missing value" in said
    assert 'dtype="Int64"' in said and "<NA> answers" in said
    answers = classify(frame.astype("Int64"), "wythoff")  # as the message says
    assert answers["is_p"].isna().tolist() == [False, True]


@pytest.mark.parametrize("unit", ["generic", "s"])
def test_a_timedelta_is_no_integer(unit):
    # np.timedelta64(5) was taken as 5 (encode gave 8); with a unit, a bare
    # "int() argument must be..." named no function
    with warnings.catch_warnings():  # newer numpys deprecate the generic unit
        warnings.simplefilter("ignore", DeprecationWarning)
        value = np.timedelta64(5) if unit == "generic" else np.timedelta64(5, unit)
    with pytest.raises(TypeError, match=r"encode: n = .* is a timedelta64, not an integer"):
        fibnim.encode(value)
    with pytest.raises(TypeError, match=r"is_safe: x = .* is a timedelta64"):
        fibnim.wythoff.is_safe(value, 3)


def test_a_category_series_is_refused_by_its_type():
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match="encode: n must have an integer dtype, not category"):
        fibnim.encode(pd.Series([1, 2], dtype="category"))


def test_a_dask_frames_error_names_the_row_once():
    # positions[0, 1] (row 4, column 'y'): the partition's index beside the frame's row
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6], "y": [1, 2, 3, 4, -5, 6]})
    lazy = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(ValueError, match=r"^classify: positions \(row 4, column 'y'\) = -5 is"):
        classify(lazy, "wythoff").compute()
    with pytest.raises(ValueError, match=r"^is_safe: y \(row 4\) = -5 is negative"):
        fibnim.wythoff.is_safe(lazy["x"], lazy["y"]).compute()


def test_dev_null_is_written_as_a_stream(tmp_path):
    # refused as "unknown format (no suffix)", where the guide says it is a stream
    done = run_fibnim("classify", "--random", "100", "--game", "wythoff", "-o", os.devnull, "-q")
    assert done.returncode == 0, done.stderr


def test_help_says_what_each_output_and_random_are():
    done = run_fibnim("unpack", "--help")
    assert "- for stdout: an .npy" in " ".join(done.stdout.split())
    done = run_fibnim("classify", "--help")
    text = " ".join(done.stdout.split())
    assert "drawn uniformly from 0 to 999,999" in text and "- is CSV text on stdout" in text


def test_a_misspelt_game_is_one_line_with_the_nearest():
    # argparse's seven-line usage came before the one line that matters
    done = run_fibnim("classify", "--random", "5", "--game", "wythof")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "invalid choice: 'wythof'" in done.stderr and "did you mean 'wythoff'?" in done.stderr


@pytest.mark.parametrize("text", ["0x10", "1_000", "\u0663", "1e3", " 5x"])
def test_the_command_line_takes_numbers_as_csv_piles_are(text):
    # 0x10, 1_000 and Arabic-Indic digits were taken here and refused in a CSV
    done = run_fibnim("encode", text)
    assert done.returncode == 2 and "is not a decimal integer" in done.stderr
    assert run_fibnim("encode", " 16 ").stdout.startswith("16 = 13 + 3")


def test_codes_are_decimal_or_written_in_bits():
    done = run_fibnim("decode", "0b101", "0x10", "9")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["5", "4", "16", "8", "9", "6"]
    assert run_fibnim("decode", "1_0").returncode == 2


@pytest.mark.parametrize("threshold", ["-1", "nan", "inf", "lots"])
def test_a_threshold_is_a_finite_share(threshold):
    done = run_fibnim("bench", "--quick", "--threshold", threshold)
    assert done.returncode == 2 and "--threshold" in done.stderr


@pytest.mark.parametrize("command", ["pack", "unpack"])
def test_a_closed_stdin_is_one_line(tmp_path, command):
    # AttributeError: 'NoneType' object has no attribute 'buffer'
    done = subprocess.run(
        [sys.executable, "-m", "fibnim", command, "-", "-o", str(tmp_path / "out.npy")],
        capture_output=True, text=True,
        env=subprocess_env(), check=False, preexec_fn=lambda: os.close(0),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr == "fibnim: -: standard input is closed; name a file, or give it input\n"


def test_bytes_that_are_not_text_are_named_by_file_and_column(tmp_path, monkeypatch):
    # "fibnim: Invalid UTF8 payload", naming no file or column; without
    # pyarrow, the bytes were written as Python's b'...'
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    good = pa.array([b"ok", "caf\u00e9".encode()], pa.binary())
    pq.write_table(pa.table({"b": good, "x": [3, 4], "y": [5, 8]}), tmp_path / "good.parquet")
    bad = pa.array([b"ok", b"\xff\xfe"], pa.binary())
    pq.write_table(pa.table({"b": bad, "x": [3, 4], "y": [5, 8]}), tmp_path / "bad.parquet")
    written = []
    for no_arrow in ("", "1"):
        monkeypatch.setenv("FIBNIM_NO_ARROW", no_arrow)
        command = ["-o", "-", "--columns", "x,y", "--game", "wythoff", "-q"]
        done = run_fibnim("classify", "good.parquet", *command, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        written.append(done.stdout)
        done = run_fibnim("classify", "bad.parquet", *command, cwd=tmp_path)
        assert done.returncode == 1
        assert done.stderr == (
            "fibnim: bad.parquet: column 'b': b'\\xff\\xfe' is not UTF-8 text, which - (CSV "
            "or TSV) holds; write parquet, which keeps bytes\n"
        )
    assert written[0] == written[1]
    assert written[0].splitlines()[1:] == ["ok,3,5,P,,", "caf\u00e9,4,8,N,4,7"]


def test_a_damaged_footer_is_one_line(tmp_path):
    # "Couldn't deserialize thrift: ..." carried the library's line break
    rng = np.random.default_rng(9)
    for attempt in range(20):
        footer = rng.integers(0, 256, 40, dtype=np.uint8).tobytes()
        data = b"PAR1" + footer + len(footer).to_bytes(4, "little") + b"PAR1"
        (tmp_path / "bad.parquet").write_bytes(data)
        done = run_fibnim("classify", "bad.parquet", "-o", "-", "--game", "wythoff", cwd=tmp_path)
        assert done.returncode == 1, (attempt, done.stderr)
        assert done.stderr.startswith("fibnim: bad.parquet: not a parquet file (")
        assert done.stderr.count("\n") == 1, done.stderr
