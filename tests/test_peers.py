"""The numba peers of `fibnim bench --peers` (fibnim.bench.peers) are exact: held
to fibnim's answers on values of every magnitude, on P-positions and their
neighbours, and at the edges where a float candidate stops being exact."""

from __future__ import annotations

import numpy as np
import pytest

import fibnim
from fibnim import fibonacci_nim, power_nim, wythoff, zeckendorf

pytest.importorskip("numba")
from fibnim.bench import peers
from fibnim.bench.suite import NUMBA_TARGETS

TOP = 2**63 - 1
# F_k phi is within 1 / F_k of an integer: the hardest inputs for a float candidate
FIBS = [zeckendorf.fib(k) + d for k in range(2, 93) for d in (-1, 0, 1)]
EDGES = [0, 1, 2, 3, 2**32 - 1, 2**32, 2**32 + 1, 2**40, 2**52, 2**53 + 1, 2**62, TOP - 1, TOP]
EDGES += [f for f in FIBS if 0 <= f <= TOP]


def values(high: int, count: int = 3000, seed: int = 0) -> np.ndarray:
    """Values of every bit length up to high's, the edges below high among them."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, high.bit_length() + 1, size=count)
    drawn = [int(rng.integers(0, 2**63, dtype=np.uint64)) >> (64 - b) if b else 0 for b in bits]
    return np.array(
        [min(v, high) for v in drawn] + [e for e in EDGES if e <= high], dtype=np.int64
    )


def test_pair_and_is_safe_on_p_positions_and_their_neighbours():
    m = values(wythoff.PAIR_LIMIT)
    m = np.concatenate([m, [wythoff.PAIR_LIMIT, wythoff.PAIR_LIMIT - 1]])
    a, b = np.empty_like(m), np.empty_like(m)
    peers.pair(m, a, b)
    expected_a, expected_b = wythoff.pair(m)
    assert np.array_equal(a, expected_a) and np.array_equal(b, expected_b)
    out = np.empty(m.size, dtype=bool)
    for x, y in [(a, b), (b, a), (a + 1, b), (a, np.minimum(b, TOP - 1) + 1), (a - (a > 0), b)]:
        peers.is_safe(x, y, out)
        assert np.array_equal(out, wythoff.is_safe(x, y))


def test_is_safe_on_random_pairs_of_every_magnitude():
    x, y = values(TOP, seed=1), values(TOP, seed=2)
    out = np.empty(x.size, dtype=bool)
    peers.is_safe(x, y, out)
    assert np.array_equal(out, wythoff.is_safe(x, y))


def test_is_lower_on_a_and_b_numbers_and_every_magnitude():
    a, b = wythoff.pair(values(wythoff.PAIR_LIMIT, seed=3))
    for x in (values(TOP, seed=4), a, b, a + 1, np.maximum(a - 1, 0)):
        out = np.empty(x.size, dtype=bool)
        peers.is_lower(x, out)
        assert np.array_equal(out, wythoff.is_lower(x))


def test_winning_move_on_a_grid_safe_pairs_fibonacci_numbers_and_every_magnitude():
    grid = np.arange(40)
    a, b = wythoff.pair(values(wythoff.PAIR_LIMIT, seed=12))
    step = np.random.default_rng(13).integers(1, 1000, size=a.size)
    fibs = np.array([f for f in FIBS if 0 <= f <= TOP], dtype=np.int64)
    cases = [
        (np.repeat(grid, grid.size), np.tile(grid, grid.size)),  # both orders, x = y, zeros
        (values(TOP, seed=14), values(TOP, seed=15)),
        (a, b),
        (b, a + 1),
        (a, np.minimum(b, TOP - 1000) + step),
        (a, np.maximum(b - step, 0)),
        (np.repeat(fibs, fibs.size), np.tile(fibs, fibs.size)),
    ]
    for x, y in cases:
        expected = wythoff.winning_move(x, y)
        for kernel in (peers.winning_move, peers.winning_move_limbs):
            tx, ty = np.empty_like(x), np.empty_like(x)
            kernel(x, y, tx, ty)
            assert np.array_equal(tx, expected[0]) and np.array_equal(ty, expected[1])


def test_encode_and_decode():
    n = values(fibnim.CODE_LIMIT - 1, seed=5)
    fibs = np.array([zeckendorf.fib(k) for k in range(2, 66)], dtype=np.int64)
    n = np.concatenate([n, fibs, fibs - 1, fibs + 1])
    n = n[n < fibnim.CODE_LIMIT]
    codes = np.empty(n.size, dtype=np.uint64)
    peers.encode(n, codes)
    assert np.array_equal(codes, zeckendorf.encode(n))
    decoded = np.empty(n.size, dtype=np.int64)
    peers.decode(codes, decoded)
    assert np.array_equal(decoded, n)
    peers.decode(np.array([0b11, 0b1011], dtype=np.uint64), decoded[:2])
    assert decoded[:2].tolist() == [-1, -1]  # not Zeckendorf codes


def test_encode_where_a_block_starts_and_ends():
    """Each block's estimate is one above its value or exact: values whose code
    starts a block (S_j(m)) and ends one (S_j(m) - 1), at both block places."""
    rng = np.random.default_rng(18)
    tops = peers.S44[rng.integers(1, peers.S44.size - 1, size=2000)]
    middles = peers.S22[rng.integers(1, peers.S22.size - 1, size=2000)]
    n = np.concatenate([tops, tops - 1, tops + middles, tops + middles - 1]).astype(np.int64)
    n = n[n < fibnim.CODE_LIMIT]
    codes = np.empty(n.size, dtype=np.uint64)
    peers.encode(n, codes)
    assert np.array_equal(codes, zeckendorf.encode(n))


def test_fibonacci_nim_is_p_against_fibnim():
    n, r = values(TOP, seed=6), values(TOP, seed=7)
    fibs = np.array([zeckendorf.fib(k) for k in range(2, 92)], dtype=np.int64)
    for bound in (r, np.minimum(r, 2**20), n - (n > 0)):
        out = np.empty(n.size, dtype=bool)
        peers.fibonacci_nim_is_p(n, bound, out)
        assert np.array_equal(out, fibonacci_nim.is_p(n, bound))
    out = np.empty(fibs.size, dtype=bool)
    peers.fibonacci_nim_is_p(fibs, fibs - 1, out)  # one term above the bound: P
    assert out.all() and np.array_equal(out, fibonacci_nim.is_p(fibs, fibs - 1))


def test_power_nim_two_piles_against_fibnim():
    piles = np.stack([values(TOP, seed=8), values(TOP, seed=9)], axis=1)
    piles[::5, 1] = piles[::5, 0]  # xor 0
    r = values(TOP, seed=10)
    out = np.empty(r.size, dtype=bool)
    peers.power_nim_two_piles(piles, r, out)
    assert np.array_equal(out, power_nim.is_p(piles, r))


def test_global_is_p_two_piles_against_fibnim():
    x, y = values(TOP, seed=12), values(TOP, seed=13)
    fibs = np.array([f for f in FIBS if 0 <= f <= TOP], dtype=np.int64)
    rows = [
        np.stack([x, y], axis=1),
        np.stack([x >> 1, (x >> 1) + (y >> 20)], axis=1),  # differences of every size
        np.stack([fibs, fibs[::-1]], axis=1),
        np.stack([fibs, np.zeros_like(fibs)], axis=1),
    ]
    for piles in rows:
        for r in (np.resize(values(TOP, seed=14), len(piles)), piles[:, 0] >> 3):
            out = np.empty(len(piles), dtype=bool)
            peers.global_is_p_two_piles(piles, r, out)
            assert np.array_equal(out, fibonacci_nim.global_is_p(piles, r))


def test_classify_wythoff_against_fibnim():
    a, b = wythoff.pair(values(wythoff.PAIR_LIMIT, seed=15))
    x, y = values(TOP, seed=16), values(TOP, seed=17)
    for first, second in [(a, b), (b, a), (a, b + 1), (x, y), (x, x)]:
        positions = np.stack([first, second], axis=1)
        for kernel in (peers.classify_wythoff, peers.classify_wythoff_limbs):
            out = np.empty((len(positions), 3), dtype=np.int64)
            kernel(positions, out)
            assert np.array_equal(out, fibnim.classify(positions, "wythoff"))


def test_every_peer_answers_its_bench_case_as_fibnim_does():
    from fibnim.bench.suite import CASES

    paired = [case for case in CASES if case.peer is not None]
    assert len(paired) >= 10  # every kernel the docs name, and their game-sized cases
    rng = np.random.default_rng(11)
    for case in paired:
        name = case.name
        inputs = case.make(5000, rng)
        answer = case.call(inputs)
        expected = answer if isinstance(answer, tuple) else (answer,)
        for every_core in (False, True):  # the prange twin splits the arrays in parts
            got = peers.peer_call(case.peer, inputs, every_core=every_core)()
            assert len(got) == len(expected), name
            for mine, theirs in zip(got, expected, strict=True):
                assert np.array_equal(mine, theirs), (name, every_core)


_ASM = """
import numba, numpy as np
@numba.njit("void(uint64[::1], uint64[::1])")
def mix(a, out):
    for i in range(a.size):
        out[i] = a[i] * np.uint64(0x9E3779B97F4A7C15)
print(mix.inspect_asm(mix.signatures[0]))
"""


@pytest.mark.skipif(
    __import__("platform").machine() not in ("x86_64", "AMD64"), reason="x86-64 targets"
)
def test_each_peer_is_compiled_for_its_implementations_features_whatever_the_host():
    # NUMBA_CPU_NAME alone keeps the host's features: on an AVX-512 host the
    # "haswell" peer was AVX-512 code. Compiled only (never run), so an AVX-512
    # target is checked on any host too. vpmullq is AVX-512's 64-bit product.
    import os
    import subprocess
    import sys

    def assembly(implementation: str) -> str:
        name, features = NUMBA_TARGETS[implementation]
        environment = {**os.environ, "NUMBA_CPU_NAME": name, "NUMBA_CPU_FEATURES": features}
        done = subprocess.run(
            [sys.executable, "-c", _ASM], env=environment, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "vpmullq" in assembly("avx512ifma")
    assert "vpmullq" in assembly("avx512")
    avx2 = assembly("avx2")
    assert "ymm" in avx2 and "vpmullq" not in avx2 and "zmm" not in avx2
    scalar = assembly("scalar")
    assert "ymm" not in scalar and "vpmullq" not in scalar
