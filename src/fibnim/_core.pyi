# Stub of fibnim._core, built from fibnim_c/_core.pyx and the .pxi files it
# includes; the pure twins are fibnim/_pure/<topic>.py, under the names after
# each topic's prefix. Kernels take C-contiguous arrays (the classify kernels:
# any strides); those with a `limit` check it themselves and return the first
# index above it, or -1.
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]
U32 = NDArray[np.uint32]
U8 = NDArray[np.uint8]

def implementations(built: bool = False) -> tuple[str, ...]: ...
def implementation() -> str: ...
def use_implementation(name: str) -> bool: ...

# The elementwise kernels are declared in fibnim/_declarations.py, one
# `<topic>_<function>(*inputs: U64, *outputs, *options: bool, limit: int) -> int`
# per declaration (the first index refused, or -1). Their numpy ufuncs come
# from make_ufunc (fibnim_c/ufuncs.pxi), and Front is the compiled half of
# fibnim._ufunc.Elementwise (fibnim_c/calls.pxi).

def make_ufunc(
    kernel: str,
    name: str,
    doc: str,
    inputs: int,
    outputs: tuple[int, ...],
    limit: int,
    refusal: Callable[[int, int], BaseException],
) -> np.ufunc: ...
def set_compiled_active(active: bool) -> None: ...

class Front:
    ufunc: np.ufunc | None
    exact: Callable[..., Any] | None
    short_ufunc: np.ufunc | None
    short_exact: Callable[..., Any] | None
    option: str | None
    option_ufunc: np.ufunc | None
    inputs: int
    scalar_high: int
    def use_kernel(
        self, kernel: str, short_kernel: str, limit: int, output_types: tuple[int, ...]
    ) -> None: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

zeckendorf_ENCODE_LEVELS: tuple[tuple[int, int, int, int], ...]
zeckendorf_VECTOR_ENCODE_LEVELS: tuple[tuple[int, int, int], ...]
zeckendorf_VECTOR_ENCODE_RHO: int
fibonacci_nim_ARC_TABLES: list[tuple[int, int]]

def zeckendorf_digits(n: U64, out: U8, limit: int) -> int: ...
def zeckendorf_second_canonical_digits(n: U64, out: U8, limit: int) -> int: ...
def wythoff_classify(piles: U64, out: I64, misere: bool, limit: int) -> int: ...
def fibonacci_nim_two_pile_is_p(piles: U64, r: U64, out: U8, limit: int) -> int: ...
def fibonacci_nim_two_pile_move(piles: U64, r: U64, pile: I64, take: I64, limit: int) -> int: ...
def fibonacci_nim_classify_one_pile(
    piles: U64,
    out: I64,
    bound: int,
    opening: bool,
    limit: int,
) -> int: ...
def fibonacci_nim_classify_two_piles(piles: U64, out: I64, bound: int, limit: int) -> int: ...
def fibonacci_nim_classify_searched(
    piles: U64,
    out: I64,
    table: U32,
    steps: I64,
    sizes: U64,
    bound: int,
    limit: int,
) -> int: ...
def power_nim_is_p(piles: U64, r: U64, out: U8, limit: int) -> int: ...
def power_nim_winning_move(
    piles: U64,
    r: U64,
    pile: I64,
    take: I64,
    bouton: bool,
    limit: int,
) -> int: ...
def power_nim_classify(piles: U64, out: I64, bound: int, bouton: bool, limit: int) -> int: ...
def solvers_board(piece: int, size: int, misere: bool, out: U8) -> None: ...
def solvers_grundy(piece: int, size: int, out: I64) -> None: ...
def solvers_thresholds(dims: I64, power: bool, out: U32, check: Callable[[], None]) -> None: ...
def coding_lengths(values: U64, out: U8) -> int: ...
def coding_pack(values: U64, out: U8, state: U64) -> int: ...
def coding_unpack(data: U8, out: U64, state: U64) -> int: ...
def text_csv_interleave(
    written: U8,
    rows: int,
    plain: int,
    before: I64,
    bounds: I64,
    data: U8,
    present: U8,
    delimiter: int,
    out: U8,
) -> int: ...
def text_parse_integers(offsets: I64, data: U8, out: I64) -> int: ...
def text_records(data: U8, skip: int, starts: I64, ends: I64) -> int: ...
def text_records_answers(
    data: U8, starts: I64, ends: I64, result: I64, delimiter: int, out: U8
) -> int: ...
def text_scan(data: U8, delimiter: int, last: bool) -> tuple[int, int, int, int]: ...
