"""Benchmark: Zeckendorf encode of random n < F_66.

Compares, in one process:
- fibnim.encode on the compiled core (output preallocated, checks included);
- the same call on the pure twin (on a smaller array: it is ~10**3 times slower);
- the greedy a user would write with numpy (one pass per Fibonacci number);
- np.add(a, b, out=c) over int64 arrays of the same length: the memory floor.

    python benchmarks/bench_encode.py [--size N] [--repeats R]

Prints a Markdown table and writes benchmarks/results/encode.json.
"""

from __future__ import annotations

import argparse

import numpy as np
from harness import table, time_per_element, write

import fibnim
from fibnim import _backend

FIB = [0, 1]
while len(FIB) < 67:
    FIB.append(FIB[-1] + FIB[-2])


def numpy_greedy(n: np.ndarray) -> np.ndarray:
    """What a user writes by hand: take each Fibonacci number, largest first, where it fits."""
    rest = n.astype(np.uint64)
    code = np.zeros_like(rest)
    for k in range(65, 1, -1):
        fits = rest >= np.uint64(FIB[k])
        code |= fits.astype(np.uint64) << np.uint64(k - 2)
        rest -= fits.astype(np.uint64) * np.uint64(FIB[k])
    return code


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--size", type=int, default=10**7)
    options.add_argument("--pure-size", type=int, default=10**5)
    options.add_argument("--repeats", type=int, default=7)
    arguments = options.parse_args()
    size, pure_size, repeats = arguments.size, arguments.pure_size, arguments.repeats

    rng = np.random.default_rng(66)
    n = rng.integers(0, fibnim.CODE_LIMIT, size=size, dtype=np.int64)
    out = np.empty(size, dtype=np.uint64)
    a = rng.integers(0, 2**62, size=size, dtype=np.int64)
    b = a.copy()
    c = np.empty_like(a)
    small = n[:pure_size].copy()
    small_out = np.empty(pure_size, dtype=np.uint64)

    _backend.use("cython")
    expected = fibnim.encode(small)
    assert (numpy_greedy(small) == expected).all()
    rows = [
        {
            "implementation": "np.add (memory floor)",
            "size": size,
            **time_per_element(lambda: np.add(a, b, out=c), size, repeats),
        },
        {
            "implementation": "fibnim.encode, compiled",
            "size": size,
            **time_per_element(lambda: fibnim.encode(n, out=out), size, repeats),
        },
        {
            "implementation": "numpy greedy by hand",
            "size": size,
            **time_per_element(lambda: numpy_greedy(n), size, max(1, repeats // 3)),
        },
    ]
    _backend.use("python")
    assert (fibnim.encode(small) == expected).all()
    rows.append(
        {
            "implementation": "fibnim.encode, pure twin",
            "size": pure_size,
            **time_per_element(lambda: fibnim.encode(small, out=small_out), pure_size, 3),
        }
    )
    _backend.use("cython")

    floor, compiled = rows[0]["ns_per_element"], rows[1]["ns_per_element"]
    for row in rows:
        row["x_floor"] = row["ns_per_element"] / floor
        row["x_compiled"] = row["ns_per_element"] / compiled
    notes = {
        "targets": "compiled encode <= 5x np.add; >= 250x faster than the pure twin",
        "compiled_vs_floor": compiled / floor,
        "pure_vs_compiled": rows[3]["ns_per_element"] / compiled,
        "numpy_greedy_vs_compiled": rows[2]["ns_per_element"] / compiled,
    }
    print(
        table(
            rows,
            ["implementation", "size", "ns_per_element", "min", "max", "x_floor", "x_compiled"],
        )
    )
    print(
        f"\ncompiled encode: {notes['compiled_vs_floor']:.2f}x np.add, "
        f"{notes['pure_vs_compiled']:.0f}x faster than the pure twin, "
        f"{notes['numpy_greedy_vs_compiled']:.0f}x faster than the numpy greedy"
    )
    print(f"written: {write('encode', rows, notes)}")


if __name__ == "__main__":
    main()
