"""Pure twin of the wythoff kernels of fibnim._core (fibnim_c/wythoff.pxi): each kernel checks its
values against `limit` before it computes anything and returns the index of
the first bad one, or -1."""

from __future__ import annotations

from typing import Any

import numpy as np

from fibnim._exact import wythoff as ints
from fibnim._pure._rows import classify_rows, words

INT64_MAX = 2**63 - 1


def _above(limit: int, *values: np.ndarray) -> int:
    """The first index where a value exceeds limit, or -1 (see fibnim_c/wythoff.pxi)."""
    for i, row in enumerate(zip(*(v.tolist() for v in values), strict=True)):
        if max(row) > limit:
            return i
    return -1


def pair(n: np.ndarray, a: np.ndarray, b: np.ndarray, limit: int) -> int:
    """(a[i], b[i]) = (a_n, b_n) for n = n[i]; the index of the first n above limit, or -1."""
    if (bad := _above(limit, n)) >= 0:
        return bad
    pairs = [ints.pair(v) for v in n.tolist()]
    a[:] = [p[0] for p in pairs]
    b[:] = [p[1] for p in pairs]
    return -1


def is_safe(x: np.ndarray, y: np.ndarray, out: np.ndarray, misere: bool, limit: int) -> int:
    """out[i] = 1 where (x[i], y[i]) is a P-position; the index of the first pile above
    limit, or -1."""
    if (bad := _above(limit, x, y)) >= 0:
        return bad
    out[:] = [ints.is_safe(p, q, misere) for p, q in zip(x.tolist(), y.tolist(), strict=True)]
    return -1


def is_lower(x: np.ndarray, out: np.ndarray, limit: int) -> int:
    """out[i] = 1 where x[i] is an A-number; the index of the first x above limit, or -1."""
    if (bad := _above(limit, x)) >= 0:
        return bad
    out[:] = [ints.is_lower(v) for v in x.tolist()]
    return -1


def is_upper(x: np.ndarray, out: np.ndarray, limit: int) -> int:
    """out[i] = 1 where x[i] is a B-number; the index of the first x above limit, or -1."""
    if (bad := _above(limit, x)) >= 0:
        return bad
    out[:] = [v > 0 and not ints.is_lower(v) for v in x.tolist()]
    return -1


def index(x: np.ndarray, out: np.ndarray, limit: int) -> int:
    """out[i] = the n of the safe pair holding x[i]; 0 for 0. Returns the index of
    the first x above limit, or -1."""
    if (bad := _above(limit, x)) >= 0:
        return bad
    out[:] = [ints.index(v) for v in x.tolist()]
    return -1


def partner(x: np.ndarray, out: np.ndarray, limit: int) -> int:
    """out[i] = the other member of x[i]'s safe pair. Returns the first i with x[i]
    above limit or a partner above 2**63 - 1 (a large A-number), or -1."""
    values = x.tolist()
    for i, v in enumerate(values):
        if v > limit or ints.partner(v) > INT64_MAX:
            return i
    out[:] = [ints.partner(v) for v in values]
    return -1


def winning_move(
    x: np.ndarray, y: np.ndarray, tx: np.ndarray, ty: np.ndarray, misere: bool, limit: int
) -> int:
    """(tx[i], ty[i]) = Silber's winning move from (x[i], y[i]), in pile order; -1 where
    there is none. Returns the index of the first pile above limit, or -1."""
    if (bad := _above(limit, x, y)) >= 0:
        return bad
    moves = [ints.winning_move(p, q, misere) for p, q in zip(x.tolist(), y.tolist(), strict=True)]
    tx[:] = [-1 if m is None else m[0] for m in moves]
    ty[:] = [-1 if m is None else m[1] for m in moves]
    return -1


def array_position(x: np.ndarray, row: np.ndarray, column: np.ndarray, limit: int) -> int:
    """(row[i], column[i]) = the 1-based place of x[i] >= 1 in the Wythoff array.
    Returns the first i with x[i] = 0 (not in the array) or above limit, or -1."""
    values = x.tolist()
    for i, v in enumerate(values):
        if v == 0 or v > limit:
            return i
    places = [ints.array_position(v) for v in values]
    row[:] = [p[0] for p in places]
    column[:] = [p[1] for p in places]
    return -1


def classify(piles: np.ndarray, out: np.ndarray, misere: bool, limit: int) -> int:
    """Row i of out = (1 for a P-position or 0, the winning move's target, -1 -1
    where there is none) for the position (x, y) in row i of piles. Returns the
    first row with a pile above limit, or -1."""
    return classify_rows(
        piles,
        out,
        limit,
        lambda row: ints.winning_move(row[0], row[1], misere),
        lambda row: not misere or any(row),  # misere (0, 0): the last mover lost
    )


def quick_is_safe(x: Any, y: Any) -> Any:
    """wythoff.is_safe(x, y) of Python ints, or NotImplemented (fibnim_c/calls.pxi)."""
    return ints.is_safe(x, y) if words(x, y) else NotImplemented


def quick_winning_move(x: Any, y: Any) -> Any:
    """wythoff.winning_move(x, y) of Python ints, or NotImplemented (fibnim_c/calls.pxi)."""
    return ints.winning_move(x, y) if words(x, y) else NotImplemented
