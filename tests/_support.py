"""Values and helpers the tests share (tests/ is on pytest's pythonpath)."""

from __future__ import annotations

F = [0, 1]  # F_0 .. F_599, built here rather than taken from fibnim
while len(F) < 600:
    F.append(F[-1] + F[-2])
UINT64_MAX = 2**64 - 1


def edge_values(limit: int) -> list[int]:
    """0, 1, F_k - 1, F_k, F_k + 1 for every k, limit - 1 and limit: those <= limit."""
    values = {0, 1, limit - 1, limit}
    for f in F:
        values.update((f - 1, f, f + 1))
    return sorted(v for v in values if 0 <= v <= limit)


def wythoff_board(size: int, misere: bool = False) -> list[list[bool]]:
    """P-positions of Wythoff's Nim on a size x size board, from its rules alone.

    A position is P when no move (take from one pile, or the same from both)
    reaches a P-position; in misere play (0, 0), where the player to move
    cannot move and so wins, is not one. One sweep in increasing order, with
    flags saying whether a row, a column or a diagonal already holds a P-position
    below the current cell.
    """
    p = [[False] * size for _ in range(size)]
    row_has = [False] * size  # some (x', y) with x' < x is P
    col_has = [False] * size  # some (x, y') with y' < y is P
    diag_has = [False] * (2 * size)  # some (x - k, y - k) is P, keyed by x - y + size
    for x in range(size):
        for y in range(size):
            reaches_p = row_has[y] or col_has[x] or diag_has[x - y + size]
            p[x][y] = not reaches_p and not (misere and x == y == 0)
            if p[x][y]:
                row_has[y] = col_has[x] = diag_has[x - y + size] = True
    return p


def wythoff_options(x: int, y: int) -> list[tuple[int, int]]:
    """Every position one move from (x, y)."""
    moves = [(k, y) for k in range(x)] + [(x, k) for k in range(y)]
    return moves + [(x - k, y - k) for k in range(1, min(x, y) + 1)]
