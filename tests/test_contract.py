"""One contract at every door: what a value is, what an output may replace, what
size a file may claim, and what the command says when something goes wrong.

The differential test at the top runs every public array function on a
generated set of bad inputs, on each implementation of the compiled core and
on the pure twin, and asserts that each raises the same exception type (or
gives the same answer). The tests below it are the faults a fault probe found,
each through more than one door."""

from __future__ import annotations

import contextlib
import decimal
import fractions
import io
import os
import shutil
import stat
import struct
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from _support import run_fibnim, subprocess_env, sweep, tier

import fibnim
from fibnim import _backend, coding, wythoff
from fibnim._declarations import DECLARATIONS, SHAPED

pd = pytest.importorskip("pandas")


def public(name: str):
    """The public function of a declaration's name ("wythoff.is_safe", "classify")."""
    module, _, function = name.rpartition(".")
    return getattr(getattr(fibnim, module) if module else fibnim, function)


def bad_inputs(inputs: int) -> list[tuple[str, tuple, dict]]:
    """(label, args, kwargs) of calls that every function must refuse the same way
    on every backend, and a few that it must answer the same way."""
    ok = np.array([3, 10], dtype=np.int64)
    cases: list[tuple[str, tuple, dict]] = []
    one = [
        ("float", 3.7),
        ("integral float", 3.0),
        ("bool", True),
        ("str", "3"),
        ("Decimal", decimal.Decimal(3)),
        ("Fraction", fractions.Fraction(3)),
        ("None", None),
        ("negative", -1),
        ("object float array", np.array([3, 3.7], dtype=object)),
        ("object str Series", pd.Series([3, "5"], dtype=object)),
        ("object float Series", pd.Series([3.7, 5], dtype=object)),
        ("Decimal Series", pd.Series([decimal.Decimal(4)], dtype=object)),
        ("float array", np.array([3.0, 5.0])),
        ("negative in Int64 with NA", pd.Series([3, -1, None], dtype="Int64")),
        ("masked", np.ma.masked_array([3, 5], mask=[0, 1])),
        ("huge beside array", 10**30),
        ("2**64 beside array", 2**64),
    ]
    for label, value in one:
        if "beside" in label and inputs == 1:
            continue  # a Python int alone is answered exactly at any size
        args = (value,) if inputs == 1 else (value, ok) if "beside" not in label else (ok, value)
        cases.append((label, args, {}))
    array = (ok,) * inputs
    cases += [
        ("where= of ints", array, {"where": np.array([1, 0])}),
        ("casting= unknown", array, {"casting": "bogus"}),
        ("order= unknown", array, {"order": "X"}),
        ("out= of a wider shape", array, {"out": None}),  # filled in below
        ("Int64 with NA", (pd.Series([8, None], dtype="Int64"),) * inputs, {}),
        ("negative beside too large", (np.array([2**63 + 5, 1], np.uint64), -1)[:inputs], {}),
        # numpy's casting= on the cast to the loop: the pure twin answered
        ("casting no of uint32", (np.array([3, 10], np.uint32),) * inputs, {"casting": "no"}),
        ("casting no of >i8", (np.array([3, 10], ">i8"),) * inputs, {"casting": "no"}),
    ]
    return cases


def outcome(function, args, kwargs, outputs: int):
    """What a call gives: ("raises", type) or ("gives", its values as lists)."""
    if "out" in kwargs and kwargs["out"] is None:
        kwargs = dict(kwargs)
        shape = (3, 2)
        outs = tuple(np.zeros(shape, dtype=np.dtype(o)) for o in outputs)
        kwargs["out"] = outs if len(outs) > 1 else outs[0]
    try:
        result = function(*args, **kwargs)
    except (TypeError, ValueError, OverflowError) as error:
        return ("raises", type(error).__name__)
    results = result if isinstance(result, tuple) else (result,)
    return ("gives", [pd.Series(np.ravel(np.asarray(r, dtype=object))).tolist() for r in results])


def across_implementations(run):
    """{"backend/implementation": run()} for every implementation of the compiled
    core and for the pure twin."""
    seen = {}
    before = fibnim.implementation
    try:
        for chosen, implementation in each_implementation():
            _backend.use(chosen)
            if implementation is not None:
                fibnim.use_implementation(implementation)
            seen[f"{chosen}/{implementation}"] = run()
    finally:
        _backend.use("cython")
        fibnim.use_implementation(before)
    return seen


def each_implementation():
    """(backend, implementation) for every implementation of the compiled core
    and the pure twin."""
    runs = [("python", None)]
    if "cython" in _backend.available():
        runs += [("cython", name) for name in fibnim.implementations()]
    return runs


def declared(name: str):
    """A declaration, its public function, and the inputs a call gives it
    (one where the last has a default)."""
    d = DECLARATIONS[name]
    return d, public(name), len(d.inputs) if d.default_last is None else 1


@pytest.mark.parametrize("name", list(DECLARATIONS))
def test_every_backend_and_implementation_raises_the_same_type_for_every_bad_input(backend, name):
    if backend == "python":
        pytest.skip("the test switches backends itself")
    d, function, inputs = declared(name)
    runs = across_implementations(
        lambda: {
            label: outcome(function, args, kwargs, list(d.outputs))
            for label, args, kwargs in bad_inputs(inputs)
        }
    )
    seen: dict[str, dict[str, object]] = {}
    for run, outcomes in runs.items():
        for label, got in outcomes.items():
            seen.setdefault(label, {})[run] = got
    for label, by_run in seen.items():
        assert len({repr(v) for v in by_run.values()}) == 1, (name, label, by_run)
        # refused by every function (the others: by some, answered by the rest)
        if label not in ("Int64 with NA", "out= of a wider shape", "negative beside too large"):
            assert next(iter(by_run.values()))[0] == "raises", (name, label, by_run)


@pytest.mark.parametrize("name", list(DECLARATIONS))
def test_every_backend_gives_answers_of_the_same_types(backend, name):
    # a Python int with casting= was np.int64 on one and int on the other, and
    # an Int64 Series beside a Python int boolean on one and bool on the other
    if backend == "python":
        pytest.skip("the test switches backends itself")
    _, function, inputs = declared(name)
    n, m = (5, 10) if name.endswith("decode") else (3, 10)  # codes for decode
    calls = [
        ((n,) * inputs, {}),
        ((n,) * inputs, {"casting": "same_kind"}),
        ((n,) * inputs, {"order": "C"}),
        ((pd.Series([n, m], dtype="Int64"), *(n,) * (inputs - 1)), {}),
        ((pd.Series([n, m]), *(n,) * (inputs - 1)), {}),
        ((pd.Series([n, m], dtype="UInt64"),) * inputs, {}),
    ]

    def kinds():
        seen = []
        for args, kwargs in calls:
            result = function(*args, **kwargs)
            results = result if isinstance(result, tuple) else (result,)
            seen.append([(type(r).__name__, str(getattr(r, "dtype", ""))) for r in results])
        return seen

    runs = across_implementations(kinds)
    assert len({repr(v) for v in runs.values()}) == 1, (name, runs)


def other_calls():
    """(label, function, args, kwargs): the public functions that are not
    declared elementwise (the shaped ones, classify, coding), each on bad values,
    sizes and keywords."""
    ok = np.array([3, 10])
    positions = np.array([[3, 5], [4, 8]])
    calls = []
    for value_label, value in (
        ("float", np.array([3.5, 2.0])),
        ("object str", np.array([3, "4"], dtype=object)),
        ("object Decimal Series", pd.Series([3, decimal.Decimal(4)], dtype=object)),
        ("negative", np.array([3, -4])),
        ("bool", np.array([True, False])),
        ("huge object", np.array([3, 2**600], dtype=object)),
    ):
        for name in ("zeckendorf.digits", "zeckendorf.to_string", "zeckendorf.second_canonical"):
            calls.append((f"{name} {value_label}", public(name), (value,), {}))
        for name in ("power_nim.is_p", "power_nim.winning_move", "fibonacci_nim.global_is_p"):
            piles = np.stack([value, value[::-1]], axis=-1) if value.ndim == 1 else value
            calls.append((f"{name} {value_label}", public(name), (piles,), {}))
        rows = np.stack([np.asarray(value), np.asarray(value)[::-1]], axis=-1)
        calls.append((f"classify {value_label}", fibnim.classify, (rows, "wythoff"), {}))
        calls.append((f"pack {value_label}", coding.pack, (value,), {}))
        calls.append((f"lengths {value_label}", coding.lengths, (value,), {}))
    calls += [
        ("classify out= too small", fibnim.classify, (positions, "wythoff"),
         {"out": np.zeros((1, 3), np.int64)}),
        ("classify columns= of a list", fibnim.classify, (positions, "wythoff"), {"columns": 1}),
        ("unpack count= past the bits", coding.unpack, (b"\xc0",), {"count": 10**12}),
        ("unpack count= a float", coding.unpack, (b"\xc0",), {"count": 1.0}),
        ("unpack out= past the bits", coding.unpack, (b"\xc0",), {"out": np.empty(9, np.uint64)}),
        ("unpack data a list", coding.unpack, ([1, 2],), {}),
        ("pack delta of a decreasing run", coding.pack, (ok[::-1],), {"delta": True}),
        ("digits width= too small", fibnim.digits, (ok,), {"width": 2}),
    ]  # fmt: skip
    return calls


@pytest.mark.parametrize("call", other_calls(), ids=lambda call: call[0])
def test_the_other_public_functions_raise_one_type_on_every_backend(backend, call):
    if backend == "python":
        pytest.skip("the test switches backends itself")
    label, function, args, kwargs = call
    seen = across_implementations(lambda: outcome(function, args, dict(kwargs), []))
    assert len({repr(v) for v in seen.values()}) == 1, (label, seen)


@pytest.mark.parametrize("name", list(SHAPED))
def test_the_shaped_functions_refuse_values_that_are_not_integers_on_both_backends(name):
    function = public(name)
    positions = name != "zeckendorf.digits" and "string" not in name and "canonical" not in name
    for value in (3.7, "3", decimal.Decimal(3), True):
        column = pd.Series([3, value], dtype=object)
        data = pd.DataFrame({"x": column, "y": [5, 8]}) if positions else column
        args = (data, "wythoff") if name == "classify" else (data,)
        with pytest.raises(TypeError, match=r"\[1(, 0)?\]( \(.*\))? = .* not an integer"):
            function(*args)


# --- 1. what a value is ------------------------------------------------------------------


def test_object_dtype_pandas_and_xarray_are_held_to_the_ndarray_rule():
    xr = pytest.importorskip("xarray")
    for value, kind in ((3.7, "float"), ("3", "str"), ("1_000", "str"), ("\u0663", "str")):
        for data in (
            pd.Series([5, value], dtype=object),
            xr.DataArray(np.array([5, value], dtype=object)),
            np.array([5, value], dtype=object),
        ):
            with pytest.raises(TypeError, match=rf"encode: n\[1\] = .* is a {kind}, not"):
                fibnim.encode(data)
    with pytest.raises(TypeError, match=r"is_safe: x\[0\] = 3.2 is a float"):
        wythoff.is_safe(pd.Series([3.2], dtype=object), pd.Series([5.9], dtype=object))
    # Python ints in an object Series stay exact at any size
    big = pd.Series([2**70, 5], dtype=object)
    assert fibnim.digits(big).shape[0] == 2


def test_a_missing_value_is_missing_in_the_answer_and_the_others_are_exact():
    values = pd.Series([2**62 + 1, None, 7], dtype="Int64")
    codes = fibnim.is_fibonacci(values)
    assert codes.isna().tolist() == [False, True, False] and codes[2] is np.False_
    safe = wythoff.is_safe(values, values)
    assert safe.isna().tolist() == [False, True, False]
    lower = wythoff.is_lower(pd.Series([2**62 + 1], dtype="Int64"))
    assert lower[0] == wythoff.is_lower(2**62 + 1)
    with pytest.raises(ValueError, match=r"encode: n\[1\] = -1 is negative"):
        fibnim.encode(pd.Series([3, -1, None], dtype="Int64"))
    # classify and the functions of positions: a row with a missing pile gets NA
    frame = pd.DataFrame({"x": pd.Series([3, None, 4], dtype="Int64"), "y": [5, 6, 8]})
    result = fibnim.classify(frame, "wythoff")
    assert result["is_p"].isna().tolist() == [False, True, False]
    assert result["is_p"][0] and result.loc[2, "move_2"] == 7
    assert result["move_1"].isna().tolist() == [True, True, False]
    nim = fibnim.power_nim.is_p(frame)
    assert nim.isna().tolist() == [False, True, False]
    with pytest.raises(ValueError, match=r"classify: positions\[1, 0\] is missing \(NA\)"):
        fibnim.classify(frame, "wythoff", out=np.zeros((3, 3), np.int64))
    # the neighbours: an Index, pyarrow's integers, a coded stream
    index = fibnim.encode(pd.Index([3, None], dtype="Int64"))
    assert isinstance(index, pd.Index) and index.isna().tolist() == [False, True]
    arrow = pytest.importorskip("pyarrow") and pd.Series([3, None, -2], dtype="int64[pyarrow]")
    with pytest.raises(ValueError, match=r"encode: n\[2\] = -2 is negative"):
        fibnim.encode(arrow)
    with pytest.raises(ValueError, match=r"pack: values\[1\] is missing \(NA\)"):
        coding.pack(pd.Series([3, None], dtype="Int64"))


# --- 5. both backends, one contract -------------------------------------------------------


def test_a_python_int_beside_arrays_is_held_to_the_arrays_bounds_on_both_backends():
    with pytest.raises(OverflowError, match="y = 18446744073709551616"):
        wythoff.is_safe(np.array([5, 15], np.uint64), 2**64)
    with pytest.raises(ValueError, match="y = -1 is negative"):
        wythoff.is_safe(np.array([2**63 + 5, 1], np.uint64), -1)
    # alone, a Python int is exact at any size
    assert wythoff.is_safe(10**30, 10**30) is False


def test_numpy_keywords_follow_numpys_rules_on_both_backends():
    n = np.array([1, 2, 3, 4])
    with pytest.raises(TypeError, match="where= must be an array of bools"):
        fibnim.encode(n, where=np.array([1, 0, 2, 0]))
    with pytest.raises(ValueError, match="casting must be one of"):
        fibnim.encode([46], casting="bogus")
    out = np.zeros((3, 2), np.uint64)
    assert fibnim.encode(np.array([3, 10]), out=out) is out
    assert out.tolist() == [[4, 18]] * 3
    assert fibnim.encode(n, where=[True, False, True, False]).tolist() == [1, 0, 4, 0]


# --- 2. an output never destroys anything -------------------------------------------------


def npy(path, values) -> str:
    np.save(path, np.asarray(values, dtype=np.int64))
    return str(path)


@pytest.mark.parametrize("command", ["pack", sweep("unpack"), sweep("classify")])
def test_an_output_that_is_an_input_is_refused_by_every_command(tmp_path, command):
    values = npy(tmp_path / "v.npy", [[3, 5], [4, 8]])
    source = values
    if command == "unpack":
        source = str(tmp_path / "v.fnc")
        coding.write(source, [1, 2, 3])
    if command == "pack":
        values = npy(tmp_path / "v.npy", [3, 5, 8])
        source = values
    os.link(source, tmp_path / "hard")
    os.symlink(source, tmp_path / "soft")
    extra = ["--game", "wythoff"] if command == "classify" else []
    before = Path(source).read_bytes()
    for target in (source, tmp_path / "hard", tmp_path / "soft"):
        done = run_fibnim(command, source, "-o", str(target), "--force", *extra)
        assert done.returncode == 2 and "is the input" in done.stderr, done.stderr
    assert Path(source).read_bytes() == before


def test_a_fifo_is_written_as_a_stream_and_a_directory_is_never_replaced(tmp_path):
    coded = tmp_path / "ids.fnc"
    coding.write(coded, [5, 8, 13])
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    got: list[bytes] = []  # the FIFO's reader: a thread here (no other program is assumed)
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    done = run_fibnim("unpack", str(coded), "-o", str(fifo), "--force", "-q")
    if done.returncode != 0:  # it never opened the FIFO: the reader's open is let go
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    reader.join(timeout=60)
    assert done.returncode == 0, done.stderr
    data = got[0]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still a FIFO, not a file
    assert np.load(io.BytesIO(data)).tolist() == [5, 8, 13]
    assert run_fibnim("unpack", str(coded), "-o", "/dev/null", "--force", "-q").returncode == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    (tmp_path / "d.npy").mkdir()
    done = run_fibnim("unpack", str(coded), "-o", str(tmp_path / "d.npy"), "--force")
    assert done.returncode == 2 and "d.npy: is a directory" in done.stderr, done.stderr
    assert ".d.npy." not in done.stderr  # the user's path, never a temporary
    with pytest.raises(IsADirectoryError, match=r"write: .*is a directory"):
        coding.write(tmp_path / "d.npy", [1, 2])
    assert coding.write(os.fsencode(tmp_path / "b.fnc"), [1, 2]) > 0  # a bytes path
    assert coding.read(tmp_path / "b.fnc").tolist() == [1, 2]


def test_what_can_be_checked_before_the_work_is(tmp_path):
    values = npy(tmp_path / "in.npy", [[3, 5]])
    done = run_fibnim(
        "classify", values, "-o", str(tmp_path / "o.npy"), "--game", "wythoff",
        "--summary-plot", str(tmp_path / "nodir" / "p.png"),
    )  # fmt: skip
    assert done.returncode == 2 and "no directory" in done.stderr, done.stderr
    assert not (tmp_path / "o.npy").exists()  # refused before the work, not after


# --- 3. no size trusted beyond its bytes ---------------------------------------------------


def test_a_npy_header_that_claims_more_than_the_file_holds_is_named_at_once(tmp_path):
    path = tmp_path / "x.npy"
    with open(path, "wb") as file:
        np.lib.format.write_array_header_1_0(
            file, {"descr": "<i8", "fortran_order": False, "shape": (3, 2000000000)}
        )
    for arguments in (["classify", str(path), "-o", "-", "--game", "wythoff"],
                      ["pack", str(path), "-o", str(tmp_path / "x.fnc")]):  # fmt: skip
        done = run_fibnim(*arguments)
        assert done.returncode == 1, done.stderr
        assert "header is damaged or the file cut short" in done.stderr, done.stderr
    with open(path, "wb") as file:
        np.lib.format.write_array_header_1_0(
            file, {"descr": "<i8", "fortran_order": False, "shape": (-3, 2)}
        )
    done = run_fibnim("classify", str(path), "-o", "-", "--game", "wythoff")
    assert done.returncode == 1 and "negative size" in done.stderr, done.stderr


def test_a_coded_files_counts_and_lengths_are_held_to_its_bytes(tmp_path):
    file = io.BytesIO()
    coding.write(file, np.arange(1, 1001, dtype=np.uint64))
    data = bytearray(file.getvalue())
    # a block's bit length (bytes 32 to 40), each of its high bits flipped
    for bit in (40, 50, 62, 63):
        damaged = bytearray(data)
        damaged[32 + bit // 8] ^= 1 << (bit % 8)
        with pytest.raises(ValueError, match=r"block 0's header .* is damaged"):
            coding.read(io.BytesIO(bytes(damaged)))
        path = tmp_path / "d.fnc"
        path.write_bytes(bytes(damaged))
        with pytest.raises(ValueError, match="is damaged"):
            coding.read(path)
    for count in (10**12, 2**64 - 1):
        lying = bytearray(data)
        lying[8:24] = struct.pack("<HHIQ", 1, 0, coding._header_crc(1, 0, count), count)
        with pytest.raises(ValueError, match=r"the header's count .* more values than"):
            coding.read(io.BytesIO(bytes(lying)))
        path.write_bytes(bytes(lying))
        done = run_fibnim("unpack", str(path), "-o", str(tmp_path / "o.npy"))
        assert done.returncode == 1 and "more values than" in done.stderr, done.stderr
    for count in (10**12, 2**62):
        with pytest.raises(ValueError, match=r"count = .* more values than data's 8 bits"):
            coding.unpack(b"\xc0", count=count)
    with pytest.raises(ValueError, match="out's size"):
        coding.unpack(b"\xc0", out=np.empty(5, np.uint64))


def test_a_shape_that_could_never_be_filled_is_an_overflow_not_a_memory_error():
    with pytest.raises(OverflowError, match="exceeds 2\\*\\*63 - 1"):
        wythoff.array(5, 10**9)


# --- 4. no traceback from the command line ------------------------------------------------


def test_the_command_says_one_line_for_a_closed_stdout_a_bad_implementation_and_memory():
    done = subprocess.run(
        [sys.executable, "-m", "fibnim", "classify", "--random", "10", "--game", "wythoff",
         "-o", "-", "-q"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=subprocess_env(),
        preexec_fn=lambda: os.close(1),
    )  # fmt: skip
    assert done.returncode == 2 and "standard output is closed" in done.stderr, done.stderr
    env = {**subprocess_env(), "FIBNIM_IMPLEMENTATION": "no-such-path"}
    env.pop("FIBNIM_PURE_PYTHON", None)
    if "cython" in _backend.available():
        done = subprocess.run(
            [sys.executable, "-m", "fibnim", "classify", "--random", "10", "--game", "wythoff"],
            capture_output=True, text=True, env=env,
        )  # fmt: skip
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "FIBNIM_IMPLEMENTATION=no-such-path" in done.stderr


def test_unpack_loads_no_benchmark_suite():
    code = (
        "import sys; from fibnim import cli; cli.parser(bench_options=False); "
        "print('fibnim.bench.suite' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=subprocess_env()
    )
    assert done.stdout.strip() == "False", done.stderr


def test_a_signal_during_the_imports_is_held_until_they_are_done():
    from fibnim import _stop

    with pytest.raises(_stop.Signalled) as stop:
        with _stop.held_signals():
            os.kill(os.getpid(), 15)
            import fibnim.bench.suite  # noqa: F401  (an import that the signal came in)
    assert stop.value.number == 15


def test_a_dataset_with_text_piles_in_one_file_is_one_line(tmp_path):
    pytest.importorskip("dask.dataframe")
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    (tmp_path / "ds").mkdir()
    pq.write_table(pa.table({"x": [3, 4], "y": [5, 8]}), tmp_path / "ds" / "a.parquet")
    pq.write_table(pa.table({"x": [3.0, 4.0], "y": [5, 8]}), tmp_path / "ds" / "b.parquet")
    done = run_fibnim(
        "classify", str(tmp_path / "ds"), "-o", str(tmp_path / "out"), "--game", "wythoff"
    )
    assert done.returncode == 1, done.stderr
    assert "b.parquet: column 'x' holds double, where" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


# --- 6, 7. columns chosen unambiguously; messages ------------------------------------------


def test_duplicate_column_names_are_refused_when_named_and_never_written_to_parquet(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("x,x,y\n1,3,5\n")
    done = run_fibnim("classify", str(source), "-o", "-", "--game", "wythoff", "--columns", "x,y")
    assert done.returncode == 2 and "2 columns named 'x' (columns 0, 1" in done.stderr
    pytest.importorskip("pyarrow")
    source.write_text("id,id,x,y\n1,2,3,5\n")
    done = run_fibnim(
        "classify", str(source), "-o", str(tmp_path / "o.parquet"), "--game", "wythoff",
        "--columns", "x,y",
    )  # fmt: skip
    assert done.returncode == 2 and "two columns named 'id'" in done.stderr, done.stderr
    assert not (tmp_path / "o.parquet").exists()


def test_messages_name_the_file_and_big_numbers_without_pythons_digit_limit(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("x,y\n1," + "9" * 100_000 + "\n")
    done = run_fibnim("classify", str(source), "-o", "-", "--game", "wythoff")
    assert done.returncode == 1, done.stderr
    assert "in.csv:2: column 1 ('y'): a number of 100,000 digits is too large" in done.stderr
    assert "4300" not in done.stderr
    big = "1" + "0" * 5000
    done = run_fibnim("encode", big)
    assert done.returncode == 0 and big in done.stdout, done.stderr
    source.write_text("x,is_p\n1,2\n")
    done = run_fibnim("classify", str(source), "-o", str(tmp_path / "o.csv"), "--game", "wythoff")
    assert done.returncode == 2 and "in.csv: has a column named 'is_p'" in done.stderr


# --- 4. any memory limit: one line, never an abort ----------------------------------------


def limited(megabytes: int):
    """preexec_fn: an address-space limit (ulimit -v) for the child."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))

    return limit


@pytest.mark.skipif(sys.platform != "linux", reason="ulimit -v as Linux counts it")
def test_a_memory_limit_ends_a_command_in_one_line_and_parquet_is_refused_below_its_floor(
    tmp_path,
):
    pytest.importorskip("pyarrow")
    from fibnim import _arrow

    rows = np.random.default_rng(4).integers(0, 10**9, size=(200_000, 2))
    np.savetxt(tmp_path / "m.csv", rows, fmt="%d", delimiter=",", header="x,y", comments="")
    np.save(tmp_path / "ids.npy", np.arange(1, 200_001))
    commands = [
        ["pack", "ids.npy", "-o", "x.fnc"],
        ["classify", "m.csv", "-o", "o.parquet", "--game", "wythoff"],
        ["classify", "m.csv", "-o", "o.csv", "--game", "wythoff"],
    ]
    for megabytes in tier((120, 150, 250, 400), (120, 400)):
        for arguments in commands:
            done = run_fibnim(
                *arguments, "-q", "--force", cwd=tmp_path, preexec_fn=limited(megabytes)
            )
            # 0, or 1 (out of memory) or 2 (refused): never a signal (SIGABRT was
            # pyarrow's end when a thread of its own found no room)
            assert done.returncode in (0, 1, 2), (megabytes, arguments, done.stderr)
            assert "Traceback" not in done.stderr and done.stderr.count("\n") <= 1, done.stderr
    done = run_fibnim(*commands[1], "--force", cwd=tmp_path, preexec_fn=limited(400))
    assert done.returncode == 2, done.stderr
    assert f"pyarrow needs {_arrow.ARROW_FLOOR_MB} MB or more" in done.stderr
    assert not (tmp_path / "o.parquet").exists()


@pytest.mark.skipif(sys.platform != "linux", reason="ulimit -v as Linux counts it")
def test_a_dataset_under_a_memory_limit_is_refused_below_the_floor_or_runs(tmp_path):
    # it spun for ever in OpenBLAS's thread start (scipy, through dask.array),
    # deaf to SIGTERM, or aborted leaving its temporary directory behind
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from fibnim import _arrow

    (tmp_path / "ds").mkdir()
    rows = np.random.default_rng(5).integers(0, 10**6, size=(3, 50_000))
    for i, x in enumerate(rows):
        pq.write_table(pa.table({"x": x, "y": x[::-1]}), tmp_path / "ds" / f"{i}.parquet")
    for megabytes in tier((350, 400, 500, 600, 800), (400, 600)):
        shutil.rmtree(tmp_path / "out", ignore_errors=True)
        done = subprocess.run(
            [sys.executable, "-m", "fibnim", "classify", "ds", "-o", "out", "--game",
             "wythoff", "-q"],
            capture_output=True, text=True, cwd=tmp_path, env=subprocess_env(),
            preexec_fn=limited(megabytes), timeout=120,
        )  # fmt: skip
        assert done.returncode in (0, 1, 2), (megabytes, done.stderr)
        assert "Traceback" not in done.stderr and done.stderr.count("\n") <= 1, done.stderr
        if megabytes < _arrow.ARROW_FLOOR_MB:
            assert done.returncode == 2
            assert "ds: parquet under an address-space limit of" in done.stderr
            assert "raise the limit" in done.stderr and "CSV" not in done.stderr
        left = sorted(p.name for p in tmp_path.iterdir())
        assert left == (["ds", "out"] if done.returncode == 0 else ["ds"]), left


@pytest.mark.parametrize("where", ["result", "report"])
def test_a_worker_thread_that_dies_outside_its_chunk_ends_the_run_in_one_line(tmp_path, where):
    # What a memory limit did by chance: a MemoryError in the pool's own loop
    # (handing over a chunk's result) leaves that chunk never done, and one in
    # the report of it ends the thread with a traceback. Made certain here.
    np.save(tmp_path / "in.npy", np.arange(40_000).reshape(-1, 2))
    failing = (
        "concurrent.futures.Future.set_result = failed"
        if where == "result"
        else "concurrent.futures.Future.set_result = failed; logging.Logger.critical = failed"
    )
    program = (
        "import concurrent.futures, logging, sys\n"
        "def failed(*arguments, **keywords): raise MemoryError\n"
        f"{failing}\n"
        "from fibnim.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    options = ("--game", "wythoff", "-q", "--chunk", "4096")
    done = subprocess.run(
        [sys.executable, "-c", program, *("classify", "in.npy", "-o", "out.npy"), *options],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=subprocess_env(),
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("fibnim: out of memory") and done.stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.npy"]


@pytest.mark.skipif(sys.platform != "linux", reason="ulimit -f as Linux counts it")
@pytest.mark.parametrize("command", ["pack", "unpack", "classify"])
def test_a_file_size_limit_is_named_with_the_users_path_and_leaves_nothing(tmp_path, command):
    import resource

    np.save(tmp_path / "ids.npy", np.arange(1, 200_001))
    coding.write(tmp_path / "ids.fnc", np.arange(1, 200_001))
    arguments = {
        "pack": ["pack", "ids.npy", "-o", "out.fnc"],
        "unpack": ["unpack", "ids.fnc", "-o", "out.npy"],
        "classify": ["classify", "ids.npy", "-o", "out.csv", "--game", "fibonacci-nim"],
    }[command]

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 16, 1 << 16))

    done = run_fibnim(*arguments, "-q", cwd=tmp_path, preexec_fn=small_files)
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"fibnim: {arguments[3]}: File too large\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ids.fnc", "ids.npy"]
