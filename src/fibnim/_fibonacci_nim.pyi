# Stub of the compiled module built from fibnim_c/_fibonacci_nim.pyx (the pure
# twin: fibnim/_pure/fibonacci_nim.py). Kernels take checked, C-contiguous arrays.
import numpy as np
from numpy.typing import NDArray

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]
U8 = NDArray[np.uint8]

def is_p(n: U64, r: U64, out: U8, limit: int) -> int: ...
def winning_take(n: U64, r: U64, out: I64, limit: int) -> int: ...
def two_pile_is_p(piles: U64, r: U64, out: U8, limit: int) -> int: ...
def two_pile_move(piles: U64, r: U64, pile: I64, take: I64, limit: int) -> int: ...

# fused kernels of fibnim.classify: piles (N, k) and out (N, 1 + k) of any strides
def classify_one_pile(piles: U64, out: I64, bound: int, opening: bool, limit: int) -> int: ...
def classify_two_piles(piles: U64, out: I64, bound: int, limit: int) -> int: ...
def classify_searched(
    piles: U64,
    out: I64,
    table: NDArray[np.uint32],
    steps: I64,
    sizes: U64,
    bound: int,
    limit: int,
) -> int: ...
def use_simd(wanted: bool) -> bool: ...
