"""Input coercion and validation, shared by every public module.

The contract (spec/api.md): Python ints and numpy integer scalars are scalars;
lists, tuples and ndarrays of an integer dtype are arrays; object arrays of
Python ints are answered exactly. Floats (NaN included) and bools are refused
with TypeError, negative values with ValueError, values that do not fit with
OverflowError; every message names the value and its index.

`map_array` validates and converts an array chunk by chunk (so no temporary
grows with the input) and hands each checked, native, C-contiguous uint64
chunk to a kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

CHUNK = 1 << 16  # elements per kernel call: the chunk and its output stay in L2

UINT64_MAX = 2**64 - 1


Test = Callable[[Any], Any]  # values -> bool (int) or bool mask (array): True where refused


class Bound(NamedTuple):
    """A limit on values: `value < limit` (low) or `value > limit` (high) is refused."""

    limit: int
    error: type[Exception]
    reason: str  # completes "f: n[3] = 7 ..."


NONNEGATIVE = Bound(0, ValueError, "is negative")


def index_text(index: tuple[int, ...] | None) -> str:
    return "" if index is None else "[" + ", ".join(str(i) for i in index) + "]"


def refuse(where: str, name: str, index: tuple[int, ...] | None, value: Any, bound: Bound):
    """The exception for `value` at `index` of argument `name` of function `where`."""
    return bound.error(f"{where}: {name}{index_text(index)} = {value!r} {bound.reason}")


def _scalar_type_error(where: str, name: str, index: tuple[int, ...] | None, value: Any):
    kind = type(value).__name__
    return TypeError(f"{where}: {name}{index_text(index)} = {value!r} is a {kind}, not an integer")


def _as_int(value: Any, where: str, name: str, index: tuple[int, ...] | None) -> int:
    """value as a Python int; TypeError for bools, floats and anything not integral."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _scalar_type_error(where, name, index, value)
    return int(value)


def integers(x: Any, where: str, name: str = "n") -> int | np.ndarray:
    """A Python int for a scalar; otherwise an ndarray of integer or object dtype.

    Object arrays come back as new object arrays of Python ints (the elements
    checked); integer arrays come back as they are, never copied.
    """
    if isinstance(x, (int, np.integer, bool, np.bool_, float, np.floating, complex, str, bytes)):
        return _as_int(x, where, name, None)
    if x is None:
        raise TypeError(f"{where}: {name} = None is not an integer")
    if isinstance(x, np.ndarray):
        array = x
    else:
        # Lists and tuples: look at every element first, since numpy silently turns
        # bools into ints and [1, 2**63] into floats; then take int64, else uint64,
        # else keep exact Python ints.
        array = np.array(x, dtype=object)
        if array.size == 0:
            return np.zeros(array.shape, dtype=np.int64)
        checked = _object_ints(array, where, name)
        low, high = min(checked.flat), max(checked.flat)
        for dtype in (np.int64, np.uint64):
            info = np.iinfo(dtype)
            if info.min <= low and high <= info.max:
                return checked.astype(dtype)
        return checked
    kind = array.dtype.kind
    if kind in "iu":
        return array
    if kind == "O":
        return _object_ints(array, where, name)
    detail = ""
    if array.size:
        first = np.unravel_index(0, array.shape) if array.ndim else None
        detail = f" ({name}{index_text(first)} = {array.flat[0].item()!r})"
    raise TypeError(f"{where}: {name} must have an integer dtype, not {array.dtype}{detail}")


def _object_ints(array: np.ndarray, where: str, name: str) -> np.ndarray:
    result = np.empty(array.shape, dtype=object)
    for flat, value in enumerate(array.flat):
        result.flat[flat] = _as_int(value, where, name, _index(array.shape, flat))
    return result


def _index(shape: tuple[int, ...], flat: int) -> tuple[int, ...] | None:
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else None


def check_int(
    value: int,
    where: str,
    name: str,
    low: Bound | None = NONNEGATIVE,
    high: Bound | None = None,
    extra: tuple[tuple[Test, Bound], ...] = (),
    index: tuple[int, ...] | None = None,
) -> int:
    """Check one Python int against its bounds and extra tests; return it."""
    if low is not None and value < low.limit:
        raise refuse(where, name, index, value, low)
    if high is not None and value > high.limit:
        raise refuse(where, name, index, value, high)
    for test, bound in extra:
        if test(value):
            raise refuse(where, name, index, value, bound)
    return value


def _chunks(values: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """(offset, 1-d chunk) over values in C order; copies only one chunk at a time."""
    flat = values.reshape(-1) if values.flags.c_contiguous else values.flat
    for start in range(0, values.size, CHUNK):
        yield start, flat[start : start + CHUNK]


def _check_chunk(
    chunk: np.ndarray,
    start: int,
    shape: tuple[int, ...],
    where: str,
    name: str,
    low: Bound | None,
    high: Bound | None,
    extra: tuple[tuple[Test, Bound], ...],
) -> None:
    info = np.iinfo(chunk.dtype)
    if (
        low is not None
        and low.limit == 0
        and high is not None
        and not extra
        and chunk.dtype.kind == "i"
        and info.max >= high.limit
        and chunk.view(chunk.dtype.str.replace("i", "u")).max() <= high.limit
    ):
        # One pass for both bounds: seen as unsigned, a negative value is at
        # least 2**(bits - 1) > info.max >= high.limit.
        return
    tests: list[tuple[Test, Bound]] = []
    if low is not None and info.min < low.limit and chunk.min() < low.limit:
        tests.append((lambda c: c < low.limit, low))
    if high is not None and info.max > high.limit and chunk.max() > high.limit:
        tests.append((lambda c: c > high.limit, high))
    tests.extend(extra)
    for test, bound in tests:
        bad = np.flatnonzero(test(chunk))
        if bad.size:
            flat = start + int(bad[0])
            raise refuse(where, name, _index(shape, flat), int(chunk[bad[0]]), bound)


def as_uint64(chunk: np.ndarray) -> np.ndarray:
    """A checked (non-negative) chunk as native contiguous uint64, without a copy when possible."""
    if chunk.dtype == np.uint64 and chunk.flags.c_contiguous:
        return chunk
    if chunk.dtype == np.int64 and chunk.flags.c_contiguous:
        return chunk.view(np.uint64)
    return np.ascontiguousarray(chunk, dtype=np.uint64)


def result_array(
    shape: tuple[int, ...], dtype: np.dtype | type, out: np.ndarray | None, where: str
) -> np.ndarray:
    """A new result array, or `out` once its shape and dtype are checked."""
    if out is None:
        return np.empty(shape, dtype=dtype)
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{where}: out must be a numpy array, not {type(out).__name__}")
    if out.shape != shape or out.dtype != np.dtype(dtype):
        raise ValueError(
            f"{where}: out must have shape {shape} and dtype {np.dtype(dtype)}, "
            f"not shape {out.shape} and dtype {out.dtype}"
        )
    if not out.flags.writeable:
        raise ValueError(f"{where}: out is read-only")
    return out


def _rows(out: np.ndarray, ndim: int) -> tuple[np.ndarray, np.ndarray]:
    """(target, rows): a C-contiguous array to fill (`out` itself when it is one), and
    a view of it with one row per input element (the first `ndim` axes flattened)."""
    target = out if out.flags.c_contiguous else np.empty_like(out, order="C")
    return target, target.reshape((-1, *out.shape[ndim:]))


def map_array(
    kernel: Callable[[np.ndarray, np.ndarray], None],
    values: np.ndarray,
    out: np.ndarray,
    where: str,
    name: str = "n",
    low: Bound | None = NONNEGATIVE,
    high: Bound | None = None,
    extra: tuple[tuple[Test, Bound], ...] = (),
) -> np.ndarray:
    """Check `values` (an integer ndarray) and run `kernel(chunk, out_chunk)` over it.

    `out` has the shape of `values`, possibly with trailing axes of its own
    (digits). Bool results are handed to the kernel as uint8.
    """
    target, rows = _rows(out, values.ndim)
    if rows.dtype == np.bool_:
        rows = rows.view(np.uint8)
    for start, chunk in _chunks(values):
        _check_chunk(chunk, start, values.shape, where, name, low, high, extra)
        kernel(as_uint64(chunk), rows[start : start + chunk.size])
    if target is not out:
        out[...] = target
    return out


def map_objects(
    function: Callable[[int], Any],
    values: np.ndarray,
    out: np.ndarray,
    where: str,
    name: str = "n",
    low: Bound | None = NONNEGATIVE,
    extra: tuple[tuple[Test, Bound], ...] = (),
    high: Bound | None = None,
) -> np.ndarray:
    """`function` on each checked Python int of an object array, into `out`.

    `out` has the shape of `values`, possibly with trailing axes of its own.
    Object arrays hold exact ints of any size: `high` is for limits of the
    result's layout (a digit width), not of a dtype.
    """
    target, rows = _rows(out, values.ndim)
    for flat, value in enumerate(values.flat):
        index = _index(values.shape, flat)
        rows[flat] = function(check_int(value, where, name, low, high, extra, index))
    if target is not out:
        out[...] = target
    return out


def finish(result: np.ndarray, values: np.ndarray) -> Any:
    """0-d in, scalar out, as numpy ufuncs do; otherwise the array."""
    return result[()] if values.ndim == 0 else result
