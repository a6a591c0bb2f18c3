"""Instructions and estimated cycles per element of the kernels' loops, from the
machine code GCC makes of them: the AVX2 loops (x86-64) beside the neon path's
and the aarch64 scalar path's, which can be read without an ARM machine.

The compiled core's C (fibnim_c/_core.c, which a build generates: `pip install
-e .` first) is compiled to assembly with GCC for x86-64 and with Debian's
aarch64 cross GCC (gcc-aarch64-linux-gnu), at -O3 as setup.py builds it.
Functions that -O3 would inline into their callers (the Cython loops of the
scalar path) are kept whole (-fno-inline-functions: the helpers declared
inline still are), so each kernel's loop can be found by name. A kernel's loop
is the stretch from a label to the branch back to it, the widest loop of a
vector kernel (the first holding its key instruction) or the smallest that
holds the key instruction of a scalar one; its count is every instruction of
that stretch, both arms of any branch inside, divided by the elements an
iteration does. llvm-mca (Debian's llvm-19, whose Neoverse N1 and V1 models
differ; llvm 14 has one model for both) estimates the cycles of an iteration
from the same stretch, every branch taken as falling through.

    python tools/loop_counts.py [--rst] [--show KERNEL]

docs/guide/arm_loops.inc is its --rst table, included by the backends guide.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "fibnim_c"
CYTHON_LOOP = "__pyx_f_6fibnim_5_core_{}"
MODELS = ("neoverse-n1", "neoverse-v1")


@dataclass(frozen=True)
class Loop:
    function: str  # the symbol in the assembly (a regular expression)
    key: str  # an instruction the loop must hold (a prefix of its mnemonic)
    elements: int  # elements an iteration does
    widest: bool = False  # a vector kernel's first loop, not its smallest
    skip: int = 0  # the smallest loops holding the key to pass over


# the scalar path's winning move: moves' first pass (its smallest loop holding
# a product is the second, over the diagonal moves alone)
MOVES_PASS = Loop(CYTHON_LOOP.format("moves"), "umulh", 1, skip=1)

# kernel: (AVX2 loop, neon loop, aarch64 scalar path's loop); None where a path
# has no loop of its own for it
KERNELS: dict[str, tuple[Loop | None, Loop | None, Loop | None]] = {
    "wythoff.is_safe": (
        Loop("fibnim_is_safe4", "vpmuludq", 8, widest=True),
        Loop("fibnim_is_safe_neon", "umulh", 6),
        Loop(CYTHON_LOOP.format("is_safe_rows"), "umulh", 1),
    ),
    "wythoff.pair": (
        Loop("fibnim_pair4", "vpmuludq", 4, widest=True),
        Loop("fibnim_pair_neon", "umulh", 6),
        Loop(CYTHON_LOOP.format("pair_rows"), "umulh", 1),
    ),
    "wythoff.is_lower": (
        Loop("fibnim_is_lower4", "vpmuludq", 8, widest=True),
        Loop("fibnim_is_lower_neon", "umulh", 4),
        Loop(CYTHON_LOOP.format("lower_or_upper"), "umulh", 1),
    ),
    "zeckendorf.decode": (
        Loop("fibnim_decode4", "vpshufb", 4, widest=True),
        Loop("fibnim_decode_neon", "tbl", 8, widest=True),
        Loop(CYTHON_LOOP.format("decode_rows"), "ldr", 1),
    ),
    "power_nim (two piles)": (
        Loop("fibnim_power_pairs4", "vpxor", 4, widest=True),
        Loop("fibnim_power_pairs_neon", "ld2", 12, widest=True),
        Loop("fibnim_power_pairs_portable", "eor", 1),
    ),
    "wythoff.winning_move": (
        Loop("fibnim_winning_move4", "vpmuludq", 4, widest=True),
        Loop("fibnim_winning_move_neon", "umulh", 4),
        MOVES_PASS,
    ),
    "classify (Wythoff)": (
        Loop("fibnim_classify_wythoff4", "vpmuludq", 4, widest=True),
        Loop("fibnim_classify_wythoff_neon", "umulh", 4),
        MOVES_PASS,
    ),
    "fibonacci_nim.is_p": (
        Loop("fibnim_fib_is_p_lanes_lzcnt", "lzcnt", 1),
        Loop("fibnim_fib_is_p_neon", "clz", 1),
        Loop("fibnim_fib_is_p_lanes", "clz", 1),
    ),
    "coding.count (words)": (
        Loop("fibnim_count_codewords4", "vpshufb", 4),
        Loop("fibnim_count_codewords_neon", "cnt", 4),
        Loop("fibnim_count_codewords_portable", "cnt", 1),
    ),
}

LABEL = re.compile(r"^(\.L\w+):")
BRANCH = re.compile(r"^(b\.?\w*|cbn?z|tbn?z|j\w+)\s+(?:.*,\s*)?(\.L\w+)$")
ALWAYS = {"b", "jmp"}  # branches with no fall-through
ENDS = {"ret", "br"}


def compile_to_assembly(compiler: str, core_c: Path, out: Path, extra: list[str]) -> str:
    command = [
        compiler,
        "-O3",
        "-fPIC",
        "-S",
        "-fno-inline-functions",
        "-fno-inline-functions-called-once",
        "-fno-inline-small-functions",
        f"-I{SOURCES}",
        f"-I{sysconfig.get_paths()['include']}",
        f"-I{numpy.get_include()}",
        "-DNPY_NO_DEPRECATED_API=NPY_2_0_API_VERSION",
        *extra,
        str(core_c),
        "-o",
        str(out),
    ]
    subprocess.run(command, check=True)
    return out.read_text()


def function_lines(assembly: str, name: str) -> list[str]:
    lines = assembly.splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(f"{name}:", line))
    end = next(i for i in range(start, len(lines)) if lines[i].strip().startswith(".size"))
    return lines[start:end]


def is_instruction(line: str) -> bool:
    text = line.strip()
    return bool(text) and not text.startswith((".", "#", "//", "@")) and not LABEL.match(text)


def blocks(lines: list[str]) -> tuple[list[list[str]], list[set[int]]]:
    """The function's basic blocks (their instructions) and each one's successors."""
    found: list[list[str]] = [[]]
    starts: dict[str, int] = {}
    for line in lines:
        text = line.strip()
        if m := LABEL.match(text):
            if found[-1]:
                found.append([])
            starts[m.group(1)] = len(found) - 1
        elif is_instruction(line):
            found[-1].append(text)
            mnemonic = text.split()[0]
            if BRANCH.match(text) or mnemonic in ENDS:
                found.append([])
    successors: list[set[int]] = []
    for i, block in enumerate(found):
        after: set[int] = set()
        last = block[-1] if block else ""
        mnemonic = last.split()[0] if last else ""
        if m := BRANCH.match(last):
            if m.group(2) in starts:
                after.add(starts[m.group(2)])
        if mnemonic not in ALWAYS and mnemonic not in ENDS and i + 1 < len(found):
            after.add(i + 1)
        successors.append(after)
    return found, successors


def natural_loops(successors: list[set[int]]) -> list[set[int]]:
    """Each loop's blocks: for each branch back to a block that every path from
    the function's entry passes first (the header), the header and every block
    that reaches that branch without passing it."""
    predecessors: list[set[int]] = [set() for _ in successors]
    for i, after in enumerate(successors):
        for j in after:
            predecessors[j].add(i)
    everything = set(range(len(successors)))
    dominators = [everything] * len(successors)
    dominators[0] = {0}
    changed = True
    while changed:
        changed = False
        for i in range(1, len(successors)):
            before = [dominators[p] for p in predecessors[i]]
            new = (set.intersection(*before) if before else set()) | {i}
            if new != dominators[i]:
                dominators[i], changed = new, True
    found: dict[int, set[int]] = {}  # the loops of one header are one loop
    for tail, after in enumerate(successors):
        for head in after & dominators[tail]:
            members = found.setdefault(head, {head})
            stack = [] if tail in members else [tail]  # the head's own ones lie outside
            members.add(tail)
            while stack:
                for before in predecessors[stack.pop()] - members:
                    members.add(before)
                    stack.append(before)
    return list(found.values())


def the_loop(assembly: str, loop: Loop) -> list[str]:
    """The instructions of the kernel's loop, in the order laid out."""
    found, successors = blocks(function_lines(assembly, loop.function))
    holding = [
        sorted(members)
        for members in natural_loops(successors)
        if any(line.split()[0].startswith(loop.key) for i in members for line in found[i])
    ]
    if not holding:
        raise LookupError(f"no loop of {loop.function} holds {loop.key}")
    if loop.widest:
        chosen = min(holding, key=min)
    else:
        by_size = sorted(holding, key=lambda members: sum(len(found[i]) for i in members))
        chosen = by_size[loop.skip]
    return [line for i in chosen for line in found[i]]


def cycles(mca: str, body: list[str], model: str) -> float:
    """llvm-mca's cycles per iteration of the loop body, for the processor model."""
    result = subprocess.run(
        [mca, "-mtriple=aarch64", f"-mcpu={model}", "-iterations=1000"],
        input="\n".join(body) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    total = re.search(r"Total Cycles:\s+(\d+)", result.stdout)
    if total is None:
        raise RuntimeError(result.stdout + result.stderr)
    return int(total.group(1)) / 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", metavar="KERNEL", help="print the loops of one kernel")
    parser.add_argument("--rst", action="store_true", help="a table for the docs, not Markdown")
    arguments = parser.parse_args()
    core_c = SOURCES / "_core.c"
    if not core_c.exists():
        sys.exit("fibnim_c/_core.c is made by a build: pip install -e . first")
    mca = shutil.which("llvm-mca-19") or shutil.which("llvm-mca")
    cross = shutil.which("aarch64-linux-gnu-gcc")
    if mca is None or cross is None:
        sys.exit("needs Debian's gcc-aarch64-linux-gnu, libc6-dev-arm64-cross and llvm-19")
    with tempfile.TemporaryDirectory() as work:
        x86 = compile_to_assembly("gcc", core_c, Path(work) / "x86.s", [])
        arm = compile_to_assembly(cross, core_c, Path(work) / "arm.s", [])
    columns = ["kernel", "AVX2", "neon", "aarch64 scalar"]
    for model in MODELS:
        columns += [f"neon, {model}", f"scalar, {model}", f"scalar / neon, {model}"]
    rows = []
    for kernel, loops_ in KERNELS.items():
        bodies = [
            the_loop(assembly, loop) if loop else None
            for assembly, loop in zip((x86, arm, arm), loops_, strict=True)
        ]
        row = [kernel]
        for body, loop in zip(bodies, loops_, strict=True):
            row.append(f"{len(body) / loop.elements:.1f}" if body and loop else "-")
        for model in MODELS:
            per = [
                cycles(mca, body, model) / loop.elements if body and loop else None
                for body, loop in zip(bodies[1:], loops_[1:], strict=True)
            ]
            row += [f"{p:.2f}" if p else "-" for p in per]
            row.append(f"{per[1] / per[0]:.2f}" if per[0] and per[1] else "-")
        rows.append(row)
        if arguments.show == kernel:
            for name, body in zip(columns[1:4], bodies, strict=True):
                print(f"\n{name}:\n" + "\n".join(body or []), file=sys.stderr)
    caption = (
        "instructions per element (AVX2, neon, aarch64 scalar loops); aarch64 cycles "
        f"per element by {Path(mca).name} for the Neoverse N1 and V1, and the scalar "
        "loop's over the neon one's"
    )
    if arguments.rst:
        print(f".. list-table:: {caption}\n   :header-rows: 1\n")
        for row in [columns, *rows]:
            print("\n".join(f"   {'*' if i == 0 else ' '} - {cell}" for i, cell in enumerate(row)))
    else:
        print(f"{caption}\n")
        for row in [columns, ["---"] * len(columns), *rows]:
            print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
