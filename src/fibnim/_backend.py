"""The one seam between fibnim's public API and its kernels.

At import the compiled modules (fibnim._<topic>, built from fibnim_c/) are
loaded; when they are missing the pure twins (fibnim._pure.<topic>) stand in.

- FIBNIM_PURE_PYTHON=1 uses the pure twins even when the compiled ones exist.
- FIBNIM_REQUIRE_EXTENSION=1 turns a missing or broken compiled module into
  an ImportError instead of a silent fallback (CI and wheel tests set it).

Public code looks kernels up at call time (``_backend.kernels("zeckendorf")``),
so `use` can switch backends inside one process (the tests and `fibnim bench`
do). A call that needs more than one fact of the backend (a kernel and its
size limit, say) takes one `active()` snapshot and reads both from it, so a
switch in another thread never mixes two backends in one call.

Without the compiled core, and unless the pure twin was asked for
(FIBNIM_PURE_PYTHON=1), importing fibnim warns once (RuntimeWarning): the
answers are the same, hundreds of times slower.
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import MappingProxyType, ModuleType
from typing import NamedTuple

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
    if not _flag("FIBNIM_PURE_PYTHON"):
        warnings.warn(
            f"fibnim's compiled core is not available ({error}); fibnim runs on its pure-Python "
            "twin: the same answers, 500-1500x slower. Reinstall with a C compiler present "
            "(pip install --force-reinstall --no-binary fibnim fibnim) or from a wheel; set "
            "FIBNIM_PURE_PYTHON=1 to choose the pure twin without this warning.",
            RuntimeWarning,
            stacklevel=2,
        )
else:
    COMPILED_ERROR = None


class Backend(NamedTuple):
    """One backend: its name ("cython" or "python") and its kernel module per topic."""

    name: str
    modules: MappingProxyType[str, ModuleType]


PURE = Backend("python", MappingProxyType(_PURE))
COMPILED = None if _COMPILED is None else Backend("cython", MappingProxyType(_COMPILED))

# one reference, replaced whole by `use`: a reader sees one backend or the other
_active: Backend = PURE if COMPILED is None or _flag("FIBNIM_PURE_PYTHON") else COMPILED


def active() -> Backend:
    """The backend in use, as one snapshot: read it once per call."""
    return _active


def name() -> str:
    """The backend in use: "cython" or "python"."""
    return _active.name


def implementation() -> str:
    """The code path that runs: "python" (the pure twin), or for the compiled
    core "avx512-ifma" (its AVX-512 IFMA kernels) or "scalar" (portable C)."""
    backend = _active
    if backend is PURE:
        return "python"
    return "avx512-ifma" if backend.modules["wythoff"].simd_active() else "scalar"


def available() -> tuple[str, ...]:
    """The backends this installation has."""
    return ("python",) if _COMPILED is None else ("cython", "python")


def use(backend: str) -> None:
    """Switch every kernel to `backend` ("cython" or "python") for this process."""
    global _active
    if backend == "python":
        _active = PURE
    elif backend == "cython":
        if COMPILED is None:
            raise ImportError(f"fibnim's compiled extension is not available: {COMPILED_ERROR}")
        _active = COMPILED
    else:
        raise ValueError(f'backend must be "cython" or "python", not {backend!r}')


def kernels(topic: str) -> ModuleType:
    """The kernel module of `topic` in the active backend."""
    return _active.modules[topic]


def twins(topic: str) -> tuple[ModuleType | None, ModuleType]:
    """(compiled, pure) kernel modules of `topic`; compiled is None when absent."""
    return (None if _COMPILED is None else _COMPILED[topic]), _PURE[topic]
