"""fibnim: the Fibonacci number system over numpy arrays, and the games it solves.

Everything in `fibnim.zeckendorf` is available here too. The games:
`fibnim.wythoff` (Wythoff's Nim), `fibnim.fibonacci_nim` (one-pile and global
Fibonacci Nim), `fibnim.power_nim` (power-of-two Nim and Bouton's Nim), and
`fibnim.solvers` (exhaustive search over the rules); `fibnim.coding` writes
integer streams in Fibonacci coding; `fibnim.classify(positions,
game)` classifies many positions of any of them at once (`fibnim.GAMES` names
them). `fibnim.backend`
says which kernels run: "cython" (the compiled core) or "python" (the pure
twin, exact and slow); `fibnim.implementation` which of the compiled core's
implementations runs ("avx512ifma", "avx512", "avx2", "neon" or "scalar": the best
this processor has, unless `fibnim.use_implementation` or the environment
variable FIBNIM_IMPLEMENTATION chose another; `fibnim.implementations()`
lists those it has). Large bulk calls run on every core the process may use:
`fibnim.set_threads` (or the environment variable FIBNIM_NUM_THREADS) sets
how many threads, `fibnim.get_threads` says.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from fibnim._version import __version__ as __version__

if TYPE_CHECKING:  # what type checkers read; at run time each name loads on first use
    from fibnim import coding as coding
    from fibnim import fibonacci_nim as fibonacci_nim
    from fibnim import power_nim as power_nim
    from fibnim import solvers as solvers
    from fibnim import wythoff as wythoff
    from fibnim import zeckendorf as zeckendorf
    from fibnim._backend import implementations as implementations
    from fibnim._backend import use_implementation as use_implementation
    from fibnim._classify import GAMES as GAMES
    from fibnim._classify import GameName as GameName
    from fibnim._classify import classify as classify
    from fibnim._classify import random_positions as random_positions
    from fibnim._threads import get_threads as get_threads
    from fibnim._threads import set_threads as set_threads
    from fibnim.zeckendorf import *  # noqa: F403

# Where each public name lives. They load on first use (PEP 562), not at
# `import fibnim`: the `fibnim` command sets its signal handlers before numpy
# and the compiled core load, so that Ctrl-C during its start ends it as
# cleanly as later.
_MODULES = ("coding", "fibonacci_nim", "power_nim", "solvers", "wythoff", "zeckendorf")
_NAMES = {
    "implementations": "fibnim._backend",
    "use_implementation": "fibnim._backend",
    "GAMES": "fibnim._classify",
    "GameName": "fibnim._classify",
    "classify": "fibnim._classify",
    "random_positions": "fibnim._classify",
    "get_threads": "fibnim._threads",
    "set_threads": "fibnim._threads",
}
_OWN = ("__version__", "backend", "implementation")

if os.environ.get("FIBNIM_REQUIRE_EXTENSION", "") not in ("", "0"):
    importlib.import_module("fibnim._backend")  # an ImportError at import, as promised


def __getattr__(name: str) -> Any:
    # backend and implementation are read at each access, so they follow
    # fibnim._backend.use() and use_implementation()
    if name in ("backend", "implementation"):
        backend = importlib.import_module("fibnim._backend")
        return backend.name() if name == "backend" else backend.implementation()
    if name in _MODULES:
        return importlib.import_module(f"fibnim.{name}")
    if name.startswith("_") and name != "__all__":
        # a private module half imported (`from fibnim import _backend` in a
        # cycle) is found in sys.modules after this, by Python itself
        raise AttributeError(f"module 'fibnim' has no attribute {name!r}")
    zeckendorf = importlib.import_module("fibnim.zeckendorf")
    if name == "__all__":  # for `from fibnim import *`: fibnim.zeckendorf's names too
        return [*_OWN, *_MODULES, *_NAMES, *zeckendorf.__all__]
    if name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name]), name)
    elif name in zeckendorf.__all__:
        value = getattr(zeckendorf, name)
    else:
        raise AttributeError(f"module 'fibnim' has no attribute {name!r}")
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__getattr__("__all__")})
