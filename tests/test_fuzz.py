"""Every public array function, fed random dtypes (masked, big-endian, object,
bool, float among them), shapes (zero-size axes too), strides, out= arrays that
overlap or alias the input, and values around every limit.

Whatever comes in, the answer is the exact one (that of the same values in an
object array, which the exact Python-int functions answer) or a typed error;
the compiled core and the pure twin give the same answer or the same error; and
nothing the caller passed in changes, unless it is an out=.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from _support import F, tier
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fibnim
from fibnim import _backend, classify, fibonacci_nim, power_nim, wythoff


@dataclass(frozen=True)
class Spec:
    name: str
    call: Callable[..., Any]
    arguments: int  # array arguments, broadcast together
    outs: tuple[Any, ...] = ()  # dtypes of out= (none: the function takes no out=)
    positions: bool = False  # one array (..., k) of positions


SPECS = [
    Spec("fib", lambda k, **o: fibnim.fib(k, **o), 1, (np.uint64,)),
    Spec("encode", lambda n, **o: fibnim.encode(n, **o), 1, (np.uint64,)),
    Spec("decode", lambda c, **o: fibnim.decode(c, **o), 1, (np.int64,)),
    Spec("lowest_term", lambda n, **o: fibnim.lowest_term(n, **o), 1, (np.uint64,)),
    Spec("is_fibonacci", lambda n, **o: fibnim.is_fibonacci(n, **o), 1, (np.bool_,)),
    Spec("digits", lambda n: fibnim.digits(n), 1),
    Spec("digits width 70", lambda n: fibnim.digits(n, width=70), 1),
    Spec("to_string", lambda n: fibnim.to_string(n), 1),
    Spec("to_string silber", lambda n: fibnim.to_string(n, style="silber"), 1),
    Spec("second_canonical", lambda n: fibnim.second_canonical(n), 1),
    Spec("pair", lambda n, **o: wythoff.pair(n, **o), 1, (np.int64, np.int64)),
    Spec("is_safe", lambda x, y, **o: wythoff.is_safe(x, y, **o), 2, (np.bool_,)),
    Spec(
        "is_safe misere",
        lambda x, y, **o: wythoff.is_safe(x, y, misere=True, **o),
        2,
        (np.bool_,),
    ),
    Spec("is_lower", lambda x, **o: wythoff.is_lower(x, **o), 1, (np.bool_,)),
    Spec("is_upper", lambda x, **o: wythoff.is_upper(x, **o), 1, (np.bool_,)),
    Spec("index", lambda x, **o: wythoff.index(x, **o), 1, (np.int64,)),
    Spec("partner", lambda x, **o: wythoff.partner(x, **o), 1, (np.int64,)),
    Spec(
        "winning_move",
        lambda x, y, **o: wythoff.winning_move(x, y, **o),
        2,
        (np.int64, np.int64),
    ),
    Spec(
        "winning_move misere",
        lambda x, y, **o: wythoff.winning_move(x, y, misere=True, **o),
        2,
        (np.int64, np.int64),
    ),
    Spec("array_position", lambda x: wythoff.array_position(x), 1),
    Spec("fibonacci_nim.is_p", lambda n: fibonacci_nim.is_p(n), 1),
    Spec("fibonacci_nim.is_p r", lambda n, r: fibonacci_nim.is_p(n, r), 2),
    Spec("winning_take", lambda n: fibonacci_nim.winning_take(n), 1),
    Spec("winning_take r", lambda n, r: fibonacci_nim.winning_take(n, r), 2),
    Spec("global_is_p", lambda p: fibonacci_nim.global_is_p(p, r=5), 1, positions=True),
    Spec("global_winning_move", lambda p: fibonacci_nim.global_winning_move(p), 1, positions=True),
    Spec("power_nim.is_p", lambda p: power_nim.is_p(p, r=3), 1, positions=True),
    Spec("power_nim.winning_move", lambda p: power_nim.winning_move(p), 1, positions=True),
    Spec("classify nim", lambda p: classify(p, "nim"), 1, positions=True),
]

DTYPES = [
    np.dtype(t)
    for t in ("<i8", ">i8", "<u8", ">u8", "<i4", ">u4", "i2", "u1", "i1", "O", "?", "<f8")
]

# around every limit: Fibonacci numbers and their neighbours, F_66 (codes), 93 (fib),
# PAIR_LIMIT, 2**63 and 2**64, negative values
POOL = sorted(
    {v for k in range(0, 96) for v in (F[k] - 1, F[k], F[k] + 1)}
    | {92, 93, 94, wythoff.PAIR_LIMIT, wythoff.PAIR_LIMIT + 1}
    | {2**63 - 2, 2**63 - 1, 2**63, 2**64 - 1, -1, -2, -(2**63)}
)
values = st.one_of(st.integers(0, 40), st.sampled_from(POOL))
shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


def representable(value: int, dtype: np.dtype) -> int:
    """value, or a value the dtype holds (so that most draws stay interesting)."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return value if info.min <= value <= info.max else int(value % (int(info.max) + 1))
    return value


def build(data: st.DataObject, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """An array of dtype and shape, in a random layout."""
    size = int(np.prod(shape))
    drawn = data.draw(st.lists(values, min_size=size, max_size=size))
    cells = [representable(v, dtype) for v in drawn]
    if dtype.kind == "O":
        array = np.empty(shape, dtype=object)
        array.reshape(-1)[:] = cells
    elif dtype.kind in "iu":
        array = np.array(cells, dtype=dtype).reshape(shape)
    else:  # bool, float: refused whatever they hold
        array = np.array(cells, dtype=object).reshape(shape).astype(dtype)
    layout = data.draw(st.sampled_from(["c", "fortran", "reversed", "strided", "masked"]))
    if layout == "fortran":
        array = np.asfortranarray(array)
    elif layout == "reversed" and array.ndim:
        array = array[::-1]
    elif layout == "strided" and array.ndim:
        wide = np.empty((shape[0] * 2, *shape[1:]), dtype=array.dtype)
        wide[::2] = array
        array = wide[::2]
    elif layout == "masked":
        array = np.ma.array(array, mask=np.zeros(shape, dtype=bool))
    return array


def outcome(function: Callable[[], Any]) -> tuple[str, Any]:
    """("ok", result) or ("error", (type, message))."""
    try:
        return "ok", function()
    except (TypeError, ValueError, OverflowError) as error:
        return "error", (type(error), str(error))


def same(a: Any, b: Any) -> bool:
    """Equal answers: values and shapes, whatever the container."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (
            isinstance(a, tuple)
            and isinstance(b, tuple)
            and len(a) == len(b)
            and all(same(x, y) for x, y in zip(a, b, strict=True))
        )
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "OiuU" and b.dtype.kind in "OiuU":
        return bool((a.astype(object) == b.astype(object)).all()) if a.size else True
    return a.dtype == b.dtype and bool((a == b).all())


def inputs_for(data: st.DataObject, spec: Spec) -> list[np.ndarray]:
    dtype = data.draw(st.sampled_from(DTYPES))
    shape = data.draw(shapes)
    if spec.positions:
        shape = (*shape[:2], data.draw(st.integers(0, 4)))
    arrays = [build(data, dtype, shape)]
    if spec.arguments == 2:  # the second broadcasts: the same shape, or its last axes
        second = shape[data.draw(st.integers(0, len(shape))) :]
        arrays.append(build(data, data.draw(st.sampled_from(DTYPES)), second))
    return arrays


def outs_for(data: st.DataObject, spec: Spec, inputs: list[np.ndarray]) -> Any:
    """None, or out= of the right shape and dtype: fresh, the input itself, or a
    view overlapping it."""
    if not spec.outs or data.draw(st.booleans()):
        return None
    shape = np.broadcast_shapes(*(a.shape for a in inputs))
    how = data.draw(st.sampled_from(["fresh", "input", "shifted"]))
    outs = []
    for dtype in spec.outs:
        first = inputs[0]
        if (
            how == "input"
            and not isinstance(first, np.ma.MaskedArray)
            and first.dtype == np.dtype(dtype)
            and first.shape == shape
            and not any(o is first for o in outs)
        ):
            outs.append(first)
        elif how == "shifted" and len(shape) == 1:
            room = np.zeros(shape[0] + 1, dtype=dtype)
            outs.append(room[1:] if data.draw(st.booleans()) else room[:-1])
        else:
            outs.append(np.zeros(shape, dtype=dtype))
    return outs[0] if len(outs) == 1 else tuple(outs)


def as_exact(array: np.ndarray) -> np.ndarray:
    """The same values in an object array of Python ints: the exact path's input."""
    if isinstance(array, np.ma.MaskedArray) or array.dtype.kind not in "iuO":
        return array
    exact = np.empty(array.shape, dtype=object)
    exact.reshape(-1)[:] = [int(v) for v in array.reshape(-1)]
    return exact


EXAMPLES = int(os.environ.get("FIBNIM_FUZZ_EXAMPLES", tier(1000, 100)))


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    # the backend fixture holds for the whole test: it is only read
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(data=st.data())
def test_any_input_gives_the_exact_answer_or_a_typed_error(backend, data):
    spec = data.draw(st.sampled_from(SPECS), label="function")
    inputs = inputs_for(data, spec)
    before = [a.copy() for a in inputs]
    out = outs_for(data, spec, inputs)
    aliased = out is not None and any(
        np.shares_memory(o, a) for o in (out if isinstance(out, tuple) else (out,)) for a in inputs
    )

    def call(on: list[np.ndarray], with_out: bool = True) -> Any:
        if with_out and out is not None:
            return spec.call(*on, out=out)
        return spec.call(*on)

    kind, answer = outcome(lambda: call([a.copy() for a in inputs], with_out=False))
    if kind == "error":
        _, message = answer
        assert re.match(r"^\w+: ", message), message  # it names the function
    else:
        # the exact path: the same values, as Python ints
        exact_kind, exact = outcome(lambda: call([as_exact(a) for a in inputs], with_out=False))
        assert exact_kind == "ok", exact
        assert same(answer, exact), (spec.name, answer, exact)

    # out=, aliasing or overlapping the input: the same answer as without
    if out is not None:
        with_out_kind, with_out = outcome(lambda: call(inputs))
        if with_out_kind == "error" and ": out must " in with_out[1]:
            pass  # an out= of the wrong dtype for this input (object input gives object)
        else:
            assert with_out_kind == kind, (with_out, answer)
            if kind == "ok":
                assert same(with_out, answer)
    if not aliased:
        for a, b in zip(inputs, before, strict=True):
            assert a.dtype == b.dtype and same(np.ma.getdata(a), np.ma.getdata(b))

    # the other backend: the same answer, or the same error
    if backend == "cython":
        _backend.use("python")
        try:
            twin_kind, twin = outcome(lambda: call([a.copy() for a in before], with_out=False))
        finally:
            _backend.use("cython")
        errors = [
            found[1]
            for found_kind, found in ((kind, answer), (twin_kind, twin))
            if found_kind == "error"
        ]
        if any("backend searches" in message for message in errors):
            return  # the searches' state limits differ by backend, as documented
        assert twin_kind == kind, (spec.name, answer, twin)
        assert same(twin, answer) if kind == "ok" else twin == answer
