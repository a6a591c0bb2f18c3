"""How many threads a bulk call runs on, and the pool that runs them.

A call over a large array (classify, and every elementwise function on the
compiled core or the pure twin) splits its work into contiguous parts and runs
them on a pool of threads: the kernels release the GIL, so the parts run on
as many cores. The count is, first to last, what the call asks (classify's
`threads=`), what the work around it allows (`limited`: one thread inside the
command's own pool and inside a dask task, so that N workers never make N
times N threads), the process-wide setting (`set_threads`, or the environment
variable FIBNIM_NUM_THREADS read at import), and else every core the process
may run on (its CPU affinity). A call of fewer than 2 * `PART` values runs
on the calling thread alone: handing work to a thread and waiting for it
costs tens of microseconds, which a small call would notice.

The parts' answers are the one-thread answers (each part writes its own
slice), and a refused value is the first in the whole input, as on one
thread: the parts are looked at in order.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

import numpy as np

from fibnim import _backend

#: the environment variable that sets the process-wide thread count at import
ENVIRONMENT = "FIBNIM_NUM_THREADS"

#: the fewest values a thread is given: a call of fewer than 2 * PART values
#: runs on one thread (measured on a 2-core Zen 3: from 2**20 values two
#: threads gain 1.3-1.8x for encode, winning_move and classify; is_safe, which
#: moves 17 bytes a value, loses 8 % at 2**20 and gains 1.5x from 2**21)
PART = 1 << 19

Result = TypeVar("Result")

_setting: int | None = None  # set_threads; None: every core
_limit: ContextVar[int | None] = ContextVar("fibnim_thread_limit", default=None)
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_lock = threading.Lock()


def count(value: Any, where: str) -> int | None:
    """A thread count as given: a positive int, or None (every core)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{where}: threads must be a positive int or None, not {value!r}")
    return value


def set_threads(threads: int | None) -> None:
    """Set how many threads fibnim's bulk calls use, process-wide (None: every
    core the process may run on, the default). The environment variable
    FIBNIM_NUM_THREADS sets it at import.

    >>> import fibnim
    >>> fibnim.set_threads(1)
    >>> fibnim.get_threads()
    1
    >>> fibnim.set_threads(None)
    """
    global _setting
    _setting = count(threads, "set_threads")


def get_threads() -> int:
    """How many threads a large bulk call made here and now uses (see
    set_threads): the process-wide setting, one inside fibnim's own workers
    and dask tasks, else every core the process may run on.

    >>> import fibnim
    >>> fibnim.get_threads() >= 1
    True
    """
    limit = _limit.get()
    if limit is not None:
        return limit
    return _setting if _setting is not None else _backend.cores()


@contextmanager
def limited(threads: int | None) -> Iterator[None]:
    """The calls made inside the block (in this thread or task) use at most
    `threads` threads (None: as set_threads says)."""
    token = _limit.set(count(threads, "limited"))
    try:
        yield
    finally:
        _limit.reset(token)


def single(function: Callable[..., Result], *arguments: Any) -> Result:
    """function(*arguments) with its bulk calls on one thread: a task of a
    pool (the command's, a dask worker's) that runs beside others."""
    with limited(1):
        return function(*arguments)


def for_size(size: int, threads: int | None = None) -> int:
    """The threads a call of `size` values uses: `threads` (else get_threads()),
    at most one for every PART values."""
    wanted = get_threads() if threads is None else threads
    return max(1, min(wanted, size // PART))


def _executor(threads: int) -> ThreadPoolExecutor:
    """The shared pool, grown to at least `threads` workers."""
    global _pool, _pool_size
    with _pool_lock:
        if _pool is None or _pool_size < threads:
            old = _pool
            _pool, _pool_size = ThreadPoolExecutor(threads, "fibnim"), threads
            if old is not None:
                old.shutdown(wait=False)
        return _pool


def bounds(size: int, parts: int) -> list[tuple[int, int]]:
    """size split into `parts` contiguous (start, stop) ranges of near-equal size."""
    edges = [size * i // parts for i in range(parts + 1)]
    return [(edges[i], edges[i + 1]) for i in range(parts)]


def run_parts(
    work: Callable[[int, int], Result], ranges: Sequence[tuple[int, int]]
) -> list[Result]:
    """work(start, stop) for each range, on the pool (the first on this thread),
    the results in order; the first range's error that has one is raised, once
    every range is done (none is left writing)."""
    if len(ranges) == 1:
        return [work(*ranges[0])]
    pool = _executor(len(ranges) - 1)
    futures: list[Future[Result]] = [pool.submit(single, work, *r) for r in ranges[1:]]
    outcomes: list[Any] = []
    try:
        with limited(1):
            outcomes.append(work(*ranges[0]))
    except BaseException as error:
        outcomes.append(error)
    for future in futures:
        try:
            outcomes.append(future.result())
        except BaseException as error:
            outcomes.append(error)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return outcomes


def windowed(tasks: Iterable[Callable[[], Result]], threads: int) -> Iterator[Result]:
    """Each task's result in order, at most 2 * threads of them running or done
    and unread at a time (their memory stays bounded); on an error, the tasks
    already started finish before it is raised."""
    if threads <= 1:
        for task in tasks:
            yield task()
        return
    pool = _executor(threads)
    pending: list[Future[Result]] = []
    try:
        for task in tasks:
            pending.append(pool.submit(single, task))
            if len(pending) >= 2 * threads:
                yield pending.pop(0).result()
        while pending:
            yield pending.pop(0).result()
    finally:
        for future in pending:
            future.cancel()
        for future in pending:
            if not future.cancelled():
                try:
                    future.result()
                except BaseException:
                    pass


def ufunc_call(
    ufunc: Any, inputs: tuple[Any, ...], outs: tuple[Any, ...] | None, where: Any
) -> Any:
    """ufunc(*inputs, out=outs, where=where) over parts of the broadcast shape
    along its longest axis, each on a thread (the compiled fronts call this for
    a large call; outs are given where where= is). One thread where an out
    shares memory with an input: numpy copies to get that right, and parts
    running side by side would read what another part wrote."""
    arrays = [a for a in inputs if isinstance(a, np.ndarray)]
    shape = np.broadcast_shapes(*(np.shape(a) for a in (*inputs, *(outs or ()))))
    threads = for_size(math.prod(shape))
    if outs is not None and any(np.may_share_memory(o, a) for o in outs for a in arrays):
        threads = 1
    if threads == 1 or not shape:
        if where is True:
            return ufunc(*inputs, *(outs or ()))
        return ufunc(*inputs, *(outs or ()), where=where)
    if outs is None:
        kinds = ufunc.types[0].split("->")[1]
        outs = tuple(np.empty(shape, dtype=np.dtype(kind)) for kind in kinds)
    axis = max(range(len(shape)), key=lambda i: shape[i])
    threads = min(threads, shape[axis])

    def cut(value: Any, start: int, stop: int) -> Any:
        # a part of an operand along the split axis (numpy's broadcast rules:
        # axes align at the end; an axis of length 1 is every part's)
        if not isinstance(value, np.ndarray):
            return value
        own = axis - (len(shape) - value.ndim)
        if own < 0 or value.shape[own] == 1:
            return value
        return value[(slice(None),) * own + (slice(start, stop),)]

    def part(start: int, stop: int) -> None:
        pieces = [cut(a, start, stop) for a in (*inputs, *outs)]
        if where is True:
            ufunc(*pieces)
        else:
            ufunc(*pieces, where=cut(np.asarray(where), start, stop))

    run_parts(part, bounds(shape[axis], threads))
    return outs[0] if len(outs) == 1 else outs


def _from_environment() -> None:
    value = os.environ.get(ENVIRONMENT, "").strip()
    if not value:
        return
    try:
        set_threads(int(value))
    except ValueError:
        raise ValueError(
            f"{ENVIRONMENT}={value!r}: a positive number of threads, or unset for every core"
        ) from None


def set_part(values: int) -> None:
    """Split calls from 2 * values values on (the tests make it small)."""
    global PART
    PART = values
    if _backend._CORE is not None:
        _backend._CORE.set_split_call(ufunc_call, 2 * values)


def _forget_pool() -> None:
    # a child of fork() has none of the pool's threads: it starts a new pool
    global _pool, _pool_size, _pool_lock
    _pool, _pool_size, _pool_lock = None, 0, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)
_from_environment()
set_part(PART)
