"""The `fibnim` command.

fibnim encode 46 17 1000000
fibnim decode 149
fibnim wythoff 10 15
fibnim classify positions.npy -o results.npy --game wythoff
fibnim classify --random 10000000 --game fibonacci-nim

Exit status: 0 on success, 1 for bad data (a malformed row, a negative pile,
a file that is not what its name says), 2 for a bad command line (an unknown
option or game, a missing input, an output in the way without --force).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import os
import secrets
import select
import shutil
import signal
import stat
import sys
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

import numpy as np
from numpy.typing import NDArray

import fibnim
from fibnim import _backend, _stop, coding, wythoff
from fibnim._checks import TERMS_BITS_LIMIT
from fibnim._classify import GAMES, GameName, classify, game_named, random_positions
from fibnim._files import (
    KINDS,
    AtomicFile,
    DataError,
    Kept,
    NpySource,
    PileNames,
    Sink,
    Source,
    TextSource,
    UsageError,
    checked,
    figure_format,
    hold_arrow,
    kind_of,
    open_source,
    open_stream,
    output_is_stream,
    pile_columns,
    read_npy_header,
    save_figure,
)

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


def _check_room(chunk: int, piles: int, threads: int, option: str) -> None:
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


def _integer(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _size(text: str) -> int:
    """A count of rows, piles or threads: at most 2**63 - 1."""
    value = _integer(text)
    if value > 2**63 - 1:
        raise argparse.ArgumentTypeError(f"{text} is past 2**63 - 1, the most fibnim counts")
    return value


def _positive(text: str) -> int:
    value = _size(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not at least 1")
    return value


def _delimiter(text: str) -> str:
    text = {"\\t": "\t", "tab": "\t"}.get(text, text)
    if len(text.encode()) != 1 or text in '"\r\n':  # one byte: pyarrow's readers take no more
        raise argparse.ArgumentTypeError(
            f"{text!r} is not one ASCII character (\\t or tab for a tab)"
        )
    if text.isalnum():  # inside every pile, and P and N
        raise argparse.ArgumentTypeError(f"{text!r} is a letter or a digit, which fields hold")
    return text


def _describe(n: int) -> str:
    code = fibnim.encode(n)
    if n.bit_length() <= TERMS_BITS_LIMIT:
        terms = " + ".join(map(str, fibnim.terms(n))) or "0"
    else:  # the terms of a number this long would fill the screen many times over
        terms = (
            f"a sum of {fibnim.term_count(n)} Fibonacci numbers "
            f"(not listed: more than TERMS_BITS_LIMIT = {TERMS_BITS_LIMIT} bits)"
        )
    lines = [
        f"{n} = {terms}",
        f"  code              {code} = 0b{code:b}",
        f"  zeckendorf        {fibnim.to_string(n)}",
        f"  silber            {fibnim.to_string(n, style='silber')}",
    ]
    if n:
        lines.append(f"  second canonical  {fibnim.second_canonical(n)}")
    return "\n".join(lines)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def parser(bench_options: bool = True) -> argparse.ArgumentParser:
    """The command line; without bench_options, `fibnim bench`'s own options are
    left out (they load the benchmark suite, which no other command needs)."""
    top = argparse.ArgumentParser(
        prog="fibnim",
        description="The Fibonacci (Zeckendorf) number system and the games it solves.",
    )
    top.add_argument(
        "--version",
        action="version",
        version=f"fibnim {fibnim.__version__} (backend: {fibnim.backend}, "
        f"implementation: {_backend.implementation()})",
    )
    commands = top.add_subparsers(dest="command", required=True)
    encode = commands.add_parser(
        "encode",
        help="codes and both written forms of numbers",
        description="Print each number's Zeckendorf code, its strings in both styles, "
        "its second canonical form and its terms.",
    )
    encode.add_argument("numbers", nargs="+", type=_integer, metavar="N")
    decode = commands.add_parser(
        "decode",
        help="the numbers that Zeckendorf codes stand for",
        description="Print the number each code stands for (0b and 0x prefixes work).",
    )
    decode.add_argument("codes", nargs="+", type=_integer, metavar="CODE")
    game = commands.add_parser(
        "wythoff",
        help="one position of Wythoff's Nim: P or N, the winning move, and why",
        description="Say whether (X, Y) is a P-position of Wythoff's Nim, give the "
        "winning move, and explain both in Fibonacci notation.",
    )
    game.add_argument("x", type=_integer, metavar="X")
    game.add_argument("y", type=_integer, metavar="Y")
    game.add_argument("--misere", action="store_true", help="misere play (last mover loses)")
    game.add_argument(
        "--plot",
        metavar="FILE",
        help="draw the position, the safe pairs near it and the winning move into FILE "
        "(.png, .svg, .pdf, ...; needs matplotlib)",
    )
    game.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    _classify_parser(commands)
    _coding_parsers(commands)
    bench = commands.add_parser(
        "bench",
        help="the benchmark suite: compiled core vs pure twin vs numpy vs the memory floor",
        description="Time every kernel on this machine and report ns per element and the "
        "ratios against the pure twin, numpy by hand and the memory floor.",
    )
    if bench_options:
        from fibnim.bench import add_arguments

        add_arguments(bench)
    return top


def _classify_parser(commands: Any) -> None:
    games = "\n".join(
        f"  {g.name:21} {g.piles or 'any number of'} pile{'s' * (g.piles != 1)}"
        + (f"; --bound R, default {g.unbounded_means}" if g.bounded else "")
        for g in GAMES.values()
    )
    run = commands.add_parser(
        "classify",
        help="outcome and winning move of many positions, from a file or at random",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Classify every position (row) of INPUT as P or N and find its winning "
        "move, in chunks, on all cores.\n\ngames:\n" + games + "\n\n"
        "INPUT: .npy (integers, shape (N, k), C or Fortran order; read in chunks),\n"
        ".csv or .tsv (UTF-8; header optional, see --header), - for CSV on stdin,\n"
        ".parquet (with pyarrow), or a directory of parquet files (a dataset, run on\n"
        "dask). Every column is a pile unless --columns chooses the piles; the other\n"
        "columns (an id, say) then pass through to the output unchanged.\n\n"
        "OUTPUT in any of these (- is CSV on stdout; a directory for a dataset):\n"
        "  format         columns                     is_p         no move\n"
        "  .npy           is_p, move_1 .. move_k      int64 1 / 0  -1\n"
        "  .csv, .tsv     input's, is_p, move_1 ..    P / N        empty cell\n"
        "  .parquet       input's, is_p, move_1 ..    boolean      null\n"
        "move_j is pile j (in the order of --columns) after the winning move. With\n"
        "pyarrow, CSV and TSV are read and written by it, to the same bytes. The output\n"
        "appears only when the run succeeds.",
        epilog="examples:\n"
        "  fibnim classify --random 10000000 --game wythoff\n"
        "  fibnim classify positions.npy -o results.npy --game wythoff\n"
        "  fibnim classify piles.csv -o out.csv --game fibonacci-nim --bound 10\n"
        "  fibnim classify games.csv -o out.csv --game nim --columns a,b,c\n"
        "  cat piles.csv | fibnim classify - -o - --game nim\n"
        "  fibnim classify dataset/ -o classified/ --game nim --dask tcp://host:8786\n\n"
        "exit status: 0 done; 1 bad data, or a read or write that failed; 2 a bad command\n"
        "line (an unknown option or format, --columns naming no column, a missing INPUT,\n"
        "an OUTPUT in the way without --force); 130 or 143 stopped by SIGINT or SIGTERM",
    )
    run.add_argument("input", nargs="?", metavar="INPUT", help="the positions (or --random N)")
    run.add_argument("-o", "--output", metavar="OUTPUT", help="where the results go")
    run.add_argument("--game", required=True, choices=list(GAMES), metavar="GAME")
    run.add_argument("--bound", type=_integer, metavar="R", help="the bound on the next take")
    run.add_argument(
        "--random", type=_size, metavar="N", help="classify N random positions instead"
    )
    run.add_argument("--seed", type=_integer, default=0, help="for --random (default 0)")
    run.add_argument(
        "--piles", type=_positive, metavar="K", help="piles per random position (default 2)"
    )
    run.add_argument(
        "--threads",
        type=_positive,
        default=_cores(),
        metavar="N",
        help=f"threads to run chunks on (default: all cores, {_cores()} here)",
    )
    run.add_argument(
        "--dask", metavar="ADDRESS", help="run the chunks on this dask scheduler instead"
    )
    run.add_argument(
        "--chunk",
        type=_positive,
        metavar="ROWS",
        help=f"positions per task (default {CHUNK}, less with many threads, so that the "
        "chunks in flight hold below 50 MB); memory grows with it and with threads",
    )
    run.add_argument(
        "--columns",
        metavar="NAMES|INDICES",
        help="the pile columns, comma-separated: names, or indices counted from 0 (.npy and "
        "headless CSV: indices only); the others pass through to the output",
    )
    run.add_argument(
        "--types",
        metavar="NAME=TYPE,...",
        help="parquet types of a CSV/TSV input's passed-through columns (pyarrow's names: "
        "string, int64, float64, bool, date32, ...); the others are typed only where "
        "their text comes back unchanged, else kept as text",
    )
    run.add_argument(
        "--header",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="whether a CSV/TSV input's first line names its columns (default: it does "
        "unless its first field is an integer)",
    )
    run.add_argument(
        "--delimiter",
        type=_delimiter,
        metavar="CHAR",
        help="the field delimiter of CSV/TSV input and output (default: , for .csv and "
        "stdin, a tab for .tsv)",
    )
    run.add_argument(
        "--summary-plot",
        metavar="FILE",
        help="draw the share of P-positions and the throughput of each chunk into FILE "
        "(.png, .svg, .pdf, ...; needs matplotlib)",
    )
    run.add_argument(
        "--force", action="store_true", help="overwrite OUTPUT (and the plot) if it exists"
    )
    run.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    run.add_argument(
        "--json",
        action="store_true",
        help="the summary as one JSON object, on stdout (on stderr when the data goes to "
        "stdout, -o -)",
    )


# --- classify --------------------------------------------------------------------------


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


def _solve(
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
    return _solve(source.positions(start, count), source.game, bound, sink, first=start)


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
        return _solve(rows, game, bound, sink, source.name, start)
    kept = None if direct else list(rows.T)
    return _solve(rows[:, pick], game, bound, sink, source.name, start, kept, pick)


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
        yield _solve, (positions, game, bound, None, source.name, first, kept, source.pick, render)


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
    return _solve(positions, game, bound, None, source.name, first, kept, source.pick, render)


def _raise(error: BaseException) -> None:
    raise error


class _Signals:
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

    def __init__(self) -> None:
        self.number: int | None = None
        self.previous: dict[int, Any] = {}
        self.stop = threading.Event()
        self.reading = False
        # a byte written here by the C handler of every signal, whichever thread
        # the system gave it to: a read that waits on a pipe waits on this too
        # (a signal given to a worker thread interrupts no wait of the main one)
        self.wakeup: tuple[int, int] | None = None
        self.old_wakeup = -1

    def __enter__(self) -> _Signals:
        if threading.current_thread() is threading.main_thread():
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
        for number, handler in self.previous.items():
            signal.signal(number, handler)
        if self.wakeup is not None:
            signal.set_wakeup_fd(self.old_wakeup)
            for end in self.wakeup:
                os.close(end)
            self.wakeup = None

    def check(self) -> None:
        """Raise Signalled if a signal came."""
        if self.number is not None:
            raise _stop.Signalled(self.number)


WAIT = 0.05  # seconds between looks at the signals while a chunk is computed


def _watched(stop: threading.Event, function: Callable[..., Any], *arguments: Any) -> Any:
    with _stop.watching(stop):
        return function(*arguments)


def _in_order(
    submit: Callable[..., Future[Any]], tasks: Iterator[Any], window: int, signals: _Signals
) -> Iterator[Any]:
    """The results of tasks, in order, with at most `window` of them in flight."""
    pending: deque[Future[Any]] = deque()
    try:
        while (task := signals.read(tasks)) is not None:
            function, arguments = task
            pending.append(submit(function, *arguments))
            if len(pending) >= window:
                yield _result(pending.popleft(), signals)
        while pending:
            yield _result(pending.popleft(), signals)
    finally:
        for future in pending:  # queued chunks never start
            future.cancel()


def _result(future: Any, signals: _Signals) -> Any:
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


def _progress(total: int | None, quiet: bool) -> Any:
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit=" positions", unit_scale=True, file=sys.stderr, smoothing=0.1)


def _classify(arguments: argparse.Namespace) -> int:
    rules = game_named(arguments.game)
    if arguments.bound is not None and not rules.bounded:
        raise UsageError(f"--bound: {rules.name} has no bound on the next take")
    if (arguments.input is None) == (arguments.random is None):
        raise UsageError("give INPUT or --random N (one of them)")
    if arguments.piles is not None and arguments.random is None:
        raise UsageError("--piles goes with --random")
    if arguments.columns is not None and arguments.random is not None:
        raise UsageError("--columns goes with INPUT, not --random")
    if arguments.input is not None and arguments.output is None:
        raise UsageError("-o OUTPUT is needed with INPUT")
    if arguments.input is not None and os.path.isdir(arguments.input):
        if arguments.summary_plot:
            raise UsageError("--summary-plot goes with files and --random, not a dataset")
        return _classify_dataset(arguments, rules)
    if arguments.output:  # the output's rule first: before the format, before any work
        output_is_stream(arguments.output, arguments.force, (arguments.input,))
    plot_kind = (
        figure_format(arguments.summary_plot, arguments.force, "--summary-plot")
        if arguments.summary_plot
        else None
    )
    hold_arrow(arguments.threads, arguments.input, arguments.output)
    if arguments.random is not None:
        source: Source = _Random(
            arguments.random, rules.name, arguments.piles or rules.piles or 2, arguments.seed
        )
    else:
        source = open_source(
            arguments.input, arguments.header, arguments.delimiter, arguments.columns
        )
    try:
        if not arguments.dask:  # a cluster's workers have memory of their own
            width, threads = len(source.columns), arguments.threads
            chunk = arguments.chunk or default_chunk(threads, width)
            _check_room(chunk, width, threads, source.name)
        sink = _sink(arguments, rules, source)
    except BaseException:
        source.close()
        raise
    client = _dask_client(arguments.dask) if arguments.dask else None
    threads = arguments.threads if client is None else _dask_workers(client)
    chunk = arguments.chunk = arguments.chunk or default_chunk(threads, len(source.columns))
    piles = source.piles
    bar = _progress(source.rows, arguments.quiet)
    start, positions_done, p_positions = time.perf_counter(), 0, 0
    chunks: list[tuple[int, int, float]] = []  # rows, P-positions, seconds
    pool = ThreadPoolExecutor(max_workers=arguments.threads) if client is None else None
    try:
        with _Signals() as signals:
            # before each read that may wait: a signal raised in a finalizer is
            # lost, and one given to a worker thread interrupts no read
            source.watch(signals.wait_for)
            submit = signals.submit_watched(pool) if pool is not None else _dask_submit(client)
            tasks = _tasks(source, rules.name, arguments.bound, chunk, client is not None, sink)
            for done in _in_order(submit, tasks, threads + 1, signals):
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
                raise _stop.Signalled(signals.number, f", after {arguments.output} was written")
    except BaseException:
        if sink is not None:
            sink.abort()
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        source.close()
        if bar is not None:
            bar.close()
        if client is not None:
            client.close()
    seconds = time.perf_counter() - start
    _summary(
        arguments,
        game=rules.name,
        positions=positions_done,
        p_positions=p_positions,
        seconds=seconds,
        where=f"dask at {arguments.dask}, {threads} workers" if client else f"{threads} threads",
        piles=piles,
    )
    if plot_kind is not None:
        _summary_plot(arguments, rules.name, chunks, plot_kind, seconds)
    return 0


def _sink(arguments: argparse.Namespace, rules: Any, source: Source) -> Sink | None:
    """The output of a run over source, once the source is known to fit the game."""
    if source.named and source.pick is None and not isinstance(source, _Random):
        try:
            rules.check_named(source.columns, source.name, "--columns ")
        except ValueError as error:
            raise DataError(str(error)) from None
    try:
        rules.check_piles(len(source.piles))
    except ValueError as error:
        hint = ""
        if not isinstance(source, _Random):
            hint = _columns_hint(source.columns if source.named else None)
        raise DataError(f"{source.name}: {error}{hint}") from None
    if not arguments.output:
        return None
    text = source.delimiter if isinstance(source, TextSource) else None
    sink = Sink(
        arguments.output,
        source.columns,
        source.rows,
        arguments.force,
        arguments.delimiter,
        source.pick,
        inputs=(arguments.input,),
        text_delimiter=text,
        types=_column_types(arguments, source),
    )
    if isinstance(source, TextSource):
        source.records = sink.records
    return sink


def _column_types(arguments: argparse.Namespace, source: Source) -> dict[int, Any]:
    """--types NAME=TYPE,...: {column: pyarrow type} of a text input's
    passed-through columns, for a parquet output; UsageError for a name that
    is no such column, a type pyarrow does not name, or another input or output."""
    if arguments.types is None:
        return {}
    if not isinstance(source, TextSource) or kind_of(arguments.output) != ".parquet":
        raise UsageError("--types goes with a CSV or TSV input and a .parquet output")
    import pyarrow as pa

    chosen: dict[int, Any] = {}
    for item in arguments.types.split(","):
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
    arguments: argparse.Namespace,
    game: GameName,
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
        title=f"fibnim classify --game {game}: {sum(rows)} positions, {len(rows)} chunks\n"
        f"backend {fibnim.backend}, implementation {_backend.implementation()}; the whole "
        f"run, files included: {sum(rows) / max(seconds, 1e-9):.3g} positions/s",
        axes=figure.subplots(2, 1, sharex=True),
    )
    save_figure(figure, arguments.summary_plot, kind, arguments.force)


def _columns_hint(columns: Sequence[str] | None) -> str:
    """For a refused column count: the input's columns (None: they have no
    names), and how to choose the piles."""
    if columns is None:
        return "; choose the pile columns by index with --columns (counted from 0)"
    return f"; its columns are {', '.join(columns)}: choose the piles with --columns"


def _count(n: int, thing: str) -> str:
    """n things, in words that read well for one and for many: "1 P-position"."""
    return f"{n:,} {thing}{'' if n == 1 else 's'}"


def _summary(
    arguments: argparse.Namespace,
    *,
    game: GameName,
    positions: int,
    p_positions: int,
    seconds: float,
    where: str,
    piles: Sequence[str],
) -> None:
    """What a run did: a line on stderr (stdout is the data's with -o -), or with
    --json one JSON object on stdout (on stderr with -o -); nothing with --quiet.
    Both name the columns read as piles."""
    if arguments.quiet:
        return
    summary = {
        "game": game,
        "piles": list(piles),
        "positions": positions,
        "p_positions": p_positions,
        "seconds": round(seconds, 6),
        "positions_per_second": positions / seconds if seconds > 0 else None,
        "backend": fibnim.backend,
        "implementation": _backend.implementation(),
        "where": where,
        "output": arguments.output,
        "peak_mb": _peak_mb(),
    }
    stream = sys.stderr if arguments.output == "-" else sys.stdout
    if arguments.json:
        print(json.dumps(summary), file=stream)
        return
    rate = positions / seconds if seconds > 0 else float("inf")
    share = f" ({100 * p_positions / positions:.3g}%)" if positions else ""
    if arguments.random is not None:
        read = _count(positions, "random position")
    else:
        named = ", ".join(piles[:8]) + (f", ... {len(piles):,} in all" if len(piles) > 8 else "")
        read = f"{_count(positions, 'position')} (piles {named})"
    print(
        f"{game}: {read}: "
        f"{_count(p_positions, 'P-position')}{share}, where the player to move loses, and "
        f"{_count(positions - p_positions, 'N-position')}, with a winning move; "
        f"in {seconds:.3g} s "
        f"({rate:.4g} positions/s; backend {summary['backend']}, {summary['implementation']}, "
        f"{where})" + (f"; written to {arguments.output}" if arguments.output else ""),
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


def _dask_client(address: str) -> Any:
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


def _dask_submit(client: Any) -> Callable[..., Any]:
    def submit(function: Callable[..., Any], *arguments: Any) -> Any:
        return client.submit(function, *arguments, pure=False)

    return submit


# --- parquet datasets on dask ----------------------------------------------------------


def _classify_partition(
    frame: Any,
    game: GameName,
    bound: int | None,
    where: str,
    piles: list[str],
    partition_info: Any = None,
) -> Any:
    """One partition of a dataset: its columns, is_p, and the moves as
    nullable integers. Runs on the workers."""
    number = (partition_info or {}).get("number", "?")
    missing = frame[piles].isna().to_numpy()
    if missing.any():
        row, column = np.argwhere(missing)[0]
        raise DataError(
            f"{where}: partition {number}, row {row}, column {piles[column]!r}: no value (null)"
        )
    try:  # exact, whatever the types
        return classify(frame, game, bound, columns=piles)
    except (ValueError, OverflowError) as error:
        raise DataError(f"{where}: partition {number}: {error}") from None


def _classify_dataset(arguments: argparse.Namespace, rules: Any) -> int:
    """fibnim classify DIRECTORY -o DIRECTORY: a parquet dataset, partition by
    partition on dask (the scheduler at --dask, or this process's threads),
    written by the workers into a new directory that takes the output's name
    only when every partition is written."""
    try:
        import dask.dataframe as dd
        import pandas as pd
        from dask.base import compute
    except ImportError:
        raise UsageError(
            "a parquet dataset (a directory) needs dask: pip install 'fibnim[dask]'"
        ) from None
    # dask's parquet reader calls reset_index(inplace=True), which pandas 3.1
    # deprecates: nothing a user of fibnim can act on
    warnings.filterwarnings(
        "ignore", "The inplace keyword in DataFrame.reset_index", DeprecationWarning
    )
    where, target = arguments.input, arguments.output
    if target is None or target == "-":
        raise UsageError("a dataset goes to a directory: -o DIRECTORY")
    suffix = os.path.splitext(target)[1].lower()
    if suffix in KINDS and suffix != ".parquet":
        raise UsageError(
            f"{target}: a dataset goes to a directory of parquet files, not {suffix}; "
            "name a directory (no suffix, or .parquet)"
        )
    inside = os.path.relpath(os.path.realpath(target), os.path.realpath(where))
    if inside != "." and not inside.startswith(os.pardir):
        raise UsageError(
            f"{target}: is inside the input dataset {where}, whose next read would take "
            "the answers for rows; write it elsewhere"
        )
    if os.path.exists(target):
        if os.path.samefile(where, target):
            raise UsageError(
                f"{target}: is the input dataset itself; fibnim never writes over its input, "
                "even with --force"
            )
        if not arguments.force:
            raise UsageError(f"{target}: exists; --force overwrites it")
    try:
        frame = dd.read_parquet(where)
    except Exception as error:  # dask and pyarrow raise many kinds
        raise DataError(f"{where}: not a parquet dataset ({error})") from None
    names = [str(name) for name in frame.columns]
    piles = names
    if arguments.columns is not None:
        piles = [names[j] for j in pile_columns(names, arguments.columns, where)]
    else:
        try:
            rules.check_named(names, where, "--columns ")
        except ValueError as error:
            raise DataError(str(error)) from None
    try:
        rules.check_piles(len(piles))
    except ValueError as error:
        hint = _columns_hint(names) if piles is names else ""
        raise DataError(f"{where}: {error}{hint}") from None
    for name in piles:
        dtype = frame.dtypes[name]
        if np.dtype(getattr(dtype, "numpy_dtype", dtype)).kind not in "iu":
            raise DataError(f"{where}: column {name!r} holds {dtype}, not integers")
    _check_dataset_files(where, piles)
    answers = ["is_p", *(f"move_{j + 1}" for j in range(len(piles)))]
    if taken := set(names) & set(answers):
        raise UsageError(
            f"{where}: has a column named {sorted(taken)[0]!r}, as one of the answers' "
            "columns is; rename it"
        )
    meta = frame._meta.copy()
    meta["is_p"] = pd.Series(dtype=bool)
    for name in answers[1:]:
        meta[name] = pd.Series(dtype="Int64")
    out = frame.map_partitions(
        _classify_partition, rules.name, arguments.bound, where, piles, meta=meta
    )
    parent = os.path.dirname(os.path.abspath(target))
    temporary = os.path.join(parent, f".{os.path.basename(target)}.{secrets.token_hex(8)}")
    work = [
        out.to_parquet(temporary, write_index=False, compute=False),
        out["is_p"].size,
        out["is_p"].sum(),
    ]
    client = _dask_client(arguments.dask) if arguments.dask else None
    start = time.perf_counter()
    try:
        with _Signals() as signals:
            if client is not None:
                # one graph: each partition classified once
                futures = client.compute(work)
                _, rows, p_positions = [_result(future, signals) for future in futures]
            else:
                with ThreadPoolExecutor(max_workers=1) as pool:
                    _, rows, p_positions = _result(pool.submit(compute, *work), signals)
            signals.check()
            _replace_directory(temporary, target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    finally:
        if client is not None:
            client.close()
    _summary(
        arguments,
        game=rules.name,
        positions=int(rows),
        p_positions=int(p_positions),
        seconds=time.perf_counter() - start,
        where=f"{out.npartitions} partitions on "
        + (f"dask at {arguments.dask}" if client is not None else "dask, this process"),
        piles=piles,
    )
    return 0


def _check_dataset_files(where: str, piles: list[str]) -> None:
    """Every file of a dataset holds the piles as integers: dask reads the types
    of one file, and another's text or floats would end a run halfway (each
    file's schema is read, not its rows)."""
    import pyarrow as pa
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    for path in sorted(ds.dataset(where, format="parquet").files):
        schema = pq.read_schema(path)
        for name in piles:
            index = schema.get_field_index(name)
            if index < 0:
                raise DataError(f"{path}: has no column {name!r}, which the dataset's piles are")
            kind = schema.field(index).type
            if not pa.types.is_integer(kind):
                raise DataError(f"{path}: column {name!r} holds {kind}, not integers")


def _replace_directory(new: str, target: str) -> None:
    """new takes target's name; an old target (--force) goes once it has."""
    if not os.path.exists(target):
        os.rename(new, target)
        return
    old = f"{new}.old"
    os.rename(target, old)
    os.rename(new, target)
    if os.path.isdir(old):
        shutil.rmtree(old)
    else:
        os.remove(old)


# --- pack and unpack: Fibonacci-coded files ---------------------------------------------


def _coding_parsers(commands: Any) -> None:
    pack = commands.add_parser(
        "pack",
        help="Fibonacci-code an .npy of integers into a file of checked blocks",
        description="Code the integers of IN (an .npy, 1-d or (N, 1), any integer dtype) "
        "as Fibonacci codewords into OUT: a header, then blocks of 2**18 values, each "
        "with its count, its length and a CRC-32, each decodable on its own "
        "(docs/math/coding.rst). Values from 1 to 2**64 - 1; with --delta, sorted "
        "values from 0 (their gaps are coded). Read a block at a time: memory stays "
        "bounded whatever the size.",
        epilog="examples:\n  fibnim pack ids.npy -o ids.fnc --delta\n"
        "  fibnim unpack ids.fnc -o ids.npy",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pack.add_argument("input", metavar="IN", help="an .npy of integers; - for stdin")
    pack.add_argument("--delta", action="store_true", help="code the gaps of sorted values")
    unpack = commands.add_parser(
        "unpack",
        help="decode a file that fibnim pack wrote into an .npy (or text)",
        description="Decode IN, a file fibnim pack (or fibnim.coding.write) wrote, into "
        "OUT: an .npy of the dtype the values were packed from (recorded in the file), or "
        "text, one value a line (.txt; .csv with a header line 'value'). A block at a "
        "time, each checked against its CRC-32: damage and truncation are named with the "
        "block and the byte. With --salvage, every undamaged block is decoded, and each "
        "damaged one named with its bytes and the values lost (exit status 1 if any).",
    )
    unpack.add_argument("input", metavar="IN", help="the coded file; - for stdin")
    unpack.add_argument(
        "--dtype",
        metavar="DTYPE",
        help="the values' integer dtype (default: the one they were packed from); "
        "a value that does not fit is refused",
    )
    unpack.add_argument(
        "--salvage",
        action="store_true",
        help="decode every undamaged block and name the damaged ones, instead of stopping",
    )
    for command in (pack, unpack):
        command.add_argument(
            "-o", "--output", required=True, metavar="OUT", help="where it goes; - for stdout"
        )
        command.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
        command.add_argument("-q", "--quiet", action="store_true", help="no progress, no summary")


@contextlib.contextmanager
def _opened(path: str) -> Iterator[BinaryIO]:
    """The input, - for stdin; UsageError where there is none."""
    if path == "-":
        yield sys.stdin.buffer
        return
    try:
        file = open(path, "rb")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    with file:
        yield file


@contextlib.contextmanager
def _written(path: str, force: bool, source: str) -> Iterator[BinaryIO]:
    """The output (the commands' one rule: `output_is_stream`): -, a FIFO or a
    device written in order; else a file that takes its name only when the
    block ends well. OSErrors name it."""
    if output_is_stream(path, force, (source,)):
        stream = open_stream(path)
        try:
            yield cast(BinaryIO, stream)
            stream.flush()
        except OSError as error:
            error.filename = error.filename or path
            raise
        finally:
            if path != "-":
                stream.close()
        return
    target = AtomicFile(path, replace=force)
    try:
        with target.naming():
            yield cast(BinaryIO, target.stream)
        target.commit(lambda: None)
    except BaseException:
        target.abort()
        raise


def _npy_values(file: BinaryIO, name: str) -> tuple[int, np.dtype[Any], Iterator[NDArray[Any]]]:
    """(count, dtype, the values a block at a time) of a 1-d or (N, 1) .npy of
    integers, read in order (a pipe works)."""
    try:
        shape, _, dtype = read_npy_header(file)
    except ValueError as error:
        raise DataError(f"{name}: {error}") from None
    if dtype.kind not in "iu" or len(shape) not in (1, 2) or shape[1:] not in ((), (1,)):
        raise DataError(f"{name}: holds {dtype} of shape {shape}, not integers (N,) or (N, 1)")
    count = int(shape[0])

    def blocks() -> Iterator[NDArray[Any]]:
        for start in range(0, count, coding.BLOCK):
            size = min(coding.BLOCK, count - start) * dtype.itemsize
            data = file.read(size)
            if len(data) != size:
                raise DataError(
                    f"{name}: ends at value {start + len(data) // dtype.itemsize} "
                    f"of the {count} its header gives"
                )
            yield np.frombuffer(data, dtype=dtype)

    return count, dtype, blocks()


def _coding_summary(arguments: argparse.Namespace, line: str, began: float) -> None:
    if not arguments.quiet:
        seconds = time.perf_counter() - began
        target = "" if arguments.output == "-" else f"; written to {arguments.output}"
        print(f"{arguments.command}: {line} in {seconds:.3g} s{target}", file=sys.stderr)


def _not_to_a_terminal(path: str, what: str) -> None:
    """Binary output refused where it would go to a terminal (-o - unredirected)."""
    if path == "-" and sys.stdout is not None and sys.stdout.isatty():
        raise UsageError(
            f"-o -: {what} is binary, and standard output is a terminal; redirect it "
            "(> FILE, | COMMAND) or name a file"
        )


def _pack(arguments: argparse.Namespace) -> int:
    """fibnim pack IN -o OUT [--delta]."""
    began = time.perf_counter()
    _not_to_a_terminal(arguments.output, "a coded file")
    with _opened(arguments.input) as source:
        count, dtype, blocks = _npy_values(source, arguments.input)
        bar = _progress(count, arguments.quiet)
        try:
            with _written(arguments.output, arguments.force, arguments.input) as target:
                size = coding.write_blocks(
                    target, blocks, count, arguments.delta, arguments.input,
                    None if bar is None else bar.update, dtype,
                )  # fmt: skip
        finally:
            if bar is not None:
                bar.close()
    per_value = f", {8 * size / count:.3g} bits per value" if count else ""
    _coding_summary(arguments, f"{count:,} values into {size:,} bytes{per_value}", began)
    return 0


_UNPACKED = (".npy", ".txt", ".csv")  # the formats unpack writes, by suffix


def _unpack(arguments: argparse.Namespace) -> int:
    """fibnim unpack IN -o OUT [--dtype DTYPE] [--salvage]."""
    began = time.perf_counter()
    # the output's rule first; a stream (-, a FIFO, a device) takes .npy
    # unless its name says text
    streamed = output_is_stream(arguments.output, arguments.force, (arguments.input,))
    kind = os.path.splitext(arguments.output)[1].lower()
    if streamed and kind not in _UNPACKED:
        kind = ".npy"
    if kind not in _UNPACKED:
        raise UsageError(
            f"{arguments.output}: unpack writes .npy, or text one value a line (.txt, .csv), "
            f"not {kind or 'a file without a suffix'}"
        )
    if kind == ".npy":
        _not_to_a_terminal(arguments.output, "a .npy")
    with _opened(arguments.input) as source:
        head = coding.read_header(source, arguments.input)
        dtype = _unpacked_dtype(arguments.dtype, head.dtype)
        if arguments.salvage:
            found = coding._salvage(source, head)
            parts: Iterator[NDArray[Any]] = iter([found.values])
            count = len(found.values)
        else:
            parts, count = (
                coding.read_blocks(
                    source, head.count, head.delta, None, arguments.input, head.version
                ),
                head.count,
            )
        bar = _progress(count, arguments.quiet)
        try:
            with _written(arguments.output, arguments.force, arguments.input) as target:
                if kind == ".npy":
                    np.lib.format.write_array_header_1_0(
                        target, {"descr": dtype.str, "fortran_order": False, "shape": (count,)}
                    )
                elif kind == ".csv":
                    target.write(b"value\n")
                done = 0
                for values in parts:
                    exact = coding._as_dtype(values, dtype, arguments.input, done)
                    if kind == ".npy":
                        target.write(exact.tobytes())  # in the byte order its header says
                    elif len(exact):
                        target.write(("\n".join(map(str, exact.tolist())) + "\n").encode())
                    done += len(values)
                    if bar is not None:
                        bar.update(len(values))
        finally:
            if bar is not None:
                bar.close()
    _coding_summary(arguments, f"{count:,} values", began)
    if arguments.salvage and found.damaged:
        for damage in found.damaged:
            print(f"fibnim: unpack: {_damage(arguments.input, damage)}", file=sys.stderr)
        lost = head.count - count
        print(
            f"fibnim: unpack: {count:,} of {head.count:,} values salvaged, {lost:,} lost",
            file=sys.stderr,
        )
        return 1
    return 0


def _unpacked_dtype(given: str | None, recorded: np.dtype[Any]) -> np.dtype[Any]:
    """--dtype (an integer dtype), or the dtype the file records."""
    if given is None:
        return recorded
    try:
        dtype = np.dtype(given)
    except TypeError:
        raise UsageError(f"--dtype {given!r}: not a numpy dtype") from None
    if dtype.kind not in "iu":
        raise UsageError(f"--dtype {given!r}: not an integer dtype")
    return dtype


def _damage(name: str, damage: coding.Damage) -> str:
    """A damaged stretch of a coded file, in words."""
    where = f"{name}: block {damage.block} (bytes {damage.start} to {damage.end})"
    if damage.lost is None and damage.start == damage.end:
        return f"{name}: the file ends at byte {damage.start}, without its check of the whole"
    if damage.lost == 0:
        return (
            f"{where}: holds none of the values due there (bytes after the last value, "
            "or a block out of place), left out"
        )
    if damage.lost is None or damage.first is None:
        return f"{where} is damaged; its values lost are not known apart from the others'"
    last = damage.first + damage.lost - 1
    if damage.start == damage.end:
        return (
            f"{name}: the values {damage.first:,} to {last:,} are missing at byte "
            f"{damage.start} (a block dropped or moved, or the file cut short)"
        )
    return f"{where} is damaged: {damage.lost:,} values lost, values {damage.first:,} to {last:,}"


# --- main ------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    with _long_numbers():
        return _main(argv)


@contextlib.contextmanager
def _long_numbers() -> Iterator[None]:
    """Decimal numbers as long as fibnim takes (DIGITS_LIMIT bits, about 157,000
    digits) read and printed: Python's own limit is 4,300 digits."""
    before = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else None
    if before is None:
        yield
        return
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


def _main(argv: Sequence[str] | None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    arguments: argparse.Namespace | None = None
    try:
        arguments = parser(bench_options="bench" in words).parse_args(words)
        if arguments.command == "encode":
            for n in arguments.numbers:
                print(_describe(n))
        elif arguments.command == "decode":
            for code in arguments.codes:
                print(f"{code}\t{fibnim.decode(code)}")
        elif arguments.command == "wythoff":
            _wythoff(arguments.x, arguments.y, arguments.misere, arguments.plot, arguments.force)
        elif arguments.command == "bench":
            from fibnim import bench

            return bench.main(arguments)
        elif arguments.command in ("pack", "unpack"):
            return _pack(arguments) if arguments.command == "pack" else _unpack(arguments)
        else:
            return _classify(arguments)
    except UsageError as error:
        print(f"fibnim: {error}", file=sys.stderr)
        return 2
    except _stop.Signalled as stop:  # the command's handlers (fibnim.__main__), or a run's
        print(f"fibnim: stopped by {stop}", file=sys.stderr)
        return 128 + stop.number
    except (DataError, ValueError, OverflowError) as error:
        print(f"fibnim: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader of stdout went away (| head): not an error
        # what is left in stdout's buffer would fail again at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:  # a full disk, a directory without write permission
        where = f"{error.filename}: " if error.filename else ""
        print(f"fibnim: {where}{error.strerror or error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("fibnim: interrupted", file=sys.stderr)
        return 130
    except Exception as error:
        signalled = _stop.signalled_within(error)
        if signalled is not None:  # a signal in a lazy import, worded as the import's error
            print(f"fibnim: stopped by {signalled}", file=sys.stderr)
            return 128 + signalled.number
        if not _stop.out_of_memory(error):
            raise
        chunk = getattr(arguments, "chunk", None)
        if chunk:
            advice = f"a smaller --chunk (this run's was {chunk}) or fewer --threads need less"
        else:
            advice = "free memory"
        limit = _stop.address_space_limit()
        if limit is not None:
            advice += f", or a higher limit than this process's {limit:,} MB (ulimit -v)"
        detail = _stop.one_line(error)
        print(f"fibnim: out of memory ({detail}): {advice}", file=sys.stderr)
        return 1
    return 0


def _wythoff(x: int, y: int, misere: bool, plot: str | None, force: bool) -> None:
    kind = figure_format(plot, force, "--plot") if plot else None
    safe = wythoff.is_safe(x, y, misere=misere)
    move = wythoff.winning_move(x, y, misere=misere)
    play = "misere play" if misere else "normal play"
    print(f"({x}, {y}) is {'a P' if safe else 'an N'}-position ({play})")
    print(f"winning move: to {move}" if move else "winning move: none")
    if not misere:
        print(wythoff.explain(x, y))
    if plot and kind is not None:
        from matplotlib.figure import Figure

        from fibnim.plot import wythoff_position

        figure = Figure(figsize=(6, 6), layout="constrained")
        wythoff_position(x, y, misere=misere, ax=figure.subplots())
        save_figure(figure, plot, kind, force)
