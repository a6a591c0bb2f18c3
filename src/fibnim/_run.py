"""A `fibnim classify` run over a file or --random: its chunks classified on
threads (or a dask cluster) in row order, written by one output routine
(`fibnim._files.Sink`), with SIGINT and SIGTERM noted rather than raised so
that none is lost, and a summary at the end."""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import logging
import os
import select
import signal
import stat
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

import fibnim
from fibnim import _backend, _stop, _threads
from fibnim._arrow import hold_arrow
from fibnim._classify import GameName, classify, column_list, random_positions
from fibnim._delimited import TextSource
from fibnim._errors import DataError, UsageError
from fibnim._files import Sink, open_source
from fibnim._npy import NpySource
from fibnim._output import kind_of, save_figure
from fibnim._plan import ClassifyRun
from fibnim._source import Kept, PileNames, Source, checked, pile_columns

CHUNK = 1 << 17  # positions per task at most, by default: a few MB


# bytes of positions and results that the default chunk lets the tasks hold at
# once (threads + 1 chunks in flight): a run's peak stays below 300 MB on any
# number of cores
IN_FLIGHT = 48 << 20


def default_chunk(threads: int, piles: int) -> int:
    """The chunk a run takes unless --chunk says: CHUNK, or less with many
    threads or wide rows, by bytes (the chunks in flight under IN_FLIGHT),
    down to one row."""
    return max(1, min(CHUNK, IN_FLIGHT // (_row_bytes(piles) * (threads + 1))))


def _row_bytes(piles: int) -> int:
    return 8 * (2 * piles + 1)  # the piles in, and the outcome and the move out


def check_room(chunk: int, piles: int, threads: int, option: str) -> None:
    """UsageError, before any work, where the chunks in flight would need more
    memory than the machine has free (the kernel would kill the run unsaid)."""
    need = chunk * _row_bytes(piles) * (threads + 1)
    free = _stop.available_memory()
    if free is not None and need > free:
        raise UsageError(
            f"{option}: {threads + 1} chunks of {chunk:,} rows of {piles:,} piles in flight "
            f"need {need / 2**20:,.0f} MB, and {free / 2**20:,.0f} MB are free; "
            "fewer piles, a smaller --chunk or fewer --threads"
        )


class _Random(Source):
    """--random N: positions made chunk by chunk (by the tasks, see _tasks), each
    chunk from its own seed, so the data do not depend on the chunk order or the
    threads."""

    def __init__(self, count: int, game: GameName, piles: int, seed: int) -> None:
        self.name = "--random"
        self.rows = count
        self.game = game
        self.width = piles
        self.seed = seed
        self.columns = PileNames(piles)

    def positions(self, start: int, count: int) -> NDArray[np.int64]:
        return random_positions(count, self.game, self.width, [self.seed, start])


@dataclass
class _Done:
    """A classified chunk: its row count, P-positions and the seconds its
    classification took on its thread, and, unless the results went straight
    into the output's memory map, the positions and their results for the sink
    to write."""

    rows: int
    p_positions: int
    seconds: float
    positions: NDArray[Any] | None = None
    result: NDArray[np.int64] | None = None
    kept: Kept = None  # the input's columns, where --columns chose the piles
    text: Any = None  # CSV or TSV: the rows as the sink writes them, made on the task's thread


_BUFFERS = threading.local()  # each thread's rows in and out, reused chunk after chunk


def _buffer(rows: int, width: int) -> NDArray[np.int64]:
    held = getattr(_BUFFERS, "rows", None)
    if held is None or held.shape[0] < rows or held.shape[1] != width:
        held = _BUFFERS.rows = np.empty((rows, width), dtype=np.int64)
    return held[:rows]


def _input_buffer(nbytes: int) -> NDArray[np.uint8]:
    held = getattr(_BUFFERS, "input", None)
    if held is None or held.size < nbytes:
        held = _BUFFERS.input = np.empty(nbytes, dtype=np.uint8)
    return held


def solve_chunk(
    positions: NDArray[Any],
    game: GameName,
    bound: int | None,
    sink: Sink | None = None,
    name: str = "",
    first: int = 0,
    kept: Kept = None,
    pick: list[int] | None = None,
    render: Callable[..., Any] | None = None,
) -> _Done:
    """classify one chunk, rows first.. of the input (its piles, the input's
    columns `pick`); a bad value is a DataError naming the file's row and
    column. A sink that takes rows at their places (`direct`) gets them here,
    from this thread's buffer, which stays in the cache; `render` (a CSV
    sink's `text`) makes the chunk's lines here, on the task's thread."""
    direct = sink is not None and sink.direct
    out = _buffer(len(positions), 1 + positions.shape[1]) if direct else None
    began = time.perf_counter()
    try:
        result = classify(positions, game, bound, out=out)
    except (ValueError, OverflowError):
        checked(name, np.asarray(positions), first, "row", pick)  # raises, naming the row
        raise
    seconds = time.perf_counter() - began
    p_positions = int(np.count_nonzero(result[:, 0]))
    if sink is not None and direct:
        sink.put(first, result)
        return _Done(len(result), p_positions, seconds)
    text = render(positions, result, kept) if render is not None else None
    return _Done(len(result), p_positions, seconds, positions, result, kept, text)


def _random_rows(
    source: _Random, start: int, count: int, bound: int | None, sink: Sink | None
) -> _Done:
    """A task that makes its own positions, so that making them runs in parallel too."""
    return solve_chunk(source.positions(start, count), source.game, bound, sink, first=start)


def _npy_rows(
    source: NpySource,
    start: int,
    stop: int,
    game: GameName,
    bound: int | None,
    sink: Sink | None = None,
) -> _Done:
    """A task that reads its own rows of the input (its piles: the columns
    `source.pick`). When they go no further than this task (a `direct` sink),
    they are read into this thread's buffer. The header was read once, by the
    main thread: parsing it in many threads at once tripped CPython 3.11's ast
    (`AST constructor recursion depth mismatch`, in numpy's header parse)."""
    nbytes = (stop - start) * source.width * source.dtype.itemsize
    direct = sink is not None and sink.direct
    rows = source.window(start, stop, _input_buffer(nbytes) if direct else None)
    pick = source.pick
    if pick is None:
        return solve_chunk(rows, game, bound, sink, source.name, start)
    kept = None if direct else list(rows.T)
    return solve_chunk(rows[:, pick], game, bound, sink, source.name, start, kept, pick)


def _tasks(
    source: Source, game: GameName, bound: int | None, chunk: int, dask: bool, sink: Sink | None
) -> Iterator[Any]:
    """(function, arguments) per chunk, in row order."""
    if isinstance(source, _Random):
        for start in range(0, source.rows or 0, chunk):
            count = min(chunk, (source.rows or 0) - start)
            yield _random_rows, (source, start, count, bound, None if dask else sink)
        return
    if isinstance(source, NpySource) and source.rows is not None:
        for start in range(0, source.rows, chunk):
            stop = min(start + chunk, source.rows)
            yield _npy_rows, (source, start, stop, game, bound, None if dask else sink)
        return
    # CSV or TSV lines made by the tasks, in parallel, rather than by the one
    # thread that reads the input and writes the output (not on dask: its
    # workers have no sink)
    render = sink.text if sink is not None and sink.kind in (".csv", ".tsv") and not dask else None
    if isinstance(source, TextSource) and not dask:
        # the text read and checked here, split and parsed by the tasks; an
        # error found here comes in its place among theirs, after the rows before it
        try:
            for first, blocks in source.parts(chunk):
                yield _text_rows, (source, first, blocks, game, bound, render)
        except DataError as error:
            yield _raise, (error,)
        return
    for first, positions, kept in source.chunks(chunk):
        yield (
            solve_chunk,
            (positions, game, bound, None, source.name, first, kept, source.pick, render),
        )


def _text_rows(
    source: TextSource,
    first: int,
    blocks: list[Any],
    game: GameName,
    bound: int | None,
    render: Callable[..., Any] | None,
) -> _Done:
    """A task that splits its own blocks of the text and makes their piles values."""
    _, positions, kept = source.chunk(first, blocks)
    return solve_chunk(positions, game, bound, None, source.name, first, kept, source.pick, render)


def _raise(error: BaseException) -> None:
    raise error


class Signals:
    """SIGINT and SIGTERM noted rather than raised while a run is under way.

    A KeyboardInterrupt raised wherever the main thread happens to be can be
    swallowed (inside a finalizer, say) and the run then finishes as if nothing
    had happened. A noted signal cannot be lost: the run looks at it between
    chunks, while it waits for one, and just before and after its commit.
    `stop` is set by a signal and when the run ends: the chunks under way in
    worker threads (`submit_watched`) end at their next sub-chunk. While the
    main thread reads the input (`reading`), a signal is raised there as well:
    a read that waits on a pipe or stdin would otherwise wait on, the signal
    noted, until more input came.
    """

    def __init__(self, pool: ThreadPoolExecutor | None = None) -> None:
        #: the run's threads, shut down when it ends: after its work is told to
        #: stop, and while an error that ends one of them is still noted here
        self.pool = pool
        self.number: int | None = None
        self.previous: dict[int, Any] = {}
        self.stop = threading.Event()
        self.reading = False
        # a byte written here by the C handler of every signal, whichever thread
        # the system gave it to: a read that waits on a pipe waits on this too
        # (a signal given to a worker thread interrupts no wait of the main one)
        self.wakeup: tuple[int, int] | None = None
        self.old_wakeup = -1
        # an error that ended a worker thread outside any task (a MemoryError
        # in the pool's own loop or in its report of one): raised by check(),
        # since the chunk that thread held would otherwise never be done
        self.failure: BaseException | None = None
        self.hooks: tuple[Any, Any] | None = None
        self.pool_log = _PoolLog(self._fail)

    def _fail(self, error: BaseException | None) -> None:
        # no allocation here: under a memory limit this runs where one just failed
        if error is not None and self.failure is None:
            self.failure = error
        self.stop.set()

    def _unraisable(self, hook: Any) -> None:
        # a thread whose report of its own error failed for want of memory; a
        # finalizer's error is printed as ever
        if isinstance(hook.exc_value, MemoryError):
            self._fail(hook.exc_value)
        elif self.hooks is not None:
            self.hooks[1](hook)

    def __enter__(self) -> Signals:
        if threading.current_thread() is threading.main_thread():
            self.hooks = (threading.excepthook, sys.unraisablehook)
            threading.excepthook = lambda hook: self._fail(hook.exc_value)
            sys.unraisablehook = self._unraisable
            self.pool_log.attach()
            for number in (signal.SIGINT, signal.SIGTERM):
                self.previous[number] = signal.signal(number, self._note)
            if os.name == "posix":
                self.wakeup = os.pipe()
                for end in self.wakeup:
                    os.set_blocking(end, False)
                self.old_wakeup = signal.set_wakeup_fd(self.wakeup[1], warn_on_full_buffer=False)
        return self

    def wait_for(self, file: Any) -> None:
        """Return once file (a pipe, a terminal) has bytes to read or is at its
        end; a signal that comes meanwhile is raised (see `read`)."""
        self.check()
        if self.wakeup is None:
            return
        try:
            descriptor = file.fileno()
            if stat.S_ISREG(os.fstat(descriptor).st_mode):
                return  # a regular file's read never waits long
        except (AttributeError, OSError, ValueError):
            return
        while True:
            ready, _, _ = select.select([descriptor, self.wakeup[0]], [], [])
            if self.wakeup[0] in ready:
                with contextlib.suppress(OSError):
                    os.read(self.wakeup[0], 512)
                self.check()  # the handler has run by now, and noted it
            if descriptor in ready:
                return

    def _note(self, number: int, frame: Any) -> None:
        self.number = self.number or number
        self.stop.set()
        if self.reading:
            raise _stop.Signalled(self.number)

    def read(self, tasks: Iterator[Any]) -> Any:
        """The next task (None after the last), read with signals raised."""
        # reading is set first: a signal noted between a look and the read
        # would leave the read waiting on a pipe with the signal unraised
        self.reading = True
        try:
            self.check()
            return next(tasks, None)
        finally:
            self.reading = False

    def submit_watched(self, pool: ThreadPoolExecutor) -> Callable[..., Future[Any]]:
        """pool.submit for work that stops when this run does."""

        def submit(function: Callable[..., Any], *arguments: Any) -> Future[Any]:
            return pool.submit(_watched, self.stop, function, *arguments)

        return submit

    def __exit__(self, *exception: object) -> None:
        self.stop.set()
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        if self.hooks is not None:
            threading.excepthook, sys.unraisablehook = self.hooks
            self.pool_log.detach()
            self.hooks = None
        for number, handler in self.previous.items():
            signal.signal(number, handler)
        if self.wakeup is not None:
            signal.set_wakeup_fd(self.old_wakeup)
            for end in self.wakeup:
                os.close(end)
            self.wakeup = None

    def check(self) -> None:
        """Raise Signalled if a signal came, or the error that ended a worker thread."""
        if self.number is not None:
            raise _stop.Signalled(self.number)
        if self.failure is not None:
            raise self.failure


class _PoolLog(logging.Handler):
    """Where concurrent.futures reports an error that ended one of its worker
    threads (its 'Exception in worker' with a traceback): handed to the run,
    which ends with it in one line, rather than printed."""

    def __init__(self, fail: Callable[[BaseException | None], None]) -> None:
        super().__init__()
        self.fail = fail
        self.logger = logging.getLogger("concurrent.futures")
        self.propagate = True

    def emit(self, record: logging.LogRecord) -> None:
        self.fail(record.exc_info[1] if record.exc_info else None)

    def attach(self) -> None:
        self.propagate = self.logger.propagate
        self.logger.addHandler(self)
        self.logger.propagate = False

    def detach(self) -> None:
        self.logger.removeHandler(self)
        self.logger.propagate = self.propagate


WAIT = 0.05  # seconds between looks at the signals while a chunk is computed


def _watched(stop: threading.Event, function: Callable[..., Any], *arguments: Any) -> Any:
    with _stop.watching(stop), _threads.limited(1):  # the pool's workers are the cores
        return function(*arguments)


def in_order(
    submit: Callable[..., Future[Any]], tasks: Iterator[Any], window: int, signals: Signals
) -> Iterator[Any]:
    """The results of tasks, in order, with at most `window` of them in flight."""
    pending: deque[Future[Any]] = deque()
    try:
        while (task := signals.read(tasks)) is not None:
            function, arguments = task
            pending.append(submit(function, *arguments))
            if len(pending) >= window:
                yield result_of(pending.popleft(), signals)
        while pending:
            yield result_of(pending.popleft(), signals)
    finally:
        for future in pending:  # queued chunks never start
            future.cancel()


def result_of(future: Any, signals: Signals) -> Any:
    while not future.done():
        signals.check()
        if isinstance(future, Future):
            concurrent.futures.wait([future], timeout=WAIT)
        else:
            # a distributed future, looked at rather than waited on: its
            # result(timeout=) lost the answer to a wait cancelled under load
            # (an UnboundLocalError inside distributed)
            time.sleep(WAIT)
    signals.check()
    try:
        return future.result()
    except _stop.Stopped:
        signals.check()  # stopped by the signal noted just before
        raise


def progress(total: int | None, quiet: bool) -> Any:
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit=" positions", unit_scale=True, file=sys.stderr, smoothing=0.1)


def classify_file(run: ClassifyRun) -> int:
    """A run over a file, or --random, chunk by chunk on threads (or dask);
    its paths were checked when it was described (`ClassifyRun`)."""
    hold_arrow(run.threads, run.input, run.output)
    if run.random is not None:
        source: Source = _Random(
            run.random, run.rules.name, run.piles or run.rules.piles or 2, run.seed
        )
    else:
        assert run.input is not None
        source = open_source(run.input, run.header, run.delimiter, run.columns)
    try:
        if not run.dask:  # a cluster's workers have memory of their own
            width, threads = len(source.columns), run.threads
            chunk = run.chunk or default_chunk(threads, width)
            check_room(chunk, width, threads, source.name)
        sink = _sink(run, source)
    except BaseException:
        source.close()
        raise
    client = dask_client(run.dask) if run.dask else None
    threads = run.threads if client is None else _dask_workers(client)
    chunk = run.chunk = run.chunk or default_chunk(threads, len(source.columns))
    piles = source.piles
    bar = progress(source.rows, run.quiet)
    start, positions_done, p_positions = time.perf_counter(), 0, 0
    chunks: list[tuple[int, int, float]] = []  # rows, P-positions, seconds
    pool = ThreadPoolExecutor(max_workers=run.threads) if client is None else None
    try:
        with Signals(pool) as signals:
            # before each read that may wait: a signal raised in a finalizer is
            # lost, and one given to a worker thread interrupts no read
            source.watch(signals.wait_for)
            submit = signals.submit_watched(pool) if pool is not None else dask_submit(client)
            tasks = _tasks(source, run.rules.name, run.bound, chunk, client is not None, sink)
            for done in in_order(submit, tasks, threads + 1, signals):
                signals.check()
                if sink is not None:
                    sink.write(done.positions, done.result, done.rows, done.kept, done.text)
                positions_done += done.rows
                p_positions += done.p_positions
                chunks.append((done.rows, done.p_positions, done.seconds))
                if bar is not None:
                    bar.update(done.rows)
            if sink is not None:
                sink.commit(signals.check)
            if signals.number is not None:  # it came during the commit itself
                raise _stop.Signalled(signals.number, f", after {run.output} was written")
    except BaseException:
        if sink is not None:
            sink.abort()
        raise
    finally:
        source.close()
        if bar is not None:
            bar.close()
        if client is not None:
            client.close()
    seconds = time.perf_counter() - start
    summary(
        run,
        positions=positions_done,
        p_positions=p_positions,
        seconds=seconds,
        where=f"dask at {run.dask}, {threads} workers" if client else f"{threads} threads",
        piles=piles,
    )
    if run.plot_kind is not None:
        _summary_plot(run, chunks, run.plot_kind, seconds)
    return 0


def _sink(run: ClassifyRun, source: Source) -> Sink | None:
    """The output of a run over source, once the source is known to fit the game."""
    if source.named and source.pick is None and not isinstance(source, _Random):
        try:
            run.rules.check_named(source.columns, source.name, "--columns ")
        except ValueError as error:
            raise DataError(str(error)) from None
    try:
        run.rules.check_piles(len(source.piles))
    except ValueError as error:
        hint = ""
        if not isinstance(source, _Random):
            hint = columns_hint(source.columns if source.named else None)
        raise DataError(f"{source.name}: {error}{hint}") from None
    if not run.output:
        return None
    text = source.delimiter if isinstance(source, TextSource) else None
    sink = Sink(
        run.output,
        source.columns,
        source.rows,
        run.force,
        run.delimiter,
        source.pick,
        inputs=(run.input,),
        text_delimiter=text,
        text_header=source.reader.header_record if isinstance(source, TextSource) else None,
        types=_column_types(run, source),
    )
    if isinstance(source, TextSource):
        source.records = sink.records
    return sink


def _column_types(run: ClassifyRun, source: Source) -> dict[int, Any]:
    """--types NAME=TYPE,...: {column: pyarrow type} of a text input's
    passed-through columns, for a parquet output; UsageError for a name that
    is no such column, a type pyarrow does not name, or another input or output."""
    if run.types is None:
        return {}
    if (
        not isinstance(source, TextSource)
        or run.output is None
        or kind_of(run.output) != ".parquet"
    ):
        raise UsageError("--types goes with a CSV or TSV input and a .parquet output")
    import pyarrow as pa

    chosen: dict[int, Any] = {}
    for item in run.types.split(","):
        name, equals, kind = (part.strip() for part in item.partition("="))
        if not equals or not name or not kind:
            raise UsageError(f"--types: {item.strip()!r} is not NAME=TYPE")
        j = pile_columns(source.columns, name, source.name, source.named, "--types")[0]
        if source.pick is None or j in source.pick:
            raise UsageError(f"--types: {name} is a pile (int64); name the other columns")
        try:
            chosen[j] = pa.type_for_alias(kind)
        except ValueError:
            raise UsageError(f"--types: {kind!r} is not a type pyarrow names") from None
    return chosen


def _summary_plot(
    run: ClassifyRun,
    chunks: list[tuple[int, int, float]],
    kind: str,
    seconds: float,
) -> None:
    """--summary-plot: each chunk's share of P-positions and throughput (its rows
    over the seconds its classification took on its thread, files left out),
    under a title that gives the whole run's (`seconds`, files included)."""
    from matplotlib.figure import Figure

    from fibnim.plot import classify_summary

    rows = [chunk[0] for chunk in chunks]
    figure = Figure(figsize=(7, 6), layout="constrained")
    classify_summary(
        rows,
        [chunk[1] for chunk in chunks],
        [chunk[2] for chunk in chunks],
        title=f"fibnim classify --game {run.rules.name}: {sum(rows)} positions, "
        f"{len(rows)} chunks\n"
        f"backend {fibnim.backend}, implementation {_backend.implementation()}; the whole "
        f"run, files included: {sum(rows) / max(seconds, 1e-9):.3g} positions/s",
        axes=figure.subplots(2, 1, sharex=True),
    )
    assert run.summary_plot is not None
    save_figure(figure, run.summary_plot, kind, run.force)


def columns_hint(columns: Sequence[str] | None) -> str:
    """For a refused column count: the input's columns (None: they have no
    names), and how to choose the piles."""
    if columns is None:
        return "; choose the pile columns by index with --columns (counted from 0)"
    return f"; its columns are {column_list(columns)}: choose the piles with --columns"


def _count(n: int, thing: str) -> str:
    """n things, in words that read well for one and for many: "1 P-position"."""
    return f"{n:,} {thing}{'' if n == 1 else 's'}"


def summary(
    run: ClassifyRun,
    *,
    positions: int,
    p_positions: int,
    seconds: float,
    where: str,
    piles: Sequence[str],
) -> None:
    """What a run did: a line on stderr (stdout is the data's with -o -), or with
    --json one JSON object on stdout (on stderr with -o -); nothing with --quiet.
    Both name the columns read as piles."""
    if run.quiet:
        return
    summary = {
        "game": run.rules.name,
        "piles": list(piles),
        "positions": positions,
        "p_positions": p_positions,
        "seconds": round(seconds, 6),
        "positions_per_second": positions / seconds if seconds > 0 else None,
        "backend": fibnim.backend,
        "implementation": _backend.implementation(),
        "where": where,
        "output": run.output,
        "peak_mb": _peak_mb(),
    }
    stream = sys.stderr if run.output == "-" else sys.stdout
    if run.json:
        print(json.dumps(summary), file=stream)
        return
    rate = positions / seconds if seconds > 0 else float("inf")
    share = f" ({100 * p_positions / positions:.3g}%)" if positions else ""
    if run.random is not None:
        read = _count(positions, "random position")
    else:
        named = ", ".join(piles[:8]) + (f", ... {len(piles):,} in all" if len(piles) > 8 else "")
        read = f"{_count(positions, 'position')} (piles {named})"
    print(
        f"{run.rules.name}: {read}: "
        f"{_count(p_positions, 'P-position')}{share}, where the player to move loses, and "
        f"{_count(positions - p_positions, 'N-position')}, with a winning move; "
        f"in {seconds:.3g} s "
        f"({rate:.4g} positions/s; backend {summary['backend']}, {summary['implementation']}, "
        f"{where})" + (f"; written to {run.output}" if run.output else ""),
        file=sys.stderr,
    )


def _peak_mb() -> float | None:
    """This process's peak resident memory so far, in MB, as the kernel counts
    it (VmHWM: Linux; None elsewhere)."""
    try:
        with open("/proc/self/status") as file:
            status = file.read()
    except OSError:
        return None
    kilobytes = next((line.split()[1] for line in status.splitlines() if "VmHWM" in line), None)
    return None if kilobytes is None else round(int(kilobytes) / 1024, 1)


def dask_client(address: str) -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--dask needs dask: pip install 'fibnim[dask]'") from None
    try:
        return Client(address, timeout="10s")  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as error:
        raise UsageError(f"--dask {address}: no scheduler there ({error})") from None


def _dask_workers(client: Any) -> int:
    return max(1, int(sum(client.nthreads().values())))


def dask_submit(client: Any) -> Callable[..., Any]:
    def submit(function: Callable[..., Any], *arguments: Any) -> Any:
        # a worker's threads are its cores: each task on one
        return client.submit(_threads.single, function, *arguments, pure=False)

    return submit
