"""Pure twin of the wythoff kernels of fibnim._core (fibnim_c/wythoff.pxi): each kernel checks its
values against `limit` before it computes anything and returns the index of
the first bad one, or -1."""

from __future__ import annotations

from typing import Any

import numpy as np

from fibnim._exact import wythoff as ints
from fibnim._pure._rows import classify_rows


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


# the elementwise kernels, one per declaration (fibnim._declarations)
def __getattr__(name: str) -> Any:
    # the declared kernels, made from their declarations on first use (this
    # module is imported before fibnim._declarations)
    from fibnim._declarations import twin_of

    return twin_of("wythoff")(name)
