# Stub of the compiled module built from fibnim_c/_power_nim.pyx (the pure twin:
# fibnim/_pure/power_nim.py). piles is a checked, C-contiguous (positions, k) array.
import numpy as np
from numpy.typing import NDArray

def is_p(
    piles: NDArray[np.uint64], r: NDArray[np.uint64], out: NDArray[np.uint8], limit: int
) -> int: ...
def winning_move(
    piles: NDArray[np.uint64],
    r: NDArray[np.uint64],
    pile: NDArray[np.int64],
    take: NDArray[np.int64],
    bouton: bool,
    limit: int,
) -> int: ...

# fused kernel of fibnim.classify: piles (N, k) and out (N, 1 + k) of any strides
def classify(
    piles: NDArray[np.uint64], out: NDArray[np.int64], bound: int, bouton: bool, limit: int
) -> int: ...
