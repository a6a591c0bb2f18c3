"""pyarrow as fibnim's files use it: whether it may be used, a run's hold on its
threads and memory, and numpy arrays to and from Arrow's buffers (without the
detour through pandas that pyarrow's own conversions take)."""

from __future__ import annotations

import importlib.util
import io
import itertools
import json
import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fibnim import _stop
from fibnim._errors import UsageError, missing_package
from fibnim._output import Output, kind_of
from fibnim._version import __version__


def load_parquet() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as error:
        raise missing_package(error, "pyarrow", "parquet files need", "arrow") from None
    return pa, pq


def arrow_integers(column: Any) -> NDArray[Any]:
    """An integer Arrow array without nulls as a numpy view of its buffer (its own
    to_numpy() loads pandas first, where pandas is installed)."""
    import pyarrow as pa

    kind = "i" if pa.types.is_signed_integer(column.type) else "u"
    dtype = np.dtype(f"<{kind}{column.type.bit_width // 8}")
    data = column.buffers()[1]
    return np.frombuffer(
        data, dtype=dtype, count=len(column), offset=column.offset * dtype.itemsize
    )


def int64_array(values: NDArray[Any], valid: NDArray[np.bool_] | None = None) -> Any:
    """values as an Arrow int64 array, null where `valid` is False."""
    import pyarrow as pa

    data = pa.py_buffer(np.ascontiguousarray(values, dtype=np.int64))
    if valid is None or valid.all():
        return pa.Array.from_buffers(pa.int64(), len(values), [None, data], null_count=0)
    bits = pa.py_buffer(np.packbits(valid, bitorder="little"))
    nulls = len(values) - int(np.count_nonzero(valid))
    return pa.Array.from_buffers(pa.int64(), len(values), [bits, data], null_count=nulls)


def arrow_column(column: Any) -> Any:
    """A column of the input as the output repeats it: an Arrow array as it is,
    a numpy array of integers or of text (the fields of a CSV line) as one."""
    import pyarrow as pa

    if isinstance(column, pa.Array):
        return column
    if not column.dtype.isnative:  # Arrow takes no other byte order (a >i8 .npy's)
        column = column.astype(column.dtype.newbyteorder("="))
    return pa.array(column, type=pa.string() if column.dtype == object else None)


def hold_arrow(threads: int, *paths: str | None) -> None:
    """Before a run whose files pyarrow may read or write: its thread pools held
    to the run's threads (its I/O pool has 8), and under an address-space limit
    (ulimit -v, as clusters set) its allocations left to the C library. Its
    default allocator, mimalloc, reserves 1 GiB of address space at its first
    allocation: up to the limit, which then left no room to start a worker
    thread for a 3-row CSV, where an .npy of 10**7 rows ran."""
    dataset = [path for path in paths if path and os.path.isdir(path)]
    if not dataset and all(path is None or kind_of(path) == ".npy" for path in paths):
        return
    limit = _stop.address_space_limit()
    # looked for, not loaded: loading it starts its allocator's thread, which
    # under a low limit failed, printed, and ended the process by SIGSEGV
    if limit is not None and limit < ARROW_FLOOR_MB and importlib.util.find_spec("pyarrow"):
        parquet = dataset or [path for path in paths if path and kind_of(path) == ".parquet"]
        if parquet:
            raise UsageError(
                f"{parquet[0]}: parquet under an address-space limit of {limit:,} MB "
                f"(ulimit -v): pyarrow needs {ARROW_FLOOR_MB} MB or more, below which it may "
                "abort the process when an allocation fails in one of its threads; raise the "
                "limit" + ("" if dataset else ", or write .npy or CSV")
            )
        global _arrow_held_off
        _arrow_held_off = True  # CSV and TSV by fibnim's own reader and writer
        return
    try:
        import pyarrow as pa
    except ImportError:
        return
    # the run's own handlers see every signal: pyarrow's, set for the time of
    # each read_csv, took a SIGINT or SIGTERM that came then and could lose it
    # (a run read on, its signal unseen)
    pa.enable_signal_handlers(False)
    pa.set_cpu_count(max(threads, 1))
    pa.set_io_thread_count(max(threads, 1))
    # the C library's allocator, which numpy's arrays come from too: pyarrow's
    # default (mimalloc) kept freed pages in each thread's heap, so that a
    # run's peak grew with the machine's load (parquet to CSV of 10**7 rows,
    # Intel Xeon: 263 MB idle, 300 MB in CI; with this pool 207 to 214 MB,
    # idle and busy alike, in the same time)
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return
    if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY:
        _few_arenas()
        # Arrow starts its pool's threads when it first needs them, and one it
        # cannot start then (the limit reached mid-run) ends the process
        # (std::terminate, SIGABRT): started here, while there is room, and
        # where one fails, that is a clean error before any work
        import pyarrow.csv as pacsv

        try:
            pacsv.read_csv(io.BytesIO(b"a\n1\n"), pacsv.ReadOptions(use_threads=True))
        except pa.ArrowException as error:
            raise MemoryError(f"pyarrow could not start its threads ({error})") from None


def _few_arenas() -> None:
    """Under an address-space limit, glibc's malloc keeps to two arenas: each
    thread's own arena reserves 64 MB of address space, which left too little
    for the threads themselves (no effect where the C library is another)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.mallopt(-8, 2)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


#: The least address space (ulimit -v) that pyarrow's paths are given, in MB.
#: Below about 350 MB, 3 runs of 400 (CSV to parquet of 10**6 rows, 2 to 8
#: threads) died by SIGABRT inside pyarrow (a thread it could not start, an
#: allocation under ValueOrDie); from 448 MB to 700 MB, 90 runs ended cleanly.
ARROW_FLOOR_MB = 512


_arrow_held_off = False  # set by hold_arrow under a low limit


def has_arrow() -> bool:
    """Whether pyarrow is there and may be used (FIBNIM_NO_ARROW=1 says to act as
    if not: for tests; `hold_arrow` under a low address-space limit too)."""
    if _arrow_held_off or os.environ.get("FIBNIM_NO_ARROW", "") not in ("", "0"):
        return False
    try:
        import pyarrow.csv  # noqa: F401
    except ImportError:
        return False
    return True


def is_text(kind: Any) -> bool:
    """Whether an Arrow type is laid out as text: offsets and bytes."""
    import pyarrow as pa

    return bool(
        pa.types.is_string(kind) or pa.types.is_large_string(kind)
        or pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
    )  # fmt: skip


def is_large(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_large_string(kind) or pa.types.is_large_binary(kind))


def text_bytes(column: Any) -> tuple[NDArray[Any], NDArray[np.uint8]]:
    """A column's fields as text: the bytes of them all, and the m + 1 offsets
    of each field's start (and the last one's end) in them; null as empty."""
    import pyarrow as pa

    text = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    if not is_text(text.type):
        text = text.cast(pa.large_string())  # a dictionary, a string view, a number
    if text.null_count:
        text = text.fill_null(
            b"" if pa.types.is_binary(text.type) or pa.types.is_large_binary(text.type) else ""
        )
    width = np.int64 if is_large(text.type) else np.int32
    offsets = np.frombuffer(text.buffers()[1], dtype=width)[text.offset :][: len(text) + 1]
    data = np.frombuffer(text.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    return offsets - offsets[0], data


def inputs_as_arrow(positions: NDArray[Any] | None, kept: Any) -> list[Any]:
    """The input's columns as Arrow arrays (`Kept`: a list of columns), or the
    piles alone where --columns chose none (kept None)."""
    if isinstance(kept, list):
        return [arrow_column(c) for c in kept]
    assert positions is not None and kept is None  # rows passed through go to text alone
    return [int64_array(positions[:, j]) for j in range(positions.shape[1])]


def answers_table(
    result: NDArray[np.int64], inputs: list[Any], output: Output, parquet: bool
) -> Any:
    """The rows as an Arrow table: the input's columns, is_p (a boolean for
    parquet, "P" or "N" for CSV), and the moves as int64 with nulls where
    there is none; with pandas metadata that makes the moves nullable
    integers (Int64) in pandas rather than floats."""
    import pyarrow as pa

    # Arrays made from their buffers: pa.array() of numpy loads pandas first
    # (where pandas is installed), which a short run would spend its time on.
    m, k = len(result), result.shape[1] - 1
    arrays = list(inputs)
    p = result[:, 0] == 1
    if parquet:
        bits = pa.py_buffer(np.packbits(p, bitorder="little"))
        arrays.append(pa.Array.from_buffers(pa.bool_(), m, [None, bits], null_count=0))
    else:  # one byte per row, straight from the outcome column
        letters = np.where(p, ord("P"), ord("N")).astype(np.uint8)
        offsets = pa.py_buffer(np.arange(m + 1, dtype=np.int32))
        arrays.append(pa.StringArray.from_buffers(m, offsets, pa.py_buffer(letters)))
    arrays += [int64_array(result[:, 1 + j], result[:, 1 + j] >= 0) for j in range(k)]
    names = list(output.names())
    pandas = {
        "index_columns": [],
        "column_indexes": [],
        "columns": [
            {
                "name": name,
                "field_name": name,
                "pandas_type": "int64",
                "numpy_type": "Int64",
                "metadata": None,
            }
            for name in itertools.islice(output.answers(), 1, None)
        ],
        "creator": {"library": "fibnim", "version": __version__},
        "pandas_version": "2.0.0",
    }
    schema = pa.schema(
        [(name, array.type) for name, array in zip(names, arrays, strict=True)],
        metadata={"pandas": json.dumps(pandas)},
    )
    return pa.Table.from_arrays(arrays, schema=schema)
