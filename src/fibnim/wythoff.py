"""Wythoff's Nim: safe pairs, winning moves, misere play (docs/math/wythoff.rst).

Two piles (x, y); a move takes any number of counters from one pile, or the
same number from both. The P-positions (safe pairs) are (0, 0) and
(a_n, b_n), (b_n, a_n) for n >= 1, with a_n = floor(n phi) (the A-numbers)
and b_n = a_n + n (the B-numbers).

Scalars give exact Python results of any size. Arrays (broadcast between x
and y) give bool and int64 arrays; they take values up to 2**63 - 1, and
object arrays of Python ints take any size. Every answer is exact: a_n comes
from a 128-bit fixed-point product, never from floating point.
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fibnim._apply import INT64_MAX, Out
from fibnim._checks import TERMS, flag, one_int
from fibnim._declarations import PAIR_LIMIT
from fibnim._exact import wythoff as ints
from fibnim._exact import zeckendorf as zeck
from fibnim._typing import Binary, Unary, UnaryPair, WinningMove
from fibnim._ufunc import declared

__all__ = [
    "PAIR_LIMIT",
    "array",
    "array_position",
    "explain",
    "index",
    "is_lower",
    "is_safe",
    "is_upper",
    "pair",
    "partner",
    "winning_move",
    "winning_moves",
]


@declared[UnaryPair]("wythoff.pair")
def pair(
    n: ArrayLike,
    *,
    out: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
    where: ArrayLike = True,
) -> Any:
    """The n-th safe pair (a_n, b_n): a_n = floor(n phi), b_n = a_n + n.

    Parameters
    ----------
    n : int or array_like of int
        n >= 0; (0, 0) for n = 0. Integer arrays take n <= `PAIR_LIMIT` =
        3523014627193176565, where b_n still fits int64.

    Examples
    --------
    >>> from fibnim import wythoff
    >>> wythoff.pair(4)
    (6, 10)
    >>> a, b = wythoff.pair([1, 2, 3, 4, 5])
    >>> a, b
    (array([1, 3, 4, 6, 8]), array([ 2,  5,  7, 10, 13]))
    """


@declared[Binary[bool, np.bool_]]("wythoff.is_safe")
def is_safe(
    x: ArrayLike,
    y: ArrayLike,
    *,
    misere: bool = False,
    out: Out[np.bool_] | None = None,
    where: ArrayLike = True,
) -> Any:
    """Whether (x, y) is a P-position: the player to move loses.

    Parameters
    ----------
    x, y : int or array_like of int
        Pile sizes >= 0, broadcast together; the order does not matter.
    misere : bool
        Misere play (whoever makes the last move loses): the P-positions are
        those of normal play with (1, 2) and (2, 1) replaced by (0, 1), (1, 0)
        and (2, 2); (0, 0) is not one.

    Examples
    --------
    >>> from fibnim import wythoff
    >>> wythoff.is_safe(3, 5), wythoff.is_safe(5, 3), wythoff.is_safe(3, 4)
    (True, True, False)
    >>> wythoff.is_safe([0, 1, 2], [0, 2, 2], misere=True)
    array([False, False,  True])
    """


@declared[Unary[bool, np.bool_]]("wythoff.is_lower")
def is_lower(x: ArrayLike, *, out: Out[np.bool_] | None = None, where: ArrayLike = True) -> Any:
    """Whether x is an A-number a_n = floor(n phi), n >= 1 (False for 0).

    Examples
    --------
    >>> from fibnim import wythoff
    >>> wythoff.is_lower([0, 1, 2, 3, 4, 5])
    array([False,  True, False,  True,  True, False])
    """


@declared[Unary[bool, np.bool_]]("wythoff.is_upper")
def is_upper(x: ArrayLike, *, out: Out[np.bool_] | None = None, where: ArrayLike = True) -> Any:
    """Whether x is a B-number b_n = a_n + n, n >= 1 (False for 0).

    Examples
    --------
    >>> from fibnim import wythoff
    >>> wythoff.is_upper([0, 1, 2, 3, 4, 5])
    array([False, False,  True, False, False,  True])
    """


@declared[Unary[int, np.int64]]("wythoff.index")
def index(x: ArrayLike, *, out: Out[np.int64] | None = None, where: ArrayLike = True) -> Any:
    """The n of the safe pair that holds x (x = a_n or x = b_n); 0 for 0.

    Examples
    --------
    >>> from fibnim import wythoff
    >>> wythoff.index([0, 6, 10, 12])
    array([0, 4, 4, 8])
    """


@declared[Unary[int, np.int64]]("wythoff.partner")
def partner(x: ArrayLike, *, out: Out[np.int64] | None = None, where: ArrayLike = True) -> Any:
    """The other member of x's safe pair: b_n for x = a_n, a_n for x = b_n; 0 for 0.

    In Zeckendorf terms the partner of an A-number is its left shift, that of
    a B-number its right shift.

    Raises OverflowError for an integer array holding an A-number whose partner
    exceeds 2**63 - 1.

    Examples
    --------
    >>> from fibnim import wythoff
    >>> wythoff.partner(6), wythoff.partner(10)
    (10, 6)
    >>> wythoff.partner([0, 1, 2, 3])
    array([0, 2, 1, 5])
    """


@declared[WinningMove]("wythoff.winning_move")
def winning_move(
    x: ArrayLike,
    y: ArrayLike,
    *,
    misere: bool = False,
    out: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
    where: ArrayLike = True,
) -> Any:
    """A winning move from (x, y): the target position, in the piles' own order.

    Silber's choice (docs/math/wythoff.rst), with x <= y written s <= l:
    equal piles or an empty one go to (0, 0); if s is a B-number, l goes to
    s's partner; if s = a_n and l > b_n, l goes to b_n; otherwise (a_n < l <
    b_n) the same amount leaves both piles, to (a_d, b_d) with d = l - s.
    In misere play the move is the same except where it would end on (0, 0)
    or (1, 2); then it goes to (0, 1), (1, 0) or (2, 2).

    Parameters
    ----------
    x, y : int or array_like of int
        Pile sizes >= 0, broadcast together.
    misere : bool
        Misere play (whoever makes the last move loses).

    Returns
    -------
    tuple of two ints or None, or tuple of two int64 arrays
        None (arrays: -1 in both) where (x, y) is a P-position, or where there
        is no move at all.

    Examples
    --------
    >>> from fibnim import wythoff
    >>> wythoff.winning_move(10, 15), wythoff.winning_move(9, 20), wythoff.winning_move(24, 32)
    ((10, 6), (9, 15), (12, 20))
    >>> wythoff.winning_move(3, 5) is None
    True
    >>> wythoff.winning_move([32, 3], [24, 5])
    (array([20, -1]), array([12, -1]))
    """


def winning_moves(x: int, y: int, *, misere: bool = False) -> list[tuple[int, int]]:
    """Every move from (x, y) to a P-position, as targets (x', y'), sorted.

    Exact for any size: each line of moves (pile x alone, pile y alone, both
    at once) holds at most one P-position, and which one is known.

    Examples
    --------
    >>> from fibnim import wythoff
    >>> wythoff.winning_moves(10, 15)  # a diagonal move and one in each pile
    [(8, 13), (9, 15), (10, 6)]
    >>> wythoff.winning_moves(3, 5)
    []
    >>> wythoff.winning_moves(2, 3, misere=True)
    [(0, 1), (2, 2)]
    """
    return ints.winning_moves(
        one_int(x, "winning_moves", "x"),
        one_int(y, "winning_moves", "y"),
        flag(misere, "winning_moves", "misere"),
    )


def explain(x: int, y: int) -> str:
    """A person's account of the position (x, y) and of Silber's winning move.

    Both piles in Silber's Fibonacci notation (digits for F_k .. F_1), whether
    each is an A- or a B-number and why, which case of Silber's algorithm
    applies, and the move. Each pile may have up to `fibnim.TERMS_BITS_LIMIT`
    bits.

    Examples
    --------
    >>> from fibnim import wythoff
    >>> print(wythoff.explain(10, 15))
    Position (10, 15) of Wythoff's Nim.
      10 = 8 + 2, Silber form 100100:
        lowest index 3 is odd, so a B-number, b_4; its partner a_4 = 6 is its right shift
      15 = 13 + 2, Silber form 1000100:
        lowest index 3 is odd, so a B-number, b_6; its partner a_6 = 9 is its right shift
    It is an N-position: the player to move wins.
    Case 1: the smaller pile 10 is a B-number, so reduce the other pile to its partner 6:
      move to (10, 6).
    """
    x = one_int(x, "explain", "x", high=TERMS)
    y = one_int(y, "explain", "y", high=TERMS)
    return _explain(x, y)


def _describe(v: int) -> str:
    if v == 0:
        return "0 is the empty pile"
    terms = " + ".join(map(str, zeck.terms(v)))
    low = (zeck.code(v) & -zeck.code(v)).bit_length() + 1  # the lowest index
    n = ints.index(v)
    kind = (
        f"lowest index {low} is even, so an A-number, a_{n}; its partner b_{n} = {v + n} "
        "is its left shift"
        if low % 2 == 0
        else f"lowest index {low} is odd, so a B-number, b_{n}; its partner a_{n} = {v - n} "
        "is its right shift"
    )
    silber = zeck.bits_to_string(zeck.code(v) << 1)
    return f"{v} = {terms}, Silber form {silber}:\n    {kind}"


def _explain(x: int, y: int) -> str:
    s, l = min(x, y), max(x, y)  # noqa: E741
    lines = [f"Position ({x}, {y}) of Wythoff's Nim.", "  " + _describe(x)]
    if y != x:
        lines.append("  " + _describe(y))
    if ints.is_safe(s, l):
        why = (
            "both piles are empty"
            if l == 0
            else f"{s} = a_{l - s} and {l} = b_{l - s}: a safe pair (the code of {l} is the "
            f"code of {s} shifted left)"
        )
        lines += [
            f"It is a P-position: {why}.",
            "No move exists at all."
            if l == 0
            else "No winning move exists: every move leads to an N-position.",
        ]
        return "\n".join(lines)
    move = ints.winning_move(x, y)
    assert move is not None
    if s == l:
        case = f"Case 0: the piles are equal, so take all {s} from both"
    elif s == 0:
        case = f"Case 0: one pile is empty, so take all {l} from the other"
    elif not ints.is_lower(s):
        case = (
            f"Case 1: the smaller pile {s} is a B-number, so reduce the other pile to its "
            f"partner {ints.partner(s)}"
        )
    elif l > ints.partner(s):
        case = (
            f"Case 2: the smaller pile {s} is an A-number and {l} is above its partner "
            f"{ints.partner(s)}, so reduce {l} to {ints.partner(s)}"
        )
    else:
        d = l - s
        a, b = ints.pair(d)
        second = zeck.bits_to_string(zeck.second_canonical_code(d))
        case = (
            f"Case 3: the smaller pile {s} is an A-number and {l} lies between it and its "
            f"partner {ints.partner(s)}. The difference is {l} - {s} = {d}; its second "
            f"canonical form is {second}; shifted left once it is {second}0 = {a} = a_{d}, "
            f"twice {second}00 = {b} = b_{d}. So take {s - a} from both piles"
        )
    lines += [
        "It is an N-position: the player to move wins.",
        *textwrap.wrap(f"{case}: move to {move}.", width=88, subsequent_indent="  "),
    ]
    return "\n".join(lines)


def array(rows: int, cols: int) -> NDArray[np.int64]:
    """The Wythoff array W(1..rows, 1..cols) (OEIS A035513), as int64.

    Row r is the chain of safe pairs that starts at the primitive pair
    (a_{a_r}, b_{a_r}) and goes on Fibonacci-wise: W(r, c) = W(r, c-1) + W(r, c-2).
    Every positive integer stands in it exactly once. Raises OverflowError
    when an entry exceeds 2**63 - 1.

    Examples
    --------
    >>> from fibnim import wythoff
    >>> wythoff.array(3, 5)
    array([[ 1,  2,  3,  5,  8],
           [ 4,  7, 11, 18, 29],
           [ 6, 10, 16, 26, 42]])
    """
    rows = one_int(rows, "array", "rows")
    cols = one_int(cols, "array", "cols")
    if rows == 0 or cols == 0:
        return np.empty((rows, cols), dtype=np.int64)
    # the columns first: past about 90 an entry overflows, which is then said
    # before room is asked for a shape that could never be filled
    a_r, _ = pair(np.arange(1, rows + 1, dtype=np.int64))
    first, second = pair(a_r)
    columns = [first, second]
    while len(columns) < cols:
        left, right = columns[-2], columns[-1]
        room = INT64_MAX - right
        if (left > room).any():
            r = int(np.flatnonzero(left > room)[0])
            raise OverflowError(
                f"array: W({r + 1}, {len(columns) + 1}) = {int(left[r]) + int(right[r])} "
                "exceeds 2**63 - 1"
            )
        columns.append(left + right)
    return np.stack(columns[:cols], axis=1)


@declared[UnaryPair]("wythoff.array_position")
def array_position(
    x: ArrayLike,
    *,
    out: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
    where: ArrayLike = True,
) -> Any:
    """The (row, column), 1-based, of x >= 1 in the Wythoff array.

    The column is x's lowest Zeckendorf index minus 1.

    Parameters
    ----------
    x : int or array_like of int
        Numbers x >= 1 (0 is in no cell: ValueError). Integer arrays take
        values up to 2**63 - 1; Python ints, and object arrays of them, any size.

    Examples
    --------
    >>> from fibnim import wythoff
    >>> wythoff.array_position(17)  # 17 = F_7 + F_4 + F_2: lowest index 2
    (7, 1)
    >>> wythoff.array_position([1, 11, 42])
    (array([1, 2, 3]), array([1, 3, 5]))
    """
