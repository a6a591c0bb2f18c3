"""Fibonacci numbers and the Zeckendorf number system, for ints and arrays.

Every n >= 0 is, in exactly one way, a sum of non-consecutive Fibonacci
numbers F_i with i >= 2 (docs/math/zeckendorf.rst). Its *code* packs that sum
into an integer: bit i is set when F_{i+2} is a term, so 46 = 34 + 8 + 3 + 1
has code 0b10010101 = 149.

Scalars (Python ints, numpy integer scalars) give exact Python results of any
size. Array-likes give numpy arrays of the input's shape: uint64 codes, int64
values, bool tests, uint8 digits, str strings. Object arrays of Python ints
are answered exactly, whatever their size.
"""

from __future__ import annotations

from typing import Any, Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fibnim import _backend, _tables
from fibnim._apply import Int, Out, finish, map_arrays, map_objects, outs_of, result_array
from fibnim._checks import (
    DIGITS_LIMIT,
    NONNEGATIVE,
    TERMS,
    TERMS_BITS_LIMIT,
    Bound,
    Test,
    check_int,
    integers,
    one_int,
)
from fibnim._declarations import CODE_LIMIT, EXACT_INDEX, exact_number
from fibnim._exact import zeckendorf as ints
from fibnim._typing import Unary
from fibnim._ufunc import declared

__all__ = [
    "CODE_LIMIT",
    "DIGITS_LIMIT",
    "TERMS_BITS_LIMIT",
    "decode",
    "digits",
    "encode",
    "fib",
    "is_fibonacci",
    "lowest_term",
    "parse",
    "second_canonical",
    "term_count",
    "terms",
    "to_string",
]


Style = Literal["zeckendorf", "silber"]

_POSITIVE: tuple[tuple[Test, Bound], ...] = (
    (lambda n: n == 0, Bound(1, ValueError, "has no second canonical form (it needs n >= 1)")),
)


def _kernel(name: str) -> Any:
    return getattr(_backend.kernels("zeckendorf"), name)


def _numbers(n: Any, where: str, extra: tuple[tuple[Test, Bound], ...] = ()) -> int | NDArray[Any]:
    """n as checked numbers: an int, or an array whose object elements are checked
    (integer arrays are checked by their kernels)."""
    values = integers(n, where, "n")
    if isinstance(values, int):
        return check_int(values, where, "n", high=exact_number(), extra=extra)
    if values.dtype == object:
        for index in np.ndindex(values.shape):
            check_int(values[index], where, "n", high=exact_number(), extra=extra, index=index)
    return values


@declared[Unary[int, np.uint64]]("zeckendorf.fib")
def fib(k: ArrayLike, *, out: Out[np.uint64] | None = None, where: ArrayLike = True) -> Any:
    """The Fibonacci number F_k (F_0 = 0, F_1 = F_2 = 1).

    Parameters
    ----------
    k : int or array_like of int
        Indices, k >= 0. Arrays take k <= 93 (F_93 is the largest Fibonacci
        number below 2**64); scalars and object arrays take k <= `DIGITS_LIMIT`
        = 524288 (F_k then has about 364,000 bits).

    Examples
    --------
    >>> import fibnim
    >>> fibnim.fib(10)
    55
    >>> fibnim.fib([0, 1, 2, 3, 93])
    array([                   0,                    1,                    1,
                              2, 12200160415121876738], dtype=uint64)
    """


@declared[Unary[int, np.uint64]]("zeckendorf.encode")
def encode(n: ArrayLike, *, out: Out[np.uint64] | None = None, where: ArrayLike = True) -> Any:
    """The Zeckendorf code of n: bit i set when F_{i+2} is a term.

    Codes are ordered like the numbers they stand for, and no code has two
    adjacent set bits.

    Parameters
    ----------
    n : int or array_like of int
        Numbers n >= 0. Arrays give uint64 codes and take n < F_66 =
        27777890035288 (`CODE_LIMIT`); larger n need more than 64 bits, which
        `digits` and `to_string` give for every uint64. Scalars and object
        arrays take any n.

    Examples
    --------
    >>> import fibnim
    >>> fibnim.encode(46)  # 34 + 8 + 3 + 1
    149
    >>> bin(fibnim.encode(46))
    '0b10010101'
    >>> fibnim.encode([0, 1, 2, 3, 4, 12])
    array([ 0,  1,  2,  4,  5, 21], dtype=uint64)
    """


@declared[Unary[int, np.int64]]("zeckendorf.decode")
def decode(code: ArrayLike, *, out: Out[np.int64] | None = None, where: ArrayLike = True) -> Any:
    """The number whose Zeckendorf code is `code` (the inverse of `encode`).

    Parameters
    ----------
    code : int or array_like of int
        Codes >= 0 with no two adjacent set bits (ValueError otherwise).

    Examples
    --------
    >>> import fibnim
    >>> fibnim.decode(0b10010101)
    46
    >>> fibnim.decode([0, 1, 2, 4, 5, 21])
    array([ 0,  1,  2,  3,  4, 12])
    """


@declared[Unary[int, np.uint64]]("zeckendorf.lowest_term")
def lowest_term(
    n: ArrayLike, *, out: Out[np.uint64] | None = None, where: ArrayLike = True
) -> Any:
    """z_1(n), the smallest term of n's Zeckendorf representation (0 for n = 0).

    Parameters
    ----------
    n : int or array_like of int
        Numbers n >= 0; arrays take every uint64.

    Examples
    --------
    >>> import fibnim
    >>> fibnim.lowest_term(46)  # 34 + 8 + 3 + 1
    1
    >>> fibnim.lowest_term([0, 8, 12, 2**64 - 1])
    array([0, 8, 1, 2], dtype=uint64)
    """


@declared[Unary[bool, np.bool_]]("zeckendorf.is_fibonacci")
def is_fibonacci(
    n: ArrayLike, *, out: Out[np.bool_] | None = None, where: ArrayLike = True
) -> Any:
    """Whether n is a Fibonacci number (0 = F_0 is one).

    Parameters
    ----------
    n : int or array_like of int
        Numbers n >= 0; arrays take every uint64.

    Examples
    --------
    >>> import fibnim
    >>> fibnim.is_fibonacci(144)
    True
    >>> fibnim.is_fibonacci([0, 1, 4, 12200160415121876738])
    array([ True,  True, False,  True])
    """


@declared[Unary[int, np.uint8]]("zeckendorf.term_count")
def term_count(n: ArrayLike, *, out: Out[np.uint8] | None = None, where: ArrayLike = True) -> Any:
    """The number of terms of n's Zeckendorf representation (OEIS A007895).

    It is the number of set bits of n's code, the fewest Fibonacci numbers
    that sum to n (0 for 0).

    Parameters
    ----------
    n : int or array_like of int
        Numbers n >= 0; arrays take every uint64 (at most 46 terms).

    Examples
    --------
    >>> import fibnim
    >>> fibnim.term_count(46)  # 34 + 8 + 3 + 1
    4
    >>> fibnim.term_count([0, 1, 4, 12, 2**64 - 1])
    array([ 0,  1,  2,  3, 26], dtype=uint8)
    """


def _width(values: int | NDArray[Any], extra: int = 0) -> int:
    """The digits the largest value needs (at least 1), plus `extra`."""
    if isinstance(values, int):
        return ints.digit_count(max(values, 0)) + extra
    top = values.max() if values.size else 0
    return ints.digit_count(max(int(top), 0)) + extra


def _width_given(width: Any) -> int:
    return one_int(width, "digits", "width", Bound(1, ValueError, "is less than 1"), EXACT_INDEX)


def _lazy_width(n: Any, width: int | None = None, **_: Any) -> int:
    """The width of digits of a dask array: given, since the default comes from
    the largest element, which a lazy array does not know."""
    if width is None:
        raise ValueError(
            "digits: a dask array needs width= (the default is what its largest "
            "element needs, and a lazy array does not know that element)"
        )
    return _width_given(width)


@_tables.with_last_axis(_lazy_width)
def digits(
    n: ArrayLike, width: int | None = None, *, out: Out[np.uint8] | None = None
) -> NDArray[np.uint8]:
    """The Zeckendorf digits of n, most significant first, as uint8 0/1.

    Digit j (from the left) stands for F_{width+1-j}: the last digit is F_2's.

    Parameters
    ----------
    n : int or array_like of int
        Numbers n >= 0; integer arrays take every uint64 (at most 92 digits),
        object arrays any size.
    width : int, optional
        Digits per number, 1 to `DIGITS_LIMIT`. Defaults to what the largest
        element needs (a dask array must give it), or the length of the last
        axis of `out`; a width too small for some element raises OverflowError.
    out : ndarray of uint8, optional
        Where to put the digits (shape ``(*n.shape, width)``).
    where : array_like of bool, optional
        As numpy's where=: computed only where True (broadcast over the
        inputs); elsewhere the values are not checked and the result keeps
        out's value there (0 without out).

    Returns
    -------
    ndarray of uint8, shape ``(*n.shape, width)``
        A scalar n gives shape ``(width,)``.

    Examples
    --------
    >>> import fibnim
    >>> fibnim.digits(46)
    array([1, 0, 0, 1, 0, 1, 0, 1], dtype=uint8)
    >>> fibnim.digits([4, 12], width=6)
    array([[0, 0, 0, 1, 0, 1],
           [0, 1, 0, 1, 0, 1]], dtype=uint8)
    """
    values = _numbers(n, "digits")
    outs = outs_of(out, 1, "digits")
    if width is None and outs is not None and np.ndim(outs[0]):
        width = np.shape(outs[0])[-1]
    if width is not None:
        width = _width_given(width)
    if isinstance(values, int):
        values = np.asarray(values, dtype=object)
    if width is None:
        width = _width(values)
    high = Bound(ints.fib(width + 2) - 1, OverflowError, f"needs more than width={width} digits")
    result = result_array(
        (*values.shape, width), np.uint8, None if outs is None else outs[0], "digits"
    )
    if values.dtype == object:
        exact = lambda v: _digit_list(ints.code(v), width)  # noqa: E731
        map_objects(exact, [values], ["n"], [result], "digits", NONNEGATIVE, high)
    else:
        map_arrays(_kernel("digits"), [values], ["n"], [result], "digits", NONNEGATIVE, high)
    return result


def _digit_list(bits: int, width: int) -> NDArray[np.uint8]:
    text = format(bits, "b").zfill(width).encode()
    row: NDArray[np.uint8] = np.frombuffer(text, dtype=np.uint8) - np.uint8(48)
    return row


def _check_style(style: str, where: str) -> bool:
    """True for "silber", False for "zeckendorf"."""
    if style not in ("zeckendorf", "silber"):
        raise ValueError(f'{where}: style must be "zeckendorf" or "silber", not {style!r}')
    return style == "silber"


def _strings(rows: NDArray[np.uint8]) -> NDArray[np.str_]:
    """Digit rows as strings without leading zeros ("0" for none)."""
    width = rows.shape[-1]
    text = np.ascontiguousarray(rows + np.uint8(48)).view(f"S{width}").reshape(rows.shape[:-1])
    text = np.strings.lstrip(text, b"0")
    return np.where(text == b"", b"0", text).astype(np.str_)


def _string_array(
    x: Any,
    where: str,
    exact: Any,
    kernel: str,
    width: int,
    suffix: str,
    extra: tuple[tuple[Test, Bound], ...] = (),
) -> NDArray[np.str_]:
    """Strings of an array: digit rows from `kernel`, one chunk at a time."""
    values = x
    result = np.empty(values.shape, dtype=f"U{width + len(suffix)}")
    if values.dtype == object:
        map_objects(exact, [values], ["n"], [result], where, NONNEGATIVE, None, extra)
        return result
    digit_rows = _kernel(kernel)

    def write(chunk: NDArray[np.uint64], out: NDArray[np.str_], limit: int) -> int:
        rows = np.empty((chunk.size, width), dtype=np.uint8)
        bad = int(digit_rows(chunk, rows, limit))
        if bad < 0:
            text = _strings(rows)
            out[:] = np.where(text == "0", text, np.strings.add(text, suffix)) if suffix else text
        return bad

    map_arrays(write, [values], ["n"], [result], where, NONNEGATIVE, None, extra)
    return result


@overload
def to_string(n: Int, style: Style = ...) -> str: ...
@overload
def to_string(n: ArrayLike, style: Style = ...) -> NDArray[np.str_]: ...
@_tables.elementwise
def to_string(n: ArrayLike, style: Style = "zeckendorf") -> Any:
    """The Zeckendorf representation of n as a string of 0s and 1s.

    Parameters
    ----------
    n : int or array_like of int
        Numbers n >= 0; integer arrays take every uint64.
    style : {"zeckendorf", "silber"}
        "zeckendorf" writes the digits for F_top .. F_2; "silber" (Silber's
        and Gardner's notation) adds the digit for F_1, always 0 in this form.
        0 is "0" in both.

    Returns
    -------
    str or ndarray of str

    Examples
    --------
    >>> import fibnim
    >>> fibnim.to_string(46)
    '10010101'
    >>> fibnim.to_string(17, style="silber")
    '1001010'
    >>> fibnim.to_string([0, 8, 12])
    array(['0', '10000', '10101'], dtype='<U5')
    """
    silber = _check_style(style, "to_string")
    suffix = "0" if silber else ""

    def exact(value: int) -> str:
        return "0" if value == 0 else ints.bits_to_string(ints.code(value)) + suffix

    values = _numbers(n, "to_string")
    if isinstance(values, int):
        return exact(values)
    return finish(
        _string_array(values, "to_string", exact, "digits", _width(values), suffix),
        values.ndim,
    )


@overload
def second_canonical(n: Int) -> str: ...
@overload
def second_canonical(n: ArrayLike) -> NDArray[np.str_]: ...
@_tables.elementwise
def second_canonical(n: ArrayLike) -> Any:
    """Silber's second canonical representation of n >= 1, in Silber positions.

    A sum of Fibonacci numbers F_i, i >= 1, no two adjacent, whose smallest
    index is odd; written from F_top down to F_1 (docs/math/zeckendorf.rst).

    Parameters
    ----------
    n : int or array_like of int
        Numbers n >= 1; integer arrays take every uint64.

    Returns
    -------
    str or ndarray of str

    Examples
    --------
    >>> import fibnim
    >>> fibnim.second_canonical(8)  # 5 + 2 + 1
    '10101'
    >>> fibnim.second_canonical([1, 2, 3, 7])
    array(['1', '100', '101', '10100'], dtype='<U5')
    """

    def exact(value: int) -> str:
        return ints.bits_to_string(ints.second_canonical_code(value))

    values = _numbers(n, "second_canonical", _POSITIVE)
    if isinstance(values, int):
        return exact(values)
    width = _width(values, extra=1)
    return finish(
        _string_array(
            values, "second_canonical", exact, "second_canonical_digits", width, "", _POSITIVE
        ),
        values.ndim,
    )


def parse(s: str, style: Style = "zeckendorf") -> int:
    """The number a string of 0s and 1s stands for, canonical or not.

    Parameters
    ----------
    s : str
        Digits, most significant first, at most `DIGITS_LIMIT` of them.
        Adjacent ones are allowed ("11" is F_3 + F_2 = 3).
    style : {"zeckendorf", "silber"}
        Whether the last digit stands for F_2 ("zeckendorf") or F_1 ("silber").

    Returns
    -------
    int

    Examples
    --------
    >>> import fibnim
    >>> fibnim.parse("10010101")
    46
    >>> fibnim.parse("11000", style="silber")  # F_5 + F_4
    8
    """
    silber = _check_style(style, "parse")
    if not isinstance(s, str):
        raise TypeError(f"parse: s must be a str, not {type(s).__name__}")
    if not s:
        raise ValueError("parse: s is empty")
    if len(s) > DIGITS_LIMIT:
        raise OverflowError(
            f"parse: s has {len(s)} digits, more than DIGITS_LIMIT = {DIGITS_LIMIT}"
        )
    if s.strip("01"):
        position, digit = next((i, d) for i, d in enumerate(s) if d not in "01")
        shown = s if len(s) <= 60 else s[:60] + "..."
        raise ValueError(f"parse: s[{position}] = {digit!r} is not a digit 0 or 1 (s = {shown!r})")
    return ints.value(int(s, 2), lowest=1 if silber else 2)


def terms(n: int) -> list[int]:
    """The terms of n's Zeckendorf representation, largest first.

    n may have up to `TERMS_BITS_LIMIT` = 16384 bits (the terms of a larger n
    would fill memory; `digits` and `encode` take more).

    Examples
    --------
    >>> import fibnim
    >>> fibnim.terms(46)
    [34, 8, 3, 1]
    >>> fibnim.terms(0)
    []
    """
    value = integers(n, "terms", "n")
    if not isinstance(value, int):
        raise TypeError("terms: n must be one integer (for arrays, use digits())")
    return ints.terms(check_int(value, "terms", "n", high=TERMS))
