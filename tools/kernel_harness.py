"""The compiled core's C kernels on other C models, by one plain C program.

tools/kernel_harness.c includes fibnim_c's headers, as fibnim's build does,
with no Python at all, and checks their kernels' answers against cases that
this script writes with the pure twin: Wythoff's kernels (is_safe, pair,
is_lower, winning_move, classify), power-of-two Nim's pairs, encode and
decode, Fibonacci coding's count and unpack reading a coded stream's bytes,
and the CSV scan of text.h; on every path the processor has (the scalar path
everywhere, AVX2 and AVX-512 where the target and the processor have them).

Targets:

- ``native``: this machine's C compiler.
- ``windows``: mingw-w64, run under wine: Windows' C model (LLP64, ``long``
  is 32 bits), the paths chosen at run time as on Linux.
- ``s390x``: Debian's s390x cross compiler, run under qemu-user: a big-endian
  machine, where a coded stream's bytes must still be read as the format
  says (its first bit is the top bit of byte 0).

    python tools/kernel_harness.py [--target native|windows|s390x ...]

Run it where fibnim is installed (its pure twin writes the cases). Exit 1 on
any wrong answer. The compilers and emulators missing are installed with
apt-get (needs root); .ci/run runs every target.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from fibnim import _backend, coding
from fibnim._exact import power_nim, wythoff
from fibnim._exact import zeckendorf as zeck

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1
PAIR_LIMIT = 3523014627193176565  # fibnim._declarations.PAIR_LIMIT: b_n fits int64

# target: (compiler, extra flags, how to run a program, the Debian packages)
TARGETS = {
    "native": (["cc"], [], [], []),
    "windows": (
        ["x86_64-w64-mingw32-gcc"],
        ["-static"],
        ["wine"],
        ["gcc-mingw-w64-x86-64", "wine", "wine64"],
    ),
    "s390x": (
        ["s390x-linux-gnu-gcc"],
        ["-static"],
        ["qemu-s390x-static"],
        ["gcc-s390x-linux-gnu", "libc6-dev-s390x-cross", "qemu-user-static"],
    ),
}


def edges(top: int) -> list[int]:
    """0, 1, F_k - 1, F_k, F_k + 1 and 2**b - 1, 2**b, 2**b + 1, up to top."""
    near = {0, 1, 2, 3, top - 1, top}
    for k in range(2, 94):
        near.update((zeck.fib(k) - 1, zeck.fib(k), zeck.fib(k) + 1))
    for b in range(1, 64):
        near.update((2**b - 1, 2**b, 2**b + 1))
    return sorted(v for v in near if 0 <= v <= top)


def spread(rng: random.Random, top: int, count: int) -> list[int]:
    """count values of every bit length up to top's."""
    values = []
    for _ in range(count):
        bits = rng.randint(1, top.bit_length())
        values.append(min(rng.getrandbits(bits), top))
    return values


def cases(seed: int) -> list[tuple[str, list[int]]]:
    """The sections of the cases file: a name and its integers."""
    rng = random.Random(seed)
    out: list[tuple[str, list[int]]] = []
    out.append(("fib", [zeck.fib(k) for k in range(94)]))
    out.append(("code", [zeck.code(m) for m in range(zeck.fib(24) + 1)]))

    # Wythoff: the safe pairs and their neighbours, every small position, and
    # piles of every size (across the narrow paths' widths, 2**32 and 2**50)
    piles = [(x, y) for x in range(48) for y in range(48)]
    for n in [*range(1, 300), *spread(rng, PAIR_LIMIT // 2, 400)]:
        a, b = wythoff.pair(n)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                piles.append((a + dx, b + dy))
                piles.append((b + dy, a + dx))
    for _ in range(3000):
        x = spread(rng, INT64_MAX, 1)[0]
        piles.append((x, min(INT64_MAX, x + rng.randint(0, 2 ** rng.randint(0, 62)))))
    piles += [(x, y) for x in edges(INT64_MAX)[-6:] for y in edges(INT64_MAX)[-6:]]
    rng.shuffle(piles)
    xs, ys = [x for x, _ in piles], [y for _, y in piles]
    out.append(("wythoff.x", xs))
    out.append(("wythoff.y", ys))
    out.append(("wythoff.safe", [int(wythoff.is_safe(x, y)) for x, y in piles]))
    moves = [wythoff.winning_move(x, y) or (-1, -1) for x, y in piles]
    out.append(("wythoff.target_x", [t for t, _ in moves]))
    out.append(("wythoff.target_y", [t for _, t in moves]))

    singles = sorted({*range(3000), *edges(INT64_MAX), *spread(rng, INT64_MAX, 3000)})
    out.append(("single.x", singles))
    out.append(("single.lower", [int(wythoff.is_lower(x)) for x in singles]))
    out.append(("single.upper", [int(wythoff.is_upper(x)) for x in singles]))
    indices = sorted({*range(3000), *edges(PAIR_LIMIT), *spread(rng, PAIR_LIMIT, 3000)})
    out.append(("pair.n", indices))
    out.append(("pair.a", [wythoff.pair(n)[0] for n in indices]))
    out.append(("pair.b", [wythoff.pair(n)[1] for n in indices]))

    # power-of-two Nim, two piles and a bound
    rows = []
    for a in spread(rng, INT64_MAX, 2000):  # x = a ^ b of every lowest set bit, bounds about it
        b = a ^ (1 << rng.randint(0, 62)) ^ rng.getrandbits(rng.randint(0, 8))
        rows.append((a, b, rng.choice([0, 1, 2 ** rng.randint(0, 62), INT64_MAX])))
    rows += [(a, b, r) for a in range(9) for b in range(9) for r in range(9)]
    out.append(("power.first", [a for a, _, _ in rows]))
    out.append(("power.second", [b for _, b, _ in rows]))
    out.append(("power.bound", [r for _, _, r in rows]))
    out.append(("power.safe", [int(power_nim.is_p([a, b], r)) for a, b, r in rows]))

    # Zeckendorf codes: every value below F_66 encodes, every valid code decodes
    limit = zeck.fib(66) - 1
    numbers = sorted({*range(5000), *edges(limit), *spread(rng, limit, 20000)})
    out.append(("encode.n", numbers))
    out.append(("encode.code", [zeck.code(n) for n in numbers]))

    # Fibonacci coding: a stream of codewords short and long (up to 92 digits)
    values = [max(1, v) for v in (*range(200), *edges(UINT64_MAX), *spread(rng, UINT64_MAX, 3000))]
    rng.shuffle(values)
    _backend.use("python")
    stream = coding.pack(np.array(values, dtype=np.uint64))
    lengths = coding.lengths(np.array(values, dtype=np.uint64))
    out.append(("coding.values", values))
    out.append(("coding.stream", [int(b) for b in stream]))
    out.append(("coding.ends", [int(e) for e in np.cumsum(lengths, dtype=np.uint64)]))

    # the CSV scan: where the next quote, LF or CR lies, from every start
    text = bytearray(rng.choice(b'0123456789,"\n\r' + b"7" * 40) for _ in range(3000))
    out.append(("text.bytes", list(text)))
    out.append(
        (
            "text.next",
            [
                next((j for j in range(i, len(text)) if text[j] in b'"\n\r'), len(text))
                for i in range(len(text))
            ],
        )
    )
    return out


def write_cases(path: Path, seed: int) -> None:
    with path.open("w") as f:
        for name, values in cases(seed):
            f.write(f"{name} {len(values)}\n")
            f.write("\n".join(str(v) for v in values))
            f.write("\n")


def install(packages: list[str]) -> None:
    missing = [
        p
        for p in packages
        if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode != 0
    ]
    if missing:
        print("== apt-get install", *missing, flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
            check=True,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )


def run(target: str, work: Path, case_file: Path) -> bool:
    compiler, flags, runner, packages = TARGETS[target]
    install(packages)
    program = work / f"harness-{target}.exe"
    build = [
        *compiler,
        "-O2",
        "-std=c11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-unused-function",
        *flags,
        "-I",
        str(ROOT / "fibnim_c"),
        str(HERE / "kernel_harness.c"),
        "-o",
        str(program),
    ]
    print(f"== {target}: {' '.join(build)}", flush=True)
    subprocess.run(build, check=True)
    env = {**os.environ, "WINEDEBUG": "-all", "WINEPREFIX": str(work / "wine")}
    with case_file.open("rb") as cases_in:
        done = subprocess.run([*runner, str(program)], stdin=cases_in, env=env)
    if runner == ["wine"]:  # its server outlives the program: ended before its prefix is
        subprocess.run(["wineserver", "-w"], env=env)
    print(f"== {target}: exit {done.returncode}", flush=True)
    return done.returncode == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", action="append", choices=list(TARGETS))
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        case_file = work / "cases.txt"
        write_cases(case_file, args.seed)
        results = {t: run(t, work, case_file) for t in args.target or list(TARGETS)}
    print(
        "kernel harness:",
        ", ".join(f"{t} {'passed' if ok else 'FAILED'}" for t, ok in results.items()),
    )
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
