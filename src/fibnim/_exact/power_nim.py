"""Power-of-two Nim and Bouton's Nim on Python ints (docs/math/power_nim.rst).

(n_1, ..., n_k; r): a move takes s, 1 <= s <= r, from one pile; the next bound
is s. With X the xor of the piles and sb(X) its smallest power of two
(sb(0) = infinite), the position is P iff sb(X) > r. r = None is Bouton's Nim:
P iff X = 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from operator import xor


def is_p(piles: Sequence[int], r: int | None) -> bool:
    x = reduce(xor, piles, 0)
    if x == 0:
        return True
    return r is not None and (x & -x) > r


def winning_move(piles: Sequence[int], r: int | None) -> tuple[int, int] | None:
    """(pile index, counters): from the first pile i with n_i xor X < n_i, Bouton's
    move to n_i xor X (r = None), or a take of sb(X) (finite r); None from a P-position."""
    if is_p(piles, r):
        return None
    x = reduce(xor, piles, 0)
    i = next(i for i, n in enumerate(piles) if n ^ x < n)
    return i, (piles[i] - (piles[i] ^ x) if r is None else x & -x)
