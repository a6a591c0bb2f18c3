"""fibnim.power_nim against exhaustive search over the rules (docs/math/power_nim.rst)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _support import global_nim_solver

from fibnim import power_nim, solvers


@pytest.mark.parametrize("k", [2, 3])
def test_closed_form_against_search(k):
    size = 20
    table = solvers.threshold_table([size] * k, power=True, where="test")
    piles = np.array(list(itertools.product(range(size + 1), repeat=k)))
    for r in [*range(0, 22), None]:
        p = power_nim.is_p(piles, r)
        threshold = table[tuple(piles.T)].astype(np.int64)
        searched = (threshold == 0) if r is None else (threshold == 0) | (r < threshold)
        assert (p == searched).all(), r
        pile, take = power_nim.winning_move(piles, r)
        assert ((pile == -1) == p).all()
        for row, i, s in zip(piles[~p], pile[~p], take[~p], strict=True):
            after = row.copy()
            assert 1 <= s <= after[i] and (r is None or s <= r)
            after[i] -= s
            assert solvers.outcome_from_threshold(int(table[tuple(after)]), int(s))


def test_scalars_against_the_rules():
    outcome = global_nim_solver(power=True)
    for piles in [(1, 2, 3), (3, 4, 5), (6, 1, 2), (7, 7), (5,), (2, 4, 6, 9)]:
        for r in (None, 1, 2, 4):
            assert power_nim.is_p(list(piles), r) == (outcome(piles, r) == "P")
    assert power_nim.winning_move([3, 4, 5]) == (0, 2)  # Bouton: 3 -> 3 xor 2
    assert power_nim.winning_move([1, 2, 3]) is None


def test_arrays_and_errors():
    piles = np.array([[[1, 2, 3], [1, 2, 4]]], dtype=np.int32)
    assert power_nim.is_p(piles).shape == (1, 2)
    assert power_nim.is_p(piles, r=np.array([[1], [8]])).tolist() == [[True, False], [True, False]]
    bad = piles.copy()
    bad[0, 1, 2] = -4
    with pytest.raises(ValueError, match=r"piles\[0, 1, 2\] = -4 is negative"):
        power_nim.is_p(bad)
    big = np.array([[2**70, 2**70 + 1]], dtype=object)
    assert power_nim.is_p(big).tolist() == [False]
    assert power_nim.winning_move(big)[1].tolist() == [1]


@pytest.mark.parametrize("k", [2, 3])
def test_bad_values_deep_in_large_arrays(k):
    # is_p checks its bound as it goes; the message is the same as from the checks.
    piles = np.arange(150_000 * k, dtype=np.int64).reshape(-1, k)
    piles[131_077, 1] = -3
    with pytest.raises(ValueError, match=r"is_p: piles\[131077, 1\] = -3 is negative"):
        power_nim.is_p(piles)
    r = np.full(150_000, 4, dtype=np.uint64)
    r[99_999] = 2**63
    with pytest.raises(OverflowError, match=r"is_p: r\[99999\] = 9223372036854775808 is above"):
        power_nim.is_p(np.abs(piles), r)
