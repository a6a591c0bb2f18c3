"""The one seam between fibnim's public API and its kernels.

At import the compiled modules (fibnim._<topic>, built from fibnim_c/) are
loaded; when they are missing the pure twins (fibnim._pure.<topic>) stand in.

- FIBNIM_PURE_PYTHON=1 uses the pure twins even when the compiled ones exist.
- FIBNIM_REQUIRE_EXTENSION=1 turns a missing or broken compiled module into
  an ImportError instead of a silent fallback (CI and wheel tests set it).

Public code looks kernels up at call time (``_backend.kernels("zeckendorf")``),
so `use` can switch backends inside one process (the tests do).
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

TOPICS = ("zeckendorf", "wythoff", "fibonacci_nim", "power_nim", "solvers")


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def _load(package: str) -> dict[str, ModuleType]:
    return {topic: importlib.import_module(package.format(topic)) for topic in TOPICS}


_PURE = _load("fibnim._pure.{}")
_COMPILED: dict[str, ModuleType] | None
try:
    _COMPILED = _load("fibnim._{}")
except ImportError as error:
    if _flag("FIBNIM_REQUIRE_EXTENSION") and not _flag("FIBNIM_PURE_PYTHON"):
        raise ImportError(
            "fibnim's compiled extension did not load and FIBNIM_REQUIRE_EXTENSION is set: "
            f"{error}"
        ) from error
    _COMPILED = None
    COMPILED_ERROR: ImportError | None = error
else:
    COMPILED_ERROR = None

_active: dict[str, ModuleType] = (
    _PURE if _COMPILED is None or _flag("FIBNIM_PURE_PYTHON") else _COMPILED
)


def name() -> str:
    """The backend in use: "cython" or "python"."""
    return "python" if _active is _PURE else "cython"


def available() -> tuple[str, ...]:
    """The backends this installation has."""
    return ("python",) if _COMPILED is None else ("cython", "python")


def use(backend: str) -> None:
    """Switch every kernel to `backend` ("cython" or "python") for this process."""
    global _active
    if backend == "python":
        _active = _PURE
    elif backend == "cython":
        if _COMPILED is None:
            raise ImportError(f"fibnim's compiled extension is not available: {COMPILED_ERROR}")
        _active = _COMPILED
    else:
        raise ValueError(f'backend must be "cython" or "python", not {backend!r}')


def kernels(topic: str) -> ModuleType:
    """The kernel module of `topic` in the active backend."""
    return _active[topic]


def twins(topic: str) -> tuple[ModuleType | None, ModuleType]:
    """(compiled, pure) kernel modules of `topic`; compiled is None when absent."""
    return (None if _COMPILED is None else _COMPILED[topic]), _PURE[topic]
