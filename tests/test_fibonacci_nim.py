"""fibnim.fibonacci_nim against exhaustive search over the rules
(docs/math/fibonacci_nim.rst)."""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal

import numpy as np
import pytest
from _support import F, compiled_twin, decimal_phi, global_nim_solver

from fibnim import fibonacci_nim, solvers

BOX = 60  # every (m, m + k; r) with m, k, r <= BOX


def one_pile_outcomes(size: int) -> list[list[bool]]:
    """p[n][r] for one-pile Fibonacci Nim, from the rules: take 1..r, next bound 2 take."""
    p = [[True] * (2 * size + 2) for _ in range(size + 1)]
    for n in range(1, size + 1):
        for r in range(2 * size + 2):
            p[n][r] = not any(p[n - s][min(2 * s, 2 * size + 1)] for s in range(1, min(r, n) + 1))
    return p


def test_one_pile_is_p_against_the_rules():
    size = 150
    p = one_pile_outcomes(size)
    n, r = np.arange(size + 1)[:, None], np.arange(size + 1)[None, :]
    assert fibonacci_nim.is_p(n, r).tolist() == [row[: size + 1] for row in p]
    # the opening bound n - 1: the first player wins iff n is not a Fibonacci number
    opening = fibonacci_nim.is_p(np.arange(size + 1))
    assert opening.tolist() == [p[v][max(v - 1, 0)] for v in range(size + 1)]
    assert opening[1:].tolist() == [v in F for v in range(1, size + 1)]


def test_winning_take_wins():
    size = 150
    p = one_pile_outcomes(size)
    n, r = np.arange(size + 1)[:, None], np.arange(size + 1)[None, :]
    take = fibonacci_nim.winning_take(n, r)
    for a in range(size + 1):
        for b in range(size + 1):
            s = int(take[a, b])
            if p[a][b]:
                assert s == 0
            else:
                assert 1 <= s <= min(a, b) and p[a - s][2 * s], (a, b, s)


def test_one_pile_scalars_and_large_values():
    assert fibonacci_nim.is_p(0) and fibonacci_nim.is_p(1) and fibonacci_nim.is_p(F[80])
    assert not fibonacci_nim.is_p(F[80] + 1)
    assert fibonacci_nim.winning_take(F[80] + F[3]) == F[3]
    assert fibonacci_nim.is_p(10**40 + 1, r=0)
    big = np.array([F[90] + F[10], 2**63 - 1], dtype=np.int64)
    assert fibonacci_nim.winning_take(big).tolist() == [
        F[10],
        fibonacci_nim.winning_take(2**63 - 1),
    ]


def theorem_case(m: int, k: int, r: int) -> str:
    """Which case of docs/math/fibonacci_nim.rst (two piles) decides (m, m + k; r), r >= 1."""
    t = max(i for i in range(2, 90) if F[i] <= r)
    rest, terms = k, []
    for i in range(89, 1, -1):
        if F[i] <= rest:
            terms.append(i)
            rest -= F[i]
    terms.sort()
    first = terms[0] if terms else None
    if first is not None and first <= t:
        return "1"
    if first is None or first >= t + 2:
        return "2"
    if m < F[t]:
        return "3"
    if len(terms) > 1 and m >= F[terms[1] - 1] - F[t + 1]:
        return "5 odd" if (terms[1] - t) % 2 else "5 even"
    s = max(i for i in range(2, 90) if F[i] <= m + F[t + 1]) - t - 1
    return "4 odd" if s % 2 else "4 even"


def test_two_pile_theorem_against_search():
    # one search over the box of piles up to 2 BOX gives every (x, y; r)
    table = solvers.threshold_table([2 * BOX, 2 * BOX], power=False, where="test")
    m = np.arange(BOX + 1)[:, None, None]
    k = np.arange(BOX + 1)[None, :, None]
    r = np.arange(1, BOX + 1)[None, None, :]
    threshold = table[m, m + k].astype(np.int64)
    searched = (threshold == 0) | (r < threshold)
    closed = fibonacci_nim.global_is_p(np.stack(np.broadcast_arrays(m, m + k), axis=-1), r)
    assert closed.shape == searched.shape
    assert (closed == searched).all()
    cases = {
        theorem_case(a, b, c)
        for a in range(0, BOX + 1, 3)
        for b in range(BOX + 1)
        for c in range(1, BOX + 1)
    }
    assert cases == {"1", "2", "3", "4 odd", "4 even", "5 odd", "5 even"}


def test_two_pile_moves_are_legal_and_win():
    table = solvers.threshold_table([BOX, BOX], power=False, where="test")
    x, y = np.meshgrid(np.arange(BOX + 1), np.arange(BOX + 1), indexing="ij")
    piles = np.stack([x, y], axis=-1)
    for r in (1, 2, 3, 5, 7, 12, 30, None):
        pile, take = fibonacci_nim.global_winning_move(piles, r)
        p = fibonacci_nim.global_is_p(piles, r)
        assert ((pile == -1) == p).all() and ((take == -1) == p).all()
        for a, b in zip(*np.nonzero(~p), strict=True):
            i, s = int(pile[a, b]), int(take[a, b])
            after = [int(a), int(b)]
            assert 1 <= s <= after[i] and (r is None or s <= r)
            after[i] -= s
            assert solvers.outcome_from_threshold(int(table[tuple(after)]), 2 * s)


def test_three_piles_by_search():
    outcome = global_nim_solver()
    for piles in [(1, 2, 3), (1, 2, 4), (2, 3, 5), (3, 3, 3), (1, 1, 1, 1), (4, 5, 6)]:
        for r in (None, 1, 2, 4):
            assert fibonacci_nim.global_is_p(list(piles), r) == (outcome(piles, r) == "P")
            move = fibonacci_nim.global_winning_move(list(piles), r)
            if outcome(piles, r) == "P":
                assert move is None
            else:
                i, s = move
                after = list(piles)
                after[i] -= s
                assert 1 <= s and (r is None or s <= r) and outcome(after, 2 * s) == "P"
    many = np.array([[1, 2, 3], [1, 2, 4], [0, 0, 0], [2, 3, 5]])
    assert fibonacci_nim.global_is_p(many).tolist() == [outcome(p) == "P" for p in many.tolist()]


def test_one_and_no_piles():
    assert fibonacci_nim.global_is_p([0]) and not fibonacci_nim.global_is_p([5])
    assert fibonacci_nim.global_winning_move([5]) == (0, 5)  # no bound: its lowest term, 5
    assert fibonacci_nim.global_winning_move([12], r=2) == (0, 1)
    assert fibonacci_nim.global_is_p([]) and fibonacci_nim.global_winning_move([]) is None
    assert fibonacci_nim.global_is_p(np.array([[0], [4], [4]]), r=[5, 2, 0]).tolist() == [
        True,
        False,
        True,
    ]


def test_complementary_value():
    outcome = global_nim_solver()
    for piles in [(1,), (1, 2), (2, 3), (1, 4), (3, 4), (2, 2), (5,)]:
        b = fibonacci_nim.complementary_value(list(piles), limit=30)
        found = [c for c in range(31) if outcome((*piles, c)) == "P"]
        assert found == ([] if b is None else [b]), piles
    assert fibonacci_nim.complementary_value([3, 4]) is None
    assert fibonacci_nim.complementary_value([]) == 0


def test_bad_input():
    with pytest.raises(ValueError, match=r"piles\[1, 0\] = -1 is negative"):
        fibonacci_nim.global_is_p(np.array([[1, 2], [-1, 3]]))
    with pytest.raises(ValueError, match=r"r = -1 is negative"):
        fibonacci_nim.global_is_p([1, 2], r=-1)
    with pytest.raises(ValueError, match=r"n\[1\] = -3 is negative"):
        fibonacci_nim.is_p([1, -3])
    with pytest.raises(TypeError):
        fibonacci_nim.is_p(2.0)
    with pytest.raises(ValueError, match="states"):
        fibonacci_nim.global_is_p([10**5, 10**5, 10**5])
    with pytest.raises(TypeError):
        fibonacci_nim.global_is_p(5)  # type: ignore[arg-type]


def test_object_arrays_are_exact():
    big = np.array([[10**30, 10**30 + 5], [F[100], F[100]]], dtype=object)
    result = fibonacci_nim.global_is_p(big)
    assert result.tolist() == [fibonacci_nim.global_is_p([10**30, 10**30 + 5]), True]
    pile, take = fibonacci_nim.global_winning_move(big)
    assert pile.dtype == object and take[1] == -1


def test_is_p_bad_values_deep_in_large_arrays():
    # is_p checks its bound as it goes; the message is the same as from the checks.
    n = np.arange(150_001, dtype=np.int64)
    n[::7] += F[70]  # wide values among the others
    n[131_077] = -6
    with pytest.raises(ValueError, match=r"is_p: n\[131077\] = -6 is negative"):
        fibonacci_nim.is_p(n)
    with pytest.raises(ValueError, match=r"is_p: n\[131077\] = -6 is negative"):
        fibonacci_nim.is_p(n, 5)
    r = np.full(150_001, 3, dtype=np.int64)
    r[70_003] = -1
    with pytest.raises(ValueError, match=r"is_p: r\[70003\] = -1 is negative"):
        fibonacci_nim.is_p(np.abs(n), r)
    good = np.abs(n)
    assert fibonacci_nim.is_p(good, 7)[:3000].tolist() == [
        fibonacci_nim.is_p(int(v), 7) for v in good[:3000]
    ]


def lowest_index(v: int) -> int:
    """The index i >= 2 of v's lowest Zeckendorf term (v >= 1), greedily."""
    k, low = len(F) - 1, 0
    while v:
        while F[k] > v:
            k -= 1
        v, low = v - F[k], k
    return low


def fraction(x: Decimal) -> Decimal:
    """x mod 1, in [0, 1) (Decimal's % keeps the sign of x)."""
    return x - x.to_integral_value(rounding=ROUND_FLOOR)


def arc(j: int, phi: Decimal) -> tuple[Decimal, Decimal]:
    """The arc of v / phi mod 1 holding the v whose lowest index is at least j:
    (-1/phi)**(j-2) (-1/phi, 1/phi**2), by its start mod 1 and its length."""
    ends = [(-1 / phi) ** (j - 2) * (-1 / phi), (-1 / phi) ** (j - 2) / phi**2]
    return fraction(min(ends)), abs(ends[1] - ends[0])


def test_lowest_index_is_read_off_v_over_phi():
    # The fact the compiled is_p and global_is_p rest on (fibnim_c/fibonacci_nim.pxi):
    # v's lowest Zeckendorf index is at least j iff v / phi mod 1 lies on arc(j).
    phi = decimal_phi(80)
    for j in range(2, 22):
        start, length = arc(j, phi)
        for v in range(1, 3000):
            offset = fraction(v / phi - start)
            assert (offset < length) == (lowest_index(v) >= j), (v, j)


def test_arc_tables_hold():
    compiled = compiled_twin("fibonacci_nim")
    phi = decimal_phi(80)
    for j, (start, length) in enumerate(compiled.ARC_TABLES[2:], start=2):
        true_start, true_length = arc(j, phi)
        assert start == int(true_start * 2**64)  # floor, so within 1 below
        assert length == min(int(true_length * 2**64), 2**64 - 1)


def test_two_pile_bad_values_deep_in_large_arrays():
    # two-pile global_is_p checks its bound as it goes, as is_p does
    piles = np.ones((150_001, 2), dtype=np.int64)
    piles[90_001, 1] = -4
    with pytest.raises(ValueError, match=r"global_is_p: piles\[90001, 1\] = -4 is negative"):
        fibonacci_nim.global_is_p(piles, 3)
    r = np.full(150_001, 3, dtype=np.int64)
    r[100_003] = -2
    with pytest.raises(ValueError, match=r"global_is_p: r\[100003\] = -2 is negative"):
        fibonacci_nim.global_is_p(np.abs(piles), r)
