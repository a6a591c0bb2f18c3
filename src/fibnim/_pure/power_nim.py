"""Pure twin of the power_nim kernels of fibnim._core (fibnim_c/power_nim.pxi)."""

from __future__ import annotations

import numpy as np

from fibnim._exact import power_nim as ints
from fibnim._pure._rows import classify_rows, taking


def is_p(piles: np.ndarray, r: np.ndarray, out: np.ndarray, limit: int) -> int:
    """out[i] = 1 where (piles[i]; r[i]) is a P-position of power-of-two Nim. Returns
    the first i with a pile or r above limit, or -1."""
    rows = list(zip(piles.tolist(), r.tolist(), strict=True))
    for i, (p, b) in enumerate(rows):
        if max([*p, b]) > limit:
            return i
    out[:] = [ints.is_p(p, b) for p, b in rows]
    return -1


def winning_move(
    piles: np.ndarray, r: np.ndarray, pile: np.ndarray, take: np.ndarray, bouton: bool, limit: int
) -> int:
    """(pile[i], take[i]) = the winning move from (piles[i]; r[i]); -1 where none.
    Returns the first i with a pile or r above limit, or -1."""
    rows = list(zip(piles.tolist(), r.tolist(), strict=True))
    for i, (p, b) in enumerate(rows):
        if max([*p, b]) > limit:
            return i
    moves = [ints.winning_move(p, None if bouton else b) or (-1, -1) for p, b in rows]
    pile[:] = [m[0] for m in moves]
    take[:] = [m[1] for m in moves]
    return -1


def classify(piles: np.ndarray, out: np.ndarray, bound: int, bouton: bool, limit: int) -> int:
    """Row i of out = (1 for a P-position or 0, the position after winning_move's
    move, -1 throughout where there is none). Returns the first row with a pile
    above limit, or -1."""
    r = None if bouton else bound
    return classify_rows(piles, out, limit, lambda row: taking(row, ints.winning_move(row, r)))
