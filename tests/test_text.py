"""The CSV text kernel (fibnim_c/text.pxi and its twin fibnim._pure.text):
fields that need quotes put between the fields of lines that need none."""

from __future__ import annotations

import csv
import io
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fibnim import _backend

SPECIAL = [",", "\t", ";", '"', "\r", "\n"]


def _case(rows: list[tuple[list[int], list[str]]], before: list[int], delimiter: str):
    """The kernel's arguments for rows of plain numbers and quoted texts."""
    lines = "".join(delimiter.join(map(str, numbers)) + "\n" for numbers, _ in rows).encode()
    quoted = len(before)
    texts = [[(texts[t] or "").encode() for _, texts in rows] for t in range(quoted)]
    present = np.array(
        [[texts[t] is not None for _, texts in rows] for t in range(quoted)], dtype=np.uint8
    ).reshape(quoted, len(rows))
    data = b"".join(b"".join(column) for column in texts)
    bounds = np.zeros((quoted, len(rows) + 1), dtype=np.int64)
    base = 0
    for t, column in enumerate(texts):
        bounds[t] = base + np.concatenate([[0], np.cumsum([len(f) for f in column])])
        base = int(bounds[t, -1])
    return (
        np.frombuffer(lines, dtype=np.uint8),
        len(rows),
        len(rows[0][0]) if rows else 1,
        np.array(before, dtype=np.int64),
        bounds,
        np.frombuffer(data, dtype=np.uint8),
        present,
        ord(delimiter),
        np.zeros(len(lines) + 2 * len(data) + 3 * len(rows) * quoted, dtype=np.uint8),
    )


@st.composite
def tables(draw):
    plain = draw(st.integers(1, 3))
    before = sorted(draw(st.lists(st.integers(0, plain), max_size=3)))
    # None: a missing value, written as an empty field; "" is written as ""
    text = st.none() | st.text(st.sampled_from(["a", "é", " ", *SPECIAL]), max_size=5)
    row = st.tuples(
        st.lists(st.integers(0, 2**63 - 1), min_size=plain, max_size=plain),
        st.lists(text, min_size=len(before), max_size=len(before)),
    )
    return draw(st.lists(row, max_size=6)), before, draw(st.sampled_from([",", "\t", ";"]))


@given(tables())
def test_the_lines_read_back_as_their_fields_in_order(table):
    rows, before, delimiter = table
    arguments = _case(rows, before, delimiter)
    done = _backend.kernels("text").csv_interleave(*arguments)
    assert done >= 0
    text = bytes(arguments[-1][:done]).decode()
    expected = []
    for numbers, texts in rows:
        fields = [str(n) for n in numbers]
        for t in reversed(range(len(before))):
            fields.insert(before[t], texts[t] or "")
        expected.append(fields)
    assert list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)) == expected
    # quotes only where a field needs them, and around the empty text
    assert text.count('"') == sum(
        2 + texts[t].count('"') * 2
        for _, texts in rows
        for t in range(len(before))
        if texts[t] is not None and (set(texts[t]) & {delimiter, '"', "\r", "\n"} or not texts[t])
    )


def _damaged(rng: random.Random):
    """Arguments as the kernel takes them, some of them not as it describes."""
    plain = rng.randint(1, 3)
    before = sorted(rng.randint(0, plain) for _ in range(rng.randint(0, 3)))
    rows = [
        ([rng.randint(0, 99) for _ in range(plain)],
         [None if rng.random() < 0.2 else
          "".join(rng.choice(["a", "é", *SPECIAL]) for _ in range(rng.randint(0, 4)))
          for _ in before])
        for _ in range(rng.randint(0, 5))
    ]  # fmt: skip
    lines, m, plain, places, bounds, data, present, delimiter, out = _case(
        rows, before, rng.choice([",", "\t", ";"])
    )
    damage = rng.randrange(9)
    if damage == 0 and len(places):
        places = places[::-1].copy()  # not in order
    elif damage == 1 and len(places):
        places[-1] = plain + 1  # past the plain fields
    elif damage == 2 and bounds.size and m:
        bounds[0, 1] = data.size + 1  # past the data
    elif damage == 3 and m and len(places):
        bounds[0, 0] = -1
    elif damage == 4 and m:
        lines = lines[:-1]  # the last line cut short
    elif damage == 5 and m:
        lines = np.delete(lines, np.flatnonzero(lines == delimiter)[:1])  # a field fewer
    elif damage == 6:
        out = out[: rng.randint(0, out.size)]  # less room than the rule asks
    elif damage == 7 and m:
        present = present[:, :-1].copy()  # a row short
    return lines, m, plain, places, bounds, data, present, delimiter, out


def test_the_compiled_kernel_and_its_twin_agree_on_every_input_and_every_refusal():
    if _backend.COMPILED is None:
        pytest.skip("the compiled extension is not built in this installation")
    compiled = _backend.COMPILED.modules["text"].csv_interleave
    pure = _backend.PURE.modules["text"].csv_interleave
    rng = random.Random(48)
    refused = 0
    for _ in range(3000):
        arguments = _damaged(rng)
        twin = (*arguments[:-1], arguments[-1].copy())
        done, expected = compiled(*arguments), pure(*twin)
        assert done == expected
        if done >= 0:
            assert bytes(arguments[-1][:done]) == bytes(twin[-1][:done])
        refused += done < 0
    assert 300 < refused < 2700  # both kinds were met


def test_no_rows_and_a_table_of_one_empty_field():
    kernel = _backend.kernels("text").csv_interleave
    assert kernel(*_case([], [], ",")) == 0
    arguments = _case([([7], [None])], [1], ",")
    done = kernel(*arguments)
    assert bytes(arguments[-1][:done]) == b"7,\n"  # missing
    arguments = _case([([7], [""])], [1], ",")
    done = kernel(*arguments)
    assert bytes(arguments[-1][:done]) == b'7,""\n'  # the empty text


def _twins(name: str):
    if _backend.COMPILED is None:
        pytest.skip("the compiled extension is not built in this installation")
    return _backend.COMPILED.modules["text"].__dict__[name], _backend.PURE.modules[
        "text"
    ].__dict__[name]


def _record_text(rng: random.Random) -> bytes:
    """Records of quoted and plain fields, blank lines and every line break."""
    lines = []
    for _ in range(rng.randint(0, 6)):
        fields = []
        for _ in range(rng.randint(0, 3)):
            text = "".join(rng.choice(["a", "é", " ", *SPECIAL]) for _ in range(rng.randint(0, 4)))
            plain = not set(text) & {",", '"', "\r", "\n"}
            fields.append(
                text if plain and rng.random() < 0.7 else '"' + text.replace('"', '""') + '"'
            )
        lines.append(",".join(fields))
    ends = ["\n", "\r\n", "\r"]
    text = "".join(line + rng.choice(ends) for line in lines)
    return (text.rstrip("\r\n") if rng.random() < 0.3 else text).encode()


def test_records_are_found_alike_by_both_twins_and_as_the_csv_module_reads_them():
    compiled, pure = _twins("records")
    rng = random.Random(57)
    for _ in range(2000):
        data = np.frombuffer(_record_text(rng), dtype=np.uint8)
        skip, room = rng.randint(0, 2), rng.randint(0, 8)
        found = []
        for kernel in (compiled, pure):
            starts, ends = np.full(room, -7, np.int64), np.full(room, -7, np.int64)
            count = kernel(data, skip, starts, ends)
            found.append((count, starts.tolist(), ends.tolist()))
        assert found[0] == found[1]
        count, starts, ends = found[0]
        expected = [r for r in csv.reader(io.StringIO(bytes(data).decode(), newline="")) if r]
        expected = expected[skip:]
        if count < 0:
            assert len(expected) > room
            continue
        assert count == len(expected)
        for first, last, record in zip(starts, ends, expected, strict=False):
            text = bytes(data[first:last]).decode()
            assert not text.endswith(("\r", "\n")) and text
            assert next(csv.reader(io.StringIO(text, newline=""))) == record


def test_records_pass_through_with_their_answers_alike_on_both_twins():
    compiled, pure = _twins("records_answers")
    rng = random.Random(58)
    refused = 0
    for _ in range(2000):
        texts = [
            rng.choice([b"", b"a", b'"x,y"', b"12, 3", "é".encode()])
            for _ in range(rng.randint(0, 5))
        ]
        data = np.frombuffer(b"".join(texts), dtype=np.uint8)
        lengths = np.array([len(t) for t in texts], dtype=np.int64)
        ends = np.cumsum(lengths)
        starts = ends - lengths
        width = rng.randint(1, 4)
        moves = [-1, 0, 9, 10, 2**63 - 1]
        result = np.array(
            [[rng.randint(0, 1)] + [rng.choice(moves) for _ in range(width - 1)] for _ in texts],
            dtype=np.int64,
        ).reshape(len(texts), width)
        room = len(data) + len(texts) * (3 + 20 * (width - 1))
        damage = rng.randrange(6)
        if damage == 0 and len(texts):
            ends = ends.copy()
            ends[-1] = len(data) + 1  # past the data
        elif damage == 1:
            room = rng.randint(0, room)  # less room than the rule asks, or just enough
        elif damage == 2 and len(texts):
            result = result[:-1]  # a row of answers short
        outs = [np.zeros(room, np.uint8) for _ in range(2)]
        done = [
            k(data, starts, ends, result, ord(","), out)
            for k, out in zip((compiled, pure), outs, strict=True)
        ]
        assert done[0] == done[1]
        refused += done[0] < 0
        if done[0] >= 0:
            lines = bytes(outs[0][: done[0]])
            assert lines == bytes(outs[1][: done[1]])
            expected = b"".join(
                b",".join(
                    [
                        t,
                        b"P" if row[0] == 1 else b"N",
                        *(b"%d" % m if m >= 0 else b"" for m in row[1:]),
                    ]
                )
                + b"\n"
                for t, row in zip(texts, result.tolist(), strict=True)
            )
            assert lines == expected
    assert 200 < refused < 1800  # both kinds were met


def test_a_scan_cuts_counts_and_checks_alike_on_both_twins():
    compiled, pure = _twins("scan")
    rng = random.Random(59)
    bad = 0
    for _ in range(3000):
        data = bytearray(_record_text(rng))
        if data and rng.random() < 0.3:  # a quote out of place, or never closed
            data.insert(rng.randrange(len(data) + 1), 34)
        data = np.frombuffer(bytes(data), dtype=np.uint8)
        last = rng.random() < 0.5
        found = compiled(data, ord(","), last)
        assert found == pure(data, ord(","), last), (bytes(data), last)
        cut, count, lines, at = found
        text = bytes(data[:cut])
        assert text.endswith(b"\n") or (cut in (0, len(data)) and (last or cut == 0))
        assert lines == text.count(b"\n") + text.count(b"\r") - text.count(b"\r\n")
        if at < 0 and cut:  # as Python's csv module reads the text (blank lines skipped)
            assert count == len(
                [r for r in csv.reader(io.StringIO(text.decode(), newline="")) if r]
            )
        bad += at >= 0
    assert 300 < bad < 2000  # both kinds were met
