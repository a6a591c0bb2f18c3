"""A user's script: what a type checker must infer from fibnim's signatures
(tests/test_types.py runs mypy --strict and pyright on it)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import NDArray
from typing_extensions import assert_type

import fibnim
from fibnim import classify, fibonacci_nim, power_nim, wythoff

values = np.arange(10)

assert_type(fibnim.encode(46), int)
assert_type(fibnim.encode(values), NDArray[np.uint64])
assert_type(fibnim.decode(149), int)
assert_type(fibnim.decode([0, 1, 2]), NDArray[np.int64])
assert_type(fibnim.fib(10), int)
assert_type(fibnim.is_fibonacci(144), bool)
assert_type(fibnim.is_fibonacci(values), NDArray[np.bool_])
assert_type(fibnim.term_count(46), int)
assert_type(fibnim.term_count(values), NDArray[np.uint8])
assert_type(fibnim.lowest_term(46), int)
assert_type(fibnim.to_string(46), str)
assert_type(fibnim.to_string(values), NDArray[np.str_])
assert_type(fibnim.digits(values), NDArray[np.uint8])

assert_type(wythoff.is_safe(3, 5), bool)
assert_type(wythoff.is_safe(values, values, misere=True), NDArray[np.bool_])
assert_type(wythoff.winning_move(10, 15), tuple[int, int] | None)
assert_type(wythoff.winning_move(values, values), tuple[NDArray[np.int64], NDArray[np.int64]])
assert_type(wythoff.pair(4), tuple[int, int])
assert_type(wythoff.partner(values), NDArray[np.int64])

assert_type(fibonacci_nim.is_p(12), bool)
assert_type(fibonacci_nim.is_p(values, 3), NDArray[np.bool_])
assert_type(fibonacci_nim.winning_take(20, None), int)
assert_type(fibonacci_nim.global_is_p([3, 5]), bool)
assert_type(fibonacci_nim.global_is_p(np.array([[3, 5]])), NDArray[np.bool_])
assert_type(power_nim.winning_move([3, 4, 5]), tuple[int, int] | None)

assert_type(classify(np.array([[3, 5]]), "wythoff"), NDArray[np.int64])
flags: NDArray[np.bool_] = np.empty(10, dtype=bool)
assert_type(wythoff.is_safe(values, values, out=flags), NDArray[np.bool_])

# numpy's ufunc keywords and attributes
assert_type(wythoff.is_safe(values, values, dtype=np.int8), NDArray[np.int8])
assert_type(fibnim.encode(46, dtype=np.int64), np.int64)
assert_type(fibnim.decode(values, casting="same_kind"), NDArray[np.int64])
small: NDArray[np.uint16] = np.empty(10, dtype=np.uint16)
assert_type(fibnim.term_count(values, out=small, casting="unsafe"), NDArray[np.uint16])
assert_type(wythoff.pair(values, dtype=np.int32), tuple[NDArray[np.int32], NDArray[np.int32]])
assert_type(wythoff.is_safe.outer(values, values), NDArray[np.bool_])
assert_type(
    wythoff.winning_move.outer(values, values, misere=True),
    tuple[NDArray[np.int64], NDArray[np.int64]],
)
assert_type(fibonacci_nim.is_p.outer(values, values), NDArray[np.bool_])
assert_type(wythoff.is_safe.nin, int)
assert_type(wythoff.is_safe.nout, int)
assert_type(wythoff.is_safe.types, list[str])
assert_type(fibnim.encode.ufunc, np.ufunc | None)


# labelled inputs come back as the same kind, on their labels
def safe_rows(x: pd.Series[int], y: pd.Series[int]) -> pd.Series[bool]:
    return wythoff.is_safe(x, y)


def targets(x: pd.Series[int], y: pd.Series[int]) -> tuple[pd.Series[int], pd.Series[int]]:
    return wythoff.winning_move(x, y)


def codes(frame: pd.DataFrame) -> pd.DataFrame:
    return fibnim.encode(frame)


def opening(piles: xr.DataArray) -> xr.DataArray:
    return fibonacci_nim.is_p(piles)


def safe_against(x: int, y: pd.Series[int]) -> pd.Series[bool]:
    return wythoff.is_safe(x, y)
