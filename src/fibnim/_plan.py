"""A `fibnim classify` run as its command line describes it, once: where its
positions come from, which columns are its piles, what it writes and where,
and how it runs. The parser's words are read here and nowhere else; the
runs (`fibnim._run` over a file or --random, `fibnim._dataset` over a
directory) take this description.

Every path a run writes (the results, the summary plot) is checked here,
before any work, against every path it reads and against each other, by the
one rule of `fibnim._output.refuse_overlap`; the temporary names a run
writes lie beside its outputs, in their directories, so that rule covers
them too.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field

from fibnim._classify import Game, game_named
from fibnim._errors import UsageError
from fibnim._output import check_directory_output, figure_format, output_is_stream


@dataclass
class ClassifyRun:
    """One `fibnim classify`: its game and the options it was given."""

    rules: Game
    input: str | None
    output: str | None
    random: int | None = None
    seed: int = 0
    piles: int | None = None
    bound: int | None = None
    columns: str | None = None
    types: str | None = None
    header: bool | None = None
    delimiter: str | None = None
    threads: int = 1
    chunk: int | None = None
    dask: str | None = None
    summary_plot: str | None = None
    force: bool = False
    quiet: bool = False
    json: bool = False
    #: the format the summary plot is saved in, once its path has been checked
    plot_kind: str | None = field(default=None, init=False)

    @classmethod
    def described(cls, arguments: argparse.Namespace) -> ClassifyRun:
        """The run the parsed command line asks for, its options checked
        against each other and every path it writes against every path it
        reads (UsageError, before any work)."""
        rules = game_named(arguments.game)
        run = cls(
            rules,
            arguments.input,
            arguments.output,
            arguments.random,
            arguments.seed,
            arguments.piles,
            arguments.bound,
            arguments.columns,
            arguments.types,
            arguments.header,
            arguments.delimiter,
            arguments.threads,
            arguments.chunk,
            arguments.dask,
            arguments.summary_plot,
            arguments.force,
            arguments.quiet,
            arguments.json,
        )
        run._check_options()
        run._check_writes()
        return run

    @property
    def dataset(self) -> bool:
        """Whether the input is a directory of parquet files."""
        return self.input is not None and os.path.isdir(self.input)

    def _check_options(self) -> None:
        if self.bound is not None and not self.rules.bounded:
            raise UsageError(f"--bound: {self.rules.name} has no bound on the next take")
        if (self.input is None) == (self.random is None):
            raise UsageError("give INPUT or --random N (one of them)")
        if self.piles is not None and self.random is None:
            raise UsageError("--piles goes with --random")
        if self.columns is not None and self.random is not None:
            raise UsageError("--columns goes with INPUT, not --random")
        if self.input is not None and self.output is None:
            raise UsageError("-o OUTPUT is needed with INPUT")
        if self.dataset and self.summary_plot:
            raise UsageError("--summary-plot goes with files and --random, not a dataset")

    def _check_writes(self) -> None:
        """Each path the run writes, in turn: against the input and the paths
        before it (`refuse_overlap`), then by its own kind's rule."""
        inputs = (self.input,)
        if self.output is not None:
            if self.dataset:
                assert self.input is not None
                check_directory_output(self.output, self.input, self.force)
            else:
                output_is_stream(self.output, self.force, inputs, "-o")
        if self.summary_plot is not None:
            self.plot_kind = figure_format(
                self.summary_plot,
                self.force,
                "--summary-plot",
                inputs,
                written=(self.output,) if self.output not in (None, "-") else (),
            )
