"""Pure twin of fibnim._zeckendorf (fibnim_c/_zeckendorf.pyx)."""

from __future__ import annotations

import numpy as np

from fibnim._exact import zeckendorf as ints


def _digit_rows(codes: list[int], out: np.ndarray) -> None:
    width = out.shape[1]
    for i, bits in enumerate(codes):
        # keep the low `width` digits; the caller made the width large enough
        text = format(bits & ((1 << width) - 1), "b").zfill(width)
        out[i] = [ord(ch) - 48 for ch in text]


def fib(k: np.ndarray, out: np.ndarray) -> None:
    """out[i] = F_{k[i]}, k[i] <= 93."""
    out[:] = [ints.fib(x) for x in k.tolist()]


def encode(n: np.ndarray, out: np.ndarray) -> None:
    """out[i] = the Zeckendorf code of n[i] < F_66."""
    out[:] = [ints.code(x) for x in n.tolist()]


def decode(code: np.ndarray, out: np.ndarray) -> None:
    """out[i] = the value of code[i], a code with no two adjacent bits."""
    out[:] = [ints.value(c) for c in code.tolist()]


def lowest_term(n: np.ndarray, out: np.ndarray) -> None:
    """out[i] = z_1(n[i]), the smallest Zeckendorf term; 0 for 0."""
    out[:] = [ints.lowest_term(x) for x in n.tolist()]


def is_fibonacci(n: np.ndarray, out: np.ndarray) -> None:
    """out[i] = 1 if n[i] is a Fibonacci number (0 = F_0 included)."""
    out[:] = [ints.is_fibonacci(x) for x in n.tolist()]


def digits(n: np.ndarray, out: np.ndarray) -> None:
    """out[i] = the digits of n[i] for F_{w+1} .. F_2, w = out.shape[1] >= its digit count."""
    _digit_rows([ints.code(x) for x in n.tolist()], out)


def second_canonical_digits(n: np.ndarray, out: np.ndarray) -> None:
    """out[i] = the second canonical digits of n[i] >= 1 for F_w .. F_1, w = out.shape[1]."""
    _digit_rows([ints.second_canonical_code(x) for x in n.tolist()], out)
