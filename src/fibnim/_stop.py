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
