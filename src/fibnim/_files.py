"""The doors of `fibnim classify`: `open_source` picks an input's reader by its
format (`fibnim._npy`, `fibnim._delimited` for CSV and TSV, `fibnim._parquet`),
and `Sink`, the one output routine, writes the results in the output's
format, to a file that appears under its name only when the run succeeds
(`fibnim._output`).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence
from typing import IO, Any, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from fibnim._arrow import load_parquet
from fibnim._delimited import TextSource, TextWriter
from fibnim._errors import DataError, UsageError
from fibnim._npy import NpySource, NpyWriter
from fibnim._output import (
    AtomicFile,
    Output,
    answer_names,
    kind_of,
    open_stream,
    output_is_stream,
)
from fibnim._parquet import ParquetSource, ParquetWriter
from fibnim._source import Kept, PileNames, Source, repeated


def open_source(
    path: str,
    header: bool | None = None,
    delimiter: str | None = None,
    columns: str | None = None,
) -> Source:
    """The source of path by its format; `columns`: --columns, the pile columns."""
    source: Source
    kind = kind_of(path)
    if kind == ".npy":
        if path == "-":
            raise UsageError("stdin is read as CSV")
        source = NpySource(path)
    elif kind == ".parquet":
        source = ParquetSource(path)
    else:
        delimiter = delimiter or ("\t" if kind == ".tsv" else ",")
        source = TextSource(path, delimiter, header)
    try:
        if columns is not None:
            source.choose(columns)
        source.check()
    except BaseException:
        source.close()
        raise
    return source


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _naming_output(method: _Method) -> _Method:
    """A Sink method whose OSErrors name the output (a full disk's error names no file)."""

    @functools.wraps(method)
    def named(self: Sink, *arguments: Any) -> Any:
        try:
            return method(self, *arguments)
        except OSError as error:
            if error.filename is None:
                error.filename = self.path
            raise

    return cast(_Method, named)


class Sink:
    """Results written in row order, to a file that appears only on `commit()`:
    the one output routine, whatever the format, whose writer (`NpyWriter`,
    `TextWriter`, `ParquetWriter`) lays the rows out.

    .npy: int64 (N, 1 + k), column 0 is 1 for P and 0 for N, then the target
    position (-1 where there is none). CSV/TSV/parquet: the input columns, then
    `is_p` (parquet: a boolean; CSV/TSV: P or N), then `move_1` .. `move_k`
    (parquet: null, CSV/TSV: an empty cell, where there is none). `columns`
    are the input's columns, `pick` where the piles are among them (None: all
    of them are piles). `text_delimiter`: the input's, where it is CSV or TSV,
    and `text_header` its header's record, as it came.
    Into text of the same delimiter its rows go on as they came (`records`),
    each with its answers after it; into parquet its other columns, which come
    as text, are typed (`text_type`), from the first chunk's fields.
    """

    def __init__(
        self,
        path: str,
        columns: Sequence[str],
        rows: int | None,
        force: bool,
        delimiter: str | None = None,
        pick: list[int] | None = None,
        inputs: tuple[str | None, ...] = (),
        text_delimiter: str | None = None,
        text_header: bytes | None = None,
        types: dict[int, Any] | None = None,
    ) -> None:
        self.path = path
        streamed = output_is_stream(path, force, inputs)
        self.kind = kind_of(path)
        self.rows = rows
        self.written = 0
        source = next((name for name in inputs if name), "the input")
        piles = len(columns) if pick is None else len(pick)
        named = self.kind != ".npy" and not isinstance(columns, PileNames)
        if named and (taken := set(columns) & set(answer_names(piles))):
            raise UsageError(
                f"{source}: has a column named {sorted(taken)[0]!r}, as one of the answers' "
                f"columns in {path} is; rename it"
            )
        if named and self.kind == ".parquet" and (twice := repeated(columns)):
            raise UsageError(
                f"{source}: has two columns named {twice!r}, which a parquet file cannot "
                f"hold ({path}); rename one"
            )
        if streamed and self.kind == ".npy" and rows is None:
            raise UsageError(
                f"{path}: a .npy of rows not known before the end is written by going back "
                "to its header, which a stream cannot do; write a file, or CSV"
            )
        if self.kind == ".parquet":
            load_parquet()
        self.atomic = None if streamed else AtomicFile(path, replace=force)
        self.stream: IO[bytes] = open_stream(path) if self.atomic is None else self.atomic.stream
        output = Output(self.stream, path, source, columns, pick)
        self.writer: NpyWriter | TextWriter | ParquetWriter
        if self.kind == ".npy":
            # of a known length into a file: the tasks put their rows at their places
            self.writer = NpyWriter(output, rows, direct=rows is not None and not streamed)
        elif self.kind == ".parquet":
            self.writer = ParquetWriter(output, types, from_text=text_delimiter is not None)
        else:
            delimiter = delimiter or ("\t" if self.kind == ".tsv" else ",")
            self.writer = TextWriter(output, delimiter, text_delimiter, text_header)
        self._start()

    @property
    def direct(self) -> bool:
        """Whether the tasks `put` their rows at their places themselves."""
        return isinstance(self.writer, NpyWriter) and self.writer.direct

    @property
    def records(self) -> bool:
        """Whether the input's rows go on as their text (`Records`)."""
        return isinstance(self.writer, TextWriter) and self.writer.records

    @_naming_output
    def _start(self) -> None:
        self.writer.start()

    @_naming_output
    def put(self, start: int, result: NDArray[np.int64]) -> None:
        """Write result, rows start.. of a .npy of known length (`direct`), at
        their place: from any thread, in any order."""
        assert isinstance(self.writer, NpyWriter)
        self.writer.put(start, result)

    @_naming_output
    def write(
        self,
        positions: NDArray[Any],
        result: NDArray[np.int64] | None,
        rows: int,
        kept: Kept = None,
        text: Any = None,
    ) -> None:
        """The next `rows` rows: positions (their piles), their result (None:
        `put` wrote them already) and, where --columns chose the piles, the
        input's columns (`Kept`), which the output repeats. CSV or TSV: `text`,
        the rows as `text()` made them (on the chunk's own thread), if made."""
        if result is not None:
            self.writer.write(positions, result, kept, text, self.written)
        self.written += rows if result is None else len(result)

    def text(self, positions: NDArray[Any], result: NDArray[np.int64], kept: Kept) -> Any:
        """The rows of a CSV or TSV as bytes (`TextWriter.text`), from any thread."""
        assert isinstance(self.writer, TextWriter)
        return self.writer.text(positions, result, kept)

    @_naming_output
    def commit(self, check: Callable[[], None] = lambda: None) -> None:
        """Finish the file and give it its name; `check` runs just before that
        and may raise to stop it (the file is then dropped)."""
        if self.rows is not None and self.written != self.rows:
            raise DataError(f"{self.path}: {self.written} rows written, {self.rows} expected")
        self.writer.finish(self.written)
        if self.atomic is not None:
            self.atomic.commit(check)
        else:
            self.stream.flush()
            if self.path != "-":
                self.stream.close()

    def abort(self) -> None:
        self.writer.abort()
        if self.atomic is not None:
            self.atomic.abort()
        elif self.path != "-":
            with contextlib.suppress(OSError):
                self.stream.close()
