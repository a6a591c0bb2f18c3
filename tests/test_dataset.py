"""A dataset (a directory of parquet files) as one table: its files found as
pyarrow's datasets find them, their schemas unified before any row (a column
missing from a file null there, types widened where no value changes), or the
run refused naming the file and the column; every file's answers present and
in order, in a file of the same name."""

from __future__ import annotations

import os

import numpy as np
import pytest
from _support import run_fibnim

from fibnim import classify

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _write(folder, name, **columns):
    folder.mkdir(exist_ok=True)
    pq.write_table(pa.table(columns), folder / name)


def _run(tmp_path, *extra):
    return run_fibnim(
        "classify", "ds", "-o", "out", "--game", "wythoff", "--columns", "x,y", "-q", *extra,
        cwd=tmp_path,
    )  # fmt: skip


def _answers(tmp_path):
    return pq.read_table(tmp_path / "out")


@pytest.mark.parametrize("extra_first", [False, True])
def test_a_column_one_file_lacks_is_kept_and_null_there(tmp_path, extra_first):
    # the extra column was dropped from the output, or (the other way round) a
    # KeyError traceback from inside dask
    ds = tmp_path / "ds"
    plain = {"x": [3, 4], "y": [5, 8]}
    extra = {"x": [1, 6], "y": [2, 10], "id": ["p", "q"]}
    _write(ds, "a.parquet", **(extra if extra_first else plain))
    _write(ds, "b.parquet", **(plain if extra_first else extra))
    done = _run(tmp_path)
    assert done.returncode == 0, done.stderr
    table = _answers(tmp_path)
    first, second = (extra, plain) if extra_first else (plain, extra)
    assert table.column_names == ["x", "y", "id", "is_p", "move_1", "move_2"]
    assert table["x"].to_pylist() == first["x"] + second["x"]
    ids = (first.get("id") or [None, None]) + (second.get("id") or [None, None])
    assert table["id"].to_pylist() == ids
    positions = np.array([first["x"] + second["x"], first["y"] + second["y"]]).T
    assert table["is_p"].to_pylist() == (classify(positions, "wythoff")[:, 0] == 1).tolist()


def test_types_are_widened_where_no_value_changes(tmp_path):
    ds = tmp_path / "ds"
    _write(ds, "a.parquet", x=pa.array([3], pa.int32()), y=pa.array([5], pa.uint32()))
    _write(ds, "b.parquet", x=pa.array([2**40], pa.int64()), y=pa.array([7], pa.int16()))
    done = _run(tmp_path)
    assert done.returncode == 0, done.stderr
    table = _answers(tmp_path)
    assert table["x"].to_pylist() == [3, 2**40] and table["y"].to_pylist() == [5, 7]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (pa.array([1, 2], pa.int64()), pa.array(["a", "b"])),
        (pa.array([1, 2], pa.int64()), pa.array([1.5, 2.0])),
        (pa.array([1, 2], pa.int64()), pa.array([1, 2], pa.uint64())),
    ],
    ids=["int64-string", "int64-float", "int64-uint64"],
)
def test_types_no_one_type_holds_are_refused_naming_the_file_and_column(tmp_path, one, other):
    # dask's advice about "the `schema` keyword in `to_parquet`"
    ds = tmp_path / "ds"
    _write(ds, "a.parquet", x=[3], y=[5], note=one[:1])
    _write(ds, "b.parquet", x=[4], y=[8], note=other[:1])
    done = _run(tmp_path)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert f"ds/b.parquet: column 'note' holds {other.type}, where ds/a.parquet holds int64" in (
        done.stderr
    )
    assert sorted(os.listdir(tmp_path)) == ["ds"]


def test_a_pile_that_is_not_an_integer_in_one_file_is_named(tmp_path):
    ds = tmp_path / "ds"
    _write(ds, "a.parquet", x=[3], y=[5])
    _write(ds, "b.parquet", x=[4.0], y=[8])
    done = _run(tmp_path)
    assert done.returncode == 1
    assert "ds/b.parquet: column 'x' holds double, where ds/a.parquet holds int64" in done.stderr


def test_an_empty_file_is_named_and_hidden_files_are_skipped(tmp_path):
    # "Parquet file size is 0 bytes" named no file; a hidden .x.parquet was read
    ds = tmp_path / "ds"
    _write(ds, "a.parquet", x=[3], y=[5])
    _write(ds, ".hidden.parquet", x=[-1], y=[-1])
    _write(ds, "_skipped.parquet", x=[-1], y=[-1])
    (ds / "_metadata").write_bytes(b"not parquet")
    done = _run(tmp_path)
    assert done.returncode == 0, done.stderr
    assert _answers(tmp_path)["x"].to_pylist() == [3]
    assert sorted(os.listdir(tmp_path / "out")) == ["_fibnim.json", "a.parquet"]
    (ds / "b.parquet").write_bytes(b"")
    done = _run(tmp_path, "--force")
    assert done.returncode == 1
    assert "ds/b.parquet: is empty (0 bytes), not a parquet file" in done.stderr
    (ds / "b.parquet").write_bytes(b"PAR1 and nothing of a parquet file")
    done = _run(tmp_path, "--force")
    assert done.returncode == 1 and "ds/b.parquet: not a parquet file" in done.stderr
    assert done.stderr.count("\n") == 1


def test_every_files_rows_in_order_in_a_file_of_its_name(tmp_path):
    rng = np.random.default_rng(69)
    ds = tmp_path / "ds"
    parts = {}
    for name in ["a.parquet", "b/c.parquet", "b/d.parquet", "e.parquet"]:
        rows = rng.integers(0, 10**6, size=(int(rng.integers(0, 300)), 2))
        (ds / os.path.dirname(name)).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table({"x": rows[:, 0], "y": rows[:, 1]}), ds / name)
        parts[name] = rows
    done = run_fibnim("classify", "ds", "-o", "out", "--game", "wythoff", "--chunk", "7",
                      cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    for name, rows in parts.items():
        table = pq.read_table(tmp_path / "out" / name)
        assert table["x"].to_pylist() == rows[:, 0].tolist()
        expected = classify(rows, "wythoff")
        assert table["is_p"].to_pylist() == (expected[:, 0] == 1).tolist()
        moves = table["move_1"].fill_null(-1).to_pylist()
        assert moves == expected[:, 1].tolist()
    total = sum(len(rows) for rows in parts.values())
    assert f"wythoff: {total:,} positions (piles x, y)" in done.stderr


def test_a_file_of_no_rows_keeps_the_datasets_types(tmp_path):
    ds = tmp_path / "ds"
    empty = pa.array([], pa.int64())
    _write(ds, "a.parquet", id=empty, x=empty, y=empty)
    _write(ds, "b.parquet", id=[7], x=[3], y=[5])
    done = _run(tmp_path)
    assert done.returncode == 0, done.stderr
    assert pq.read_schema(tmp_path / "out" / "a.parquet").field("id").type == pa.int64()
    assert _answers(tmp_path)["id"].to_pylist() == [7]
