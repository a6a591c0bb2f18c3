"""fibnim: the Fibonacci number system over numpy arrays, and the games it solves.

Everything in `fibnim.zeckendorf` is available here too. The games:
`fibnim.wythoff` (Wythoff's Nim), `fibnim.fibonacci_nim` (one-pile and global
Fibonacci Nim), `fibnim.power_nim` (power-of-two Nim and Bouton's Nim), and
`fibnim.solvers` (exhaustive search over the rules); `fibnim.classify(positions,
game)` classifies many positions of any of them at once (`fibnim.GAMES` names
them). `fibnim.backend`
says which kernels run: "cython" (the compiled core) or "python" (the pure
twin, exact and slow); `fibnim.implementation` which of the compiled core's
implementations runs ("avx512ifma", "avx512", "avx2" or "scalar": the best
this processor has, unless `fibnim.use_implementation` or the environment
variable FIBNIM_IMPLEMENTATION chose another; `fibnim.implementations()`
lists those it has).
"""

from __future__ import annotations

from fibnim import _backend, fibonacci_nim, power_nim, solvers, wythoff
from fibnim._backend import implementations, use_implementation
from fibnim._classify import GAMES, classify, random_positions
from fibnim._version import __version__
from fibnim.zeckendorf import (
    CODE_LIMIT,
    DIGITS_LIMIT,
    TERMS_BITS_LIMIT,
    decode,
    digits,
    encode,
    fib,
    is_fibonacci,
    lowest_term,
    parse,
    second_canonical,
    terms,
    to_string,
)

__all__ = [
    "CODE_LIMIT",
    "DIGITS_LIMIT",
    "GAMES",
    "TERMS_BITS_LIMIT",
    "__version__",
    "backend",
    "classify",
    "decode",
    "digits",
    "encode",
    "fib",
    "fibonacci_nim",
    "implementation",
    "implementations",
    "is_fibonacci",
    "lowest_term",
    "parse",
    "power_nim",
    "random_positions",
    "second_canonical",
    "solvers",
    "terms",
    "to_string",
    "use_implementation",
    "wythoff",
]


def __getattr__(name: str) -> str:
    # read at access time, so they follow fibnim._backend.use() and use_implementation()
    if name == "backend":
        return _backend.name()
    if name == "implementation":
        return _backend.implementation()
    raise AttributeError(f"module 'fibnim' has no attribute {name!r}")
