"""Running the suite: medians of repeats, on both backends, one and all threads."""

from __future__ import annotations

import functools
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import timeit
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import fibnim
from fibnim import _backend, _threads
from fibnim.bench import coding, pipelines
from fibnim.bench.suite import (
    CALL_X_EQUAL,
    CALLS,
    CASES,
    CLASSIFY_ROW_US,
    INT_CALL_US,
    NUMBA_TARGETS,
    SOLVERS,
    Call,
    Case,
    Inputs,
)


@dataclass(frozen=True)
class Plan:
    """How much to measure: sizes, the largest size the pure twin gets, repeats."""

    sizes: tuple[int, ...]
    pure_size: int
    repeats: int
    solver_sizes: str  # "quick" or "full"

    @staticmethod
    def named(mode: str) -> Plan:
        # seven repeats at every size: with five (p >= 1/252), one stray repeat
        # kept a compare from finding a 2x slowdown significant
        if mode == "quick":
            return Plan((10**3, 10**4, 10**5), 10**3, 7, "quick")
        if mode == "full":
            return Plan((10**3, 10**4, 10**5, 10**6, 10**7, 10**8), 10**4, 7, "full")
        return Plan((10**3, 10**4, 10**5, 10**6, 10**7), 10**4, 7, "full")


SAMPLE_SECONDS = 0.002  # the least time one sample of a call lasts


def _seconds(function: Callable[[], Any], loops: int = 1) -> float:
    """Seconds per call of function(), over `loops` calls in a row."""
    start = time.perf_counter()
    for _ in range(loops):
        function()
    return (time.perf_counter() - start) / loops


def _loops(function: Callable[[], Any]) -> int:
    """How many calls in a row make a sample of function() last SAMPLE_SECONDS
    (it is called once here, which warms it up): single calls over 10**5
    elements vary too much between runs (the docs' speed page says how much)."""
    return max(1, math.ceil(SAMPLE_SECONDS / max(_seconds(function), 1e-9)))


def _summary(samples: list[float]) -> dict[str, float]:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def timed(function: Callable[[], Any], repeats: int, loops: int = 0) -> dict[str, float]:
    """Seconds per call of function(): median, min and max over repeats, after a
    warm-up, each repeat `loops` calls in a row (0: as many as last SAMPLE_SECONDS)."""
    function()
    loops = loops or _loops(function)
    return _summary([_seconds(function, loops) for _ in range(repeats)])


def paired(
    make: Callable[[], Callable[[], Any]],
    make_floor: Callable[[], Callable[[], Any]],
    repeats: int,
) -> tuple[dict[str, float], dict[str, float], list[float]]:
    """A call and its floor timed in turns: the seconds of each (median, min,
    max), and each turn's ratio, the call's time over the floor's. A busier or
    slower machine moves the ratios much less than the times, so `fibnim bench
    --compare` tests them. Each turn makes both anew (`make()`: fresh arrays,
    which land on other pages and cache sets): what differs between two runs
    then differs between turns too, and a test over the turns sees it. Each
    sample is as many calls in a row as last SAMPLE_SECONDS, right after a
    call that warms it up, so both are timed with their own arrays in the
    caches (at 10**6 elements the floor's 24 MB fit a 32 MB L3, and timed
    after the kernel it was read from memory, once looped from the cache)."""
    loops, floor_loops = _loops(make()), _loops(make_floor())
    mine, theirs = [], []
    for _ in range(repeats):
        function, floor = make(), make_floor()
        function()
        mine.append(_seconds(function, loops))
        floor()
        theirs.append(_seconds(floor, floor_loops))
    ratios = [a / b for a, b in zip(mine, theirs, strict=True)]
    return _summary(mine), _summary(theirs), ratios


def per_element(seconds: dict[str, float], size: int) -> dict[str, float]:
    return {key: value / size * 1e9 for key, value in seconds.items()}


def floor_call(kind: str, size: int) -> Callable[[], Any]:
    """The memory floor for a kernel of `size` elements: one pass over two int64
    arrays into a third (add) or into bools (equal)."""
    a = np.arange(size, dtype=np.int64)
    b = a.copy()
    out = np.empty(size, dtype=np.int64 if kind == "add" else bool)
    ufunc = np.add if kind == "add" else np.equal
    return lambda: ufunc(a, b, out=out)


def bytes_floor_call(case: Case, inputs: Inputs, size: int) -> Callable[[], Any] | None:
    """The bytes floor of case over `size` elements (fibnim_c/floors.h): a
    compiled pass that reads as many 8-byte words an element as the call reads
    (its `reads`) and writes as many bytes as it returns, with plain stores
    (None where the case names no reads, or the shape has no loop)."""
    if not case.reads:
        return None
    words = sum(getattr(inputs[key], "nbytes", 0) for key in case.reads) // (8 * size)
    answer = case.call(inputs)
    answers = answer if isinstance(answer, tuple) else (answer,)
    written = sum(np.asarray(a).nbytes for a in answers) // size
    source = np.arange(size * words, dtype=np.uint64)
    target = np.empty(size * written, dtype=np.uint8)
    core = _backend._CORE
    assert core is not None, "the bench runs on the compiled core"
    if not core.bytes_floor(source[:words], target[:written], words, written):
        return None
    return lambda: core.bytes_floor(source, target, words, written)


def peak_megabytes(function: Callable[[], Any]) -> float:
    """The most memory one call of function allocates at once (numpy reports to tracemalloc)."""
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def measure_size(case: Case, inputs: Inputs, size: int, plan: Plan, last: bool) -> dict[str, Any]:
    """The figures of one case at one size (the last, largest size has more)."""
    repeats = plan.repeats

    def call() -> Any:
        return case.call(inputs)

    def fresh() -> Callable[[], Any]:
        if size > 10**6:  # beyond the caches, where arrays land hardly matters
            return call
        copied = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in inputs.items()}
        return functools.partial(case.call, copied)

    _backend.use("cython")
    with _threads.limited(1):  # as its floor runs: the split is timed apart (all_threads)
        compiled, floor, ratios = paired(
            fresh, functools.partial(floor_call, case.floor, size), repeats
        )
    row: dict[str, Any] = {
        "size": size,
        "compiled": per_element(compiled, size),
        "floor": per_element(floor, size),
        "x_floor_samples": ratios,
    }
    if (bytes_floor := bytes_floor_call(case, inputs, size)) is not None:
        row["bytes_floor"] = per_element(timed(bytes_floor, repeats), size)
    if (hand := _by_hand(case, inputs, size, max(1, repeats // 2))) is not None:
        row["by_hand"] = hand
    if size <= plan.pure_size:
        _backend.use("python")
        row["pure"] = per_element(timed(call, 1), size)
        _backend.use("cython")
    if last:
        if _backend.cores() > 1 and size >= 10**6:  # smaller, one thread is the rule
            # fibnim's own split, on every core the process may use
            with _threads.limited(_backend.cores()):
                row["all_threads"] = per_element(timed(call, repeats), size)
        row["peak_mb"] = peak_megabytes(call)
        if case.by_hand is not None and case.wrong is not None:
            exact = call()
            exact = tuple(np.copy(e) for e in exact) if isinstance(exact, tuple) else exact
            row["by_hand_wrong"] = case.wrong(inputs, case.by_hand(inputs), exact)
    return row


def _by_hand(case: Case, inputs: Inputs, size: int, repeats: int) -> dict[str, float] | None:
    """ns per element of the numpy a user writes by hand (None where nobody does,
    and beyond 10**7, where its temporaries take gigabytes)."""
    by_hand = case.by_hand
    if by_hand is None or size > 10**7:
        return None
    return per_element(timed(lambda: by_hand(inputs), repeats), size)


def measure_case(case: Case, plan: Plan, seed: int = 2026) -> dict[str, Any]:
    """Every figure of one case (see the schema in fibnim.bench.report)."""
    rng = np.random.default_rng(seed)
    sizes = [size for size in plan.sizes if size <= case.largest] or [min(plan.sizes)]
    rows = [measure_size(case, case.make(n, rng), n, plan, n == max(sizes)) for n in sizes]
    tiny = case.make(1, rng)
    overhead = timed(lambda: case.call(tiny), 200, loops=1)
    return {
        "name": case.name,
        "note": case.note,
        "reference": case.reference,
        "floor": case.floor,
        "targets": case.targets,
        "path_target": case.path_target,
        "call_overhead_us": overhead["median"] * 1e6,
        "rows": rows,
    }


def per_call(function: Callable[[], Any]) -> float:
    """Microseconds per call of function(): the median of 7 runs of 2,000 calls."""
    runs = timeit.repeat(function, number=2000, repeat=7)
    return statistics.median(runs) / 2000 * 1e6


#: elements of the blocks a loop over preallocated blocks passes, and of the
#: in-cache call whose time per element bounds theirs
BLOCK, IN_CACHE = 1000, 8192
SERIES_SIZE = 10**6


def measure_calls() -> dict[str, Any]:
    """The cost of one call of each elementwise function in each form, next to
    numpy's own ufunc of as many outputs (np.equal; np.divmod for two) in the
    same form, timed right before it (see the report's Per call section): on
    Python ints, on one-element int64 arrays plain, with out=, and with out=
    and where=; a block of BLOCK elements with out=, against the peer's plus
    BLOCK times the function's own in-cache time per element; a pandas Series
    of SERIES_SIZE against its ndarray; classify of one row."""
    from fibnim import classify

    _backend.use("cython")
    table = np.array([[3, 5]])
    return {
        "target_x_peer": CALL_X_EQUAL,
        "target_int_us": INT_CALL_US,
        "block": BLOCK,
        "classify_row_us": per_call(lambda: classify(table, "wythoff")),
        "target_classify_row_us": CLASSIFY_ROW_US,
        "calls": [_call_row(call) for call in CALLS],
    }


#: numpy's own ufunc of as many outputs, the peer each function's call is timed beside
_PEERS = {
    1: Call("np.equal", np.equal, 2, (np.dtype(np.bool_),)),
    2: Call("np.divmod", np.divmod, 2, (np.dtype(np.int64),) * 2),
}


def _forms(call: Call) -> dict[str, float]:
    """Microseconds per call of call's function in each form (see measure_calls),
    on small values (4, 5, ...: one per input)."""
    f, mask = call.function, np.array([True])
    one = [np.array([4 + i]) for i in range(call.arity)]
    block = [np.full(BLOCK, 4 + i) for i in range(call.arity)]
    outs, block_outs = call.outs(1), call.outs(BLOCK)
    return {
        "plain_us": per_call(lambda: f(*one)),
        "out_us": per_call(lambda: f(*one, out=outs)),
        "where_us": per_call(lambda: f(*one, out=outs, where=mask)),
        "block_us": per_call(lambda: f(*block, out=block_outs)),
    }


def _call_row(call: Call) -> dict[str, Any]:
    """measure_calls' figures of one function, and of its peer in the same turn."""
    f, count, peer = call.function, call.arity, _PEERS[len(call.outputs)]
    cached, cached_outs = [np.full(IN_CACHE, 4)] * count, call.outs(IN_CACHE)
    return {
        "name": call.name,
        "peer": peer.name,
        "peer_us": _forms(peer),
        **_forms(call),
        "ints_us": per_call(lambda: f(*[4] * count)),
        "element_ns": per_call(lambda: f(*cached, out=cached_outs)) / IN_CACHE * 1e3,
        "series_x": _series_ratio(f, count, call.sample(SERIES_SIZE)),
    }


def _series_ratio(function: Callable[..., Any], count: int, values: np.ndarray) -> float | None:
    """function's time on a pandas Series of values over its time on the
    Series' ndarray, timed in turns (None without pandas)."""
    try:
        import pandas as pd
    except ImportError:
        return None
    series = pd.Series(values)
    ratios = []
    for _ in range(7):  # in turns, the best of five calls each
        on_series = min(timeit.repeat(lambda: function(*[series] * count), number=1, repeat=5))
        on_array = min(timeit.repeat(lambda: function(*[values] * count), number=1, repeat=5))
        ratios.append(on_series / on_array)
    return statistics.median(ratios)


def measure_solvers(plan: Plan) -> list[dict[str, Any]]:
    _backend.use("cython")
    rows = []
    for solver in SOLVERS:
        for size in solver.quick_sizes if plan.solver_sizes == "quick" else solver.sizes:
            seconds = timed(functools.partial(solver.call, size), 1 if size >= 1000 else 3)
            target = solver.target_seconds.get(size)
            rows.append(
                {
                    "name": solver.name,
                    "size": size,
                    "seconds": seconds["median"],
                    "target_seconds": target,
                }
            )
    return rows


# the processor features the compiled core's implementations use (x86-64), and
# the vector unit of ARM (asimd: NEON)
FEATURES = (
    "avx2", "bmi2", "fma", "avx512f", "avx512vl", "avx512bw", "avx512dq", "avx512cd",
    "avx512ifma", "asimd", "sve",
)  # fmt: skip


def machine() -> dict[str, Any]:
    cpu = ""
    flags: set[str] = set()
    try:  # the first processor's model and flags (x86) or features (ARM)
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = (part.strip() for part in line.partition(":"))
            if key == "model name" and not cpu:
                cpu = value
            elif key in ("flags", "Features") and not flags:
                flags = set(value.split())
    except OSError:
        pass
    cpu = cpu or platform.processor() or platform.machine()
    return {
        "cpu": cpu,
        "cores": _backend.cores(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "cython": _backend.built_with(),
        "compiler_flags": sysconfig.get_config_var("CFLAGS"),
        "fibnim": fibnim.__version__,
        "backend": fibnim.backend,
        "implementation": _backend.implementation(),
        "implementations": list(_backend.implementations()),
        "features": [f for f in FEATURES if f in flags],
    }


def settle_allocator() -> None:
    """Put glibc's malloc in the state a long-running process reaches, whatever
    ran before: freeing a memory-mapped block raises its threshold for mapping
    (to that block's size, up to 32 MB) and for giving memory back (twice
    that), and below it arrays come from the heap with no page faults. Whether
    some earlier free had raised it made a kernel that allocates its answers
    (10**5 elements) 3x slower in one run of the same tree than in another."""
    block = np.empty(16 << 20, dtype=np.uint8)  # mapped, and unmapped at once
    del block


def on_every_path(
    case: Case,
    plan: Plan,
    rng: np.random.Generator,
    paths: Sequence[str] | None,
    peers: bool,
    say: Callable[[str], None],
) -> dict[str, Any]:
    """{name, size, by_hand (ns per element, where there is one), paths:
    {implementation: {ns, x_floor, x_floor_samples}}}, each implementation (of
    `paths`, or all this processor runs) timed in turns with its floor. With
    `peers`, a case that has a numba peer (fibnim.bench.peers) gets its figures
    on each implementation too: `numba_ns`, `numba_x_floor` and `x_numba`,
    fibnim's time over numba's (their ratios to the floor divided), and on
    every core: `every_core_ns` (fibnim's own split), `numba_every_core_ns`
    (numba's prange) and `x_numba_every_core`, the one over the other."""
    say(f"{case.name}, {'every implementation' if paths is None else paths[0]}")
    size = max([n for n in plan.sizes if n <= case.largest] or [min(plan.sizes)])
    inputs = case.make(size, rng)
    row: dict[str, Any] = {"name": case.name, "size": size, "paths": {}}
    if (hand := _by_hand(case, inputs, size, 3)) is not None:
        row["by_hand"] = hand["median"]
    bytes_floor = bytes_floor_call(case, inputs, size)
    bytes_seconds = None if bytes_floor is None else timed(bytes_floor, plan.repeats)["median"]
    for name in paths or _backend.implementations():
        _backend.use_implementation(name)
        with _threads.limited(1):
            compiled, _, ratios = paired(
                lambda: functools.partial(case.call, inputs),
                functools.partial(floor_call, case.floor, size),
                plan.repeats,
            )
        x_floor = statistics.median(ratios)
        figures = {"ns": compiled["median"] / size * 1e9, "x_floor": x_floor}
        if bytes_seconds is not None:
            figures["x_bytes"] = compiled["median"] / bytes_seconds
        if peers and case.peer is not None:
            numba = peer_figures(case, inputs, name, plan.repeats)
            figures |= {f"numba_{key}": value for key, value in numba.items()}
            figures["x_numba"] = x_floor / numba["x_floor"]
            if _backend.cores() > 1 and "every_core_ns" in numba:
                # fibnim's own split against numba's prange, both on every core
                with _threads.limited(_backend.cores()):
                    every_core = timed(functools.partial(case.call, inputs), plan.repeats)
                figures["every_core_ns"] = every_core["median"] / size * 1e9
                figures["x_numba_every_core"] = figures["every_core_ns"] / numba["every_core_ns"]
        row["paths"][name] = figures | {"x_floor_samples": ratios}
    return row


def peer_figures(case: Case, inputs: Inputs, implementation: str, repeats: int) -> dict[str, Any]:
    """The numba peer of `case` on the same inputs, compiled for `implementation`'s
    instruction set (NUMBA_CPU_NAME and NUMBA_CPU_FEATURES; numba reads them
    once, so in a process of its own) and timed there in turns with the same
    floor; `target` names what it was compiled for."""
    assert case.peer is not None
    names = case.peer[1]
    environment = dict(os.environ)
    target = (
        NUMBA_TARGETS.get(implementation) if platform.machine() in ("x86_64", "AMD64") else None
    )
    if target:
        environment["NUMBA_CPU_NAME"], environment["NUMBA_CPU_FEATURES"] = target
    with tempfile.TemporaryDirectory(prefix="fibnim-peers-") as scratch:
        saved = Path(scratch) / "inputs.npz"
        np.savez(saved, **{name: inputs[name] for name in names})
        command = [sys.executable, "-m", "fibnim.bench.peers", case.name, case.floor]
        done = subprocess.run(
            [*command, str(repeats), str(saved)],
            capture_output=True,
            text=True,
            env=environment,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"the numba peer of {case.name} failed: {done.stderr.strip()}")
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures | {"target": " ".join(target) if target else "this processor"}


def run(
    mode: str = "default",
    names: list[str] | None = None,
    progress: Callable[[str], None] | None = None,
    implementation: str | None = None,
    peers: bool = False,
) -> dict[str, Any]:
    """Measure the suite (or the cases named) on the compiled core's implementation
    in use, or on `implementation`; with implementation "all", on the best one
    and then every case on each one (`implementations` in the results). With
    `peers`, the cases with a numba peer are timed beside it (`implementations`:
    on every one with "all", else on the one measured). The results as
    `report` documents them."""
    if "cython" not in _backend.available():
        raise RuntimeError("fibnim bench compares the compiled core: it is not built here")
    say = progress or (lambda _: None)
    before = _backend.name()
    _backend.use("cython")  # the machine's record names the compiled core's code path
    path_before = _backend.implementation()
    every_path = implementation == "all"
    _backend.use_implementation(
        _backend.implementations()[0] if every_path else implementation or path_before
    )
    settle_allocator()
    plan = Plan.named(mode)
    wanted = [c for c in CASES if names is None or c.name in names]
    cases = [c for c in wanted if c.available()]
    results: dict[str, Any] = {
        "schema": 1,
        "mode": mode,
        "when": time.strftime("%Y-%m-%d %H:%M:%S %z"),
        "commit": commit(),
        "machine": machine(),
        "load": {"before": _load()},
        "kernels": [],
        "solvers": [],
        "pipelines": [],
    }
    try:
        for case in wanted:
            if not case.available():
                say(f"{case.name}: left out, it needs {case.needs}")
        for case in cases:
            say(case.name)
            results["kernels"].append(measure_case(case, plan))
        if names is None:
            say("solvers")
            results["solvers"] = measure_solvers(plan)
            say("calls")
            results["calls"] = measure_calls()
            # the whole runs, in subprocesses, on the implementation the suite ran on
            chosen = {"FIBNIM_IMPLEMENTATION": _backend.implementation()}
            repeats = 1 if mode == "quick" else 5
            results["pipelines"] = pipelines.measure(mode, repeats, say, chosen)
        if names is None or "coding" in names:
            say("coding")
            results["coding"] = coding.measure(10**5 if mode == "quick" else 10**7, plan.repeats)
        if every_path or peers:  # with --peers alone, the cases that have one, as they ran
            paths = None if every_path else [_backend.implementation()]
            rng = np.random.default_rng(2026)
            results["implementations"] = [
                on_every_path(case, plan, rng, paths, peers, say)
                for case in cases
                if every_path or case.peer is not None
            ]
    finally:
        _backend.use_implementation(path_before)
        _backend.use(before)
    results["load"]["after"] = _load()
    return results


def commit() -> dict[str, Any] | None:
    """The git commit of the checkout fibnim runs from, and whether its tracked
    files are as committed (None: not a checkout, or no git)."""
    here = Path(fibnim.__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True
        )
        changes = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
        )
    except OSError:
        return None
    if head.returncode != 0 or changes.returncode != 0:
        return None
    return {"id": head.stdout.strip(), "clean": not changes.stdout.strip()}


def _load() -> list[float] | None:
    """The machine's load averages (1, 5 and 15 minutes): a run on a busy
    machine says so beside its figures. None where the system has none."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except (AttributeError, OSError):
        return None
