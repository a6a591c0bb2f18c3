"""Benchmark: the Nim family over 10**7 int64 positions, one thread, and the solvers.

For one-pile Fibonacci Nim (`fibonacci_nim.is_p`), two-pile global Fibonacci
Nim (`fibonacci_nim.global_is_p` on (N, 2) piles) and two-pile power-of-two
Nim (`power_nim.is_p`), in one process: the compiled core (input checks
included), the pure twin (on a smaller array) and np.add(a, b, out=c) over
int64 arrays of the same length, the memory floor. Piles are uniform below
2**40 and, for a second row, below 2**62; bounds r are uniform below 2**20.
Then the solvers by size: `solvers.board("queen", N)`, `solvers.grundy("queen", N)`
and the three-pile search of `solvers.global_outcome`.

    python benchmarks/bench_nim.py [--size N] [--repeats R] [--quick] [--no-simd]

Prints Markdown tables and writes benchmarks/results/nim.json.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from harness import table, time_per_element, write

from fibnim import _backend, fibonacci_nim, power_nim, solvers


def seconds(function, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--size", type=int, default=10**7)
    options.add_argument("--pure-size", type=int, default=10**5)
    options.add_argument("--repeats", type=int, default=7)
    options.add_argument("--quick", action="store_true", help="small solver sizes only")
    options.add_argument(
        "--no-simd", action="store_true", help="the scalar kernels only (no AVX-512 paths)"
    )
    arguments = options.parse_args()
    size, pure_size, repeats = arguments.size, arguments.pure_size, arguments.repeats

    rng = np.random.default_rng(1963)
    a = rng.integers(0, 2**40, size=size)
    b, c = a.copy(), np.empty(size, dtype=np.int64)
    r = rng.integers(1, 2**20, size=size)
    cases = {}
    for bits in (40, 62):
        n = rng.integers(0, 2**bits, size=size)
        piles = rng.integers(0, 2**bits, size=(size, 2))
        cases[f"fibonacci_nim.is_p, n < 2**{bits}"] = (fibonacci_nim.is_p, (n, r))
        cases[f"fibonacci_nim.global_is_p, 2 piles < 2**{bits}"] = (
            fibonacci_nim.global_is_p,
            (piles, r),
        )
        cases[f"power_nim.is_p, 2 piles < 2**{bits}"] = (power_nim.is_p, (piles, r))

    _backend.use("cython")
    # --no-simd switches fibonacci_nim's paths only: power_nim has no switch
    simd = _backend.twins("fibonacci_nim")[0].use_simd(not arguments.no_simd)
    floor = time_per_element(lambda: np.add(a, b, out=c), size, repeats)["ns_per_element"]
    rows = [{"kernel": "np.add (memory floor)", "compiled_ns": floor, "x_floor": 1.0}]
    for name, (function, args) in cases.items():
        timing = time_per_element(lambda f=function, x=args: f(*x), size, repeats)
        rows.append(
            {
                "kernel": name,
                "compiled_ns": timing["ns_per_element"],
                "compiled_min": timing["min"],
                "compiled_max": timing["max"],
                "x_floor": timing["ns_per_element"] / floor,
            }
        )
    _backend.use("python")
    for row in rows[1:]:
        function, args = cases[row["kernel"]]
        small = tuple(x[:pure_size] for x in args)
        row["pure_ns"] = time_per_element(lambda f=function, x=small: f(*x), pure_size, 1)[
            "ns_per_element"
        ]
        row["pure_vs_compiled"] = row["pure_ns"] / row["compiled_ns"]
    _backend.use("cython")

    sizes = {"board": [500, 1000, 2000], "grundy": [250, 500, 1000], "search": [50, 100, 200, 400]}
    if arguments.quick:
        sizes = {"board": [200], "grundy": [100], "search": [20]}
    solver_rows = []
    for n in sizes["board"]:
        solver_rows.append(
            {
                "solver": f'board("queen", {n})',
                "seconds": seconds(lambda n=n: solvers.board("queen", n)),
            }
        )
    for n in sizes["grundy"]:
        solver_rows.append(
            {
                "solver": f'grundy("queen", {n})',
                "seconds": seconds(lambda n=n: solvers.grundy("queen", n), 1),
            }
        )
    for n in sizes["search"]:
        solver_rows.append(
            {
                "solver": f"global_outcome([{n}, {n}, {n}]): {(n + 1) ** 3} states",
                "seconds": seconds(lambda n=n: solvers.global_outcome([n, n, n]), 1),
            }
        )

    notes = {
        "size": size,
        "pure_size": pure_size,
        "simd": simd,
        "targets": "Fibonacci Nim is_p <= 3x np.add; two-pile global_is_p <= 5x; power-of-two Nim "
        "is_p for 2 piles <= 2x; a 2000 x 2000 queen board in seconds; Wythoff Grundy values "
        "for 1000 x 1000 in under a minute",
        "solvers": solver_rows,
    }
    print(table(rows, ["kernel", "compiled_ns", "x_floor", "pure_ns", "pure_vs_compiled"]))
    print()
    print(table(solver_rows, ["solver", "seconds"]))
    print(f"written: {write('nim_scalar' if arguments.no_simd else 'nim', rows, notes)}")


if __name__ == "__main__":
    main()
