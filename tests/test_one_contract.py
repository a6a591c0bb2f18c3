"""Both backends, one contract, in every form: the same call gives the same
kind, dtypes and values, or the same kind of error, on the compiled core and
on the pure twin, for DataFrames, pandas' Arrow, nullable and sparse types,
object operands under every casting, outs of other shapes and dtypes, and
inputs with two faults at once."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import fibnim
from fibnim import _backend, fibonacci_nim, wythoff

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

if "cython" not in _backend.available():
    pytest.skip("no compiled extension to compare with", allow_module_level=True)


def outcome(call) -> Any:
    """What a call gives, as comparable plain data: each answer's type, its
    dtypes and its values, or the error's type."""
    try:
        answer = call()
    except Exception as error:
        return ("error", type(error).__name__)
    answers = answer if isinstance(answer, tuple) else (answer,)
    described = []
    for a in answers:
        if isinstance(a, pd.DataFrame):
            described.append(
                ("DataFrame", [str(d) for d in a.dtypes], a.astype(object).values.tolist())
            )
        elif isinstance(a, (pd.Series, pd.Index)):
            described.append((type(a).__name__, str(a.dtype), a.astype(object).tolist()))
        elif isinstance(a, np.ndarray):
            described.append(("ndarray", str(a.dtype), a.tolist()))
        else:
            described.append((type(a).__name__, a))
    return described


def on_both(call) -> list[Any]:
    """call's outcome on each backend, the backend in use restored after."""
    before = _backend.name()
    try:
        seen = []
        for backend in ("cython", "python"):
            _backend.use(backend)
            seen.append(outcome(call))
        return seen
    finally:
        _backend.use(before)


def column(values, dtype):
    if dtype == "sparse":
        return pd.Series(pd.arrays.SparseArray(values))
    return pd.Series(values, dtype=dtype)


KINDS = ["int64", "Int64", "int64[pyarrow]", "uint64[pyarrow]", "sparse"]
ONE_INPUT = {
    "encode": fibnim.encode,
    "decode": fibnim.decode,
    "is_p": fibonacci_nim.is_p,
    "winning_take": fibonacci_nim.winning_take,
}
TWO_INPUTS = {"is_safe": wythoff.is_safe, "winning_move": wythoff.winning_move}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", [*ONE_INPUT, *TWO_INPUTS])
def test_a_pandas_column_of_any_type_comes_back_alike_on_both_backends(kind, name):
    # int64[pyarrow] gave uint64[pyarrow] on one backend and UInt64 on the
    # other; Sparse gave Sparse[uint64] and UInt64; winning_move on two
    # int64[pyarrow] Series was an AttributeError on both
    values = [0, 3, 4, 20, 0, 10**6] if name != "decode" else [0, 1, 2, 4, 5, 8]
    x = column(values, kind)
    if name in TWO_INPUTS:
        y = column([0, 5, 7, 30, 2, 10**6 + 3], kind)
        seen = on_both(lambda: TWO_INPUTS[name](x, y))
    else:
        seen = on_both(lambda: ONE_INPUT[name](x))
    assert seen[0] == seen[1]
    assert seen[0][0] != "error", seen[0]
    answer_dtype = seen[0][0][1]
    if kind == "sparse":
        assert answer_dtype.startswith("Sparse[")
    elif "pyarrow" in kind:
        assert answer_dtype.endswith("[pyarrow]")
    elif kind == "Int64":
        assert answer_dtype in ("UInt64", "Int64", "boolean")


@pytest.mark.parametrize("kind", ["Int64", "int64[pyarrow]"])
def test_a_missing_value_is_missing_in_the_answer_alike_on_both_backends(kind):
    x = pd.Series([3, None, 6], dtype=kind)
    y = pd.Series([5, 8, None], dtype=kind)
    for call in (lambda: fibnim.encode(x), lambda: wythoff.winning_move(x, y)):
        seen = on_both(call)
        assert seen[0] == seen[1] and seen[0][0] != "error"
        assert seen[0][0][2][1] is pd.NA


@pytest.mark.parametrize("name", [*ONE_INPUT, *TWO_INPUTS])
def test_a_dataframe_comes_back_a_dataframe_on_both_backends(name):
    # the compiled core gave a DataFrame, the pure twin an AttributeError
    frame = pd.DataFrame({"a": [1, 2, 4], "b": [5, 8, 9]})  # codes too, for decode
    function = {**ONE_INPUT, **TWO_INPUTS}[name]
    seen = on_both(lambda: function(frame, frame) if name in TWO_INPUTS else function(frame))
    assert seen[0] == seen[1]
    assert seen[0][0][0] == "DataFrame", seen[0]


CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]
OPERANDS = {
    "uint8": lambda: np.array([3, 4], np.uint8),
    "int64": lambda: np.array([5, 7], np.int64),
    "uint64": lambda: np.array([5, 2**63 + 1], np.uint64),
    "object": lambda: np.array([5, 10**30], dtype=object),
    "int": lambda: 6,
}


@pytest.mark.parametrize("casting", CASTINGS)
@pytest.mark.parametrize(("first", "second"), list(itertools.product(OPERANDS, repeat=2)))
def test_object_operands_under_every_casting_alike_on_both_backends(first, second, casting):
    # is_safe(uint8 array, object array, casting='no'): the compiled core
    # answered, the pure twin raised
    x, y = OPERANDS[first](), OPERANDS[second]()
    for call in (
        lambda: wythoff.is_safe(x, y, casting=casting),
        lambda: wythoff.winning_move(x, y, casting=casting),
        lambda: fibonacci_nim.is_p(x, casting=casting),
        lambda: fibonacci_nim.winning_take(y, casting=casting),
    ):
        seen = on_both(call)
        assert seen[0] == seen[1], (first, second, casting)


@pytest.mark.parametrize(
    ("shape", "out_shape"),
    [((1, 1), (3,)), ((1, 1), (1, 3)), ((3,), (1, 3)), ((3,), (3,)), ((2, 1), (2, 3)), ((), (2,))],
)
@pytest.mark.parametrize("out_dtype", ["uint64", "int64", "int8", "float64"])
def test_outs_of_other_shapes_and_dtypes_alike_on_both_backends(shape, out_shape, out_dtype):
    # an out of shape (3,) for a (1, 1) input: the compiled core raised, the
    # pure twin broadcast
    n = np.full(shape, 12, np.int64)
    seen = on_both(lambda: fibnim.encode(n, out=np.zeros(out_shape, out_dtype)))
    assert seen[0] == seen[1], seen


@pytest.mark.parametrize("out_dtype", ["int8", "uint64", "float32"])
def test_two_faults_at_once_give_one_error_alike_on_both_backends(out_dtype):
    # a bad code with an out of the wrong dtype: UFuncTypeError on one
    # backend, ValueError on the other
    for call in (
        lambda: fibnim.decode(np.array([3, 1], np.uint64), out=np.zeros(2, out_dtype)),
        lambda: fibnim.encode(np.array([-1, 2]), out=np.zeros(2, out_dtype)),
        lambda: wythoff.is_safe(
            np.array([-1]), np.array([2**70], object), out=np.zeros(1, out_dtype)
        ),
    ):
        seen = on_both(call)
        assert seen[0] == seen[1], seen


@pytest.mark.parametrize("dtype", ["boolean", "bool[pyarrow]", "Float64", "category", "string"])
def test_pandas_types_that_hold_no_integers_are_refused_alike(dtype):
    # a nullable bool went round the conversion for ever (RecursionError)
    values = pd.Series([True, False] if "bool" in dtype else [1, 2], dtype=dtype)
    for backend in ("cython", "python"):
        before = _backend.name()
        _backend.use(backend)
        try:
            with pytest.raises(TypeError, match=r"must have an integer dtype, not"):
                fibnim.encode(values)
        finally:
            _backend.use(before)
