"""Stops asked of work running in other threads.

A signal reaches only the main thread, so a long computation in a worker (a
chunk of `fibnim classify`, a search that builds a table) cannot see Ctrl-C
or SIGTERM. The thread that hands out the work lends each worker an Event
(`watching`); the kernels' callers look at it (`check`) between sub-chunks and
searches between blocks of states, and stop with `Stopped` soon after the
Event is set. Work run without an Event, as every plain library call is,
never stops this way (Ctrl-C in the main thread still works as usual).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

try:  # loaded now: at a failed allocation, its import may fail too
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]


class Stopped(Exception):
    """The work was asked to stop (its result would be thrown away)."""


class Signalled(BaseException):
    """SIGINT or SIGTERM, raised in the main thread wherever it is, as Python
    raises KeyboardInterrupt: a BaseException, so that no `except Exception`
    on the way takes it for a failure of its own."""

    def __init__(self, number: int, after: str = "") -> None:
        super().__init__(signal.Signals(number).name + after)
        self.number = number


def _raise(number: int, frame: Any) -> None:
    raise Signalled(number)


def raise_on_signals() -> None:
    """SIGINT and SIGTERM raise Signalled from now on (the fibnim command's
    handlers, set before anything heavy loads); one that this process was
    started ignoring (a background job of a script ignores SIGINT) stays
    ignored, as Python itself leaves it."""
    for number in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, _raise)


@contextmanager
def held_signals() -> Iterator[None]:
    """SIGINT and SIGTERM noted, not raised, inside the block (the imports at the
    command's start); the first noted is raised as Signalled when it ends."""
    noted: list[int] = []
    previous = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    for number, handler in previous.items():
        if handler is not signal.SIG_IGN:
            signal.signal(number, lambda number, frame: noted.append(number))
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if noted:
        raise Signalled(noted[0])


def signalled_within(error: BaseException) -> Signalled | None:
    """The Signalled that error was raised while handling, if any (a signal in
    a lazy import, which the import machinery words as its own error)."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, Signalled):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


_local = threading.local()


@contextmanager
def watching(event: threading.Event) -> Iterator[None]:
    """Let work done in this thread, inside the block, stop when event is set."""
    previous = getattr(_local, "event", None)
    _local.event = event
    try:
        yield
    finally:
        _local.event = previous


def check() -> None:
    """Raise Stopped if this thread's work was asked to stop."""
    event: threading.Event | None = getattr(_local, "event", None)
    if event is not None and event.is_set():
        raise Stopped("asked to stop")


def address_space_limit() -> int | None:
    """This process's address-space limit in MB (ulimit -v), None where there is none."""
    if resource is None:
        return None
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    return None if soft == resource.RLIM_INFINITY else soft >> 20


def out_of_memory(error: BaseException) -> bool:
    """Whether error is a failed allocation in any of the ways it shows: numpy's,
    pyarrow's or Python's MemoryError, a thread that could not start (its stack
    is memory too), a shared library that found no room to map (an import
    under ulimit -v), or CPython's own SystemError at an import under a limit."""
    text = str(error)
    return (
        isinstance(error, MemoryError)
        or (isinstance(error, RuntimeError) and "can't start new thread" in text)
        or "Failed to launch worker thread" in text  # pyarrow's thread pools
        or (isinstance(error, (ImportError, OSError)) and "failed to map segment" in text)
        or (isinstance(error, SystemError) and address_space_limit() is not None)
    )


def one_line(error: BaseException) -> str:
    """error's text on one line: where it is a page (numpy's advice on a failed
    import), the original error it names, else its first line."""
    text = str(error).strip()
    original = text.rpartition("Original error was:")[2] if "Original error was:" in text else text
    lines = [line.strip() for line in original.splitlines() if line.strip()]
    return lines[0] if lines else "an allocation failed"


def available_memory() -> int | None:
    """The bytes of memory the system has free for a new allocation
    (MemAvailable; None where it cannot be read)."""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) << 10
    except (OSError, ValueError, IndexError):
        return None
    return None
