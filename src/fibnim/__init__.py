"""fibnim: the Fibonacci number system over numpy arrays, and the games it solves.

Everything in `fibnim.zeckendorf` is available here too; `fibnim.wythoff`
answers Wythoff's Nim. `fibnim.backend`
says which kernels run: "cython" (the compiled core) or "python" (the pure
twin, exact and slow).
"""

from __future__ import annotations

from fibnim import _backend, wythoff
from fibnim._version import __version__
from fibnim.zeckendorf import (
    CODE_LIMIT,
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
    "__version__",
    "backend",
    "decode",
    "digits",
    "encode",
    "fib",
    "is_fibonacci",
    "lowest_term",
    "parse",
    "second_canonical",
    "terms",
    "to_string",
    "wythoff",
]


def __getattr__(name: str) -> str:
    # `backend` is read at access time, so it follows fibnim._backend.use().
    if name == "backend":
        return _backend.name()
    raise AttributeError(f"module 'fibnim' has no attribute {name!r}")
