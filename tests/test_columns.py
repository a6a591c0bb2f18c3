"""Choosing the pile columns (`fibnim classify --columns`, `classify(columns=)`)
and the one encoding of the answers in every format:

| where                 | is_p          | no move     |
|-----------------------|---------------|-------------|
| numpy, .npy, xarray   | int64 1 / 0   | -1          |
| pandas, parquet       | bool          | <NA> / null |
| CSV, TSV              | P / N         | empty cell  |
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from fibnim import GAMES, classify, cli
from fibnim._errors import UsageError
from fibnim._source import pile_columns

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

# the pile columns each game is given here (global-fibonacci-nim: three piles,
# small enough for its search)
PILES = {
    "wythoff": ["x", "y"],
    "wythoff-misere": ["x", "y"],
    "fibonacci-nim": ["y"],
    "global-fibonacci-nim": ["x", "y", "z"],
    "power-nim": ["x", "y", "z"],
    "nim": ["z", "x"],
}


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    """`fibnim classify ARGUMENTS --force` in tmp_path, in this process: (status, stderr)."""
    monkeypatch.chdir(tmp_path)

    def run(*arguments: str) -> tuple[int, str]:
        status = cli.main(["classify", *arguments, "--force"])
        return status, capsys.readouterr().err

    return run


def games_frame(rows: int = 60, seed: int = 0) -> pd.DataFrame:
    """Exported games as users have them: an id, the piles, a note with text
    that needs quotes in CSV, and small piles, so that many positions are P."""
    rng = np.random.default_rng(seed)
    piles = rng.integers(0, 12, size=(rows, 3))
    piles[:3] = [[3, 5, 0], [0, 0, 0], [4, 7, 3]]  # P-positions of several games
    notes = np.array(["plain", "with, comma", 'a "quote"', "", " spaced "], dtype=object)
    return pd.DataFrame(
        {
            "game_id": [f"g-{i:03}" for i in range(rows)],
            "x": piles[:, 0],
            "note": notes[np.arange(rows) % len(notes)],
            "y": piles[:, 1],
            "z": piles[:, 2],
        }
    )


def expected_answers(frame: pd.DataFrame, game: str) -> np.ndarray:
    return classify(frame[PILES[game]].to_numpy(), game, 1 if GAMES[game].bounded else None)


def bound_arguments(game: str) -> list[str]:
    return ["--bound", "1"] if GAMES[game].bounded else []


@pytest.mark.parametrize("game", list(PILES))
def test_an_id_column_passes_through_a_csv_for_every_game(tmp_path, run, text_path, game):
    frame = games_frame()
    frame.to_csv(tmp_path / "in.csv", index=False)
    columns = ",".join(PILES[game])
    arguments = ["in.csv", "-o", "out.csv", "--game", game, "--columns", columns]
    status, err = run(*arguments, *bound_arguments(game), "-q")
    assert status == 0, err
    expected = expected_answers(frame, game)
    k = len(PILES[game])
    out = pd.read_csv(
        tmp_path / "out.csv",
        keep_default_na=False,
        dtype={"game_id": str, "note": str, **{f"move_{j + 1}": "Int64" for j in range(k)}},
        na_values={f"move_{j + 1}": [""] for j in range(k)},
        true_values=["P"],
        false_values=["N"],
    )
    assert list(out.columns) == [*frame.columns, "is_p", *(f"move_{j + 1}" for j in range(k))]
    # every other column unchanged, text that needs quotes included
    assert out[list(frame.columns)].equals(frame)
    assert out["is_p"].dtype == bool and (out["is_p"] == (expected[:, 0] == 1)).all()
    for j in range(k):
        move = out[f"move_{j + 1}"]
        assert (move.isna() == (expected[:, 1 + j] < 0)).all()
        assert (move.fillna(-1).to_numpy() == expected[:, 1 + j]).all()


def test_both_text_paths_write_the_same_bytes(tmp_path, run, monkeypatch):
    games_frame(500).to_csv(tmp_path / "in.csv", index=False)
    written = []
    for path in ("arrow", "own"):
        monkeypatch.setenv("FIBNIM_NO_ARROW", "1" if path == "own" else "0")
        arguments = ["in.csv", "-o", f"{path}.csv", "--game", "nim", "--columns", "x,y,z"]
        status, err = run(*arguments, "--chunk", "64", "-q")
        assert status == 0, err
        written.append((tmp_path / f"{path}.csv").read_bytes())
    assert written[0] == written[1] and b'"with, comma"' in written[0]


def test_without_columns_an_id_is_refused_where_the_count_does_not_fit(tmp_path, run):
    games_frame()[["game_id", "x", "y"]].to_csv(tmp_path / "in.csv", index=False)
    status, err = run("in.csv", "-o", "out.csv", "--game", "wythoff")
    assert status == 1 and not (tmp_path / "out.csv").exists()
    assert "its columns are game_id, x, y: choose the piles with --columns" in err


@pytest.mark.parametrize("game", ["nim", "power-nim", "global-fibonacci-nim"])
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_no_column_becomes_a_pile_unless_named(tmp_path, run, game, suffix):
    # nim's "winning move" once reduced game_id 1000003393869 to 800266
    frame = games_frame()[["game_id", "x", "y", "z"]]
    frame["game_id"] = 1000003393869 + np.arange(len(frame))
    getattr(frame, f"to_{suffix[1:]}")(tmp_path / f"in{suffix}", index=False)
    status, err = run(f"in{suffix}", "-o", "out.csv", "--game", game, "-q")
    assert status == 1 and not (tmp_path / "out.csv").exists()
    assert f"{game} takes any number of piles, and no column is taken for a pile" in err
    assert "its columns are game_id, x, y, z: name the piles with --columns [...]" in err
    assert "or say --columns '*' for every column" in err
    with pytest.raises(ValueError, match="its columns are game_id, x, y, z: name the piles"):
        classify(frame, game)
    small = frame.assign(game_id=np.arange(len(frame)) % 7)  # a pile now: small enough
    getattr(small, f"to_{suffix[1:]}")(tmp_path / f"small{suffix}", index=False)
    status, err = run(f"small{suffix}", "-o", "every.csv", "--game", game, "--columns", "*")
    assert status == 0, err
    written = pd.read_csv(tmp_path / "every.csv")
    assert list(written.columns)[:5] == ["game_id", "x", "y", "z", "is_p"]
    assert "move_4" in written.columns  # the id was a pile, as asked
    every = classify(small, game, columns="*")
    assert list(every.columns)[-5:] == ["is_p", "move_1", "move_2", "move_3", "move_4"]


def test_without_columns_a_headerless_file_is_all_piles(tmp_path, run):
    np.savetxt(tmp_path / "in.csv", games_frame()[["x", "y", "z"]], fmt="%d", delimiter=",")
    status, err = run("in.csv", "-o", "out.csv", "--game", "nim")
    assert status == 0, err
    assert err.startswith("nim: 60 positions (piles pile_1, pile_2, pile_3): ")


def test_the_summary_names_the_piles(tmp_path, run):
    frame = games_frame()[["x", "y", "z"]]
    frame.to_csv(tmp_path / "in.csv", index=False)
    status, err = run("in.csv", "-o", "out.csv", "--game", "nim", "--columns", "*")
    assert status == 0, err
    assert err.startswith("nim: 60 positions (piles x, y, z): ")
    # with the data on stdout, the JSON summary goes to stderr
    status, err = run("in.csv", "-o", "-", "--game", "nim", "--columns", "z,y", "--json")
    assert status == 0
    summary = json.loads(err)
    assert summary["piles"] == ["z", "y"]


def test_columns_by_index_in_an_npy(tmp_path, run):
    piles = np.random.default_rng(3).integers(0, 10**6, size=(700, 4))
    np.save(tmp_path / "in.npy", piles)
    for output in ("out.npy", "out.csv", "out.parquet"):
        arguments = ["in.npy", "-o", output, "--game", "wythoff", "--columns", "3,1"]
        status, err = run(*arguments, "--chunk", "100", "-q")
        assert status == 0, err
    expected = classify(piles[:, [3, 1]], "wythoff")
    assert np.array_equal(np.load(tmp_path / "out.npy"), expected)  # the answers alone
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.column_names == [
        "pile_1",
        "pile_2",
        "pile_3",
        "pile_4",
        "is_p",
        "move_1",
        "move_2",
    ]
    assert np.array_equal(np.column_stack(table.columns[:4]), piles)
    assert table["is_p"].to_pylist() == (expected[:, 0] == 1).tolist()
    text = pd.read_csv(tmp_path / "out.csv", true_values=["P"], false_values=["N"])
    assert (text["is_p"] == table["is_p"].to_numpy()).all()
    status, err = run("in.npy", "-o", "bad.npy", "--game", "wythoff", "--columns", "x,y")
    assert status == 2 and "has no column names; give indices" in err


def test_a_bad_pile_names_the_inputs_column_and_others_may_hold_anything(tmp_path, run):
    (tmp_path / "in.csv").write_text("id,x,y\nabc,3,5\n-7,4,-1\n")
    status, err = run("in.csv", "-o", "out.csv", "--game", "wythoff", "--columns", "x,y")
    # the id -7 is no pile; the pile -1 is in the input's third column, line 3
    assert status == 1 and re.search(r"in\.csv:3: column 2 \('y'\): -1 is negative", err), err
    np.save(tmp_path / "in.npy", np.array([[5, 3, 5], [6, -2, 1]]))
    status, err = run("in.npy", "-o", "out.csv", "--game", "wythoff", "--columns", "1,2")
    assert status == 1 and "row 1, column 1: -2 is negative" in err, err


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("x,w", "has no column 'w'; its columns: id, x, y"),
        ("x,x", "a column is named twice"),
        ("0,7", "has no column 7 (counted from 0)"),
        ("x,,y", "an empty column name"),
    ],
)
def test_columns_that_are_not_there_are_a_usage_error(spec, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        pile_columns(["id", "x", "y"], spec, "in.csv")


def test_indices_choose_columns_and_names_that_look_like_numbers_are_names():
    assert pile_columns(["id", "x", "y"], "2, 1", "in.csv") == [2, 1]
    assert pile_columns(["id", "2", "1"], "1,2", "in.csv") == [2, 1]  # its own names first


def test_an_answer_column_name_in_the_input_is_refused(tmp_path, run):
    (tmp_path / "in.csv").write_text("is_p,x,y\n1,3,5\n")
    status, err = run("in.csv", "-o", "out.csv", "--game", "wythoff", "--columns", "x,y")
    assert status == 2 and "has a column named 'is_p'" in err
    assert not (tmp_path / "out.csv").exists()


def test_parquet_columns_of_any_type_pass_through(tmp_path, run):
    frame = games_frame(300)
    frame["when"] = pd.date_range("2026-01-01", periods=len(frame), freq="h")
    frame["score"] = np.linspace(0, 1, len(frame))
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "in.parquet", row_group_size=70)
    status, err = run(
        "in.parquet", "-o", "out.parquet", "--game", "wythoff", "--columns", "x,y", "-q"
    )
    assert status == 0, err
    out = pd.read_parquet(tmp_path / "out.parquet")
    assert out[list(frame.columns)].equals(frame)
    expected = expected_answers(frame, "wythoff")
    assert out["is_p"].dtype == bool and (out["is_p"] == (expected[:, 0] == 1)).all()
    assert str(out["move_1"].dtype) == "Int64"
    assert (out["move_1"].fillna(-1).to_numpy() == expected[:, 1]).all()
    # a text column is no pile: without --columns it is named
    status, err = run("in.parquet", "-o", "no.parquet", "--game", "nim")
    named = r"column 'game_id' holds (large_)?string, not integers; choose"
    assert status == 1 and re.search(named, err)


def test_an_empty_input_with_columns_writes_the_header(tmp_path, run):
    (tmp_path / "in.csv").write_text("id,x,y\n")
    for output in ("out.csv", "out.parquet"):
        status, err = run("in.csv", "-o", output, "--game", "wythoff", "--columns", "x,y", "-q")
        assert status == 0, err
    assert (tmp_path / "out.csv").read_text() == "id,x,y,is_p,move_1,move_2\n"
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.num_rows == 0 and table.schema.field("is_p").type == pa.bool_()
    assert table.column_names == ["id", "x", "y", "is_p", "move_1", "move_2"]


def test_a_dataset_keeps_its_other_columns(tmp_path, run):
    pytest.importorskip("dask.dataframe")
    frame = games_frame(200)
    (tmp_path / "dataset").mkdir()
    for i, part in enumerate((frame[:120], frame[120:])):
        pq.write_table(pa.Table.from_pandas(part), tmp_path / "dataset" / f"part-{i}.parquet")
    status, err = run("dataset", "-o", "out", "--game", "nim", "--columns", "x,y,z")
    assert status == 0, err
    assert "(piles x, y, z)" in err
    out = pd.concat(
        [pd.read_parquet(p) for p in sorted((tmp_path / "out").glob("*.parquet"))],
        ignore_index=True,
    )
    expected = classify(frame[["x", "y", "z"]].to_numpy(), "nim")
    # the same values (dask reads text as its own string type)
    pd.testing.assert_frame_equal(out[list(frame.columns)], frame, check_dtype=False)
    assert out["is_p"].dtype == bool and (out["is_p"] == (expected[:, 0] == 1)).all()
    assert (out["move_3"].fillna(-1).to_numpy() == expected[:, 3]).all()
    status, err = run("dataset", "-o", "out2", "--game", "wythoff")
    assert status == 1 and "its columns are game_id, x, note, y, z" in err


def test_classify_of_a_frame_with_columns_keeps_the_others():
    frame = games_frame()
    before = frame.copy()
    result = classify(frame, "nim", columns=["x", "y"])
    expected = classify(frame[["x", "y"]].to_numpy(), "nim")
    assert list(result.columns) == [*frame.columns, "is_p", "move_1", "move_2"]
    assert result.index.equals(frame.index) and result[list(frame.columns)].equals(frame)
    assert result["is_p"].dtype == bool and (result["is_p"] == (expected[:, 0] == 1)).all()
    assert (result["move_2"].fillna(-1).to_numpy() == expected[:, 2]).all()
    assert frame.equals(before)  # nothing the user passed in is changed
    out = np.empty((len(frame), 3), dtype=np.int64)
    assert classify(frame, "nim", columns=["x", "y"], out=out) is out
    assert np.array_equal(out, expected)


def test_classify_columns_errors():
    frame = games_frame()
    with pytest.raises(ValueError, match="its columns are game_id, x, note, y, z: choose"):
        classify(frame, "wythoff")
    with pytest.raises(ValueError, match="no column 'w'; the columns are game_id, x"):
        classify(frame, "wythoff", columns=["x", "w"])
    with pytest.raises(ValueError, match="names a column twice"):
        classify(frame, "wythoff", columns=["x", "x"])
    with pytest.raises(TypeError, match=r"a list of columns \(or '\*'\), not 'x'"):
        classify(frame, "fibonacci-nim", columns="x")
    with pytest.raises(ValueError, match="a column named 'is_p'"):
        classify(frame.rename(columns={"note": "is_p"}), "wythoff", columns=["x", "y"])
    with pytest.raises(TypeError, match="a table or a 2-d numpy array, not of list"):
        classify([[1, 2, 3]], "wythoff", columns=[0, 1])


def test_classify_of_an_array_with_columns_takes_those_columns():
    piles = np.random.default_rng(5).integers(0, 1000, size=(50, 3))
    assert np.array_equal(
        classify(piles, "wythoff", columns=[2, 0]), classify(piles[:, [2, 0]], "wythoff")
    )
    with pytest.raises(ValueError, match="no column 3; positions has 3 columns"):
        classify(piles, "wythoff", columns=[0, 3])


def test_one_encoding_in_every_format(tmp_path, run):
    # the table at the top of this file, format by format, on the same positions
    frame = games_frame(40)[["x", "y"]]
    expected = classify(frame.to_numpy(), "wythoff")
    p, no_move = expected[:, 0] == 1, expected[:, 1] < 0
    assert p.any() and (~p).any() and no_move.any()
    frame.to_csv(tmp_path / "in.csv", index=False)
    for output in ("out.npy", "out.csv", "out.parquet"):
        status, err = run("in.csv", "-o", output, "--game", "wythoff", "-q")
        assert status == 0, err
    npy = np.load(tmp_path / "out.npy")
    assert npy.dtype == np.int64 and np.array_equal(npy[:, 0], p.astype(np.int64))
    assert (npy[no_move, 1:] == -1).all()
    lines = (tmp_path / "out.csv").read_text().splitlines()[1:]
    for line, is_p in zip(lines, p, strict=True):
        assert line.endswith(",P,," if is_p else ",N,{},{}".format(*line.split(",")[3:5]))
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.schema.field("is_p").type == pa.bool_()
    assert table["move_1"].null_count == int(no_move.sum())
    # pandas and pyarrow read each back typed, to the same answers
    labelled = classify(frame, "wythoff")
    from_csv = pd.read_csv(
        tmp_path / "out.csv",
        true_values=["P"],
        false_values=["N"],
        dtype={"move_1": "Int64", "move_2": "Int64"},
    )
    assert from_csv[labelled.columns].equals(labelled)
    assert pd.read_parquet(tmp_path / "out.parquet")[labelled.columns].equals(labelled)
    import pyarrow.csv as pacsv

    options = pacsv.ConvertOptions(true_values=["P"], false_values=["N"])
    typed = pacsv.read_csv(tmp_path / "out.csv", convert_options=options)
    assert typed.select(["is_p", "move_1", "move_2"]).equals(
        table.select(["is_p", "move_1", "move_2"])
    )


@pytest.mark.parametrize("output", ["out.csv", "out.parquet"])
def test_a_file_that_pyarrow_hands_over_midway_keeps_its_columns_types(
    tmp_path, run, monkeypatch, output
):
    # pyarrow reads "0x1f" as a number, and at the first "0x" fibnim's own
    # reader once took over from the first row not yet handed out; now one
    # reader reads the whole file: the piles integers, the other columns text
    from fibnim import _delimited

    monkeypatch.setattr(_delimited, "BLOCK", 64)
    ids = [f"id{i}" for i in range(40)] + ["0x1f"] + [f"id{i}" for i in range(41, 60)]
    rows = [f"{name},{i % 7},{(3 * i) % 11}" for i, name in enumerate(ids)]
    (tmp_path / "in.csv").write_text("id,x,y\n" + "\n".join(rows) + "\n")
    arguments = ["in.csv", "-o", output, "--game", "wythoff", "--columns", "x,y"]
    status, err = run(*arguments, "--chunk", "8", "-q")
    assert status == 0, err
    piles = np.array([[i % 7, (3 * i) % 11] for i in range(60)])
    expected = classify(piles, "wythoff")
    if output.endswith(".parquet"):
        out = pd.read_parquet(tmp_path / output)
    else:
        out = pd.read_csv(tmp_path / output, true_values=["P"], false_values=["N"])
    assert out["id"].tolist() == ids and out[["x", "y"]].to_numpy().tolist() == piles.tolist()
    assert (out["is_p"] == (expected[:, 0] == 1)).all()


def _tables():
    """The same games as every kind of table classify takes, by name."""
    frame = games_frame()[["game_id", "x", "y", "z"]]
    tables = {"pandas": frame, "pyarrow": pa.Table.from_pandas(frame, preserve_index=False)}
    tables["RecordBatch"] = tables["pyarrow"].to_batches()[0]
    polars = pytest.importorskip("polars")
    tables["polars"] = polars.from_pandas(frame)
    tables["LazyFrame"] = tables["polars"].lazy()
    return frame, tables


@pytest.mark.parametrize("kind", ["pandas", "pyarrow", "RecordBatch", "polars", "LazyFrame"])
def test_every_kind_of_table_comes_back_as_it_went_in(kind):
    # a pyarrow Table and a polars DataFrame came back as bare arrays
    frame, tables = _tables()
    table = tables[kind]
    result = classify(table, "nim", columns=["x", "y", "z"])
    assert type(result) is type(table)
    back = result.collect() if kind == "LazyFrame" else result
    columns = back.column_names if kind in ("pyarrow", "RecordBatch") else list(back.columns)
    assert columns == ["game_id", "x", "y", "z", "is_p", "move_1", "move_2", "move_3"]
    answers = pd.DataFrame(
        {name: (back[name].to_pylist() if kind in ("pyarrow", "RecordBatch") else list(back[name]))
         for name in columns}
    )  # fmt: skip
    expected = classify(frame[["x", "y", "z"]].to_numpy(), "nim")
    assert (answers["game_id"] == frame["game_id"]).all()
    assert answers["is_p"].tolist() == (expected[:, 0] == 1).tolist()
    for j in range(3):
        want = [None if t < 0 else t for t in expected[:, 1 + j]]
        got = [None if pd.isna(t) else int(t) for t in answers[f"move_{j + 1}"]]
        assert got == want
    with pytest.raises(ValueError, match="its columns are game_id, x, y, z: name the piles"):
        classify(table, "nim")
    with pytest.raises(ValueError, match="no column 'w'"):
        classify(table, "nim", columns=["x", "w"])


def test_a_table_keeps_its_buffers_and_its_nulls():
    table = pa.table(
        {"id": pa.array(["a", "b", "c"]), "x": pa.array([3, None, 2**63 - 1], pa.int64()),
         "y": pa.array([5, 4, 0], pa.uint64())}
    )  # fmt: skip
    result = classify(table, "wythoff", columns=["x", "y"])
    assert result.column("id").chunks[0].buffers()[2].address == (
        table.column("id").chunks[0].buffers()[2].address
    )  # the other columns are not copied
    assert result.column("is_p").to_pylist()[:2] == [True, None]  # a null pile: null answers
    assert result.column("move_1").to_pylist()[1] is None
    too_big = pa.table(
        {"x": pa.array([1, 2**63], pa.uint64()), "y": pa.array([1, 1], pa.uint64())}
    )
    with pytest.raises(OverflowError, match=r"positions\[1, 0\] = 9223372036854775808"):
        classify(too_big, "wythoff")
    with pytest.raises(TypeError, match="column 'x' \\(pile 0\\) holds"):
        classify(pa.table({"x": [1.5], "y": [2]}), "wythoff")


def test_a_dask_frame_stays_lazy_with_its_divisions():
    dd = pytest.importorskip("dask.dataframe")
    frame = games_frame()[["x", "y"]].assign(game_id=np.arange(60) * 10**12)
    lazy = dd.from_pandas(frame, npartitions=4)
    result = classify(lazy, "wythoff", columns=["x", "y"])
    assert type(result).__name__ == "DataFrame" and result.known_divisions
    assert result.divisions == lazy.divisions
    pd.testing.assert_frame_equal(result.compute(), classify(frame, "wythoff", columns=["x", "y"]))
    with pytest.raises(ValueError, match="its columns are x, y, game_id: choose the piles"):
        classify(lazy, "wythoff")
