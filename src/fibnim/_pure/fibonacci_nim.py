"""Pure twin of fibnim._fibonacci_nim (fibnim_c/_fibonacci_nim.pyx)."""

from __future__ import annotations

import numpy as np

from fibnim._exact import fibonacci_nim as ints


def is_p(n: np.ndarray, r: np.ndarray, out: np.ndarray, limit: int) -> int:
    """out[i] = 1 where (n[i]; r[i]) is a P-position of one-pile Fibonacci Nim. Returns
    the first i with n or r above limit, or -1."""
    pairs = list(zip(n.tolist(), r.tolist(), strict=True))
    for i, (a, b) in enumerate(pairs):
        if max(a, b) > limit:
            return i
    out[:] = [ints.one_pile_is_p(a, b) for a, b in pairs]
    return -1


def winning_take(n: np.ndarray, r: np.ndarray, out: np.ndarray, limit: int) -> int:
    """out[i] = the winning take from (n[i]; r[i]), or 0 if none wins. Returns the
    first i with n or r above limit, or -1."""
    pairs = list(zip(n.tolist(), r.tolist(), strict=True))
    for i, (a, b) in enumerate(pairs):
        if max(a, b) > limit:
            return i
    out[:] = [ints.one_pile_take(a, b) for a, b in pairs]
    return -1


def two_pile_is_p(piles: np.ndarray, r: np.ndarray, out: np.ndarray, limit: int) -> int:
    """out[i] = 1 where (piles[i, 0], piles[i, 1]; r[i]) is a P-position of global
    Fibonacci Nim. Returns the first i with a pile or r above limit, or -1."""
    values = list(zip(piles.tolist(), r.tolist(), strict=True))
    for i, ((a, b), c) in enumerate(values):
        if max(a, b, c) > limit:
            return i
    out[:] = [ints.two_pile_is_p(a, b, c) for (a, b), c in values]
    return -1


def two_pile_move(
    piles: np.ndarray, r: np.ndarray, pile: np.ndarray, take: np.ndarray, limit: int
) -> int:
    """(pile[i], take[i]) = a winning move from (piles[i, 0], piles[i, 1]; r[i]); -1
    where none. Returns the first i with a pile or r above limit, or -1."""
    values = list(zip(piles.tolist(), r.tolist(), strict=True))
    for i, ((a, b), c) in enumerate(values):
        if max(a, b, c) > limit:
            return i
    moves = [ints.two_pile_move(a, b, c) or (-1, -1) for (a, b), c in values]
    pile[:] = [m[0] for m in moves]
    take[:] = [m[1] for m in moves]
    return -1


def use_simd(wanted: bool) -> bool:
    """The compiled twin's switch for its AVX-512 paths; the pure twin has none."""
    return False
