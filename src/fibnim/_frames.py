"""classify over tables of every kind: the same kind back, its columns kept.

pandas DataFrames take the path of every pandas object (`fibnim._labelled`:
nullable answers on the frame's index). A dask DataFrame is classified
partition by partition on that path, lazily, its divisions kept. Every other
table (a pyarrow Table or RecordBatch, a polars DataFrame or LazyFrame, and
whatever else narwhals reads) goes through narwhals, the layer that lets one
piece of code read and build the tables of many libraries: its pile columns
are read as numpy views of their Arrow or polars buffers where their types
allow, and the answers come back as columns of the table's own library,
after its other columns, which are not copied. Nothing here imports a
table's library: narwhals finds it from the table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fibnim import _labelled
from fibnim._arrow import int64_array

INT64_MAX = 2**63 - 1


def is_table(value: Any) -> bool:
    """Whether value is a table that narwhals reads (not pandas nor dask: they
    have their own paths), checked without importing any library."""
    if _labelled.library(value) in ("pandas", "dask", "numpy", "xarray", "builtins"):
        return False
    if _labelled.library(value) == "pyarrow":
        return type(value).__name__ in ("Table", "RecordBatch")
    try:
        import narwhals as nw
    except ImportError:
        return False
    return bool(nw.dependencies.is_into_dataframe(value) or _is_lazy(value))


def _is_lazy(value: Any) -> bool:
    import narwhals as nw

    return bool(nw.dependencies.is_polars_lazyframe(value))


def is_dask_frame(value: Any) -> bool:
    """Whether value is a dask DataFrame (checked without importing dask)."""
    return _labelled.library(value) == "dask" and hasattr(value, "columns")


def pile_names(names: Sequence[Any], columns: Sequence[Any] | str | None, rules: Any) -> list[Any]:
    """The pile columns among a table's `names`: `columns` as given (labels,
    each once), '*' for all, or (None) the game's rule for a table whose piles
    were not chosen (`Game.check_named`)."""
    names = list(names)
    if columns is None:
        rules.check_named(names, "classify", "columns=")
        return names
    if isinstance(columns, str) and columns == "*":
        return names
    if isinstance(columns, (str, bytes)) or not isinstance(columns, Sequence):
        raise TypeError(f"classify: columns= is a list of columns (or '*'), not {columns!r}")
    listing = ", ".join(map(str, names))
    for name in columns:
        if name not in names:
            raise ValueError(f"classify: no column {name!r}; the columns are {listing}")
    if len(set(columns)) < len(columns):
        raise ValueError(f"classify: columns={list(columns)!r} names a column twice")
    return list(columns)


def answer_names(piles: int) -> list[str]:
    return ["is_p", *(f"move_{j + 1}" for j in range(piles))]


def _check_free(names: Sequence[Any], piles: int) -> None:
    if taken := set(names) & set(answer_names(piles)):
        raise ValueError(
            f"classify: the table has a column named {sorted(taken)[0]!r}, as one of the "
            "answers' columns is; rename it"
        )


def classify_table(
    classify: Callable[..., Any],
    table: Any,
    game: str,
    bound: int | None,
    columns: Sequence[Any] | str | None,
    out: Any,
    rules: Any,
) -> Any:
    """classify(table, game, bound, columns=columns, out=out) for a table that
    narwhals reads: the table back, of its own kind, with is_p (boolean) and
    move_1 .. move_k (int64, null where there is no move) after its columns;
    a row with a null pile gets null answers. With out=, the answers' int64
    array in out, as for an array. A LazyFrame is collected, and its answers
    handed back as a LazyFrame."""
    import narwhals as nw

    batch = _labelled.library(table) == "pyarrow" and type(table).__name__ == "RecordBatch"
    if batch:
        import pyarrow as pa

        table = pa.Table.from_batches([table])
    frame = nw.from_native(table)
    lazy = isinstance(frame, nw.LazyFrame)
    if lazy:
        frame = frame.collect()
    piles = pile_names(frame.columns, columns, rules)
    hole = np.zeros(len(frame), dtype=bool)
    values = []
    for j, name in enumerate(piles):
        series = frame[name]
        if not series.dtype.is_integer():
            raise TypeError(
                f"classify: column {name!r} (pile {j}) holds {series.dtype}, not integers"
            )
        if series.null_count():
            hole |= series.is_null().to_numpy()
            series = series.fill_null(1)  # answered, then marked null
        values.append(_exact(series.to_numpy(), j, name))
    positions = np.column_stack(values) if values else np.empty((len(frame), 0), np.int64)
    if out is not None:
        if hole.any():
            row = int(np.argmax(hole))
            raise ValueError(
                f"classify: row {row} has a missing pile (null), which out= cannot hold"
            )
        return classify(positions, game, bound, out=out)
    _check_free(frame.columns, len(piles))
    result = classify(positions, game, bound)
    answers = nw.from_arrow(_answers(result, hole), backend=nw.get_native_namespace(frame))
    native = nw.concat([frame, answers], how="horizontal").to_native()
    if lazy:
        return native.lazy()
    if batch:
        import pyarrow as pa

        return pa.RecordBatch.from_arrays(
            [column.combine_chunks() for column in native.columns], schema=native.schema
        )
    return native


def _exact(values: NDArray[Any], j: int, name: Any) -> NDArray[Any]:
    """A pile column as int64 or uint64, its values kept: unsigned values
    above int64 refused here, naming row and column (numpy would stack uint64
    beside int64 as float64, rounding above 2**53)."""
    if values.dtype.kind == "u" and values.size and values.max() > INT64_MAX:
        row = int(np.argmax(values > INT64_MAX))
        raise OverflowError(
            f"classify: positions[{row}, {j}] = {values[row]} (column {name!r}) is above "
            "2**63 - 1 (classify answers in int64)"
        )
    return values.astype(np.int64, copy=False)


def _answers(result: NDArray[np.int64], hole: NDArray[np.bool_]) -> Any:
    """The answers as an Arrow table: is_p, then the moves, null where there is
    none and on rows with a null pile. Made from their buffers: pa.array() of
    numpy loads pandas first."""
    import pyarrow as pa

    m, k = len(result), result.shape[1] - 1

    def bits(mask: NDArray[np.bool_]) -> Any:
        return pa.py_buffer(np.packbits(mask, bitorder="little"))

    valid = ~hole
    arrays = [
        pa.Array.from_buffers(
            pa.bool_(), m, [bits(valid), bits(result[:, 0] == 1)], null_count=int(hole.sum())
        )
    ]
    for j in range(k):  # the moves, made as the file outputs make them
        moves = result[:, 1 + j]
        arrays.append(int64_array(moves, valid & (moves >= 0)))
    return pa.Table.from_arrays(arrays, names=answer_names(k))


def classify_dask_frame(
    classify: Callable[..., Any],
    frame: Any,
    game: str,
    bound: int | None,
    columns: Sequence[Any] | str | None,
    rules: Any,
) -> Any:
    """A dask DataFrame classified partition by partition (each a pandas
    DataFrame, the pandas path's answers): lazy, its other columns and its
    divisions kept."""
    piles = pile_names(frame.columns, columns, rules)
    _check_free(frame.columns, len(piles))
    meta = classify(frame._meta, game, bound, columns=piles)
    return frame.map_partitions(
        classify, game, bound, columns=piles, meta=meta, align_dataframes=False
    )
