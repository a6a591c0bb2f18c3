"""The one seam between fibnim's functions and the kinds of data they take.

Every public array function meets its arguments here: numpy arrays, lists,
pandas Series, DataFrames and Indexes (nullable types included), xarray
DataArrays, pyarrow and polars arrays and tables, dask arrays and DataFrames.
A value is taken apart once on the way in (the integer array behind it, where
it is missing, the words for a place in it, how to build its kind again) and
its answers are built once on the way out, in the kind of the first labelled
argument: a Series keeps its index and name, a DataFrame its index and
columns, a DataArray its dimensions, coordinates, name and attributes, a
table its other columns. A dask collection is mapped block by block (or
partition by partition), lazily, each block's errors naming their index in
the whole array.

Functions of positions (a DataFrame of piles, one position per row; a
DataArray whose last dimension holds the piles) give one result per
position. Results with a trailing axis of their own (`digits`) come back as a
DataFrame on the Series' index, or a DataArray with a new last dimension,
"digit". Labelled arguments must share their labels: pandas would align two
Series on the union of their indexes, where fibnim refuses (align them first)
rather than compute on positions that do not belong together. NA in, NA out:
a missing value is computed as 1 (which every function takes) and marked
missing in the answers.

No library is imported unless one of its objects is passed in; other tables
than pandas' go through narwhals, the layer that reads and builds the tables
of many libraries, whose pile columns are read as numpy views of their Arrow
or polars buffers where their types allow. Of the rest of fibnim only the
Arrow helpers and the answers' column names are imported here: the checks
(fibnim._checks) import this module, for the words that name a place.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from fibnim import _threads
from fibnim._arrow import int64_array
from fibnim._output import answer_names

INT64_MAX = 2**63 - 1

Function = TypeVar("Function", bound=Callable[..., Any])
Words = Callable[[tuple[int, ...]], "str | None"]
# types that are none of dask's, pandas' or xarray's
_PLAIN = frozenset({int, bool, float, str, list, tuple, type(None), np.ndarray})
LIBRARIES = frozenset({"pandas", "xarray"})  # the labelled kinds

# -- kinds ----------------------------------------------------------------------


def library(value: Any) -> str:
    """The top-level package that value's type comes from ("numpy", "pandas", ...)."""
    return type(value).__module__.partition(".")[0]


def is_labelled(value: Any) -> bool:
    """Whether value is a pandas or xarray container (a Series, a DataFrame,
    an Index, a DataArray), not one of their scalars (pd.NA, a Timestamp)."""
    return library(value) in LIBRARIES and hasattr(value, "ndim")


def _is_frame(value: Any) -> bool:
    return library(value) == "pandas" and value.ndim == 2


def is_dask(value: Any) -> bool:
    """Whether value is a dask collection (checked without importing dask)."""
    return library(value) == "dask"


def is_dask_frame(value: Any) -> bool:
    """Whether value is a dask DataFrame (checked without importing dask)."""
    return library(value) == "dask" and hasattr(value, "columns")


def is_table(value: Any) -> bool:
    """Whether value is a table that narwhals reads (not pandas nor dask: they
    have their own paths), checked without importing any library."""
    if library(value) in ("pandas", "dask", "numpy", "xarray", "builtins"):
        return False
    if library(value) == "pyarrow":
        return type(value).__name__ in ("Table", "RecordBatch")
    try:
        import narwhals as nw
    except ImportError:
        return False
    return bool(nw.dependencies.is_into_dataframe(value) or _is_lazy(value))


def _is_lazy(value: Any) -> bool:
    import narwhals as nw

    return bool(nw.dependencies.is_polars_lazyframe(value))


# -- places: the words for an element in the user's own object -----------------

#: Where the array being checked starts in a larger one (a dask block in its
#: array): added to the indices that error messages give.
_OFFSET: ContextVar[tuple[int, ...]] = ContextVar("fibnim_index_offset", default=())
#: whether the call is on a dask DataFrame's partition, whose place in the
#: whole frame is not known without its earlier partitions: its labels name it
_PARTITION: ContextVar[bool] = ContextVar("fibnim_partition", default=False)

#: The labels of the arguments being checked, by name: the words for a place
#: in each (a pandas index label and column name, xarray coordinates).
_LABELS: ContextVar[Mapping[str, Words]] = ContextVar(
    "fibnim_labels", default=MappingProxyType({})
)


@contextmanager
def index_offset(offset: tuple[int, ...]) -> Iterator[None]:
    """Within this block, error messages give indices shifted by offset."""
    token = _OFFSET.set(offset)
    try:
        yield
    finally:
        _OFFSET.reset(token)


@contextmanager
def labels(words: dict[str, Words]) -> Iterator[None]:
    """Within this call, an element of argument `name` is named by its index
    and by words[name](index) (its labels)."""
    token = _LABELS.set({**_LABELS.get(), **words})
    try:
        yield
    finally:
        _LABELS.reset(token)


def on_partitions(function: Callable[..., Any]) -> Callable[..., Any]:
    """function as it runs on a dask DataFrame's partitions: its errors name
    an element by its labels alone (see `place`). A partial of a module's
    function, which dask can name (tokenize) where a closure it cannot."""
    return functools.partial(_on_partition, function)


def _on_partition(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    token = _PARTITION.set(True)
    try:
        with _threads.limited(1):  # dask runs the partitions side by side
            return function(*args, **kwargs)
    finally:
        _PARTITION.reset(token)


def place(index: tuple[int, ...], name: str) -> tuple[tuple[int, ...] | None, str | None]:
    """An element's index in the whole of argument `name` (shifted by
    `index_offset`), and its labels (`labels`), if it has any; on a dask
    DataFrame's partition (`on_partitions`) no index, as the partition's is
    not the whole frame's, and its labels, the row's always among them."""
    words = _LABELS.get().get(name)
    if _PARTITION.get():
        return None, words(index) if words is not None else None
    offset = _OFFSET.get()
    # an index may be shorter than the offset (a bound r beside positions (..., k))
    shifted = tuple(i + o for i, o in zip(index, offset, strict=False)) + index[len(offset) :]
    return shifted, words(shifted) if words is not None else None


def places(value: Any) -> Callable[[tuple[int, ...]], str | None]:
    """The words for an element's place by the labels of value (a pandas
    object, an xarray DataArray): its index label where the index is not
    just 0, 1, 2, ... (a dask partition's is not), a DataFrame's column
    name, a DataArray's coordinates."""

    def words(index: tuple[int, ...]) -> str | None:
        if type(value).__name__ == "Index":
            return None  # its labels are its values
        try:
            if library(value) == "xarray":
                named = [
                    f"{dim} {_plain(value[dim].values[i])!r}"
                    for dim, i in zip(value.dims, index, strict=False)
                    if dim in value.coords
                ]
                return ", ".join(named) or None
            axes = [value.index, *([value.columns] if _is_frame(value) else [])]
            named = [
                f"{kind} {_plain(axis[i])!r}"
                for kind, axis, i in zip(("row", "column"), axes, index, strict=False)
                if kind == "column" or not _counts_from_0(axis) or _PARTITION.get()
            ]
            return ", ".join(named) or None
        except (IndexError, KeyError, AttributeError):  # a place past the labels
            return None

    return words


def _plain(label: Any) -> Any:
    """A numpy scalar label as the Python value it holds (30, not np.int64(30))."""
    return label.item() if isinstance(label, np.generic) else label


def _counts_from_0(index: Any) -> bool:
    import pandas as pd

    return isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1


# -- in: the array behind a value, and where it is missing ---------------------------


def values(value: Any, where: str = "", name: str = "") -> Any:
    """The array behind a labelled value (a dask array stays lazy); others as they
    are. A pandas NA has no place in an array: refused, named by its index
    (`filled` first, where the answer can hold NA)."""
    kind = library(value) if is_labelled(value) else ""
    if kind == "pandas":
        hole = missing(value)
        if hole is not None:
            place = tuple(int(i) for i in np.argwhere(hole)[0])
            label = ", ".join(map(str, place))
            raise ValueError(
                f"{where}: {name}[{label}] is missing (NA), which this call's answer cannot "
                "hold (out=, a coded stream); fill or drop it first"
            )
        # nullable types (Int64, int64[pyarrow]; no NA is left by now) as their numpy type
        wanted = {getattr(d, "numpy_dtype", d) for d in dtypes(value)}
        if len(wanted) > 1 and all(isinstance(d, np.dtype) and d.kind in "iu" for d in wanted):
            # integer columns of several types: numpy's common type of uint64 and
            # int64 is float64, which rounds above 2**53; int64 where every value
            # fits it, else exact Python ints (whose checks name the value)
            columns = [value[name].to_numpy() for name in value.columns]
            if all(c.dtype.kind == "i" or c.max(initial=0) <= INT64_MAX for c in columns):
                return np.column_stack([c.astype(np.int64) for c in columns])
            return value.to_numpy(dtype=object)
        dtype = wanted.pop() if len(wanted) == 1 else None
        return value.to_numpy(dtype=dtype if isinstance(dtype, np.dtype) else None)
    if kind == "xarray":
        return value.data
    if library(value) in ("pyarrow", "polars"):
        return _columnar(value, where, name)
    return value


def _columnar(value: Any, where: str, name: str) -> Any:
    """A pyarrow or polars array as numpy: a null refused by its index (numpy
    would make the column float, naming a rounded value), a type numpy has
    no match for (polars' Int128) a TypeError naming it."""
    nulls = getattr(value, "null_count", 0)
    if (nulls() if callable(nulls) else nulls) and hasattr(value, "is_null"):
        hole = np.asarray(value.is_null(), dtype=bool)
        raise ValueError(
            f"{where}: {name}[{int(np.argmax(hole))}] is missing (null), which this call's "
            "answer cannot hold; fill or drop it first (a pandas Series of Int64 answers "
            "NA there)"
        )
    try:
        return np.asarray(value)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # the library's own (older polars: a Rust panic)
        kind = getattr(value, "dtype", getattr(value, "type", "?"))
        raise TypeError(
            f"{where}: {name} holds {kind}, which numpy cannot hold ({error})"
        ) from None


def dtypes(value: Any) -> list[Any]:
    """The dtypes of a pandas object: one, or a DataFrame's columns'."""
    return list(value.dtypes) if _is_frame(value) else [value.dtype]


def missing(value: Any) -> NDArray[np.bool_] | None:
    """Where a pandas object of a nullable type (Int64, int64[pyarrow]) holds NA,
    in its shape; None where it holds none (and for every other kind)."""
    if not is_labelled(value) or library(value) != "pandas":
        return None
    if all(isinstance(d, np.dtype) for d in dtypes(value)):
        return None
    hole = np.asarray(value.isna()).reshape(value.shape)
    return hole if hole.any() else None


def extension(value: Any) -> str | None:
    """The kind of pandas type a pandas object holds, where it is not numpy's:
    "arrow" (int64[pyarrow]), "sparse" (Sparse[int64]) or "nullable" (Int64);
    None for numpy's types and every other value."""
    if not is_labelled(value) or library(value) != "pandas":
        return None
    # pandas' types of integers alone: a category, text, floats or bools
    # are refused by their type, as numpy's are
    names = {
        type(d).__name__
        for d in dtypes(value)
        if not isinstance(d, np.dtype)
        and np.dtype(getattr(d, "numpy_dtype", getattr(d, "subtype", object))).kind in "iu"
    }
    if not names:
        return None
    return "arrow" if "ArrowDtype" in names else "sparse" if "SparseDtype" in names else "nullable"


def filled(value: Any) -> Any:
    """A pandas object of a type that is not numpy's (nullable, Arrow's,
    sparse) as its numpy type, its NA as 1 (a value every function takes),
    labels kept, so that both backends answer it alike (`in_kind` makes the
    answer of the input's kind); others as they are. Exact at any size:
    never through float."""
    if extension(value) is None:
        return value
    if _is_frame(value):
        return value.apply(filled)
    dtype = getattr(value.dtype, "numpy_dtype", getattr(value.dtype, "subtype", None))
    if not isinstance(dtype, np.dtype) or dtype.kind not in "iu":
        return value  # refused by its type, as without NA
    data = value.to_numpy(dtype=dtype, na_value=1)
    import pandas as pd

    if isinstance(value, pd.Index):
        return pd.Index(data, name=value.name)
    return pd.Series(data, index=value.index, name=value.name)


# -- out: the answers in the kind of the first labelled argument -----------------


def check_same_labels(where: str, first_name: str, first: Any, name: str, other: Any) -> None:
    if library(first) != library(other):
        raise TypeError(f"{where}: {first_name} and {name} are a pandas and an xarray object")
    if library(first) == "pandas":
        same = _index(first).equals(_index(other))
    else:
        import xarray as xr

        try:
            xr.align(first, other, join="exact", copy=False)
            same = True
        except ValueError:
            same = False
    if not same:
        raise ValueError(
            f"{where}: {first_name} and {name} have different labels; align them first "
            "(pandas: x, y = x.align(y); xarray: xarray.align(x, y))"
        )


def _index(value: Any) -> Any:
    import pandas as pd

    return value if isinstance(value, pd.Index) else value.index


def union(holes: list[NDArray[np.bool_] | None], positions: bool) -> Any:
    """Where an answer is missing: where any argument is (broadcast); for
    functions of positions, a row with a missing pile."""
    present = [h for h in holes if h is not None]
    if not present:
        return None
    if positions:
        present = [np.asarray(h.any(axis=-1) if h.ndim > 1 else h) for h in present]
    return np.logical_or.reduce(np.broadcast_arrays(*present))


def nullable(dtype: Any) -> str:
    """pandas' nullable type for a numpy bool or integer dtype ("boolean", "UInt8", "Int64")."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return "boolean"
    return f"{'U' if dtype.kind == 'u' else ''}Int{8 * dtype.itemsize}"


def mark_missing(result: Any, hole: NDArray[np.bool_] | None) -> Any:
    """A pandas answer with NA where hole is True (bools as "boolean", integers
    as pandas' nullable integers of their width, text as None)."""
    if hole is None or library(result) != "pandas":
        return result
    import pandas as pd

    if isinstance(result, pd.DataFrame):
        if hole.shape == result.shape:  # elementwise: each cell its own
            columns = {c: mark_missing(result[c], hole[:, j]) for j, c in enumerate(result)}
        else:  # a row per position (or per value, as digits gives them)
            columns = {c: mark_missing(result[c], hole) for c in result}
        return pd.DataFrame(columns, index=result.index)
    dtype = result.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "biu":
        result = result.astype(nullable(dtype))
    elif isinstance(dtype, np.dtype):
        result = result.astype(object)
    if isinstance(result, pd.Index):
        return pd.Index(result.to_series().mask(hole, pd.NA), name=result.name)
    return result.mask(hole, pd.NA)


def in_kind(result: Any, like: Any, hole: NDArray[np.bool_] | None) -> Any:
    """A pandas answer in the kind of the pandas value it answers (`like`):
    for Arrow's types (int64[pyarrow]) Arrow's (uint64[pyarrow],
    bool[pyarrow]), for a sparse one sparse, for pandas' nullable types
    theirs (UInt64, boolean), else numpy's; NA where `hole` (`mark_missing`).
    The one rule for both backends, and for every function."""
    result = mark_missing(result, hole)
    kind = extension(like)
    if kind is None or library(result) != "pandas":
        return result
    import pandas as pd

    if isinstance(result, pd.DataFrame):
        return pd.DataFrame({c: _of_kind(result[c], kind) for c in result}, index=result.index)
    return _of_kind(result, kind)


def _of_kind(result: Any, kind: str) -> Any:
    import pandas as pd

    dtype = getattr(result.dtype, "numpy_dtype", result.dtype)
    if not isinstance(dtype, np.dtype) or dtype.kind not in "biu":
        return result  # exact Python ints, text: as they are
    if kind == "arrow":
        import pyarrow as pa

        return result.astype(pd.ArrowDtype(pa.from_numpy_dtype(dtype)))
    if kind == "sparse":
        return result.astype(pd.SparseDtype(dtype))
    return result.astype(nullable(dtype))


def _relabel(result: Any, like: Any, name: Any, positions: bool) -> Any:
    if not hasattr(result, "shape") or not result.shape:
        return result  # a scalar answer stays a scalar
    if library(like) == "pandas":
        return _as_pandas(result, like, name, positions)
    return _as_xarray(result, like, name, positions)


def _as_pandas(result: Any, like: Any, name: Any, positions: bool) -> Any:
    import pandas as pd

    if isinstance(like, pd.DataFrame):
        if result.shape == like.shape and not positions:
            return pd.DataFrame(result, index=like.index, columns=like.columns, copy=False)
        if positions and result.shape == like.shape[:1]:
            return pd.Series(result, index=like.index, copy=False)
        return result
    index = _index(like)
    if result.shape == (len(index),):
        if isinstance(like, pd.Index):
            return pd.Index(result, name=name, copy=False)
        return pd.Series(result, index=index, name=name, copy=False)
    if result.ndim == 2 and len(result) == len(index):  # digits: a column per digit
        return pd.DataFrame(result, index=index, copy=False)
    return result


def _as_xarray(result: Any, like: Any, name: Any, positions: bool) -> Any:
    import xarray as xr

    labelled = None
    if positions and result.shape == like.shape[:-1]:
        labelled = like.isel({like.dims[-1]: 0}, drop=True).copy(data=result)
    elif result.shape == like.shape:
        labelled = like.copy(data=result)
    if labelled is not None:
        labelled.name = name
        return labelled
    if result.ndim == like.ndim + 1 and result.shape[:-1] == like.shape:
        return xr.DataArray(
            result,
            coords=like.coords,
            dims=(*like.dims, "digit"),
            name=name,
            attrs=like.attrs,
        )
    return result


def rows(result: Any, like: Any) -> Any:
    """classify's answers (N, 1 + k) for a DataFrame or DataArray of N positions:
    columns is_p, move_1 .. move_k, on its index (or its first dimension). In
    pandas, is_p is bool and the moves nullable integers (Int64, <NA> where
    there is none); a DataArray holds one type, int64 as numpy's."""
    columns = list(answer_names(result.shape[1] - 1))
    if library(like) == "pandas":
        import pandas as pd

        answers: dict[str, Any] = {"is_p": result[:, 0] == 1}
        for j, name in enumerate(columns[1:], start=1):
            move = np.ascontiguousarray(result[:, j])
            answers[name] = pd.arrays.IntegerArray(move, move < 0)
        return pd.DataFrame(answers, index=_index(like), copy=False)
    import xarray as xr

    first = like.dims[0]
    coords = {name: c for name, c in like.coords.items() if c.dims == (first,)}
    return xr.DataArray(result, dims=(first, "column"), coords={**coords, "column": columns})


# -- the public functions: each call through this seam --------------------------


def elementwise(function: Function) -> Function:
    """Let function take dask arrays among its arguments (see the module)."""
    return _lazy(function, positions=False)


def of_positions(function: Function) -> Function:
    """As elementwise, for a function whose first argument is positions
    (..., k): its last axis is kept whole and dropped from the results."""
    return _lazy(function, positions=True)


def with_last_axis(length: Callable[..., int]) -> Callable[[Function], Function]:
    """As elementwise, for a function whose result has a last axis of its own,
    `length(*args, **kwargs)` long (it must be known before any block is read)."""
    return lambda function: _lazy(function, positions=False, last_axis=length)


def _lazy(
    function: Function, positions: bool, last_axis: Callable[..., int] | None = None
) -> Function:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        # the common case, decided in a blink (no Python-level loop)
        if _PLAIN.issuperset(map(type, args)) and _PLAIN.issuperset(map(type, kwargs.values())):
            return function(*args, **kwargs)
        libraries = {library(value) for value in (*args, *kwargs.values())}
        if "dask" in libraries:
            axis = None if last_axis is None else last_axis(*args, **kwargs)
            # the wrapper again on each block or partition: a pandas partition's
            # answers keep its index and name its labels, as pandas' own would
            return map_blocks(wrapper, args, kwargs, positions, axis)
        if any(map(is_labelled, (*args, *kwargs.values()))):
            # their values go through wrapper again
            return call(wrapper, args, kwargs, positions)
        return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def call(
    function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], positions: bool
) -> Any:
    """function on the values of its labelled arguments, its results labelled
    like the first of them (unless out= was given: then out is the answer)."""
    where = function.__name__
    parameters = list(inspect.signature(function).parameters)
    named = [*zip(parameters, args, strict=False), *kwargs.items()]  # no *args here
    labelled = [(name, v) for name, v in named if is_labelled(v)]
    like_name, like = labelled[0]
    for name, other in labelled:
        check_same_labels(where, like_name, like, name, other)
    # NA in, NA out (as pandas' own ufuncs): computed on 1 there, which every
    # function takes, and marked missing in the answers
    holes = [missing(v) for _, v in labelled]
    args = tuple(filled(v) for v in args)
    kwargs = {k: filled(v) for k, v in kwargs.items()}
    with labels({name: places(v) for name, v in labelled}):
        result = function(*map(values, args), **{k: values(v) for k, v in kwargs.items()})
    if kwargs.get("out") is not None:
        return result
    # a name shared by every labelled argument is kept (as pandas and xarray do)
    names = {None if _is_frame(v) else v.name for _, v in labelled}
    shared = names.pop() if len(names) == 1 else None
    hole = union(holes, positions)
    if isinstance(result, tuple):
        return tuple(in_kind(_relabel(r, like, shared, positions), like, hole) for r in result)
    return in_kind(_relabel(result, like, shared, positions), like, hole)


def map_blocks(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    positions: bool = False,
    last_axis: int | None = None,
) -> Any:
    """function over the blocks of its dask (and numpy) array arguments, lazily;
    each block's errors name their index in the whole array."""
    import dask.array as da

    if kwargs.get("out") is not None:
        raise TypeError(f"{function.__name__}: out= does not go with dask arrays (they are lazy)")
    if any(hasattr(v, "map_partitions") for v in (*args, *kwargs.values())):
        return _on_partitions(function, args, kwargs)
    if positions:
        if any(is_dask(v) or isinstance(v, np.ndarray) for v in (*args[1:], *kwargs.values())):
            raise TypeError(
                f"{function.__name__}: with dask positions, the other arguments must be numbers"
            )
        piles = da.asarray(args[0])
        piles = piles.rechunk({piles.ndim - 1: -1})  # each position whole in one block

        def on_positions(block: np.ndarray, block_info: Any = None) -> Any:
            with index_offset(_start(block_info)), _threads.limited(1):
                return _stacked(function(block, *args[1:], **kwargs))

        empty = np.zeros((0,) * (piles.ndim - 1) + piles.shape[-1:], dtype=piles.dtype)
        return _map(on_positions, [piles], [empty], drop=piles.ndim - 1)
    names = [n for n, v in kwargs.items() if is_dask(v) or isinstance(v, np.ndarray)]
    constants = {n: v for n, v in kwargs.items() if n not in names}
    arrays = da.broadcast_arrays(*(da.asarray(a) for a in (*args, *(kwargs[n] for n in names))))
    indices = [(a, tuple(range(a.ndim))) for a in arrays]
    arrays = list(da.core.unify_chunks(*(x for pair in indices for x in pair))[1])
    count = len(args)

    def on_blocks(*blocks: np.ndarray, block_info: Any = None) -> Any:
        named = dict(zip(names, blocks[count:], strict=True))
        with index_offset(_start(block_info)), _threads.limited(1):
            return _stacked(function(*blocks[:count], **named, **constants))

    empties = [np.zeros((0,) * a.ndim, dtype=a.dtype) for a in arrays]
    return _map(on_blocks, arrays, empties, drop=None, last_axis=last_axis)


def _on_partitions(
    function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """function over the partitions of dask DataFrame objects (a Series, a
    DataFrame of positions), lazily: each partition is a pandas object, whose
    answers keep its index and whose errors name its labels (`call`).
    A function of several answers gives a tuple of dask Series."""
    import dask.dataframe as dd

    def native(value: Any) -> Any:
        return value._meta if hasattr(value, "map_partitions") else value

    samples = [native(v) for v in args], {k: native(v) for k, v in kwargs.items()}
    sample = function(*samples[0], **samples[1])
    if not isinstance(sample, tuple):
        return dd.map_partitions(on_partitions(function), *args, **kwargs, meta=sample)

    def framed(*parts: Any, **named: Any) -> Any:
        import pandas as pd

        return pd.concat(function(*parts, **named), axis=1, keys=range(len(sample)))

    meta = framed(*samples[0], **samples[1])
    frame = dd.map_partitions(on_partitions(framed), *args, **kwargs, meta=meta)
    return tuple(frame[i].rename(answer.name) for i, answer in enumerate(sample))


def _start(block_info: Any) -> tuple[int, ...]:
    """Where a block starts in its array (block_info of map_blocks; () for the
    empty sample blocks)."""
    if not block_info or 0 not in block_info:
        return ()
    return tuple(start for start, _ in block_info[0]["array-location"])


def _stacked(result: Any) -> np.ndarray:
    """A tuple of arrays as one array with a new leading axis, for map_blocks."""
    return np.stack(result) if isinstance(result, tuple) else np.asarray(result)


def _map(
    call: Callable[..., np.ndarray],
    arrays: list[Any],
    empties: list[Any],
    drop: int | None,
    last_axis: int | None = None,
) -> Any:
    """map_blocks of call over arrays with equal chunks (one axis dropped if
    drop is not None, one of last_axis elements added at the end if that is
    not None); its dtype, and whether it gives a tuple, found on empty blocks."""
    import dask.array as da

    sample = call(*empties)
    chunks = [c for axis, c in enumerate(arrays[0].chunks) if axis != drop]
    dropped = [] if drop is None else [drop]
    if last_axis is not None:
        return da.map_blocks(
            call,
            *arrays,
            dtype=sample.dtype,
            new_axis=[len(chunks)],
            chunks=(*chunks, (last_axis,)),
        )
    if sample.ndim == len(chunks):
        return da.map_blocks(call, *arrays, dtype=sample.dtype, drop_axis=dropped, chunks=chunks)
    parts = sample.shape[0]
    stacked = da.map_blocks(
        call,
        *arrays,
        dtype=sample.dtype,
        drop_axis=dropped,
        new_axis=[0],
        chunks=((parts,), *chunks),
    )
    return tuple(stacked[i] for i in range(parts))


# -- classify: positions of every kind --------------------------------------------


def classify(
    positions: Any,
    rules: Any,
    columns: Sequence[Any] | str | None,
    out: Any,
    solve: Callable[..., Any],
) -> Any:
    """classify(positions, rules.name, columns=columns, out=out) for positions
    of any kind: taken apart here, solved as a numpy array by `solve(array,
    out)`, and the answers built in positions' own kind (see the module)."""
    if is_dask(positions) and out is not None:
        kind = type(positions).__name__
        raise TypeError(f"classify: out= does not go with a dask {kind} (the result is lazy)")
    if is_dask_frame(positions):
        piles = pile_names(positions.columns, columns, rules)
        _check_free(positions.columns, len(piles))
        meta = _classify_pandas(positions._meta, piles, solve)
        return positions.map_partitions(
            on_partitions(_classify_pandas),
            piles=piles,
            solve=solve,
            meta=meta,
            align_dataframes=False,
        )
    if is_table(positions):
        return _classify_table(positions, rules, columns, out, solve)
    if library(positions) == "pandas" and positions.ndim == 2:
        if columns is None:
            rules.check_named(list(positions.columns), "classify", "columns=")
            return _classify_labelled(positions, out, solve)
        piles = pile_names(positions.columns, columns, rules)
        if out is not None:
            return _classify_labelled(positions[piles], out, solve)
        _check_free(positions.columns, len(piles))
        return _classify_pandas(positions, piles, solve)
    if columns is not None:
        raise TypeError(
            "classify: columns= chooses the piles of a table or a 2-d numpy array, "
            f"not of {type(positions).__name__}"
        )
    if is_labelled(positions):
        return _classify_labelled(positions, out, solve)
    if is_dask(positions):
        return _classify_blocks(positions, solve)
    return solve(positions, out)


def _classify_pandas(frame: Any, piles: list[Any], solve: Callable[..., Any]) -> Any:
    """A DataFrame with the answers of its pile columns after its own."""
    return frame.join(_classify_labelled(frame[piles], None, solve))


def _classify_labelled(positions: Any, out: Any, solve: Callable[..., Any]) -> Any:
    """A pandas or xarray object's answers on its labels; a row with a missing
    pile (NA) gets NA answers."""
    with labels({"positions": places(positions)}):
        if out is not None:
            return solve(values(positions, "classify", "positions"), out)
        hole = union([missing(positions)], positions=True)
        whole = filled(positions)
        result = solve(values(whole), None)
    return mark_missing(rows(result, whole), hole)


def _classify_blocks(positions: Any, solve: Callable[..., Any]) -> Any:
    """A dask array (N, k) classified lazily, block by block along the rows."""
    import dask.array as da

    piles = da.asarray(positions).rechunk({1: -1})

    def on_rows(block: np.ndarray, block_info: Any = None) -> Any:
        with index_offset(_start(block_info)):
            return solve(block, None)

    return da.map_blocks(
        on_rows, piles, dtype=np.int64, chunks=(piles.chunks[0], (1 + piles.shape[1],))
    )


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


def _check_free(names: Sequence[Any], piles: int) -> None:
    if taken := set(names) & set(answer_names(piles)):
        raise ValueError(
            f"classify: the table has a column named {sorted(taken)[0]!r}, as one of the "
            "answers' columns is; rename it"
        )


def _classify_table(
    table: Any,
    rules: Any,
    columns: Sequence[Any] | str | None,
    out: Any,
    solve: Callable[..., Any],
) -> Any:
    """classify of a table that narwhals reads: the table back, of its own
    kind, with is_p (boolean) and move_1 .. move_k (int64, null where there
    is no move) after its columns; a row with a null pile gets null answers.
    With out=, the answers' int64 array in out, as for an array. A LazyFrame
    is collected, and its answers handed back as a LazyFrame."""
    import narwhals as nw

    batch = library(table) == "pyarrow" and type(table).__name__ == "RecordBatch"
    if batch:
        import pyarrow as pa

        table = pa.Table.from_batches([table])
    frame = nw.from_native(table)
    lazy = isinstance(frame, nw.LazyFrame)
    if lazy:
        frame = frame.collect()
    piles = pile_names(frame.columns, columns, rules)
    hole = np.zeros(len(frame), dtype=bool)
    columns_read = []
    for j, name in enumerate(piles):
        series = frame[name]
        if not series.dtype.is_integer():
            raise TypeError(
                f"classify: column {name!r} (pile {j}) holds {series.dtype}, not integers"
            )
        if series.null_count():
            hole |= series.is_null().to_numpy()
            series = series.fill_null(1)  # answered, then marked null
        columns_read.append(_exact(series.to_numpy(), j, name))
    positions = (
        np.column_stack(columns_read) if columns_read else np.empty((len(frame), 0), np.int64)
    )
    if out is not None:
        if hole.any():
            row = int(np.argmax(hole))
            raise ValueError(
                f"classify: row {row} has a missing pile (null), which out= cannot hold"
            )
        return solve(positions, out)
    _check_free(frame.columns, len(piles))
    result = solve(positions, None)
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
    return pa.Table.from_arrays(arrays, names=list(answer_names(k)))
