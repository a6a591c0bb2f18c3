"""Fibonacci coding of integer streams (docs/math/coding.rst).

The codeword of an integer n >= 1 is its Zeckendorf digits from F_2 upward,
then a 1: since a Zeckendorf representation never has two adjacent ones, the
codeword ends at the first "11", and codewords can follow one another with no
lengths in between. Small numbers get short codewords (1 -> "11", 2 -> "011",
4 -> "1011"); a uint64 takes at most 93 bits.

`pack` concatenates codewords into bytes, the first bit of the stream the top
bit of byte 0, the last byte padded with zeros; `unpack` reads them back.
`delta=True` codes sorted values (repeats allowed) by their gaps. `write` and
`read` keep a stream in a file of blocks, each with its count, its length and
a CRC-32, so that damage is found and named.

>>> from fibnim import coding
>>> coding.pack([1, 2, 3, 4, 11])   # 11011001 11011001 0110 and 0000 padding
array([217, 217,  96], dtype=uint8)
>>> coding.unpack(coding.pack([1, 2, 3, 4, 11]))
array([ 1,  2,  3,  4, 11], dtype=uint64)
>>> coding.lengths([1, 2, 3, 4, 11])
array([2, 3, 4, 4, 6], dtype=uint8)
>>> coding.unpack(coding.pack([3, 10, 10, 42], delta=True), delta=True)
array([ 3, 10, 10, 42], dtype=uint64)
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, Literal, NamedTuple, overload

import numpy as np
from numpy.typing import NDArray

from fibnim import _backend, _stop
from fibnim._apply import CHUNK, overlap, result_array
from fibnim._checks import NONNEGATIVE, Bound, check_int, integers, refuse
from fibnim._errors import UsageError
from fibnim._npy import bytes_left
from fibnim._output import AtomicFile, output_is_stream

__all__ = [
    "CODEWORD_MAX",
    "DTYPES",
    "Damage",
    "Header",
    "Salvaged",
    "lengths",
    "pack",
    "packed_size",
    "read",
    "read_blocks",
    "read_header",
    "unpack",
    "write",
]

#: The longest codeword, in bits: that of a value from F_93 to 2**64 - 1.
CODEWORD_MAX = 93
UINT64_MAX = 2**64 - 1
_TOO_LARGE = Bound(UINT64_MAX, ValueError, "is above 2**64 - 1, the most a codeword holds here")
_ZERO = Bound(
    1, ValueError, "is below 1: Fibonacci coding starts at 1 (add 1 to code values from 0)"
)
_STOPS = {1: "the stream ends inside a codeword", 2: "a codeword is worth more than 2**64 - 1"}


def _kernels() -> Any:
    return _backend.kernels("coding")


def _array(values: Any, where: str) -> NDArray[Any]:
    """values as a 1-d integer array (object for Python ints past int64/uint64)."""
    array = integers(values, where, "values")
    if isinstance(array, int) or array.ndim != 1:
        raise ValueError(
            f"{where}: values must be a 1-d array or sequence of integers, "
            f"not of shape {np.shape(array)}"
        )
    return array


def _chunk(
    array: NDArray[Any], start: int, where: str, low: Bound, first: int
) -> NDArray[np.uint64]:
    """array[start:start + CHUNK] as contiguous uint64, each value checked
    against low and 2**64 - 1 (a view where it already is uint64); errors name
    the index plus first (where array starts in the caller's values)."""
    part, at = array[start : start + CHUNK], first + start
    if part.dtype == object:
        for i, value in enumerate(part):
            check_int(value, where, "values", low, _TOO_LARGE, index=(at + i,))
        return part.astype(np.uint64)
    if part.dtype.kind == "i" and part.size and part.min() < low.limit:
        i = int(np.argmax(part < low.limit))
        raise refuse(where, "values", (at + i,), int(part[i]), low)
    return np.ascontiguousarray(part, dtype=np.uint64)  # a 0 stops the kernels: _stopped


def _codes(
    array: NDArray[Any], where: str, delta: bool, first: int = 0
) -> Iterator[tuple[int, NDArray[np.uint64]]]:
    """(start, the values to code) chunk by chunk: the values themselves, or
    with delta the first plus 1 and each gap plus 1, every rule checked; errors
    name the index plus first."""
    previous = None
    for start in range(0, len(array), CHUNK):
        _stop.check()
        if not delta:
            yield start, _chunk(array, start, where, _ZERO, first)
            continue
        values = _chunk(array, start, where, NONNEGATIVE, first)
        before = np.concatenate([[values[0] if previous is None else previous], values[:-1]])
        at = first + start
        if (drops := np.flatnonzero(values < before)).size:
            i = int(drops[0])
            raise ValueError(
                f"{where}: values[{at + i}] = {values[i]} is below values[{at + i - 1}] = "
                f"{before[i]}: delta=True takes non-decreasing values (sorted ids)"
            )
        codes = values - before + np.uint64(1)
        if previous is None:
            codes[:1] = values[:1] + np.uint64(1)  # an array: 2**64 wraps to 0, refused below
        if (wraps := np.flatnonzero(codes == 0)).size:
            j = at + int(wraps[0])
            step = f"values[{j}] - values[{j - 1}] + 1" if j > first else f"values[{j}] + 1"
            raise ValueError(
                f"{where}: {step} is 2**64, above 2**64 - 1, the most a codeword holds"
            )
        previous = values[-1]
        yield start, codes


def lengths(values: Any) -> NDArray[np.uint8]:
    """The length in bits of each value's codeword (values from 1 to 2**64 - 1).

    >>> from fibnim import coding
    >>> coding.lengths([1, 2, 12, 2**64 - 1])
    array([ 2,  3,  6, 93], dtype=uint8)
    """
    array = _array(values, "lengths")
    out = np.empty(len(array), dtype=np.uint8)
    kernel = _kernels().lengths
    for start, codes in _codes(array, "lengths", delta=False):
        if (bad := int(kernel(codes, out[start : start + len(codes)]))) >= 0:
            raise _stopped("lengths", codes, bad, start + bad)
    return out


def _bits(array: NDArray[Any], where: str, delta: bool, first: int = 0) -> int:
    """The length in bits of the stream that codes array."""
    total, kernel = np.zeros(1, dtype=np.uint64), _kernels().bits
    for start, codes in _codes(array, where, delta, first):
        if (bad := int(kernel(codes, total))) >= 0:
            raise _stopped(where, codes, bad, first + start + bad)
    return int(total[0])


def packed_size(values: Any, *, delta: bool = False) -> int:
    """The bytes `pack(values, delta=delta)` takes.

    >>> from fibnim import coding
    >>> coding.packed_size([1, 2, 3, 4, 11]), coding.packed_size(range(1, 1001))
    (3, 1680)
    """
    return (_bits(_array(values, "packed_size"), "packed_size", delta) + 7) // 8


def _stopped(where: str, codes: NDArray[np.uint64], bad: int, index: int) -> Exception:
    """Why a kernel stopped at codes[bad], values[index]: a 0 (no codeword),
    or a value that changed since fibnim read it."""
    if codes[bad] == 0:
        return refuse(where, "values", (index,), 0, _ZERO)
    return _changed(where, index)


def _changed(where: str, index: int) -> RuntimeError:
    return RuntimeError(
        f"{where}: values[{index}] was not what fibnim read before: the array changed "
        "while fibnim read it (nothing was written from the changed value)"
    )


def _pack(
    array: NDArray[Any], where: str, delta: bool, first: int = 0
) -> tuple[NDArray[np.uint8], int]:
    """The stream of array's codewords, and its length in bits (errors name
    the index plus first)."""
    total = _bits(array, where, delta, first)
    out = np.zeros((total + 63) // 64 * 8, dtype=np.uint8)
    state = np.array([0, total], dtype=np.uint64)
    kernel = _kernels().pack
    for start, codes in _codes(array, where, delta, first):
        if (bad := int(kernel(codes, out, state))) >= 0:
            raise _stopped(where, codes, bad, first + start + bad)
    if int(state[0]) != total:
        raise _changed(where, first + len(array) - 1)
    return out[: (total + 7) // 8], total


def pack(values: Any, *, delta: bool = False) -> NDArray[np.uint8]:
    """The Fibonacci codewords of values, one after another, as bytes.

    Parameters
    ----------
    values : array_like of int, 1-d
        Integers from 1 to 2**64 - 1 (add 1 to code values from 0); with
        `delta`, non-decreasing integers from 0 (sorted ids, repeats allowed).
    delta : bool
        Code ``values[0] + 1``, then each ``values[i] - values[i - 1] + 1``:
        small gaps of sorted values give short codewords.

    Returns
    -------
    ndarray of uint8
        The stream: the first codeword's first digit is the top bit of byte
        0, and the last byte is padded with zero bits.

    Raises
    ------
    ValueError
        A value below 1 (with `delta`: below 0, or below the one before it),
        or above 2**64 - 1, naming it and its index.
    TypeError
        Values that are not integers.

    Examples
    --------
    >>> from fibnim import coding
    >>> [format(byte, "08b") for byte in coding.pack([1, 11])]   # 11 001011
    ['11001011']
    >>> coding.pack([0])
    Traceback (most recent call last):
    ...
    ValueError: pack: values[0] = 0 is below 1: Fibonacci coding starts at 1 ...
    """
    return _pack(_array(values, "pack"), "pack", delta)[0]


def _data(data: Any, where: str) -> NDArray[np.uint8]:
    """bytes, a bytearray, a memoryview or a 1-d uint8 array as a uint8 array (no copy)."""
    if isinstance(data, np.ndarray):
        if data.dtype != np.uint8 or data.ndim != 1:
            raise TypeError(
                f"{where}: data must be a 1-d uint8 array, not {data.dtype} {data.shape}"
            )
        return np.ascontiguousarray(data)
    if isinstance(data, (bytes, bytearray, memoryview)):
        return np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    raise TypeError(f"{where}: data must be bytes, a bytearray, a memoryview or a uint8 array")


def check_count(count: int, bits: int, what: str, holder: str, why: str = "") -> None:
    """Refuse a count of values that bits cannot hold (a codeword takes 2 bits at
    least), before room is made for them: the one check for every count that
    a caller or a file states."""
    if count > bits // 2:
        raise ValueError(
            f"{what} = {count:,} is more values than {holder}'s {bits:,} bits can hold "
            f"(a codeword takes 2 bits at least){why}"
        )


def _where(bit: int) -> str:
    return f"bit offset {bit} (byte {bit // 8}, bit {bit % 8})"


def _padding(data: NDArray[np.uint8], start: int, bits: int) -> bool:
    """Whether the stream's bits from start on are padding: fewer than 8, all zero."""
    if bits - start >= 8:
        return False
    return start >= bits or not data[start // 8] & (0xFF >> (start % 8))


def _decode(
    data: NDArray[np.uint8],
    bits: int,
    count: int | None,
    where: str,
    delta: bool,
    out: NDArray[np.uint64] | None = None,
) -> NDArray[np.uint64]:
    """The values of the stream's codewords, count of them, or every one (then
    what follows the last is at most 7 zero bits); with delta, their running
    sums less one each. Written into one array (out, as many as it holds,
    where given), a chunk at a time."""
    kernel = _kernels().unpack
    whole = count is None
    if out is not None:
        count = len(out)
    elif count is None:  # sized by counting the codewords, faster than decoding them
        count = int(_kernels().count(data, bits))
    result = np.empty(count, dtype=np.uint64) if out is None else out
    if out is not None and overlap(out, data):
        data = data.copy()  # the stream is read after out's first values are written
    # a strided out is written a chunk at a time from one that is not
    scratch = None if result.flags.c_contiguous else np.empty(min(count, CHUNK), np.uint64)
    asked = f"out holds {count} values" if out is not None and whole else f"count = {count}"
    state = np.array([0, bits, 0], dtype=np.uint64)
    total = np.uint64(0)  # with delta: the sum so far
    for start in range(0, count, CHUNK):
        _stop.check()
        part, first_bit = result[start : start + CHUNK], int(state[0])
        chunk = part if scratch is None else scratch[: len(part)]
        stop = int(kernel(data, chunk, state))
        if int(state[2]) < len(chunk):
            at = int(state[0])
            if stop == 0 or (stop == 1 and _padding(data, at, bits)):
                raise ValueError(
                    f"{where}: {asked}, but the stream holds {start + int(state[2])} "
                    f"codewords (it ends at {_where(at)})"
                )
            raise ValueError(f"{where}: at {_where(at)}: {_STOPS[stop]}")
        if delta:
            total = _add_up(chunk, total, data, bits, first_bit, where)
        if scratch is not None:
            part[...] = chunk
    end = int(state[0])
    if whole and end < bits and not _padding(data, end, bits):
        if out is not None:  # out may be shorter than the stream
            state[2] = 1
            kernel(data, np.empty(0, dtype=np.uint64), state)  # one more codeword?
            if int(state[2]) == 1:
                raise ValueError(
                    f"{where}: {asked}, but the stream holds more codewords "
                    f"(the next at {_where(end)})"
                )
        if bits - end > CODEWORD_MAX:  # no "11" in what is left: not a cut, too long
            raise ValueError(f"{where}: at {_where(end)}: {_STOPS[2]}")
        if bits - end >= 8:
            raise ValueError(f"{where}: at {_where(end)}: {_STOPS[1]} (cut short?)")
        raise ValueError(
            f"{where}: at {_where(end)}: the last byte's padding bits are not all zero "
            "(a codeword cut short, or data after the stream?)"
        )
    return result


def _add_up(
    chunk: NDArray[np.uint64],
    total: np.uint64,
    data: NDArray[np.uint8],
    bits: int,
    first_bit: int,
    where: str,
) -> np.uint64:
    """chunk (codewords' values, decoded from first_bit on) replaced by the
    running sums of (value - 1) after total; a sum past 2**64 - 1 refused with
    its codeword's bit offset (each step adds less than 2**64, so a sum that
    passes it comes out below the one before)."""
    np.subtract(chunk, np.uint64(1), out=chunk)
    np.cumsum(chunk, out=chunk)
    chunk += total
    below = chunk[1:] < chunk[:-1]
    if chunk[0] < total or below.any():
        wrapped = 0 if chunk[0] < total else int(np.argmax(below)) + 1
        state = np.array([first_bit, bits, wrapped], dtype=np.uint64)
        _kernels().unpack(data, np.empty(0, dtype=np.uint64), state)  # to that codeword
        raise ValueError(f"{where}: at {_where(int(state[0]))}: the delta sum passes 2**64 - 1")
    last: np.uint64 = chunk[-1]
    return last


def unpack(
    data: Any,
    count: int | None = None,
    *,
    delta: bool = False,
    out: NDArray[np.uint64] | None = None,
) -> NDArray[np.uint64]:
    """The values of a stream of Fibonacci codewords (the inverse of `pack`).

    Parameters
    ----------
    data : bytes, bytearray, memoryview or 1-d uint8 array
        The stream, first bit the top bit of byte 0.
    count : int, optional
        How many codewords to decode (what follows them is not read); None:
        every one, and then what follows the last must be fewer than 8 zero
        bits (the padding of `pack`).
    delta : bool
        The stream holds ``values[0] + 1`` and the gaps plus 1, as
        `pack(delta=True)` writes: give back the running sums.
    out : 1-d uint64 array, optional
        Where to put the values (numpy's convention), and returned: its length
        is how many codewords are decoded (count, if given, must be the same;
        if not, the stream must hold that many and no more). Decoding into
        one buffer again and again spares a new array each call. Where an
        error is raised, what out holds is undefined.

    Raises
    ------
    ValueError
        Naming the bit offset: a stream that ends inside a codeword, padding
        that is not zero, a codeword worth more than 2**64 - 1, a count larger
        than the stream holds, a delta sum past 2**64 - 1.

    Examples
    --------
    >>> from fibnim import coding
    >>> coding.unpack(bytes([0b11011001, 0b10110000]))   # 11 011 0011 011 and padding
    array([1, 2, 3, 2], dtype=uint64)
    >>> coding.unpack(bytes([0b11011001, 0b10110000]), count=2)
    array([1, 2], dtype=uint64)
    >>> import numpy as np
    >>> buffer = np.empty(4, dtype=np.uint64)
    >>> coding.unpack(bytes([0b11011001, 0b10110000]), out=buffer) is buffer
    True
    >>> buffer
    array([1, 2, 3, 2], dtype=uint64)
    >>> coding.unpack(bytes([0b11011001]))
    Traceback (most recent call last):
    ...
    ValueError: unpack: at bit offset 5 (byte 0, bit 5): the last byte's padding bits ...
    """
    stream = _data(data, "unpack")
    if count is not None:
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
            raise TypeError(f"unpack: count must be an int or None, not {count!r}")
        count = check_int(int(count), "unpack", "count")
        check_count(count, stream.size * 8, "unpack: count", "data")
    if out is not None:
        if isinstance(out, np.ndarray) and out.ndim != 1:
            raise ValueError(f"unpack: out must be 1-d, not of shape {out.shape}")
        size = count if count is not None else getattr(out, "size", 0)
        check_count(size, stream.size * 8, "unpack: out's size", "data")
        out = result_array((size,), np.uint64, out, "unpack")
    return _decode(stream, stream.size * 8, count, "unpack", delta, out)


# --- files -------------------------------------------------------------------------

MAGIC = b"FIBNIMFC"
# 3: each block names its place, and the file ends in a check of the whole;
# 2: the dtype packed from, in the flags' high byte; 1: uint64 always
VERSION = 3
BLOCK = 1 << 18  # values per block
_HEADER = struct.Struct("<8sHHIQ")  # magic, version, flags, crc32, count
HEADER_SIZE = _HEADER.size
# a block's header: its mark, the CRC-32 of this header (with these 4 bytes
# zero), the CRC-32 of its stream, its count, its length in bits, and the
# index of its first value (its place in the file)
_BLOCK = struct.Struct("<4sIIIQQ")
BLOCK_MARK = b"FNCB"
# the file's end: its count of blocks, the CRC-32 of every block's header
# (after the header's delta and count) and of that count, and its mark
_END = struct.Struct("<QI4s")
END_MARK = b"FNCE"
_BLOCK_2 = struct.Struct("<IIQ")  # versions 1, 2: crc32 (of the rest and the stream), count, bits
#: The dtypes a coded file records (by their place here); others are kept as uint64.
DTYPES = tuple(
    map(np.dtype, ("uint64", "int64", "uint32", "int32", "uint16", "int16", "uint8", "int8"))
)


@dataclass(frozen=True)
class Header:
    """What a coded file's header says: its count of values, whether the gaps
    of sorted values are coded (delta), the dtype it was packed from, and its
    format version (which `read_blocks` takes)."""

    count: int
    delta: bool
    dtype: np.dtype[Any]
    version: int = VERSION


class Damage(NamedTuple):
    """A damaged stretch of a coded file that `read(salvage=True)` stepped
    over: the block it starts at (counted from 0), its bytes (start, end), the
    values lost in it, and the index of the first of them among the file's
    values (both None where damaged block headers of a version 1 or 2 file
    hide them, or for a version 3 file whose check of the whole fails). A
    stretch that lost none holds no value due there: bytes after the last
    value, or a block out of place. A stretch of no bytes is values missing
    there: a block dropped, or the file cut short."""

    block: int
    start: int
    end: int
    lost: int | None
    first: int | None


class Salvaged(NamedTuple):
    """`read(salvage=True)`: the values of every undamaged block, in order,
    and what was stepped over."""

    values: NDArray[Any]
    damaged: list[Damage]


def recorded_dtype(dtype: Any) -> np.dtype[Any]:
    """The dtype a coded file records for values of `dtype`: itself if it is
    one of DTYPES (of any byte order), else uint64 (Python ints, say)."""
    kind = np.dtype(dtype).newbyteorder("=") if np.dtype(dtype).kind in "iu" else None
    return kind if kind in DTYPES else np.dtype(np.uint64)


def header(count: int, delta: bool, dtype: Any = np.uint64) -> bytes:
    """A coded file's header: its magic, version, flags (bit 0: delta; the high
    byte: the dtype's place in DTYPES), CRC-32 (of the header with those 4
    bytes zero) and count of values."""
    flags = int(delta) | DTYPES.index(recorded_dtype(dtype)) << 8
    return _HEADER.pack(MAGIC, VERSION, flags, _header_crc(VERSION, flags, count), count)


def _header_crc(version: int, flags: int, count: int) -> int:
    return zlib.crc32(_HEADER.pack(MAGIC, version, flags, 0, count))


def block(values: NDArray[Any], where: str, delta: bool, first: int = 0) -> bytes:
    """One block of a coded file: its header and its stream, decodable alone
    (with delta, its first value is coded whole), holding the file's values
    from index `first` on; errors name the index plus first."""
    packed, bits = _pack(values, where, delta, first)
    stream = packed.tobytes()
    fields = (zlib.crc32(stream), len(values), bits, first)
    return _BLOCK.pack(BLOCK_MARK, _block_check(fields), *fields) + stream


def _block_check(fields: tuple[int, int, int, int]) -> int:
    return zlib.crc32(_BLOCK.pack(BLOCK_MARK, 0, *fields))


def _block_fields(top: bytes) -> tuple[int, int, int, int] | None:
    """A block header's (CRC-32 of the stream, count, bits, first), where its
    mark and its own CRC-32 match (format version 3)."""
    if len(top) != _BLOCK.size:
        return None
    mark, check, crc, size, bits, first = _BLOCK.unpack(top)
    fields = (crc, size, bits, first)
    return fields if mark == BLOCK_MARK and check == _block_check(fields) else None


def _whole_check(count: int, delta: bool) -> int:
    """Where the check of the whole starts: the header's count and delta,
    which decide what the blocks' bits mean."""
    return zlib.crc32(struct.pack("<Q?", count, delta))


def _end(blocks: int, whole: int) -> bytes:
    return _END.pack(blocks, zlib.crc32(struct.pack("<Q", blocks), whole), END_MARK)


def write(
    file: BinaryIO | str | bytes | os.PathLike[str], values: Any, *, delta: bool = False
) -> int:
    """Write values as a Fibonacci-coded stream of blocks to file, a path or an
    open binary file; returns the bytes written. A path is written whole or
    not at all: the file takes its name (replacing one there, as numpy.save
    does) only once every block is written, and a run stopped by an error or
    Ctrl-C leaves nothing behind. The format (docs/math/coding.rst): a 24-byte
    header (magic ``FIBNIMFC``, version 3, flags with bit 0 for delta and in
    the high byte the dtype packed from (its place in DTYPES), its CRC-32,
    the count of values); blocks of up to 2**18 values, each a 32-byte header
    (the mark ``FNCB``, the header's own CRC-32, the CRC-32 of its stream, its
    count, its length in bits, the index of its first value) and its stream,
    decodable on its own (with delta, its first value is coded whole); and a
    16-byte end (the count of blocks, a CRC-32 of the whole, the mark
    ``FNCE``). So a damaged byte, and a block moved, repeated, dropped or
    taken from another file, are each found.

    >>> import io
    >>> from fibnim import coding
    >>> file = io.BytesIO()
    >>> coding.write(file, [5, 8, 13])
    75
    >>> coding.read(io.BytesIO(file.getvalue()))  # the dtype packed from: int64
    array([ 5,  8, 13])
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "ids.fnc")
    >>> coding.write(path, [3, 5, 9], delta=True)
    74
    >>> coding.read(path, dtype=np.uint64)
    array([3, 5, 9], dtype=uint64)
    """
    array = _array(values, "write")
    parts = (array[start : start + BLOCK] for start in range(0, len(array), BLOCK))
    kind = array.dtype
    if not isinstance(file, (str, bytes, os.PathLike)):
        if not hasattr(file, "write"):
            raise TypeError(f"write: file must be a path or an open binary file, not {file!r}")
        return write_blocks(file, parts, len(array), delta, "write", dtype=kind)
    path = os.fsdecode(file)
    try:  # the commands' rule for an output (a FIFO or a device: written in order)
        streamed = output_is_stream(path, force=True)
    except UsageError as refused:
        raise refused.as_os_error("write", path) from None
    if streamed:
        with open(path, "wb") as stream:
            return write_blocks(stream, parts, len(array), delta, "write", dtype=kind)
    target = AtomicFile(path, replace=True)
    try:
        written = write_blocks(target.stream, parts, len(array), delta, "write", dtype=kind)
        target.commit(lambda: None)
    except BaseException:
        target.abort()
        raise
    return written


def write_blocks(
    file: BinaryIO,
    parts: Iterable[NDArray[Any]],
    count: int,
    delta: bool,
    where: str,
    done: Callable[[int], Any] | None = None,
    dtype: Any = np.uint64,
) -> int:
    """`write` of values that come a block (at most BLOCK values) at a time,
    count of them in all, packed from `dtype` (which the header records);
    done(n) after each block of n. Returns the bytes written."""
    written = file.write(header(count, delta, dtype))
    first, previous, blocks, whole = 0, None, 0, _whole_check(count, delta)
    for part in parts:
        if delta and previous is not None and len(part) and part[0] < previous:
            raise ValueError(
                f"{where}: values[{first}] = {part[0]} is below values[{first - 1}] = "
                f"{previous}: delta=True takes non-decreasing values (sorted ids)"
            )
        coded = block(part, where, delta, first)
        written += file.write(coded)
        whole, blocks = zlib.crc32(coded[: _BLOCK.size], whole), blocks + 1
        previous = part[-1] if len(part) else previous
        first += len(part)
        if done is not None:
            done(len(part))
    if first != count:
        raise ValueError(f"{where}: {first} values came, not the {count} the header gives")
    return written + file.write(_end(blocks, whole))


def _read_exactly(file: BinaryIO, size: int, what: str, offset: int, name: str) -> bytes:
    # a piece at a time: what a stream claims is held in memory only as it comes
    pieces, got = [], 0
    while got < size:
        piece = file.read(min(size - got, 1 << 24))
        if not piece:
            break
        pieces.append(piece)
        got += len(piece)
    data = pieces[0] if len(pieces) == 1 else b"".join(pieces)
    if len(data) != size:
        raise ValueError(
            f"{name}: {what} ends at byte {offset + len(data)}: the file is cut short"
        )
    return data


def read_header(file: BinaryIO, name: str = "read", salvage: bool = False) -> Header:
    """The header of a file that `write` wrote (`Header`: count, delta,
    dtype); the file is then at its first block, for `read_blocks`. Errors
    begin with name (the file's, say). Its count is held to the bytes that
    follow, but for a salvage (`salvage`), which takes the blocks that are
    there, however few, and names the values missing.

    >>> import io
    >>> from fibnim import coding
    >>> file = io.BytesIO()
    >>> _ = coding.write(file, np.array([3, 5, 9], dtype=np.int32), delta=True)
    >>> _ = file.seek(0)
    >>> coding.read_header(file)
    Header(count=3, delta=True, dtype=dtype('int32'), version=3)
    """
    head = _read_exactly(file, _HEADER.size, "the header", 0, name)
    magic, version, flags, crc, count = _HEADER.unpack(head)
    if magic != MAGIC:
        raise ValueError(f"{name}: not a fibnim coding file (its first bytes are {magic!r})")
    if not 1 <= version <= VERSION:
        raise ValueError(
            f"{name}: format version {version}; this fibnim reads versions 1 to {VERSION}"
        )
    known = flags <= 1 if version == 1 else flags & 0xFE == 0 and flags >> 8 < len(DTYPES)
    if crc != _header_crc(version, flags, count) or not known:
        raise _DamagedHeader(
            f"{name}: the header (bytes 0 to 24) is damaged: its CRC-32 does not match",
            version,
            flags,
        )
    left = None if salvage else bytes_left(file)
    if left is not None:  # every value takes 2 bits at least, beside block headers
        check_count(
            count,
            8 * left,
            f"{name}: the header's count (bytes 16 to 24)",
            "the file",
            ": the file is cut short, or its header is damaged",
        )
    return Header(count, bool(flags & 1), DTYPES[flags >> 8], version)


class _DamagedHeader(ValueError):
    """A header whose CRC-32 fails: its version and flags as they read, for a
    salvage that recovers what the header held from the blocks (`salvage`)."""

    def __init__(self, text: str, version: int, flags: int) -> None:
        super().__init__(text)
        self.version, self.flags = version, flags


def _salvaged(file: BinaryIO, name: str = "read") -> tuple[Header, Salvaged]:
    """The header of a coded file (`read_header`) and the values of every
    undamaged block after it (`Salvaged`), the file read whole. A header whose
    CRC-32 fails is recovered from the blocks, where they can tell what it
    held: every block of format version 3 in its place, and the file's end,
    whose check covers the count and whether gaps were coded, matching one of
    the two; the dtype is then the damaged header's, where it names one
    (else uint64). The header is named among the damage (block 0, bytes 0
    to 24, no values lost). Where the blocks cannot tell, ValueError: no value
    can be read exactly without knowing whether the gaps were coded."""
    try:
        head = read_header(file, name, salvage=True)
    except _DamagedHeader as damaged:
        data = file.read()
        head = _recovered_header(data, damaged, name)
        found = _salvage_3(data, head)
        return head, Salvaged(found.values, [Damage(0, 0, _HEADER.size, 0, None), *found.damaged])
    return head, _salvage(file, head)


def _recovered_header(data: bytes, damaged: _DamagedHeader, name: str) -> Header:
    """The header of the blocks in data, where they and the file's end tell it."""
    at, count, number, tops = 0, 0, 0, []
    stop = len(data) - _END.size
    while damaged.version >= 3 and at < stop:
        fields = _block_fields(data[at : at + _BLOCK.size])
        if fields is None or fields[3] != count:
            break
        tops.append(data[at : at + _BLOCK.size])
        at += _BLOCK.size + (fields[2] + 7) // 8
        count, number = count + fields[1], number + 1
    for delta in (False, True):
        whole = _whole_check(count, delta)
        for top in tops:
            whole = zlib.crc32(top, whole)
        if at == stop and data[stop:] == _end(number, whole):
            kind = damaged.flags >> 8
            return Header(count, delta, DTYPES[kind] if kind < len(DTYPES) else DTYPES[0])
    raise ValueError(
        f"{name}: the header (bytes 0 to 24) is damaged, and the blocks and the file's end "
        "cannot tell what it held (its count, whether the gaps of sorted values were "
        "coded): no value can be read exactly"
    )


def read_blocks(
    file: BinaryIO,
    count: int,
    delta: bool,
    into: Callable[[int, int], NDArray[np.uint64]] | None = None,
    name: str = "read",
    version: int = VERSION,
) -> Iterator[NDArray[np.uint64]]:
    """The values of a coded file's blocks, as uint64, one block at a time, in
    order: the file read after its header (`read_header`, which gives count,
    delta and the format version), each block checked against its CRC-32 and
    its place as it comes, and the file's end against the check of the
    whole, so that memory stays bounded whatever the file's size. into(start,
    size), if given, is the uint64 array of size values that the block
    holding the file's values start .. start + size - 1 is decoded into (one
    buffer for every block, say), and yielded; else each block gets a new
    array.

    >>> import io
    >>> from fibnim import coding
    >>> file = io.BytesIO()
    >>> _ = coding.write(file, range(1, 11))
    >>> _ = file.seek(0)
    >>> head = coding.read_header(file)
    >>> blocks = coding.read_blocks(file, head.count, head.delta, version=head.version)
    >>> [values.tolist() for values in blocks]
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]
    """
    make = into or (lambda start, size: np.empty(size, dtype=np.uint64))
    layout = _BLOCK if version >= 3 else _BLOCK_2
    offset, done, number, whole = _HEADER.size, 0, 0, _whole_check(count, delta)
    while done < count:
        what = f"block {number}"
        top = _read_exactly(file, layout.size, f"{what}'s header", offset, name)
        # the header's fields held to what a block can be before anything is
        # read or made from them: a flipped bit is named here, in bounded memory
        fields = f"{what}'s header (bytes {offset} to {offset + len(top)}) is damaged"
        if version >= 3:
            checked = _block_fields(top)
            if checked is None:
                raise ValueError(f"{name}: {fields}: its CRC-32 does not match")
            crc, size, bits, first = checked
            if first != done:
                raise ValueError(
                    f"{name}: {what} (from byte {offset}) holds the values from index "
                    f"{first:,}, where those from {done:,} were due: blocks were moved, "
                    "repeated or dropped"
                )
            whole = zlib.crc32(top, whole)
        else:
            crc, size, bits = _BLOCK_2.unpack(top)
        if size == 0 or size > count - done:
            raise ValueError(
                f"{name}: {fields}: it claims {size:,} values, where the file has "
                f"{count - done:,} left"
            )
        if not 2 * size <= bits <= CODEWORD_MAX * size:
            raise ValueError(
                f"{name}: {fields}: it claims {bits:,} bits for {size:,} values "
                f"(each takes 2 to {CODEWORD_MAX} bits)"
            )
        left = bytes_left(file)
        if left is not None and (bits + 7) // 8 > left:
            raise ValueError(
                f"{name}: {what} claims {(bits + 7) // 8:,} bytes from byte "
                f"{offset + len(top)}, and the file holds {left:,} there: the file is cut "
                "short, or the block's header is damaged"
            )
        stream = _read_exactly(file, (bits + 7) // 8, what, offset + len(top), name)
        end = offset + len(top) + len(stream)
        found = zlib.crc32(stream, 0 if version >= 3 else zlib.crc32(top[4:]))
        if found != crc:
            raise ValueError(
                f"{name}: {what} (bytes {offset} to {end}) is damaged: its CRC-32 does not match"
            )
        data = np.frombuffer(stream, dtype=np.uint8)
        yield _decode(data, bits, size, f"{name}: {what}", delta, make(done, size))
        offset, done, number = end, done + size, number + 1
    if version >= 3:
        last = _read_exactly(file, _END.size, "the check of the whole file", offset, name)
        if last != _end(number, whole):
            raise ValueError(
                f"{name}: the check of the whole file (bytes {offset} to {offset + len(last)}) "
                "does not match: the file's end is damaged, or a block was taken from "
                "another file"
            )
        offset += len(last)
    if file.read(1):
        raise ValueError(f"{name}: bytes after the last block, from byte {offset}")


def _plausible(data: bytes, at: int, left: int) -> tuple[int, int] | None:
    """(values, end) that the block header at byte `at` of data claims, where
    they are what a block of at most `left` values can be; else None."""
    if at + _BLOCK_2.size > len(data):
        return None
    _, size, bits = _BLOCK_2.unpack_from(data, at)
    end = at + _BLOCK_2.size + (bits + 7) // 8
    if 0 < size <= left and 2 * size <= bits <= CODEWORD_MAX * size and end <= len(data):
        return size, end
    return None


def _block_at(
    data: bytes, at: int, left: int, delta: bool
) -> tuple[NDArray[np.uint64], int] | None:
    """The values of the block at byte `at` of data (a coded file's blocks) and
    where it ends; None where no whole, undamaged block of at most `left`
    values is there."""
    claimed = _plausible(data, at, left)
    if claimed is None:
        return None
    size, end = claimed
    crc, _, bits = _BLOCK_2.unpack_from(data, at)
    if zlib.crc32(data[at + _BLOCK_2.size : end], zlib.crc32(data[at + 4 : at + 16])) != crc:
        return None
    stream = np.frombuffer(data, dtype=np.uint8, count=end - at - 16, offset=at + 16)
    try:
        return _decode(stream, bits, size, "salvage", delta, np.empty(size, np.uint64)), end
    except ValueError:  # a CRC that matched by chance over bytes that are no block
        return None


def _salvage(file: BinaryIO, head: Header) -> Salvaged:
    """The values of every undamaged block after the header, and the damaged
    stretches stepped over."""
    data = file.read()
    return _salvage_3(data, head) if head.version >= 3 else _salvage_2(data, head)


def _salvage_3(data: bytes, head: Header) -> Salvaged:
    """Salvage of a file of format version 3. A block's header with its own
    CRC-32 is trusted: the block's values are its place's, and where its
    stream is damaged, the block is stepped over by its length. Elsewhere the
    next block's mark is searched for. So each byte is checked about once,
    and the values lost are known from the places of the blocks around them."""
    base, number, done, at = _HEADER.size, 0, 0, 0
    stop = len(data) - _END.size if data.endswith(END_MARK) else len(data)
    pieces: list[NDArray[np.uint64]] = []
    damaged: list[Damage] = []
    whole, lost_from = _whole_check(head.count, head.delta), None
    while at < stop and done < head.count:
        top = data[at : at + _BLOCK.size]
        fields = _block_fields(top)
        if fields is None:
            lost_from = at if lost_from is None else lost_from
            found = data.find(BLOCK_MARK, at + 1, stop)
            at = stop if found < 0 else found
            continue
        crc, size, bits, first = fields
        if done < first < head.count:  # the values before this block's: in the bytes since
            start = at if lost_from is None else lost_from
            damaged.append(Damage(number, base + start, base + at, first - done, done))
            number, done = number + 1, first
        elif lost_from is not None:  # bytes that are no block, before one in its place
            damaged.append(Damage(number, base + lost_from, base + at, 0, None))
        lost_from = None
        end = min(at + _BLOCK.size + (bits + 7) // 8, stop)
        in_place = first == done and 0 < size <= head.count - done
        stream = data[at + _BLOCK.size : end]
        values = _block_values(stream, crc, size, bits, head.delta) if in_place else None
        if in_place and values is not None:
            pieces.append(values)
            whole = zlib.crc32(top, whole)
        elif in_place:  # damaged, or cut short
            damaged.append(Damage(number, base + at, base + end, size, first))
        else:  # out of place (repeated, or moved back): none of its values kept
            damaged.append(Damage(number, base + at, base + end, 0, None))
            size = 0
        at, number, done = end, number + 1, done + size
    if done < head.count:  # the file ends early
        start = at if lost_from is None else lost_from
        damaged.append(Damage(number, base + start, base + stop, head.count - done, done))
    elif at < stop:  # bytes after the last value
        damaged.append(Damage(number, base + at, base + stop, 0, None))
    elif not damaged and data[stop:] != _end(number, whole):
        damaged.append(Damage(number, base + stop, base + len(data), None, None))
    return Salvaged(np.concatenate([np.empty(0, np.uint64), *pieces]), damaged)


def _block_values(
    stream: bytes, crc: int, size: int, bits: int, delta: bool
) -> NDArray[np.uint64] | None:
    """A version 3 block's values, where its stream is whole and undamaged."""
    if len(stream) != (bits + 7) // 8 or not 2 * size <= bits <= CODEWORD_MAX * size:
        return None
    if zlib.crc32(stream) != crc:
        return None
    try:
        data = np.frombuffer(stream, np.uint8)
        return _decode(data, bits, size, "salvage", delta, np.empty(size, np.uint64))
    except ValueError:  # a CRC that matched by chance
        return None


def _salvage_2(data: bytes, head: Header) -> Salvaged:
    """Salvage of a file of format version 1 or 2, whose blocks do not name
    their place: a block whose CRC-32 fails is skipped by the length its
    header gives, where another block's header follows; else the bytes are
    searched for the next whole block. A damaged block's count is trusted
    only where the counts add up to the values missing."""
    base, at, number, recovered = _HEADER.size, 0, 0, 0
    pieces: list[NDArray[np.uint64]] = []
    stretches: list[tuple[int, int, int, int | None, int]] = []  # block, start, end, claim, first
    while at < len(data) and recovered < head.count:
        left = head.count - recovered
        found = _block_at(data, at, left, head.delta)
        if found is not None:
            pieces.append(found[0])
            recovered += len(found[0])
            at, number = found[1], number + 1
            continue
        claim = end = None
        claimed = _plausible(data, at, left)
        if claimed is not None and (
            claimed[1] == len(data) or _plausible(data, claimed[1], left) is not None
        ):
            claim, end = claimed
        if end is None:
            end = next(
                (p for p in range(at + 1, len(data)) if _block_at(data, p, left, head.delta)),
                len(data),
            )
        stretches.append((number, base + at, base + end, claim, recovered))
        at, number = end, number + 1
    values = np.concatenate([np.empty(0, np.uint64), *pieces])
    missing = head.count - len(values)
    claims = [claim for *_, claim, _ in stretches]
    trusted = all(c is not None for c in claims) and sum(c or 0 for c in claims) == missing
    damaged, lost_before = [], 0
    for block, start, stop, claim, recovered_before in stretches:
        if not trusted and len(stretches) == 1:
            claim, trusted = missing, True  # one stretch: every missing value is its
        lost = claim if trusted else None
        first = recovered_before + lost_before if trusted else None
        damaged.append(Damage(block, start, stop, lost, first))
        lost_before += claim or 0
    if not stretches and missing:  # the file ends early, after a whole block
        damaged.append(Damage(number, base + len(data), base + len(data), missing, len(values)))
    if at < len(data) and recovered >= head.count:  # bytes after the last value
        damaged.append(Damage(number, base + at, base + len(data), 0, None))
    return Salvaged(values, damaged)


def _as_dtype(
    values: NDArray[np.uint64], dtype: np.dtype[Any], name: str, first: int = 0
) -> NDArray[Any]:
    """Decoded values as dtype (in its byte order), exactly: OverflowError
    naming the first that does not fit (index counted from `first`)."""
    if dtype == np.dtype(np.uint64):  # native order: the values as they are
        return values
    high = np.iinfo(dtype).max
    if values.size and values.max() > high:
        i = int(np.argmax(values > high))
        raise OverflowError(
            f"{name}: values[{first + i}] = {values[i]} does not fit {dtype} (at most {high})"
        )
    if dtype.itemsize == 8 and dtype.isnative:
        return values.view(dtype)  # at most int64's largest: the same bits
    return values.astype(dtype)  # a narrower dtype, or the other byte order


@overload
def read(
    file: BinaryIO | str | os.PathLike[str],
    *,
    dtype: Any = ...,
    salvage: Literal[False] = ...,
) -> NDArray[Any]: ...
@overload
def read(
    file: BinaryIO | str | os.PathLike[str], *, dtype: Any = ..., salvage: Literal[True]
) -> Salvaged: ...
@overload
def read(
    file: BinaryIO | str | os.PathLike[str], *, dtype: Any = ..., salvage: bool
) -> NDArray[Any] | Salvaged: ...
def read(
    file: BinaryIO | str | os.PathLike[str], *, dtype: Any = None, salvage: bool = False
) -> NDArray[Any] | Salvaged:
    """The values of a file that `write` wrote: a path or an open binary file.

    Parameters
    ----------
    dtype : numpy integer dtype, optional
        The values' dtype; None: the one they were packed from, which the
        file records (uint64 for files of format version 1). A value that
        does not fit is an OverflowError naming it.
    salvage : bool
        Step over damaged blocks instead of stopping at the first: give back
        `Salvaged` (the values of every undamaged block, and a `Damage` for
        each stretch stepped over: its block, its bytes, the values lost).
        Each block decodes alone, so one damaged block costs only its own
        values. The file is read whole into memory.

    Raises
    ------
    ValueError
        Naming the block and the byte: a damaged block (its CRC-32), a file
        cut short, bytes after the last block, another format.

    Examples
    --------
    >>> import io
    >>> from fibnim import coding
    >>> file = io.BytesIO()
    >>> _ = coding.write(file, range(1, 11))  # one block
    >>> data = bytearray(file.getvalue())
    >>> data[60] ^= 1  # a bit flipped in its stream
    >>> values, damaged = coding.read(io.BytesIO(bytes(data)), salvage=True)
    >>> len(values), damaged
    (0, [Damage(block=0, start=24, end=..., lost=10, first=0)])
    """
    if isinstance(file, (str, os.PathLike)):
        with open(file, "rb") as opened:
            return read(opened, dtype=dtype, salvage=salvage)
    given = None if dtype is None else np.dtype(dtype)
    if given is not None and given.kind not in "iu":
        raise TypeError(f"read: dtype must be an integer dtype, not {given}")
    if salvage:
        head, found = _salvaged(file)
        kind = head.dtype if given is None else given
        return Salvaged(_as_dtype(found.values, kind, "read"), found.damaged)
    head = read_header(file)
    kind = head.dtype if given is None else given
    if bytes_left(file) is None:
        # a stream: its count is not held to its bytes, so the values come a
        # block at a time, and room grows only with what came
        blocks = read_blocks(file, head.count, head.delta, version=head.version)
        return _as_dtype(np.concatenate([np.empty(0, np.uint64), *blocks]), kind, "read")
    out = np.empty(head.count, dtype=np.uint64)
    blocks = read_blocks(
        file,
        head.count,
        head.delta,
        lambda start, size: out[start : start + size],
        version=head.version,
    )
    for _ in blocks:
        pass  # each block is decoded in its place
    return _as_dtype(out, kind, "read")
