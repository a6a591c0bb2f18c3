"""Benchmark: Wythoff's Nim queries over 10**7 int64 positions, one thread.

For is_safe, pair, is_lower and winning_move, in one process:
- fibnim on the compiled core (outputs preallocated, input checks included);
- the same call on the pure twin (on a smaller array);
- the float64 formula a user would write with numpy, with a count of the
  answers it gets wrong on the same input (it has none for winning_move);
- np.add(a, b, out=c) over int64 arrays of the same length: the memory floor.

The positions: half are safe pairs (a_n, b_n) in either order with n up to
PAIR_LIMIT, half are random pairs below 2**62, shuffled.

    python benchmarks/bench_wythoff.py [--size N] [--repeats R] [--no-simd]

Prints a Markdown table and writes benchmarks/results/wythoff.json.
"""

from __future__ import annotations

import argparse

import numpy as np
from harness import table, time_per_element, write

from fibnim import _backend, wythoff

PHI = (1 + 5**0.5) / 2


def float_pair(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.floor(n * PHI).astype(np.int64)
    return a, a + n


def float_is_safe(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    small, large = np.minimum(x, y), np.maximum(x, y)
    return small == np.floor((large - small) * PHI).astype(np.int64)


def float_is_lower(x: np.ndarray) -> np.ndarray:
    # x is floor(n phi) for some n iff floor((x + 1) / phi) > floor(x / phi)
    return (x > 0) & (np.floor((x + 1) / PHI) > np.floor(x / PHI))


def positions(size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    half = size // 2
    a, b = wythoff.pair(rng.integers(0, wythoff.PAIR_LIMIT, size=half, endpoint=True))
    swap = rng.random(half) < 0.5
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    x = np.concatenate([a, rng.integers(0, 2**62, size=size - half)])
    y = np.concatenate([b, rng.integers(0, 2**62, size=size - half)])
    order = rng.permutation(size)
    return x[order], y[order]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--size", type=int, default=10**7)
    options.add_argument("--pure-size", type=int, default=10**5)
    options.add_argument("--repeats", type=int, default=7)
    options.add_argument(
        "--no-simd", action="store_true", help="the scalar kernels only (no AVX-512 IFMA paths)"
    )
    arguments = options.parse_args()
    size, pure_size, repeats = arguments.size, arguments.pure_size, arguments.repeats

    rng = np.random.default_rng(1977)
    x, y = positions(size, rng)
    n = rng.integers(0, wythoff.PAIR_LIMIT, size=size, endpoint=True)
    a, b, c = x.copy(), y.copy(), np.empty(size, dtype=np.int64)
    flags = np.empty(size, dtype=bool)
    first, second = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)

    calls = {
        "is_safe": (lambda: wythoff.is_safe(x, y, out=flags), lambda: float_is_safe(x, y)),
        "pair": (lambda: wythoff.pair(n, out=(first, second)), lambda: float_pair(n)),
        "is_lower": (lambda: wythoff.is_lower(x, out=flags), lambda: float_is_lower(x)),
        "winning_move": (lambda: wythoff.winning_move(x, y, out=(first, second)), None),
    }
    small = {"x": x[:pure_size].copy(), "y": y[:pure_size].copy(), "n": n[:pure_size].copy()}
    pure_calls = {
        "is_safe": lambda: wythoff.is_safe(small["x"], small["y"]),
        "pair": lambda: wythoff.pair(small["n"]),
        "is_lower": lambda: wythoff.is_lower(small["x"]),
        "winning_move": lambda: wythoff.winning_move(small["x"], small["y"]),
    }

    _backend.use("cython")
    simd = _backend.twins("wythoff")[0].use_simd(not arguments.no_simd)
    floor = time_per_element(lambda: np.add(a, b, out=c), size, repeats)["ns_per_element"]
    rows = [{"kernel": "np.add (memory floor)", "compiled_ns": floor, "x_floor": 1.0}]
    for name, (compiled, by_float) in calls.items():
        timing = time_per_element(compiled, size, repeats)
        row = {
            "kernel": name,
            "compiled_ns": timing["ns_per_element"],
            "compiled_min": timing["min"],
            "compiled_max": timing["max"],
        }
        row["x_floor"] = row["compiled_ns"] / floor
        if by_float is not None:
            exact = compiled()
            guess = by_float()
            if isinstance(exact, tuple):
                wrong = int(np.count_nonzero((guess[0] != exact[0]) | (guess[1] != exact[1])))
            else:
                wrong = int(np.count_nonzero(guess != exact))
            float_ns = time_per_element(by_float, size, max(1, repeats // 2))["ns_per_element"]
            row.update(
                float_ns=float_ns,
                float_wrong=wrong,
                float_vs_compiled=float_ns / row["compiled_ns"],
            )
        rows.append(row)
    _backend.use("python")
    for row in rows[1:]:
        row["pure_ns"] = time_per_element(pure_calls[row["kernel"]], pure_size, 1)[
            "ns_per_element"
        ]
        row["pure_vs_compiled"] = row["pure_ns"] / row["compiled_ns"]
    _backend.use("cython")

    notes = {
        "size": size,
        "pure_size": pure_size,
        "simd": simd,
        "inputs": "half safe pairs (n <= PAIR_LIMIT), half random pairs below 2**62, shuffled",
        "targets": "is_safe <= 1.25x np.add; is_lower <= 1.0x; pair <= 1.25x; winning_move <= 3x; "
        "is_safe >= 250x the pure twin and >= 4x the float formula",
    }
    columns = [
        "kernel",
        "compiled_ns",
        "x_floor",
        "pure_ns",
        "pure_vs_compiled",
        "float_ns",
        "float_vs_compiled",
        "float_wrong",
    ]
    print(table(rows, columns))
    print(f"AVX-512 IFMA paths: {'on' if simd else 'off'}")
    print(f"written: {write('wythoff' if simd else 'wythoff_scalar', rows, notes)}")


if __name__ == "__main__":
    main()
