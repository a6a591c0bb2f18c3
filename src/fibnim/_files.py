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
import csv
import errno
import functools
import importlib.util
import io
import itertools
import json
import math
import os
import re
import secrets
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, BinaryIO, TypeVar, cast, overload

import numpy as np
from numpy.typing import NDArray

from fibnim import _backend, _delimited, _stop
from fibnim._version import __version__

INT64_MAX = 2**63 - 1
KINDS = (".npy", ".csv", ".tsv", ".parquet")


class DataError(Exception):
    """Bad data in an input file (exit status 1)."""


class UsageError(Exception):
    """A bad command line: a missing or unknown file, an output in the way (exit status 2).
    `errno`, where one fits, is the OSError that the Python API raises instead."""

    def __init__(self, text: str, code: int | None = None) -> None:
        super().__init__(text)
        self.errno = code

    def as_os_error(self, where: str, path: str) -> OSError:
        """This refusal as the Python API raises it (FileNotFoundError, ...)."""
        text = str(self).removeprefix(f"{path}: ")  # the OSError names the path itself
        return OSError(self.errno or errno.EINVAL, f"{where}: {text}", path)


def output_is_stream(
    path: str, force: bool, inputs: tuple[str | None, ...] = (), option: str = ""
) -> bool:
    """The one rule for what an output may be, checked before any work (every
    command that writes, and fibnim.coding.write, come here): True where it is
    written as a stream (-, a FIFO, a character device such as /dev/null, an
    open descriptor: /dev/stdout, /dev/fd/N, /proc/self/fd/N or a link to one
    of them), False where a new regular file takes its name at the end
    (AtomicFile; through a link, the file it leads to).

    Refused (UsageError, naming the user's path): an input under any name (the
    same device and inode: a symbolic or a hard link); a link that leads
    nowhere; a directory, a socket or a block device (--force replaces only
    regular files); a regular file without --force; a directory that is
    missing or not writable."""
    label = f"{option} {path}" if option else path
    if path == "-":
        if sys.stdout is None:
            raise UsageError(f"{label}: standard output is closed")
        return True
    if _descriptor(path):
        return True  # written through, in order, as a shell's > writes it
    for source in inputs:
        if source not in (None, "-") and _same_file(source, path):
            raise UsageError(
                f"{label}: is the input file itself (its name, a link to it or another "
                "name for it); fibnim never writes over its input, even with --force"
            )
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
        if os.path.islink(path):
            raise UsageError(
                f"{label}: is a link to {os.readlink(path)}, which does not exist; name the "
                "file itself",
                errno.ENOENT,
            ) from None
    except OSError as error:
        raise UsageError(f"{label}: {error.strerror}") from None
    if mode is not None:
        if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
            return True  # nothing is replaced: written in order, as a shell's > writes
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
            raise UsageError(
                f"{label}: is {kind}; fibnim writes a file there only in place of a regular "
                "file (--force replaces nothing else)",
                errno.EISDIR if stat.S_ISDIR(mode) else errno.EEXIST,
            )
        if not force:
            raise UsageError(f"{label}: exists; --force overwrites it", errno.EEXIST)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"{label}: no directory {directory}", errno.ENOENT)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(
            f"{label}: the directory {directory} is not writable (permission denied)",
            errno.EACCES,
        )
    return False


_DESCRIPTOR = re.compile(r"/(?:proc/(?:self|thread-self|[0-9]+)|dev)/fd/[0-9]+")


def _descriptor(path: str) -> bool:
    """Whether path is an open descriptor's name (/dev/fd/1, /proc/self/fd/1),
    or a chain of links leads to one (/dev/stdout)."""
    here = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on a chain of links
        if _DESCRIPTOR.fullmatch(here):
            return True
        if not os.path.islink(here):
            return False
        here = os.path.normpath(os.path.join(os.path.dirname(here), os.readlink(here)))
    return False


def _repeated(names: Sequence[str]) -> str | None:
    """The first name that names two columns (None: each names one)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def _same_file(source: str, target: str) -> bool:
    """Whether target is source under any name (the same device and inode)."""
    try:
        return os.path.samefile(source, target)
    except OSError:  # one of them does not exist
        return False


def open_stream(path: str) -> IO[bytes]:
    """An output that output_is_stream took as a stream, open for writing in order."""
    if path == "-":
        assert sys.stdout is not None
        return sys.stdout.buffer
    return open(path, "wb")


def kind_of(path: str) -> str:
    """The format of a path by its suffix; "-", and a descriptor named without
    one (/dev/stdout), is CSV."""
    if path == "-":
        return ".csv"
    suffix = Path(path).suffix.lower()
    if not suffix and _descriptor(path):
        return ".csv"
    if suffix not in KINDS:
        raise UsageError(
            f"{path}: unknown format {suffix or '(no suffix)'}; use {', '.join(KINDS)}"
        )
    return suffix


def missing_package(error: ImportError, package: str, need: str, extra: str) -> Exception:
    """The error of an optional package that did not import: "needs it" only where
    it is not installed; where it is, why it did not load (out of memory, say)."""
    if importlib.util.find_spec(package) is None:
        return UsageError(f"{need} {package}: pip install 'fibnim[{extra}]'")
    if _stop.out_of_memory(error):
        return MemoryError(f"{package} did not load: {error}")
    return UsageError(f"{package} is installed but did not load ({error})")


def _parquet() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as error:
        raise missing_package(error, "pyarrow", "parquet files need", "arrow") from None
    return pa, pq


# --- sources ---------------------------------------------------------------------------


# The input's columns as the output repeats them, where --columns chose some of
# them as piles: one array per column (numpy or Arrow), in the input's order.
Kept = list[Any] | _delimited.Records | None
Chunk = tuple[int, NDArray[np.int64], Kept]


class Source:
    """Rows of positions: `columns` (the input's column names), `pick` (where
    --columns chose the piles among them; None: every column is a pile), `rows`
    (None if unknown until read), and `chunks(size)` giving, in order, (first
    row, the piles as an int64 array (m, k), the input's columns as they are
    (`Kept`; None without `pick`))."""

    name: str
    columns: Sequence[str]
    rows: int | None = None
    pick: list[int] | None = None
    named = True  # whether the columns have names of the input's own (a header)

    @property
    def piles(self) -> Sequence[str]:
        """The names of the pile columns."""
        return self.columns if self.pick is None else [self.columns[j] for j in self.pick]

    def choose(self, spec: str) -> None:
        """--columns spec: the pile columns, by name or by 0-based index."""
        self.pick = pile_columns(self.columns, spec, self.name, self.named)

    def check(self) -> None:
        """Refuse, once the piles are chosen, what cannot be piles (before any row is read)."""

    def watch(self, wait: Callable[[Any], None]) -> None:
        """`wait(file)` runs before each read of file that may wait (on a pipe,
        stdin): it returns once there are bytes, and raises a signal that came."""

    def chunks(self, size: int) -> Iterator[Chunk]:
        raise NotImplementedError

    def close(self) -> None:
        """Close the file, if the source holds one open."""


class PileNames(Sequence[str]):
    """pile_1 .. pile_k, the columns of an input without names of its own,
    each made when it is asked for: a width read from a file's header (a
    .npy of shape (0, 20000000), say) costs a number, not k strings."""

    def __init__(self, k: int) -> None:
        self.k = k

    def __len__(self) -> int:
        return self.k

    @overload
    def __getitem__(self, j: int) -> str: ...
    @overload
    def __getitem__(self, j: slice) -> list[str]: ...
    def __getitem__(self, j: int | slice) -> str | list[str]:
        if isinstance(j, slice):
            return [f"pile_{i + 1}" for i in range(*j.indices(self.k))]
        if not -self.k <= j < self.k:
            raise IndexError(j)
        return f"pile_{j % self.k + 1}"

    def index(self, name: Any, start: int = 0, stop: int | None = None) -> int:
        match = re.fullmatch(r"pile_([1-9][0-9]*)", name) if isinstance(name, str) else None
        j = int(match[1]) - 1 if match else -1
        if not max(start, 0) <= j < min(self.k, self.k if stop is None else stop):
            raise ValueError(f"{name!r} is not a column")
        return j

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PileNames):
            return self.k == other.k
        return isinstance(other, (list, tuple)) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PileNames({self.k})"

    def __contains__(self, name: object) -> bool:
        try:
            self.index(name)
        except ValueError:
            return False
        return True


def pile_columns(
    names: Sequence[str], spec: str, where: str, named: bool = True, option: str = "--columns"
) -> list[int]:
    """Where the piles are among an input's columns, from --columns: a
    comma-separated list of column names, or of 0-based column indices (the only
    choice where the columns have no names of their own: a .npy, a CSV without
    a header), or '*' for every column. UsageError, listing the columns, for
    one that is not there (its message begins with `option`, the one that
    named it)."""
    if spec.strip() == "*":  # every column, said outright
        return list(range(len(names)))
    items = [item.strip() for item in spec.split(",")]
    listing = f"its columns: {', '.join(names)}" if named else f"it has {len(names)} columns"
    if not all(items):
        raise UsageError(f"{option} {spec!r}: an empty column name")
    if all(_delimited.is_integer(item) for item in items) and not (
        named and set(items) <= set(names)
    ):
        pick = [int(item) for item in items]
        for j in pick:
            if not 0 <= j < len(names):
                raise UsageError(
                    f"{option}: {where} has no column {j} (counted from 0); {listing}"
                )
    elif not named:
        raise UsageError(
            f"{option} {spec!r}: {where} has no column names; give indices (counted from 0); "
            f"{listing}"
        )
    else:
        for item in items:
            if item not in names:
                raise UsageError(f"{option}: {where} has no column {item!r}; {listing}")
            if names.count(item) > 1:
                places = ", ".join(str(j) for j, name in enumerate(names) if name == item)
                raise UsageError(
                    f"{option}: {where} has {names.count(item)} columns named {item!r} "
                    f"(columns {places}, counted from 0); rename them, or give indices"
                )
        pick = [names.index(item) for item in items]
    if len(set(pick)) < len(pick):
        raise UsageError(f"{option} {spec!r}: a column is named twice")
    return pick


def checked(
    name: str,
    block: NDArray[Any] | list[NDArray[Any]],
    first: int,
    unit: str,
    where: list[int] | None = None,
    names: Sequence[str] | None = None,
) -> NDArray[np.int64]:
    """block (an integer array (m, k), or its k columns, each of its own integer
    type) as int64, exactly, refusing negative values and values above int64
    with their true value, row and column (both counted from 0, the row from the
    first data row; `where`: the input's column of each, 0-based, whose name
    from `names` is given too). Columns are
    never stacked before the check: numpy stacks uint64 beside int64 as float64,
    which rounds above 2**53."""
    columns = list(block.T) if isinstance(block, np.ndarray) else block
    place = [
        f"{j} ({names[j]!r})" if names is not None else str(j)
        for j in (where or range(len(columns)))
    ]
    for column, values in enumerate(columns):
        if values.dtype.kind == "u" and values.size and values.max() > INT64_MAX:
            row = int(np.argmax(values > INT64_MAX))
            raise DataError(
                f"{name}: {unit} {first + row}, column {place[column]}: "
                f"{values[row]} is too large for int64"
            )
    if isinstance(block, np.ndarray):
        block = block.astype(np.int64, copy=False)
    else:
        block = np.empty((len(columns[0]) if columns else 0, len(columns)), dtype=np.int64)
        for column, values in enumerate(columns):
            block[:, column] = values
    if block.size and block.min() < 0:
        row, column = np.argwhere(block < 0)[0]
        raise DataError(
            f"{name}: {unit} {first + row}, column {place[column]}: "
            f"{block[row, column]} is negative"
        )
    return block


def read_npy_header(file: BinaryIO) -> tuple[tuple[int, ...], bool, np.dtype[Any]]:
    """(shape, Fortran order, dtype) of the .npy whose header file starts with,
    read in order, up to its data (a pipe works); ValueError if it is none, or
    if the shape it states is more than the file's bytes hold (a regular file:
    checked before anything is made from it)."""
    try:
        version = np.lib.format.read_magic(file)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(file)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(file)
    except ValueError as error:
        raise ValueError(f"not a .npy file ({error})") from None
    if any(size < 0 for size in shape):
        raise ValueError(f"its .npy header is damaged: shape {shape} has a negative size")
    need = math.prod(shape) * dtype.itemsize
    left = bytes_left(file)  # None: a stream, whose blocks are checked as they come
    if left is not None and need > left:
        raise ValueError(
            f"its .npy header is damaged or the file cut short: shape {shape} of {dtype} "
            f"needs {need:,} bytes of data, and the file holds {left:,} after its header"
        )
    return shape, fortran, dtype


def bytes_left(file: BinaryIO) -> int | None:
    """The bytes after file's position, where it is a regular file or a BytesIO
    (None: a stream, whose size is not known before its end)."""
    try:
        status = os.fstat(file.fileno())
        if not stat.S_ISREG(status.st_mode):
            return None
        return max(status.st_size - file.tell(), 0)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        if isinstance(file, io.BytesIO):
            return len(file.getbuffer()) - file.tell()
        return None


class NpySource(Source):
    """A .npy file of integers, shape (N, k) or (N,), in C or Fortran order, read
    a window of rows at a time (`window`), never loaded whole."""

    def __init__(self, path: str) -> None:
        self.name = path
        # what window() opens: absolute, for tasks that run in another
        # directory (a dask worker's), each handed this source, header read once
        self.path = os.path.abspath(path)
        try:
            with open(path, "rb") as f:
                shape, fortran, dtype = read_npy_header(f)
                self.offset = f.tell()
        except FileNotFoundError:
            raise UsageError(f"{path}: no such file") from None
        except OSError as error:  # no permission, a directory, an I/O error
            raise DataError(f"{path}: cannot be read ({error.strerror or error})") from None
        except ValueError as error:
            raise DataError(f"{path}: {error}") from None
        if dtype.kind not in "iu" or dtype.hasobject:
            raise DataError(f"{path}: holds {dtype}, not integers")
        if len(shape) not in (1, 2):
            raise DataError(f"{path}: an array of shape {shape}; positions are rows (N, k)")
        self.dtype = dtype
        self.fortran = fortran and len(shape) == 2
        self.rows = shape[0]
        self.width = shape[1] if len(shape) == 2 else 1
        self.columns = PileNames(self.width)
        self.named = False

    def window(
        self, start: int, stop: int, buffer: NDArray[np.uint8] | None = None
    ) -> NDArray[Any]:
        """Rows start..stop as they are in the file (its dtype; Fortran order
        for a Fortran-ordered file), read into the start of buffer (bytes the
        caller reuses) or into a new array.

        Read, not memory-mapped: a file that shrinks while it is read is a
        DataError naming it and the row, where a map would die of SIGBUS."""
        assert self.rows is not None
        size, count = self.dtype.itemsize, max(stop - start, 0)
        nbytes = count * self.width * size
        if buffer is None or buffer.size < nbytes:
            buffer = np.empty(nbytes, dtype=np.uint8)
        raw = buffer[:nbytes]
        if self.fortran:  # column j of the rows is N elements after column j - 1
            runs = [
                (self.offset + (j * self.rows + start) * size, count * size)
                for j in range(self.width)
            ]
        else:
            runs = [(self.offset + start * self.width * size, nbytes)]
        with open(self.path, "rb", buffering=0) as f:
            into = raw.data
            for offset, length in runs:
                part, into = into[:length], into[length:]
                f.seek(offset)
                while part:
                    got = f.readinto(part)
                    if not got:
                        raise DataError(self._short(f.tell()))
                    part = part[got:]
        shape = (count, self.width)
        return raw.view(self.dtype).reshape(shape, order="F" if self.fortran else "C")

    def _short(self, end: int) -> str:
        assert self.rows is not None
        element = (end - self.offset) // self.dtype.itemsize
        row = element % self.rows if self.fortran else element // self.width
        return (
            f"{self.name}: ends at row {row} of the {self.rows} its header gives "
            f"({end} bytes; did it change while fibnim read it?)"
        )

    def read(self, start: int, stop: int) -> Chunk:
        """Rows start..stop: their piles as a checked int64 array of their own,
        and their columns (`Kept`)."""
        rows = self.window(start, stop)
        if self.pick is None:
            return start, checked(self.name, rows, start, "row"), None
        piles = checked(self.name, rows[:, self.pick], start, "row", self.pick)
        return start, piles, list(rows.T)

    def chunks(self, size: int) -> Iterator[Chunk]:
        assert self.rows is not None
        for start in range(0, self.rows, size):
            yield self.read(start, min(start + size, self.rows))


class TextSource(Source):
    """CSV or TSV, streamed (see fibnim._delimited: one reader, by pyarrow's
    parser where it may be used, else by fibnim's own, alike in rows and
    errors), from a path or from stdin ("-"). The columns that are not
    piles are kept as their text."""

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
                self.reader = _delimited.Reader(self.file, delimiter, header, _has_arrow())
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
        except _delimited.TextError as error:
            raise DataError(f"{self.name}:{error.line}: {error}") from None

    def chunks(self, size: int) -> Iterator[Chunk]:
        for first, blocks in self.parts(size):
            yield self.chunk(first, blocks)

    def parts(self, size: int) -> Iterator[tuple[int, list[tuple[_delimited.Block, int]]]]:
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

    def chunk(self, first: int, blocks: list[tuple[_delimited.Block, int]]) -> Chunk:
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

    def _values(self, batch: _delimited.Batch) -> tuple[NDArray[np.int64], Any]:
        """A batch's piles as values, and its other columns' text (--columns),
        or its rows' (`records`)."""
        names = self.columns if self.named else None
        if self.records:
            return _delimited.piles(batch, self.pick or range(self.width), names), batch.records()
        if self.pick is None:
            return _delimited.piles(batch, range(self.width), names), []
        piles = set(self.pick)
        texts = [None if j in piles else batch.text(j) for j in range(self.width)]
        return _delimited.piles(batch, self.pick, names), texts

    def _chunk(self, first: int, piles: list[NDArray[np.int64]], kept: list[Any]) -> Chunk:
        block = piles[0] if len(piles) == 1 else np.concatenate(piles)
        if self.records:
            return first, block, _delimited.Records.joined(kept)
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


def _integers(column: Any) -> NDArray[Any]:
    """An integer Arrow array without nulls as a numpy view of its buffer (its own
    to_numpy() loads pandas first, where pandas is installed)."""
    import pyarrow as pa

    kind = "i" if pa.types.is_signed_integer(column.type) else "u"
    dtype = np.dtype(f"<{kind}{column.type.bit_width // 8}")
    data = column.buffers()[1]
    return np.frombuffer(
        data, dtype=dtype, count=len(column), offset=column.offset * dtype.itemsize
    )


def _int64_array(values: NDArray[Any], valid: NDArray[np.bool_] | None = None) -> Any:
    """values as an Arrow int64 array, null where `valid` is False."""
    import pyarrow as pa

    data = pa.py_buffer(np.ascontiguousarray(values, dtype=np.int64))
    if valid is None or valid.all():
        return pa.Array.from_buffers(pa.int64(), len(values), [None, data], null_count=0)
    bits = pa.py_buffer(np.packbits(valid, bitorder="little"))
    nulls = len(values) - int(np.count_nonzero(valid))
    return pa.Array.from_buffers(pa.int64(), len(values), [bits, data], null_count=nulls)


def _arrow_column(column: Any) -> Any:
    """A column of the input as the output repeats it: an Arrow array as it is,
    a numpy array of integers or of text (the fields of a CSV line) as one."""
    import pyarrow as pa

    if isinstance(column, pa.Array):
        return column
    return pa.array(column, type=pa.string() if column.dtype == object else None)


class ParquetSource(Source):
    """A parquet file whose columns are all integers, read a row group batch at a time."""

    def __init__(self, path: str) -> None:
        _, pq = _parquet()
        self.name = path
        try:
            # not pre-buffered: whole column chunks read ahead held 120 MB
            self.file = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
        except FileNotFoundError:
            raise UsageError(f"{path}: no such file") from None
        except Exception as error:  # pyarrow's errors have no common base worth naming
            raise DataError(f"{path}: not a parquet file ({error})") from None
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
                columns.append(_integers(column))
            piles = checked(self.name, columns, first, "row", pick, self.columns)
            yield first, piles, None if self.pick is None else batch.columns
            first += batch.num_rows

    def _batches(self, size: int) -> Iterator[Any]:
        """The file's batches; a damaged file a DataError naming it, on one line
        (pyarrow's own errors name no file, some on two lines)."""
        pa, _ = _parquet()
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
                    f"{self.name}: damaged, not read as parquet ({' '.join(str(error).split())})"
                ) from None
            yield batch


def _integer_type_ids() -> set[int]:
    pa, _ = _parquet()
    types = [pa.int8(), pa.int16(), pa.int32(), pa.int64()]
    types += [pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]
    return {t.id for t in types}


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


def hold_arrow(threads: int, *paths: str | None) -> None:
    """Before a run whose files pyarrow may read or write: its thread pools held
    to the run's threads (its I/O pool has 8), and under an address-space limit
    (ulimit -v, as clusters set) its allocations left to the C library. Its
    default allocator, mimalloc, reserves 1 GiB of address space at its first
    allocation: up to the limit, which then left no room to start a worker
    thread for a 3-row CSV, where an .npy of 10**7 rows ran."""
    if all(path is None or kind_of(path) == ".npy" for path in paths):
        return
    limit = _stop.address_space_limit()
    if limit is not None and limit < ARROW_FLOOR_MB and _has_arrow():
        parquet = [path for path in paths if path and kind_of(path) == ".parquet"]
        if parquet:
            raise UsageError(
                f"{parquet[0]}: parquet under an address-space limit of {limit:,} MB "
                f"(ulimit -v): pyarrow needs {ARROW_FLOOR_MB} MB or more, below which it may "
                "abort the process when an allocation fails in one of its threads; raise the "
                "limit, or write .npy or CSV"
            )
        global _arrow_held_off
        _arrow_held_off = True  # CSV and TSV by fibnim's own reader and writer
        return
    try:
        import pyarrow as pa
    except ImportError:
        return
    # the run's own handlers see every signal: pyarrow's, set for the time of
    # each read_csv, took a SIGINT or SIGTERM that came then and could lose it
    # (a run read on, its signal unseen)
    pa.enable_signal_handlers(False)
    pa.set_cpu_count(max(threads, 1))
    pa.set_io_thread_count(max(threads, 1))
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return
    if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY:
        pa.set_memory_pool(pa.system_memory_pool())
        _few_arenas()
        # Arrow starts its pool's threads when it first needs them, and one it
        # cannot start then (the limit reached mid-run) ends the process
        # (std::terminate, SIGABRT): started here, while there is room, and
        # where one fails, that is a clean error before any work
        import pyarrow.csv as pacsv

        try:
            pacsv.read_csv(io.BytesIO(b"a\n1\n"), pacsv.ReadOptions(use_threads=True))
        except pa.ArrowException as error:
            raise MemoryError(f"pyarrow could not start its threads ({error})") from None


def _few_arenas() -> None:
    """Under an address-space limit, glibc's malloc keeps to two arenas: each
    thread's own arena reserves 64 MB of address space, which left too little
    for the threads themselves (no effect where the C library is another)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.mallopt(-8, 2)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


#: The least address space (ulimit -v) that pyarrow's paths are given, in MB.
#: Below about 350 MB, 3 runs of 400 (CSV to parquet of 10**6 rows, 2 to 8
#: threads) died by SIGABRT inside pyarrow (a thread it could not start, an
#: allocation under ValueOrDie); from 448 MB to 700 MB, 90 runs ended cleanly.
ARROW_FLOOR_MB = 512

_arrow_held_off = False  # set by hold_arrow under a low limit


def _has_arrow() -> bool:
    """Whether pyarrow is there and may be used (FIBNIM_NO_ARROW=1 says to act as
    if not: for tests; `hold_arrow` under a low address-space limit too)."""
    if _arrow_held_off or os.environ.get("FIBNIM_NO_ARROW", "") not in ("", "0"):
        return False
    try:
        import pyarrow.csv  # noqa: F401
    except ImportError:
        return False
    return True


# --- sinks -----------------------------------------------------------------------------


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
    """Results written in row order, to a file that appears only on `commit()`.

    .npy: int64 (N, 1 + k), column 0 is 1 for P and 0 for N, then the target
    position (-1 where there is none). CSV/TSV/parquet: the input columns, then
    `is_p` (parquet: a boolean; CSV/TSV: P or N), then `move_1` .. `move_k`
    (parquet: null, CSV/TSV: an empty cell, where there is none). `columns`
    are the input's columns, `pick` where the piles are among them (None: all
    of them are piles). `text_delimiter`: the input's, where it is CSV or TSV.
    Into text of the same delimiter its rows go on as they came (`records`),
    each with its answers after it; into parquet its other columns, which come
    as text, are typed (`_text_type`), from the first chunk's fields.
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
        types: dict[int, Any] | None = None,
    ) -> None:
        self.path = path
        streamed = output_is_stream(path, force, inputs)
        self.kind = kind_of(path)
        self.delimiter = delimiter or ("\t" if self.kind == ".tsv" else ",")
        # a text that pyarrow did not split (a wide one) is not written by it either:
        # its writer's cost grows with the columns as its reader's does
        from_text = text_delimiter is not None
        wide = from_text and len(columns) > _delimited.WIDE
        self.arrow = self.kind in (".csv", ".tsv") and _has_arrow() and not wide
        self.records = self.kind in (".csv", ".tsv") and text_delimiter == self.delimiter
        self.columns = columns
        self.pick = pick
        self.piles = len(columns) if pick is None else len(pick)
        source = self.source = next((name for name in inputs if name), "the input")
        named = self.kind != ".npy" and not isinstance(columns, PileNames)
        if named and (taken := set(columns) & set(self._answer_names())):
            raise UsageError(
                f"{source}: has a column named {sorted(taken)[0]!r}, as one of the answers' "
                f"columns in {path} is; rename it"
            )
        if named and self.kind == ".parquet" and (twice := _repeated(columns)):
            raise UsageError(
                f"{source}: has two columns named {twice!r}, which a parquet file cannot "
                f"hold ({path}); rename one"
            )
        self.rows = rows
        self.written = 0
        if streamed and self.kind == ".npy" and rows is None:
            raise UsageError(
                f"{path}: a .npy of rows not known before the end is written by going back "
                "to its header, which a stream cannot do; write a file, or CSV"
            )
        if self.kind == ".parquet":
            _parquet()
        self.atomic = None if streamed else AtomicFile(path, replace=force)
        self.stream: IO[bytes] = open_stream(path) if self.atomic is None else self.atomic.stream
        self.parquet: Any = None
        # the types of the passed-through text columns in parquet, by column;
        # fixed by the first chunk, since a parquet file has one schema
        self.text_types: dict[int, Any] | None = dict(types or {}) if from_text else None
        self.named_types = set(types or ())  # --types: converted by value, not text
        self.pending: list[Any] = []  # parquet tables not yet written
        self.pending_rows = 0
        # .npy of a known length into a file: the tasks write their rows at
        # their places (`put`), in any order
        self.direct = self.kind == ".npy" and rows is not None and not streamed
        self._start()

    @_naming_output
    def _start(self) -> None:
        k = self.piles
        if self.kind == ".npy":
            self.stream.write(_npy_header(self.rows or 0, 1 + k))
            self.stream.flush()  # the header, before any row is put after it
            if self.direct:
                assert self.rows is not None
                size = NPY_HEADER + self.rows * (1 + k) * 8
                # At its full size (sparse), so that no put extends it: extending
                # writes from two threads ran at half speed. Not posix_fallocate:
                # blocks reserved up front made the run slower still, and a full
                # disk is a clean OSError from a write or the fsync anyway.
                os.ftruncate(self.stream.fileno(), size)
        elif self.kind in (".csv", ".tsv"):
            # quoted only where a name needs it, on both paths; a piece at a
            # time, as a header may name millions of columns
            names, between = iter(self._names()), ""
            while piece := list(itertools.islice(names, 1 << 16)):
                line = io.StringIO()
                csv.writer(line, delimiter=self.delimiter, lineterminator="").writerow(piece)
                self.stream.write((between + line.getvalue()).encode())
                between = self.delimiter
            self.stream.write(b"\n")

    @_naming_output
    def put(self, start: int, result: NDArray[np.int64]) -> None:
        """Write result, rows start.. of a .npy of known length (`direct`), at
        their place: from any thread, in any order. (Through a memory map of
        the output the kernel would fault in every page of it, and ext4 would
        prepare each for writing: in fibnim bench, about a third slower.)"""
        assert self.direct
        width = 1 + self.piles
        data = memoryview(np.ascontiguousarray(result, dtype="<i8").data).cast("B")
        offset = NPY_HEADER + start * width * 8
        while data:  # a large write may be done in parts
            written = os.pwrite(self.stream.fileno(), data, offset)
            data, offset = data[written:], offset + written

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
        if result is None:
            self.written += rows
            return
        if self.kind == ".npy":
            self.stream.write(np.ascontiguousarray(result, dtype="<i8").tobytes())
        elif self.kind == ".parquet":
            table = self._table(result, self._typed(self._inputs(positions, kept)))
            if self.parquet is None:
                _, pq = _parquet()
                # no dictionary: on the integer columns it grew to its page
                # limit and was dropped, costing 40 MB of peak memory and a
                # third of the time on 10**7 rows
                self.parquet = pq.ParquetWriter(self.stream, table.schema, use_dictionary=False)
            # row groups of ROW_GROUP rows whatever the chunks: small ones
            # made writing and reading the file slower
            self.pending.append(table)
            self.pending_rows += len(table)
            if self.pending_rows >= ROW_GROUP:
                self._flush_rows(last=False)
        else:
            self.stream.write(text if text is not None else self.text(positions, result, kept))
        self.written += len(result)

    def _flush_rows(self, last: bool) -> None:
        """Write the pending rows as whole row groups; the last time, all of them."""
        import pyarrow as pa

        table = pa.concat_tables(self.pending) if self.pending else None
        if table is None:
            return
        whole = len(table) if last else len(table) // ROW_GROUP * ROW_GROUP
        if whole:
            self.parquet.write_table(table.slice(0, whole), row_group_size=ROW_GROUP)
        rest = table.slice(whole)
        self.pending, self.pending_rows = ([rest] if len(rest) else []), len(rest)

    def text(self, positions: NDArray[Any], result: NDArray[np.int64], kept: Kept) -> Any:
        """The rows of a CSV or TSV as bytes: the input's columns (the piles,
        or every column where --columns chose the piles), then is_p (P or N)
        and the moves (an empty cell where there is none). A field that holds
        the delimiter, a quote or a line break is quoted (RFC 4180), alike on
        both paths. Safe from any thread: classify's tasks make their own."""
        if isinstance(kept, _delimited.Records):
            return _passed_through(kept, result, self.delimiter)
        if self.arrow:
            if kept is not None:
                self._check_flat(kept)
            return _csv_lines(self._table(result, self._inputs(positions, kept)), self.delimiter)
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
        self._check_flat(kept)
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

    def _check_flat(self, kept: list[Any]) -> None:
        """A column that CSV cannot hold (a list, a struct, a map) refused, naming
        it and the input, before any of its rows is written."""
        import pyarrow as pa

        for name, column in zip(self.columns, kept, strict=True):
            kind = getattr(column, "type", None)
            if kind is not None and pa.types.is_nested(kind):
                raise DataError(
                    f"{self.source}: column {name!r} holds {kind}, which {self.path} (CSV or "
                    "TSV) cannot hold; write parquet, or drop the column first"
                )

    def _typed(self, inputs: list[Any]) -> list[Any]:
        """The passed-through columns of a CSV or TSV input as parquet holds them:
        each of the type its first chunk's fields gave it (`_text_type`)."""
        if self.text_types is None or self.pick is None:
            return inputs
        typed = list(inputs)
        for j, column in enumerate(inputs):
            if j not in self.pick:
                if j not in self.text_types:  # the first chunk's, kept (setdefault
                    self.text_types[j] = _text_type(column)  # would type every chunk)
                kind = self.text_types[j]
                typed[j] = _as_type(
                    column, kind, self.source, self.columns[j], self.written,
                    named=j in self.named_types,
                )  # fmt: skip
        return typed

    def _answer_names(self) -> Iterator[str]:
        yield "is_p"
        yield from (f"move_{j + 1}" for j in range(self.piles))

    def _names(self) -> Iterator[str]:
        yield from self.columns
        yield from self._answer_names()

    @staticmethod
    def _inputs(positions: NDArray[Any] | None, kept: Kept) -> list[Any]:
        """The input's columns as Arrow arrays: the piles alone without --columns."""
        if kept is not None:
            return [_arrow_column(c) for c in kept]
        assert positions is not None
        return [_int64_array(positions[:, j]) for j in range(positions.shape[1])]

    def _table(self, result: NDArray[np.int64], inputs: list[Any]) -> Any:
        """The rows as an Arrow table: the input's columns, is_p (a boolean for
        parquet, "P" or "N" for CSV), and the moves as int64 with nulls where
        there is none."""
        import pyarrow as pa

        # Arrays made from their buffers: pa.array() of numpy loads pandas first
        # (where pandas is installed), which a short run would spend its time on.
        m, k = len(result), result.shape[1] - 1
        arrays = list(inputs)
        p = result[:, 0] == 1
        if self.kind == ".parquet":
            bits = pa.py_buffer(np.packbits(p, bitorder="little"))
            arrays.append(pa.Array.from_buffers(pa.bool_(), m, [None, bits], null_count=0))
        else:  # one byte per row, straight from the outcome column
            letters = np.where(p, ord("P"), ord("N")).astype(np.uint8)
            offsets = pa.py_buffer(np.arange(m + 1, dtype=np.int32))
            arrays.append(pa.StringArray.from_buffers(m, offsets, pa.py_buffer(letters)))
        arrays += [_int64_array(result[:, 1 + j], result[:, 1 + j] >= 0) for j in range(k)]
        return pa.Table.from_arrays(arrays, schema=self._schema([a.type for a in arrays]))

    def _schema(self, types: list[Any]) -> Any:
        """The output's columns of these types, with pandas metadata that makes
        the moves nullable integers (Int64) in pandas rather than floats."""
        import pyarrow as pa

        names = list(self._names())
        pandas = {
            "index_columns": [],
            "column_indexes": [],
            "columns": [
                {
                    "name": name,
                    "field_name": name,
                    "pandas_type": "int64",
                    "numpy_type": "Int64",
                    "metadata": None,
                }
                for name in names[len(names) - self.piles :]
            ],
            "creator": {"library": "fibnim", "version": __version__},
            "pandas_version": "2.0.0",
        }
        return pa.schema(
            list(zip(names, types, strict=True)), metadata={"pandas": json.dumps(pandas)}
        )

    @_naming_output
    def commit(self, check: Callable[[], None] = lambda: None) -> None:
        """Finish the file and give it its name; `check` runs just before that
        and may raise to stop it (the file is then dropped)."""
        if self.kind == ".parquet" and self.parquet is None:  # no rows: the schema alone
            k, kept = self.piles, None
            if self.pick is not None:  # of the types they would have had: text but the piles
                kept = [
                    np.array([], dtype=np.int64 if j in self.pick else object)
                    for j in range(len(self.columns))
                ]
            self.write(np.empty((0, k), np.int64), np.empty((0, 1 + k), np.int64), 0, kept)
        if self.parquet is not None:
            self._flush_rows(last=True)
            self.parquet.close()
        if self.rows is not None and self.written != self.rows:
            raise DataError(f"{self.path}: {self.written} rows written, {self.rows} expected")
        if self.kind == ".npy" and self.rows is None:  # now the length is known
            self.stream.flush()
            os.pwrite(self.stream.fileno(), _npy_header(self.written, 1 + self.piles), 0)
        if self.atomic is not None:
            self.atomic.commit(check)
        else:
            self.stream.flush()
            if self.path != "-":
                self.stream.close()

    def abort(self) -> None:
        # pyarrow's writer, left open, would finish the file from its
        # finalizer, into the closed stream, and print that failure on stderr:
        # closed here, into the file about to be dropped (a failure, from a full
        # disk say, is left unsaid: the run already has its error)
        if self.parquet is not None:
            with contextlib.suppress(Exception):
                self.parquet.close()
            self.parquet.is_open = False  # a ParquetWriter whose close failed
            self.parquet = None
        if self.atomic is not None:
            self.atomic.abort()
        elif self.path != "-":
            with contextlib.suppress(OSError):
                self.stream.close()


def _passed_through(
    records: _delimited.Records, result: NDArray[np.int64], delimiter: str
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


def _csv_lines(table: Any, delimiter: str) -> Any:
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
    parts = [_text_bytes(table.column(j)) for j in quoted]
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


def _is_text(kind: Any) -> bool:
    """Whether an Arrow type is laid out as text: offsets and bytes."""
    import pyarrow as pa

    return bool(
        pa.types.is_string(kind) or pa.types.is_large_string(kind)
        or pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
    )  # fmt: skip


def _is_large(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_large_string(kind) or pa.types.is_large_binary(kind))


def _text_bytes(column: Any) -> tuple[NDArray[Any], NDArray[np.uint8]]:
    """A column's fields as text: the bytes of them all, and the m + 1 offsets
    of each field's start (and the last one's end) in them; null as empty."""
    import pyarrow as pa

    text = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    if not _is_text(text.type):
        text = text.cast(pa.large_string())  # a dictionary, a string view, a number
    if text.null_count:
        text = text.fill_null(
            b"" if pa.types.is_binary(text.type) or pa.types.is_large_binary(text.type) else ""
        )
    width = np.int64 if _is_large(text.type) else np.int32
    offsets = np.frombuffer(text.buffers()[1], dtype=width)[text.offset :][: len(text) + 1]
    data = np.frombuffer(text.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    return offsets - offsets[0], data


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

    if _is_text(text.type) and pc.any(pc.equal(pc.binary_length(text), 0)).as_py():
        return ['""']

    if not _is_text(text.type):
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
            width = np.int64 if _is_large(chunk.type) else np.int32
            offsets = np.frombuffer(chunk.buffers()[1], dtype=width)[chunk.offset :]
            data = bytes(memoryview(chunk.buffers()[2])[offsets[0] : offsets[len(chunk)]])
            found.update(c for c in (delimiter, '"', "\r", "\n") if c.encode() in data)
    return sorted(found)


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


def _text_type(column: Any) -> Any:
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


def _as_type(
    column: Any, kind: Any, where: str, name: str, first: int, named: bool = False
) -> Any:
    """A column of CSV fields as `kind`: the type the first chunk gave it, its
    text coming back unchanged (see `_text_type`), or the one --types named
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
NPY_HEADER = 128  # bytes: room for any shape, so a header can be rewritten in place


def _npy_header(rows: int, width: int) -> bytes:
    """The .npy (version 1.0) header of an int64 array (rows, width), NPY_HEADER long."""
    text = f"{{'descr': '<i8', 'fortran_order': False, 'shape': ({rows}, {width}), }}"
    room = NPY_HEADER - 10  # the magic string, the version and the 2-byte length
    magic = b"\x93NUMPY\x01\x00" + room.to_bytes(2, "little")
    return magic + text.ljust(room - 1).encode() + b"\n"


class AtomicFile:
    """A file in the target's directory that takes the target's name on commit.

    The target's name is resolved once, here (through any links: --force
    replaces the file a link leads to, as a shell's > writes it), and its
    directory held open until the commit, which names the file relative to
    it: a link re-pointed during the run cannot redirect the commit. On
    Linux the file is opened with O_TMPFILE: it has no name until commit
    links it, so a run killed by any signal leaves nothing. Elsewhere it is a
    hidden temporary file, removed on abort. Without `replace` the commit is
    a link onto the target's name, which fails if that name appeared
    meanwhile (another run, say): the file found there is left as it is.
    Either way the file gets the mode a new file would get (0666 less the
    umask)."""

    def __init__(self, path: str, replace: bool) -> None:
        self.name = path  # as the user gave it: every error names it, never a temporary
        folder, self.base = os.path.split(os.path.realpath(path))
        self.replace = replace
        self.temporary: str | None = None  # a name in the directory, until commit or abort
        try:
            self.directory = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except FileNotFoundError:
            raise UsageError(f"{path}: no directory {folder}") from None
        try:
            with self.naming():
                try:
                    descriptor = os.open(
                        ".", os.O_TMPFILE | os.O_RDWR, 0o666, dir_fd=self.directory
                    )
                except (AttributeError, OSError, NotImplementedError):
                    descriptor, made = tempfile.mkstemp(
                        dir=folder, prefix=f".{self.base}.", suffix=".part"
                    )
                    self.temporary = os.path.basename(made)
                    os.chmod(descriptor, 0o666 & ~_umask())  # mkstemp's files are 0600
        except BaseException:
            os.close(self.directory)
            raise
        self.stream = io.BufferedWriter(io.FileIO(descriptor, "w"), buffer_size=1 << 20)

    @contextlib.contextmanager
    def naming(self) -> Iterator[None]:
        """OSErrors within name the target as the user gave it (a full disk's
        names no file; a failed rename names the temporary)."""
        try:
            yield
        except OSError as error:
            if error.errno is None:
                raise
            raise type(error)(error.errno, error.strerror, self.name) from None

    def commit(self, check: Callable[[], None]) -> None:
        with self.naming():
            self._commit(check)

    def _commit(self, check: Callable[[], None]) -> None:
        self.stream.flush()
        os.fsync(self.stream.fileno())
        here = self.directory
        if self.temporary is None:
            # an unnamed file (O_TMPFILE) is linked through /proc's link to it,
            # which os.link follows (linkat with AT_SYMLINK_FOLLOW)
            source = f"/proc/self/fd/{self.stream.fileno()}"
            if self.replace:
                named = f".{self.base}.{secrets.token_hex(8)}"
                os.link(source, named, dst_dir_fd=self.directory)
                self.temporary = named
        check()  # the last moment to back out: abort() removes a temporary name
        if self.replace:
            assert self.temporary is not None
            os.replace(self.temporary, self.base, src_dir_fd=here, dst_dir_fd=here)
            self.temporary = None
        else:
            try:
                if self.temporary is None:
                    os.link(source, self.base, dst_dir_fd=self.directory)
                else:
                    os.link(self.temporary, self.base, src_dir_fd=here, dst_dir_fd=here)
            except FileExistsError:
                raise FileExistsError(
                    errno.EEXIST,
                    "appeared while this run wrote it (another run?); it is left as it is "
                    "and this run's output is dropped (--force replaces it)",
                    self.name,
                ) from None
        self.abort()  # the temporary name (if any) goes; the file keeps its new one

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self.stream.close()
        if self.temporary is not None:
            with contextlib.suppress(OSError):
                os.remove(self.temporary, dir_fd=self.directory)
            self.temporary = None
        if self.directory >= 0:
            os.close(self.directory)
            self.directory = -1  # closed once: its number may be another file's next


def _umask() -> int:
    mask = os.umask(0o22)  # the one way to read it is to set it
    os.umask(mask)
    return mask


def figure_format(path: str, force: bool, option: str) -> str:
    """The format a picture at `path` is saved in, from its extension, once it is
    known that matplotlib is there and that `path` may be written (checked
    before a run, so that a long one does not end in a usage error)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError(
            f'{option} needs matplotlib: pip install "fibnim[plot]" (or matplotlib)'
        ) from None
    kind = os.path.splitext(path)[1][1:].lower()
    formats = Figure().canvas.get_supported_filetypes()
    if kind not in formats:
        raise UsageError(
            f"{option} {path}: name a picture file, one of " + ", ".join(f".{f}" for f in formats)
        )
    if path == "-" or output_is_stream(path, force, option=option):
        raise UsageError(f"{option} {path}: a picture goes to a file")
    return kind


def save_figure(figure: Any, path: str, kind: str, replace: bool) -> None:
    """figure saved at path as a whole or not at all (see AtomicFile)."""
    target = AtomicFile(path, replace)
    try:
        figure.savefig(target.stream, format=kind)
        target.commit(lambda: None)
    except BaseException:
        target.abort()
        raise
