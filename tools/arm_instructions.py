"""Instructions the compiled core executes per element on aarch64, for the neon
and scalar implementations, counted under emulation: a measure, where
tools/loop_counts.py estimates.

In an arm64 root with fibnim installed in /venv (ARM_ROOT=DIR tools/aarch64.sh
keeps the one it makes), each kernel runs in a fresh process under qemu-user
with one instruction a translation block and the execution log kept to the
address range of fibnim's compiled core (QEMU_SINGLESTEP, QEMU_LOG=exec,nochain,
QEMU_DFILTER), and the log's lines are counted. Two sizes of input, the
difference over the difference of sizes: the import, the tables and each
call's fixed work cancel. The host's address randomization is turned off
(setarch -R) so that the core loads at the same address in every process.

    python tools/arm_instructions.py ROOT [--elements N] [--only KERNEL]

Counts are instructions, not time: a NEON instruction does two lanes' work,
and where the work runs (one multiplier or the vector pipelines) is what
tools/loop_counts.py's llvm-mca figures weigh. Needs root (chroot, mount).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

# each kernel's call on inputs of n elements (names of the set-up below)
KERNELS = {
    "wythoff.is_safe": "wythoff.is_safe(x[:n], y[:n])",
    "wythoff.pair": "wythoff.pair(m[:n])",
    "wythoff.is_lower": "wythoff.is_lower(x[:n])",
    "wythoff.winning_move": "wythoff.winning_move(x[:n], y[:n])",
    "classify (Wythoff)": "classify(piles[:n], 'wythoff')",
    "zeckendorf.decode": "zeckendorf.decode(codes[:n])",
    "power_nim (two piles)": "power_nim.is_p(small_piles[:n], r[:n])",
    "fibonacci_nim.is_p": "fibonacci_nim.is_p(x[:n], r[:n])",
    "coding.count (per value)": "coding._kernels().count(streams[n], 8 * streams[n].size)",
    "coding.unpack (per value)": "coding.unpack(streams[n], out=outs[n])",
}

SETUP = """
import sys
import numpy as np
import fibnim
from fibnim import classify, coding, fibonacci_nim, power_nim, wythoff, zeckendorf

rng = np.random.default_rng(1)
sizes = [int(s) for s in sys.argv[2:]]
top = max(sizes)
x = rng.integers(0, 2**62, top, dtype=np.int64)
y = rng.integers(0, 2**62, top, dtype=np.int64)
m = x % wythoff.PAIR_LIMIT
r = rng.integers(0, 2**20, top, dtype=np.int64)
piles = np.stack([x, y], axis=-1)
small_piles = piles % 1024
codes = zeckendorf.encode(x % 27777890035288)  # F_66: codes of 64 bits
values = rng.geometric(1 / 100, top).astype(np.uint64)
streams = {n: coding.pack(values[:n]) for n in sizes}
outs = {n: np.empty(n, np.uint64) for n in sizes}
n = int(sys.argv[1])
for line in open("/proc/self/maps"):  # where the core lies: the log's filter
    if "fibnim/_core" in line and "r-xp" in line:
        start, end = (int(a, 16) for a in line.split()[0].split("-"))
        print(f"0x{start:x}+0x{end - start:x}")
        break
"""


def guest(root: Path, code: str, args: list[str], env: dict[str, str]) -> str:
    """Runs Python code in the root (the address layout fixed), returns its output."""
    script = root / "tmp" / "arm_instructions.py"
    script.write_text(code)
    command = ["setarch", "-R", "chroot", str(root), "/usr/bin/env", "-i", "HOME=/root"]
    command += ["PATH=/venv/bin:/usr/bin:/bin", "LANG=C.UTF-8"]
    command += [f"{key}={value}" for key, value in env.items()]
    command += ["python", "/tmp/arm_instructions.py", *args]  # its output: the core's range
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def executed(
    root: Path, call: str, n: int, sizes: list[int], core: str, implementation: str
) -> int:
    log = root / "tmp" / "arm_instructions.log"
    log.unlink(missing_ok=True)
    env = {
        "FIBNIM_IMPLEMENTATION": implementation,
        "QEMU_SINGLESTEP": "1",
        "QEMU_LOG": "exec,nochain",
        "QEMU_LOG_FILENAME": "/tmp/arm_instructions.log",
        "QEMU_DFILTER": core,
    }
    where = guest(root, SETUP + f"\n{call}\n", [str(n), *map(str, sizes)], env).strip()
    if where != core:
        sys.exit(f"the core loaded at {where}, not at {core}: the counts would miss it")
    with log.open("rb") as lines:
        return sum(line.startswith(b"Trace") for line in lines)


def table(root: Path, elements: int, only: str | None) -> None:
    sizes = [1000, 1000 + elements]
    dry_run = {"QEMU_DFILTER": "0x1+0x1", "QEMU_LOG": "exec"}
    core = guest(root, SETUP, ["0", *map(str, sizes)], dry_run).strip()
    print(f"instructions per element, the core's executed under qemu ({core})\n")
    print("| kernel | neon | scalar | scalar / neon |\n| --- | --- | --- | --- |")
    for kernel, call in KERNELS.items():
        if only and only != kernel:
            continue
        per = []
        for implementation in ("neon", "scalar"):
            counts = [executed(root, call, n, sizes, core, implementation) for n in sizes]
            per.append((counts[1] - counts[0]) / elements)
        print(f"| {kernel} | {per[0]:.1f} | {per[1]:.1f} | {per[1] / per[0]:.2f} |", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="an arm64 root with /venv holding fibnim")
    parser.add_argument("--elements", type=int, default=20000, help="the difference of sizes")
    parser.add_argument("--only", metavar="KERNEL", help="one kernel of the table")
    arguments = parser.parse_args()
    proc = arguments.root / "proc"
    mounted = (proc / "self").exists()
    if not mounted:  # the guest reads /proc/self/maps
        subprocess.run(["mount", "-t", "proc", "proc", str(proc)], check=True)
    try:
        table(arguments.root, arguments.elements, arguments.only)
    finally:
        if not mounted:
            subprocess.run(["umount", str(proc)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
