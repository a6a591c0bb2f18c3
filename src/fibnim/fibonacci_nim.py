"""Fibonacci Nim (Whinihan) and global multi-pile Fibonacci Nim.

The mathematics: docs/math/fibonacci_nim.rst.

A position (n_1, ..., n_k; r): piles, and the most that may be taken now. A
move takes s, 1 <= s <= r, from one pile, and the next player may take at
most 2 s. Whoever cannot move loses.

- One pile, `is_p` and `winning_take`: r = None is the opening bound n - 1
  (the first player may not take the whole pile). (n; r) is a P-position iff
  n's lowest Zeckendorf term exceeds r.
- Any number of piles, `global_is_p` and `global_winning_move`: r = None is
  no bound. One pile follows the one-pile rule, two piles the closed form of
  docs/math/fibonacci_nim.rst (two piles), three or more an exhaustive search
  (`fibnim.solvers`), which refuses positions beyond `solvers.state_limit()`.

Arrays: `is_p` and `winning_take` broadcast n and r. For the global
functions a list or tuple of ints is ONE position, an array of shape (..., k)
holds many, and r broadcasts over (...); any r at least as large as every
pile means the same as no bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fibnim import _backend, _tables, solvers
from fibnim._apply import (
    CHUNK,
    INT64_MAX,
    Int,
    Out,
    deliver,
    each_position,
    fill_positions,
    finish,
    finished,
    map_arrays,
    outs_of,
    position_array,
    result_arrays,
)
from fibnim._checks import NONNEGATIVE, check_chunk, integers, one_int, positions
from fibnim._declarations import PILE
from fibnim._exact import fibonacci_nim as ints
from fibnim._typing import Taking
from fibnim._ufunc import declared

__all__ = [
    "complementary_value",
    "global_is_p",
    "global_winning_move",
    "is_p",
    "winning_take",
]

_PILES = (NONNEGATIVE, PILE, ())  # the bounds of a pile, for check_chunk
_UNBOUNDED = np.asarray(INT64_MAX, dtype=np.int64)  # no pile exceeds it


def _kernel(name: str) -> Any:
    return getattr(_backend.kernels("fibonacci_nim"), name)


@declared[Taking[bool, np.bool_]]("fibonacci_nim.is_p")
def is_p(
    n: ArrayLike,
    r: ArrayLike | None = None,
    *,
    out: Out[np.bool_] | None = None,
    where: ArrayLike = True,
) -> Any:
    """Whether (n; r) is a P-position of one-pile Fibonacci Nim.

    Parameters
    ----------
    n : int or array_like of int
        Counters in the pile, n >= 0.
    r : int or array_like of int, optional
        The most that may be taken now (r >= 0; 0 means no move). None is the
        opening bound n - 1: then the first player wins iff n is not a
        Fibonacci number.

    Examples
    --------
    >>> from fibnim import fibonacci_nim
    >>> fibonacci_nim.is_p([0, 1, 5, 12, 13, 20])  # the opening: Fibonacci numbers lose
    array([ True,  True,  True, False,  True, False])
    >>> fibonacci_nim.is_p(12, r=0), fibonacci_nim.is_p(12, r=1)  # 12 = 8 + 3 + 1
    (True, False)
    """


@declared[Taking[int, np.int64]]("fibonacci_nim.winning_take")
def winning_take(
    n: ArrayLike,
    r: ArrayLike | None = None,
    *,
    out: Out[np.int64] | None = None,
    where: ArrayLike = True,
) -> Any:
    """How many counters to take from (n; r) to win: n's lowest Zeckendorf term,
    or 0 where no take wins (a P-position).

    Parameters
    ----------
    n : int or array_like of int
        Counters in the pile, n >= 0.
    r : int or array_like of int, optional
        The most that may be taken now, as in `is_p`; None is the opening
        bound n - 1.

    Examples
    --------
    >>> from fibnim import fibonacci_nim
    >>> fibonacci_nim.winning_take(20)  # 20 = 13 + 5 + 2: take 2
    2
    >>> fibonacci_nim.winning_take([13, 20, 20], r=[12, 1, 2])
    array([0, 0, 2])
    """


def _one_position(
    where: str, piles: list[int], r: int | None, table: solvers.Thresholds | None, moves: bool
) -> Any:
    """P or not, or the winning move (pile, take) or None, of one position."""
    kept = [i for i, n in enumerate(piles) if n]
    if len(kept) <= 2 < len(piles):
        # Empty piles offer no move: the position is the one of its other piles,
        # answered by the same rule (the closed forms, not the search's choice)
        answer = _one_position(where, [piles[i] for i in kept], r, None, moves)
        return (kept[answer[0]], answer[1]) if moves and answer is not None else answer
    if len(piles) >= 3:
        search = solvers.Thresholds(np.array([piles]), where) if table is None else table
        if moves:
            return search.move(piles, r)
        return solvers.outcome_from_threshold(search.threshold(piles), r)
    if len(piles) == 2:
        x, y = piles
        return ints.two_pile_move(x, y, r) if moves else ints.two_pile_is_p(x, y, r)
    n = piles[0] if piles else 0
    if not moves:
        return n == 0 or (r is not None and ints.one_pile_is_p(n, r))
    take = ints.one_pile_take(n, n if r is None else r)
    return (0, take) if take else None


def _arrays(
    where: str, piles: NDArray[Any], r: ArrayLike, moves: bool, outs: list[Any] | None
) -> list[Any]:
    """One or two piles in an integer array (..., k): the compiled kernels."""
    k = piles.shape[-1]
    bound = np.asarray(integers(r, where, "r"))
    shape = np.broadcast_shapes(piles.shape[:-1], bound.shape)
    kinds = [np.int64, np.int64] if moves else [np.bool_]
    answers = result_arrays(shape, kinds, outs, where)
    if k == 2:
        kernel = _kernel("two_pile_move" if moves else "two_pile_is_p")
    else:
        one_pile = _kernel("winning_take" if moves else "is_p")

        def kernel(rows: NDArray[np.uint64], bounds: NDArray[np.uint64], *rest: Any) -> int:
            *outs, limit = rest
            if not moves:
                return int(one_pile(np.ascontiguousarray(rows[:, 0]), bounds, *outs, limit))
            # the take goes to the second output; the pile index is 0
            bad = int(one_pile(np.ascontiguousarray(rows[:, 0]), bounds, outs[1], limit))
            outs[0][:] = np.where(outs[1] > 0, 0, -1)
            outs[1][outs[1] == 0] = -1
            return bad

    map_arrays(
        kernel,
        [piles, bound],
        ["piles", "r"],
        answers,
        where,
        high=PILE,
        core=[k, 0],
    )
    return finished(answers, outs, len(shape))


def _many(
    where: str, piles: NDArray[Any], r: ArrayLike | None, moves: bool, outs: list[Any] | None
) -> Any:
    """The answers for an array of positions (..., k), into outs if given."""
    if piles.shape[-1] == 0:  # no piles: as one empty pile, a P-position with no move
        piles = np.zeros((*piles.shape[:-1], 1), dtype=piles.dtype)
    k = piles.shape[-1]
    bound = None if r is None else integers(r, where, "r")
    exact = piles.dtype == object or (bound is not None and np.asarray(bound).dtype == object)
    if not exact and k <= 2:
        answers = _arrays(where, piles, _UNBOUNDED if r is None else r, moves, outs)
        return tuple(answers) if moves else answers[0]
    if not exact:
        searched = _searched(where, piles, None if bound is None else np.asarray(bound), moves)
        return deliver(searched, outs, where)
    # object arrays: position by position, exactly, over one table
    shape, found = each_position(where, piles, r)
    table = (
        solvers.Thresholds(np.array([row for _, row, _ in found]), where)
        if k >= 3 and found
        else None
    )
    answers = [(index, _one_position(where, row, b, table, moves)) for index, row, b in found]
    return deliver(fill_positions(shape, answers, moves, exact=piles.dtype == object), outs, where)


def _searched(where: str, piles: NDArray[Any], bound: NDArray[Any] | None, moves: bool) -> Any:
    """Three or more piles in an integer array (..., k), bounds r broadcast over
    (...): every value checked, then one search over the box of them all, then
    the answers looked up a chunk of positions at a time."""
    k = piles.shape[-1]
    own = () if bound is None else bound.shape
    shape = np.broadcast_shapes(piles.shape[:-1], own)
    rows = np.broadcast_to(piles, (*shape, k)).reshape(-1, k)
    bounds = None if bound is None else np.broadcast_to(bound, shape).reshape(-1)
    for first in range(0, len(rows), CHUNK):
        flat = rows[first : first + CHUNK].reshape(-1)
        check_chunk(flat, first * k, (*shape, k), piles.shape, where, "piles", *_PILES)
        if bounds is not None:
            part = bounds[first : first + CHUNK]
            check_chunk(part, first, shape, own, where, "r", NONNEGATIVE, None, ())
    search = solvers.Thresholds(rows, where)
    answers = [np.empty(len(rows), dtype=np.int64) for _ in range(2)] if moves else []
    p = np.empty(0 if moves else len(rows), dtype=np.bool_)
    for first in range(0, len(rows), CHUNK):
        stop = min(first + CHUNK, len(rows))
        chunk = rows[first:stop].astype(np.int64)
        at = None if bounds is None else bounds[first:stop]
        if moves:
            _, answers[0][first:stop], answers[1][first:stop] = search.moves(chunk, at)
            _two_pile_moves(where, chunk, at, answers[0][first:stop], answers[1][first:stop])
        else:
            p[first:stop] = search.is_p(chunk, at)
    return (
        tuple(finish(a.reshape(shape), len(shape)) for a in answers)
        if moves
        else finish(p.reshape(shape), len(shape))
    )


def few_piles(rows: NDArray[Any]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The rows of rows (N, k >= 3) with at most two non-empty piles, and for each
    the columns of those piles in order, padded with columns of empty ones: (which,
    columns), columns of shape (len(which), 2)."""
    which = np.flatnonzero(np.count_nonzero(rows, axis=1) <= 2)
    columns = np.argsort(rows[which] == 0, axis=1, kind="stable")[:, :2]
    return which, columns


def _two_pile_moves(
    where: str,
    rows: NDArray[np.int64],
    bounds: NDArray[Any] | None,
    pile: NDArray[np.int64],
    take: NDArray[np.int64],
) -> None:
    """Overwrite the searched moves of rows with at most two non-empty piles by
    the closed forms' moves, so that empty piles change nothing but the pile
    index (the search's least take may differ from the closed form's choice)."""
    which, columns = few_piles(rows)
    if not which.size:
        return
    pair = np.take_along_axis(rows[which], columns, axis=1)
    at = _UNBOUNDED if bounds is None else bounds[which]
    side, counters = _arrays(where, pair, at, True, None)
    pile[which] = np.where(side >= 0, columns[np.arange(len(which)), side.clip(0)], -1)
    take[which] = counters


@overload
def global_is_p(piles: Sequence[int], r: Int | None = ..., *, out: None = ...) -> bool: ...
@overload
def global_is_p(
    piles: NDArray[Any] | Sequence[Sequence[int]],
    r: ArrayLike | None = ...,
    *,
    out: Out[np.bool_] | None = ...,
) -> NDArray[np.bool_]: ...
@_tables.of_positions
def global_is_p(
    piles: ArrayLike,
    r: ArrayLike | None = None,
    *,
    out: Out[np.bool_] | None = None,
) -> Any:
    """Whether (piles; r) is a P-position of global Fibonacci Nim.

    Parameters
    ----------
    piles : sequence of int, or array of shape (..., k)
        One position (a list or tuple), or many (an array; the last axis holds
        the piles).
    r : int or array_like, optional
        The bound on the next take; None is no bound.

    Examples
    --------
    >>> import numpy as np
    >>> from fibnim import fibonacci_nim
    >>> fibonacci_nim.global_is_p([4, 4]), fibonacci_nim.global_is_p([1, 3], r=2)
    (True, False)
    >>> fibonacci_nim.global_is_p(np.array([[2, 5], [3, 3], [1, 2]]), r=1)
    array([ True,  True, False])
    """
    values = positions(piles, "global_is_p")
    if isinstance(values, list) and out is None:
        bound = None if r is None else one_int(r, "global_is_p", "r")
        return _one_position("global_is_p", values, bound, None, moves=False)
    outs = outs_of(out, 1, "global_is_p")
    return _many("global_is_p", position_array(values), r, False, outs)


@overload
def global_winning_move(
    piles: Sequence[int], r: Int | None = ..., *, out: None = ...
) -> tuple[int, int] | None: ...
@overload
def global_winning_move(
    piles: NDArray[Any] | Sequence[Sequence[int]],
    r: ArrayLike | None = ...,
    *,
    out: tuple[NDArray[np.int64], NDArray[np.int64]] | None = ...,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
@_tables.of_positions
def global_winning_move(
    piles: ArrayLike,
    r: ArrayLike | None = None,
    *,
    out: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
) -> Any:
    """A winning move (pile index, counters) from (piles; r), or None from a P-position.

    One pile: take its lowest Zeckendorf term. Two piles: from the closed form
    (if z_1(k) = F_e <= r, F_e from the larger pile or F_{e-1} from the
    smaller; otherwise F_t from the smaller). Three or more: the least winning
    take, found by search, from the first pile it wins from. Arrays: two int64
    arrays of shape (...), -1 where there is none.

    Examples
    --------
    >>> import numpy as np
    >>> from fibnim import fibonacci_nim
    >>> fibonacci_nim.global_winning_move([1, 3], r=2)
    (1, 2)
    >>> fibonacci_nim.global_winning_move([4, 4]) is None
    True
    >>> fibonacci_nim.global_winning_move(np.array([[1, 3], [4, 4], [2, 3]]))
    (array([ 1, -1,  1]), array([ 2, -1,  1]))
    """
    values = positions(piles, "global_winning_move")
    if isinstance(values, list) and out is None:
        bound = None if r is None else one_int(r, "global_winning_move", "r")
        return _one_position("global_winning_move", values, bound, None, moves=True)
    outs = outs_of(out, 2, "global_winning_move")
    return _many("global_winning_move", position_array(values), r, True, outs)


def complementary_value(piles: Sequence[int], *, limit: int = 1000) -> int | None:
    """The b with (piles..., b; no bound) a P-position of global Fibonacci Nim.

    There is at most one such b; for some positions, such as (3, 4), there is
    none. b = 0, 1, ..., limit are tried (one search over piles x [0, limit]);
    None when none of them works.

    Examples
    --------
    >>> from fibnim import fibonacci_nim
    >>> fibonacci_nim.complementary_value([1, 2])  # (1, 2, 4) is a P-position
    4
    >>> fibonacci_nim.complementary_value([3, 4]) is None
    True
    """
    values = positions(piles, "complementary_value")
    if not isinstance(values, list):
        raise TypeError("complementary_value: piles must be one position, a list or tuple of ints")
    limit = one_int(limit, "complementary_value", "limit")
    search = solvers.Thresholds(np.array([[*values, limit]]), "complementary_value")
    # T over b = 0..limit: index every pile's axis (empty piles have none), which
    # leaves the axis of b, or one entry where limit = 0 leaves that out too
    piles_axes = [j for j in search.axes if j < len(values)]
    column = np.atleast_1d(search.table[tuple(values[j] for j in piles_axes)])
    found = np.flatnonzero(column == 0)
    return int(found[0]) if found.size else None
