"""CSV and TSV in: one reader, whatever the way in (a path or stdin) and
whether pyarrow is there or not.

A run reads its text in blocks of whole records (`blocks`), each checked
before it is split into fields: UTF-8, and quotes as RFC 4180 has them (a
field that holds a quote, a delimiter or a line break is quoted whole, its
quotes doubled; a quote anywhere else is refused). Text that passes has one
split into fields, which pyarrow's CSV parser and fibnim's own both make:
pyarrow where it may be used, the own one otherwise. The own one splits a
block at once: its records where the `text.records` kernel finds them, their
fields at the delimiters outside quotes. Neither hands over to the other
mid-run; where a block is refused, `records` reads it again, record by
record, only to name the line at fault. A pile's field becomes its value by
one rule (the `text.parse_integers` kernel), whichever split it.

A field is kept as its text: an empty field is missing (null), a quoted
empty one (`""`) is the empty string. Blank lines are skipped. The first
record is a header unless its first field is an integer (or `header` says).
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from fibnim import _backend
from fibnim._arrow import answers_table, has_arrow, inputs_as_arrow, is_large, is_text, text_bytes
from fibnim._errors import DataError, UsageError
from fibnim._output import Output
from fibnim._source import Chunk, Kept, PileNames, Records, Source, is_integer

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
class Spans:
    """A block's fields as places in its text: row r's field j is
    data[starts[r, j]:ends[r, j]], inside its quotes where quoted[r, j] (its
    quotes still doubled there); an empty field not quoted is missing."""

    data: bytes
    starts: NDArray[np.int64]
    ends: NDArray[np.int64]
    quoted: NDArray[np.bool_] | None  # None: the block has no quotes

    def fields(self, pick: Sequence[int]) -> tuple[NDArray[np.int64], NDArray[np.uint8], int]:
        """The fields of the columns `pick`, row by row, as `Batch.fields` gives
        one column's: offsets, bytes, and the first missing one's place."""
        starts, ends = self.starts[:, pick].ravel(), self.ends[:, pick].ravel()
        lengths = ends - starts
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        # each field's bytes moved from its place in the text to its offset (an
        # index per byte: as narrow as the text allows)
        index = np.int32 if len(self.data) < 1 << 31 else np.int64
        moved = np.repeat((starts - offsets[:-1]).astype(index), lengths)
        moved += np.arange(offsets[-1], dtype=index)
        data = np.frombuffer(self.data, dtype=np.uint8)[moved]
        empty = lengths == 0
        if self.quoted is not None:
            empty &= ~self.quoted[:, pick].ravel()  # "" is the empty text, not a missing value
        missing = np.flatnonzero(empty)
        return offsets, data, int(missing[0]) if len(missing) else len(lengths)

    def text(self, column: int) -> list[bytes | None]:
        """A column's fields, unquoted; None where one is missing."""
        text = self.data
        places = zip(self.starts[:, column].tolist(), self.ends[:, column].tolist(), strict=True)
        if self.quoted is None:
            return [text[start:end] or None for start, end in places]
        return [
            text[start:end].replace(b'""', b'"') if quoted else text[start:end] or None
            for (start, end), quoted in zip(places, self.quoted[:, column].tolist(), strict=True)
        ]


@dataclass
class Batch:
    """One block's records, split into fields: `columns`, pyarrow's large
    string arrays (None for a column not split out) or, split by fibnim, the
    fields' places in the text (`Spans`); `rows` of them."""

    block: Block
    columns: list[Any] | Spans
    rows: int
    delimiter: str
    skip: int = 0  # records of the block before the first row (a header)
    #: each row's first byte and the byte after it, where the split found them
    bounds: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None

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
        assert not isinstance(self.columns, Spans)  # see Spans.fields
        values = self.columns[column]
        offsets = np.frombuffer(values.buffers()[1], dtype=np.int64)
        offsets = offsets[values.offset : values.offset + len(values) + 1]
        data = np.frombuffer(values.buffers()[2] or b"", dtype=np.uint8)
        missing = self.rows
        if values.null_count:
            missing = int(np.argmax(~np.asarray(values.is_valid().to_numpy(zero_copy_only=False))))
        return offsets, data, missing

    def records(self) -> Records:
        """The batch's rows as their text in the block, line breaks left out."""
        starts, ends = self.bounds or record_bounds(self.block, self.skip, self.rows)
        return Records([(self.block.data, starts, ends)], self.rows)

    def text(self, column: int) -> Any:
        """A column as the output repeats it: pyarrow's array, or an object
        array of str (None where the field is missing)."""
        if not isinstance(self.columns, Spans):
            return self.columns[column]
        fields = self.columns.text(column)
        out = np.empty(len(fields), dtype=object)
        out[:] = [None if field is None else field.decode("utf-8") for field in fields]
        return out


WIDE = 10_000  # columns: past this, a text is split by fibnim, not pyarrow


class Reader:
    """CSV or TSV from file (binary, read in order): `names` (the header's
    fields, or None), `width`, and its rows, in blocks of whole records
    (`blocks()`, each with the records to pass over: the header) that
    `split` makes batches of, on any thread. `arrow`: split by pyarrow's
    parser (else by `_at_once`)."""

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
        #: the header's record as it came (line breaks left out), for an
        #: output of the same delimiter, which repeats it byte for byte
        self.header_record: bytes | None = None
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
                # as they are, spaces and all: --columns matches a name
                # without its spaces too (`pile_columns`)
                self.names = fields
                self.header_record = block.data[first[2] : first[3]].rstrip(b"\r\n")
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
        if self.arrow:
            batch = self._arrow(block, skip, wanted)
        elif (batch := self._at_once(block, skip)) is None and block.records > skip:
            self._refuse(block, skip)
        if (batch.rows if batch is not None else 0) != block.records - skip:
            raise AssertionError(f"line {block.line}'s block: its rows split and counted differ")
        return batch

    def _at_once(self, block: Block, skip: int) -> Batch | None:
        """A block split at once: each record's fields lie between its
        delimiters outside quotes. None where it has no rows, or where a
        record is of another width (which `_refuse` then names)."""
        rows = block.records - skip
        if not rows:
            return None
        starts, ends = record_bounds(block, skip, rows)
        raw = np.frombuffer(block.data, dtype=np.uint8)
        separating = raw == ord(self.delimiter)
        has_quotes = block.data.find(b'"') >= 0
        if has_quotes:
            # the block is checked: a delimiter after an odd number of quotes is
            # inside a quoted field (a doubled quote keeps the count's parity)
            separating &= (np.cumsum(raw == _QUOTE, dtype=np.uint8) & 1) == 0
        delimiters = np.flatnonzero(separating)
        between = self.width - 1
        counted = np.searchsorted(delimiters, ends) - np.searchsorted(delimiters, starts)
        if (counted != between).any():
            return None
        # the header's delimiters lie before the first row, and blank lines have none
        first = int(np.searchsorted(delimiters, starts[0]))
        inside = delimiters[first : first + rows * between].reshape(rows, between)
        field_starts = np.empty((rows, self.width), dtype=np.int64)
        field_ends = np.empty((rows, self.width), dtype=np.int64)
        field_starts[:, 0], field_ends[:, -1] = starts, ends
        np.add(inside, 1, out=field_starts[:, 1:])
        field_ends[:, :-1] = inside
        quoted = None
        if has_quotes:  # a quoted field's text is inside its quotes
            opening = raw[np.minimum(field_starts, len(raw) - 1)] == _QUOTE
            quoted = (field_ends > field_starts) & opening
            field_starts += quoted
            field_ends -= quoted
        columns = Spans(block.data, field_starts, field_ends, quoted)
        return Batch(block, columns, rows, self.delimiter, skip, (starts, ends))

    def _refuse(self, block: Block, skip: int) -> None:
        """TextError at the block's first record of another width, if any."""
        found = records(block, self.delimiter)
        for _ in range(skip):
            next(found)
        for line, fields, start, end in found:
            if len(fields) != self.width:
                text = block.data[start:end].rstrip(b"\r\n").decode("utf-8")
                shown = text if len(text) <= 80 else f"{text[:60]}...({len(text):,} characters)"
                raise TextError(line, f"{len(fields)} columns, expected {self.width}: {shown!r}")

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
        if data.startswith(_BOM):
            # pyarrow takes a text's first bytes for a byte order mark and drops
            # them: here they are a field's (the file's own mark went at its
            # start), kept behind a blank line, which the parser skips
            data = b"\n" + data
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
            self._refuse(block, skip)  # names the line, and says what is wrong there
            raise TextError(block.line, f"not read by pyarrow ({error})") from None
        columns = [
            table.column(name).combine_chunks() if name in table.column_names else None
            for name in names
        ]
        return Batch(block, columns, len(table), self.delimiter, skip)


def record_bounds(
    block: Block, skip: int, rows: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Each record's first byte and the byte after it (line breaks left out),
    the first `skip` passed over: the one rule of what a record is, for
    every split."""
    starts = np.empty(rows, dtype=np.int64)
    ends = np.empty(rows, dtype=np.int64)
    data = np.frombuffer(block.data, dtype=np.uint8)
    found = _backend.kernels("text").records(data, skip, starts, ends)
    if found != rows:
        raise AssertionError(f"{found} records found where {rows} rows were read")
    return starts, ends


def pile_values(
    batch: Batch, pick: Sequence[int], names: Sequence[str] | None = None
) -> NDArray[np.int64]:
    """The columns `pick` of a batch as pile values (int64, (rows, len(pick)));
    TextError naming the line, the column (its number, and its name from
    `names`, the header's) and why, at the first field (row by row, then
    column by column) that is not a non-negative int64 or is missing."""
    kernel = _backend.kernels("text").parse_integers
    out = np.empty((batch.rows, len(pick)), dtype=np.int64)
    bad: tuple[int, int] | None = None  # the first refused field's row and place in pick
    if isinstance(batch.columns, Spans):  # the columns at once, row by row
        offsets, data, missing = batch.columns.fields(pick)
        values = out.reshape(-1)
        done = min(kernel(offsets[: missing + 1], data, values[:missing]), missing)
        if done < len(values):
            bad = divmod(done, len(pick))
    else:
        values = np.empty(batch.rows, dtype=np.int64)
        for place, j in enumerate(pick):
            offsets, data, missing = batch.fields(j)
            done = min(kernel(offsets[: missing + 1], data, values[:missing]), missing)
            if done < batch.rows and (bad is None or done < bad[0]):
                bad = done, place
            out[:, place] = values
    if bad is not None:
        line, fields = batch.record(bad[0])
        j = pick[bad[1]]
        named = f" ({names[j]!r})" if names is not None else ""
        raise TextError(line, f"column {j}{named}: {_not_a_pile(fields[j])}")
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


class TextSource(Source):
    """CSV or TSV, streamed from a path or from stdin ("-") by one `Reader`
    (split by pyarrow's parser where it may be used, else by fibnim's own,
    alike in rows and errors). What it keeps besides the piles: each row's
    text where the rows are passed through (`records`), else the text of
    the columns that are not piles."""

    def __init__(self, path: str, delimiter: str, header: bool | None = None) -> None:
        self.path = path
        self.name = "<stdin>" if path == "-" else path
        self.delimiter = delimiter
        if path == "-":
            if sys.stdin is None:
                raise UsageError("-: standard input is closed")
            # its descriptor, read by one system call at a time: a buffered
            # reader may hold bytes that a wait on the descriptor cannot see
            self.file: BinaryIO = getattr(sys.stdin.buffer, "raw", sys.stdin.buffer)
        else:
            try:
                self.file = open(path, "rb")
            except FileNotFoundError:
                raise UsageError(f"{path}: no such file") from None
            except OSError as error:  # no permission, a directory, an I/O error
                raise DataError(f"{path}: cannot be read ({error.strerror or error})") from None
        try:
            with self._naming():
                self.reader = Reader(self.file, delimiter, header, has_arrow())
        except BaseException:
            self.close()
            raise
        if not self.reader.width:
            self.close()
            raise DataError(f"{self.name}: is empty (not even a header)")
        self.named = self.reader.names is not None
        self.columns = self.reader.names or PileNames(self.reader.width)
        self.width = self.reader.width
        #: the rows go on as their text (`Records`), not column by column: set
        #: where the output is text of the same delimiter
        self.records = False

    def watch(self, wait: Callable[[Any], None]) -> None:
        self.reader.before_read = lambda: wait(self.file)

    @contextlib.contextmanager
    def _naming(self) -> Iterator[None]:
        """A TextError as a DataError naming the file and the line."""
        try:
            yield
        except TextError as error:
            raise DataError(f"{self.name}:{error.line}: {error}") from None

    def chunks(self, size: int) -> Iterator[Chunk]:
        for first, blocks in self.parts(size):
            yield self.chunk(first, blocks)

    def parts(self, size: int) -> Iterator[tuple[int, list[tuple[Block, int]]]]:
        """The text in parts of about `size` rows, each as its first row and its
        blocks (with the records each passes over), read and checked in order
        here; each made a chunk by `chunk`, on any thread."""
        first, blocks, rows = 0, [], 0
        with self._naming():
            for block, skip in self.reader.blocks():
                blocks.append((block, skip))
                rows += block.records - skip
                if rows >= size:
                    yield first, blocks
                    first, blocks, rows = first + rows, [], 0
        if rows:  # else blank lines, or a header, alone
            yield first, blocks

    def chunk(self, first: int, blocks: list[tuple[Block, int]]) -> Chunk:
        """A part's rows (some) split into fields, its piles made values."""
        piles, kept = [], []
        with self._naming():
            for block, skip in blocks:
                # rows passed through as their text need their piles' fields alone
                batch = self.reader.split(block, skip, self.pick if self.records else None)
                if batch is not None:
                    values, texts = self._values(batch)
                    piles.append(values)
                    kept.append(texts)
        return self._chunk(first, piles, kept)

    def _values(self, batch: Batch) -> tuple[NDArray[np.int64], Any]:
        """A batch's piles as values, and its other columns' text (--columns),
        or its rows' (`records`)."""
        names = self.columns if self.named else None
        if self.records:
            return pile_values(batch, self.pick or range(self.width), names), batch.records()
        if self.pick is None:
            return pile_values(batch, range(self.width), names), []
        piles = set(self.pick)
        texts = [None if j in piles else batch.text(j) for j in range(self.width)]
        return pile_values(batch, self.pick, names), texts

    def _chunk(self, first: int, piles: list[NDArray[np.int64]], kept: list[Any]) -> Chunk:
        block = piles[0] if len(piles) == 1 else np.concatenate(piles)
        if self.records:
            return first, block, Records.joined(kept)
        if self.pick is None:
            return first, block, None
        columns: list[Any] = []
        place = {j: i for i, j in enumerate(self.pick)}
        for j in range(self.width):
            if j in place:
                columns.append(block[:, place[j]])
            elif isinstance(kept[0][j], np.ndarray):
                columns.append(np.concatenate([texts[j] for texts in kept]))
            else:
                import pyarrow as pa

                columns.append(pa.concat_arrays([texts[j] for texts in kept]))
        return first, block, columns

    def close(self) -> None:
        if self.path != "-":  # stdin stays open
            self.file.close()


def passed_through(
    records: Records, result: NDArray[np.int64], delimiter: str
) -> NDArray[np.uint8]:
    """Each row's text as it came, then its answers: is_p (P or N) and the
    moves (an empty field where there is none)."""
    kernel = _backend.kernels("text").records_answers
    result = np.ascontiguousarray(result, dtype=np.int64)
    width = result.shape[1]
    room = records.rows * (3 + 20 * (width - 1))
    room += sum(int(ends.sum() - starts.sum()) for _, starts, ends in records.pieces)
    out = np.empty(room, dtype=np.uint8)
    row = written = 0
    for data, starts, ends in records.pieces:
        rows = len(starts)
        done = kernel(
            np.frombuffer(data, dtype=np.uint8), starts, ends, result[row : row + rows],
            ord(delimiter), out[written:],
        )  # fmt: skip
        if done < 0:
            raise AssertionError("records beyond their text, or more answers than rows")
        row, written = row + rows, written + done
    if row != len(result):
        raise AssertionError(f"{row} records for {len(result)} rows of answers")
    return out[:written]


def csv_lines(table: Any, delimiter: str) -> Any:
    """An Arrow table's rows as CSV lines, each field as pyarrow's CSV writer
    renders it (null as an empty field, the empty text as ""), and a field that
    holds the delimiter, a quote or a line break (CR too) quoted with its quotes
    doubled (RFC 4180;
    Python's csv module leaves a lone CR bare, which its own reader then takes
    for a line's end).

    pyarrow's writer quotes every text field or none, so it writes the columns
    that need no quotes, and one pass of the text kernel puts the others
    among its fields (fibnim_c/text.pxi). A Python loop over the rows took
    2.5-5x the time of unquoted text; Arrow's casts of every column to text
    and its joins, 2x; its `take` of the pieces, 1.4x."""
    special = [_special_bytes(column, delimiter) for column in table.columns]
    quoted = [j for j, found in enumerate(special) if found]
    plain = table.select([j for j in range(table.num_columns) if not special[j]])
    written = _arrow_csv(plain, delimiter)
    if not quoted or not len(table):
        return written
    m = len(table)
    parts = [text_bytes(table.column(j)) for j in quoted]
    present = np.empty((len(quoted), m), dtype=np.uint8)
    for t, j in enumerate(quoted):
        column = table.column(j)
        present[t] = column.is_valid().to_numpy(zero_copy_only=False) if column.null_count else 1
    bounds = np.empty((len(quoted), m + 1), dtype=np.int64)
    base = 0
    for t, (offsets, text) in enumerate(parts):
        np.add(offsets, base, out=bounds[t])
        base += len(text)
    data = parts[0][1] if len(parts) == 1 else np.concatenate([text for _, text in parts])
    before = np.array([j - t for t, j in enumerate(quoted)], dtype=np.int64)
    lines = np.frombuffer(written, dtype=np.uint8)
    out = np.empty(len(lines) + 2 * len(data) + 3 * m * len(quoted), dtype=np.uint8)
    kernel = _backend.kernels("text").csv_interleave
    done = kernel(lines, m, plain.num_columns, before, bounds, data, present, ord(delimiter), out)
    if done < 0:  # the plain columns' text holds no delimiter and no line break
        raise AssertionError("pyarrow's CSV writer wrote other lines than its rows")
    return out[:done]


#: the delimiters that pyarrow's text of a number, a date or a time can hold
_IN_RENDERED_VALUES = frozenset(".-+: /")


def _arrow_csv(table: Any, delimiter: str) -> Any:
    """A table's rows as pyarrow's CSV writer writes them, unquoted."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    options = pacsv.WriteOptions(include_header=False, delimiter=delimiter, quoting_style="none")
    buffer = pa.BufferOutputStream()
    pacsv.write_csv(table, buffer, write_options=options)
    return buffer.getvalue()


def _special_bytes(text: Any, delimiter: str) -> list[str]:
    """The characters that CSV must quote (the delimiter, a quote, CR, LF) that
    a text column holds, its bytes searched at memchr's speed; and '""' where
    it holds the empty text (which is written so, apart from a missing value)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if is_text(text.type) and pc.any(pc.equal(pc.binary_length(text), 0)).as_py():
        return ['""']

    if not is_text(text.type):
        if pa.types.is_dictionary(text.type) or pa.types.is_string_view(text.type):
            text = text.cast(pa.large_string())
        elif delimiter in _IN_RENDERED_VALUES:  # 1.5 holds ".", 2024-01-01 "-"
            text = text.cast(pa.large_string())
        else:
            return []  # numbers, dates, booleans: no text of their own that needs quotes
    chunks = text.chunks if hasattr(text, "chunks") else [text]
    found: set[str] = set()
    for chunk in chunks:
        if len(chunk):
            width = np.int64 if is_large(chunk.type) else np.int32
            offsets = np.frombuffer(chunk.buffers()[1], dtype=width)[chunk.offset :]
            data = bytes(memoryview(chunk.buffers()[2])[offsets[0] : offsets[len(chunk)]])
            found.update(c for c in (delimiter, '"', "\r", "\n") if c.encode() in data)
    return sorted(found)


class TextWriter:
    """Results as CSV or TSV: a header of the output's names, then each row:
    where its input was text of this delimiter, the row as it came (`Records`),
    else the input's columns (the piles, or every column where --columns chose
    the piles) field by field; then is_p (P or N) and the moves (an empty
    field where there is none)."""

    def __init__(
        self,
        output: Output,
        delimiter: str,
        text_delimiter: str | None,
        header: bytes | None = None,
    ) -> None:
        self.output = output
        self.delimiter = delimiter
        self.records = text_delimiter == delimiter
        self.header = header  # the input's header record, where it is text
        # a text that pyarrow did not split (a wide one) is not written by it
        # either: its writer's cost grows with the columns as its reader's does
        wide = text_delimiter is not None and len(output.columns) > WIDE
        self.arrow = has_arrow() and not wide

    def start(self) -> None:
        # where the rows go on as they came, so does the header's record;
        # else the names, quoted only where one needs it (a delimiter, a quote,
        # a line break), on both paths; a piece at a time, as a header may
        # name millions of columns
        names, between = self.output.names(), ""
        if self.records and self.header is not None:
            self.output.stream.write(self.header)
            names, between = self.output.answers(), self.delimiter
        while piece := list(itertools.islice(names, 1 << 16)):
            line = io.StringIO()
            # csv quotes a line break only where it is in the line terminator
            csv.writer(line, delimiter=self.delimiter, lineterminator="\r\n").writerow(piece)
            self.output.stream.write((between + line.getvalue()[:-2]).encode())
            between = self.delimiter
        self.output.stream.write(b"\n")

    def write(
        self, positions: Any, result: NDArray[np.int64], kept: Kept, text: Any, first: int
    ) -> None:
        self.output.stream.write(text if text is not None else self.text(positions, result, kept))

    def text(self, positions: NDArray[Any], result: NDArray[np.int64], kept: Kept) -> Any:
        """The rows as bytes. A field that holds the delimiter, a quote or a line
        break is quoted (RFC 4180), alike with and without pyarrow. Safe from any
        thread: classify's tasks make their own."""
        if isinstance(kept, Records):
            return passed_through(kept, result, self.delimiter)
        if kept is not None:
            kept = self._as_text(kept)
        if self.arrow:
            table = answers_table(result, inputs_as_arrow(positions, kept), self.output, False)
            return csv_lines(table, self.delimiter)
        d = self.delimiter
        if kept is None:
            # One format for the whole chunk: the outcome as a character code
            # (%c), and then a P-position's moves, all -1 (and only theirs:
            # piles and an N-position's moves are >= 0), as empty cells.
            m, k = positions.shape
            cells = np.empty((m, 1 + 2 * k), dtype=np.int64)
            cells[:, :k] = positions
            cells[:, k] = np.where(result[:, 0] == 1, ord("P"), ord("N"))
            cells[:, k + 1 :] = result[:, 1:]
            line = d.join(["%d"] * k + ["%c"] + ["%d"] * k) + "\n"
            text = (line * m) % tuple(cells.ravel().tolist())
            return text.replace(f"{d}P{f'{d}-1' * k}\n", f"{d}P{d * k}\n").encode()
        special = re.compile(f'[{re.escape(d)}"\r\n]')

        def field(value: Any) -> str:
            if value is None:
                return ""  # missing
            text = str(value)
            if special.search(text) or not text:  # the empty text as "", apart from missing
                return f'"{text.replace(chr(34), 2 * chr(34))}"'
            return text

        inputs = [c.to_pylist() if hasattr(c, "to_pylist") else c.tolist() for c in kept]
        outcome = np.where(result[:, 0] == 1, "P", "N").tolist()
        lines = []
        for i, targets in enumerate(result[:, 1:].tolist()):
            answers = [outcome[i], *("" if t < 0 else str(t) for t in targets)]
            lines.append(d.join([*(field(c[i]) for c in inputs), *answers]) + "\n")
        return "".join(lines).encode()

    def _as_text(self, kept: list[Any]) -> list[Any]:
        """The columns as CSV holds them, alike on both paths: bytes (a parquet
        binary column) as the UTF-8 text they hold; DataError, naming the input,
        the column and the value, for bytes that are not UTF-8 and for a column
        CSV cannot hold at all (a list, a struct, a map), before any of the
        chunk's rows is written. Only Arrow's columns (which have a type) can
        be either: numpy's, from an install without pyarrow too, pass as they are."""
        columns = list(kept)
        for j, (name, column) in enumerate(zip(self.output.columns, kept, strict=True)):
            kind = getattr(column, "type", None)
            if kind is None:
                continue
            where = f"{self.output.source}: column {name!r}"
            if _is_nested(kind):
                raise DataError(
                    f"{where} holds {kind}, which {self.output.path} (CSV or TSV) cannot "
                    "hold; write parquet, or drop the column first"
                )
            text = _text_of(kind)
            if text is not None:
                try:
                    columns[j] = column.cast(text)
                except Exception:  # pyarrow's ArrowInvalid: bytes that are not UTF-8
                    bad = next(v for v in column.to_pylist() if v is not None and not _utf8(v))
                    raise DataError(
                        f"{where}: {bad!r} is not UTF-8 text, which {self.output.path} (CSV "
                        "or TSV) holds; write parquet, which keeps bytes"
                    ) from None
        return columns

    def finish(self, written: int) -> None:
        pass

    def abort(self) -> None:
        pass


def _is_nested(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_nested(kind))


def _text_of(kind: Any) -> Any:
    """The Arrow text type of a byte type's width; None for other types."""
    import pyarrow as pa

    if pa.types.is_large_binary(kind):
        return pa.large_string()
    return pa.string() if pa.types.is_binary(kind) else None
