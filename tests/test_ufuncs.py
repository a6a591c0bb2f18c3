"""The elementwise functions as numpy ufuncs (fibnim._ufunc): every form of a
call (broadcasting, strides, Fortran order, where=, out= over an input, small
integer dtypes) against the pure twin's general path; errors that name the
index in the caller's array, past numpy's buffer of 8,192 elements; `.outer`
against the rules' own board; the ufunc methods that are refused; pandas,
xarray and dask through numpy's protocol."""

from __future__ import annotations

import contextlib
import pickle
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from _support import wythoff_board

from fibnim import _backend, solvers, wythoff, zeckendorf
from fibnim._declarations import DECLARATIONS

NAMES = list(DECLARATIONS)


@contextlib.contextmanager
def pure() -> Iterator[None]:
    """The pure twin for a while (the reference answers), then the backend before."""
    before = _backend.name()
    _backend.use("python")
    try:
        yield
    finally:
        _backend.use(before)


def valid(name: str, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Values every input of function `name` takes: 1 .. 93 (codes of them for decode)."""
    values = np.random.default_rng(seed).integers(1, 94, shape)
    if name == "zeckendorf.decode":
        with pure():
            return np.asarray(zeckendorf.encode(values), dtype=np.int64)
    return values


def reference(name: str, *inputs: Any, **options: Any) -> tuple[np.ndarray, ...]:
    """The pure twin's answers, always as a tuple of arrays."""
    with pure():
        answer = DECLARATIONS[name].public(*[np.array(a) for a in inputs], **options)
    return tuple(np.asarray(a) for a in (answer if isinstance(answer, tuple) else (answer,)))


def as_tuple(answer: Any) -> tuple[np.ndarray, ...]:
    return tuple(np.asarray(a) for a in (answer if isinstance(answer, tuple) else (answer,)))


def assert_same(got: Any, want: tuple[np.ndarray, ...]) -> None:
    got = as_tuple(got)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert np.array_equal(g, w)


@pytest.mark.parametrize("name", NAMES)
def test_broadcasting_strides_and_orders_agree_with_the_pure_twin(name):
    d = DECLARATIONS[name]
    f = d.public
    base = valid(name, (6, 10), seed=1)
    if len(d.inputs) == 1:
        forms = [
            (base,),
            (base[::2, ::-3],),  # strided, reversed
            (np.asfortranarray(base),),
            (base[:, :1],),
            (base.reshape(6, 10, 1)[..., 0],),
        ]
    else:
        other = valid(name, (6, 10), seed=2)
        forms = [
            (base, other),
            (base[:, :1], other[0]),  # (6, 1) with (10,): (6, 10)
            (base[::-1, ::2], np.asfortranarray(other)[:, 1::2]),
            (base[0, 0], other),  # a Python int among arrays
        ]
    for inputs in forms:
        plain = [np.asarray(a) if isinstance(a, np.ndarray) else int(a) for a in inputs]
        assert_same(f(*plain), reference(name, *plain))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32])
def test_smaller_integer_types_are_taken_as_their_values(name, dtype):
    d = DECLARATIONS[name]
    values = valid(name, (50,)) if name != "zeckendorf.decode" else np.array([0, 1, 2, 4, 5, 8])
    values = values[values <= np.iinfo(dtype).max]
    inputs = [values.astype(dtype)] * len(d.inputs)
    assert_same(d.public(*inputs), reference(name, *[values.astype(np.int64)] * len(d.inputs)))


@pytest.mark.parametrize("name", NAMES)
def test_where_keeps_out_where_the_mask_is_false(name):
    d = DECLARATIONS[name]
    values = valid(name, (4, 5))
    mask = np.random.default_rng(3).random((4, 5)) < 0.5
    mask[0, 0], mask[0, 1] = True, False
    outs = tuple(np.full((4, 5), 7, dtype=o) for o in d.outputs)
    out = outs[0] if len(outs) == 1 else outs
    answer = d.public(*[values] * len(d.inputs), out=out, where=mask)
    assert as_tuple(answer)[0] is outs[0] or np.shares_memory(as_tuple(answer)[0], outs[0])
    want = reference(name, *[values] * len(d.inputs))
    for got, w, dtype in zip(outs, want, d.outputs, strict=True):
        assert np.array_equal(got[mask], w[mask])
        assert (got[~mask] == np.array(7).astype(dtype)).all()


def test_out_may_be_an_input():
    x = np.arange(40, dtype=np.int64)
    y = x[::-1].copy()
    want = reference("wythoff.winning_move", x, y)
    wythoff.winning_move(x, y, out=(x, y))  # the kernel reads each input twice
    assert np.array_equal(x, want[0]) and np.array_equal(y, want[1])
    # misere play: a second pass over the block fixes the endgame, from the piles
    small = np.array([0, 2, 0, 1, 1, 2, 3, 0, 5], dtype=np.int64)
    other = np.array([1, 0, 0, 1, 2, 2, 1, 7, 5], dtype=np.int64)
    want = wythoff.winning_move(small, other, misere=True)
    wythoff.winning_move(small, other, misere=True, out=(small, other))
    assert np.array_equal(small, want[0]) and np.array_equal(other, want[1])
    n = np.arange(1, 200, dtype=np.int64)
    partners = reference("wythoff.partner", n)[0]
    wythoff.partner(n, out=n)
    assert np.array_equal(n, partners)
    codes = np.arange(100, dtype=np.uint64)
    want_codes = reference("zeckendorf.encode", codes)[0]
    zeckendorf.encode(codes, out=codes)
    assert np.array_equal(codes, want_codes)


@pytest.mark.parametrize(
    ("make", "index"),
    [
        (lambda a: a, (15000,)),
        (lambda a: a.astype(np.int32), (15000,)),  # cast through numpy's buffers
        (lambda a: a[::-1], (19999 - 15000,)),
        (lambda a: a.reshape(100, 200), (75, 0)),
        (lambda a: np.asfortranarray(a.reshape(100, 200)), (75, 0)),
        (lambda a: a.reshape(100, 200)[:, ::-1], (75, 199)),
    ],
)
def test_an_error_names_the_index_in_the_callers_array(make, index):
    values = np.arange(20000, dtype=np.int64) % 50
    values[15000] = -3
    bad = make(values)
    text = "[" + ", ".join(map(str, index)) + "]"
    with pytest.raises(ValueError, match=rf"^is_lower: x{re.escape(text)} = -3 is negative$"):
        wythoff.is_lower(bad)
    with pytest.raises(ValueError, match=rf"^is_safe: x{re.escape(text)} = -3 is negative$"):
        wythoff.is_safe(bad, bad % 7 + 1)
    out = np.zeros(values.shape, dtype=bool).reshape(bad.shape)
    with pytest.raises(ValueError, match=re.escape(text)):
        wythoff.is_lower(bad, out=out)


def test_an_error_skips_the_values_where_does_not_take():
    values = np.arange(20000, dtype=np.int64)
    values[100] = -1
    values[15000] = 2**62  # above F_66: no code
    mask = np.ones(20000, dtype=bool)
    mask[100] = False
    out = np.zeros(20000, dtype=np.uint64)
    with pytest.raises(OverflowError, match=r"^encode: n\[15000\] = 4611686018427387904 is F_66"):
        zeckendorf.encode(values, out=out, where=mask)


def test_errors_name_the_argument_and_the_type_of_the_bound():
    with pytest.raises(OverflowError, match=r"^is_safe: y\[1\] = 9223372036854775808 is above"):
        wythoff.is_safe(np.array([1, 2], dtype=np.uint64), np.array([1, 2**63], dtype=np.uint64))
    with pytest.raises(ValueError, match=r"^decode: code\[2\] = 3 has two adjacent set bits"):
        zeckendorf.decode(np.array([1, 2, 3]))
    lower, _ = wythoff.pair(wythoff.PAIR_LIMIT + 1)  # its partner is above 2**63 - 1
    with pytest.raises(OverflowError, match=rf"^partner: x\[1\] = {lower} has a partner above"):
        wythoff.partner(np.array([1, lower]))
    with pytest.raises(OverflowError, match=r"^fib: k\[0, 1\] = 94 is above 93"):
        zeckendorf.fib(np.array([[1, 94]]))


@pytest.mark.parametrize("array", [np.array([1]), np.array([1], dtype=np.uint64)])
def test_a_python_int_among_arrays_is_held_to_the_arrays_bounds(array):
    with pytest.raises(ValueError, match=r"^is_safe: y = -1 is negative$"):
        wythoff.is_safe(array, -1)
    with pytest.raises(OverflowError, match=r"^is_safe: y = 9223372036854775808 is above 2\*\*63"):
        wythoff.is_safe(array, 2**63)
    assert wythoff.is_safe(array.astype(np.uint8), 2).tolist() == [True]


@pytest.mark.parametrize("values", [np.array([1.0, 2.0]), np.array([True, False]), [True, 1]])
def test_floats_and_bools_are_refused(values):
    with pytest.raises(TypeError, match="integer"):
        wythoff.is_lower(values)
    with pytest.raises(TypeError, match="integer"):
        wythoff.is_safe(values, np.array([1, 2]))


@pytest.mark.parametrize("n", [0, 1, 7, 40])
def test_outer_is_the_board(n):
    board = wythoff.is_safe.outer(range(n), range(n))
    assert board.shape == (n, n) and board.dtype == np.bool_
    assert np.array_equal(board, solvers.board("queen", n))
    assert board.tolist() == wythoff_board(n)
    misere = wythoff.is_safe.outer(np.arange(n), np.arange(n), misere=True)
    assert misere.tolist() == wythoff_board(n, misere=True)


def test_outer_of_two_outputs_and_its_shape():
    tx, ty = wythoff.winning_move.outer(np.arange(6).reshape(2, 3), np.arange(4))
    assert tx.shape == ty.shape == (2, 3, 4)
    want = reference("wythoff.winning_move", np.arange(6).reshape(2, 3, 1), np.arange(4))
    assert np.array_equal(tx, want[0]) and np.array_equal(ty, want[1])
    with pytest.raises(TypeError, match="outer"):
        wythoff.is_lower.outer(range(3), range(3))


@pytest.mark.parametrize("method", ["reduce", "accumulate", "reduceat", "at"])
def test_folds_are_refused(method):
    with pytest.raises(TypeError, match=rf"is_safe\.{method} is not supported"):
        getattr(wythoff.is_safe, method)
    with pytest.raises(AttributeError):
        wythoff.is_safe.no_such_method  # noqa: B018


def test_the_ufunc_is_there_on_the_compiled_core(backend):
    f = wythoff.is_safe
    assert (f.nin, f.nout) == (2, 1)
    if _backend.COMPILED is None:
        assert f.types == []
        return
    assert isinstance(f.ufunc, np.ufunc)
    assert set(f.types) == {"ll->?", "LL->?", "lL->?", "Ll->?"}
    assert f.__name__ == "is_safe" and "P-position" in (f.__doc__ or "")


def test_functions_pickle_by_name():
    # dask's distributed workers receive them pickled
    for d in DECLARATIONS.values():
        assert pickle.loads(pickle.dumps(d.public)) is d.public


def test_python_ints_stay_exact_at_any_size():
    assert zeckendorf.encode(46) == 149 and type(zeckendorf.encode(46)) is int
    assert zeckendorf.decode(zeckendorf.encode(10**30)) == 10**30
    assert wythoff.is_safe(3, 5) is True
    big = 2**70
    assert wythoff.partner(wythoff.pair(big)[0]) == wythoff.pair(big)[1]
    assert wythoff.winning_move(3, 5) is None
    objects = np.array([10**30, 5], dtype=object)
    assert zeckendorf.decode(zeckendorf.encode(objects)).tolist() == [10**30, 5]


# --- pandas, xarray and dask, through numpy's protocol ---------------------------------


def test_pandas_keeps_the_index_and_the_name():
    pd = pytest.importorskip("pandas")
    index = pd.Index([10, 20, 30, 40], name="row")
    x = pd.Series([3, 4, 1, 10], index=index, name="piles")
    y = pd.Series([5, 5, 2, 12], index=index, name="piles")
    safe = wythoff.is_safe(x, y)
    assert isinstance(safe, pd.Series) and safe.index.equals(index) and safe.name == "piles"
    assert safe.tolist() == [True, False, True, False]
    tx, ty = wythoff.winning_move(x, y)
    assert isinstance(tx, pd.Series) and tx.index.equals(index)
    want = reference("wythoff.winning_move", x.to_numpy(), y.to_numpy())
    assert tx.tolist() == want[0].tolist() and ty.tolist() == want[1].tolist()
    frame = pd.DataFrame({"n": [1, 2, 3]}, index=[7, 8, 9])
    codes = zeckendorf.encode(frame["n"])
    assert codes.index.tolist() == [7, 8, 9] and codes.tolist() == [1, 2, 4]
    with pytest.raises(ValueError, match=r"is_lower: x\[2\] = -1 is negative"):
        wythoff.is_lower(pd.Series([1, 2, -1]))


def test_pandas_object_columns_stay_exact():
    pd = pytest.importorskip("pandas")
    big = pd.Series([10**30, 1], dtype=object, index=["a", "b"])
    codes = zeckendorf.encode(big)
    assert codes.index.tolist() == ["a", "b"]
    assert zeckendorf.decode(codes).tolist() == [10**30, 1]


def test_xarray_keeps_dims_and_coordinates():
    xr = pytest.importorskip("xarray")
    x = xr.DataArray(
        np.array([[3, 4], [1, 10]]), dims=("a", "b"), coords={"a": [1, 2], "b": ["p", "q"]}
    )
    safe = wythoff.is_safe(x, x + 2)
    assert isinstance(safe, xr.DataArray) and safe.dims == ("a", "b")
    assert safe.coords["b"].values.tolist() == ["p", "q"]
    want = reference("wythoff.is_safe", x.values, x.values + 2)[0]
    assert safe.values.tolist() == want.tolist()
    tx, _ = wythoff.winning_move(x, x + 2)
    assert isinstance(tx, xr.DataArray) and tx.dims == ("a", "b")


def test_dask_stays_lazy():
    da = pytest.importorskip("dask.array")
    values = np.arange(1, 1001, dtype=np.int64)
    x = da.from_array(values, chunks=300)
    codes = zeckendorf.encode(x)
    assert isinstance(codes, da.Array)
    assert np.array_equal(codes.compute(), reference("zeckendorf.encode", values)[0])
    tx, ty = wythoff.winning_move(x, x[::-1])
    assert isinstance(tx, da.Array) and isinstance(ty, da.Array)
    want = reference("wythoff.winning_move", values, values[::-1])
    assert np.array_equal(tx.compute(), want[0]) and np.array_equal(ty.compute(), want[1])
    bad = da.from_array(np.array([1, 2, -5]), chunks=2)
    lazy = wythoff.is_lower(bad)  # nothing read yet
    with pytest.raises(ValueError, match=r"x\[2\] = -5 is negative"):  # in the whole array
        lazy.compute()
    with pytest.raises(TypeError, match="out= does not go with dask"):
        wythoff.is_lower(x, out=np.empty(1000, dtype=bool))


# --- a property: any layout, any mask, the same answers ---------------------------------

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

DTYPES = [np.int64, np.uint64, np.int32, np.uint16, np.int8]


@st.composite
def layouts(draw: Any) -> tuple[str, list[np.ndarray], np.ndarray | None]:
    """A declaration, its inputs (broadcastable shapes, strided or reversed views,
    small dtypes) and a mask or None."""
    name = draw(st.sampled_from(NAMES))
    count = len(DECLARATIONS[name].inputs)
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=count + 1, max_dims=3))
    inputs = []
    for i, shape in enumerate(shapes.input_shapes[:count]):
        # values of 1 .. 93 fit every type; their codes (decode's inputs) 64 bits
        wide = name == "zeckendorf.decode"
        dtype = draw(st.sampled_from(DTYPES[:2] if wide else DTYPES))
        seed = draw(st.integers(0, 2**16)) + i
        array = valid(name, tuple(2 * s for s in shape), seed).astype(dtype)
        step = tuple(slice(None, None, draw(st.sampled_from([2, -2]))) for _ in shape)
        inputs.append(array[step])  # strided, some reversed
    mask = None
    if draw(st.booleans()):
        mask = draw(hnp.arrays(np.bool_, shapes.input_shapes[count]))
    return name, inputs, mask


@given(layouts())
def test_any_layout_and_mask_gives_the_pure_twins_answers(case):
    name, inputs, mask = case
    d = DECLARATIONS[name]
    shape = np.broadcast_shapes(*(a.shape for a in inputs), () if mask is None else mask.shape)
    outs = tuple(np.full(shape, 3, dtype=o) for o in d.outputs)
    keywords = {} if mask is None else {"where": mask}
    d.public(*inputs, out=outs if len(outs) > 1 else outs[0], **keywords)
    with pure():
        want = tuple(np.full(shape, 3, dtype=o) for o in d.outputs)
        d.public(*inputs, out=want if len(want) > 1 else want[0], **keywords)
    for got, expected in zip(outs, want, strict=True):
        assert np.array_equal(got, expected)


def test_finding_an_errors_index_makes_no_second_answer(backend):
    # the ufunc made its answer (16 MB) before it met the bad value; the search
    # for the value's index checks chunk by chunk and answers nothing again
    import tracemalloc

    if backend == "python":
        pytest.skip("the pure twin has no ufunc: it names the value in its one pass")
    size = 2_000_000
    values = np.zeros(size, dtype=np.int64)
    values[-1] = -1
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=rf"x\[{size - 1}\] = -1 is negative"):
            wythoff.index(values)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * values.nbytes


@pytest.mark.parametrize("name", NAMES)
def test_dtype_gives_the_answers_in_that_dtype_exactly(name):
    # dtype= was refused ("unexpected keyword argument 'dtype'"), which numpy users pass
    d = DECLARATIONS[name]
    inputs = [valid(name, (6,), seed=j) for j in range(len(d.inputs))]
    want = as_tuple(d.public(*inputs))
    wide = as_tuple(d.public(*inputs, dtype=np.int64))
    for got, w in zip(wide, want, strict=True):
        assert got.dtype == np.int64 and (got == w.astype(np.int64)).all()
    narrow = np.int8
    fits = all(((w.astype(np.int64) >= -128) & (w.astype(np.int64) <= 127)).all() for w in want)
    if fits:
        assert all(g.dtype == narrow for g in as_tuple(d.public(*inputs, dtype=narrow)))
    else:  # never wrapped
        with pytest.raises(OverflowError, match=r"does not fit int8 \(dtype=\)"):
            d.public(*inputs, dtype=narrow)
    with pytest.raises(TypeError, match="dtype=float64 would round"):
        d.public(*inputs, dtype=np.float64)
    pd = pytest.importorskip("pandas")
    series = d.public(*[pd.Series(a) for a in inputs], dtype=np.int64)
    assert all(isinstance(s, pd.Series) and s.dtype == np.int64 for s in as_tuple_series(series))


def as_tuple_series(answer: Any) -> tuple[Any, ...]:
    return answer if isinstance(answer, tuple) else (answer,)
