# Stub of the compiled module built from fibnim_c/_solvers.pyx (the pure twin:
# fibnim/_pure/solvers.py). Pieces are bit masks: rook 1, bishop 2, king 4, knight 8.
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

def board(piece: int, size: int, misere: bool, out: NDArray[np.uint8]) -> None: ...
def grundy(piece: int, size: int, out: NDArray[np.int64]) -> None: ...
def thresholds(
    dims: NDArray[np.int64], power: bool, out: NDArray[np.uint32], check: Callable[[], None]
) -> None: ...
