"""Pure twin of the zeckendorf kernels of fibnim._core (fibnim_c/zeckendorf.pxi).

Each kernel reads its input once (`tolist`), checks every value against
`limit` (and its own rule) and returns the index of the first bad one, having
computed nothing from it, or -1: as the compiled twin does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fibnim._exact import zeckendorf as ints


def _checked(values: np.ndarray, limit: int, bad: Callable[[int], bool] | None = None) -> int:
    """The index of the first value above limit (or for which bad is true), or -1."""
    for i, v in enumerate(values):
        if v > limit or (bad is not None and bad(v)):
            return i
    return -1


def _digit_rows(codes: list[int], out: np.ndarray) -> None:
    width = out.shape[1]
    for i, bits in enumerate(codes):
        # keep the low `width` digits; the caller made the width large enough
        text = format(bits & ((1 << width) - 1), "b").zfill(width)
        out[i] = [ord(ch) - 48 for ch in text]


def digits(n: np.ndarray, out: np.ndarray, limit: int) -> int:
    """out[i] = the digits of n[i] for F_{w+1} .. F_2, w = out.shape[1]. Returns the
    first i with n[i] above limit (F_{w+2} - 1 at most, so that the digits fit), or -1."""
    values = n.tolist()
    if (first := _checked(values, limit)) >= 0:
        return first
    _digit_rows([ints.code(x) for x in values], out)
    return -1


def second_canonical_digits(n: np.ndarray, out: np.ndarray, limit: int) -> int:
    """out[i] = the second canonical digits of n[i] for F_w .. F_1, w = out.shape[1].
    Returns the first i with n[i] = 0 (which has no such form) or above limit, or -1."""
    values = n.tolist()
    if (first := _checked(values, limit, lambda v: v == 0)) >= 0:
        return first
    _digit_rows([ints.second_canonical_code(x) for x in values], out)
    return -1


# the elementwise kernels, one per declaration (fibnim._declarations)
def __getattr__(name: str) -> Any:
    # the declared kernels, made from their declarations on first use (this
    # module is imported before fibnim._declarations)
    from fibnim._declarations import twin_of

    return twin_of("zeckendorf")(name)
