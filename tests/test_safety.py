"""No input crashes the process, reads memory that was never written, runs without
bound, or changes what the user passed in; each test here is a defect once found."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from _support import F, subprocess_env

import fibnim
from fibnim import _backend, classify, fibonacci_nim, power_nim, solvers, wythoff
from fibnim._exact import zeckendorf as exact

# Every public function of arrays, with one argument standing for all of them.
ELEMENTWISE = {
    "fib": fibnim.fib,
    "encode": fibnim.encode,
    "decode": fibnim.decode,
    "lowest_term": fibnim.lowest_term,
    "is_fibonacci": fibnim.is_fibonacci,
    "term_count": fibnim.term_count,
    "digits": fibnim.digits,
    "to_string": fibnim.to_string,
    "second_canonical": fibnim.second_canonical,
    "pair": wythoff.pair,
    "is_safe": lambda a: wythoff.is_safe(a, a[::-1]),
    "is_lower": wythoff.is_lower,
    "is_upper": wythoff.is_upper,
    "index": wythoff.index,
    "partner": wythoff.partner,
    "winning_move": lambda a: wythoff.winning_move(a, a[::-1]),
    "array_position": wythoff.array_position,
    "fibonacci_nim.is_p": fibonacci_nim.is_p,
    "winning_take": fibonacci_nim.winning_take,
}
OF_POSITIONS = {
    "global_is_p": fibonacci_nim.global_is_p,
    "global_winning_move": fibonacci_nim.global_winning_move,
    "power_nim.is_p": power_nim.is_p,
    "power_nim.winning_move": power_nim.winning_move,
    "classify": lambda p: classify(p, "nim"),
}


def run_python(
    code: str, timeout: float = 120, implementation: str | None = None
) -> subprocess.CompletedProcess[str]:
    """code in a new interpreter on the test's backend (and implementation)."""
    env = subprocess_env()
    if implementation is not None:
        env["FIBNIM_IMPLEMENTATION"] = implementation
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


# --- masked arrays: refused, never computed on ---------------------------------------------


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_masked_arrays_are_refused(name):
    # the masked -3 once reached encode's kernel unchecked: a segmentation fault
    masked = np.ma.array([1, 2, -3], mask=[0, 0, 1])
    with pytest.raises(TypeError, match="masked array"):
        ELEMENTWISE[name](masked)


@pytest.mark.parametrize("name", OF_POSITIONS)
def test_masked_positions_are_refused(name):
    masked = np.ma.array([[1, 2], [3, -6]], mask=[[0, 0], [0, 1]])
    with pytest.raises(TypeError, match="masked array"):
        OF_POSITIONS[name](masked)


class Tagged(np.ndarray):
    """An ndarray subclass of a user's."""


def test_other_subclasses_count_as_their_plain_arrays():
    tagged = np.array([[1, 2, 3]]).view(Tagged)
    assert (fibnim.encode(tagged) == fibnim.encode(np.array([[1, 2, 3]]))).all()


# --- out= that overlaps the input, outs that alias each other ------------------------------


@pytest.mark.parametrize("size", [10, 200_001])
def test_out_overlapping_the_input_gives_the_answer_without_overlap(size):
    # encode(x[:-1], out=x[1:]) once gave a wrong last value, and crashed at 200,000
    x = np.arange(size, dtype=np.uint64)
    expected = fibnim.encode(x[:-1].copy())
    result = fibnim.encode(x[:-1], out=x[1:])
    assert result is not None and (x[1:] == expected).all() and x[0] == 0
    y = np.arange(size, dtype=np.uint64)
    expected = fibnim.encode(y[1:].copy())
    fibnim.encode(y[1:], out=y[:-1])
    assert (y[:-1] == expected).all()


def test_out_may_be_the_input_itself():
    x = np.arange(1000, dtype=np.int64)
    y = x[::-1].copy()
    expected = wythoff.winning_move(x, y)
    tx, ty = wythoff.winning_move(x, y, out=(x, y))
    assert tx is x and ty is y
    assert (x == expected[0]).all() and (y == expected[1]).all()
    n = np.arange(500, dtype=np.int64)
    a, b = wythoff.pair(n.copy())
    second = np.empty_like(n)
    wythoff.pair(n, out=(n, second))
    assert (n == a).all() and (second == b).all()


def test_outs_that_share_memory_are_refused():
    a = np.arange(5, dtype=np.int64)
    with pytest.raises(ValueError, match=r"out\[0\] and out\[1\] share memory"):
        wythoff.pair(a, out=(a, a))
    both = np.empty((5, 2), dtype=np.int64)
    halves = np.empty(10, dtype=np.int64)
    with pytest.raises(ValueError, match="share memory"):
        wythoff.winning_move(a, a, out=(halves[:5], halves[4:9]))
    # interleaved columns of one array share no element: allowed
    tx, ty = wythoff.winning_move(a, a[::-1], out=(both[:, 0], both[:, 1]))
    assert np.shares_memory(tx, both) and np.shares_memory(ty, both)
    expected = wythoff.winning_move(a, a[::-1])
    assert (both[:, 0] == expected[0]).all() and (both[:, 1] == expected[1]).all()


def test_inputs_are_not_modified_by_a_refused_call():
    a = np.array([5, -1, 7], dtype=np.int64)
    before = a.copy()
    with pytest.raises(ValueError):
        fibnim.encode(a)
    assert (a == before).all()


# --- every shape has a defined answer, never uninitialized memory ---------------------------


@pytest.mark.parametrize("shape", [(4, 0), (2, 3, 0)])
def test_positions_without_piles_are_p_positions_without_moves(shape):
    # power_nim.winning_move(np.empty((4, 0))) once returned heap addresses
    for dtype in (np.int64, np.uint8, object):
        piles = np.empty(shape, dtype=dtype)
        leading = shape[:-1]
        for is_p in (power_nim.is_p, fibonacci_nim.global_is_p):
            answer = is_p(piles)
            assert answer.shape == leading and answer.all()
        for move in (power_nim.winning_move, fibonacci_nim.global_winning_move):
            pile, take = move(piles)
            assert pile.shape == take.shape == leading
            assert (np.asarray(pile) == -1).all() and (np.asarray(take) == -1).all()
        assert fibonacci_nim.global_is_p(piles, r=3).all()


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 0)])
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_empty_arrays(name, shape):
    result = ELEMENTWISE[name](np.empty(shape, dtype=np.int64))
    for part in result if isinstance(result, tuple) else (result,):
        assert part.shape[: len(shape)] == shape and part.size == 0


@pytest.mark.parametrize("name", OF_POSITIONS)
def test_no_positions(name):
    result = OF_POSITIONS[name](np.empty((0, 3), dtype=np.int64))
    for part in result if isinstance(result, tuple) else (result,):
        assert part.shape[0] == 0 and part.size == 0


# --- input changed by another thread while a call runs --------------------------------------


@pytest.mark.parametrize("implementation", _backend.IMPLEMENTATIONS)
def test_input_changed_by_another_thread_never_crashes(implementation):
    # A thread wrote large values into the array while encode ran on it: the kernel
    # trusted the checks made before, and the process crashed within 20 s. Each
    # implementation's vector kernels read values in blocks, and are run here too.
    if _backend.name() == "python":
        if implementation != "scalar":
            pytest.skip("the pure twin has no implementations to choose: it runs once")
    elif implementation not in _backend.implementations():
        pytest.skip(f"this processor (or build) does not run {implementation}")
    size = 1 << 18 if _backend.name() == "cython" else 1 << 10
    result = run_python(
        f"SIZE = {size}\n"
        + textwrap.dedent(
            """
        import threading, time
        import numpy as np
        import fibnim
        from fibnim import fibonacci_nim, wythoff

        size = SIZE
        small = np.arange(size, dtype=np.int64) % 100_000
        shared = small.copy()
        huge = np.int64(2**62 + 12345)  # past encode's and fib's limits, within the others'
        big = np.full(size, huge)
        done = threading.Event()

        def write():
            rng = np.random.default_rng(1)
            while not done.is_set():
                where = rng.integers(0, size, 64)
                shared[where] = huge  # above every limit below
                shared[where] = small[where]

        # (function, its answers on small, on big, None where big is refused)
        calls = [
            (fibnim.encode, fibnim.encode(small), None),
            (fibnim.fib, None, None),
            (fibnim.lowest_term, fibnim.lowest_term(small), fibnim.lowest_term(big)),
            (
                lambda a: wythoff.winning_move(a, small)[0],
                wythoff.winning_move(small, small)[0],
                wythoff.winning_move(big, small)[0],
            ),
            (fibonacci_nim.is_p, fibonacci_nim.is_p(small), fibonacci_nim.is_p(big)),
            (
                lambda a: wythoff.is_safe(a, small),
                wythoff.is_safe(small, small),
                wythoff.is_safe(big, small),
            ),
            (wythoff.is_lower, wythoff.is_lower(small), wythoff.is_lower(big)),
            (lambda a: wythoff.pair(a)[0], wythoff.pair(small)[0], None),
        ]
        writer = threading.Thread(target=write)
        writer.start()
        refused = answered = 0
        # at least 3 s of races, then on until a value was refused and a few
        # rounds ran (a busy machine may need longer); 60 s only bounds a hang
        start = time.monotonic()
        try:
            while True:
                elapsed = time.monotonic() - start
                if elapsed > 60 or (elapsed > 3 and refused and answered + refused > 10):
                    break
                for function, on_small, on_big in calls:
                    try:
                        answer = function(shared)
                    except (OverflowError, ValueError, RuntimeError):
                        refused += 1
                        continue
                    answered += 1
                    # each element is the answer for a value as written, checked
                    # when read: never from a refused value, never from garbage
                    right = answer == on_small
                    if on_big is not None:
                        right |= answer == on_big
                    assert right.all(), function
        finally:
            done.set()
            writer.join()
        print(answered, refused)
        """
        ),
        implementation=implementation if _backend.name() == "cython" else None,
    )
    assert result.returncode == 0, result.stderr
    answered, refused = map(int, result.stdout.split())
    assert refused > 0 and answered + refused > 10


# --- bounded work ----------------------------------------------------------------------------

LIMIT = fibnim.DIGITS_LIMIT


def test_fib_of_a_huge_index_is_refused():
    # fib(10**30) once ran until memory ran out
    with pytest.raises(OverflowError, match="DIGITS_LIMIT"):
        fibnim.fib(10**30)
    with pytest.raises(OverflowError, match=r"k\[1\] = 18446744073709551621"):
        fibnim.fib(np.array([1, 2**64 + 5], dtype=object))
    assert fibnim.fib(LIMIT) == exact.fib(LIMIT)
    with pytest.raises(OverflowError, match="DIGITS_LIMIT"):
        fibnim.fib(LIMIT + 1)


def test_numbers_up_to_the_limit_and_not_past_it():
    top = exact.fib(LIMIT + 2) - 1  # the largest number with LIMIT Zeckendorf digits
    code = fibnim.encode(top)
    assert code.bit_length() == LIMIT and code & (code >> 1) == 0
    assert fibnim.decode(code) == top
    for function in (fibnim.encode, fibnim.to_string, fibnim.lowest_term, fibnim.digits):
        with pytest.raises(OverflowError, match="DIGITS_LIMIT"):
            function(top + 1)
    with pytest.raises(OverflowError, match=r"n\[1\] = <an int of \d+ bits> needs more than"):
        fibnim.encode(np.array([1, 10**120000], dtype=object))
    assert fibnim.decode(fibnim.encode(10**100000)) == 10**100000  # once a minute's work
    with pytest.raises(OverflowError, match="more than DIGITS_LIMIT"):
        wythoff.is_safe(2 ** (LIMIT + 1), 3)


def test_big_numbers_against_the_greedy_rule():
    rng = np.random.default_rng(5)
    for bits in (300, 2000, 6000):
        n = int.from_bytes(rng.bytes(bits // 8), "little") | 1
        fibs = list(F)
        while fibs[-1] <= n:
            fibs.append(fibs[-1] + fibs[-2])
        expected, rest = 0, n
        for k in range(len(fibs) - 1, 1, -1):
            if fibs[k] <= rest:
                expected |= 1 << (k - 2)
                rest -= fibs[k]
        assert fibnim.encode(n) == expected
        assert fibnim.decode(expected) == n
        assert fibnim.parse(format(expected, "b")) == n


def test_parse_of_long_strings():
    # parse of 200,000 digits once took a minute: now it adds halves, not terms
    digits = "1" * 200_000
    p = q = 0  # the value with the last digit for F_2, and with the last for F_1
    for d in map(int, digits[:20_000]):
        p, q = p + q + d, p + d
    assert fibnim.parse(digits[:20_000]) == p
    assert fibnim.parse(digits[:20_000], style="silber") == q
    assert fibnim.parse(digits).bit_length() > 100_000
    with pytest.raises(OverflowError, match="DIGITS_LIMIT"):
        fibnim.parse("1" * (LIMIT + 1))


def test_digits_width_and_terms_have_limits():
    with pytest.raises(OverflowError, match="DIGITS_LIMIT"):
        fibnim.digits(5, width=10**9)
    assert fibnim.digits(5, width=LIMIT).shape == (LIMIT,)
    n = 2**fibnim.TERMS_BITS_LIMIT - 1
    assert sum(fibnim.terms(n)) == n
    with pytest.raises(OverflowError, match="TERMS_BITS_LIMIT"):
        fibnim.terms(n + 1)
    with pytest.raises(OverflowError, match="TERMS_BITS_LIMIT"):
        wythoff.explain(n + 1, 1)


@pytest.mark.parametrize(
    "call",
    [
        "fibnim.solvers.grundy('queen', 10000)",
        "fibnim.solvers.board('queen+knight', 30000)",
        "fibnim.solvers.global_outcome([400, 400, 400])",
    ],
)
def test_searches_stop_on_ctrl_c(call):
    # grundy('queen', 10000) once ran for minutes and ignored Ctrl-C. The child
    # loads what the search needs and searches once before it says go (on a busy
    # machine a signal 0.3 s after import could land in numpy's import), then
    # searches again and again, so the signal lands in a search however fast the
    # machine; no clock decides: the KeyboardInterrupt must come from inside the
    # search (fibnim/solvers.py in its traceback), not after it returned
    if _backend.name() == "python" and "global_outcome" in call:
        call = "fibnim.solvers.grundy('queen', 10000)"  # the pure twin's limit refuses it
    small = "fibnim.solvers.grundy('queen', 2)"
    script = f"import fibnim\n{small}\nprint('go', flush=True)\nwhile True:\n    {call}"
    env = subprocess_env()
    env["PYTHONFAULTHANDLER"] = "1"  # a child the guard below ends shows where it was
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None and process.stdout.readline() == "go\n"
    time.sleep(0.3)  # into the first long search, on most machines; any moment will do
    process.send_signal(signal.SIGINT)
    # a child that searches on is aborted, its stack in err (a guard against a
    # hang, not a measure)
    guard = threading.Timer(120, process.send_signal, (signal.SIGABRT,))
    guard.start()
    _, err = process.communicate()
    guard.cancel()
    assert process.returncode == -signal.SIGINT and "KeyboardInterrupt" in err, err
    assert "fibnim/solvers.py" in err.replace("\\", "/"), err


def test_solvers_refuse_boards_past_their_limits():
    with pytest.raises(ValueError, match="above 10000"):
        solvers.grundy("queen", 10001)


# --- dask ----------------------------------------------------------------------------------


def test_dask_errors_name_the_index_in_the_whole_array():
    da = pytest.importorskip("dask.array")
    x = np.arange(100, dtype=np.int64)
    x[73] = -5
    with pytest.raises(ValueError, match=r"n\[73\] = -5 is negative"):
        fibnim.encode(da.from_array(x, chunks=10)).compute()
    p = np.ones((50, 2), dtype=np.int64)
    p[37, 1] = -2
    with pytest.raises(ValueError, match=r"piles\[37, 1\] = -2"):
        fibnim.fibonacci_nim.global_is_p(da.from_array(p, chunks=(8, 2))).compute()
    y = np.arange(100).reshape(10, 10)
    y[7, 8] = -1
    with pytest.raises(ValueError, match=r"x\[7, 8\] = -1"):
        wythoff.is_safe(da.from_array(y, chunks=(3, 4)), 5).compute()
