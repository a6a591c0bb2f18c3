"""The compiled core, on each of its implementations, and the pure twin give the
same answers and the same errors, edge values included."""

from __future__ import annotations

import numpy as np
import pytest
from _support import UINT64_MAX, F, edge_values, tier
from hypothesis import given
from hypothesis import strategies as st

import fibnim
from fibnim import _backend, classify

F66 = F[66]


@pytest.fixture(params=_backend.IMPLEMENTATIONS, ids=lambda name: f"cython-{name}", autouse=True)
def backend(request: pytest.FixtureRequest):
    """Every test here compares the compiled core, on one implementation, with
    the pure twin; each implementation this processor runs gets every test."""
    if "cython" not in _backend.available():
        pytest.skip("no compiled extension in this installation")
    if request.param not in _backend.implementations():
        pytest.skip(f"this processor (or build) does not run {request.param}")
    before = (_backend.name(), _backend._CORE.implementation())
    _backend.use_implementation(request.param)
    yield request.param
    _backend.use(before[0])
    _backend.use_implementation(before[1])


def both(function, *args, **kwargs):
    """function(*args) on the compiled core and on the pure twin."""
    results = []
    for name in ("cython", "python"):
        _backend.use(name)
        results.append(function(*args, **kwargs))
    return results


def assert_same(function, *values, **kwargs):
    compiled, pure = both(function, *values, **kwargs)
    assert compiled.dtype == pure.dtype and compiled.shape == pure.shape
    assert (compiled == pure).all(), function.__name__


rng = np.random.default_rng(20261122)
SMALL = np.array(edge_values(F66 - 1), dtype=np.uint64)
WIDE = np.array(edge_values(UINT64_MAX), dtype=np.uint64)
RANDOM_CODES = rng.integers(0, F66, size=4_000, dtype=np.int64).reshape(40, 100)
RANDOM_WIDE = rng.integers(0, UINT64_MAX, size=4_000, dtype=np.uint64, endpoint=True)
# numbers of every size: random bit lengths 0..64
RANDOM_LENGTHS = (RANDOM_WIDE >> rng.integers(0, 64, size=4_000).astype(np.uint64)).reshape(4, -1)


@pytest.mark.parametrize("values", [SMALL, RANDOM_CODES], ids=["edges", "random"])
def test_encode(values):
    assert_same(fibnim.encode, values)


@pytest.mark.parametrize("values", [SMALL, RANDOM_CODES], ids=["edges", "random"])
def test_decode(values):
    assert_same(fibnim.decode, fibnim.encode(values))


@pytest.mark.parametrize(
    "function", [fibnim.lowest_term, fibnim.is_fibonacci, fibnim.digits, fibnim.to_string]
)
@pytest.mark.parametrize(
    "values", [WIDE, RANDOM_WIDE, RANDOM_LENGTHS], ids=["edges", "random", "lengths"]
)
def test_every_uint64(function, values):
    assert_same(function, values)


@pytest.mark.parametrize(
    "values", [WIDE[1:], RANDOM_WIDE, RANDOM_LENGTHS + 1], ids=["edges", "random", "lengths"]
)
def test_second_canonical(values):
    assert_same(fibnim.second_canonical, values)


def test_strings_in_silber_style_and_digits_with_width():
    assert_same(fibnim.to_string, RANDOM_LENGTHS, style="silber")
    assert_same(fibnim.digits, SMALL, width=70)
    assert_same(fibnim.digits, WIDE, width=130)


def test_fib():
    assert_same(fibnim.fib, np.arange(94, dtype=np.int16))


def test_same_errors():
    bad = np.array([5, F66, 7], dtype=np.int64)
    messages = []
    for name in ("cython", "python"):
        _backend.use(name)
        with pytest.raises(OverflowError) as info:
            fibnim.encode(bad)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def past_the_limit(values: np.ndarray, at: int, limit: int) -> np.ndarray:
    """values as uint64 with limit + 1 at index `at` and at every index after it
    that is a multiple of 8 (so a vector kernel meets it in its first block or later)."""
    bad = values.astype(np.uint64)
    bad[at] = limit + 1
    bad[at + 8 :: 8] = limit + 1
    return bad


VECTOR_KERNELS = {
    "is_safe": lambda v: fibnim.wythoff.is_safe(v, v[::-1].copy()),
    "winning_move": lambda v: fibnim.wythoff.winning_move(v[::-1].copy(), v),
    "is_lower": fibnim.wythoff.is_lower,
    "is_upper": fibnim.wythoff.is_upper,
    "pair": fibnim.wythoff.pair,
    "classify": lambda v: classify(np.stack([v[::-1], v], axis=-1), "wythoff"),
    "fibonacci_nim.is_p": lambda v: fibnim.fibonacci_nim.is_p(v[::-1].copy(), v),
    "global_is_p": lambda v: fibnim.fibonacci_nim.global_is_p(
        np.stack([v, v[::-1]], axis=-1), v[::-1].copy()
    ),
    "power_nim.is_p": lambda v: fibnim.power_nim.is_p(np.stack([v, v[::-1]], axis=-1), v),
}


@pytest.mark.parametrize("at", [0, 13, 37])
@pytest.mark.parametrize("kernel", VECTOR_KERNELS)
def test_each_path_stops_at_the_first_value_past_the_limit(kernel, at):
    """Every implementation checks its bound as it goes and names the same value and
    index as the pure twin, wherever in its blocks the bad value sits."""
    limit = fibnim.wythoff.PAIR_LIMIT if kernel == "pair" else 2**63 - 1
    values = past_the_limit(np.arange(64) * 1_000_003 % 977, at, limit)
    errors = []
    for name in ("cython", "python"):
        _backend.use(name)
        with pytest.raises((OverflowError, ValueError)) as info:
            VECTOR_KERNELS[kernel](values)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]
    assert str(limit + 1) in errors[0][1]


@pytest.mark.parametrize("at", [0, 13, 37])
def test_decode_stops_at_the_first_code_with_adjacent_bits(at):
    codes = fibnim.encode(np.arange(64) * 987_654_321_987 % (F66 - 1))
    codes[at] = codes[at] | 0b11 << (at % 62)
    codes[at + 8 :: 8] = 3
    errors = []
    for name in ("cython", "python"):
        _backend.use(name)
        with pytest.raises(ValueError) as info:
            fibnim.decode(codes)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
    assert f"code[{at}] = " in errors[0]


# --- Wythoff's Nim -----------------------------------------------------------------------

INT64_MAX = 2**63 - 1
PILES = np.array(edge_values(INT64_MAX), dtype=np.int64)
RANDOM_PILES = (
    rng.integers(0, INT64_MAX, size=3_000, dtype=np.int64, endpoint=True)
    >> rng.integers(0, 63, size=3_000)
).astype(np.int64)


def assert_same_tuple(function, *args, **kwargs):
    compiled, pure = both(function, *args, **kwargs)
    for c, p in zip(compiled, pure, strict=True):
        assert c.dtype == p.dtype and c.shape == p.shape
        assert (c == p).all(), function.__name__


@pytest.mark.parametrize("values", [PILES, RANDOM_PILES], ids=["edges", "random"])
def test_wythoff_one_pile(values):
    assert_same(fibnim.wythoff.is_lower, values)
    assert_same(fibnim.wythoff.is_upper, values)
    assert_same(fibnim.wythoff.index, values)
    assert_same_tuple(fibnim.wythoff.array_position, values[values > 0])
    fits = values[values <= fibnim.wythoff.PAIR_LIMIT]
    assert_same_tuple(fibnim.wythoff.pair, fits)
    assert_same(fibnim.wythoff.partner, values[fibnim.wythoff.is_upper(values) | (values < 2**62)])


@pytest.mark.parametrize("misere", [False, True])
def test_wythoff_two_piles(misere):
    a, b = fibnim.wythoff.pair(RANDOM_PILES[RANDOM_PILES <= fibnim.wythoff.PAIR_LIMIT])
    x = np.concatenate([a, b, a, RANDOM_PILES, PILES[:, None].repeat(3, 1).ravel()])
    y = np.concatenate(
        [b, a, np.maximum(b - 1, 0), RANDOM_PILES[::-1], np.tile(PILES[:3], len(PILES))]
    )
    assert_same(fibnim.wythoff.is_safe, x, y, misere=misere)
    assert_same_tuple(fibnim.wythoff.winning_move, x, y, misere=misere)
    small = np.arange(40)
    assert_same_tuple(fibnim.wythoff.winning_move, small[:, None], small, misere=misere)


# The vector kernels take floor(m (phi - 1)) from part of the exact product and
# hand a block to the exact scalar loop where that part leaves it unsure: where
# m (phi - 1) is within about 2**-31 of an integer, as it is for m = F_k, k >= 46
# (|F_k (phi - 1) - F_(k-1)| = (phi - 1)**k). Values near the magnitudes where
# a kernel's limbs or doubles change, Fibonacci numbers, true P-positions, and
# their neighbours, in blocks of any length and order.
NEAR = sorted({2**32, 2**40, 2**52, 2**62, INT64_MAX, *F[2:92], *fibnim.wythoff.pair(F[40:88])[0]})
near_values = st.builds(
    lambda base, step: min(max(base + step, 0), INT64_MAX),
    st.sampled_from(NEAR),
    st.integers(-3, 3),
)


@given(st.lists(near_values, max_size=40), st.data())
def test_wythoff_near_every_boundary_of_the_fast_paths(values, data):
    n = np.array(values, dtype=np.int64)
    assert_same(fibnim.wythoff.is_lower, n)
    assert_same(fibnim.wythoff.is_upper, n)
    assert_same_tuple(fibnim.wythoff.pair, n[n <= fibnim.wythoff.PAIR_LIMIT])
    # true P-positions from the values as n, their neighbours, and other values
    fits = n[n <= fibnim.wythoff.PAIR_LIMIT]
    a, b = fibnim.wythoff.pair(fits)
    nudge = data.draw(st.lists(st.integers(-1, 1), min_size=len(fits), max_size=len(fits)))
    x = np.concatenate([a, n]).astype(np.int64)
    y = np.concatenate([np.clip(b + np.array(nudge, dtype=np.int64), 0, INT64_MAX), n[::-1]])
    assert_same(fibnim.wythoff.is_safe, x, y)
    assert_same_tuple(fibnim.wythoff.winning_move, x, y)
    assert_same(lambda p: classify(p, "wythoff"), np.stack([x, y], axis=-1))


def test_wythoff_blocks_the_fast_split_cannot_decide():
    # every lane of every block unsure: the kernels hand each block back
    n = np.repeat(F[46:88], 8).astype(np.int64)
    a, b = fibnim.wythoff.pair(n)
    assert_same_tuple(fibnim.wythoff.pair, n)
    assert_same(fibnim.wythoff.is_safe, np.zeros_like(n), n)  # d = F_k
    assert_same(fibnim.wythoff.is_safe, a, b)
    assert_same_tuple(fibnim.wythoff.winning_move, a, b + 1)
    assert_same(fibnim.wythoff.is_lower, n - 1)  # x + 1 = F_k


# --- the Nim family and the solvers ------------------------------------------------------


@pytest.mark.parametrize("values", [PILES, RANDOM_PILES], ids=["edges", "random"])
def test_fibonacci_nim_one_pile(values):
    bounds = np.concatenate([values[1:], values[:1]])
    assert_same(fibnim.fibonacci_nim.is_p, values, bounds)
    assert_same(fibnim.fibonacci_nim.winning_take, values, bounds)
    assert_same(fibnim.fibonacci_nim.is_p, values)  # the opening bound n - 1
    assert_same(fibnim.fibonacci_nim.winning_take, values, 100)


def test_fibonacci_nim_two_piles():
    x = np.concatenate([RANDOM_PILES, PILES, np.arange(300)])
    y = np.concatenate([RANDOM_PILES[::-1] >> 3, PILES[::-1], np.arange(300)[::-1] // 2])
    piles = np.stack([x, y], axis=-1)
    for r in (None, 1, 7, np.concatenate([PILES, RANDOM_PILES, np.arange(300)]) >> 40):
        assert_same(fibnim.fibonacci_nim.global_is_p, piles, r)
        assert_same_tuple(fibnim.fibonacci_nim.global_winning_move, piles, r)


def fibonacci_boundaries() -> tuple[np.ndarray, np.ndarray]:
    """Piles whose lowest Zeckendorf index sits at the end of an arc of the
    compiled tests (F_a + F_b and its neighbours), and bounds around every F_t."""
    sums = {F[a] + F[b] + d for a in range(2, 92) for b in range(a + 2, 93) for d in (-1, 0, 1)}
    piles = np.array(sorted(v for v in sums if v <= INT64_MAX), dtype=np.int64)
    bounds = np.array(edge_values(INT64_MAX), dtype=np.int64)
    return piles, bounds


@pytest.mark.exhaustive
def test_fibonacci_nim_at_every_arc_end():
    piles, bounds = fibonacci_boundaries()
    n = np.concatenate([piles, np.arange(100)])
    r = rng.choice(bounds, size=n.size)
    assert_same(fibnim.fibonacci_nim.is_p, n, r)
    assert_same(fibnim.fibonacci_nim.is_p, n[:, None], bounds[::5])
    small = rng.choice(np.arange(200), size=piles.size)
    two = np.stack([small, np.minimum(small + piles, INT64_MAX)], axis=-1)
    assert_same(fibnim.fibonacci_nim.global_is_p, two, r[: two.shape[0]])
    assert_same(fibnim.fibonacci_nim.global_is_p, two[:400, None], bounds[::5])
    assert_same(fibnim.fibonacci_nim.global_is_p, two[:, ::-1], 0)


def assert_path_matches_scalar(calls) -> None:
    """Each call gives the same answers on this test's implementation as on the
    scalar one, on its arguments cut to lengths that are and are not multiples
    of the vector widths (4 and 8)."""
    path = fibnim.implementation
    if path == "scalar":
        pytest.skip("the scalar implementation is the reference here")
    try:
        for function, args in calls:
            for cut in (None, 7, 13):
                parts = [a[:cut] for a in args]
                vector = function(*parts)
                fibnim.use_implementation("scalar")
                scalar = function(*parts)
                fibnim.use_implementation(path)
                vectors = vector if isinstance(vector, tuple) else (vector,)
                scalars = scalar if isinstance(scalar, tuple) else (scalar,)
                for v, w in zip(vectors, scalars, strict=True):
                    assert (np.asarray(v) == np.asarray(w)).all(), function.__name__
    finally:
        fibnim.use_implementation(path)


def test_fibonacci_nim_paths_match_the_scalar_one():
    piles, bounds = fibonacci_boundaries()
    n = np.concatenate([piles, RANDOM_PILES, PILES, np.arange(1000)])
    r = np.concatenate([rng.choice(bounds, size=piles.size), RANDOM_PILES >> 20, PILES[::-1]])
    r = np.concatenate([r, np.arange(1000) % 17])
    two = np.stack([n, np.roll(n, 5) >> rng.integers(0, 63, size=n.size)], axis=-1)
    calls = [
        (fibnim.fibonacci_nim.is_p, (n, r)),
        (fibnim.fibonacci_nim.is_p, (n,)),
        (fibnim.fibonacci_nim.global_is_p, (two, r)),
        (fibnim.fibonacci_nim.global_is_p, (two,)),
    ]
    assert_path_matches_scalar(calls)


def test_power_nim():
    piles = RANDOM_PILES[: 3 * 900].reshape(900, 3)
    for r in (None, 1, 2**20, RANDOM_PILES[:900]):
        assert_same(fibnim.power_nim.is_p, piles, r)
        assert_same_tuple(fibnim.power_nim.winning_move, piles, r)
        assert_same(fibnim.power_nim.is_p, piles[:, :2] >> 50, r)


@pytest.mark.parametrize("piece", ["queen", "king+knight", "bishop", "rook+knight"])
def test_solvers(piece):
    assert_same(fibnim.solvers.board, piece, 60)
    assert_same(fibnim.solvers.board, piece, 60, misere=True)
    assert_same(fibnim.solvers.grundy, piece, 30)
    assert_same(fibnim.solvers.threshold_table, [6, 7, 8], False, "test")
    assert_same(fibnim.solvers.threshold_table, [6, 7, 8], True, "test")


def test_wythoff_paths_match_the_scalar_one():
    a, b = fibnim.wythoff.pair(RANDOM_PILES[RANDOM_PILES <= fibnim.wythoff.PAIR_LIMIT])
    x = np.concatenate([a, b, a + 1, RANDOM_PILES, PILES, np.arange(1000)])
    y = np.concatenate([b, a, b, RANDOM_PILES[::-1], PILES[::-1], np.arange(1000)[::-1]])
    n = np.concatenate([PILES, RANDOM_PILES, np.arange(1000)])
    n = n[n <= fibnim.wythoff.PAIR_LIMIT]
    calls = [
        (fibnim.wythoff.is_safe, (x, y)),
        (fibnim.wythoff.is_lower, (x,)),
        (fibnim.wythoff.is_upper, (y,)),
        (fibnim.wythoff.pair, (n,)),
        (fibnim.wythoff.winning_move, (x, y)),
        (fibnim.wythoff.winning_move, (np.arange(60)[:, None], np.arange(60)[None, :])),
        (lambda p: classify(p, "wythoff"), (np.stack([x, y], axis=-1),)),
        (lambda p: classify(p, "wythoff"), (np.stack([x, y], axis=-1)[::-1],)),  # strided
    ]
    assert_path_matches_scalar(calls)


NARROW_WIDTHS = (2**32, 2**50)  # simd.h's FIBNIM_NARROW, and FIBNIM_NARROW_IFMA


def narrow_edges() -> np.ndarray:
    """Where the narrow paths of the vector kernels (simd.h: every multiplicand
    below 2**32, or 2**50 with IFMA) meet the full one: F_k - 1, F_k, F_k + 1
    below 2**51 (the m nearest an integer multiple of phi), each width - 3 ..
    width + 1, and the safe pairs of those m."""
    m = {v for f in F[:80] for v in (f - 1, f, f + 1) if 0 <= v < 2**51}
    m |= {v for width in NARROW_WIDTHS for v in range(width - 3, width + 2)}
    m = np.array(sorted(m), dtype=np.int64)
    a, b = fibnim.wythoff.pair(m)
    edges = np.unique(np.concatenate([m, a, b, a - 1, a + 1, b - 1, b + 1]))
    return edges[edges >= 0]


def test_wythoff_narrow_path_edges_match_the_scalar_path():
    edges = narrow_edges()
    m = edges[(edges >= 1) & (edges <= 2**51)]
    a, b = fibnim.wythoff.pair(m)
    # blocks of 8 just below a width, one lane at or over it: each lane of a
    # block decides its path
    blocks = []
    for width in NARROW_WIDTHS:
        for lane in range(8):
            for value in (width - 2, width - 1, width):
                block = np.full(8, width - 3, dtype=np.int64)
                block[lane] = value
                blocks.append(block)
    over = np.concatenate(blocks)
    below = np.concatenate(
        [rng.integers(0, width, size=10_000, dtype=np.int64) for width in NARROW_WIDTHS]
    )
    x = np.concatenate([a, b, a + 1, a, edges, over, below, edges[::-1]])
    y = np.concatenate([b, a, b, b - 1, edges[::-1], over[::-1], below[::-1], edges])
    calls = [
        (fibnim.wythoff.is_safe, (x, y)),
        (fibnim.wythoff.is_lower, (x,)),
        (fibnim.wythoff.is_upper, (x,)),
        (fibnim.wythoff.pair, (np.concatenate([edges, over, below]),)),
        (fibnim.wythoff.winning_move, (x, y)),
        (lambda p: classify(p, "wythoff"), (np.stack([x, y], axis=-1),)),
    ]
    assert_path_matches_scalar(calls)


def test_wythoff_every_small_position_matches_the_scalar_path():
    """Every s below 2**24 (the A-numbers counted) and every d a diagonal move
    can have there (floor(d (phi - 1))), against the exact scalar kernel: the
    vector kernels' narrow path throughout."""
    top = 2**24 - 1
    s = np.arange(top, dtype=np.int64)
    n = np.arange(2, 2**23, dtype=np.int64)
    a, _ = fibnim.wythoff.pair(n)
    # From (a_n, a_n + d), 0 < d < n, the move is to (a_d, b_d); n = d + 1 is the
    # smallest such n, so these are all the d with a diagonal move below 2**24.
    d = n - 1
    keep = a + d <= top
    calls = [
        (fibnim.wythoff.winning_move, (s, np.full_like(s, top))),
        (fibnim.wythoff.winning_move, (a[keep], a[keep] + d[keep])),
    ]
    assert_path_matches_scalar(calls)


def test_fibonacci_nim_one_pile_in_whole_blocks():
    # below F_66 throughout, so is_p's compiled kernel takes its block path
    n = rng.integers(0, F66, size=5_000, dtype=np.int64)
    r = rng.integers(0, 2**20, size=5_000, dtype=np.int64)
    assert_same(fibnim.fibonacci_nim.is_p, n, r)
    assert_same(fibnim.fibonacci_nim.is_p, n)


# --- random lengths and strides: the vector paths' tails and masks ----------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

STRIDED = [
    fibnim.encode,
    fibnim.decode,
    fibnim.lowest_term,
    fibnim.is_fibonacci,
    fibnim.to_string,
    fibnim.wythoff.pair,
    fibnim.wythoff.is_lower,
    fibnim.wythoff.is_upper,
    fibnim.wythoff.index,
    fibnim.wythoff.partner,
    fibnim.fibonacci_nim.is_p,
    fibnim.fibonacci_nim.winning_take,
    lambda x: fibnim.wythoff.is_safe(x, x[::-1]),
    lambda x: fibnim.wythoff.winning_move(x, x[::-1]),
    lambda x: fibnim.wythoff.winning_move(x, x[::-1], misere=True),
    lambda x: fibnim.fibonacci_nim.is_p(x, x[::-1] % 1000),
    lambda x: fibnim.fibonacci_nim.global_is_p(np.stack([x, x[::-1]], axis=-1), 7),
    lambda x: fibnim.power_nim.is_p(np.stack([x, x[::-1]], axis=-1), 5),
]
POOL = sorted({v for f in F[:94] for v in (f - 1, f, f + 1) if 0 <= v <= INT64_MAX})


@settings(max_examples=tier(300, 40), deadline=None)
@given(
    function=st.sampled_from(STRIDED),
    values=st.lists(st.sampled_from(POOL) | st.integers(0, 10**6), min_size=0, max_size=100),
    step=st.integers(1, 3),
    unsigned=st.booleans(),
)
def test_random_lengths_and_strides(function, values, step, unsigned):
    """Compiled and pure agree, error or answer, on every length 0..100 and stride:
    the 8-lane paths' tails and masks (and the sanitizer build runs this too)."""
    wide = np.zeros(len(values) * step, dtype=np.uint64 if unsigned else np.int64)
    wide[::step] = values
    x = wide[::step]
    outcomes = []
    for name in ("cython", "python"):
        if name not in _backend.available():
            continue
        _backend.use(name)
        try:
            outcomes.append(("ok", function(x)))
        except (ValueError, OverflowError) as error:
            outcomes.append(("error", str(error)))
    first = outcomes[0]
    for other in outcomes[1:]:
        assert other[0] == first[0]
        if first[0] == "error":
            assert other[1] == first[1]
        else:
            answers = first[1] if isinstance(first[1], tuple) else (first[1],)
            twins = other[1] if isinstance(other[1], tuple) else (other[1],)
            for a, b in zip(answers, twins, strict=True):
                assert a.dtype == b.dtype and (a == b).all()


# --- the quick calls (fibnim_c/calls.pxi) against the general path -------------------------

QUICK_VALUES = np.array(edge_values(2**63), dtype=np.uint64)  # 2**63: past the piles' limit
QUICK = {
    "is_safe": (fibnim.wythoff.is_safe, 2),
    "winning_move": (fibnim.wythoff.winning_move, 2),
    "encode": (fibnim.encode, 1),
    "decode": (fibnim.decode, 1),
    "fibonacci_nim.is_p": (fibnim.fibonacci_nim.is_p, 1),
    "fibonacci_nim.is_p with r": (fibnim.fibonacci_nim.is_p, 2),
}


def general(function, *arguments):
    """function's answer by the general path: ints as numpy scalars and arrays
    byte-swapped, which no quick call takes; or the error it raises."""

    def declined(a):
        if isinstance(a, int):
            return np.int64(a) if a < 0 else np.uint64(a)
        return a.astype(a.dtype.newbyteorder())

    try:
        return function(*map(declined, arguments))
    except (ValueError, OverflowError) as error:
        return type(error), str(error)


def quick(function, *arguments):
    try:
        return function(*arguments)
    except (ValueError, OverflowError) as error:
        return type(error), str(error)


def same(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == 2 and isinstance(a[0], type):
        return a == b  # the same error
    if isinstance(a, tuple) and isinstance(b, tuple):
        return all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and (a == b).all()
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("name", QUICK)
def test_quick_calls_answer_as_the_general_path(name):
    function, count = QUICK[name]
    values = np.concatenate([QUICK_VALUES, rng.integers(0, 2**63, size=500, dtype=np.uint64)])
    if name == "decode":
        values = np.concatenate([values, fibnim.encode(SMALL)])
    columns = [values, np.roll(values, 7)][:count]
    for dtype in (np.uint64, np.int64):
        arrays = [c.astype(dtype) for c in columns]  # int64: 2**63 and up wrap to negative
        for shape in [(-1,), (len(values) // 2, 2) if len(values) % 2 == 0 else (1, -1)]:
            shaped = [a.reshape(shape) for a in arrays]
            assert same(quick(function, *shaped), general(function, *shaped)), (name, dtype)
        # one element at a time: 0-d arrays and Python ints of every sign and size
        for i in range(0, len(values), 37):
            zero_d = [a[i : i + 1].reshape(()) for a in arrays]
            assert same(quick(function, *zero_d), general(function, *zero_d)), name
            ints = [int(a[i]) for a in arrays]
            assert same(quick(function, *ints), general(function, *ints)), (name, ints)


def test_diagonal_moves_whose_partner_passes_2_63():
    # s = a_n < l < b_n with b_n above 2**63 - 1 (the target (a_d, b_d) fits):
    # the scalar kernel once compared the partner as an int64 and gave the
    # target's piles in the wrong order, an illegal move
    from fibnim._exact import wythoff as exact

    pick = np.random.default_rng(63)
    rows, partners_past = [], 0
    for n in pick.integers(2**61, int(2**63 / 1.618034), size=200).tolist():
        a, b = exact.pair(n)
        high = min(b - 1, 2**63 - 1)
        if a + 1 < high:
            large = int(pick.integers(a + 1, high))
            rows.append((a, large) if len(rows) % 2 else (large, a))
            partners_past += b > 2**63 - 1
    assert partners_past > 100
    x, y = (np.array(column, dtype=np.int64) for column in zip(*rows, strict=True))
    expected = [exact.winning_move(p, q) for p, q in rows]
    tx, ty = fibnim.wythoff.winning_move(x, y)
    assert list(zip(tx.tolist(), ty.tolist(), strict=True)) == expected
    assert [fibnim.wythoff.winning_move(p, q) for p, q in rows] == expected
    moves = classify(np.stack([x, y], axis=1), "wythoff")[:, 1:]
    assert [tuple(m) for m in moves.tolist()] == expected


@pytest.mark.parametrize("where", [5, 16_383, 16_384, 39_999])
def test_quick_calls_name_a_bad_value_in_any_chunk(where):
    # the quick one-pile Fibonacci Nim call copies piles a chunk (16384) at a time
    piles = np.arange(40_000, dtype=np.int64)
    piles[where] = -7
    for call in (lambda: fibnim.fibonacci_nim.is_p(piles), lambda: fibnim.encode(piles)):
        with pytest.raises(ValueError, match=rf"\[{where}\] = -7 is negative"):
            call()
    # with r a Python int: 12 = 8 + 3 + 1 can take its 1, 20 = 13 + 5 + 2 cannot take its 2
    assert fibnim.fibonacci_nim.is_p(np.array([12, 20]), 1).tolist() == [False, True]


def test_quick_calls_decline_what_they_do_not_take():
    values = fibnim.encode(np.arange(1, 301)).astype(np.int64)  # codes, piles and numbers
    raw = np.zeros(values.nbytes + 1, dtype=np.uint8)
    unaligned = raw[1:].view(np.int64)  # one byte off
    unaligned[:] = values
    odd = {
        "unaligned": unaligned,
        "strided": np.repeat(values, 2)[::2],
        "big-endian": values.astype(">i8"),
        "int32": values.astype(np.int32),
        "Fortran 2-d": np.asfortranarray(values.reshape(20, 15)),
    }
    for function, count in QUICK.values():
        for label, array in odd.items():
            expected = function(*[np.ascontiguousarray(array, dtype=np.int64)] * count)
            assert same(function(*[array] * count), expected), (function.__name__, label)
        when = np.array(["2020-01-01"], dtype="M8[D]")
        with pytest.raises(TypeError, match="must have an integer dtype, not datetime64"):
            function(*[when] * count)


def unaligned(values: np.ndarray) -> np.ndarray:
    """values in memory one byte off 8-byte alignment."""
    raw = np.zeros(values.nbytes + 1, dtype=np.uint8)
    array = raw[1:].view(values.dtype).reshape(values.shape)
    array[...] = values
    assert not array.flags.aligned
    return array


def test_unaligned_inputs_and_outs_give_the_aligned_answers():
    # a one-byte-off int64 array once reached a kernel as it was (UBSan's
    # misaligned load): kernels read aligned copies of such arrays
    from test_safety import ELEMENTWISE, OF_POSITIONS

    rng = np.random.default_rng(7)
    numbers = fibnim.encode(np.arange(1, 302)).astype(np.int64)  # codes, piles and numbers
    positions = rng.integers(0, 40, size=(101, 3), dtype=np.int64)
    for dtype in (np.int64, np.uint64):
        for name, function in ELEMENTWISE.items():
            values = (numbers % 94 if name == "fib" else numbers).astype(dtype)
            assert same(function(unaligned(values)), function(values)), name
        for name, function in OF_POSITIONS.items():
            expected = function(positions.astype(dtype))
            assert same(function(unaligned(positions.astype(dtype))), expected), name
    tx, ty = unaligned(np.zeros(301, dtype=np.int64)), unaligned(np.zeros(301, dtype=np.int64))
    result = fibnim.wythoff.winning_move(numbers, numbers[::-1], out=(tx, ty))
    assert result[0] is tx and result[1] is ty
    assert same((tx.copy(), ty.copy()), fibnim.wythoff.winning_move(numbers, numbers[::-1]))
    code = unaligned(np.zeros(301, dtype=np.uint64))
    assert fibnim.encode(numbers, out=code) is code and same(code.copy(), fibnim.encode(numbers))
