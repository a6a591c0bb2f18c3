"""Positions from files and results to files, a chunk at a time, for `fibnim classify`.

Inputs: .npy (integers, shape (N, k) or (N,); read through a memory map of one
chunk at a time, so never loaded whole), .csv and .tsv (a header line is
optional; streamed), "-" for CSV on stdin, and .parquet when pyarrow is
installed. Outputs: the same families; see `Sink`. An output is written to a
temporary file in its directory and appears under its name only when the run
succeeds; on Linux the temporary file has no name at all until then
(O_TMPFILE), so even a killed run leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import mmap
import os
import secrets
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

INT64_MAX = 2**63 - 1
KINDS = (".npy", ".csv", ".tsv", ".parquet")


class DataError(Exception):
    """Bad data in an input file (exit status 1)."""


class UsageError(Exception):
    """A bad command line: a missing or unknown file, an output in the way (exit status 2)."""


def kind_of(path: str) -> str:
    """The format of a path by its suffix; "-" is CSV."""
    if path == "-":
        return ".csv"
    suffix = Path(path).suffix.lower()
    if suffix not in KINDS:
        raise UsageError(
            f"{path}: unknown format {suffix or '(no suffix)'}; use {', '.join(KINDS)}"
        )
    return suffix


def _parquet() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError("parquet files need pyarrow: pip install 'fibnim[parquet]'") from None
    return pa, pq


# --- sources ---------------------------------------------------------------------------


class Source:
    """Rows of positions: `columns` (their names), `rows` (None if unknown until
    read), and `chunks(size)` giving (first row, int64 array (m, k)) in order."""

    name: str
    columns: list[str]
    rows: int | None = None

    def chunks(self, size: int) -> Iterator[tuple[int, NDArray[np.int64]]]:
        raise NotImplementedError

    def close(self) -> None:
        """Close the file, if the source holds one open."""


def _pile_names(k: int) -> list[str]:
    return [f"pile_{j + 1}" for j in range(k)]


def checked(name: str, block: NDArray[Any], first: int, unit: str) -> NDArray[np.int64]:
    """block as int64, refusing negative values and values above int64 with the
    row (0-based, counted from the first data row) and column."""
    if block.dtype.kind == "u" and block.size and block.max() > INT64_MAX:
        row, column = np.argwhere(block > INT64_MAX)[0]
        raise DataError(
            f"{name}: {unit} {first + row}, column {column + 1}: "
            f"{block[row, column]} is too large for int64"
        )
    block = block.astype(np.int64, copy=False)
    if block.size and block.min() < 0:
        row, column = np.argwhere(block < 0)[0]
        raise DataError(
            f"{name}: {unit} {first + row}, column {column + 1}: {block[row, column]} is negative"
        )
    return block


class NpySource(Source):
    """A .npy file of integers, shape (N, k) or (N,), in C or Fortran order, read
    through memory maps of the rows asked for (`window`), never loaded whole."""

    def __init__(self, path: str) -> None:
        self.name = path
        try:
            with open(path, "rb") as f:
                version = np.lib.format.read_magic(f)
                read_header = (
                    np.lib.format.read_array_header_1_0
                    if version == (1, 0)
                    else np.lib.format.read_array_header_2_0
                )
                shape, fortran, dtype = read_header(f)
                self.offset = f.tell()
        except FileNotFoundError:
            raise UsageError(f"{path}: no such file") from None
        except (ValueError, OSError) as error:
            raise DataError(f"{path}: not a .npy file ({error})") from None
        if dtype.kind not in "iu" or dtype.hasobject:
            raise DataError(f"{path}: holds {dtype}, not integers")
        if len(shape) not in (1, 2):
            raise DataError(f"{path}: an array of shape {shape}; positions are rows (N, k)")
        self.dtype = dtype
        self.fortran = fortran and len(shape) == 2
        self.rows = shape[0]
        self.width = shape[1] if len(shape) == 2 else 1
        self.columns = _pile_names(self.width)

    def window(self, start: int, stop: int) -> NDArray[Any]:
        """Rows start..stop as they are in the file (its dtype; the rows of a
        Fortran-ordered file strided), through a memory map of just the bytes
        they span, which goes when the array does."""
        assert self.rows is not None
        size = self.dtype.itemsize
        if stop <= start:
            return np.empty((0, self.width), dtype=self.dtype)
        if not self.fortran:
            return np.memmap(
                self.name,
                dtype=self.dtype,
                mode="r",
                offset=self.offset + start * self.width * size,
                shape=(stop - start, self.width),
            )
        # column j of the rows is N elements after column j - 1
        span = (self.width - 1) * self.rows + (stop - start)
        flat = np.memmap(
            self.name, dtype=self.dtype, mode="r", offset=self.offset + start * size, shape=(span,)
        )
        return np.lib.stride_tricks.as_strided(
            flat, shape=(stop - start, self.width), strides=(size, self.rows * size), writeable=False
        )

    def read(self, start: int, stop: int) -> NDArray[np.int64]:
        """Rows start..stop as a checked int64 array of their own."""
        return checked(self.name, np.array(self.window(start, stop)), start, "row")

    def chunks(self, size: int) -> Iterator[tuple[int, NDArray[np.int64]]]:
        assert self.rows is not None
        for start in range(0, self.rows, size):
            yield start, self.read(start, min(start + size, self.rows))


class TextSource(Source):
    """CSV or TSV, streamed: a header line if its first field is not an integer."""

    def __init__(self, path: str, delimiter: str) -> None:
        self.name = "<stdin>" if path == "-" else path
        self.delimiter = delimiter
        try:
            self.file: IO[str] = sys.stdin if path == "-" else open(path, newline="")
        except FileNotFoundError:
            raise UsageError(f"{path}: no such file") from None
        self.line = 0  # lines read so far
        first = self._next_line()
        self.pending: list[tuple[int, str]] = []
        if first is None:
            raise DataError(f"{self.name}: is empty (not even a header)")
        fields = [f.strip() for f in first[1].split(delimiter)]
        if _is_integer(fields[0]):
            self.columns = _pile_names(len(fields))
            self.pending = [first]
        else:
            self.columns = fields
        self.width = len(self.columns)

    def _next_line(self) -> tuple[int, str] | None:
        for text in self.file:
            self.line += 1
            text = text.rstrip("\r\n")
            if text.strip():
                return self.line, text
        return None

    def chunks(self, size: int) -> Iterator[tuple[int, NDArray[np.int64]]]:
        first = 0
        while True:
            batch = self.pending + list(
                itertools.islice(iter(self._next_line, None), size - len(self.pending))
            )
            self.pending = []
            if not batch:
                return
            yield first, self._parse(batch)
            first += len(batch)

    def _parse(self, batch: list[tuple[int, str]]) -> NDArray[np.int64]:
        try:  # numpy's C parser; on any trouble, the slow one finds the line
            # Before numpy 2.3, loadtxt truncates "1.5" to 1 for an integer dtype
            # and only warns (DeprecationWarning); as an error, it sends the batch
            # to the slow parser, which names the line, on every numpy version.
            with np.errstate(all="raise"), warnings.catch_warnings():
                warnings.simplefilter("error")
                block = np.loadtxt(
                    [text for _, text in batch],
                    delimiter=self.delimiter,
                    dtype=np.int64,
                    comments=None,
                    ndmin=2,
                )
            if block.shape == (len(batch), self.width) and (block >= 0).all():
                return block
        except (ValueError, OverflowError, FloatingPointError, Warning):
            pass
        return np.array([self._parse_line(number, text) for number, text in batch], dtype=np.int64)

    def _parse_line(self, number: int, text: str) -> list[int]:
        fields = [f.strip() for f in text.split(self.delimiter)]
        where = f"{self.name}:{number}"
        if len(fields) != self.width:
            raise DataError(f"{where}: {len(fields)} columns, expected {self.width}: {text!r}")
        values = []
        for column, field in enumerate(fields, start=1):
            if not _is_integer(field):
                raise DataError(f"{where}: column {column}: {field!r} is not an integer")
            value = int(field)
            if value < 0:
                raise DataError(f"{where}: column {column}: {value} is negative")
            if value > INT64_MAX:
                raise DataError(f"{where}: column {column}: {value} is too large for int64")
            values.append(value)
        return values

    def close(self) -> None:
        if self.file is not sys.stdin:
            self.file.close()


def _is_integer(text: str) -> bool:
    return text.lstrip("+-").isdigit() and text.isascii()


class ParquetSource(Source):
    """A parquet file whose columns are all integers, read a row group batch at a time."""

    def __init__(self, path: str) -> None:
        _, pq = _parquet()
        self.name = path
        try:
            self.file = pq.ParquetFile(path)
        except FileNotFoundError:
            raise UsageError(f"{path}: no such file") from None
        except Exception as error:  # pyarrow's errors have no common base worth naming
            raise DataError(f"{path}: not a parquet file ({error})") from None
        schema = self.file.schema_arrow
        self.columns = list(schema.names)
        for field in schema:
            if field.type.id not in _integer_type_ids():
                raise DataError(f"{path}: column {field.name!r} holds {field.type}, not integers")
        self.rows = self.file.metadata.num_rows
        self.width = len(self.columns)

    def chunks(self, size: int) -> Iterator[tuple[int, NDArray[np.int64]]]:
        first = 0
        for batch in self.file.iter_batches(batch_size=size):
            columns = []
            for name, column in zip(self.columns, batch.columns, strict=True):
                if column.null_count:
                    row = first + int(np.flatnonzero(column.is_null().to_numpy(False))[0])
                    raise DataError(f"{self.name}: row {row}, column {name!r}: no value (null)")
                columns.append(column.to_numpy())
            block = np.stack(columns, axis=-1) if columns else np.empty((batch.num_rows, 0))
            yield first, checked(self.name, block, first, "row")
            first += batch.num_rows


def _integer_type_ids() -> set[int]:
    pa, _ = _parquet()
    types = [pa.int8(), pa.int16(), pa.int32(), pa.int64()]
    types += [pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]
    return {t.id for t in types}


def open_source(path: str) -> Source:
    kind = kind_of(path)
    if kind == ".npy":
        if path == "-":
            raise UsageError("stdin is read as CSV")
        return NpySource(path)
    if kind == ".parquet":
        return ParquetSource(path)
    return TextSource(path, "\t" if kind == ".tsv" else ",")


# --- sinks -----------------------------------------------------------------------------


class Sink:
    """Results written in row order, to a file that appears only on `commit()`.

    .npy: int64 (N, 1 + k), column 0 is 1 for P and 0 for N, then the target
    position (-1 where there is none). CSV/TSV/parquet: the input columns, then
    `outcome` (P or N), then `move_1` .. `move_k` (empty where there is none).
    """

    def __init__(self, path: str, columns: list[str], rows: int | None, force: bool) -> None:
        self.path = path
        self.kind = kind_of(path)
        self.columns = columns
        self.rows = rows
        self.written = 0
        if path != "-" and os.path.exists(path) and not force:
            raise UsageError(f"{path}: exists; --force overwrites it")
        if self.kind == ".parquet":
            _parquet()
        self.atomic = None if path == "-" else _AtomicFile(path)
        self.stream: IO[bytes] = sys.stdout.buffer if self.atomic is None else self.atomic.stream
        self.parquet: Any = None
        # .npy of a known length: the file gets its full size at once and its
        # rows are written through memory maps (`window`), by any thread
        self.mapped = (
            self.kind == ".npy" and rows is not None and hasattr(os, "posix_fallocate")
        )
        self._start()

    def _start(self) -> None:
        k = len(self.columns)
        if self.kind == ".npy":
            self.stream.write(_npy_header(self.rows or 0, 1 + k))
            if self.mapped:
                assert self.rows is not None
                self.stream.flush()
                # blocks reserved now: a full disk is an error here, never a
                # SIGBUS from a memory map later
                os.posix_fallocate(self.stream.fileno(), 0, NPY_HEADER + self.rows * (1 + k) * 8)
        elif self.kind in (".csv", ".tsv"):
            names = [*self.columns, "outcome", *(f"move_{j + 1}" for j in range(k))]
            self.stream.write((self._delimiter().join(names) + "\n").encode())

    def window(self, start: int, stop: int) -> NDArray[np.int64] | None:
        """Rows start..stop of a mapped .npy output, to write results into (the
        map goes when the array does); None for the other kinds."""
        if not self.mapped:
            return None
        width = 1 + len(self.columns)
        if stop <= start:
            return np.empty((0, width), dtype=np.int64)
        first = NPY_HEADER + start * width * 8
        aligned = first - first % mmap.ALLOCATIONGRANULARITY
        view = mmap.mmap(
            self.stream.fileno(),
            first - aligned + (stop - start) * width * 8,
            access=mmap.ACCESS_WRITE,
            offset=aligned,
        )
        flat = np.frombuffer(view, dtype="<i8", count=(stop - start) * width, offset=first - aligned)
        return flat.reshape(stop - start, width)

    def _delimiter(self) -> str:
        return "\t" if self.kind == ".tsv" else ","

    def write(self, positions: NDArray[Any], result: NDArray[np.int64] | None, rows: int) -> None:
        """The next `rows` rows: positions and their result (None: written
        through `window` already)."""
        if result is None:
            self.written += rows
            return
        k = positions.shape[1]
        if self.kind == ".npy":
            self.stream.write(np.ascontiguousarray(result, dtype="<i8").tobytes())
        elif self.kind == ".parquet":
            self._write_parquet(positions, result)
        else:
            delimiter = self._delimiter()
            cells = [positions[:, j].astype(str) for j in range(k)]
            cells.append(np.where(result[:, 0] == 1, "P", "N"))
            for j in range(k):
                target = result[:, 1 + j]
                cells.append(np.where(target >= 0, target.astype(str), ""))
            text = "".join(delimiter.join(row) + "\n" for row in zip(*cells, strict=True))
            self.stream.write(text.encode())
        self.written += len(result)

    def _write_parquet(self, positions: NDArray[np.int64], result: NDArray[np.int64]) -> None:
        pa, pq = _parquet()
        k = positions.shape[1]
        arrays = [pa.array(positions[:, j]) for j in range(k)]
        arrays.append(pa.array(np.where(result[:, 0] == 1, "P", "N")))
        for j in range(k):
            target = result[:, 1 + j]
            arrays.append(pa.array(target, mask=target < 0))
        names = [*self.columns, "outcome", *(f"move_{j + 1}" for j in range(k))]
        table = pa.Table.from_arrays(arrays, names=names)
        if self.parquet is None:
            self.parquet = pq.ParquetWriter(self.stream, table.schema)
        self.parquet.write_table(table)

    def commit(self, check: Callable[[], None] = lambda: None) -> None:
        """Finish the file and give it its name; `check` runs just before that
        and may raise to stop it (the file is then dropped)."""
        if self.kind == ".parquet" and self.parquet is None:  # no rows: the schema alone
            k = len(self.columns)
            self._write_parquet(np.empty((0, k), np.int64), np.empty((0, 1 + k), np.int64))
        if self.parquet is not None:
            self.parquet.close()
        if self.rows is not None and self.written != self.rows:
            raise DataError(f"{self.path}: {self.written} rows written, {self.rows} expected")
        if self.kind == ".npy" and self.rows is None:  # now the length is known
            self.stream.flush()
            os.pwrite(self.stream.fileno(), _npy_header(self.written, 1 + len(self.columns)), 0)
        if self.atomic is not None:
            self.atomic.commit(check)
        else:
            self.stream.flush()

    def abort(self) -> None:
        if self.atomic is not None:
            self.atomic.abort()


NPY_HEADER = 128  # bytes: room for any shape, so a header can be rewritten in place


def _npy_header(rows: int, width: int) -> bytes:
    """The .npy (version 1.0) header of an int64 array (rows, width), NPY_HEADER long."""
    text = f"{{'descr': '<i8', 'fortran_order': False, 'shape': ({rows}, {width}), }}"
    room = NPY_HEADER - 10  # the magic string, the version and the 2-byte length
    return b"\x93NUMPY\x01\x00" + room.to_bytes(2, "little") + text.ljust(room - 1).encode() + b"\n"


class _AtomicFile:
    """A file in the target's directory that takes the target's name on commit.

    On Linux it is opened with O_TMPFILE: it has no name until commit links
    it, so a run killed by any signal leaves nothing. Elsewhere it is a hidden
    temporary file, removed on abort."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        directory = os.path.dirname(self.path)
        if not os.path.isdir(directory):
            raise UsageError(f"{path}: no directory {directory}")
        self.temporary: str | None = None
        try:
            descriptor = os.open(directory, os.O_TMPFILE | os.O_RDWR, 0o666)
        except (AttributeError, OSError):
            descriptor, self.temporary = tempfile.mkstemp(
                dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".part"
            )
        self.stream = io.BufferedWriter(io.FileIO(descriptor, "w"), buffer_size=1 << 20)

    def commit(self, check: Callable[[], None]) -> None:
        self.stream.flush()
        os.fsync(self.stream.fileno())
        if self.temporary is None:
            named = os.path.join(
                os.path.dirname(self.path),
                f".{os.path.basename(self.path)}.{secrets.token_hex(8)}",
            )
            directory = os.open(os.path.dirname(self.path), os.O_RDONLY)
            try:  # a directory descriptor makes os.link use linkat, which follows /proc's link
                os.link(f"/proc/self/fd/{self.stream.fileno()}", named, dst_dir_fd=directory)
            finally:
                os.close(directory)
            self.temporary = named
        check()  # the last moment to back out: abort() removes the temporary name
        self.stream.close()
        os.replace(self.temporary, self.path)

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self.stream.close()
        if self.temporary is not None:
            with contextlib.suppress(OSError):
                os.remove(self.temporary)
