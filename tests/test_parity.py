"""The compiled core and the pure twin give the same answers, edge values included."""

from __future__ import annotations

import numpy as np
import pytest
from _support import UINT64_MAX, F, edge_values

import fibnim
from fibnim import _backend

F66 = F[66]


def both(function, *args, **kwargs):
    """function(*args) on the compiled core and on the pure twin."""
    if "cython" not in _backend.available():
        pytest.skip("no compiled extension in this installation")
    results = []
    for name in ("cython", "python"):
        _backend.use(name)
        results.append(function(*args, **kwargs))
    return results


def assert_same(function, *values, **kwargs):
    compiled, pure = both(function, *values, **kwargs)
    assert compiled.dtype == pure.dtype and compiled.shape == pure.shape
    assert (compiled == pure).all(), function.__name__


rng = np.random.default_rng(20261122)
SMALL = np.array(edge_values(F66 - 1), dtype=np.uint64)
WIDE = np.array(edge_values(UINT64_MAX), dtype=np.uint64)
RANDOM_CODES = rng.integers(0, F66, size=4_000, dtype=np.int64).reshape(40, 100)
RANDOM_WIDE = rng.integers(0, UINT64_MAX, size=4_000, dtype=np.uint64, endpoint=True)
# numbers of every size: random bit lengths 0..64
RANDOM_LENGTHS = (RANDOM_WIDE >> rng.integers(0, 64, size=4_000).astype(np.uint64)).reshape(4, -1)


@pytest.mark.parametrize("values", [SMALL, RANDOM_CODES], ids=["edges", "random"])
def test_encode(values):
    assert_same(fibnim.encode, values)


@pytest.mark.parametrize("values", [SMALL, RANDOM_CODES], ids=["edges", "random"])
def test_decode(values):
    assert_same(fibnim.decode, fibnim.encode(values))


@pytest.mark.parametrize(
    "function", [fibnim.lowest_term, fibnim.is_fibonacci, fibnim.digits, fibnim.to_string]
)
@pytest.mark.parametrize(
    "values", [WIDE, RANDOM_WIDE, RANDOM_LENGTHS], ids=["edges", "random", "lengths"]
)
def test_every_uint64(function, values):
    assert_same(function, values)


@pytest.mark.parametrize(
    "values", [WIDE[1:], RANDOM_WIDE, RANDOM_LENGTHS + 1], ids=["edges", "random", "lengths"]
)
def test_second_canonical(values):
    assert_same(fibnim.second_canonical, values)


def test_strings_in_silber_style_and_digits_with_width():
    assert_same(fibnim.to_string, RANDOM_LENGTHS, style="silber")
    assert_same(fibnim.digits, SMALL, width=70)
    assert_same(fibnim.digits, WIDE, width=130)


def test_fib():
    assert_same(fibnim.fib, np.arange(94, dtype=np.int16))


def test_same_errors():
    bad = np.array([5, F66, 7], dtype=np.int64)
    messages = []
    for name in ("cython", "python"):
        if name not in _backend.available():
            pytest.skip("no compiled extension in this installation")
        _backend.use(name)
        with pytest.raises(OverflowError) as info:
            fibnim.encode(bad)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


# --- Wythoff's Nim -----------------------------------------------------------------------

INT64_MAX = 2**63 - 1
PILES = np.array(edge_values(INT64_MAX), dtype=np.int64)
RANDOM_PILES = (
    rng.integers(0, INT64_MAX, size=3_000, dtype=np.int64, endpoint=True)
    >> rng.integers(0, 63, size=3_000)
).astype(np.int64)


def assert_same_tuple(function, *args, **kwargs):
    compiled, pure = both(function, *args, **kwargs)
    for c, p in zip(compiled, pure, strict=True):
        assert c.dtype == p.dtype and c.shape == p.shape
        assert (c == p).all(), function.__name__


@pytest.mark.parametrize("values", [PILES, RANDOM_PILES], ids=["edges", "random"])
def test_wythoff_one_pile(values):
    assert_same(fibnim.wythoff.is_lower, values)
    assert_same(fibnim.wythoff.is_upper, values)
    assert_same(fibnim.wythoff.index, values)
    assert_same_tuple(fibnim.wythoff.array_position, values[values > 0])
    fits = values[values <= fibnim.wythoff.PAIR_LIMIT]
    assert_same_tuple(fibnim.wythoff.pair, fits)
    assert_same(fibnim.wythoff.partner, values[fibnim.wythoff.is_upper(values) | (values < 2**62)])


@pytest.mark.parametrize("misere", [False, True])
def test_wythoff_two_piles(misere):
    a, b = fibnim.wythoff.pair(RANDOM_PILES[RANDOM_PILES <= fibnim.wythoff.PAIR_LIMIT])
    x = np.concatenate([a, b, a, RANDOM_PILES, PILES[:, None].repeat(3, 1).ravel()])
    y = np.concatenate(
        [b, a, np.maximum(b - 1, 0), RANDOM_PILES[::-1], np.tile(PILES[:3], len(PILES))]
    )
    assert_same(fibnim.wythoff.is_safe, x, y, misere=misere)
    assert_same_tuple(fibnim.wythoff.winning_move, x, y, misere=misere)
    small = np.arange(40)
    assert_same_tuple(fibnim.wythoff.winning_move, small[:, None], small, misere=misere)
