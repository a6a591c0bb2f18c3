"""`fibnim bench`: the benchmark suite and its report.

    fibnim bench --quick --out DIR      # under a minute
    fibnim bench --out DIR              # a few minutes; --full adds N = 10**8
    fibnim bench --compare OLD.json     # each kernel's change; exit 1 on a significant regression
    fibnim bench --implementation all   # and every kernel on each implementation the CPU runs
    fibnim bench --peers                # beside exact numba kernels (fibnim[peers])

`fibnim.bench.suite` defines what is measured; `fibnim.bench.run` measures it;
`fibnim.bench.report` writes results.json (its schema is documented there),
report.md and, with matplotlib installed, PNG plots.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from fibnim import _backend
from fibnim._errors import UsageError
from fibnim.bench import report, run
from fibnim.bench.suite import CASES

__all__ = ["add_arguments", "main"]


def _threshold(text: str) -> float:
    """A share of a kernel's time: a finite number, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value < float("inf"):  # nan fails both comparisons
        raise argparse.ArgumentTypeError(f"{text} is not a finite number of 0 or more")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="small sizes, under a minute")
    mode.add_argument("--full", action="store_true", help="sizes up to 10**8 (needs ~10 GB)")
    parser.add_argument("--out", metavar="DIR", type=Path, help="write the report here")
    parser.add_argument(
        "--compare", metavar="OLD.json", type=Path, help="compare with an earlier results.json"
    )
    parser.add_argument(
        "--threshold",
        type=_threshold,
        default=0.20,
        help="a kernel this much slower against its floor (0.2: 20%%), significantly "
        "(p < 0.01 over the repeats), is a regression (default 0.2: same-tree runs "
        "on a shared machine mostly moved less than 7%%, at worst 25%%)",
    )
    parser.add_argument(
        "--implementation",
        choices=[*_backend.IMPLEMENTATIONS, "all"],
        help="the compiled core's implementation to time (default: the one in use, the "
        "best this processor runs); all: the suite on the best one, then every kernel on "
        f"each one this processor runs (here: {', '.join(_backend.implementations())})",
    )
    parser.add_argument(
        "--peers",
        action="store_true",
        help="time each kernel that has one beside an exact numba kernel compiled for "
        'the same instruction set (pip install "fibnim[peers]"): on every implementation '
        "with --implementation all",
    )
    parser.add_argument(
        "--kernel",
        action="append",
        choices=[c.name for c in CASES] + ["coding"],
        metavar="NAME",
        help="only this kernel (again for more; coding: the Fibonacci coding benchmark); "
        "the solvers are left out",
    )


def baseline(path: Path) -> dict[str, Any]:
    """The results.json that --compare names, read before the run: a missing or
    foreign file is a usage error (exit 2), never a regression (exit 1)."""
    try:
        old = json.loads(path.read_text())
    except OSError as error:
        raise UsageError(f"--compare {path}: {error.strerror or error}") from error
    except ValueError as error:  # not UTF-8, or not JSON
        raise UsageError(f"--compare {path}: not JSON ({error})") from error
    if not report.comparable(old):
        raise UsageError(
            f"--compare {path}: not the results.json of a fibnim bench run (it needs "
            "kernels, each with a name and rows of sizes and times)"
        )
    return dict(old)


def main(arguments: argparse.Namespace) -> int:
    """Run the suite, write or print the report, compare; 1 if a regression was found."""
    old = baseline(arguments.compare) if arguments.compare else None
    mode = "quick" if arguments.quick else "full" if arguments.full else "default"

    def progress(name: str) -> None:
        print(f"  {name}", file=sys.stderr, flush=True)

    chosen = arguments.implementation
    if chosen not in (None, "all") and chosen not in _backend.implementations():
        raise SystemExit(f"fibnim bench: {_backend._unsupported(chosen)}")
    if arguments.compare and importlib.util.find_spec("scipy") is None:
        raise UsageError('--compare needs scipy: pip install "fibnim[bench]"')
    if arguments.peers and importlib.util.find_spec("numba") is None:
        raise UsageError('--peers needs numba: pip install "fibnim[peers]"')
    results = run.run(mode, arguments.kernel, progress, chosen, arguments.peers)
    if arguments.out:
        for path in report.write(results, arguments.out):
            print(f"written: {path}")
    else:
        print(report.markdown(results))
    if old is not None:
        text, regressions = report.compare(old, results, arguments.threshold)
        print(text)
        if regressions:
            print(
                f"{regressions} regression(s): slower than {arguments.compare} by more than "
                f"{arguments.threshold:.0%} against the floor, significant at p < {report.ALPHA}"
            )
            return 1
        print("no significant regression")
    return 0
