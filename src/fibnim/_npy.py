""".npy in and out: the header read and checked once, the rows read through a
window of one chunk at a time (never loaded whole), and the header of an
output written with room to be rewritten in place."""

from __future__ import annotations

import io
import math
import os
import stat
from collections.abc import Iterator
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from fibnim._errors import DataError, UsageError
from fibnim._output import Output
from fibnim._source import Chunk, PileNames, Source, checked


def read_npy_header(file: BinaryIO) -> tuple[tuple[int, ...], bool, np.dtype[Any]]:
    """(shape, Fortran order, dtype) of the .npy whose header file starts with,
    read in order, up to its data (a pipe works); ValueError if it is none, or
    if the shape it states is more or less than the file's bytes hold (a
    regular file: checked before anything is made from it; a stream's end is
    its reader's to check, `trailing`)."""
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
    if left is not None and need < left:
        raise ValueError(trailing(left - need, shape, dtype))
    return shape, fortran, dtype


def trailing(extra: int | None, shape: tuple[int, ...], dtype: np.dtype[Any]) -> str:
    """The words for bytes after a .npy's data (None: some, in a stream)."""
    some = "bytes" if extra is None else f"{extra:,} bytes"
    return (
        f"{some} after the data that its header gives (shape {shape} of {dtype}): a .npy "
        "holds nothing after its array, so its header is damaged or something was appended"
    )


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


NPY_HEADER = 128  # bytes: room for any shape, so a header can be rewritten in place


def npy_header(rows: int, width: int) -> bytes:
    """The .npy (version 1.0) header of an int64 array (rows, width), NPY_HEADER long."""
    text = f"{{'descr': '<i8', 'fortran_order': False, 'shape': ({rows}, {width}), }}"
    room = NPY_HEADER - 10  # the magic string, the version and the 2-byte length
    magic = b"\x93NUMPY\x01\x00" + room.to_bytes(2, "little")
    return magic + text.ljust(room - 1).encode() + b"\n"


class NpyWriter:
    """Results as an int64 .npy (N, 1 + k): column 0 is 1 for P and 0 for N,
    then the target position (-1 where there is none). `direct`: of a known
    length into a file, whose rows the tasks `put` at their places."""

    def __init__(self, output: Output, rows: int | None, direct: bool) -> None:
        self.output, self.rows, self.direct = output, rows, direct
        self.width = 1 + output.piles

    def start(self) -> None:
        stream = self.output.stream
        stream.write(npy_header(self.rows or 0, self.width))
        stream.flush()  # the header, before any row is put after it
        if self.direct:
            assert self.rows is not None
            # At its full size (sparse), so that no put extends it: extending
            # writes from two threads ran at half speed. Not posix_fallocate:
            # blocks reserved up front made the run slower still, and a full
            # disk is a clean OSError from a write or the fsync anyway.
            os.ftruncate(stream.fileno(), NPY_HEADER + self.rows * self.width * 8)

    def put(self, start: int, result: NDArray[np.int64]) -> None:
        """Rows start.. at their place: from any thread, in any order. (Through a
        memory map of the output the kernel would fault in every page of it, and
        ext4 would prepare each for writing: in fibnim bench, about a third
        slower.)"""
        assert self.direct
        data = memoryview(np.ascontiguousarray(result, dtype="<i8").data).cast("B")
        offset = NPY_HEADER + start * self.width * 8
        while data:  # a large write may be done in parts
            written = os.pwrite(self.output.stream.fileno(), data, offset)
            data, offset = data[written:], offset + written

    def write(
        self, positions: Any, result: NDArray[np.int64], kept: Any, text: Any, first: int
    ) -> None:
        self.output.stream.write(np.ascontiguousarray(result, dtype="<i8").tobytes())

    def finish(self, written: int) -> None:
        if self.rows is None:  # now the length is known
            self.output.stream.flush()
            os.pwrite(self.output.stream.fileno(), npy_header(written, self.width), 0)

    def abort(self) -> None:
        pass
