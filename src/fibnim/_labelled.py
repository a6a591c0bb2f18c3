"""pandas and xarray objects in, the same type out, labels kept.

The public array functions whose results have a shape of their own
(fibnim._declarations.SHAPED: digits, strings, positions, classify), called
with a pandas Series, DataFrame or Index, or an xarray DataArray, compute on
its values (no copy where they are already a numpy array of integers) and
hand the results back in the type of the first such argument: a Series keeps
its index and name, a DataFrame its index and columns, a DataArray its
dimensions, coordinates, name and attributes. Functions of positions (a
DataFrame of piles, one position per row; a DataArray whose last dimension
holds the piles) give one result per position: a Series on the frame's
index, or the DataArray without its last dimension. Results with a trailing
axis of their own (`digits`) come back as a DataFrame on the Series' index,
or a DataArray with a new last dimension, "digit". The elementwise functions
are numpy ufuncs and reach pandas and xarray through numpy's protocol
(fibnim._ufunc), which gives a plain ndarray for a generalized ufunc of a
DataFrame and which xarray refuses for one.

Labelled arguments must share their labels: pandas would align two Series on
the union of their indexes, where fibnim refuses (align them first) rather than
compute on positions that do not belong together. Neither library is imported
unless one of its objects is passed in.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fibnim._apply import INT64_MAX
from fibnim._checks import labels

LIBRARIES = frozenset({"pandas", "xarray"})


def library(value: Any) -> str:
    """The top-level package that value's type comes from ("numpy", "pandas", ...)."""
    return type(value).__module__.partition(".")[0]


def is_labelled(value: Any) -> bool:
    """Whether value is a pandas or xarray container (a Series, a DataFrame,
    an Index, a DataArray), not one of their scalars (pd.NA, a Timestamp)."""
    return library(value) in LIBRARIES and hasattr(value, "ndim")


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
        return tuple(mark_missing(_relabel(r, like, shared, positions), hole) for r in result)
    return mark_missing(_relabel(result, like, shared, positions), hole)


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
                if kind == "column" or not _counts_from_0(axis)
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
        wanted = {getattr(d, "numpy_dtype", d) for d in _dtypes(value)}
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


def missing(value: Any) -> NDArray[np.bool_] | None:
    """Where a pandas object of a nullable type (Int64, int64[pyarrow]) holds NA,
    in its shape; None where it holds none (and for every other kind)."""
    if not is_labelled(value) or library(value) != "pandas":
        return None
    if all(isinstance(d, np.dtype) for d in _dtypes(value)):
        return None
    hole = np.asarray(value.isna()).reshape(value.shape)
    return hole if hole.any() else None


def filled(value: Any) -> Any:
    """A pandas object of a nullable type with its NA as 1 (a value every function
    takes), as its numpy type, labels kept; others as they are. Exact at any
    size: never through float."""
    if missing(value) is None:
        return value
    if _is_frame(value):
        return value.apply(filled)
    dtype = getattr(value.dtype, "numpy_dtype", None)
    if not isinstance(dtype, np.dtype) or dtype.kind not in "iu":
        return value  # refused by its type, as without NA
    data = value.to_numpy(dtype=dtype, na_value=1)
    import pandas as pd

    if isinstance(value, pd.Index):
        return pd.Index(data, name=value.name)
    return pd.Series(data, index=value.index, name=value.name)


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


def _is_frame(value: Any) -> bool:
    return library(value) == "pandas" and value.ndim == 2


def _dtypes(value: Any) -> list[Any]:
    """The dtypes of a pandas object: one, or a DataFrame's columns'."""
    return list(value.dtypes) if _is_frame(value) else [value.dtype]


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
    columns = ["is_p", *(f"move_{j + 1}" for j in range(result.shape[1] - 1))]
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
