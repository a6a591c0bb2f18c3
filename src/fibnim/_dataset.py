"""A `fibnim classify` run over a dataset (a directory of parquet files).

The files are found as pyarrow's datasets find them (every file below the
directory, in the order of their paths, but those whose name or folder
starts with "." or "_"), and their schemas read and unified first, before
any row (`unified_schema`): a column missing from a file is null there, and
a column whose types differ between files takes the type that holds every
one of them without loss (int32 and int64 as int64, uint32 and int64 as
int64, float32 and float64 as float64, string and large_string as
large_string); where none does, the run is refused naming the file and the
column. The piles must be integers in every file.

Each file is then a task, on this process's threads or on the dask
scheduler at --dask, that reads it a chunk at a time, conformed to that one
schema, classifies it and writes its answers to the file of the same name
in a new directory; the directory takes the output's name only when every
file is written, with MARKER listing what fibnim wrote there.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from fibnim._arrow import hold_arrow, load_parquet
from fibnim._classify import GameName
from fibnim._errors import DataError, UsageError, in_one_line
from fibnim._files import Sink
from fibnim._output import MARKER, answer_names, check_directory_output
from fibnim._parquet import ParquetSource
from fibnim._plan import ClassifyRun
from fibnim._run import (
    Signals,
    columns_hint,
    dask_client,
    dask_submit,
    default_chunk,
    in_order,
    progress,
    solve_chunk,
    summary,
)
from fibnim._source import pile_columns
from fibnim._version import __version__


def dataset_files(where: str) -> list[str]:
    """The files of the dataset at where, in the order of their paths: every
    file below it but those whose name, or a folder's on the way, starts with
    "." or "_" (pyarrow's datasets skip them: hidden files, _metadata, MARKER)."""
    found = []
    for folder, folders, files in os.walk(where):
        folders[:] = [name for name in folders if not name.startswith((".", "_"))]
        found += [os.path.join(folder, name) for name in files if not name.startswith((".", "_"))]
    return sorted(found, key=lambda path: os.path.relpath(path, where).split(os.sep))


def unified_schema(footers: dict[str, Any]) -> Any:
    """The one schema of the files (`footers`: each file's metadata): their
    columns in the order they first appear, each of the type that holds every
    file's without loss (see the module's docstring); DataError naming the
    file and the column where no type does."""
    pa, _ = load_parquet()
    fields: dict[str, tuple[Any, str]] = {}  # name: (type, the file that set it)
    for path, footer in footers.items():
        for field in footer.schema.to_arrow_schema():
            if field.name not in fields:
                fields[field.name] = (field.type, path)
                continue
            kind, first = fields[field.name]
            common = _lossless(kind, field.type)
            if common is None:
                raise DataError(
                    f"{path}: column {field.name!r} holds {field.type}, where {first} holds "
                    f"{kind}; no type holds both without loss: convert one of them"
                )
            fields[field.name] = (common, first if common == kind else path)
    return pa.schema([(name, kind) for name, (kind, _) in fields.items()])


def _footer(path: str) -> Any:
    """A file's parquet metadata (its schema and rows); DataError naming a file
    that is not parquet."""
    _, pq = load_parquet()
    if os.path.getsize(path) == 0:
        raise DataError(f"{path}: is empty (0 bytes), not a parquet file")
    try:
        return pq.read_metadata(path)
    except Exception as error:  # pyarrow's errors have no common base worth naming
        raise DataError(f"{path}: not a parquet file ({in_one_line(error)})") from None


def _lossless(one: Any, other: Any) -> Any:
    """The type that holds every value of both types exactly, or None."""
    import pyarrow as pa

    if one == other or pa.types.is_null(other):
        return one
    if pa.types.is_null(one):
        return other
    if pa.types.is_integer(one) and pa.types.is_integer(other):
        signed = [t for t in (one, other) if pa.types.is_signed_integer(t)]
        unsigned = [t for t in (one, other) if not pa.types.is_signed_integer(t)]
        if not signed:
            return max(one, other, key=lambda t: t.bit_width)
        bits = max([t.bit_width for t in signed] + [2 * t.bit_width for t in unsigned])
        return None if bits > 64 else pa.int64() if bits > 32 else getattr(pa, f"int{bits}")()
    if pa.types.is_floating(one) and pa.types.is_floating(other):
        return max(one, other, key=lambda t: t.bit_width)
    for small, large in ((pa.string(), pa.large_string()), (pa.binary(), pa.large_binary())):
        if {one, other} <= {small, large}:
            return large
    return None


class _DatasetFile(ParquetSource):
    """One file of a dataset, read a batch at a time as the dataset's one
    schema has it (a column it lacks as nulls, a narrower type widened)."""

    def __init__(self, path: str, schema: Any, pick: list[int]) -> None:
        super().__init__(path)
        self.schema = schema
        self.columns = list(schema.names)
        self.width = len(self.columns)
        self.pick = pick

    def _batches(self, size: int) -> Any:
        import pyarrow as pa

        for batch in super()._batches(size):
            yield pa.RecordBatch.from_arrays(
                [
                    batch.column(field.name).cast(field.type)
                    if field.name in batch.schema.names
                    else pa.nulls(batch.num_rows, field.type)
                    for field in self.schema
                ],
                schema=self.schema,
            )


@dataclass(frozen=True)
class _Part:
    """A file of the dataset and where its answers go; a task's whole brief,
    sent to a dask worker as it is."""

    name: str  # the file as the user's paths name it, for messages
    path: str  # absolute: a worker's own directory is another
    target: str
    schema: Any
    pick: list[int]
    game: GameName
    bound: int | None
    chunk: int


def _classify_file(part: _Part) -> tuple[int, int]:
    """One file of a dataset classified into its target: (rows, P-positions).
    A bad value is a DataError naming the file, its row and column."""
    source = _DatasetFile(part.path, part.schema, part.pick)
    source.name = part.name
    try:
        os.makedirs(os.path.dirname(part.target), exist_ok=True)
        sink = Sink(part.target, source.columns, source.rows, False, pick=part.pick)
        rows = p_positions = 0
        try:
            for first, positions, kept in source.chunks(part.chunk):
                done = solve_chunk(
                    positions, part.game, part.bound, None, part.name, first, kept, part.pick
                )
                sink.write(positions, done.result, done.rows, done.kept)
                rows += done.rows
                p_positions += done.p_positions
            if not rows:  # a file of no rows: its columns of the dataset's types all the same
                import pyarrow as pa

                k = len(part.pick)
                empty = [pa.array([], type=field.type) for field in part.schema]
                sink.write(np.empty((0, k), np.int64), np.empty((0, 1 + k), np.int64), 0, empty)
            sink.commit()
        except BaseException:
            sink.abort()
            raise
    finally:
        source.close()
    return rows, p_positions


def classify_dataset(run: ClassifyRun) -> int:
    """fibnim classify DIRECTORY -o DIRECTORY: a parquet dataset, file by file
    on this process's threads or the dask scheduler at --dask, written into a
    new directory that takes the output's name only when every file is
    written."""
    where, target = run.input, run.output
    assert where is not None and target is not None  # ClassifyRun's checks
    hold_arrow(run.threads, where)
    files = dataset_files(where)
    if not files:
        raise DataError(f"{where}: holds no file (a dataset is a directory of parquet files)")
    footers = {path: _footer(path) for path in files}
    schema = unified_schema(footers)
    names = list(schema.names)
    if run.columns is not None:
        pick = pile_columns(names, run.columns, where)
    else:
        pick = list(range(len(names)))
        try:
            run.rules.check_named(names, where, "--columns ")
        except ValueError as error:
            raise DataError(str(error)) from None
    piles = [names[j] for j in pick]
    try:
        run.rules.check_piles(len(piles))
    except ValueError as error:
        hint = columns_hint(names) if run.columns is None else ""
        raise DataError(f"{where}: {error}{hint}") from None
    _check_piles(footers, piles)
    if taken := set(names) & set(answer_names(len(piles))):
        raise UsageError(
            f"{where}: has a column named {sorted(taken)[0]!r}, as one of the answers' "
            "columns is; rename it"
        )
    client = dask_client(run.dask) if run.dask else None
    threads = run.threads if client is None else 1
    chunk = run.chunk = run.chunk or default_chunk(threads, len(names))
    parent = os.path.dirname(os.path.abspath(target))
    temporary = os.path.join(parent, f".{os.path.basename(target)}.{secrets.token_hex(8)}")
    parts = [
        _Part(
            path,
            os.path.abspath(path),
            os.path.join(temporary, os.path.relpath(path, where)),
            schema,
            pick,
            run.rules.name,
            run.bound,
            chunk,
        )
        for path in files
    ]
    bar = progress(sum(footer.num_rows for footer in footers.values()), run.quiet)
    start, rows, p_positions = time.perf_counter(), 0, 0
    pool = ThreadPoolExecutor(max_workers=run.threads) if client is None else None
    try:
        os.mkdir(temporary)
        with Signals(pool) as signals:
            submit = signals.submit_watched(pool) if pool is not None else dask_submit(client)
            window = run.threads + 1 if client is None else len(parts)
            tasks = iter([(_classify_file, (part,)) for part in parts])
            for done_rows, done_p in in_order(submit, tasks, window, signals):
                rows += done_rows
                p_positions += done_p
                if bar is not None:
                    bar.update(done_rows)
            signals.check()
            _mark(temporary, run.rules.name, where)
            # again, just before: a file put there during the run is not fibnim's
            check_directory_output(target, where, run.force)
            _replace_directory(temporary, os.path.realpath(target))
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    finally:
        if bar is not None:
            bar.close()
        if client is not None:
            client.close()
    summary(
        run,
        positions=rows,
        p_positions=p_positions,
        seconds=time.perf_counter() - start,
        where=f"{len(files)} files on "
        + (f"dask at {run.dask}" if client is not None else f"{run.threads} threads"),
        piles=piles,
    )
    return 0


def _check_piles(footers: dict[str, Any], piles: list[str]) -> None:
    """Every file holds the piles, as integers: a file without one, or with
    text or floats there, is named before any work."""
    import pyarrow as pa

    for path, footer in footers.items():
        schema = footer.schema.to_arrow_schema()
        for name in piles:
            index = schema.get_field_index(name)
            if index < 0:
                raise DataError(f"{path}: has no column {name!r}, which the dataset's piles are")
            kind = schema.field(index).type
            if not pa.types.is_integer(kind):
                raise DataError(f"{path}: column {name!r} holds {kind}, not integers")


def _mark(directory: str, game: str, where: str) -> None:
    """The MARKER of a dataset fibnim wrote: the files it holds."""
    files = sorted(
        os.path.relpath(os.path.join(folder, name), directory)
        for folder, _, names in os.walk(directory)
        for name in names
    )
    with open(os.path.join(directory, MARKER), "w", encoding="utf-8") as file:
        json.dump(
            {"written_by": f"fibnim {__version__}", "game": game, "input": where, "files": files},
            file,
            indent=1,
        )


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
