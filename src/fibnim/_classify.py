"""Bulk classification: outcome and winning move for many positions of one game.

`classify(positions, game)` takes an integer array of shape (N, k), one
position per row, and returns an int64 array of shape (N, 1 + k): column 0 is
1 for a P-position (the player to move loses) and 0 for an N-position, the
other columns the position a winning move leads to, -1 where there is none.
For the one-pile game the target is the pile after the move. This is the
layout `fibnim classify` writes to .npy files.

>>> import numpy as np
>>> from fibnim import classify
>>> classify(np.array([[3, 5], [4, 4], [0, 0]]), "wythoff")
array([[ 1, -1, -1],
       [ 0,  0,  0],
       [ 1, -1, -1]])
>>> classify(np.array([[12], [13]]), "fibonacci-nim")  # 12 = 8 + 3 + 1: take 1
array([[ 0, 11],
       [ 1, -1]])
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, overload

import numpy as np
from numpy.typing import NDArray

from fibnim import _backend, _stop, _tables, _threads, fibonacci_nim, solvers
from fibnim._apply import CHUNK, INT64_MAX, UINT64_MAX, overlap, result_array
from fibnim._checks import NONNEGATIVE, Bound, check_chunk, check_int, integers, one_int

# The optional packages' objects that classify takes, the same kind out; by
# what they have, so that fibnim's types need none of those packages (nor stubs
# for them) and a numpy array is none of them.


class DaskArray(Protocol):
    """A dask array: a lazy dask array out, block by block."""

    @property
    def chunks(self) -> Any: ...


class DataFrame(Protocol):
    """A pandas DataFrame: a DataFrame out, on its index."""

    @property
    def columns(self) -> Any: ...


class DataArray(Protocol):
    """An xarray DataArray: a DataArray out, on its coordinates."""

    @property
    def coords(self) -> Any: ...


#: columns= (and --columns) that takes every column for a pile, said outright
EVERY_COLUMN = "*"

_PILE = Bound(INT64_MAX, OverflowError, "is above 2**63 - 1 (classify answers in int64)")

__all__ = ["GAMES", "Game", "classify", "random_positions"]

# A fused kernel over one chunk of rows, bound to its game and bound:
# run(piles, out, limit) -> the first bad row, or -1 (see fibnim_c/wythoff.pxi).
Run = Callable[[NDArray[np.uint64], NDArray[np.int64], int], int]


#: The games' names, as `classify` takes them (the keys of GAMES).
GameName = Literal[
    "wythoff", "wythoff-misere", "fibonacci-nim", "global-fibonacci-nim", "power-nim", "nim"
]


def column_list(names: Sequence[Any], shown: int = 12) -> str:
    """An input's column names for a message: the first `shown` of a wide one,
    and how many there are (a text of 400,000 columns named them all)."""
    listing = ", ".join(map(str, itertools.islice(names, shown)))
    return listing if len(names) <= shown else f"{listing}, ... ({len(names):,} columns)"


@dataclass(frozen=True)
class Game:
    """A game `classify` knows: its name, how many piles a position has (None:
    any number), whether it takes a bound on the next take, what a bound of
    None means, and `kernel(positions, bound)`: the fused kernel that solves
    rows of positions (an integer array (N, k), already checked where the
    kernel needs to see it whole first) at that bound."""

    name: GameName
    piles: int | None
    bounded: bool
    unbounded_means: str
    kernel: Callable[[NDArray[Any], int | None], Run]

    def check_named(self, names: Sequence[Any], where: str, option: str) -> None:
        """An input with columns of its own names whose piles were not chosen:
        a game of any number of piles takes none of them for a pile unless
        named (an id column would be a pile, silently: "every column" is said
        with `option` '*'); a game of fixed piles takes exactly that many
        columns. ValueError, listing the columns and how to choose."""
        listing = column_list(names)
        if self.piles is None:
            raise ValueError(
                f"{where}: {self.name} takes any number of piles, and no column is taken for a "
                f"pile unless named; its columns are {listing}: name the piles with "
                f"{option}[...], or say {option}'*' for every column"
            )
        try:
            self.check_piles(len(names))
        except ValueError as error:
            raise ValueError(
                f"{where}: {error}; its columns are {listing}: choose the piles with {option}[...]"
            ) from None

    def check_piles(self, k: int) -> None:
        if self.piles is not None and k != self.piles:
            raise ValueError(
                f"{self.name} takes positions of {self.piles} pile{'s' * (self.piles > 1)}"
                f" (columns), not {k}"
            )
        if k < 1:
            raise ValueError(f"{self.name}: a position needs at least one pile")


def _kernels(topic: str) -> Any:
    return _backend.kernels(topic)


def _wythoff(misere: bool) -> Callable[[NDArray[Any], int | None], Run]:
    def kernel(positions: NDArray[Any], bound: int | None) -> Run:
        run = _kernels("wythoff").classify
        return lambda piles, out, limit: int(run(piles, out, misere, limit))

    return kernel


def _fibonacci_nim(positions: NDArray[Any], bound: int | None) -> Run:
    run = _kernels("fibonacci_nim").classify_one_pile
    opening = bound is None  # the first move's bound, n - 1
    return lambda piles, out, limit: int(run(piles, out, bound or 0, opening, limit))


def _global_fibonacci_nim(positions: NDArray[Any], bound: int | None) -> Run:
    kernels = _kernels("fibonacci_nim")
    r = UINT64_MAX if bound is None else bound
    k = positions.shape[1]
    if k == 1:
        return lambda piles, out, limit: int(
            kernels.classify_one_pile(piles, out, r, False, limit)
        )
    if k == 2:
        return lambda piles, out, limit: int(kernels.classify_two_piles(piles, out, r, limit))
    # three or more piles: one search over the smallest box that holds every row
    search = solvers.Thresholds(positions, "classify")
    table = search.table
    steps = np.zeros(k, dtype=np.int64)  # a pile empty in every row has no axis
    steps[search.axes] = np.array(table.strides, dtype=np.int64) // table.itemsize
    flat, box = table.reshape(-1), np.array(search.dims, dtype=np.uint64)
    searched, two_piles = kernels.classify_searched, kernels.classify_two_piles

    def run(piles: NDArray[np.uint64], out: NDArray[np.int64], limit: int) -> int:
        bad = int(searched(piles, out, flat, steps, box, r, limit))
        if bad < 0:
            # Rows with at most two non-empty piles: the closed form's move, as
            # for the same position without its empty piles
            which, columns = fibonacci_nim.few_piles(piles)
            pair = np.take_along_axis(piles[which], columns, axis=1)
            answers = np.empty((len(which), 3), dtype=np.int64)
            if (bad := int(two_piles(pair, answers, r, limit))) >= 0:
                return int(which[bad])  # changed since the search read it
            targets = out[which, 1:]
            np.put_along_axis(targets, columns, answers[:, 1:], axis=1)
            targets[answers[:, 0] == 1] = -1
            out[which, 1:] = targets
        return bad

    return run


def _power_nim(positions: NDArray[Any], bound: int | None) -> Run:
    run = _kernels("power_nim").classify
    bouton = bound is None  # no bound: Bouton's Nim
    return lambda piles, out, limit: int(run(piles, out, bound or 0, bouton, limit))


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


def _as_uint64(rows: NDArray[Any]) -> NDArray[np.uint64]:
    """Rows as the uint64 a fused kernel reads: a view, whatever the strides, of
    native, aligned 8-byte integers (a negative int64 seen as uint64 is above
    every limit); a private int64 or uint64 copy of anything else (C reads no
    unaligned uint64)."""
    kind = rows.dtype.kind
    if rows.dtype.itemsize == 8 and rows.dtype.isnative and rows.flags.aligned:
        return rows.view(np.uint64)
    return rows.astype(np.int64 if kind == "i" else np.uint64).view(np.uint64)


@overload
def classify(
    positions: NDArray[Any] | Sequence[Sequence[int]],
    game: GameName,
    bound: int | None = ...,
    *,
    columns: Sequence[int] | None = ...,
    out: NDArray[np.int64] | None = ...,
    threads: int | None = ...,
) -> NDArray[np.int64]: ...
@overload
def classify(
    positions: DaskArray | DataFrame | DataArray,
    game: GameName,
    bound: int | None = ...,
    *,
    columns: Sequence[Any] | None = ...,
    out: NDArray[np.int64] | None = ...,
    threads: int | None = ...,
) -> Any: ...
def classify(
    positions: Any,
    game: GameName,
    bound: int | None = None,
    *,
    columns: Sequence[Any] | None = None,
    out: Any = None,
    threads: int | None = None,
) -> Any:
    """Outcome and winning move of every position (row) of positions.

    One pass over the rows, a chunk at a time, by the game's fused kernel: each
    row is read once (with any strides: column slices, Fortran order and
    memory maps are not copied) and its row of the result written directly.
    The chunks of a large array run on every core (see `threads`).

    Parameters
    ----------
    positions : array_like of int, shape (N, k)
        One position per row: its k piles, each >= 0 and at most 2**63 - 1. A
        numpy array, a dask array, a pandas DataFrame or an xarray DataArray.
    game : GameName
        One of wythoff, wythoff-misere, fibonacci-nim (one pile),
        global-fibonacci-nim, power-nim, nim.
    bound : int, optional
        The bound on the next take where the game has one: fibonacci-nim (None
        is the opening bound n - 1), global-fibonacci-nim and power-nim (None:
        no bound).
    columns : sequence or '*', optional
        The pile columns, where positions has others too (an id, say): labels
        of a DataFrame's columns, or indices of a 2-d array's; '*' for every
        column. A DataFrame then comes back whole, its other columns kept,
        with the answers' columns after them; a 2-d array gives the answers of
        those columns. A DataFrame without columns= is refused for the games
        of any number of piles (nim, power-nim, global-fibonacci-nim), since
        an id column would be taken for a pile, and for the others where its
        column count is not the game's.
    out : ndarray of int64, shape (N, 1 + k), optional
        Where the result goes (a memory map of an output file, say); it may
        overlap positions.
    threads : int, optional
        How many threads the chunks run on (at most one per 2**16 rows). By
        default as `fibnim.set_threads` says: every core the process may use,
        but one inside the ``fibnim`` command's workers and a dask task. The
        answers and errors are the same for every count.

    Returns
    -------
    int64 array of shape (N, 1 + k)
        Column 0: 1 for a P-position, 0 for an N-position. Columns 1..k: the
        position a winning move leads to, -1 throughout where there is none.
        A dask array in, a lazy dask array out, block by block. A DataFrame
        in, one out on its index, with columns is_p (bool) and move_1 ..
        move_k (nullable Int64, <NA> where there is no move). A DataArray in,
        one out on its first dimension, int64 as for an array, with a
        dimension "column" labelled is_p, move_1 .. move_k.

    Raises
    ------
    ValueError, OverflowError
        A negative pile, or one above 2**63 - 1, naming its row and column;
        a shape that is not (N, k) with the game's k.

    Examples
    --------
    >>> import numpy as np
    >>> from fibnim import classify
    >>> classify(np.array([[3, 4, 5], [1, 2, 3]]), "nim")  # 3 -> 1 zeroes the xor
    array([[ 0,  1,  4,  5],
           [ 1, -1, -1, -1]])
    >>> classify(np.array([[3, 4, 5]]), "power-nim", bound=1)  # sb(3 ^ 4 ^ 5) = 2 > 1
    array([[ 1, -1, -1, -1]])
    >>> result = np.zeros((2, 3), dtype=np.int64)
    >>> _ = classify(np.array([[3, 5], [4, 8]]), "wythoff", out=result)
    >>> result  # (4, 8) -> (4, 7), a safe pair
    array([[ 1, -1, -1],
           [ 0,  4,  7]])
    >>> games = np.array([[101, 3, 5], [102, 4, 8]])  # an id, then the piles
    >>> classify(games, "wythoff", columns=[1, 2])
    array([[ 1, -1, -1],
           [ 0,  4,  7]])
    """
    rules = game_named(game)
    threads = _threads.count(threads, "classify")
    if bound is not None:
        if not rules.bounded:
            raise ValueError(f"{game} has no bound on the next take")
        bound = one_int(bound, "classify", "bound")
        check_int(bound, "classify", "bound", high=_PILE)
    if type(positions) is np.ndarray and positions.ndim == 2:
        if columns is not None:
            positions = positions[:, _column_indices(positions, columns)]
        elif out is None and bound is None:
            quick = _quick(positions, rules)
            if quick is not None:
                return quick
        return classify_array(positions, out, game=game, bound=bound, threads=threads)
    solve = functools.partial(classify_array, game=game, bound=bound, threads=threads)
    return _tables.classify(positions, rules, columns, out, solve)


def _column_indices(positions: NDArray[Any], columns: Sequence[Any] | str) -> list[int]:
    """columns= of a 2-d array: indices of its columns, or '*' for all."""
    k = positions.shape[1]
    if isinstance(columns, str) and columns == EVERY_COLUMN:
        return list(range(k))
    if isinstance(columns, (str, bytes)) or not isinstance(columns, Sequence):
        raise TypeError(f"classify: columns= is a list of columns (or '*'), not {columns!r}")
    pick = [one_int(j, "classify", "columns") for j in columns]
    for j in pick:
        if not -k <= j < k:
            raise ValueError(f"classify: no column {j}; positions has {k} columns")
    return pick


def classify_array(
    positions: Any,
    out: Any = None,
    *,
    game: GameName,
    bound: int | None,
    threads: int | None = None,
) -> NDArray[np.int64]:
    """classify of positions that are no table, bound and threads already
    checked: an integer array (N, k) or what numpy reads as one (a list of
    rows)."""
    rules = GAMES[game]
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
    n, k = array.shape
    result = result_array((n, 1 + k), np.int64, out, "classify")
    # computed aside and copied back where out overlaps the input, or is unaligned
    aside = overlap(result, array) or not result.flags.aligned
    target = np.empty(result.shape, dtype=np.int64) if aside else result
    if rules.piles is None and k >= 3 and rules.name == "global-fibonacci-nim":
        _check_rows(array, 0, n)  # the search's box comes from every row
    run = rules.kernel(array, bound)

    def solve(first: int, last: int) -> tuple[int, int, int] | None:
        """Rows first..last a chunk at a time: the first refused (chunk, row)."""
        for start in range(first, last, CHUNK):
            _stop.check()  # a CLI worker asked to stop ends within one chunk
            stop = min(start + CHUNK, last)
            bad = run(_as_uint64(array[start:stop]), target[start:stop], INT64_MAX)
            if bad >= 0:
                return start, stop, bad
        return None

    parts = _threads.bounds(n, _threads.for_size(n, threads))
    for refused in _threads.run_parts(solve, parts):
        if refused is not None:
            start, stop, bad = refused
            _check_rows(array, start, stop)  # raises, naming the value
            raise RuntimeError(
                f"classify: row {start + bad} of positions was out of range when read and is "
                "not now: the array changed while fibnim read it (nothing was computed from "
                "the changed value)"
            )
    if target is not result:
        result[...] = target
    return result


_WORDS = frozenset({np.dtype(np.int64), np.dtype(np.uint64)})


def _quick(positions: NDArray[Any], rules: Game) -> NDArray[np.int64] | None:
    """classify of a plain int64 or uint64 array of at most CHUNK rows (a
    search's or a game loop's one position) at no bound: the fused kernel on it
    straight; None for the general path, which takes everything else and
    names a bad value."""
    if positions.dtype not in _WORDS:
        return None
    n, k = positions.shape
    if n > CHUNK or not positions.flags.aligned or k != (rules.piles or k) or k < 1:
        return None
    if k >= 3 and rules.name == "global-fibonacci-nim":
        return None  # its search sees every row first
    result = np.empty((n, 1 + k), dtype=np.int64)
    if rules.kernel(positions, None)(positions.view(np.uint64), result, INT64_MAX) >= 0:
        return None
    return result


def _check_rows(array: NDArray[Any], start: int, stop: int) -> None:
    """Refuse the first pile of rows start..stop below 0 or above 2**63 - 1."""
    for first in range(start, stop, CHUNK):
        rows = np.ascontiguousarray(array[first : min(first + CHUNK, stop)])
        check_chunk(
            rows,
            first * array.shape[1],
            array.shape,
            array.shape,
            "classify",
            "positions",
            NONNEGATIVE,
            _PILE,
            (),
        )


def random_positions(
    count: int, game: GameName, piles: int, seed: int | Sequence[int]
) -> NDArray[np.int64]:
    """count random positions of game with the given number of piles, each
    below 10**6, from numpy's default generator seeded with seed; the same
    (count, seed) always gives the same positions.

    >>> from fibnim import random_positions
    >>> random_positions(2, "wythoff", 2, seed=1).shape
    (2, 2)
    """
    rules = game_named(game)
    rules.check_piles(piles)
    rng = np.random.default_rng(seed)
    return rng.integers(0, 10**6, size=(count, piles), dtype=np.int64)
