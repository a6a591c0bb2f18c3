"""Bulk classification: outcome and winning move for many positions of one game.

`classify(positions, game)` takes an integer array of shape (N, k), one
position per row, and returns an int64 array of shape (N, 1 + k): column 0 is
1 for a P-position (the player to move loses) and 0 for an N-position, the
other columns the position a winning move leads to, -1 where there is none.
For the one-pile game the target is the pile after the move. This is the
layout `fibnim classify` writes to .npy files.

>>> import numpy as np
>>> from fibnim.classify import classify
>>> classify(np.array([[3, 5], [4, 4], [0, 0]]), "wythoff")
array([[ 1, -1, -1],
       [ 0,  0,  0],
       [ 1, -1, -1]])
>>> classify(np.array([[12], [13]]), "fibonacci-nim")  # 12 = 8 + 3 + 1: take 1
array([[ 0, 11],
       [ 1, -1]])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fibnim import _dask, fibonacci_nim, power_nim, wythoff
from fibnim._checks import Bound, check_int, integers

_PILE = Bound(2**63 - 1, OverflowError, "is above 2**63 - 1 (classify answers in int64)")

__all__ = ["GAMES", "Game", "classify", "random_positions"]


@dataclass(frozen=True)
class Game:
    """A game `classify` knows: its name, how many piles a position has (None:
    any number), whether it takes a bound on the next take, what a bound of
    None means, and how to solve an array of positions: (P or not, targets)."""

    name: str
    piles: int | None
    bounded: bool
    unbounded_means: str
    solve: Callable[[NDArray[np.int64], int | None], tuple[Any, NDArray[np.int64]]]

    def check_piles(self, k: int) -> None:
        if self.piles is not None and k != self.piles:
            raise ValueError(
                f"{self.name} takes positions of {self.piles} pile{'s' * (self.piles > 1)}"
                f" (columns), not {k}"
            )
        if k < 1:
            raise ValueError(f"{self.name}: a position needs at least one pile")


def _targets(piles: NDArray[np.int64], pile: NDArray[np.int64], take: NDArray[np.int64]) -> Any:
    """The positions after taking take[i] from pile pile[i] of row i; -1 rows where pile is -1."""
    targets = piles.astype(np.int64, copy=True)
    rows = np.flatnonzero(pile >= 0)
    targets[rows, pile[rows]] -= take[rows]
    targets[pile < 0] = -1
    return targets


def _wythoff(misere: bool) -> Callable[[NDArray[np.int64], int | None], Any]:
    def solve(piles: NDArray[np.int64], bound: int | None) -> Any:
        x, y = piles[:, 0], piles[:, 1]
        # not "no winning move": in misere play (0, 0) has none and is an N-position
        outcome = wythoff.is_safe(x, y, misere=misere)
        return outcome, np.stack(wythoff.winning_move(x, y, misere=misere), axis=-1)

    return solve


# In the normal-play games below, a position is P exactly when it has no winning move.


def _fibonacci_nim(piles: NDArray[np.int64], bound: int | None) -> Any:
    take = fibonacci_nim.winning_take(piles[:, 0], bound)
    return take == 0, np.where(take > 0, piles[:, 0] - take, -1)[:, None]


def _global_fibonacci_nim(piles: NDArray[np.int64], bound: int | None) -> Any:
    pile, take = fibonacci_nim.global_winning_move(piles, bound)
    return pile < 0, _targets(piles, pile, take)


def _power_nim(piles: NDArray[np.int64], bound: int | None) -> Any:
    pile, take = power_nim.winning_move(piles, bound)
    return pile < 0, _targets(piles, pile, take)


GAMES: dict[str, Game] = {
    game.name: game
    for game in [
        Game("wythoff", 2, False, "", _wythoff(False)),
        Game("wythoff-misere", 2, False, "", _wythoff(True)),
        Game("fibonacci-nim", 1, True, "the opening bound n - 1", _fibonacci_nim),
        Game("global-fibonacci-nim", None, True, "no bound", _global_fibonacci_nim),
        Game("power-nim", None, True, "no bound (Bouton's Nim)", _power_nim),
        Game("nim", None, False, "", _power_nim),
    ]
}


def game_named(name: str) -> Game:
    """The Game called name; ValueError listing the games otherwise."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; the games are {', '.join(GAMES)}")
    return GAMES[name]


def classify(positions: Any, game: str, bound: int | None = None) -> Any:
    """Outcome and winning move of every position (row) of positions.

    Parameters
    ----------
    positions : array_like of int, shape (N, k), or a dask array
        One position per row: its k piles, each >= 0.
    game : str
        One of wythoff, wythoff-misere, fibonacci-nim (one pile),
        global-fibonacci-nim, power-nim, nim.
    bound : int, optional
        The bound on the next take where the game has one: fibonacci-nim (None
        is the opening bound n - 1), global-fibonacci-nim and power-nim (None:
        no bound).

    Returns
    -------
    int64 array of shape (N, 1 + k)
        Column 0: 1 for a P-position, 0 for an N-position. Columns 1..k: the
        position a winning move leads to, -1 throughout for a P-position. A
        dask array in, a lazy dask array out, block by block.

    Examples
    --------
    >>> import numpy as np
    >>> from fibnim.classify import classify
    >>> classify(np.array([[3, 4, 5], [1, 2, 3]]), "nim")  # 3 -> 1 zeroes the xor
    array([[ 0,  1,  4,  5],
           [ 1, -1, -1, -1]])
    >>> classify(np.array([[3, 4, 5]]), "power-nim", bound=1)  # sb(3 ^ 4 ^ 5) = 2 > 1
    array([[ 1, -1, -1, -1]])
    """
    rules = game_named(game)
    if bound is not None and not rules.bounded:
        raise ValueError(f"{game} has no bound on the next take")
    if _dask.is_dask(positions):
        return _dask.classify_blocks(classify, positions, game, bound)
    array = integers(positions, "classify", "positions")
    if isinstance(array, int) or array.ndim != 2:
        raise ValueError(
            f"classify: positions must be an array (N, k), not of shape {np.shape(array)}"
        )
    rules.check_piles(array.shape[1])
    if array.dtype == object:  # the result is int64, so the piles must fit it too
        for index in np.ndindex(array.shape):
            check_int(array[index], "classify", "positions", high=_PILE, index=index)
        array = array.astype(np.int64)
    outcome, targets = rules.solve(array, bound)
    result = np.empty((array.shape[0], 1 + array.shape[1]), dtype=np.int64)
    result[:, 0] = outcome
    result[:, 1:] = targets
    return result


def random_positions(
    count: int, game: str, piles: int, seed: int | Sequence[int]
) -> NDArray[np.int64]:
    """count random positions of game with the given number of piles, each
    below 10**6, from numpy's default generator seeded with seed; the same
    (count, seed) always gives the same positions.

    >>> from fibnim.classify import random_positions
    >>> random_positions(2, "wythoff", 2, seed=1).shape
    (2, 2)
    """
    rules = game_named(game)
    rules.check_piles(piles)
    rng = np.random.default_rng(seed)
    return rng.integers(0, 10**6, size=(count, piles), dtype=np.int64)
