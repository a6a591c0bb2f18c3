"""Every public array function takes pandas, xarray and dask objects and gives
back the same type (labels kept, dask lazy), and takes out= in numpy's two forms."""

from __future__ import annotations

import numpy as np
import pytest

import fibnim
from fibnim import classify, fibonacci_nim, power_nim, wythoff
from fibnim._declarations import DECLARATIONS

rng = np.random.default_rng(17)
NUMBERS = rng.integers(1, 10**6, size=50)
OTHERS = rng.integers(0, 10**6, size=50)

# (function, its arguments past the first as arrays like the first, keywords):
# every public function that maps numbers to numbers, element by element: the
# declared ones (fibnim._declarations) and the two that give strings
ELEMENTWISE = [
    *((d.public, len(d.inputs) - 1, {}) for d in DECLARATIONS.values()),
    *((d.public, len(d.inputs) - 1, {o: True}) for d in DECLARATIONS.values() for o in d.options),
    (fibnim.to_string, 0, {}),
    (fibnim.second_canonical, 0, {}),
]
POSITIONS = [
    fibonacci_nim.global_is_p,
    fibonacci_nim.global_winning_move,
    power_nim.is_p,
    power_nim.winning_move,
]


def _first(function):
    """Values that every function above takes (codes for decode; small k for fib)."""
    if function is fibnim.decode:
        return fibnim.encode(NUMBERS).astype(np.int64)
    if function is fibnim.fib:
        return NUMBERS % 90
    return NUMBERS


def _arguments(function, others):
    first = _first(function)
    return [first, *(OTHERS[: len(first)] % 1000 for _ in range(others))]


def _parts(result):
    return result if isinstance(result, tuple) else (result,)


@pytest.mark.parametrize(("function", "others", "keywords"), ELEMENTWISE)
def test_a_series_in_is_a_series_out_on_its_index(function, others, keywords):
    pd = pytest.importorskip("pandas")
    arrays = _arguments(function, others)
    index = pd.Index([f"row {i}" for i in range(len(arrays[0]))], name="where")
    series = [pd.Series(a, index=index, name="piles") for a in arrays]
    expected = _parts(function(*arrays, **keywords))
    got = _parts(function(*series, **keywords))
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert isinstance(g, pd.Series) and g.index.equals(index) and g.name == "piles"
        assert (g.to_numpy() == e).all()


@pytest.mark.parametrize(("function", "others", "keywords"), ELEMENTWISE)
def test_a_dataarray_in_is_a_dataarray_out_with_its_coordinates(function, others, keywords):
    xr = pytest.importorskip("xarray")
    arrays = [a[:48].reshape(6, 8) for a in _arguments(function, others)]
    coords = {"row": np.arange(6) * 10, "column": list("abcdefgh")}
    labelled = [
        xr.DataArray(
            a, dims=("row", "column"), coords=coords, name="n", attrs={"unit": "counters"}
        )
        for a in arrays
    ]
    expected = _parts(function(*arrays, **keywords))
    for g, e in zip(_parts(function(*labelled, **keywords)), expected, strict=True):
        assert isinstance(g, xr.DataArray) and g.dims == ("row", "column")
        assert (g["row"].values == coords["row"]).all() and g.attrs == {"unit": "counters"}
        assert (g.values == e).all()


@pytest.mark.parametrize("function", POSITIONS)
def test_a_frame_of_positions_gives_series_on_its_index(function):
    pd = pytest.importorskip("pandas")
    piles = rng.integers(0, 1000, size=(40, 2))
    frame = pd.DataFrame(piles, columns=["x", "y"], index=np.arange(40) * 3)
    for g, e in zip(_parts(function(frame, 7)), _parts(function(piles, 7)), strict=True):
        assert isinstance(g, pd.Series) and g.index.equals(frame.index)
        assert (g.to_numpy() == e).all()


@pytest.mark.parametrize("function", POSITIONS)
def test_a_dataarray_of_positions_loses_its_piles_dimension(function):
    xr = pytest.importorskip("xarray")
    piles = rng.integers(0, 40, size=(5, 4, 3))  # 3 piles: a search of 41**3 states
    labelled = xr.DataArray(piles, dims=("a", "b", "pile"), coords={"a": list("vwxyz")})
    for g, e in zip(_parts(function(labelled)), _parts(function(piles)), strict=True):
        assert isinstance(g, xr.DataArray) and g.dims == ("a", "b")
        assert list(g["a"].values) == list("vwxyz") and (g.values == e).all()


def test_classify_of_a_frame_is_a_frame_on_its_index():
    pd = pytest.importorskip("pandas")
    piles = rng.integers(0, 1000, size=(30, 2))
    frame = pd.DataFrame(piles, columns=["x", "y"], index=pd.RangeIndex(100, 130))
    result = classify(frame, "wythoff")
    assert list(result.columns) == ["is_p", "move_1", "move_2"]
    assert result.index.equals(frame.index)
    expected = classify(piles, "wythoff")
    # pandas has a boolean and nullable integers: no 0/1 and -1 there
    assert result["is_p"].dtype == bool and (result["is_p"] == (expected[:, 0] == 1)).all()
    for j in (1, 2):
        move = result[f"move_{j}"]
        assert str(move.dtype) == "Int64" and (move.isna() == (expected[:, j] < 0)).all()
        assert (move.fillna(-1).to_numpy() == expected[:, j]).all()
    out = np.empty((30, 3), dtype=np.int64)
    assert classify(frame, "wythoff", out=out) is out


@pytest.mark.parametrize("big", [2**53 + 1, 2**63 - 1])
def test_a_frame_of_mixed_integer_columns_is_read_exactly(big):
    pd = pytest.importorskip("pandas")
    # numpy's common type of uint64 and int64 is float64: 2**53 + 1 became 2**53
    # and the frame was refused as floats
    frame = pd.DataFrame(
        {
            "x": np.array([big, 3], dtype=np.uint64),
            "y": np.array([big - 1, 5], dtype=np.int64),
            "z": np.array([1, 2], dtype=np.int8),
        }
    )
    expected = classify(np.array([[big, big - 1, 1], [3, 5, 2]]), "nim")
    result = classify(frame, "nim", columns="*")
    assert result["is_p"].tolist() == (expected[:, 0] == 1).tolist()
    moves = result[["move_1", "move_2", "move_3"]]  # after the frame's own columns
    assert moves.fillna(-1).to_numpy().tolist() == expected[:, 1:].tolist()
    past = frame.assign(x=np.array([2**63 + 5, 3], dtype=np.uint64))
    with pytest.raises(
        OverflowError, match=r"positions\[0, 0\] \(column 'x'\) = 9223372036854775813 is above"
    ):
        classify(past, "nim", columns="*")


def test_digits_of_a_series_is_a_frame_of_digits():
    pd = pytest.importorskip("pandas")
    series = pd.Series([4, 12, 46], index=list("abc"))
    result = fibnim.digits(series, width=8)
    assert isinstance(result, pd.DataFrame) and list(result.index) == list("abc")
    assert (result.to_numpy() == fibnim.digits([4, 12, 46], width=8)).all()


def test_digits_of_a_dataarray_gains_a_digit_dimension():
    xr = pytest.importorskip("xarray")
    labelled = xr.DataArray([4, 12, 46], dims="n", coords={"n": [1, 2, 3]})
    result = fibnim.digits(labelled)
    assert result.dims == ("n", "digit") and list(result["n"].values) == [1, 2, 3]
    assert (result.values == fibnim.digits([4, 12, 46])).all()


def test_labels_that_differ_are_refused_not_aligned():
    pd = pytest.importorskip("pandas")
    x = pd.Series([3, 4], index=[0, 1])
    y = pd.Series([5, 7], index=[1, 2])
    with pytest.raises(ValueError, match="is_safe: x and y have different labels"):
        wythoff.is_safe(x, y)
    # a Series with a plain array: the Series' labels
    result = wythoff.is_safe(x, np.array([5, 7]))
    assert isinstance(result, pd.Series) and result.tolist() == [True, True]


def test_a_missing_value_stays_missing():
    pd = pytest.importorskip("pandas")
    series = pd.Series([3, None, 5], dtype="Int64")  # pandas' nullable integers
    codes = fibnim.encode(series)
    assert codes.isna().tolist() == [False, True, False]
    assert codes[[0, 2]].tolist() == [4, 8]
    safe = wythoff.is_safe(series, series + 2)
    assert safe.isna().tolist() == [False, True, False] and safe[0] is np.True_


def test_a_series_is_read_as_its_array_not_element_by_element(monkeypatch):
    pd = pytest.importorskip("pandas")
    from fibnim import _checks

    def element_by_element(*arguments):
        raise AssertionError("a Series of integers went element by element")

    # what took 40 s for 10**7 values: each element checked as a Python object
    monkeypatch.setattr(_checks, "_object_ints", element_by_element)
    values = np.arange(10**5, dtype=np.uint64)
    for series in (pd.Series(values), pd.Series(values.astype(np.int64), dtype="Int64")):
        assert (fibnim.encode(series).to_numpy() == fibnim.encode(values)).all()
        assert (fibnim.lowest_term(series, out=np.empty(10**5, np.uint64)) > 0).sum() > 0
    with pytest.raises(ValueError, match=r"n\[1\] = -2 is negative"):
        fibnim.encode(pd.Series(np.array([1, -2], dtype=np.int64)))


# --- dask for the functions that lacked it ---------------------------------------------------


@pytest.fixture
def da():
    return pytest.importorskip("dask.array")


def test_fib_digits_and_array_position_stay_lazy_on_dask(da):
    lazy = da.from_array(NUMBERS, chunks=16)
    for function, argument in [(fibnim.fib, lazy % 90), (wythoff.array_position, lazy)]:
        eager = function(np.asarray(argument.compute()))
        for g, e in zip(_parts(function(argument)), _parts(eager), strict=True):
            assert isinstance(g, da.Array) and (g.compute() == e).all()
    result = fibnim.digits(lazy, width=30)
    assert isinstance(result, da.Array) and result.shape == (50, 30)
    assert (result.compute() == fibnim.digits(NUMBERS, width=30)).all()
    with pytest.raises(ValueError, match="a dask array needs width="):
        fibnim.digits(lazy)


# --- out= in both forms, everywhere ------------------------------------------------------------


@pytest.mark.parametrize(("function", "others", "keywords"), ELEMENTWISE)
def test_out_takes_an_array_or_a_tuple_and_is_returned(function, others, keywords):
    arrays = _arguments(function, others)
    if function in (fibnim.to_string, fibnim.second_canonical):
        with pytest.raises(TypeError):  # strings have no fixed width to write into
            function(*arrays, out=None, **keywords)
        return
    expected = _parts(function(*arrays, **keywords))
    outs = tuple(np.zeros_like(e) for e in expected)
    got = function(*arrays, out=outs, **keywords)
    assert all(g is o for g, o in zip(_parts(got), outs, strict=True))
    assert all((o == e).all() for o, e in zip(outs, expected, strict=True))
    if len(outs) == 1:
        single = np.zeros_like(expected[0])
        assert function(*arrays, out=single, **keywords) is single
    # the ufunc's words (numpy's), or the pure twin's
    with pytest.raises(ValueError, match=r"could not be broadcast|do not broadcast together"):
        function(*arrays, out=tuple(np.zeros(3, dtype=e.dtype) for e in expected), **keywords)


@pytest.mark.parametrize("function", POSITIONS)
def test_position_functions_take_out(function):
    piles = rng.integers(0, 40, size=(20, 3))
    expected = _parts(function(piles, 5))
    outs = tuple(np.zeros_like(e) for e in expected)
    got = function(piles, 5, out=outs if len(outs) > 1 else outs[0])
    assert all(g is o for g, o in zip(_parts(got), outs, strict=True))
    assert all((o == e).all() for o, e in zip(outs, expected, strict=True))
    with pytest.raises(ValueError, match="out must have shape"):
        function(piles, 5, out=tuple(np.zeros(3, dtype=e.dtype) for e in expected))
    # one position (a list) with out=: a 0-d answer written there
    for position in ([1, 2, 3], [1, 2, 4]):
        zero_d = tuple(np.zeros((), dtype=e.dtype) for e in expected)
        function(position, out=zero_d)
        answer = function(position)
        wanted = [-1, -1] if answer is None else list(_parts(answer))
        assert [o.item() for o in zero_d] == wanted


def test_digits_takes_its_width_from_out():
    out = np.zeros((3, 8), dtype=np.uint8)
    assert fibnim.digits([4, 12, 46], out=out) is out
    assert (out == fibnim.digits([4, 12, 46], width=8)).all()
    with pytest.raises(OverflowError, match="needs more than width=3 digits"):
        fibnim.digits([4, 12, 46], out=np.zeros((3, 3), dtype=np.uint8))


def test_where_goes_with_pandas_and_dask():
    pd = pytest.importorskip("pandas")
    da = pytest.importorskip("dask.array")
    mask = NUMBERS % 3 == 0
    expected = np.where(mask, fibnim.encode(NUMBERS), 0)
    series = fibnim.encode(pd.Series(NUMBERS, index=NUMBERS + 7), where=mask)
    assert (series.index == NUMBERS + 7).all() and (series.to_numpy() == expected).all()
    lazy = fibnim.encode(da.from_array(NUMBERS, chunks=16), where=da.from_array(mask, chunks=16))
    assert type(lazy).__name__ == "Array" and (lazy.compute() == expected).all()


@pytest.mark.parametrize("kind", ["NA", "NaT", "Timestamp", "Timedelta"])
def test_pandas_scalars_are_a_type_error_naming_the_argument(kind):
    # taken for a Series (their module is pandas'): an AttributeError on .ndim
    pd = pytest.importorskip("pandas")
    scalar = getattr(pd, kind)
    scalar = scalar(5) if kind in ("Timestamp", "Timedelta") else scalar
    with pytest.raises(TypeError, match=r"encode: n = .* not an integer"):
        fibnim.encode(scalar)
    with pytest.raises(TypeError, match=r"is_safe: x = .* not an integer"):
        wythoff.is_safe(scalar, 3)
    with pytest.raises(TypeError, match=r"is_safe: y = .* not an integer"):
        wythoff.is_safe(3, scalar)


@pytest.mark.parametrize(("function", "others", "keywords"), ELEMENTWISE)
def test_an_arrow_or_polars_null_is_named_by_its_index(function, others, keywords):
    # numpy made such a column float: "not float64 (n[0] = 1.0)", and a uint64
    # null was blamed on a rounded 1.8446744073709552e+19
    pa = pytest.importorskip("pyarrow")
    values = _first(function)[:4].tolist()
    arrays = [
        pa.array([values[0], None, *values[2:]], type=pa.uint64()),
        pa.chunked_array([[values[0]], [None, *values[2:]]], type=pa.int64()),
    ]
    pl = None
    try:
        import polars as pl
    except ImportError:
        pass
    if pl is not None:
        arrays.append(pl.Series([values[0], None, *values[2:]]))
    for array in arrays:
        with pytest.raises(ValueError, match=r"\[1\] is missing \(null\)"):
            function(array, *[OTHERS[:4]] * others, **keywords)


def test_a_polars_type_numpy_has_none_of_is_a_type_error():
    pl = pytest.importorskip("polars")
    with pytest.raises(TypeError, match="encode: n holds Int128"):
        fibnim.encode(pl.Series([1, 2], dtype=pl.Int128))
    assert fibnim.encode(pl.Series([1, 2])).tolist() == [1, 2]


def test_errors_name_the_labels_of_what_was_passed():
    # "x[1] = -1 is negative" for a Series indexed a, b, c; a DataFrame's
    # row label and column name were not said
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x": [1, -1, 3], "y": [2, 3, 5]}, index=["a", "b", "c"])
    cases = [
        (lambda: wythoff.is_safe(frame.x, frame.y), r"is_safe: x\[1\] \(row 'b'\) = -1"),
        (lambda: wythoff.is_safe(frame.y, frame.x), r"is_safe: y\[1\] \(row 'b'\) = -1"),
        (
            lambda: classify(frame, "wythoff"),
            r"classify: positions\[1, 0\] \(row 'b', column 'x'\) = -1",
        ),
        (  # a default index says nothing the position does not
            lambda: classify(frame.reset_index(drop=True), "wythoff"),
            r"classify: positions\[1, 0\] \(column 'x'\) = -1",
        ),
        (
            lambda: fibnim.encode(pd.Series([1, 2, -3], index=[10, 20, 30])),
            r"encode: n\[2\] \(row 30\) = -3",
        ),
        (lambda: fibnim.encode(np.array([1, -3])), r"encode: n\[1\] = -3"),
    ]
    xr = pytest.importorskip("xarray")
    array = xr.DataArray([1, -2], dims="t", coords={"t": [5, 6]})
    cases.append((lambda: fibnim.encode(array), r"encode: n\[1\] \(t 6\) = -2"))
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()


def test_dask_series_in_are_dask_series_out_on_their_index():
    # is_safe(ddf.x, ddf.y) failed inside dask, and encode(ddf.x) gave a dask
    # Array without the index
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame({"x": NUMBERS[:9], "y": OTHERS[:9]}, index=range(100, 109))
    lazy = dd.from_pandas(frame, npartitions=3)
    safe = wythoff.is_safe(lazy.x, lazy.y)
    assert isinstance(safe, dd.Series)
    pd.testing.assert_series_equal(safe.compute(), wythoff.is_safe(frame.x, frame.y))
    codes = fibnim.encode(lazy.x)
    assert isinstance(codes, dd.Series)
    pd.testing.assert_series_equal(codes.compute(), fibnim.encode(frame.x))
    moves = wythoff.winning_move(lazy.x, lazy.y)
    for got, want in zip(moves, wythoff.winning_move(frame.x, frame.y), strict=True):
        pd.testing.assert_series_equal(got.compute(), want)
    bad = dd.from_pandas(frame.assign(y=[1, 2, 3, 4, -5, 6, 7, 8, 9]), npartitions=3)
    # a partition's own index is not the frame's: its row label alone names the place
    with pytest.raises(ValueError, match=r"y \(row 104\) = -5 is negative"):
        wythoff.is_safe(bad.x, bad.y).compute()


def test_a_dask_frame_of_positions_gives_dask_series_as_its_pandas_frame_does():
    # global_is_p(ddf) gave a dask Array, its index dropped, where the pandas
    # frame gives a Series on its index
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    small = np.random.default_rng(9).integers(0, 6, size=(9, 3))  # searched exhaustively
    frame = pd.DataFrame(small, columns=list("abc"), index=range(100, 109))
    lazy = dd.from_pandas(frame, npartitions=3)
    for call in (fibonacci_nim.global_is_p, power_nim.is_p):
        got = call(lazy)
        assert isinstance(got, dd.Series), call
        pd.testing.assert_series_equal(got.compute(), call(frame))
    moves = fibonacci_nim.global_winning_move(lazy, 3)
    for got, want in zip(moves, fibonacci_nim.global_winning_move(frame, 3), strict=True):
        pd.testing.assert_series_equal(got.compute(), want)
    bad = dd.from_pandas(frame.assign(c=[1, 2, 3, 4, -5, 6, 7, 8, 9]), npartitions=3)
    with pytest.raises(ValueError, match=r"\(row 104, column 'c'\) = -5 is negative"):
        fibonacci_nim.global_is_p(bad).compute()
