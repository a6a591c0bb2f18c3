"""CSV and TSV in: one reader, whatever the way in (a path or stdin) and
whether pyarrow is there or not.

A run reads its text in blocks of whole records (`blocks`), each checked
before it is split into fields: UTF-8, and quotes as RFC 4180 has them (a
field that holds a quote, a delimiter or a line break is quoted whole, its
quotes doubled; a quote anywhere else is refused). Text that passes has one
split into fields, which pyarrow's CSV parser and fibnim's own (`records`)
both make: pyarrow where it may be used, the own one otherwise. Neither hands
over to the other mid-run; where pyarrow refuses a block, the own splitter
reads that block again only to name the line at fault. A pile's field
becomes its value by one rule (the `text.parse_integers` kernel), whichever
split it.

A field is kept as its text: an empty field is missing (null), a quoted
empty one (`""`) is the empty string. Blank lines are skipped. The first
record is a header unless its first field is an integer (or `header` says).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from fibnim import _backend

#: bytes read at a time; a block is cut after its last line break outside quotes
BLOCK = 1 << 22
_BOM = b"\xef\xbb\xbf"
_QUOTE = 34


class TextError(ValueError):
    """Text that is not CSV as fibnim reads it, at line `line` (counted from 1)."""

    def __init__(self, line: int, text: str) -> None:
        super().__init__(text)
        self.line = line


@dataclass
class Block:
    """Whole records of a text: `data`, whose first byte starts line `line`,
    `records` of them (blank lines not counted)."""

    data: bytes
    line: int
    records: int = 0

    def place(self, offset: int) -> tuple[int, int]:
        """The line of the byte at offset, and its character within that line
        (both from 1)."""
        before = self.data[:offset]
        start = max(before.rfind(b"\n"), before.rfind(b"\r")) + 1
        character = len(before[start:].decode("utf-8", "replace")) + 1
        return self.line + line_breaks(before), character


def line_breaks(data: bytes) -> int:
    """The line breaks in data: LF, CR LF or a lone CR."""
    if data.find(b"\r") < 0:  # most text: one pass at memchr's speed
        return data.count(b"\n")
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")


def _check(block: Block, delimiter: int, last: bool, places: NDArray[np.intp]) -> None:
    """TextError at block's first byte that is not UTF-8, or its first quote
    that RFC 4180 does not allow: an opening quote starts a field or doubles
    a quote, a closing quote ends a field or is doubled; the last quote of
    the text closes the field it opened (`last`: block ends the text). The
    words of the error that the `text.scan` kernel found."""
    try:
        block.data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, character = block.place(error.start)
        raise TextError(
            line,
            f"not UTF-8 text (byte 0x{block.data[error.start]:02x} at character {character}); "
            "save the file as UTF-8",
        ) from None
    if not len(places):
        return
    raw = np.frombuffer(block.data, dtype=np.uint8)
    opening = np.arange(len(places)) % 2 == 0
    before = raw[np.maximum(places - 1, 0)]
    after = raw[np.minimum(places + 1, len(raw) - 1)]
    # a quote just before an opening one is the closing one it doubles (the
    # quotes alternate, opening and closing), and one just after a closing
    # one is the opening one that doubles it
    good_open = (places == 0) | _ends_field(before, delimiter) | (before == _QUOTE)
    good_close = (places == len(raw) - 1) | _ends_field(after, delimiter) | (after == _QUOTE)
    bad = np.flatnonzero(np.where(opening, ~good_open, ~good_close))
    if len(bad):
        at = int(places[bad[0]])
        line, character = block.place(at)
        where = "before" if opening[bad[0]] else "after"
        raise TextError(
            line,
            f"a quote (character {character}) with other text {where} it in its field; "
            "quote the whole field, its quotes doubled (RFC 4180)",
        )
    if last and len(places) % 2:
        line, character = block.place(int(places[-1]))
        raise TextError(line, f"the quote at character {character} is never closed")


def _ends_field(found: NDArray[np.uint8], delimiter: int) -> NDArray[np.bool_]:
    """Which bytes end a field: the delimiter, LF or CR."""
    ends: NDArray[np.bool_] = (found == delimiter) | (found == 10) | (found == 13)
    return ends


def quotes(data: bytes) -> NDArray[np.intp]:
    """The places of data's quotes (found at memchr's speed where there is none)."""
    if data.find(b'"') < 0:
        return np.empty(0, dtype=np.intp)
    return np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == _QUOTE)


def blocks(
    file: IO[bytes], delimiter: str, size: int = 0, before_read: Callable[[], None] = lambda: None
) -> Iterator[Block]:
    """file's bytes in blocks of whole records, each checked (UTF-8, quotes)
    and its records counted by one pass of the `text.scan` kernel, a byte
    order mark at the start dropped; TextError, its line counted over the
    file, for text that is not CSV. `before_read` runs before each read,
    which may wait on a pipe (a signal noted but not raised is raised there)."""
    separator, scan = ord(delimiter), _backend.kernels("text").scan
    line, pending, first = 1, b"", True
    # what one read gives: from a pipe, what has come, not a wait for a whole block
    read = getattr(file, "read1", file.read)
    while True:
        before_read()
        data = read(size or BLOCK)
        if not data:
            break
        pending += data
        if first:
            if len(pending) < len(_BOM) and _BOM.startswith(pending):
                continue  # not yet known whether it is one
            pending, first = pending.removeprefix(_BOM), False
        if b"\n" not in data:
            continue  # no new line break: no new cut
        cut, records_found, lines, bad = scan(np.frombuffer(pending, np.uint8), separator, False)
        if cut:
            yield _checked(Block(pending[:cut], line, records_found), separator, False, bad)
            line += lines
            pending = pending[cut:]
    if first:
        pending = pending.removeprefix(_BOM)
    if pending:
        _, records_found, _, bad = scan(np.frombuffer(pending, np.uint8), separator, True)
        yield _checked(Block(pending, line, records_found), separator, True, bad)


def _checked(block: Block, delimiter: int, last: bool, bad: int) -> Block:
    """block, if it is UTF-8 and its quotes are good (`bad`: the first that is
    not, from the scan); else the TextError that says where and why."""
    if bad >= 0 or not (block.data.isascii() or _utf8(block.data)):
        _check(block, delimiter, last, quotes(block.data))
        raise AssertionError(f"the scan and the check disagree on line {block.line}'s block")
    return block


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _field_pattern(delimiter: str) -> re.Pattern[bytes]:
    d = re.escape(delimiter.encode())
    return re.compile(rb'"((?:[^"]|"")*)"|[^' + d + rb'"\r\n]*')


Fields = list[bytes | None]  # a record's fields: None for an empty one (not quoted)


def records(block: Block, delimiter: str) -> Iterator[tuple[int, Fields, int, int]]:
    """The records of a checked block, blank lines skipped: (line, fields,
    first byte, byte after the record's end)."""
    data, line, separator = block.data, block.line, delimiter.encode()
    if data.find(b'"') < 0:  # no quotes: a record is a line, cut by C
        offset = 0
        for text in data.splitlines(keepends=True):
            end = offset + len(text)
            body = text.rstrip(b"\r\n")
            if body:
                yield (
                    line,
                    [field or None for field in body.split(delimiter.encode())],
                    offset,
                    end,
                )
            line, offset = line + 1, end
        return
    field = _field_pattern(delimiter)
    position, size = 0, len(data)
    while True:
        start, first, fields, quoted = position, line, [], None
        while True:
            found = field.match(data, position)
            assert found is not None  # any text matches (a field may be empty)
            quoted = found.group(1)
            if quoted is None:
                fields.append(found.group() or None)
            else:
                fields.append(quoted.replace(b'""', b'"'))
                line += line_breaks(quoted)
            position = found.end()
            if data[position : position + 1] != separator:
                break
            position += 1
        ending = data[position : position + 2]
        position += 2 if ending == b"\r\n" else 1 if ending else 0
        if len(fields) > 1 or fields[0] is not None or quoted is not None:
            yield first, fields, start, position
        if position >= size:
            return
        line += 1


@dataclass
class Batch:
    """One block's records, split into fields: `columns` (pyarrow's large
    string arrays, or lists of a field's bytes, None where it is empty; None
    for a column not split out), `rows` of them."""

    block: Block
    columns: list[Any]
    rows: int
    delimiter: str
    skip: int = 0  # records of the block before the first row (a header)

    def record(self, row: int) -> tuple[int, Fields]:
        """The line and fields of a row, counted from 0 in this batch."""
        found = records(self.block, self.delimiter)
        for _ in range(self.skip + row):
            next(found)
        line, fields, _, _ = next(found)
        return line, fields

    def fields(self, column: int) -> tuple[NDArray[np.int64], NDArray[np.uint8], int]:
        """A column's fields as text: the offsets of each one's start (and the
        last one's end) in the bytes of them all, and the first row whose field
        is missing (rows: none is)."""
        values = self.columns[column]
        if isinstance(values, list):
            lengths = np.fromiter(
                (0 if v is None else len(v) for v in values), np.int64, len(values)
            )
            offsets = np.zeros(len(values) + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            data = np.frombuffer(b"".join(v for v in values if v is not None), dtype=np.uint8)
            missing = next((r for r, v in enumerate(values) if v is None), self.rows)
            return offsets, data, missing
        offsets = np.frombuffer(values.buffers()[1], dtype=np.int64)
        offsets = offsets[values.offset : values.offset + len(values) + 1]
        data = np.frombuffer(values.buffers()[2] or b"", dtype=np.uint8)
        missing = self.rows
        if values.null_count:
            missing = int(np.argmax(~np.asarray(values.is_valid().to_numpy(zero_copy_only=False))))
        return offsets, data, missing

    def records(self) -> Records:
        """The batch's rows as their text in the block, line breaks left out."""
        starts = np.empty(self.rows, dtype=np.int64)
        ends = np.empty(self.rows, dtype=np.int64)
        data = np.frombuffer(self.block.data, dtype=np.uint8)
        found = _backend.kernels("text").records(data, self.skip, starts, ends)
        if found != self.rows:  # one rule of what a record is, for both splits
            raise AssertionError(f"{found} records found where {self.rows} rows were read")
        return Records([(self.block.data, starts, ends)], self.rows)

    def text(self, column: int) -> Any:
        """A column as the output repeats it: pyarrow's array, or an object
        array of str (None where the field is empty)."""
        values = self.columns[column]
        if not isinstance(values, list):
            return values
        out = np.empty(len(values), dtype=object)
        out[:] = [None if v is None else v.decode("utf-8") for v in values]
        return out


@dataclass
class Records:
    """Rows as their text in the input, to pass through as they are: row i of
    a piece (data, starts, ends) is data[starts[i]:ends[i]]."""

    pieces: list[tuple[bytes, NDArray[np.int64], NDArray[np.int64]]]
    rows: int

    @staticmethod
    def joined(parts: Sequence[Records]) -> Records:
        return Records([p for part in parts for p in part.pieces], sum(p.rows for p in parts))


WIDE = 10_000  # columns: past this, a text is split by `records`, not pyarrow


class Reader:
    """CSV or TSV from file (binary, read in order): `names` (the header's
    fields, or None), `width`, and its rows, in blocks of whole records
    (`blocks()`, each with the records to pass over: the header) that
    `split` makes batches of, on any thread. `arrow`: split by pyarrow's
    parser (else by `records`)."""

    def __init__(
        self, file: IO[bytes], delimiter: str, header: bool | None, arrow: bool,
        size: int = 0,
    ) -> None:  # fmt: skip
        self.delimiter = delimiter
        self.arrow = arrow
        #: runs before each read of the file (see `blocks`): a run's look at its signals
        self.before_read: Callable[[], None] = lambda: None
        self._blocks = blocks(file, delimiter, size, lambda: self.before_read())
        self._first: Block | None = None
        self.names: list[str] | None = None
        self.skip = 0
        for block in self._blocks:
            first = next(records(block, delimiter), None)
            if first is None:
                continue  # blank lines only
            self._first = block
            fields = [(field or b"").decode("utf-8") for field in first[1]]
            if header is None:
                header = not is_integer(fields[0])
            if header:
                self.names = [field.strip() for field in fields]
                self.skip = 1
            self.width = len(fields)
            # pyarrow's cost grows with the columns (a one-record text of
            # 400,000 took 6 s and 1.9 GB, 0.2 s and 96 MB split here); the
            # two break even near 10,000
            self.arrow = arrow and self.width <= WIDE
            return
        self.width = 0  # no record at all

    def blocks(self) -> Iterator[tuple[Block, int]]:
        """The blocks of rows, read in order, each with the records before its
        first row (the header's); TextError for text that is not CSV."""
        if self._first is None:
            return
        first, self._first = self._first, None
        yield first, self.skip
        for block in self._blocks:
            yield block, 0

    def split(self, block: Block, skip: int, wanted: Sequence[int] | None = None) -> Batch | None:
        """A block's rows split into fields (None: it has none), the columns
        `wanted` at least (None: all); TextError at a record of another width."""
        batch = self._arrow(block, skip, wanted) if self.arrow else self._own(block, skip)
        if (batch.rows if batch is not None else 0) != block.records - skip:
            raise AssertionError(f"line {block.line}'s block: rows split and records counted differ")
        return batch

    def _own(self, block: Block, skip: int) -> Batch | None:
        """The block split by `records`; TextError at a record of another width."""
        columns: list[list[bytes | None]] = [[] for _ in range(self.width)]
        found = records(block, self.delimiter)
        for _ in range(skip):
            next(found)
        rows = 0
        for line, fields, start, end in found:
            if len(fields) != self.width:
                text = block.data[start:end].rstrip(b"\r\n").decode("utf-8")
                shown = text if len(text) <= 80 else f"{text[:60]}...({len(text):,} characters)"
                raise TextError(line, f"{len(fields)} columns, expected {self.width}: {shown!r}")
            for column, field in zip(columns, fields, strict=True):
                column.append(field)
            rows += 1
        return Batch(block, columns, rows, self.delimiter, skip) if rows else None

    def _arrow(self, block: Block, skip: int, wanted: Sequence[int] | None) -> Batch | None:
        import pyarrow as pa
        import pyarrow.csv as pacsv

        data = block.data
        if skip:  # the header's record, and the blank lines before it
            _, _, _, end = next(records(block, self.delimiter))
            data = data[end:]
        if not data.strip(b"\r\n"):
            return None  # no rows, and pyarrow refuses an empty text
        if not data.endswith((b"\n", b"\r")):
            data += b"\n"  # pyarrow reads a last empty field without one as "", not null
        names = [f"c{j}" for j in range(self.width)]
        try:
            table = pacsv.read_csv(
                pa.BufferReader(data),
                read_options=pacsv.ReadOptions(  # every record's width checked still
                    column_names=names,
                    block_size=len(data) + 1,
                    # on this thread: out of memory, pyarrow's parsing threads
                    # aborted the process (std::bad_alloc); the chunks' own
                    # threads keep the cores busy anyway
                    use_threads=False,
                ),
                parse_options=pacsv.ParseOptions(
                    delimiter=self.delimiter, newlines_in_values=True, ignore_empty_lines=True
                ),
                convert_options=pacsv.ConvertOptions(
                    include_columns=None if wanted is None else [names[j] for j in wanted],
                    column_types=dict.fromkeys(names, pa.large_string()),
                    strings_can_be_null=True,
                    quoted_strings_can_be_null=False,
                    null_values=[""],
                ),
            )
        except pa.ArrowInvalid as error:
            self._own(block, skip)  # names the line, and says what is wrong there
            raise TextError(block.line, f"not read by pyarrow ({error})") from None
        columns = [
            table.column(name).combine_chunks() if name in table.column_names else None
            for name in names
        ]
        return Batch(block, columns, len(table), self.delimiter, skip)


_INTEGER = re.compile(r"[ \t]*[+-]?[0-9]+[ \t]*")  # as text.parse_integers reads them


def is_integer(text: str) -> bool:
    """Whether text is a decimal integer, spaces and tabs around it allowed."""
    return _INTEGER.fullmatch(text) is not None


def piles(
    batch: Batch, pick: Sequence[int], names: Sequence[str] | None = None
) -> NDArray[np.int64]:
    """The columns `pick` of a batch as pile values (int64, (rows, len(pick)));
    TextError naming the line, the column (its number, and its name from
    `names`, the header's) and why, at the first field that is not a
    non-negative int64 or is missing."""
    kernel = _backend.kernels("text").parse_integers
    out = np.empty((batch.rows, len(pick)), dtype=np.int64)
    values = np.empty(batch.rows, dtype=np.int64)
    for place, j in enumerate(pick):
        offsets, data, missing = batch.fields(j)
        done = min(kernel(offsets[: missing + 1], data, values[:missing]), missing)
        if done < batch.rows:
            line, fields = batch.record(done)
            named = f" ({names[j]!r})" if names is not None else ""
            raise TextError(line, f"column {j}{named}: {_not_a_pile(fields[j])}")
        out[:, place] = values
    return out


def _not_a_pile(field: bytes | None) -> str:
    """Why a field refused as a pile is not one."""
    if field is None:
        return "no value (an empty field)"
    text = field.decode("utf-8")
    if not is_integer(text):
        shown = text if len(text) <= 40 else f"{text[:20]}...({len(text):,} characters)"
        return f"{shown!r} is not an integer"
    digits = text.strip(" \t").lstrip("+-").lstrip("0")
    negative = text.strip(" \t").startswith("-")
    if len(digits) > 40:  # named by its length: int() refuses 4,300 digits
        size = f"a number of {len(digits):,} digits"
        return f"{size} is negative" if negative else f"{size} is too large for int64"
    value = int(text)
    return f"{value} is negative" if value < 0 else f"{value} is too large for int64"
