"""parquet in, a row group batch at a time (integer columns read into int64
exactly), and a CSV's passed-through text typed for parquet out: a column
gets a type only where every value's text comes back unchanged from it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fibnim import _stop
from fibnim._arrow import answers_table, arrow_integers, inputs_as_arrow, load_parquet
from fibnim._errors import DataError, UsageError, in_one_line
from fibnim._output import Output
from fibnim._source import Chunk, Source, checked


class ParquetSource(Source):
    """A parquet file whose columns are all integers, read a row group batch at a time."""

    def __init__(self, path: str) -> None:
        _, pq = load_parquet()
        self.name = path
        try:
            # not pre-buffered: whole column chunks read ahead held 120 MB
            # a page whose checksum fails is an error; a file written without
            # checksums (pyarrow's default) is read as it is
            self.file = pq.ParquetFile(
                path, pre_buffer=False, buffer_size=1 << 20, page_checksum_verification=True
            )
        except FileNotFoundError:
            raise UsageError(f"{path}: no such file") from None
        except Exception as error:  # pyarrow's errors have no common base worth naming
            raise DataError(f"{path}: not a parquet file ({in_one_line(error)})") from None
        self.columns = list(self.file.schema_arrow.names)
        self.rows = self.file.metadata.num_rows
        self.width = len(self.columns)

    def check(self) -> None:
        """Refuse a pile column that does not hold integers."""
        schema = self.file.schema_arrow
        for j in range(self.width) if self.pick is None else self.pick:
            field = schema.field(j)
            if field.type.id not in _integer_type_ids():
                raise DataError(
                    f"{self.name}: column {field.name!r} holds {field.type}, not integers"
                    + ("" if self.pick else "; choose the pile columns with --columns")
                )

    def chunks(self, size: int) -> Iterator[Chunk]:
        first = 0
        pick = list(range(self.width)) if self.pick is None else self.pick
        # on one thread: arrow's threaded reader crashed (SIGSEGV) when an
        # allocation failed, and two integer columns gain little from threads
        for batch in self._batches(size):
            columns = []
            for j in pick:
                column = batch.column(j)
                if column.null_count:
                    row = first + int(np.flatnonzero(column.is_null().to_numpy(False))[0])
                    raise DataError(
                        f"{self.name}: row {row}, column {j} ({self.columns[j]!r}): "
                        "no value (null)"
                    )
                columns.append(arrow_integers(column))
            piles = checked(self.name, columns, first, "row", pick, self.columns)
            yield first, piles, None if self.pick is None else batch.columns
            first += batch.num_rows

    def _batches(self, size: int) -> Iterator[Any]:
        """The file's batches; a damaged file a DataError naming it, on one line
        (pyarrow's own errors name no file, some on two lines)."""
        pa, _ = load_parquet()
        batches = self.file.iter_batches(batch_size=size, use_threads=False)
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                return
            except (pa.ArrowException, OSError) as error:
                if _stop.out_of_memory(error):
                    raise
                raise DataError(
                    f"{self.name}: damaged, not read as parquet ({in_one_line(error)})"
                ) from None
            yield batch


def _integer_type_ids() -> set[int]:
    pa, _ = load_parquet()
    types = [pa.int8(), pa.int16(), pa.int32(), pa.int64()]
    types += [pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]
    return {t.id for t in types}


def _round_trip(column: Any, kind: Any) -> Any:
    """column's text as `kind`, or None where a value is not of it or its
    text does not come back unchanged from it (007, +5, 1.50, 1e3)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        typed = pc.cast(column, kind)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if pc.any(pc.not_equal(pc.cast(typed, column.type), column)).as_py():
        return None
    return typed


def text_type(column: Any) -> Any:
    """The type of a column of CSV fields in parquet: int64 where every value
    (but missing ones) is an int64 whose text is the field's, else float64
    where each is a float64 so, else text. So a field's text is what it was:
    007, +5, 1.50 and 1e3 keep their column as text, as do digits beyond
    int64 and a column of missing values; a missing field stays null and the
    empty text ("") stays text."""
    import pyarrow as pa
    import pyarrow.compute as pc

    present = pc.drop_null(column)
    if not len(present):
        return pa.string()
    for kind in (pa.int64(), pa.float64()):
        if _round_trip(present, kind) is not None:
            return kind
    return pa.string()


def as_type(column: Any, kind: Any, where: str, name: str, first: int, named: bool = False) -> Any:
    """A column of CSV fields as `kind`: the type the first chunk gave it, its
    text coming back unchanged (see `text_type`), or the one --types named
    (`named`: converted by value). DataError, naming the row (counted from 0
    over the file's rows) and the field, for one that is not of it."""
    import pyarrow as pa

    if pa.types.is_string(kind):
        return column.cast(pa.string()) if pa.types.is_large_string(column.type) else column
    convert = _by_value if named else _round_trip
    typed = convert(column, kind)
    if typed is not None:
        return typed
    low, high = 0, len(column)  # the first field that is not of kind lies in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        if convert(column.slice(low, middle - low), kind) is None:
            high = middle
        else:
            low = middle
    why = (
        ", the type --types named"
        if named
        else " as it is written, the type the column's first rows gave it in parquet; write "
        "CSV, which keeps the text as it is, or name the column's type with --types"
    )
    raise DataError(
        f"{where}: row {first + low}, column {name!r}: {column[low].as_py()!r} is not {kind}{why}"
    )


def _by_value(column: Any, kind: Any) -> Any:
    """column's text as `kind` by value (pyarrow's cast), or None where a
    value is not of it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.cast(column, kind)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


# rows of a parquet row group: the writer holds one whole. On 10**7 rows, csv ->
# parquet peaked at 250 MB with these, at 280-300 MB with pyarrow's default of
# 2**20, and groups of 2**18 rows took 1.3x the time of these
ROW_GROUP = 1 << 19


class ParquetWriter:
    """Results as parquet: the input's columns, is_p (a boolean) and the moves
    (int64, null where there is none), in row groups of ROW_GROUP rows
    whatever the chunks. From a CSV or TSV (`from_text`), the passed-through
    text columns are typed by their first chunk's fields (`text_type`), since
    a parquet file has one schema, or as --types names them (`types`, by
    column: converted by value)."""

    def __init__(self, output: Output, types: dict[int, Any] | None, from_text: bool) -> None:
        self.output = output
        self.writer: Any = None  # pyarrow's, opened with the first table's schema
        self.text_types: dict[int, Any] | None = dict(types or {}) if from_text else None
        self.named_types = set(types or ())
        self.pending: list[Any] = []  # tables not yet written
        self.pending_rows = 0

    def start(self) -> None:
        pass

    def write(
        self, positions: Any, result: NDArray[np.int64], kept: Any, text: Any, first: int
    ) -> None:
        inputs = self._typed(inputs_as_arrow(positions, kept), first)
        table = answers_table(result, inputs, self.output, True)
        if self.writer is None:
            _, pq = load_parquet()
            # no dictionary: on the integer columns it grew to its page limit
            # and was dropped, costing 40 MB of peak memory and a third of the
            # time on 10**7 rows
            # and a CRC-32 of every page, which readers that verify them check
            self.writer = pq.ParquetWriter(
                self.output.stream, table.schema, use_dictionary=False, write_page_checksum=True
            )
        # row groups of ROW_GROUP rows whatever the chunks: small ones made
        # writing and reading the file slower
        self.pending.append(table)
        self.pending_rows += len(table)
        if self.pending_rows >= ROW_GROUP:
            self._flush_rows(last=False)

    def _flush_rows(self, last: bool) -> None:
        """Write the pending rows as whole row groups; the last time, all of them."""
        import pyarrow as pa

        table = pa.concat_tables(self.pending) if self.pending else None
        if table is None:
            return
        whole = len(table) if last else len(table) // ROW_GROUP * ROW_GROUP
        if whole:
            self.writer.write_table(table.slice(0, whole), row_group_size=ROW_GROUP)
        rest = table.slice(whole)
        self.pending, self.pending_rows = ([rest] if len(rest) else []), len(rest)

    def _typed(self, inputs: list[Any], first: int) -> list[Any]:
        """The passed-through columns of a CSV or TSV input as parquet holds
        them, rows first.. of the input."""
        pick = self.output.pick
        if self.text_types is None or pick is None:
            return inputs
        typed = list(inputs)
        for j, column in enumerate(inputs):
            if j not in pick:
                if j not in self.text_types:  # the first chunk's, kept (setdefault
                    self.text_types[j] = text_type(column)  # would type every chunk)
                typed[j] = as_type(
                    column, self.text_types[j], self.output.source, self.output.columns[j],
                    first, named=j in self.named_types,
                )  # fmt: skip
        return typed

    def finish(self, written: int) -> None:
        if self.writer is None:  # no rows: the schema alone
            k, pick, kept = self.output.piles, self.output.pick, None
            if pick is not None:  # of the types they would have had: text but the piles
                kept = [
                    np.array([], dtype=np.int64 if j in pick else object)
                    for j in range(len(self.output.columns))
                ]
            self.write(np.empty((0, k), np.int64), np.empty((0, 1 + k), np.int64), kept, None, 0)
        self._flush_rows(last=True)
        self.writer.close()

    def abort(self) -> None:
        # pyarrow's writer, left open, would finish the file from its
        # finalizer, into the closed stream, and print that failure on stderr:
        # closed here, into the file about to be dropped (a failure, from a full
        # disk say, is left unsaid: the run already has its error)
        if self.writer is not None:
            with contextlib.suppress(Exception):
                self.writer.close()
            self.writer.is_open = False  # a ParquetWriter whose close failed
            self.writer = None
