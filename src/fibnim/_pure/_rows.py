"""What the pure twins share: the fused classify kernels' row loop."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def classify_rows(
    piles: np.ndarray,
    out: np.ndarray,
    limit: int,
    target: Callable[[list[int]], Sequence[int] | None],
    p_without_move: Callable[[list[int]], bool] = lambda row: True,
) -> int:
    """Row i of out = (1 for a P-position or 0, target(row), -1 throughout where
    it is None: no winning move) for each row of piles, a uint64 array of any
    strides. Returns the first row with a pile above limit (nothing written
    from there on), or -1. A position without a winning move is P unless
    p_without_move says otherwise (misere Wythoff's (0, 0))."""
    for i, row in enumerate(piles.tolist()):
        if max(row, default=0) > limit:
            return i
        after = target(row)
        if after is None:
            out[i] = [int(p_without_move(row))] + [-1] * len(row)
        else:
            out[i] = [0, *after]
    return -1


def taking(row: list[int], move: tuple[int, int] | None) -> list[int] | None:
    """The row after move = (pile index, counters), or None for None."""
    if move is None:
        return None
    after = list(row)
    after[move[0]] -= move[1]
    return after
