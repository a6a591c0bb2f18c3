"""Input and output formats of `fibnim classify` as users have them, on both
text paths (pyarrow's and fibnim's own), which must write the same bytes."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from _support import run_fibnim, subprocess_env, sweep

from fibnim import classify, cli

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture
def files(tmp_path, monkeypatch, capsys):
    """`fibnim classify ARGUMENTS -q --force` in tmp_path, in this process: (status, stderr)."""
    monkeypatch.chdir(tmp_path)

    def run(*arguments: str) -> tuple[int, str]:
        status = cli.main(["classify", *arguments, "-q", "--force"])
        return status, capsys.readouterr().err

    return run


def positions(rows: int, k: int = 2, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 10**6, size=(rows, k))


def test_fortran_order_npy(tmp_path, files):
    piles = positions(1001)
    np.save(tmp_path / "in.npy", np.asfortranarray(piles))  # as np.save(df.to_numpy()) may
    status, err = files("in.npy", "-o", "out.npy", "--game", "wythoff", "--chunk", "100")
    assert status == 0, err
    assert np.array_equal(np.load(tmp_path / "out.npy"), classify(piles, "wythoff"))


@pytest.mark.parametrize("dtype", ["<u4", ">i8", "<i2"])
def test_npy_of_other_integer_dtypes(tmp_path, dtype, files):
    piles = positions(300) % 30000
    np.save(tmp_path / "in.npy", piles.astype(dtype))
    status, err = files("in.npy", "-o", "out.npy", "--game", "nim")
    assert status == 0, err
    assert np.array_equal(np.load(tmp_path / "out.npy"), classify(piles, "nim"))


def test_csv_to_npy(tmp_path, text_path, files):
    piles = positions(2500)
    np.savetxt(tmp_path / "in.csv", piles, fmt="%d", delimiter=",", header="x,y", comments="")
    status, err = files("in.csv", "-o", "out.npy", "--game", "wythoff", "--chunk", "1000")
    assert status == 0, err
    assert np.array_equal(np.load(tmp_path / "out.npy"), classify(piles, "wythoff"))


@pytest.mark.parametrize(
    ("text", "header", "rows"),
    [
        ("1,2", "pile_1,pile_2", ["1,2,P,,"]),  # one row, no newline: not a header
        ("1,2\n", "pile_1,pile_2", ["1,2,P,,"]),
        ("\ufeffx,y\n3,4\n", "x,y", ["3,4,N,1,2"]),  # a byte order mark
        # quoted names, as pyarrow writes them: the header kept as it came, as the rows are
        ('"x","y"\n3,5\n', '"x","y"', ["3,5,P,,"]),
        ('"x","y"\n"3","5"\n', '"x","y"', ['"3","5",P,,']),  # quoted values too, kept so
        ("x,y\r\n3,4\r\n\r\n10,15\r\n", "x,y", ["3,4,N,1,2", "10,15,N,10,6"]),
        ("\n\nx,y\n\n3,4\n", "x,y", ["3,4,N,1,2"]),  # blank lines
        ('"a, b",c\n3,4\n', '"a, b",c', ["3,4,N,1,2"]),  # a name that needs its quotes
    ],
)
def test_text_as_users_have_it(tmp_path, text_path, text, header, rows, files):
    (tmp_path / "in.csv").write_bytes(text.encode())
    status, err = files("in.csv", "-o", "out.csv", "--game", "wythoff")
    assert status == 0, err
    written = (tmp_path / "out.csv").read_text()
    assert written == f"{header},is_p,move_1,move_2\n" + "".join(r + "\n" for r in rows)


def test_header_and_delimiter_options(tmp_path, text_path, files):
    (tmp_path / "in.csv").write_text("3;5\n4;6\n")
    status, err = files(
        "in.csv", "-o", "out.csv", "--game", "wythoff", "--header", "--delimiter", ";"
    )
    assert status == 0, err
    assert (tmp_path / "out.csv").read_text() == "3;5;is_p;move_1;move_2\n4;6;N;3;5\n"
    (tmp_path / "in.tsv").write_text("x\ty\n3\t5\n")
    status, err = files("in.tsv", "-o", "out.tsv", "--game", "wythoff", "--no-header")
    assert status == 1
    assert "in.tsv:1: column 0: 'x' is not an integer" in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x,y\n1,2\n3,-5\n", "in.csv:3: column 1 ('y'): -5 is negative"),
        ("x,y\n1,2\n3,abc\n", "in.csv:3: column 1 ('y'): 'abc' is not an integer"),
        ("x,y\n1,2\n3,99999999999999999999\n", "99999999999999999999 is too large for int64"),
        ("x,y\n1,2\n3,4,5\n", "in.csv:3: 3 columns, expected 2: '3,4,5'"),
        ("x,y\n1,2\n3,\n", "in.csv:3: column 1 ('y'): no value (an empty field)"),
        ("x,y\n1,2\n1.5,2\n", "in.csv:3: column 0 ('x'): '1.5' is not an integer"),
    ],
)
def test_bad_rows_are_named_alike_on_both_paths(tmp_path, text_path, text, message, files):
    (tmp_path / "in.csv").write_text(text)
    status, err = files("in.csv", "-o", "out.csv", "--game", "wythoff")
    assert status == 1 and message in err, err
    assert not (tmp_path / "out.csv").exists()


def test_a_bad_row_far_into_a_large_file(tmp_path, text_path, files):
    # past pyarrow's first batches: its reading hands over mid-file
    piles = positions(300_000)
    lines = [f"{x},{y}\n" for x, y in piles.tolist()]
    lines[250_000] = "7,-1\n"
    (tmp_path / "in.csv").write_text("x,y\n" + "".join(lines))
    status, err = files("in.csv", "-o", "out.csv", "--game", "wythoff")
    assert status == 1 and "in.csv:250002: column 1 ('y'): -1 is negative" in err, err


@pytest.mark.parametrize("game", ["wythoff", sweep("nim"), sweep("global-fibonacci-nim")])
def test_both_text_paths_write_the_same_bytes(tmp_path, monkeypatch, game, files):
    k = 2 if game == "wythoff" else 3
    piles = positions(70_000, k) % (10**6 if k == 2 else 12)
    piles[:5] = [[3, 5], [0, 0], [1, 2], [4, 7], [10, 15]] if k == 2 else 0
    np.savetxt(
        tmp_path / "in.csv",
        piles,
        fmt="%d",
        delimiter=",",
        header="a,b,c"[: 2 * k - 1],
        comments="",
    )
    outputs = []
    for no_arrow in ("", "1"):
        monkeypatch.setenv("FIBNIM_NO_ARROW", no_arrow)
        for suffix in (".csv", ".tsv"):
            target = f"out{no_arrow}{suffix}"
            status, err = files(
                "in.csv", "-o", target, "--game", game, "--chunk", "30000", "--columns", "*"
            )
            assert status == 0, err
            outputs.append((tmp_path / f"out{no_arrow}{suffix}").read_bytes())
    assert outputs[0] == outputs[2] and outputs[1] == outputs[3]
    assert outputs[0].replace(b",", b"\t") == outputs[1]
    if k == 2:
        assert outputs[0].decode().splitlines()[1:3] == ["3,5,P,,", "0,0,P,,"]


@pytest.mark.parametrize("header", [True, False])
def test_a_wide_text_is_split_and_written_without_pyarrow_to_the_same_bytes(
    tmp_path, monkeypatch, files, header
):
    # a one-record CSV of 400,000 columns took 42 s and 3.7 GB through pyarrow
    # (10**6 columns: std::bad_alloc); past WIDE columns fibnim splits and
    # writes it itself: here WIDE is made small, and the bytes held to pyarrow's
    from fibnim import _delimited

    rows = ["id,a,b,c", '"x, 1",1,2,3', '"",4,5,6', ",7,8,9", '"say ""hi""",0,0,0']
    (tmp_path / "in.csv").write_text("\n".join(rows[0 if header else 1 :]) + "\n")
    columns = "a,b,c" if header else "1,2,3"
    outputs = []
    for wide in (_delimited.WIDE, 3):
        monkeypatch.setattr(_delimited, "WIDE", wide)
        for suffix in (".csv", ".tsv"):
            status, err = files(
                "in.csv", "-o", f"out{wide}{suffix}", "--game", "nim", "--columns", columns,
                "--header" if header else "--no-header",
            )  # fmt: skip
            assert status == 0, err
            outputs.append((tmp_path / f"out{wide}{suffix}").read_bytes())
    assert outputs[:2] == outputs[2:]
    lines = outputs[0].decode().splitlines()[1:]
    kept = ['"x, 1",1,2,3,', '"",4,5,6,', ",7,8,9,", '"say ""hi""",0,0,0,P,,,']
    assert all(line.startswith(start) for line, start in zip(lines, kept, strict=True))


def test_parquet_moves_are_nullable_integers_in_pandas(tmp_path, files):
    pd = pytest.importorskip("pandas")
    piles = positions(500)
    piles[0] = [3, 5]  # a P-position: no move
    pq.write_table(pa.table({"x": piles[:, 0], "y": piles[:, 1]}), tmp_path / "in.parquet")
    status, err = files("in.parquet", "-o", "out.parquet", "--game", "wythoff")
    assert status == 0, err
    frame = pd.read_parquet(tmp_path / "out.parquet")
    assert str(frame["move_1"].dtype) == "Int64" and str(frame["x"].dtype) == "int64"
    assert frame["move_1"].isna().tolist()[:1] == [True]
    expected = classify(piles, "wythoff")
    assert (frame["move_2"].fillna(-1).to_numpy() == expected[:, 2]).all()
    assert frame["is_p"].dtype == bool and (frame["is_p"] == (expected[:, 0] == 1)).all()


# Field texts as files have them: decimal integers only are read, by both readers
FIELDS = [
    "7", "007", "+7", "-0", "+0", " 7", "7 ", "\t7", '"7"', "0x10", "0X1f", "0x", "x10",
    "+-7", "--7", "-+7", "1_000", "1e3", "7.0", "٣", "7\u00a0", "", "+", "-",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808",
]  # fmt: skip


@pytest.mark.parametrize("field", FIELDS)
def test_both_readers_take_exactly_the_same_text(tmp_path, monkeypatch, field, files):
    # a first row that is decimal, then the field: pyarrow types the column from
    # its first block, and took 0x10 as 16 where fibnim's own reader refused it
    (tmp_path / "in.csv").write_text(f"x,y\n1,2\n{field},3\n", encoding="utf-8")
    answers = []
    for no_arrow in ("", "1"):
        monkeypatch.setenv("FIBNIM_NO_ARROW", no_arrow)
        status, err = files("in.csv", "-o", f"out{no_arrow}.csv", "--game", "wythoff")
        written = tmp_path / f"out{no_arrow}.csv"
        answers.append((status, err, written.read_bytes() if written.exists() else None))
    assert answers[0] == answers[1]
    status, err, written = answers[0]
    stripped = field.strip(" \t").strip('"')  # spaces and tabs around a pile, no other
    if re.fullmatch("[+-]?[0-9]+", stripped) and 0 <= int(stripped) < 2**63:
        assert status == 0, err
        assert written is not None
        assert written.decode().splitlines()[2].startswith(f"{field},3,")  # as it came
    else:
        assert status == 1 and err.startswith("fibnim: in.csv:3: column 0 ('x'): "), err


@pytest.mark.parametrize("where", ["header", "data"])
def test_text_that_is_not_utf8_is_named_by_file_and_line(tmp_path, text_path, where, files):
    text = b"x,y\n1,2\n3,5\xe9\n" if where == "data" else b"caf\xe9,y\n1,2\n"
    (tmp_path / "in.csv").write_bytes(text)
    status, err = files("in.csv", "-o", "out.csv", "--game", "wythoff")
    line = 3 if where == "data" else 1
    assert status == 1
    assert f"in.csv:{line}: not UTF-8 text (byte 0xe9 at character 4)" in err, err
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("big", [2**53 + 1, 2**63 - 1])
def test_parquet_columns_of_mixed_integer_types_are_read_exactly(tmp_path, big, files):
    # uint64 beside int64 was stacked through float64: 2**53 + 1 came back as 2**53
    table = pa.table(
        {
            "x": pa.array([big, 5], pa.uint64()),
            "y": pa.array([big - 1, 9], pa.int64()),
            "z": pa.array([3, 250], pa.uint8()),
        }
    )
    pq.write_table(table, tmp_path / "in.parquet")
    status, err = files("in.parquet", "-o", "out.npy", "--game", "nim", "--columns", "*")
    assert status == 0, err
    piles = np.array([[big, big - 1, 3], [5, 9, 250]], dtype=np.int64)
    assert np.array_equal(np.load(tmp_path / "out.npy"), classify(piles, "nim"))
    status, err = files("in.parquet", "-o", "out.csv", "--game", "nim", "--columns", "*")
    assert status == 0, err
    assert (tmp_path / "out.csv").read_text().splitlines()[1].startswith(f"{big},{big - 1},3,")


def test_a_parquet_value_past_int64_is_named_with_its_true_value(tmp_path, files):
    table = pa.table({"x": pa.array([3, 2**63 + 5], pa.uint64()), "y": pa.array([1, 2])})
    pq.write_table(table, tmp_path / "in.parquet")
    status, err = files("in.parquet", "-o", "out.npy", "--game", "nim", "--columns", "*")
    assert status == 1
    assert (
        err.strip()
        == "fibnim: in.parquet: row 1, column 0 ('x'): 9223372036854775813 is too large for int64"
    )


TEXTS = [
    b"x,y\r\n1,2\r\n\r\n30,40\r\n500,6\r\n",  # a header, CRLF, a blank line
    b"1,2\n3,4\n\n\n\n5,6",  # no header, blank lines, no newline at the end
    b"x,y\n1,2\n3,4\n5,60\n7,8x\n",  # a bad row after the first blocks
    b"x,y\n11,22\n33,44\n55,0x1\n",  # "0x" across two reads when they are short
    b"x,y\n" + b"".join(b"%d,%d\n" % (i, 3 * i) for i in range(300)),
]


@pytest.mark.parametrize("block", [1, 2, 3, 5, 8, 13, 1 << 22])
@pytest.mark.parametrize("text", TEXTS)
def test_pyarrow_blocks_of_any_size_give_the_own_readers_rows(tmp_path, monkeypatch, block, text):
    # pyarrow parses the file in blocks of whole records read on this thread;
    # a line longer than a read is joined from several
    from fibnim import _delimited, _errors

    monkeypatch.setattr(_delimited, "BLOCK", block)
    (tmp_path / "in.csv").write_bytes(text)

    def read(no_arrow: str) -> tuple[list[tuple[int, list[list[int]]]], str | None]:
        monkeypatch.setenv("FIBNIM_NO_ARROW", no_arrow)
        source = _delimited.TextSource(str(tmp_path / "in.csv"), ",")
        chunks: list[tuple[int, list[list[int]]]] = []
        try:
            for start, rows, _ in source.chunks(2):
                chunks.append((start, rows.tolist()))
        except _errors.DataError as error:
            return chunks, str(error)
        finally:
            source.close()
        return chunks, None

    (arrow, arrow_error), (own, own_error) = read(""), read("1")
    assert arrow_error == own_error
    rows = [row for _, chunk in arrow for row in chunk]
    assert rows == [row for _, chunk in own for row in chunk]
    assert [start for start, _ in arrow] == list(np.cumsum([0] + [len(c) for _, c in arrow])[:-1])
    if own_error is None:
        assert [x for x, _ in rows] == [
            int(line.split(b",")[0]) for line in text.split()[-len(rows) :]
        ]


def test_parquet_text_that_needs_quotes_reaches_csv_and_tsv_as_it_was(tmp_path):
    # pandas writes text as large_string (and a category as a dictionary), which
    # the check for quotes once took for not text: pyarrow's writer then refused
    # "with, comma" halfway through the output
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    notes = ["with, comma", 'a "q"', "tab\there", "line\nbreak"]
    frame = pd.DataFrame(
        {
            "game_id": [1, 2, 3, 4],
            "x": [3, 4, 1, 2],
            "y": [5, 8, 2, 1],
            "note": notes,
            "kind": pd.Categorical(["a,b", "c", "a,b", 'd"']),
        }
    )
    frame.to_parquet(tmp_path / "in.parquet")
    for suffix, separator in ((".csv", ","), (".tsv", "\t")):
        out = tmp_path / f"out{suffix}"
        result = run_fibnim(
            "classify", "in.parquet", "-o", out.name, "--game", "wythoff", "--columns", "x,y",
            cwd=tmp_path,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        back = pd.read_csv(out, sep=separator)
        assert back["note"].tolist() == notes
        assert back["kind"].tolist() == ["a,b", "c", "a,b", 'd"']
        assert back["game_id"].tolist() == [1, 2, 3, 4]
    pd.DataFrame({"x": [3], "y": [5], "tags": [[1, 2]]}).to_parquet(tmp_path / "nested.parquet")
    result = run_fibnim(
        "classify", "nested.parquet", "-o", "o.csv", "--game", "wythoff", "--columns", "x,y",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "nested.parquet: column 'tags' holds list<element: int64>" in result.stderr
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("no_arrow", ["", "1"])
def test_csv_to_parquet_keeps_the_types_of_the_other_columns(
    tmp_path, monkeypatch, no_arrow, files
):
    # they all came out as text, so a join on an int64 id failed
    monkeypatch.setenv("FIBNIM_NO_ARROW", no_arrow)  # fibnim's own CSV reader, or pyarrow's
    big = "99999999999999999999"  # beyond int64: kept as its digits, never a rounded float
    (tmp_path / "in.csv").write_text(
        "game_id,x,y,weight,note,empty,huge\n"
        f'1000003393869,3,5,1.5,"with, comma",,{big}\n'
        "7,1,2,,plain,,1\n"
    )
    status, err = files("in.csv", "-o", "out.parquet", "--game", "wythoff", "--columns", "x,y")
    assert status == 0, err
    table = pq.read_table(tmp_path / "out.parquet")
    types = dict(zip(table.column_names, map(str, table.schema.types), strict=True))
    assert types == {
        "game_id": "int64", "x": "int64", "y": "int64", "weight": "double", "note": "string",
        "empty": "string", "huge": "string", "is_p": "bool", "move_1": "int64", "move_2": "int64",
    }  # fmt: skip
    assert table.column("game_id").to_pylist() == [1000003393869, 7]
    assert table.column("weight").to_pylist() == [1.5, None]
    assert table.column("note").to_pylist() == ["with, comma", "plain"]
    assert table.column("huge").to_pylist() == [big, "1"]


@pytest.mark.parametrize("no_arrow", ["", "1"])
def test_a_later_field_not_of_its_columns_type_is_named(tmp_path, monkeypatch, no_arrow, files):
    # past pyarrow's first block of text (made 4 KB here), so that the first chunk
    # is all integers
    monkeypatch.setenv("FIBNIM_NO_ARROW", no_arrow)
    monkeypatch.setattr("fibnim._delimited.BLOCK", 1 << 12)
    rows = 4_000
    ids = np.arange(1_000_000, 1_000_000 + rows).astype(str).astype(object)
    ids[-1] = "7.5"
    (tmp_path / "in.csv").write_text("game_id,x,y\n" + "".join(f"{i},3,5\n" for i in ids))
    status, err = files(
        "in.csv", "-o", "out.parquet", "--game", "wythoff", "--columns", "x,y", "--chunk", "100"
    )
    assert status == 1
    assert f"in.csv: row {rows - 1}, column 'game_id': '7.5' is not int64" in err
    assert not (tmp_path / "out.parquet").exists()


def _notes(alphabet: str, n: int = 3000) -> list[str]:
    rng = np.random.default_rng(7)
    letters = np.array(list(alphabet))
    return ["".join(rng.choice(letters, size=rng.integers(0, 6))) for _ in range(n)]


def _read_back(path, separator: str) -> list[list[str]]:
    """The note column as pandas, polars and pyarrow read it."""
    pd = pytest.importorskip("pandas")
    polars = pytest.importorskip("polars")
    arrow = pa.csv.read_csv(
        path,
        parse_options=pa.csv.ParseOptions(delimiter=separator, newlines_in_values=True),
        convert_options=pa.csv.ConvertOptions(
            column_types={"note": pa.string()}, strings_can_be_null=False
        ),
    )
    return [
        pd.read_csv(path, sep=separator, keep_default_na=False, dtype={"note": str})[
            "note"
        ].tolist(),
        polars.read_csv(path, separator=separator)["note"].fill_null("").to_list(),
        arrow["note"].to_pylist(),
    ]


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_text_that_needs_quotes_is_read_back_exactly(tmp_path, suffix, files):
    # every character a CSV or TSV field must quote, CR alone included (which
    # Python's csv module leaves bare, and its own reader then takes for a line's end)
    pd = pytest.importorskip("pandas")
    notes = _notes('ab ,\t"\r\né')
    notes[:4] = ["with, comma", 'a "q"', "lone\rcr", "line\nbreak"]
    frame = pd.DataFrame({"id": range(len(notes)), "x": 3, "y": 5, "note": notes})
    frame.to_parquet(tmp_path / "in.parquet")
    status, err = files(
        "in.parquet", "-o", f"out{suffix}", "--game", "wythoff", "--columns", "x,y"
    )
    assert status == 0, err
    for column in _read_back(tmp_path / f"out{suffix}", "\t" if suffix == ".tsv" else ","):
        assert column == notes


def test_both_writers_quote_csv_text_alike(tmp_path, monkeypatch, files):
    notes = _notes('ab ,\t"é')
    notes[:2] = ["with, comma", 'a "q"']
    quoted = ['"' + n.replace('"', '""') + '"' if set(n) & set(',"') else n for n in notes]
    rows = "".join(f"{i},3,5,{q}\n" for i, q in enumerate(quoted))
    (tmp_path / "in.csv").write_text("id,x,y,note\n" + rows)
    outputs = []
    for no_arrow in ("", "1"):
        monkeypatch.setenv("FIBNIM_NO_ARROW", no_arrow)
        status, err = files("in.csv", "-o", f"out{no_arrow}.csv", "--game", "wythoff",
                            "--columns", "x,y", "--chunk", "700")  # fmt: skip
        assert status == 0, err
        outputs.append((tmp_path / f"out{no_arrow}.csv").read_bytes())
    assert outputs[0] == outputs[1]
    for column in _read_back(tmp_path / "out.csv", ","):
        assert column == notes


@pytest.mark.parametrize("delimiter", [".", " ", "-", ":", "/"])
def test_numbers_dates_and_bytes_that_hold_the_delimiter_are_quoted(tmp_path, delimiter, files):
    # the text of a float, a date, a negative number or bytes can hold such a
    # delimiter: once written bare, 1.5 became two fields under "."
    import datetime

    table = pa.table({
        "x": [3, 4], "y": [5, 7], "w": [1.5, 2.25], "i": [-1, 2],
        "t": [datetime.datetime(2024, 1, 2, 10, 0), None], "b": [b"a,b", b"c\nd/e"],
    })  # fmt: skip
    pq.write_table(table, tmp_path / "in.parquet")
    status, err = files("in.parquet", "-o", "out.csv", "--game", "wythoff", "--columns", "x,y",
                        "--delimiter", delimiter)  # fmt: skip
    assert status == 0, err
    back = pa.csv.read_csv(
        tmp_path / "out.csv",
        parse_options=pa.csv.ParseOptions(delimiter=delimiter, newlines_in_values=True),
        convert_options=pa.csv.ConvertOptions(
            column_types=dict.fromkeys(table.column_names, pa.string()),
            strings_can_be_null=False,
        ),
    )
    assert back.column_names == [*table.column_names, "is_p", "move_1", "move_2"]
    assert back["w"].to_pylist() == ["1.5", "2.25"]
    assert back["i"].to_pylist() == ["-1", "2"]
    assert back["b"].to_pylist() == ["a,b", "c\nd/e"]
    assert back["t"][0].as_py().startswith("2024-01-02 10:00:00")
    assert back["is_p"].to_pylist() == ["P", "P"]


def test_a_letter_or_a_digit_is_no_delimiter(tmp_path, files):
    (tmp_path / "in.csv").write_text("x,y\n3,5\n")
    with pytest.raises(SystemExit) as stop:
        files("in.csv", "-o", "out.csv", "--game", "wythoff", "--delimiter", "5")
    assert stop.value.code == 2
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("no_arrow", ["", "1"])
def test_passed_through_text_is_kept_exactly(tmp_path, monkeypatch, no_arrow, files):
    # "" came out as an empty (missing) field, and 007 as 7 in parquet
    monkeypatch.setenv("FIBNIM_NO_ARROW", no_arrow)
    text = (
        "x,y,lead,sign,frac,exp,both,float,int\n"
        '3,5,007,+5,1.50,1e3,"",1.5,-4\n'
        "1,2,8,6,2.25,2e3,,0.25,12\n"
    )
    (tmp_path / "in.csv").write_text(text)
    status, err = files("in.csv", "-o", "out.csv", "--game", "wythoff", "--columns", "x,y")
    assert status == 0, err
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[1].startswith('3,5,007,+5,1.50,1e3,"",1.5,-4,')
    assert lines[2].startswith("1,2,8,6,2.25,2e3,,0.25,12,")
    status, err = files("in.csv", "-o", "out.parquet", "--game", "wythoff", "--columns", "x,y")
    assert status == 0, err
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.column("lead").to_pylist() == ["007", "8"]
    assert table.column("sign").to_pylist() == ["+5", "6"]
    assert table.column("frac").to_pylist() == ["1.50", "2.25"]
    assert table.column("exp").to_pylist() == ["1e3", "2e3"]
    assert table.column("both").to_pylist() == ["", None]  # the empty text, and missing
    assert table.column("float").to_pylist() == [1.5, 0.25]
    assert table.column("int").to_pylist() == [-4, 12]


@pytest.mark.parametrize("no_arrow", ["", "1"])
@pytest.mark.parametrize("columns", [["--columns", "x,y"], []])
def test_a_row_goes_on_as_its_text_byte_for_byte(tmp_path, monkeypatch, no_arrow, columns, files):
    # into text of its own delimiter a row is its record as it came, its
    # answers after it: quotes that were not needed, spaces, signs and
    # leading zeros stay, and CR LF or a lone CR ends it as LF does
    monkeypatch.setenv("FIBNIM_NO_ARROW", no_arrow)
    if columns:
        header, records = "x,y,id", ['"3", 5 ,"g0"', '+1,02,""', '4,7,"a\r\nb, ""c"""', "0,0,"]
    else:
        header, records = "x,y", ['"3", 5 ', "+1,02", '4,"7"', "0,0"]
    text = "\ufeff" + header + "\r\n" + records[0] + "\r\n\r\n" + "\r".join(records[1:]) + "\n"
    (tmp_path / "in.csv").write_bytes(text.encode())
    status, err = files("in.csv", "-o", "out.csv", "--game", "wythoff", *columns)
    assert status == 0, err
    result = classify([[3, 5], [1, 2], [4, 7], [0, 0]], "wythoff").tolist()
    answers = [
        ",".join(["P" if p else "N", *("" if m < 0 else str(m) for m in moves)])
        for p, *moves in result
    ]
    expected = [header + ",is_p,move_1,move_2"]
    expected += [f"{r},{a}" for r, a in zip(records, answers, strict=True)]
    assert (tmp_path / "out.csv").read_bytes() == ("\n".join(expected) + "\n").encode()
    # into a text of another delimiter, field by field, quoted where it must be
    status, err = files("in.csv", "-o", "out.tsv", "--game", "wythoff", *columns)
    assert status == 0, err
    lines = (tmp_path / "out.tsv").read_text().split("\n")
    assert lines[1].startswith("3\t5\t") and lines[2].startswith("1\t2\t")


@pytest.mark.parametrize("no_arrow", ["", "1"])
def test_the_user_names_the_parquet_types_of_passed_through_columns(
    tmp_path, monkeypatch, no_arrow, files
):
    # every column was typed by its text alone: a column of 007 stayed text,
    # and one whose later rows left the first rows' type was an error
    monkeypatch.setenv("FIBNIM_NO_ARROW", no_arrow)
    (tmp_path / "in.csv").write_text(
        "x,y,lead,when,frac\n3,5,007,2024-01-02,1.50\n1,2,8,2025-12-31,2.25\n"
    )
    status, err = files(
        "in.csv", "-o", "out.parquet", "--game", "wythoff", "--columns", "x,y",
        "--types", "lead=int64, when=date32,frac=float64",
    )  # fmt: skip
    assert status == 0, err
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.column("lead").to_pylist() == [7, 8]
    assert table.schema.field("when").type == pa.date32()
    assert [str(d) for d in table.column("when").to_pylist()] == ["2024-01-02", "2025-12-31"]
    assert table.column("frac").to_pylist() == [1.5, 2.25]
    refused = [
        (["--types", "when=int64"], 1, "row 0, column 'when': '2024-01-02' is not int64, the "
         "type --types named"),
        (["--types", "x=int64"], 2, "--types: x is a pile"),
        (["--types", "lead=integer"], 2, "'integer' is not a type pyarrow names"),
        (["--types", "nope=int64"], 2, "in.csv has no column 'nope'"),
        (["--types", "lead"], 2, "'lead' is not NAME=TYPE"),
    ]  # fmt: skip
    for extra, code, message in refused:
        status, err = files(
            "in.csv", "-o", "bad.parquet", "--game", "wythoff", "--columns", "x,y", *extra
        )
        assert status == code and message in err, (extra, err)
        assert not (tmp_path / "bad.parquet").exists()
    status, err = files("in.csv", "-o", "out.csv", "--game", "wythoff", "--columns", "x,y",
                        "--types", "lead=int64")  # fmt: skip
    assert status == 2 and "--types goes with a CSV or TSV input and a .parquet output" in err


def test_a_damaged_parquet_is_one_line_naming_the_file(tmp_path, files):
    # "Corrupt snappy compressed data." named no file, and some errors took two lines
    rng = np.random.default_rng(3)
    table = pa.table({"x": rng.integers(0, 10**9, 20_000), "y": rng.integers(0, 10**9, 20_000)})
    pq.write_table(table, tmp_path / "in.parquet", compression="snappy")
    data = bytearray((tmp_path / "in.parquet").read_bytes())
    damaged = 0
    for start in range(200, len(data) // 2, 997):  # damage in the data pages, past the header
        copy = bytearray(data)
        copy[start : start + 64] = bytes(64)
        (tmp_path / "bad.parquet").write_bytes(bytes(copy))
        (tmp_path / "out.npy").unlink(missing_ok=True)
        status, err = files("bad.parquet", "-o", "out.npy", "--game", "wythoff")
        if status == 0:
            continue  # zeros that decode (a run of values made 0)
        damaged += 1
        assert status == 1, err
        assert err.startswith("fibnim: bad.parquet: ") and len(err.strip().splitlines()) == 1, err
        assert not (tmp_path / "out.npy").exists()
    assert damaged


def _flips(data: bytes, rng: np.random.Generator, count: int) -> list[bytes]:
    """count copies of a parquet file's bytes, each with four bytes flipped
    between its magic number and its footer (in its pages)."""
    end = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    copies = []
    for _ in range(count):
        copy = bytearray(data)
        for at in rng.integers(4, end, 4):
            copy[at] ^= 0xFF
        copies.append(bytes(copy))
    return copies


def test_a_page_whose_checksum_fails_is_named_never_read(tmp_path, files):
    # four flipped bytes gave exit 0 with a wrong answer: pages carry no check
    # unless written with one, and fibnim read them without looking
    rng = np.random.default_rng(10)
    piles = positions(1000)
    pq.write_table(
        pa.table({"x": piles[:, 0], "y": piles[:, 1]}), tmp_path / "in.parquet",
        write_page_checksum=True,
    )  # fmt: skip
    expected = classify(piles, "wythoff")
    for damaged in _flips((tmp_path / "in.parquet").read_bytes(), rng, 60):
        (tmp_path / "bad.parquet").write_bytes(damaged)
        (tmp_path / "out.npy").unlink(missing_ok=True)
        status, err = files("bad.parquet", "-o", "out.npy", "--game", "wythoff")
        if status == 0:  # the flips missed the values (a page header's statistics, say)
            assert np.array_equal(np.load(tmp_path / "out.npy"), expected)
        else:
            assert status == 1 and err.startswith("fibnim: bad.parquet: "), err
            assert not (tmp_path / "out.npy").exists()


def test_parquet_that_fibnim_writes_carries_page_checksums(tmp_path, files):
    rng = np.random.default_rng(11)
    np.save(tmp_path / "in.npy", positions(1000))
    status, err = files("in.npy", "-o", "out.parquet", "--game", "wythoff")
    assert status == 0, err
    written = (tmp_path / "out.parquet").read_bytes()
    whole = pq.read_table(tmp_path / "out.parquet")
    caught = 0
    for damaged in _flips(written, rng, 60):
        (tmp_path / "bad.parquet").write_bytes(damaged)
        try:
            read = pq.ParquetFile(tmp_path / "bad.parquet", page_checksum_verification=True)
            table = read.read()
        except (OSError, pa.ArrowException):
            caught += 1
            continue
        assert table.equals(whole)  # what a verifying reader takes is never a wrong value
    assert caught


@pytest.mark.parametrize("dtype", [">i8", ">u4", ">i2", "<u2"])
@pytest.mark.parametrize("target", ["out.csv", "out.tsv", "out.parquet", "-"])
def test_every_byte_order_with_columns_to_every_format(tmp_path, dtype, target):
    # ArrowNotImplementedError: Byte-swapped arrays not supported, with --columns
    rows = positions(300, 3) % 30_000
    np.save(tmp_path / "native.npy", rows.astype(np.dtype(dtype).newbyteorder("=")))
    np.save(tmp_path / "swapped.npy", rows.astype(dtype))
    written = []
    for source in ("native.npy", "swapped.npy"):
        done = run_fibnim(
            "classify", source, "-o", target, "--columns", "0,2", "--game", "wythoff", "-q",
            "--force", cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        if target == "out.parquet":
            written.append(pq.read_table(tmp_path / target).to_pylist())
        else:
            written.append(done.stdout if target == "-" else (tmp_path / target).read_bytes())
    assert written[0] == written[1]


@pytest.mark.parametrize("command", ["classify", "pack", "pack -"])
def test_bytes_after_an_npys_data_are_named(tmp_path, command):
    # they were ignored without a word
    values = np.arange(1, 101, dtype=np.int64)
    np.save(tmp_path / "in.npy", values if command != "classify" else values.reshape(-1, 2))
    with open(tmp_path / "in.npy", "ab") as file:
        file.write(b"\x00" * 8)
    if command == "classify":
        arguments = ["classify", "in.npy", "-o", "out.csv", "--game", "wythoff"]
    else:
        arguments = ["pack", "in.npy" if command == "pack" else "-", "-o", "out.fnc"]
    with open(tmp_path / "in.npy", "rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "fibnim", *arguments], stdin=stdin, capture_output=True,
            text=True, cwd=tmp_path, env=subprocess_env(), check=False,
        )  # fmt: skip
    assert done.returncode == 1, done.stderr
    extra = "bytes" if command == "pack -" else "8 bytes"
    assert f"{extra} after the data that its header gives" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.npy"]


FORMAT_CHARACTERS = ["\ufeff", "\u200b", "\u2060", "\u200e", "\u00ad"]  # BOM, ZWSP, WJ, LRM, SHY
HEADERS = ["id,x,y", '" id ", x ,y', '"i""d","x",y', '"i\nd",x,"y "']


@pytest.mark.parametrize("block", [7, 64, 1 << 22])
@pytest.mark.parametrize("header", HEADERS)
@pytest.mark.parametrize("target", ["out.tsv", "out.csv", "out.parquet"])
def test_text_at_every_block_start_and_in_the_header_is_kept(
    tmp_path, monkeypatch, block, header, target, files
):
    # pyarrow took the U+FEFF that began each of its blocks for a byte order
    # mark and dropped it; the header was stripped of its spaces and its line
    # breaks written unquoted
    import csv
    import io

    from fibnim import _delimited

    monkeypatch.setattr(_delimited, "BLOCK", block)
    ids = [f"{FORMAT_CHARACTERS[i % 5]}{i}" for i in range(40)]
    rows = [f"{ids[i]},{i},{2 * i}" for i in range(40)]
    (tmp_path / "in.csv").write_bytes(("\ufeff" + header + "\n" + "\n".join(rows) + "\n").encode())
    names = next(csv.reader(io.StringIO(header)))
    written = []
    for no_arrow in ("", "1"):
        monkeypatch.setenv("FIBNIM_NO_ARROW", no_arrow)
        status, err = files("in.csv", "-o", target, "--game", "wythoff", "--columns", "1,2")
        assert status == 0, err
        if target == "out.parquet":
            table = pq.read_table(tmp_path / target)
            assert table.column_names[:3] == names
            assert table.column(0).to_pylist() == ids
            written.append(table.to_pylist())
            continue
        text = (tmp_path / target).read_text(encoding="utf-8")
        delimiter = "\t" if target == "out.tsv" else ","
        read = list(csv.reader(io.StringIO(text), delimiter=delimiter))
        assert read[0][:3] == names
        assert [row[0] for row in read[1:]] == ids
        if target == "out.csv":  # the same delimiter: the header's record byte for byte
            assert text.startswith(header + ",is_p,move_1,move_2\n")
        written.append(text)
    assert written[0] == written[1]


@pytest.mark.parametrize("block", [5, 1 << 22])
def test_a_pile_that_begins_with_a_format_character_is_refused_alike(
    tmp_path, monkeypatch, block, files
):
    # "\ufeff5" at a block's start was 5 with pyarrow, refused without it
    from fibnim import _delimited

    monkeypatch.setattr(_delimited, "BLOCK", block)
    (tmp_path / "in.csv").write_bytes("x,y\n1,2\n\ufeff5,8\n".encode())
    said = []
    for no_arrow in ("", "1"):
        monkeypatch.setenv("FIBNIM_NO_ARROW", no_arrow)
        status, err = files("in.csv", "-o", "out.csv", "--game", "wythoff")
        assert status == 1 and "in.csv:3: column 0 ('x')" in err, err
        said.append(err)
    assert said[0] == said[1]
