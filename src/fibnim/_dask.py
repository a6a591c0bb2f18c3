"""dask arrays in, lazy dask arrays out: the public functions mapped over blocks.

The decorators here are where every public array function meets other array
types: dask arrays here, pandas and xarray objects in `fibnim._labelled`.

dask is optional (`pip install fibnim[dask]`); nothing here imports it unless
a dask array is passed in. A function wrapped by `elementwise` broadcasts its
dask (and numpy) array arguments together and runs block by block, so nothing
is materialized before `.compute()`; one that returns a tuple gives a tuple of
dask arrays. Functions of positions (..., k) keep the last axis whole.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from fibnim import _labelled
from fibnim._checks import index_offset

Function = TypeVar("Function", bound=Callable[..., Any])


# types that are none of dask's, pandas' or xarray's
_PLAIN = frozenset({int, bool, float, str, list, tuple, type(None), np.ndarray})


def is_dask(value: Any) -> bool:
    """Whether value is a dask collection (checked without importing dask)."""
    return _labelled.library(value) == "dask"


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
        libraries = {_labelled.library(value) for value in (*args, *kwargs.values())}
        if "dask" in libraries:
            axis = None if last_axis is None else last_axis(*args, **kwargs)
            # the wrapper again on each block or partition: a pandas partition's
            # answers keep its index and name its labels, as pandas' own would
            return map_blocks(wrapper, args, kwargs, positions, axis)
        if any(map(_labelled.is_labelled, (*args, *kwargs.values()))):
            # their values go through wrapper again
            return _labelled.call(wrapper, args, kwargs, positions)
        return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


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
            with index_offset(_start(block_info)):
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
        with index_offset(_start(block_info)):
            return _stacked(function(*blocks[:count], **named, **constants))

    empties = [np.zeros((0,) * a.ndim, dtype=a.dtype) for a in arrays]
    return _map(on_blocks, arrays, empties, drop=None, last_axis=last_axis)


def _on_partitions(
    function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """function over the partitions of dask DataFrame objects (a Series, a
    DataFrame of positions), lazily: each partition is a pandas object, whose
    answers keep its index and whose errors name its labels (`_labelled`).
    A function of several answers gives a tuple of dask Series."""
    import dask.dataframe as dd

    def native(value: Any) -> Any:
        return value._meta if hasattr(value, "map_partitions") else value

    samples = [native(v) for v in args], {k: native(v) for k, v in kwargs.items()}
    sample = function(*samples[0], **samples[1])
    if not isinstance(sample, tuple):
        return dd.map_partitions(function, *args, **kwargs, meta=sample)

    def framed(*parts: Any, **named: Any) -> Any:
        import pandas as pd

        return pd.concat(function(*parts, **named), axis=1, keys=range(len(sample)))

    frame = dd.map_partitions(framed, *args, **kwargs, meta=framed(*samples[0], **samples[1]))
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


def classify_blocks(classify: Callable[..., Any], positions: Any, game: str, bound: Any) -> Any:
    """classify over a dask array (N, k), block by block along the rows."""
    import dask.array as da

    rows = da.asarray(positions).rechunk({1: -1})
    k = rows.shape[1]

    def on_rows(block: np.ndarray, block_info: Any = None) -> Any:
        with index_offset(_start(block_info)):
            return classify(block, game, bound)

    return da.map_blocks(
        on_rows,
        rows,
        dtype=np.int64,
        chunks=(rows.chunks[0], (1 + k,)),
    )
