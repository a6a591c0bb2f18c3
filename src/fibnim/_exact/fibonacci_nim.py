"""Fibonacci Nim on Python ints, exact for any size (docs/math/fibonacci_nim.rst).

A position (n_1, ..., n_k; r): piles and the most that may be taken now. A
move takes s, 1 <= s <= r, from one pile; the next bound is 2 s. One pile is
Whinihan's Fibonacci Nim; two piles have the closed form of
docs/math/fibonacci_nim.rst (two piles); more piles are searched
(fibnim.solvers).
"""

from __future__ import annotations

from fibnim._exact import zeckendorf as zeck


def one_pile_is_p(n: int, r: int) -> bool:
    """(n; r) is a P-position iff its lowest Zeckendorf term exceeds r (n = 0: always)."""
    return n == 0 or zeck.lowest_term(n) > r


def one_pile_take(n: int, r: int) -> int:
    """The winning take from (n; r): its lowest term z_1(n), or 0 when none wins."""
    return 0 if one_pile_is_p(n, r) else zeck.lowest_term(n)


def _two_lowest_indices(k: int) -> tuple[int | None, int | None]:
    """The indices of z_1(k) and z_2(k) (None where absent)."""
    code = zeck.code(k)
    indices = [i + 2 for i in range(code.bit_length()) if code >> i & 1]
    return (indices[0] if indices else None), (indices[1] if len(indices) > 1 else None)


def _bound_index(r: int) -> int:
    """The t >= 2 with F_t <= r < F_{t+1}, r >= 1."""
    return zeck.top_index(r)


def two_pile_is_p(x: int, y: int, r: int | None) -> bool:
    """Whether (x, y; r) is a P-position, by Theorem 10 of Larsson and
    Rubinstein-Salzedo as restated in docs/math/fibonacci_nim.rst (two piles)."""
    m, large = min(x, y), max(x, y)
    k = large - m
    if r is None or r > large:
        r = large  # no move can take more than a pile holds
    if r == 0:
        return True  # no move at all (both piles empty, or a zero bound)
    t = _bound_index(r)
    first, second = _two_lowest_indices(k)
    if first is None or first >= t + 2:
        return True  # case 2 (k = 0 included)
    if first <= t:
        return False  # case 1
    fib = zeck.fib  # first == t + 1 from here on
    if m < fib(t):
        return True  # case 3
    if second is not None and m >= fib(second - 1) - fib(t + 1):
        return (second - t) % 2 == 0  # case 5: d = second - t
    # case 4: F_{t+s+1} <= m + F_{t+1} < F_{t+s+2}
    s = zeck.top_index(m + fib(t + 1)) - t - 1
    return s % 2 == 0


def two_pile_move(x: int, y: int, r: int | None) -> tuple[int, int] | None:
    """A winning move (pile index, counters) from (x, y; r), or None from a P-position.

    From the paper's discussion: if z_1(k) = F_e <= r, taking F_e from the
    larger pile or F_{e-1} from the smaller one wins; otherwise taking F_t
    from the smaller pile does. The candidates are checked with the theorem.
    """
    if two_pile_is_p(x, y, r):
        return None
    piles = [x, y]
    small = 0 if x <= y else 1
    large = 1 - small
    k = piles[large] - piles[small]
    bound = piles[large] if r is None or r > piles[large] else r
    first, _ = _two_lowest_indices(k)
    if first is not None and zeck.fib(first) <= bound:
        candidates = [(large, zeck.fib(first)), (small, zeck.fib(first - 1))]
    else:
        candidates = [(small, zeck.fib(_bound_index(bound)))]
    for pile, take in candidates:
        if 1 <= take <= min(bound, piles[pile]):
            after = list(piles)
            after[pile] -= take
            if two_pile_is_p(after[0], after[1], 2 * take):
                return pile, take
    raise AssertionError(
        f"no winning move found from ({x}, {y}; {r})"
    )  # the theorem says otherwise
