"""Pure twin of the solvers kernels of fibnim._core (fibnim_c/solvers.pxi): exhaustive solvers over
the rules of the games, written to be obviously right.

Pieces are bit masks: ROOK 1 (any distance west or south), BISHOP 2 (any
distance south-west), KING 4 (one step west, south or south-west), KNIGHT 8
((x - 1, y - 2) and (x - 2, y - 1)); a combined piece has several bits.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

ROOK, BISHOP, KING, KNIGHT = 1, 2, 4, 8


def _options(piece: int, x: int, y: int, size: int) -> list[int]:
    """The cells one move of the piece takes (x, y) to, each as x' * size + y'."""
    here = x * size + y
    cells: list[int] = []
    if piece & ROOK:
        cells += range(here - y, here)  # (x, 0) .. (x, y - 1)
        cells += range(y, here, size)  # (0, y) .. (x - 1, y)
    if piece & BISHOP:
        cells += range(here - min(x, y) * (size + 1), here, size + 1)  # (x - k, y - k)
    if piece & KING:
        cells += [here - step for step, room in ((size, x), (1, y), (size + 1, min(x, y))) if room]
    if piece & KNIGHT:
        cells += [
            here - step
            for step, room in ((size + 2, x >= 1 and y >= 2), (2 * size + 1, x >= 2 and y >= 1))
            if room
        ]
    return cells


def board(piece: int, size: int, misere: bool, out: np.ndarray) -> None:
    """out[x, y] = 1 where (x, y) is a P-position: no move reaches one. In misere
    play a cell with no move at all is an N-position (its player wins)."""
    cells = _cells(out)
    for x in range(size):
        for y in range(size):
            options = _options(piece, x, y, size)
            terminal = not options
            p = not any(cells[option] for option in options) and not (misere and terminal)
            cells[x * size + y] = p


def grundy(piece: int, size: int, out: np.ndarray) -> None:
    """out[x, y] = the Grundy value of (x, y) in normal play: the mex of its options'."""
    cells = _cells(out)
    for x in range(size):
        for y in range(size):
            seen = {cells[option] for option in _options(piece, x, y, size)}
            value = 0
            while value in seen:
                value += 1
            cells[x * size + y] = value


def _cells(out: np.ndarray) -> memoryview:
    """out's cells in one flat view, (x, y) at x * size + y: the search reads and
    writes the answer itself, as the compiled core does, where a table of Python
    lists took eight bytes a cell more (7 GB for the largest board)."""
    return out.reshape(-1).data


STATES_PER_CHECK = 1 << 14  # states between two calls of check


def thresholds(dims: np.ndarray, power: bool, out: np.ndarray, check: Callable[[], None]) -> None:
    """out[state] = T(state) for every state of the box [0, dims[0]] x ... (C order).

    T is the least s with a move taking s from one pile to a state whose T
    exceeds the next bound (2 s, or s in power-of-two Nim); 0 stands for
    none (infinite). (piles; r) is a P-position exactly when r < T: raising r
    only adds moves. check() is called between blocks of states: it raises to
    stop the search.
    """
    sizes = [int(d) + 1 for d in dims.tolist()]
    strides = [1] * len(sizes)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    flat = out.reshape(-1)
    values = [0] * flat.size
    for state in range(flat.size):
        if state % STATES_PER_CHECK == 0:
            check()
        piles = [(state // strides[i]) % sizes[i] for i in range(len(sizes))]
        best = 0
        for s in range(1, max(piles, default=0) + 1):
            bound = s if power else 2 * s
            for i, n in enumerate(piles):
                if n >= s:
                    after = values[state - s * strides[i]]
                    if after == 0 or after > bound:
                        best = s
                        break
            if best:
                break
        values[state] = best
    flat[:] = values
