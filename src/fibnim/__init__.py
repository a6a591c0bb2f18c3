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

from fibnim import _backend, fibonacci_nim, power_nim, solvers, wythoff, zeckendorf
from fibnim._backend import implementations, use_implementation
from fibnim._classify import GAMES, GameName, classify, random_positions
from fibnim._version import __version__
from fibnim.zeckendorf import *  # noqa: F403 (everything in fibnim.zeckendorf is here too)

__all__ = [
    "GAMES",
    "GameName",
    "__version__",
    "backend",  # noqa: F405 (both read at access time: __getattr__ below)
    "classify",
    "fibonacci_nim",
    "implementation",  # noqa: F405
    "implementations",
    "power_nim",
    "random_positions",
    "solvers",
    "use_implementation",
    "wythoff",
    *zeckendorf.__all__,
]


def __getattr__(name: str) -> str:
    # read at access time, so they follow fibnim._backend.use() and use_implementation()
    if name == "backend":
        return _backend.name()
    if name == "implementation":
        return _backend.implementation()
    raise AttributeError(f"module 'fibnim' has no attribute {name!r}")
