"""Running kernels over arguments: scalars, integer arrays, object arrays.

`apply` is the shape every public function shares: scalars go to the exact
Python-int function; integer arrays are broadcast, checked and converted one
chunk at a time (so no temporary grows with the input) and handed to the
active backend's kernel as native, C-contiguous uint64; object arrays go,
element by element, to the exact function again.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeAlias, TypeVar

import numpy as np
from numpy.typing import DTypeLike, NDArray

from fibnim import _threads
from fibnim._checks import (
    NONNEGATIVE,
    Bound,
    Test,
    check_chunk,
    check_int,
    element_index,
    index_text,
    integers,
    own_index,
    refuse,
)

CHUNK = 1 << 16  # elements per kernel call: a chunk and its outputs stay in L2

INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1

#: what a scalar argument is: its answer is a Python int or bool, exact at any size
Int: TypeAlias = int | np.integer[Any]

Scalar = TypeVar("Scalar", bound=np.generic)
#: what out= takes for a function of one result: an array, or a tuple of one
Out: TypeAlias = NDArray[Scalar] | tuple[NDArray[Scalar]]


def _chunks(values: np.ndarray, core: int) -> Iterator[np.ndarray]:
    """Chunks of values in C order, rows of `core` elements when core > 0 (a
    trailing axis kept whole); copies only one chunk at a time, or, for a
    strided array with a core axis, the array once."""
    count = values.size // max(core, 1)
    if not core and count and not any(values.strides):
        # one value broadcast (a scalar bound, say): one constant chunk, sliced
        constant = np.full(min(CHUNK, count), values.flat[0], dtype=values.dtype)
        for start in range(0, count, CHUNK):
            yield constant[: min(CHUNK, count - start)]
        return
    flat: Any
    if core:
        flat = values.reshape(-1, core)
    else:
        flat = values.reshape(-1) if values.flags.c_contiguous else values.flat
    for start in range(0, count, CHUNK):
        yield flat[start : start + CHUNK]


def kernel_input(chunk: np.ndarray) -> np.ndarray:
    """A chunk as the native, aligned, C-contiguous uint64 a kernel reads: a view of
    it when it is such int64 or uint64 already (the kernel checks each value as it
    reads it, so memory that others write is safe), otherwise a private converted
    copy (signed values through int64, so that a negative one stays one; C reads
    no unaligned uint64)."""
    kind, flags = chunk.dtype.kind, chunk.flags
    plain = chunk.dtype.isnative and chunk.dtype.itemsize == 8 and flags.aligned
    if kind in "iu" and plain and flags.c_contiguous:
        return chunk.view(np.uint64)
    wide = np.int64 if kind == "i" else np.uint64
    return np.array(chunk, dtype=wide, order="C").view(np.uint64)


def result_array(
    shape: tuple[int, ...],
    dtype: DTypeLike,
    out: np.ndarray | None,
    where: str,
    zeroed: bool = False,
) -> np.ndarray:
    """A new result array (of zeros where a mask may leave some unwritten), or
    `out` once its shape and dtype are checked."""
    if out is None:
        return np.zeros(shape, dtype=dtype) if zeroed else np.empty(shape, dtype=dtype)
    if not isinstance(out, np.ndarray) or isinstance(out, np.ma.MaskedArray):
        raise TypeError(f"{where}: out must be a numpy array, not {type(out).__name__}")
    if out.shape != shape or out.dtype != np.dtype(dtype):
        raise ValueError(
            f"{where}: out must have shape {shape} and dtype {np.dtype(dtype)}, "
            f"not shape {out.shape} and dtype {out.dtype}"
        )
    if not out.flags.writeable:
        raise ValueError(f"{where}: out is read-only")
    return out


def result_arrays(
    shape: tuple[int, ...],
    dtypes: Sequence[DTypeLike],
    outs: Sequence[Any] | None,
    where: str,
    zeroed: bool = False,
) -> list[np.ndarray]:
    """result_array for each dtype, with its out where outs are given."""
    wanted = outs if outs is not None else [None] * len(dtypes)
    return [result_array(shape, d, o, where, zeroed) for d, o in zip(dtypes, wanted, strict=True)]


def finished(results: list[np.ndarray], outs: Sequence[Any] | None, ndim: int) -> list[Any]:
    """The results as a call returns them: the outs themselves where given (as
    numpy's out= does), otherwise 0-d results as scalars (see finish)."""
    return results if outs is not None else [finish(r, ndim) for r in results]


def outs_of(out: Any, count: int, where: str) -> list[Any] | None:
    """numpy's out= convention: an array, or a tuple of one, for one result; a
    tuple for several."""
    if out is None:
        return None
    outs = [out] if count == 1 and not isinstance(out, tuple) else list(out)
    if len(outs) != count:
        raise ValueError(f"{where}: out must hold {count} arrays, not {len(outs)}")
    return outs


def overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether a and b share memory (when that is too hard to decide: yes)."""
    if not np.may_share_memory(a, b):
        return False
    try:
        return bool(np.shares_memory(a, b, max_work=1000))  # type: ignore[arg-type]
    except np.exceptions.TooHardError:
        return True


def _targets(
    outs: Sequence[np.ndarray],
    ndim: int,
    inputs: Sequence[np.ndarray],
    where: str,
    masked: bool = False,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(targets, rows): C-contiguous arrays to fill (each out itself, unless it is
    not C-contiguous, not aligned, or shares memory with an input, as numpy's ufuncs decide;
    then a copy of it when a mask leaves some of it as it was), and views of
    them with one row per input element (the first `ndim` axes flattened). Outs
    that share memory with each other are refused."""
    for i, out in enumerate(outs):
        for j in range(i):
            if overlap(out, outs[j]):
                raise ValueError(f"{where}: out[{j}] and out[{i}] share memory")
    targets = [
        out
        if out.flags.c_contiguous
        and out.flags.aligned
        and not any(overlap(out, a) for a in inputs)
        else np.array(out, order="C")
        if masked
        else np.empty(out.shape, dtype=out.dtype)
        for out in outs
    ]
    return targets, [t.reshape((-1, *t.shape[ndim:])) for t in targets]


def _copy_back(targets: Sequence[np.ndarray], outs: Sequence[np.ndarray]) -> None:
    for target, out in zip(targets, outs, strict=True):
        if target is not out:
            out[...] = target


def _limit(high: Bound | None, inputs: Sequence[np.ndarray]) -> int:
    """The bound a kernel checks: the high one, and for signed input at most
    2**63 - 1, so that a negative value, seen as uint64, is above it."""
    limit = UINT64_MAX if high is None else min(high.limit, UINT64_MAX)
    signed = [a.dtype.kind == "i" for a in inputs]
    if not any(signed):
        return limit
    # a function of several arguments bounds them by 2**63 - 1, so that signed and
    # unsigned ones can share one limit
    assert all(signed) or limit <= INT64_MAX, "mixed signs need a bound <= 2**63 - 1"
    return min(limit, INT64_MAX)


def map_arrays(
    kernel: Callable[..., int],
    inputs: Sequence[np.ndarray],
    names: Sequence[str],
    outs: Sequence[np.ndarray],
    where: str,
    low: Bound | None = NONNEGATIVE,
    high: Bound | None = None,
    extra: tuple[tuple[Test, Bound], ...] = (),
    options: tuple[Any, ...] = (),
    result_check: tuple[Callable[[int], bool], Bound] | None = None,
    core: Sequence[int] | None = None,
    mask: np.ndarray | None = None,
    checking: Sequence[DTypeLike] = (),
) -> None:
    """Run `kernel(*chunks, *out_chunks, *options, limit)` over integer arrays.

    `checking` (the outputs' dtypes, with `outs` empty) runs it for its checks
    alone: each chunk's answers go to scratch space of a chunk's size.

    The inputs are broadcast together; every out has the broadcast shape,
    possibly with trailing axes of its own (digits). An input with core[i] > 0
    keeps its last axis (of that length) whole: its chunks are 2-d rows. Bool
    results are handed to the kernel as uint8.

    The kernel checks every value as it reads it, against `limit` (see
    `_limit`) and its own rule (the `extra` tests), so that no value that
    another thread writes meanwhile is trusted and no separate pass of checks
    is needed. It returns the chunk index of the first bad value, or -1; then
    the checks run on that chunk to raise the error they name. A kernel whose
    answer may not fit its output stops there too: `result_check` (a test of
    the first input's value, and its bound) says why.

    A bool `mask` (broadcast to the inputs' shape) limits all this to the
    elements where it is True, as numpy's where= does: the others are neither
    checked nor computed (the kernel reads 1 there, which every elementwise
    kernel takes, and its answers there are dropped), and the outs keep their
    values there.
    """
    cores = list(core) if core is not None else [0] * len(inputs)
    leading = [a.shape[: a.ndim - 1] if c else a.shape for a, c in zip(inputs, cores, strict=True)]
    shape = np.broadcast_shapes(*leading)
    spread = [
        a
        if a.shape == shape + ((c,) if c else ())
        else np.broadcast_to(a, shape + ((c,) if c else ()))
        for a, c in zip(inputs, cores, strict=True)
    ]
    targets, rows = _targets(outs, len(shape), inputs, where, mask is not None)
    if checking:
        rows = [np.empty(0, dtype=dtype) for dtype in checking]
    rows = [r.view(np.uint8) if r.dtype == np.bool_ else r for r in rows]
    limit = _limit(high, inputs)
    signs = [a.dtype.kind == "i" for a in inputs]
    keeps = None if mask is None else _chunks(np.broadcast_to(mask, shape), 0)

    def solve(
        start: int, chunks: tuple[np.ndarray, ...], keep: np.ndarray | None
    ) -> tuple[int, int, list[np.ndarray]]:
        """(start, the kernel's answer, its inputs) for one chunk, its answers written."""
        arguments = [kernel_input(chunk) for chunk in chunks]
        if keep is not None and keep.all():
            keep = None
        if keep is not None:
            assert not any(cores), "a mask goes with elementwise kernels"
            arguments = [np.where(keep, a, np.uint64(1)) for a in arguments]
        stop = start + len(chunks[0])
        written = [
            np.empty(stop - start, dtype=r.dtype)
            if checking
            else r[start:stop]
            if keep is None
            else np.empty_like(r[start:stop])
            for r in rows
        ]
        bad = kernel(*arguments, *written, *options, limit)
        if bad < 0 and keep is not None and not checking:
            for row, answer in zip(rows, written, strict=True):
                np.copyto(row[start:stop], answer, where=keep)
        return start, bad, arguments

    def tasks() -> Iterator[Callable[[], tuple[int, int, list[np.ndarray]]]]:
        start = 0
        for chunks in zip(
            *(_chunks(a, c) for a, c in zip(spread, cores, strict=True)), strict=True
        ):
            yield functools.partial(solve, start, chunks, None if keeps is None else next(keeps))
            start += len(chunks[0])

    # the chunks on threads (each writes rows of its own; targets share no
    # memory with the inputs), their answers looked at in order
    for start, bad, arguments in _threads.windowed(tasks(), _threads.for_size(math.prod(shape))):
        if bad < 0:
            continue
        # as the kernel read them: signed input seen as signed again
        seen = [a.view(np.int64) if s else a for a, s in zip(arguments, signs, strict=True)]
        for chunk, own, name, c in zip(seen, inputs, names, cores, strict=True):
            full = shape + ((c,) if c else ())
            first = start * max(c, 1)
            # raises, naming the value the kernel stopped at
            check_chunk(chunk, first, full, own.shape, where, name, low, high, extra)
        index = own_index(element_index(shape, start + bad), inputs[0].shape)
        if result_check is not None:
            value = int(seen[0].reshape(len(seen[0]), -1)[bad, 0])
            test, bound = result_check
            if test(value):
                raise refuse(where, names[0], index, value, bound)
        raise RuntimeError(
            f"{where}: {names[0]}{index_text(index, names[0])} (or another argument "
            "there) was out of range when read and is not now: the array changed while "
            "fibnim read it (nothing was computed from the changed value)"
        )
    _copy_back(targets, outs)


def map_objects(
    function: Callable[..., Any],
    inputs: Sequence[np.ndarray],
    names: Sequence[str],
    outs: Sequence[np.ndarray],
    where: str,
    low: Bound | None = NONNEGATIVE,
    high: Bound | None = None,
    extra: tuple[tuple[Test, Bound], ...] = (),
    mask: np.ndarray | None = None,
) -> None:
    """`function` on each checked tuple of Python ints of broadcast object arrays
    (where `mask` is True, when it is given: see map_arrays).

    One output: function returns its element (a row, for trailing axes). More:
    function returns a tuple. Object arrays hold exact ints of any size, so
    `high` is only for limits of the result's layout (a digit width).
    """
    shape = np.broadcast_shapes(*(a.shape for a in inputs))
    targets, rows = _targets(outs, len(shape), inputs, where, mask is not None)
    keep = None if mask is None else np.broadcast_to(mask, shape).reshape(-1)
    for flat, values in enumerate(np.broadcast(*inputs) if len(inputs) > 1 else inputs[0].flat):
        if keep is not None and not keep[flat]:
            continue
        values = values if len(inputs) > 1 else (values,)
        here = element_index(shape, flat)
        checked = [
            check_int(v, where, name, low, high, extra, own_index(here, own.shape))
            for v, own, name in zip(values, inputs, names, strict=True)
        ]
        result = function(*checked)
        if len(rows) == 1:
            rows[0][flat] = result
        else:
            for row, value in zip(rows, result, strict=True):
                row[flat] = value
    _copy_back(targets, outs)


def as_array(value: int | np.ndarray) -> np.ndarray:
    """A scalar among arrays, as the smallest fitting 0-d array (object beyond uint64)."""
    if isinstance(value, np.ndarray):
        return value
    if -INT64_MAX - 1 <= value <= INT64_MAX:
        return np.asarray(value, dtype=np.int64)
    return np.asarray(value, dtype=np.uint64 if 0 <= value <= UINT64_MAX else object)


def deliver(answer: Any, outs: Sequence[np.ndarray] | None, where: str) -> Any:
    """answer (an array, or a tuple of them) as numpy's out= gives it: put into
    outs, once their shapes and dtypes are checked, which are returned."""
    if outs is None:
        return answer
    answers = answer if isinstance(answer, tuple) else (answer,)
    for value, out in zip(answers, outs, strict=True):
        value = np.asarray(value)
        result_array(value.shape, value.dtype, out, where)[...] = value
    return outs[0] if len(outs) == 1 else tuple(outs)


def position_array(values: list[int] | np.ndarray) -> np.ndarray:
    """One position, given as a list of checked ints, as an array of its piles
    (int64, or exact Python ints where one does not fit)."""
    if isinstance(values, np.ndarray):
        return values
    fits = all(-INT64_MAX - 1 <= v <= INT64_MAX for v in values)
    return np.array(values, dtype=np.int64 if fits else object)


def finish(result: np.ndarray, ndim: int) -> Any:
    """0-d in, scalar out, as numpy ufuncs do; otherwise the array."""
    return result[()] if ndim == 0 else result


def _mask(mask: Any, shape: tuple[int, ...], where: str) -> np.ndarray:
    """where= as a bool array of the inputs' broadcast shape (nonzero values are
    True, as numpy's ufuncs read it)."""
    try:
        array = np.asarray(mask, dtype=bool)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: where must be bools, not {np.asarray(mask).dtype}") from None
    try:
        return np.broadcast_to(array, shape)
    except ValueError:
        raise ValueError(
            f"{where}: where has shape {array.shape}, which does not broadcast to the "
            f"inputs' shape {shape}"
        ) from None


def apply(
    where: str,
    arguments: Sequence[tuple[Any, str]],
    exact: Callable[..., Any],
    kernel: Callable[..., Any],
    dtypes: Sequence[DTypeLike],
    *,
    low: Bound | None = NONNEGATIVE,
    high: Bound | None = None,
    extra: tuple[tuple[Test, Bound], ...] = (),
    options: tuple[Any, ...] = (),
    result_check: tuple[Callable[[int], bool], Bound] | None = None,
    outs: Sequence[np.ndarray | None] | None = None,
    element: Callable[..., Any] | None = None,
    exact_high: Bound | None = None,
    mask: Any = True,
    check_only: bool = False,
) -> Any:
    """One public call: `arguments` are (value, name) pairs.

    All scalars: `exact(*ints)`, exact for any size up to `exact_high` (the
    limit that keeps the work bounded, where the size of the answer grows with
    the value). Otherwise arrays of the broadcast shape, one per dtype: from
    `kernel` for integer arrays (checked against low, high and extra; high
    only applies to fixed-width arrays), or from `element` (default `exact`)
    per element when any argument is an object array, with object results
    where the dtype is an integer one. `mask` is numpy's where=: the elements
    where it is False are neither checked nor computed, and keep the value of
    out there (0 without out). `check_only`: the checks of integer arrays
    alone, in chunks (nothing is returned; an object array is answered).
    """
    values = [integers(value, where, name) for value, name in arguments]
    names = [name for _, name in arguments]
    scalars = [v for v in values if isinstance(v, int)]
    masked = mask is not True
    if outs is None and not masked and len(scalars) == len(values):
        for v, name in zip(scalars, names, strict=True):
            check_int(v, where, name, low, exact_high, extra)
        return exact(*scalars)
    arrays = [as_array(v) for v in values]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    keep = _mask(mask, shape, where) if masked else None
    if any(a.dtype == object for a in arrays):
        arrays = [a.astype(object) for a in arrays]
        kinds = [dtype if np.dtype(dtype).kind in "bU" else object for dtype in dtypes]
        results = result_arrays(shape, kinds, outs, where, zeroed=masked)
        map_objects(element or exact, arrays, names, results, where, low, exact_high, extra, keep)
    else:
        # check_only: the checks (the kernel's) alone, into scratch space
        results = [] if check_only else result_arrays(shape, dtypes, outs, where, masked)
        map_arrays(
            kernel,
            arrays,
            names,
            results,
            where,
            low,
            high,
            extra,
            options,
            result_check,
            mask=keep,
            checking=[np.dtype(d) for d in dtypes] if check_only else (),
        )
        if check_only:
            return None
    answers = finished(results, outs, len(shape))
    return answers[0] if len(answers) == 1 else tuple(answers)


def each_position(
    where: str, piles: np.ndarray, r: Any
) -> tuple[tuple[int, ...], list[tuple[tuple[int, ...], list[int], int | None]]]:
    """The positions of an array (..., k) with bounds r (broadcast over (...); None
    is no bound), checked and as Python ints: (shape, [(index, piles, r), ...]).

    For the exact paths (object arrays, searches), which go position by position."""
    bound = None if r is None else integers(r, where, "r")
    bounds = np.asarray(0 if bound is None else bound, dtype=object)
    shape = np.broadcast_shapes(piles.shape[:-1], bounds.shape)
    spread = np.broadcast_to(piles, (*shape, piles.shape[-1]))
    bounds = np.broadcast_to(bounds, shape)
    found = []
    for index in np.ndindex(shape):
        row = [
            check_int(int(n), where, "piles", index=own_index((*index, j), piles.shape))
            for j, n in enumerate(spread[index])
        ]
        b = (
            None
            if bound is None
            else check_int(int(bounds[index]), where, "r", index=index or None)
        )
        found.append((index, row, b))
    return shape, found


def fill_positions(
    shape: tuple[int, ...], answers: list[tuple[tuple[int, ...], Any]], moves: bool, exact: bool
) -> Any:
    """Arrays of shape `shape` from per-position answers: a bool each, or a move
    (pile, take) or None (-1, -1 in the arrays); object arrays when exact."""
    if not moves:
        out = np.empty(shape, dtype=np.bool_)
        for index, answer in answers:
            out[index] = answer
        return finish(out, len(shape))
    kind = object if exact else np.int64
    pile, take = np.empty(shape, dtype=kind), np.empty(shape, dtype=kind)
    for index, answer in answers:
        pile[index], take[index] = answer if answer is not None else (-1, -1)
    return finish(pile, len(shape)), finish(take, len(shape))
