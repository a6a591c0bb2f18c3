"""Input coercion and validation, shared by every public module.

The contract (docs/conventions.rst): Python ints and numpy integer scalars are scalars;
lists, tuples and ndarrays of an integer dtype are arrays; object arrays of
Python ints are answered exactly, up to `DIGITS_LIMIT` bits, which keeps every
call's work bounded (a second or two at the limit). Floats (NaN included),
bools and masked arrays are refused with TypeError, negative values with
ValueError, values that do not fit with OverflowError; every message names the
value and its index.

fibnim._apply drives the kernels over arrays with these checks, chunk by chunk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from fibnim import _tables

#: The most Zeckendorf digits fibnim's exact paths handle: codes, digit strings
#: and widths of up to this many digits, numbers below F_{DIGITS_LIMIT + 2}
#: (about 109,500 decimal digits), F_k for k <= DIGITS_LIMIT; and no Python int
#: argument has more bits. Encoding a number at the limit takes about a second.
DIGITS_LIMIT = 2**19

#: terms() and wythoff.explain() take numbers of at most this many bits: their
#: answers list the terms, which grow as the square of the bit length.
TERMS_BITS_LIMIT = 2**14


Test = Callable[[Any], Any]  # values -> bool (int) or bool mask (array): True where refused


class Bound(NamedTuple):
    """A limit on values: `value < limit` (low) or `value > limit` (high) is refused."""

    limit: int
    error: type[Exception]
    reason: str  # completes "f: n[3] = 7 ..."


NONNEGATIVE = Bound(0, ValueError, "is negative")


def index_text(index: tuple[int, ...] | None, name: str = "") -> str:
    """[i, j] of an element of argument `name`, in the whole argument, and its
    labels after it where the argument has them (fibnim._tables.place)."""
    if index is None:
        return ""
    shifted, label = _tables.place(index, name)
    if shifted is None:  # a dask DataFrame's partition: its labels alone
        return f" ({label})" if label else ""
    text = "[" + ", ".join(str(i) for i in shifted) + "]"
    return f"{text} ({label})" if label else text


def shown(value: Any) -> str:
    """repr(value), shortened for an int of more than 40 digits."""
    if not isinstance(value, int) or value.bit_length() < 133:
        return repr(value)
    if value.bit_length() > 10_000:  # beyond what str() of an int allows
        return f"<an int of {value.bit_length()} bits>"
    digits = str(value)
    return f"{digits[:20]}...{digits[-10:]} ({len(digits.lstrip('-'))} digits)"


def refuse(
    where: str, name: str, index: tuple[int, ...] | None, value: Any, bound: Bound
) -> Exception:
    """The exception for `value` at `index` of argument `name` of function `where`."""
    return bound.error(f"{where}: {name}{index_text(index, name)} = {shown(value)} {bound.reason}")


def _scalar_type_error(
    where: str, name: str, index: tuple[int, ...] | None, value: Any
) -> TypeError:
    kind = type(value).__name__
    text = shown(value)
    return TypeError(
        f"{where}: {name}{index_text(index, name)} = {text} is a {kind}, not an integer"
    )


_TOO_LONG = Bound(
    DIGITS_LIMIT,
    OverflowError,
    f"has more than DIGITS_LIMIT = {DIGITS_LIMIT} bits, the most fibnim takes",
)


TERMS = Bound(
    2**TERMS_BITS_LIMIT - 1,
    OverflowError,
    f"has more than TERMS_BITS_LIMIT = {TERMS_BITS_LIMIT} bits: its terms would fill memory "
    "(encode() and digits() take larger numbers)",
)


def as_int(value: Any, where: str, name: str, index: tuple[int, ...] | None = None) -> int:
    """value as a Python int; TypeError for bools, floats, times (numpy counts
    its timedelta64 among its integers) and anything not integral,
    OverflowError beyond DIGITS_LIMIT bits."""
    if isinstance(value, (bool, np.bool_, np.timedelta64, np.datetime64)) or not isinstance(
        value, (int, np.integer)
    ):
        raise _scalar_type_error(where, name, index, value)
    number = int(value)
    if number.bit_length() > DIGITS_LIMIT:
        raise refuse(where, name, index, number, _TOO_LONG)
    return number


def integers(x: Any, where: str, name: str = "n") -> int | np.ndarray:
    """A Python int for a scalar; otherwise an ndarray of integer or object dtype.

    Object arrays come back as new object arrays of Python ints (the elements
    checked); integer arrays come back as they are, never copied.
    """
    if isinstance(x, (int, np.integer, bool, np.bool_, float, np.floating, complex, str, bytes)):
        return as_int(x, where, name, None)
    if x is None:
        raise TypeError(f"{where}: {name} = None is not an integer")
    if isinstance(x, np.ma.MaskedArray):
        # np.asarray would drop the mask and compute on the masked values
        raise TypeError(
            f"{where}: {name} is a masked array; pass {name}.filled(value) or "
            f"{name}.compressed() (fibnim computes on every element it is given)"
        )
    if isinstance(x, np.ndarray):
        array = np.asarray(x)  # a subclass (np.matrix, a memmap) as the plain array
    elif hasattr(x, "__array__") and not isinstance(x, (list, tuple)):
        # pandas, pyarrow, xarray and the like: their values as they are (never
        # element by element: that took 40 s for a Series of 10**7); a pandas NA
        # named as missing, never seen as a float NaN
        array = np.asarray(_tables.values(x, where, name))
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
        # the value to name: a missing one (NaN) first, the reason the column
        # is not of integers (pandas makes a column with a missing value float)
        flat, why = 0, ""
        if kind in "fc":
            missing = np.flatnonzero(np.isnan(array.ravel()))
            if missing.size:
                flat = int(missing[0])
                why = (
                    ": a missing value, which made the column float; a pandas column of "
                    'dtype="Int64" keeps it as <NA>, and gets <NA> answers there'
                )
        first = element_index(array.shape, flat)
        detail = f" ({name}{index_text(first, name)} = {array.flat[flat].item()!r}{why})"
    raise TypeError(f"{where}: {name} must have an integer dtype, not {array.dtype}{detail}")


def _object_ints(array: np.ndarray, where: str, name: str) -> np.ndarray:
    result = np.empty(array.shape, dtype=object)
    for flat, value in enumerate(array.flat):
        result.flat[flat] = as_int(value, where, name, element_index(array.shape, flat))
    return result


def element_index(shape: tuple[int, ...], flat: int) -> tuple[int, ...] | None:
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


def check_chunk(
    chunk: np.ndarray,
    start: int,
    shape: tuple[int, ...],
    own_shape: tuple[int, ...],
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
            index = own_index(element_index(shape, start + int(bad[0])), own_shape)
            raise refuse(where, name, index, int(chunk.flat[bad[0]]), bound)


def own_index(index: tuple[int, ...] | None, own_shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """An index into the broadcast shape, as an index into the argument itself."""
    if index is None or not own_shape:
        return None if not own_shape else index
    index = index[len(index) - len(own_shape) :]
    return tuple(0 if size == 1 else i for i, size in zip(index, own_shape, strict=True))


def positions(piles: Any, where: str) -> list[int] | np.ndarray:
    """Game positions: a list or tuple of ints is ONE position (a list of checked
    Python ints); an array of shape (..., k) holds many (an integer or object
    ndarray, k = its last axis)."""
    if isinstance(piles, (list, tuple)) and all(
        isinstance(p, (int, np.integer)) and not isinstance(p, (bool, np.bool_)) for p in piles
    ):
        return [check_int(int(p), where, "piles", index=(i,)) for i, p in enumerate(piles)]
    array = integers(piles, where, "piles")
    if isinstance(array, int) or array.ndim == 0:
        raise TypeError(f"{where}: piles must be a sequence of pile sizes or an array (..., k)")
    return array


def flag(value: Any, where: str, name: str) -> bool:
    """An option that must be a bool (numpy's included): "yes", "False", 1 or None
    would otherwise pass as whatever Python's truth makes of them."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: {name} must be True or False, not {shown(value)}")
    return bool(value)


def one_int(
    value: Any, where: str, name: str, low: Bound | None = NONNEGATIVE, high: Bound | None = None
) -> int:
    """An argument that must be one integer (a size, a width, a bound), checked."""
    checked = integers(value, where, name)
    if not isinstance(checked, int):
        raise TypeError(f"{where}: {name} must be one integer, not an array")
    return check_int(checked, where, name, low, high)
