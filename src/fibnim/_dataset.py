"""A `fibnim classify` run over a dataset (a directory of parquet files): each
file a partition, classified by dask workers that read and write their own,
the output directory put in place whole or not at all."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from fibnim._classify import GameName, classify
from fibnim._errors import DataError, UsageError
from fibnim._output import MARKER, answer_names
from fibnim._plan import ClassifyRun
from fibnim._run import Signals, columns_hint, dask_client, result_of, summary
from fibnim._source import pile_columns
from fibnim._version import __version__


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


def classify_dataset(run: ClassifyRun) -> int:
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
    where, target = run.input, run.output
    assert where is not None and target is not None  # ClassifyRun's checks
    try:
        frame = dd.read_parquet(where)
    except Exception as error:  # dask and pyarrow raise many kinds
        raise DataError(f"{where}: not a parquet dataset ({error})") from None
    names = [str(name) for name in frame.columns]
    piles = names
    if run.columns is not None:
        piles = [names[j] for j in pile_columns(names, run.columns, where)]
    else:
        try:
            run.rules.check_named(names, where, "--columns ")
        except ValueError as error:
            raise DataError(str(error)) from None
    try:
        run.rules.check_piles(len(piles))
    except ValueError as error:
        hint = columns_hint(names) if piles is names else ""
        raise DataError(f"{where}: {error}{hint}") from None
    for name in piles:
        dtype = frame.dtypes[name]
        if np.dtype(getattr(dtype, "numpy_dtype", dtype)).kind not in "iu":
            raise DataError(f"{where}: column {name!r} holds {dtype}, not integers")
    _check_dataset_files(where, piles)
    answers = list(answer_names(len(piles)))
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
        _classify_partition, run.rules.name, run.bound, where, piles, meta=meta
    )
    parent = os.path.dirname(os.path.abspath(target))
    temporary = os.path.join(parent, f".{os.path.basename(target)}.{secrets.token_hex(8)}")
    work = [
        out.to_parquet(temporary, write_index=False, compute=False),
        out["is_p"].size,
        out["is_p"].sum(),
    ]
    client = dask_client(run.dask) if run.dask else None
    start = time.perf_counter()
    pool = ThreadPoolExecutor(max_workers=1) if client is None else None
    try:
        with Signals(pool) as signals:
            if client is not None:
                # one graph: each partition classified once
                futures = client.compute(work)
                _, rows, p_positions = [result_of(future, signals) for future in futures]
            else:
                assert pool is not None
                _, rows, p_positions = result_of(pool.submit(compute, *work), signals)
            signals.check()
            _mark(temporary, run.rules.name, where)
            _replace_directory(temporary, os.path.realpath(target))
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    finally:
        if client is not None:
            client.close()
    summary(
        run,
        positions=int(rows),
        p_positions=int(p_positions),
        seconds=time.perf_counter() - start,
        where=f"{out.npartitions} partitions on "
        + (f"dask at {run.dask}" if client is not None else "dask, this process"),
        piles=piles,
    )
    return 0


def _mark(directory: str, game: str, where: str) -> None:
    """The MARKER of a dataset fibnim wrote: the files it holds."""
    files = sorted(os.listdir(directory))
    with open(os.path.join(directory, MARKER), "w", encoding="utf-8") as file:
        json.dump(
            {"written_by": f"fibnim {__version__}", "game": game, "input": where, "files": files},
            file,
            indent=1,
        )


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
