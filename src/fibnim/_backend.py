"""The one seam between fibnim's public API and its kernels.

At import the compiled core (fibnim._core, built from fibnim_c/) is loaded;
when it is missing the pure twins (fibnim._pure.<topic>) stand in. The core
holds every topic's kernels under a prefix (wythoff_is_safe); `kernels(topic)`
hands them out under their twins' names.

The core carries several implementations of its kernels ("scalar", and on
x86-64 "avx2", "avx512" and "avx512ifma"); it takes the best this processor
runs. FIBNIM_IMPLEMENTATION=name, read at import, or `use_implementation(name)`
chooses another.

- FIBNIM_PURE_PYTHON=1 uses the pure twins even when the compiled ones exist.
- FIBNIM_REQUIRE_EXTENSION=1 turns a missing or broken compiled core into
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

TOPICS = ("zeckendorf", "wythoff", "fibonacci_nim", "power_nim", "solvers", "coding", "text")
# every implementation a build can have, best first
IMPLEMENTATIONS = ("avx512ifma", "avx512", "avx2", "neon", "scalar")


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def _topics_of(core: ModuleType) -> dict[str, ModuleType]:
    """The core's kernels by topic, under their twins' names."""
    topics = {}
    for topic in TOPICS:
        kernels = ModuleType(f"{core.__name__}.{topic}")
        prefix = topic + "_"
        for name in dir(core):
            if name.startswith(prefix):
                setattr(kernels, name[len(prefix) :], getattr(core, name))
        topics[topic] = kernels
    return topics


_PURE = {topic: importlib.import_module(f"fibnim._pure.{topic}") for topic in TOPICS}
_COMPILED: dict[str, ModuleType] | None
_CORE: ModuleType | None
try:
    _CORE = importlib.import_module("fibnim._core")
    _COMPILED = _topics_of(_CORE)
except ImportError as error:
    if _flag("FIBNIM_REQUIRE_EXTENSION") and not _flag("FIBNIM_PURE_PYTHON"):
        raise ImportError(
            "fibnim's compiled extension did not load and FIBNIM_REQUIRE_EXTENSION is set: "
            f"{error}"
        ) from error
    _CORE = _COMPILED = None
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


def implementations() -> tuple[str, ...]:
    """The compiled core's implementations that this processor runs, best first;
    empty without the core.

    The names are "avx512ifma", "avx512", "avx2" and "scalar" (portable C, which
    every build has); fibnim takes the first at import.

    Examples
    --------
    >>> import fibnim
    >>> names = fibnim.implementations()
    >>> names == () or names[-1] == "scalar"
    True
    """
    return () if _CORE is None else tuple(_CORE.implementations())


def implementation() -> str:
    """The code path that runs: "python" (the pure twin), or the compiled
    core's implementation in use ("avx512ifma", "avx512", "avx2", "scalar")."""
    if _active is PURE or _CORE is None:
        return "python"
    return str(_CORE.implementation())


def cores() -> int:
    """The cores this process may run on: what its threads default to."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def built_with() -> str | None:
    """The version of Cython that generated the compiled core (None: not loaded)."""
    return None if _CORE is None else str(_CORE.CYTHON_VERSION)


def _unsupported(name: object) -> str:
    supported = implementations()
    if _CORE is None:
        here = f"this installation has no compiled core ({COMPILED_ERROR})"
    else:
        here = f"this processor and build support {', '.join(supported)}"
    kind = "unknown" if name not in IMPLEMENTATIONS else "unsupported"
    return (
        f"{kind} implementation {name!r}: {here} "
        f"(fibnim's implementations: {', '.join(IMPLEMENTATIONS)})"
    )


def use_implementation(name: str) -> None:
    """Make the compiled core's kernels take implementation `name` from now on,
    in every thread.

    Every implementation gives the same answers and errors; they differ in speed.
    The environment variable FIBNIM_IMPLEMENTATION makes the same choice at import.

    Raises
    ------
    ValueError
        If this processor or build does not run `name` (see `implementations`),
        or no implementation has that name.

    Examples
    --------
    >>> import fibnim
    >>> answers = set()
    >>> for name in fibnim.implementations():
    ...     fibnim.use_implementation(name)
    ...     answers.add(str(fibnim.wythoff.is_safe([3, 4], [5, 5]).tolist()))
    >>> answers <= {"[True, False]"}
    True
    >>> for best in fibnim.implementations()[:1]:  # none without the compiled core
    ...     fibnim.use_implementation(best)
    >>> fibnim.use_implementation("sve2")
    Traceback (most recent call last):
    ...
    ValueError: unknown implementation 'sve2': ...
    """
    if _CORE is None or not isinstance(name, str) or not _CORE.use_implementation(name):
        raise ValueError(_unsupported(name))


_chosen = os.environ.get("FIBNIM_IMPLEMENTATION", "").strip()
if _chosen:
    try:
        use_implementation(_chosen)
    except ValueError as error:
        raise ImportError(f"FIBNIM_IMPLEMENTATION={_chosen}: {error}") from None


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
    _tell_core()


def _tell_core() -> None:
    # the compiled fronts of the public functions read this flag, not _active
    if _CORE is not None:
        _CORE.set_compiled_active(_active is COMPILED)


_tell_core()


def kernels(topic: str) -> ModuleType:
    """The kernels of `topic` in the active backend."""
    return _active.modules[topic]


def twins(topic: str) -> tuple[ModuleType | None, ModuleType]:
    """(compiled, pure) kernels of `topic`; compiled is None without the core."""
    return (None if _COMPILED is None else _COMPILED[topic]), _PURE[topic]
