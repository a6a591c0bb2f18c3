"""Pure twin of the fibonacci_nim kernels of fibnim._core (fibnim_c/fibonacci_nim.pxi)."""

from __future__ import annotations

from typing import Any

import numpy as np

from fibnim._exact import fibonacci_nim as ints
from fibnim._pure._rows import classify_rows, taking


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


# Fused kernels of fibnim.classify: row i of out is (1 for a P-position or 0,
# the position after the winning move, -1 throughout where there is none).
# Each returns the first row with a pile above its limit, or -1.


def classify_one_pile(
    piles: np.ndarray, out: np.ndarray, bound: int, opening: bool, limit: int
) -> int:
    """One pile: take its lowest Zeckendorf term where that is at most the bound
    (opening: n - 1, the first move's)."""

    def target(row: list[int]) -> list[int] | None:
        n = row[0]
        take = ints.one_pile_take(n, max(n - 1, 0) if opening else bound)
        return [n - take] if take else None

    return classify_rows(piles, out, limit, target)


def classify_two_piles(piles: np.ndarray, out: np.ndarray, bound: int, limit: int) -> int:
    """Two piles of global Fibonacci Nim: the closed form's move."""
    return classify_rows(
        piles, out, limit, lambda row: taking(row, ints.two_pile_move(row[0], row[1], bound))
    )


def classify_searched(
    piles: np.ndarray,
    out: np.ndarray,
    table: np.ndarray,
    steps: np.ndarray,
    sizes: np.ndarray,
    bound: int,
    limit: int,
) -> int:
    """Three or more piles, from the flattened threshold table of fibnim.solvers:
    P iff T = 0 or T > bound; else the least winning take T, from the first pile
    it wins from."""
    for i, row in enumerate(piles.tolist()):
        if any(n > min(size, limit) for n, size in zip(row, sizes.tolist(), strict=True)):
            return i
    step = steps.tolist()

    def at(row: list[int]) -> int:
        return int(table[sum(n * s for n, s in zip(row, step, strict=True))])

    def target(row: list[int]) -> list[int] | None:
        threshold = at(row)
        if threshold == 0 or threshold > bound:
            return None
        for j, n in enumerate(row):
            if n >= threshold:
                after = taking(row, (j, threshold))
                assert after is not None
                following = at(after)
                if following == 0 or following > 2 * threshold:
                    return after
        raise AssertionError("the threshold names a winning take")  # by its definition

    return classify_rows(piles, out, limit, target)


# the elementwise kernels, one per declaration (fibnim._declarations)
def __getattr__(name: str) -> Any:
    # the declared kernels, made from their declarations on first use (this
    # module is imported before fibnim._declarations)
    from fibnim._declarations import twin_of

    return twin_of("fibonacci_nim")(name)
