"""fibnim.power_nim against exhaustive search over the rules (docs/math/power_nim.rst)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _support import global_nim_solver

from fibnim import power_nim, solvers
from fibnim._exact import power_nim as ints


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


def _expected(piles: np.ndarray, r: np.ndarray | None) -> tuple[np.ndarray, ...]:
    """is_p and winning_move row by row from the exact functions on Python ints."""
    shape = np.broadcast_shapes(piles.shape[:-1], () if r is None else np.shape(r))
    k = piles.shape[-1]
    rows = np.broadcast_to(piles, (*shape, k)).reshape(int(np.prod(shape)), k)
    bounds = [None] * len(rows) if r is None else np.broadcast_to(r, shape).reshape(-1)
    p, pile, take = [], [], []
    for row, bound in zip(rows, bounds, strict=True):
        values = [int(v) for v in row]
        bound = None if bound is None else int(bound)
        p.append(ints.is_p(values, bound))
        move = ints.winning_move(values, bound) or (-1, -1)
        pile.append(move[0])
        take.append(move[1])
    return tuple(np.array(a).reshape(shape) for a in (p, pile, take))


LAYOUTS = ["C", "F", "strided", "reversed"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("k", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32, np.uint8])
def test_arrays_of_every_layout_and_dtype_against_the_exact_functions(layout, k, dtype):
    # on the compiled core a generalized ufunc over the last axis, (k),()->()
    # (the SIMD kernel for contiguous two-pile rows), otherwise the general path
    rng = np.random.default_rng(k)
    high = np.iinfo(dtype).max if dtype != np.uint64 else 2**63 - 1
    base = rng.integers(0, min(high, 2**62), size=(7, 9, 2 * k), dtype=np.int64).astype(dtype)
    base[0, :, :k] = base[0, :, k:]  # rows whose xor is 0
    piles = {
        "C": base[..., :k],
        "F": np.asfortranarray(base[..., :k]),
        "strided": base[:, ::2, ::2][..., :k] if k else base[:, ::2, :0],
        "reversed": base[::-1, :, ::-1][..., :k],
    }[layout]
    r = rng.integers(0, 2**40, size=piles.shape[-2]).astype(np.uint64)
    r[::3] = 0
    for bound in (None, r, 5):
        p, pile, take = _expected(piles, bound)
        assert np.array_equal(power_nim.is_p(piles, bound), p)
        got = power_nim.winning_move(piles, bound)
        assert np.array_equal(got[0], pile) and np.array_equal(got[1], take)


def test_out_takes_the_answers_and_is_returned():
    piles = np.array([[1, 2, 3], [1, 2, 4], [3, 4, 5], [6, 1, 2]])
    out = np.full(4, True)
    assert power_nim.is_p(piles, 1, out=out) is out
    assert out.tolist() == [True, False, True, False]  # X = 0, sb(X) = 1, 2, 1
    with pytest.raises(ValueError, match=r"out must have shape \(4,\) and dtype bool, not"):
        power_nim.is_p(piles, out=np.zeros(4, dtype=np.int64))
    moves = (np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64))
    got = power_nim.winning_move(piles, out=moves)
    assert got[0] is moves[0] and got[1] is moves[1]
    assert moves[0].tolist() == [-1, 2, 0, 0] and moves[1].tolist() == [-1, 1, 2, 3]
    # the bound as an output of the same shape: each row's r is read before its answer
    r = np.array([1, 1, 5, 4])
    pile, take = power_nim.winning_move(piles, r, out=(r, np.zeros(4, dtype=np.int64)))
    assert pile is r and pile.tolist() == [-1, 2, 0, 0] and take.tolist() == [-1, 1, 2, 1]


@pytest.mark.parametrize("where", [0, 8191, 8192, 70_001])
@pytest.mark.parametrize("strided", [False, True])
def test_errors_name_the_index_in_the_callers_array(where, strided):
    # numpy hands the compiled loop buffers of 8192 rows: the index is still the caller's
    rows = 80_000
    base = np.arange(rows * 4, dtype=np.int64).reshape(rows, 4) % 1000
    piles = base[:, ::2] if strided else np.ascontiguousarray(base[:, :2])
    piles[where, 1] = -7
    with pytest.raises(ValueError, match=rf"is_p: piles\[{where}, 1\] = -7 is negative"):
        power_nim.is_p(piles, np.uint64(3))
    with pytest.raises(ValueError, match=rf"winning_move: piles\[{where}, 1\] = -7 is negative"):
        power_nim.winning_move(piles)
    piles[where, 1] = 5
    r = np.full(rows, 3, dtype=np.uint64)
    r[where] = 2**63
    with pytest.raises(OverflowError, match=rf"winning_move: r\[{where}\] = {2**63} is above"):
        power_nim.winning_move(piles, r)
    out = np.zeros(rows, dtype=bool)
    with pytest.raises(OverflowError):
        power_nim.is_p(piles, r, out=out)
    # the answers before the bad row stand; nothing after it holds unwritten memory
    assert np.array_equal(out[:where], power_nim.is_p(piles[:where], r[:where]))
