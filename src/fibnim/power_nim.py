"""Global power-of-two Nim and Bouton's Nim (docs/math/power_nim.rst).

(n_1, ..., n_k; r): a move takes s, 1 <= s <= r, from one pile, and the next
player may take at most s. With X the xor of the piles and sb(X) the smallest
power of two in X, the position is a P-position iff sb(X) > r (X = 0: always).
r = None is Bouton's Nim: P iff X = 0.

A list or tuple of ints is ONE position; an array of shape (..., k) holds
many, and r broadcasts over (...).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fibnim import _backend, _tables, _ufunc
from fibnim._apply import (
    INT64_MAX,
    Int,
    Out,
    deliver,
    each_position,
    fill_positions,
    finished,
    map_arrays,
    outs_of,
    position_array,
    result_arrays,
)
from fibnim._checks import integers, one_int, positions
from fibnim._declarations import PILE
from fibnim._exact import power_nim as ints

__all__ = ["is_p", "winning_move"]


def _many(
    where: str, piles: NDArray[Any], r: ArrayLike | None, moves: bool, outs: list[Any] | None
) -> Any:
    """The answers for an array of positions (..., k), into outs if given."""
    if piles.shape[-1] == 0:  # no piles: as one empty pile, a P-position with no move
        piles = np.zeros((*piles.shape[:-1], 1), dtype=piles.dtype)
    bound = np.asarray(INT64_MAX if r is None else integers(r, where, "r"))
    if piles.dtype == object or bound.dtype == object:
        shape, found = each_position(where, piles, r)
        exact = ints.winning_move if moves else ints.is_p
        each = [(index, exact(row, b)) for index, row, b in found]
        return deliver(fill_positions(shape, each, moves, exact=True), outs, where)
    shape = np.broadcast_shapes(piles.shape[:-1], bound.shape)
    kinds = [np.int64, np.int64] if moves else [np.bool_]
    answers = result_arrays(shape, kinds, outs, where)
    if not _through_gufunc(piles, bound if r is not None else None, answers, moves):
        kernels = _backend.kernels("power_nim")
        map_arrays(
            kernels.winning_move if moves else kernels.is_p,
            [piles, bound],
            ["piles", "r"],
            answers,
            where,
            high=PILE,
            options=(r is None,) if moves else (),
            core=[piles.shape[-1], 0],
        )
    results = finished(answers, outs, len(shape))
    return tuple(results) if moves else results[0]


def _through_gufunc(
    piles: NDArray[Any], bound: NDArray[Any] | None, answers: list[NDArray[Any]], moves: bool
) -> bool:
    """Whether the compiled gufunc put the answers: False on the pure twin, and
    at a refused value, whose index the general path then names (the loop
    sees numpy's buffers, not the caller's array)."""
    if _backend.active() is not _backend.COMPILED:
        return False
    ufunc = _gufunc(bound is not None, moves)
    try:
        ufunc(piles, *(() if bound is None else (bound,)), out=tuple(answers))
    except (OverflowError, ValueError, RuntimeError) as error:
        if not _ufunc.unlocated(error):
            raise
        return False
    return True


@functools.cache
def _gufunc(bounded: bool, moves: bool) -> Any:
    """The compiled generalized ufunc over the last axis ((k),()->() with r,
    (k)->() without; two outputs for moves), or None without the compiled core."""
    core = _backend._CORE
    if core is None:
        return None
    where = "winning_move" if moves else "is_p"
    name = f"power_nim.{where}" + ("" if bounded else "_bouton")
    signature = ("(k),()->" if bounded else "(k)->") + ("(),()" if moves else "()")
    return core.make_pile_ufunc(
        name,
        f"The numpy gufunc {signature} of fibnim.{name}.",
        bounded,
        moves,
        PILE.limit,
        lambda argument, value: _ufunc.refusal(where, ("piles", "r")[argument], value, PILE),
    )


@overload
def is_p(piles: Sequence[int], r: Int | None = ..., *, out: None = ...) -> bool: ...
@overload
def is_p(
    piles: NDArray[Any] | Sequence[Sequence[int]],
    r: ArrayLike | None = ...,
    *,
    out: Out[np.bool_] | None = ...,
) -> NDArray[np.bool_]: ...
@_tables.of_positions
def is_p(
    piles: ArrayLike,
    r: ArrayLike | None = None,
    *,
    out: Out[np.bool_] | None = None,
) -> Any:
    """Whether (piles; r) is a P-position of global power-of-two Nim (Bouton's Nim
    for r = None).

    Examples
    --------
    >>> import numpy as np
    >>> from fibnim import power_nim
    >>> power_nim.is_p([1, 2, 3]), power_nim.is_p([1, 2]), power_nim.is_p([2, 4], r=1)
    (True, False, True)
    >>> power_nim.is_p(np.array([[1, 2, 3], [1, 2, 4]]))
    array([ True, False])
    """
    values = positions(piles, "is_p")
    if isinstance(values, list) and out is None:
        return ints.is_p(values, None if r is None else one_int(r, "is_p", "r"))
    return _many("is_p", position_array(values), r, False, outs_of(out, 1, "is_p"))


@overload
def winning_move(
    piles: Sequence[int], r: Int | None = ..., *, out: None = ...
) -> tuple[int, int] | None: ...
@overload
def winning_move(
    piles: NDArray[Any] | Sequence[Sequence[int]],
    r: ArrayLike | None = ...,
    *,
    out: tuple[NDArray[np.int64], NDArray[np.int64]] | None = ...,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
@_tables.of_positions
def winning_move(
    piles: ArrayLike,
    r: ArrayLike | None = None,
    *,
    out: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
) -> Any:
    """A winning move (pile index, counters), or None from a P-position.

    From the first pile with n xor X < n: Bouton's move to n xor X when
    r = None; with a bound, a take of sb(X) counters. Arrays: two int64 arrays
    of shape (...), -1 where there is none.

    Examples
    --------
    >>> import numpy as np
    >>> from fibnim import power_nim
    >>> power_nim.winning_move([3, 4, 5])  # X = 2: 3 -> 1
    (0, 2)
    >>> power_nim.winning_move([3, 4, 5], r=5)  # sb(X) = 2
    (0, 2)
    >>> power_nim.winning_move(np.array([[1, 2, 3], [6, 1, 2]]))
    (array([-1,  0]), array([-1,  3]))
    """
    values = positions(piles, "winning_move")
    if isinstance(values, list) and out is None:
        return ints.winning_move(values, None if r is None else one_int(r, "winning_move", "r"))
    outs = outs_of(out, 2, "winning_move")
    return _many("winning_move", position_array(values), r, True, outs)
