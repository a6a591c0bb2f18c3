"""Exhaustive solvers that know only the rules of the games (docs/math/cornering.rst).

fibnim's closed forms are held against these in its tests, and they answer
what no closed form does: the cornering games of other chess pieces, Grundy
values, and global Fibonacci Nim with three or more piles.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from fibnim import _backend, _stop
from fibnim._checks import Bound, flag, one_int, positions

__all__ = [
    "BOARD_LIMIT",
    "GRUNDY_LIMIT",
    "PIECES",
    "board",
    "global_outcome",
    "grundy",
    "state_limit",
]

#: The pieces of the cornering games (docs/math/cornering.rst), as move sets;
#: join several with "+".
PIECES = {"rook": 1, "bishop": 2, "queen": 3, "king": 4, "knight": 8}

#: The largest board side of board() (its answers take size**2 bytes).
BOARD_LIMIT = 30_000
#: The largest board side of grundy() (its answers take 8 size**2 bytes).
GRUNDY_LIMIT = 10_000

#: The most states one search visits, by backend: 4 bytes a state for the
#: compiled core (0.4 GB); the pure twin's loop does ~4 * 10**5 states a second,
#: so 2 * 10**6 answers in seconds every search of the global Fibonacci Nim
#: paper's tables (the complementary value of every pair up to (30, 30), with
#: b up to 1000, is a search of 961,961 states).
STATE_LIMITS = {"cython": 10**8, "python": 2 * 10**6}


def state_limit() -> int:
    """The most states a search may visit with the backend in use."""
    return STATE_LIMITS[_backend.name()]


def _piece(piece: str, where: str) -> int:
    if not isinstance(piece, str):
        raise TypeError(f"{where}: piece must be a str such as 'queen' or 'rook+knight'")
    mask = 0
    for name in piece.split("+"):
        if name.strip() not in PIECES:
            raise ValueError(
                f"{where}: unknown piece {name.strip()!r} in {piece!r}; the pieces are "
                + ", ".join(PIECES)
            )
        mask |= PIECES[name.strip()]
    return mask


def _game(piece: str, size: int, where: str, limit: int) -> tuple[int, int]:
    """The piece's move mask and the checked board side."""
    high = Bound(limit, ValueError, f"is above {limit}")
    return _piece(piece, where), one_int(size, where, "size", high=high)


def board(piece: str, size: int, *, misere: bool = False) -> NDArray[np.bool_]:
    """The P-positions of a cornering game on a size x size board, cell [x, y].

    A piece on (x, y) moves only west, south or south-west; the player who
    cannot move loses (misere: wins). The queen's game is Wythoff's Nim.

    Examples
    --------
    >>> from fibnim import solvers
    >>> p = solvers.board("queen", 6)
    >>> [(int(x), int(y)) for x, y in zip(*p.nonzero())]
    [(0, 0), (1, 2), (2, 1), (3, 5), (5, 3)]
    >>> solvers.board("king", 4).astype(int)
    array([[1, 0, 1, 0],
           [0, 0, 0, 0],
           [1, 0, 1, 0],
           [0, 0, 0, 0]])
    """
    mask, size = _game(piece, size, "board", BOARD_LIMIT)
    out = np.zeros((size, size), dtype=np.bool_)
    misere = flag(misere, "board", "misere")
    _backend.kernels("solvers").board(mask, size, misere, out.view(np.uint8))
    return out


def grundy(piece: str, size: int) -> NDArray[np.int64]:
    """Grundy (Sprague-Grundy) values of a cornering game in normal play, cell [x, y].

    Examples
    --------
    >>> from fibnim import solvers
    >>> solvers.grundy("queen", 4)
    array([[0, 1, 2, 3],
           [1, 2, 0, 4],
           [2, 0, 1, 5],
           [3, 4, 5, 6]])
    """
    mask, size = _game(piece, size, "grundy", GRUNDY_LIMIT)
    out = np.zeros((size, size), dtype=np.int64)
    _backend.kernels("solvers").grundy(mask, size, out)
    return out


def threshold_table(dims: Sequence[int], power: bool, where: str) -> NDArray[np.uint32]:
    """T for every position of the box [0, dims[0]] x [0, dims[1]] x ...

    (piles; r) is a P-position exactly when T = 0 (no winning move at any
    bound) or r < T: raising r only adds moves, so one number per position
    stands for its outcome at every r. Refuses boxes of more than
    `state_limit()` states.
    """
    backend = _backend.active()  # the limit and the search from one backend
    states = prod(d + 1 for d in dims)
    limit = STATE_LIMITS[backend.name]
    if states > limit:
        raise ValueError(
            f"{where}: the search over piles up to {tuple(dims)} has {states} states, more than "
            f"the {limit} the {backend.name} backend searches (the state count is the product "
            "of (n_i + 1))"
        )
    out = np.zeros(tuple(d + 1 for d in dims), dtype=np.uint32)
    backend.modules["solvers"].thresholds(
        np.asarray(dims, dtype=np.int64), bool(power), out.reshape(-1), _stop.check
    )
    return out


def outcome_from_threshold(threshold: int, r: int | None) -> bool:
    """Whether a position with this T is a P-position at bound r (None: infinite)."""
    return threshold == 0 or (r is not None and r < threshold)


class Thresholds:
    """The threshold table (see solvers.threshold_table) over the smallest box
    that holds every position of rows, an array (N, k). A pile that is empty in
    every row adds no axis: it changes nothing, and numpy arrays have at most
    64 axes."""

    def __init__(self, rows: NDArray[Any], where: str) -> None:
        self.dims = [int(d) for d in rows.max(axis=0)] if len(rows) else [0] * rows.shape[-1]
        self.axes = [j for j, d in enumerate(self.dims) if d > 0]
        self.table = threshold_table([self.dims[j] for j in self.axes], False, where)

    def threshold(self, piles: Sequence[int]) -> int:
        """T of one position (a pile of an axis left out is 0)."""
        return int(self.table[tuple(piles[j] for j in self.axes)])

    def thresholds(self, rows: NDArray[Any]) -> NDArray[np.int64]:
        """T of every row of rows, an integer array (N, k) inside the box."""
        found = self.table[tuple(rows[:, j] for j in self.axes)]
        return np.broadcast_to(found, rows.shape[:1]).astype(np.int64)

    def move(self, piles: list[int], r: int | None) -> tuple[int, int] | None:
        """The least winning take, from the first pile it wins from."""
        threshold = self.threshold(piles)
        if outcome_from_threshold(threshold, r):
            return None
        for i, n in enumerate(piles):
            if n >= threshold:
                after = list(piles)
                after[i] -= threshold
                if outcome_from_threshold(self.threshold(after), 2 * threshold):
                    return i, threshold
        raise AssertionError("the threshold names a winning take")  # by its definition

    def is_p(
        self,
        rows: NDArray[np.int64],
        bound: NDArray[Any] | None,
        threshold: NDArray[np.int64] | None = None,
    ) -> NDArray[np.bool_]:
        """Whether each row of rows is a P-position at its bound (None: no bound)."""
        if threshold is None:
            threshold = self.thresholds(rows)
        p: NDArray[np.bool_] = threshold == 0
        return p if bound is None else p | (bound < threshold)

    def moves(
        self, rows: NDArray[np.int64], bound: NDArray[Any] | None
    ) -> tuple[NDArray[np.bool_], NDArray[np.int64], NDArray[np.int64]]:
        """`move` for every row of rows at its bound (None: no bound), as arrays:
        P or not, the pile and the take (-1 where there is no winning move)."""
        threshold = self.thresholds(rows)
        p = self.is_p(rows, bound, threshold)
        pile = np.full(len(rows), -1, dtype=np.int64)
        take = np.full(len(rows), -1, dtype=np.int64)
        for i in range(rows.shape[1]):
            open_rows = np.flatnonzero(~p & (pile < 0) & (rows[:, i] >= threshold))
            t = threshold[open_rows]
            after = rows[open_rows]
            after[:, i] -= t
            later = self.thresholds(after)
            won = open_rows[(later == 0) | (later > 2 * t)]  # P at the next bound, 2 t
            pile[won], take[won] = i, threshold[won]
        return p, pile, take


def global_outcome(
    piles: Sequence[int], r: int | None = None, *, power: bool = False
) -> Literal["P", "N"]:
    """ "P" or "N" for (piles; r) of global Fibonacci Nim, or of global power-of-two
    Nim with power=True, by exhaustive search over the rules.

    A move takes s, 1 <= s <= r, from one pile; the next bound is 2 s (power:
    s). r = None is no bound. The search visits every position below this
    one: the product of (n_i + 1), at most `state_limit()`.

    Examples
    --------
    >>> from fibnim import solvers
    >>> solvers.global_outcome([3, 4, 7]), solvers.global_outcome([1, 1], r=1)
    ('N', 'P')
    """
    values = positions(piles, "global_outcome")
    if not isinstance(values, list):
        raise TypeError("global_outcome: piles must be one position, a list or tuple of ints")
    if r is not None:
        r = one_int(r, "global_outcome", "r")
    power = flag(power, "global_outcome", "power")
    dims = [n for n in values if n > 0]  # empty piles change nothing
    table = threshold_table(dims, power, "global_outcome")
    return "P" if outcome_from_threshold(int(table[tuple(dims)]), r) else "N"
