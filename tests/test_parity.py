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


def assert_same(function, values, **kwargs):
    compiled, pure = both(function, values, **kwargs)
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
