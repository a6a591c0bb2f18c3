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
import contextlib
import difflib
import os
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

import fibnim
from fibnim import _backend, _dataset, _pack, _run, _stop, wythoff
from fibnim._checks import TERMS_BITS_LIMIT
from fibnim._classify import GAMES
from fibnim._errors import DataError, UsageError
from fibnim._output import (
    figure_format,
    save_figure,
)
from fibnim._plan import ClassifyRun
from fibnim._source import is_integer


def _integer(text: str) -> int:
    """A number of the command line, by the rule a CSV pile is read by
    (`is_integer`: ASCII decimal digits, an optional sign, spaces around):
    0x10, 1_000 and other scripts' digits are refused here as there."""
    if not is_integer(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a decimal integer (ASCII digits 0-9, as CSV piles are)"
        )
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _code(text: str) -> int:
    """A code: a decimal integer as `_integer` reads it, or its bits written
    0b... (0x... and 0o... too), in ASCII digits without underscores."""
    if re.fullmatch(r"\s*0([bB][01]+|[xX][0-9a-fA-F]+|[oO][0-7]+)\s*", text):
        return int(text.strip(), 0)
    return _integer(text)


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


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose refusal is the one line that matters (its
    usage, seven lines for classify, comes with --help), with the nearest
    choice where a choice was misspelt."""

    def error(self, message: str) -> NoReturn:
        hint = ""
        found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if found:
            close = difflib.get_close_matches(found[1], re.findall(r"[\w.-]+", found[2]), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
        self.exit(2, f"{self.prog}: {message}{hint} ({self.prog} --help: its options)\n")


def parser(bench_options: bool = True) -> argparse.ArgumentParser:
    """The command line; without bench_options, `fibnim bench`'s own options are
    left out (they load the benchmark suite, which no other command needs)."""
    top = _Parser(
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
    decode.add_argument("codes", nargs="+", type=_code, metavar="CODE")
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
    run.add_argument(
        "-o",
        "--output",
        metavar="OUTPUT",
        help="where the results go, in the format of its suffix (see OUTPUT above); - is CSV "
        "text on stdout, as is a device or a FIFO named without a suffix (/dev/null)",
    )
    run.add_argument("--game", required=True, choices=list(GAMES), metavar="GAME")
    run.add_argument("--bound", type=_integer, metavar="R", help="the bound on the next take")
    run.add_argument(
        "--random",
        type=_size,
        metavar="N",
        help="classify N random positions instead: --piles piles each, drawn uniformly "
        "from 0 to 999,999 by numpy's default generator seeded with --seed (the same N "
        "and seed give the same positions, whatever --threads and --chunk)",
    )
    run.add_argument("--seed", type=_integer, default=0, help="for --random (default 0)")
    run.add_argument(
        "--piles", type=_positive, metavar="K", help="piles per random position (default 2)"
    )
    run.add_argument(
        "--threads",
        type=_positive,
        default=_backend.cores(),
        metavar="N",
        help=f"threads to run chunks on (default: all cores, {_backend.cores()} here)",
    )
    run.add_argument(
        "--dask", metavar="ADDRESS", help="run the chunks on this dask scheduler instead"
    )
    run.add_argument(
        "--chunk",
        type=_positive,
        metavar="ROWS",
        help=f"positions per task (default {_run.CHUNK}, less with many threads, so that the "
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


def _classify(arguments: argparse.Namespace) -> int:
    """fibnim classify: the run described and checked once (`ClassifyRun`),
    then run over a dataset or over a file (or --random)."""
    run = ClassifyRun.described(arguments)
    arguments.run = run  # its chunk, for the advice of an out-of-memory error
    return _dataset.classify_dataset(run) if run.dataset else _run.classify_file(run)


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
    outputs = {
        pack: "the coded file (binary); - for stdout, refused where it is a terminal",
        unpack: "an .npy (binary), or text one value a line by its suffix (.txt, .csv); "
        "- for stdout: an .npy, refused where it is a terminal (a pipe or a file takes it)",
    }
    for command, written in outputs.items():
        command.add_argument("-o", "--output", required=True, metavar="OUT", help=written)
        command.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
        command.add_argument("-q", "--quiet", action="store_true", help="no progress, no summary")


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
            run = _pack.pack if arguments.command == "pack" else _pack.unpack
            return run(arguments)
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
        chunk = getattr(getattr(arguments, "run", arguments), "chunk", None)
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
