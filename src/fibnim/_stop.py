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

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Stopped(Exception):
    """The work was asked to stop (its result would be thrown away)."""


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
