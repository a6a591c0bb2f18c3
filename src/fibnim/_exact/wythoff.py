"""Wythoff's Nim on Python ints, exact for any size (docs/math/wythoff.rst).

a_n = floor(n phi) = (n + isqrt(5 n^2)) // 2 exactly, and b_n = a_n + n. The
safe pairs (P-positions) are (0, 0) and (a_n, b_n), (b_n, a_n) for n >= 1.
"""

from __future__ import annotations

from math import isqrt

from fibnim._exact import zeckendorf as zeck

Move = tuple[int, int]


def beatty(m: int) -> int:
    """floor(m phi) for m >= 0. sqrt(5 m^2) is irrational for m >= 1, so the floor
    of (m + sqrt(5 m^2)) / 2 is (m + isqrt(5 m^2)) // 2."""
    return (m + isqrt(5 * m * m)) // 2


def pair(n: int) -> Move:
    """(a_n, b_n); (0, 0) for n = 0."""
    a = beatty(n)
    return a, a + n


def is_lower(x: int) -> bool:
    """Whether x is an A-number a_n (n >= 1).

    The A-numbers up to x number floor((x + 1) / phi) = beatty(x + 1) - (x + 1),
    so x is one exactly when that count grows by one at x.
    """
    return x >= 1 and beatty(x + 1) - beatty(x) == 2


def is_upper(x: int) -> bool:
    """Whether x is a B-number b_n (n >= 1): every x >= 1 is an A- or a B-number."""
    return x >= 1 and not is_lower(x)


def index(x: int) -> int:
    """The n with x = a_n or x = b_n; 0 for 0."""
    if x == 0:
        return 0
    below = beatty(x + 1) - (x + 1)  # A-numbers <= x
    return below if is_lower(x) else x - below


def partner(x: int) -> int:
    """The other member of x's safe pair: b_n for a_n, a_n for b_n; 0 for 0."""
    n = index(x)
    return x + n if is_lower(x) else x - n


def is_safe(x: int, y: int, misere: bool = False) -> bool:
    """Whether (x, y) is a P-position (the player to move loses)."""
    small, large = min(x, y), max(x, y)
    if misere and large <= 2:
        return (small, large) in ((0, 1), (2, 2))
    return small == beatty(large - small)


def _ordered(x: int, y: int, small: int, large: int) -> Move:
    """A target given as (small pile, large pile) in the pile order of (x, y)."""
    return (small, large) if x <= y else (large, small)


def winning_move(x: int, y: int, misere: bool = False) -> Move | None:
    """Silber's winning move (math.md section 4), in the pile order of (x, y); None from a
    P-position. Misere play differs only where the normal move would end on (0, 0),
    (1, 2) or (2, 1), the normal P-positions that misere play replaces."""
    s, l = min(x, y), max(x, y)  # noqa: E741
    if is_safe(s, l, misere) or (misere and l == 0):
        return None
    if s == l or s == 0:
        target = (0, 0)
    elif not is_lower(s):
        target = (s, partner(s))  # s is a B-number: its A-partner, below s <= l
    elif l > partner(s):
        target = (s, partner(s))  # s = a_n, l > b_n
    else:
        target = pair(l - s)  # a_n < l < b_n: the pair of difference l - s
    if misere and max(target) <= 2:
        target = _misere_endgame(s, l)
    return _ordered(x, y, *target)


def _misere_endgame(s: int, l: int) -> Move:  # noqa: E741
    """The misere move where the normal one ends on (0, 0) or (1, 2): (0, 1), (1, 0) or (2, 2)."""
    if s == 0 or (s == 1 and l == 1):
        return (0, 1)  # (0, l) with l >= 2, and (1, 1)
    if s == l or s == 2:
        return (2, 2)  # (k, k) with k >= 3, and (2, l) with l >= 3
    if s == 1:
        return (0, 1) if l == 2 else (1, 0)  # (1, l), l >= 3: empty the larger pile
    return (0, 1)  # (s, s + 1): take s from both


def winning_moves(x: int, y: int, misere: bool = False) -> list[Move]:
    """Every move from (x, y) to a P-position, sorted.

    On each line of moves (pile x, pile y, the diagonal) at most one position is
    a P-position, and which one is known: so this is exact for any size.
    """
    found = set()
    for target in (
        (_partner_on_line(y, misere), y),
        (x, _partner_on_line(x, misere)),
        _on_diagonal(x, y, misere),
    ):
        tx, ty = target
        if (
            tx <= x
            and ty <= y
            and (tx, ty) != (x, y)
            and (x - tx == 0 or y - ty == 0 or x - tx == y - ty)
        ):
            if is_safe(tx, ty, misere):
                found.add((tx, ty))
    return sorted(found)


def _partner_on_line(other: int, misere: bool) -> int:
    """The pile p with (p, other) a P-position."""
    if misere and other <= 2:
        return {0: 1, 1: 0, 2: 2}[other]
    return partner(other)


def _on_diagonal(x: int, y: int, misere: bool) -> Move:
    """The P-position on the diagonal through (x, y), keeping the pile order."""
    d = abs(x - y)
    if misere and d <= 1:
        small, large = (2, 2) if d == 0 else (0, 1)
    elif d == 0:
        small, large = 0, 0
    else:
        small, large = pair(d)
    return _ordered(x, y, small, large)


def array_position(x: int) -> Move:
    """(row, column), 1-based, of x >= 1 in the Wythoff array.

    Each row is a chain of left shifts: column c holds the code of column 1
    shifted c - 1 times, and column 1 holds W(r, 1) = a_{a_r}.
    """
    code = zeck.code(x)
    column = (code & -code).bit_length()  # the lowest index is column + 1
    first = zeck.value(code >> (column - 1))
    return index(index(first)), column
