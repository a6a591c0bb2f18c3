"""The report of a `fibnim bench` run: results.json, report.md, and PNG plots.

results.json (validated against `SCHEMA`, a JSON Schema):
- `schema` (1), `mode` (quick, default, full), `when`, `commit` (where fibnim
  runs from a git checkout: `id`, the commit, and `clean`, whether the tree
  held no change to it; null elsewhere, missing in older runs), `machine`: cpu, cores,
  platform, python, numpy, cython (the version that generated the compiled
  core), compiler_flags, fibnim, backend,
  implementation (the compiled core's implementation that ran the suite),
  implementations (those the processor runs, best first), features (its
  processor features that the implementations use). Runs before the
  implementations were named have `simd` (true for the AVX-512 IFMA kernels).
- `kernels`: one per case, with `name`, `note`, `floor` (add or equal),
  `targets` (x_floor: at most that many times the floor; x_pure and x_hand: at
  least that many times faster than the pure twin and than numpy by hand),
  `call_overhead_us` (one call on one element), `path_target` (the x_floor at
  10**7 each vector implementation must reach; the scalar one, twice it) and
  `rows`, one per size: `size`, and ns per element as {median, min, max} for
  `compiled`, `floor`, and where measured `by_hand`, `pure`, `all_threads`
  (the compiled core on every core, its own split), `bytes_floor` (a compiled
  pass that reads the words and writes the bytes the call does, see
  fibnim_c/floors.h); at the largest size also `peak_mb` (the most one call
  allocates) and `by_hand_wrong` (how many answers numpy by hand got wrong);
  `x_floor_samples`, each repeat's time over the floor's, the two timed in
  turns (what `compare` tests; missing in runs before it).
- `solvers`: name, size, seconds, target_seconds (or null).
- `pipelines` (from schema 1's later runs; may be missing): whole `fibnim
  classify` runs over files, each with `name`, `size` (rows), `seconds`
  (fibnim's own figure, all cores), `floor_seconds` (numpy or pyarrow doing
  the same reading and writing, see fibnim.bench.pipelines), `target_x_floor`,
  `peak_mb` (fibnim's peak resident memory, or null) and `threads`.
- `implementations` (with `fibnim bench --implementation all`): one row per
  kernel, `name`, `size` (its largest), `by_hand` (ns per element of numpy by
  hand, where there is one) and `paths`: per implementation, `ns` (median ns
  per element), `x_floor` (the median of `x_floor_samples`, each repeat's time
  over the floor's, timed in turns), `x_bytes` (over the bytes floor) and,
  with `--peers`, for a kernel with a numba peer: `numba_ns`, `numba_x_floor`
  (the peer compiled for that implementation's instruction set, timed in
  turns with the same floor in a process of its own), `numba_target` (the NUMBA_CPU_NAME and
  NUMBA_CPU_FEATURES it was compiled with), `every_core_ns`,
  `numba_every_core_ns` and `x_numba_every_core` (fibnim's split and numba's
  prange over every core, the one's time over the other's) and `x_numba`, fibnim's time over
  numba's (x_floor over numba_x_floor; the target is at most 1 / 1.5).
- `calls` (may be missing): the cost of one call, in microseconds (median of
  7 runs of 2,000 calls, fibnim.bench.run.measure_calls): `target_x_peer`,
  `target_int_us`, `block` (its size), `classify_row_us` and its target, and
  `calls`, one per elementwise function: `name`, `peer` (np.equal, or
  np.divmod for two outputs), `peer_us` (the peer's `plain_us`, `out_us`,
  `where_us` and `block_us`, timed right before the function's), the
  function's own `plain_us`, `out_us`, `where_us` (out= and where=) and
  `block_us` (a block with out=), `ints_us`, `element_ns` (in cache, with out=)
  and `series_x` (a pandas Series over its ndarray, or null).
- A kernel's `reference` names another kernel of the run; its `x_reference`
  target is this kernel's time per element over that one's, at the largest
  size both ran.
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any


def _object(*required: str, **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(required), "properties": properties}


def _array(items: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "array", "items": items, **more}


_POSITIVE = {"type": "number", "exclusiveMinimum": 0}
_AT_LEAST_0 = {"type": "number", "minimum": 0}
_SIZE = {"type": "integer", "minimum": 1}
_OR_NULL = {"type": ["number", "null"]}
_TIMING = _object("median", "min", "max", median=_AT_LEAST_0, min=_AT_LEAST_0, max=_AT_LEAST_0)
#: the forms of one call that are timed against a peer (fibnim.bench.run.measure_calls)
_FORMS = ("plain_us", "out_us", "where_us", "block_us")
_CODEC = _object(
    "name", "pack_ns", "unpack_ns", "bits_per_value",
    pack_ns=_POSITIVE, unpack_ns=_POSITIVE, bits_per_value=_POSITIVE,
)  # fmt: skip
_LOAD = _array(_AT_LEAST_0, minItems=3, maxItems=3) | {"type": ["array", "null"]}
_KERNEL_ROW = _object(
    "size", "compiled", "floor",
    size=_SIZE, compiled=_TIMING, floor=_TIMING, by_hand=_TIMING, pure=_TIMING,
    all_threads=_TIMING, bytes_floor=_TIMING, peak_mb=_AT_LEAST_0,
    by_hand_wrong={"type": "integer", "minimum": 0},
    x_floor_samples=_array(_POSITIVE),
)  # fmt: skip
_TARGETS = {"type": "object", "additionalProperties": False, "properties": {
    k: _POSITIVE for k in ("x_floor", "x_pure", "x_hand", "x_reference")
}}  # fmt: skip
_PATH = _object(
    "ns", "x_floor",
    ns=_POSITIVE, x_floor=_POSITIVE, x_bytes=_POSITIVE, numba_ns=_POSITIVE,
    numba_x_floor=_POSITIVE, x_numba=_POSITIVE, every_core_ns=_POSITIVE,
    numba_every_core_ns=_POSITIVE, x_numba_every_core=_POSITIVE, numba_target={"type": "string"},
)  # fmt: skip
_CALL = _object(
    "name", "peer", "peer_us", "ints_us", *_FORMS,
    **{key: _POSITIVE for key in (*_FORMS, "ints_us", "element_ns")},
    peer_us=_object(*_FORMS, **{key: _POSITIVE for key in _FORMS}), series_x=_OR_NULL,
)  # fmt: skip
_PIPELINE = _object(
    "name", "size", "seconds", "floor_seconds", "target_x_floor", "peak_mb", "threads",
    size=_SIZE, seconds=_POSITIVE, floor_seconds=_POSITIVE, target_x_floor=_POSITIVE,
    peak_mb=_OR_NULL, threads=_SIZE,
)  # fmt: skip

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "fibnim bench results",
    **_object(
        "schema", "mode", "when", "machine", "kernels", "solvers",
        schema={"const": 1},
        mode={"enum": ["quick", "default", "full"]},
        when={"type": "string"},
        commit={"oneOf": [
            {"type": "null"},
            _object("id", "clean", id={"type": "string", "pattern": "^[0-9a-f]{40}$"},
                    clean={"type": "boolean"}),
        ]},
        load=_object(before=_LOAD, after=_LOAD),
        machine=_object(
            "cpu", "cores", "python", "numpy", "fibnim", "backend",
            cores=_SIZE,
            implementations=_array({"type": "string"}),
            features=_array({"type": "string"}),
        ),
        kernels=_array(_object(
            "name", "floor", "targets", "call_overhead_us", "rows",
            name={"type": "string"}, reference={"type": "string"},
            floor={"enum": ["add", "equal"]}, targets=_TARGETS,
            call_overhead_us=_AT_LEAST_0, path_target=_OR_NULL,
            rows=_array(_KERNEL_ROW, minItems=1),
        )),
        solvers=_array(_object(
            "name", "size", "seconds", "target_seconds",
            seconds=_AT_LEAST_0, target_seconds=_OR_NULL,
        )),
        implementations=_array(_object(
            "name", "size", "paths",
            size=_SIZE, by_hand=_POSITIVE,
            paths={"type": "object", "additionalProperties": _PATH},
        )),
        calls=_object("target_x_peer", "target_int_us", "block", "calls", calls=_array(_CALL)),
        coding=_array(_object(
            "name", "size", "fibnim", "peers",
            fibnim=_CODEC, peers=_array(_CODEC), unpack_into_ns={"type": "number"},
            encode_ns={"type": "number"}, decode_ns={"type": "number"},
        )),
        pipelines=_array(_PIPELINE),
    ),
}  # fmt: skip


def _largest(kernel: dict[str, Any], key: str) -> dict[str, Any] | None:
    """The row of the largest size that has `key`."""
    rows = [row for row in kernel["rows"] if key in row]
    return max(rows, key=lambda row: row["size"]) if rows else None


def headline(kernel: dict[str, Any]) -> dict[str, Any]:
    """The ratios of one kernel: at the largest size, and against the pure twin at
    the largest size it ran."""
    top = kernel["rows"][-1]
    compiled = top["compiled"]["median"]
    figures: dict[str, Any] = {
        "size": top["size"],
        "ns": compiled,
        "x_floor": compiled / top["floor"]["median"],
    }
    pure = _largest(kernel, "pure")
    if pure is not None:  # per element, the pure twin's time hardly depends on N
        figures["x_pure"] = pure["pure"]["median"] / compiled
    if "by_hand" in top:
        figures["x_hand"] = top["by_hand"]["median"] / compiled
        figures["hand_wrong"] = top.get("by_hand_wrong")
    if "bytes_floor" in top:
        figures["x_bytes"] = compiled / top["bytes_floor"]["median"]
    if "all_threads" in top:
        figures["threads_speedup"] = compiled / top["all_threads"]["median"]
    figures["peak_mb"] = top.get("peak_mb")
    figures["overhead_us"] = kernel["call_overhead_us"]
    return figures


_TARGET_WORDS = {
    "x_floor": "x np floor, at most",
    "x_pure": "x faster than pure, at least",
    "x_hand": "x faster than numpy by hand, at least",
    "x_reference": "x its reference's time, at most",
}


def x_reference(results: dict[str, Any], kernel: dict[str, Any]) -> float | None:
    """kernel's ns per element over its reference's, at the largest size both ran."""
    other = next((k for k in results["kernels"] if k["name"] == kernel.get("reference")), None)
    if other is None:
        return None
    theirs = {row["size"]: row["compiled"]["median"] for row in other["rows"]}
    shared = [row for row in kernel["rows"] if row["size"] in theirs]
    if not shared:
        return None
    row = max(shared, key=lambda r: r["size"])
    return float(row["compiled"]["median"] / theirs[row["size"]])


_MET = {True: "yes", False: "**no**", None: "not measured"}


def _verdict(met: bool | str | None) -> str:
    return met if isinstance(met, str) else _MET[met]


TARGET_SIZE = 10**7  # the size the targets are set at: in cache, smaller ones say little


_NOT_CHECKED = "not checked [1]"
_NOT_CHECKED_NOTE = (
    f"[1] Set at N = {TARGET_SIZE:.0e}, which a --quick run does not reach; "
    "`fibnim bench` without --quick checks it."
)


def busy(results: dict[str, Any]) -> str | None:
    """A sentence saying the machine was busy during the run (a load average
    over its cores above 0.5, before or after), or None."""
    load, cores = results.get("load") or {}, results["machine"]["cores"]
    worst = max((max(v) for v in (load.get("before"), load.get("after")) if v), default=None)
    if worst is None or worst / cores <= 0.5:
        return None
    return (
        f"The machine was busy: its load average reached {worst:g} on {cores} cores "
        f"(before {load.get('before')}, after {load.get('after')}), so a target marked "
        "**no** may be the load's doing; run again on an idle machine before reading it."
    )


def _checked(met: bool | None, size: int, mode: str) -> bool | str | None:
    """met, or why it is not judged: a --quick run's size is below TARGET_SIZE
    (the cases that stop sooner do so in every mode, and are judged there)."""
    if met is None or mode != "quick" or size >= TARGET_SIZE:
        return met
    return _NOT_CHECKED


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target of the suite with its figure and whether it is met (True or
    False), None where it was not measured, or a note where the run's size is
    below the one the target is set at (--quick)."""
    rows: list[dict[str, Any]] = []
    mode = results["mode"]

    def add(kernel: str, target: str, measured: Any, met: Any) -> None:
        rows.append({"kernel": kernel, "target": target, "measured": measured, "met": met})

    for kernel in results["kernels"]:
        figures = headline(kernel)
        figures["x_reference"] = x_reference(results, kernel)
        for key, wanted in kernel["targets"].items():
            got = figures.get(key)
            at_most = key in ("x_floor", "x_reference")
            met = None if got is None else (got <= wanted if at_most else got >= wanted)
            of = f" ({kernel['reference']})" if key == "x_reference" else ""
            target = f"{_TARGET_WORDS[key]} {wanted:g}{of}"
            add(kernel["name"], target, got, _checked(met, figures["size"], mode))
    for pipeline in results.get("pipelines", []):
        ratio, size = pipeline["seconds"] / pipeline["floor_seconds"], pipeline["size"]
        run = f"fibnim classify {pipeline['name']}, N = {size:.0e}"
        wanted = pipeline["target_x_floor"]
        add(run, f"x its floor, at most {wanted:g}", ratio, _checked(ratio <= wanted, size, mode))
        if (peak := pipeline["peak_mb"]) is not None:
            add(run, "peak resident MB, at most 300", peak, _checked(peak <= 300, size, mode))
    if (quoted := _quoted_over_plain(results)) is not None:
        add(
            "fibnim classify csv + quoted text -> csv",
            "x the same rows with text that needs no quotes, at most 1.2",
            quoted[0],
            _checked(quoted[0] <= 1.2, quoted[1], mode),
        )
    for solver in results["solvers"]:
        if (limit := solver["target_seconds"]) is not None:
            name = solver["name"].replace("N", str(solver["size"]))
            add(name, f"seconds, at most {limit:g}", solver["seconds"], solver["seconds"] <= limit)
    return rows


def _number(value: Any, digits: int = 3) -> str:
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}g}"


def _table(head: list[str], rows: list[list[Any]]) -> list[str]:
    """A markdown table: numbers to 3 significant digits, None as an empty cell."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [cell if isinstance(cell, str) else _number(cell) for cell in row]
        lines.append("|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|")
    return lines


_COLUMNS = """\
Each kernel at the largest size it ran, one row each. The columns:

- **N**: the elements (values, or positions) per call.
- **ns/element**: the compiled core's time per element, one thread, the median \
of repeats; outputs preallocated where the API takes `out=`, input checks included.
- **x floor**: that time over the floor's, `np.add(a, b, out=c)` on int64 (or \
`np.equal` into bools) over arrays of the same length, timed in turns with it in \
the same run: about 1 is memory speed.
- **x bytes**: that time over the kernel's own bytes floor, a compiled pass that \
reads the words a call reads and writes the bytes it writes, with plain stores \
(fibnim_c/floors.h): about 1 is the arithmetic hidden under the memory traffic.
- **x pure**: how many times slower per element the pure-Python twin is, timed at \
the largest size it ran.
- **x numpy (wrong)**: how many times slower the numpy code one writes by hand is, \
and how many of its answers are wrong (the float formula).
- **threads**: how many times faster the call runs on every core than on one, \
by fibnim's own split of the call over threads (- where not measured: a --quick \
run's sizes stay on one thread).
- **call us**: microseconds for one call on a one-element array (the per-call \
cost; the *Per call* section compares it with numpy's own ufuncs).
- **peak MB**: the most memory one call allocates at once, at the largest size, as \
tracemalloc counts numpy's allocations: its temporaries, and its output where it \
takes no `out=`.
"""

_FILES = (
    "File to file: whole runs (Wythoff positions below 10**6), reading, classifying "
    "and writing, fibnim on all cores in a subprocess, timed by its own summary "
    "(start-up and imports left out); the floor does the same reading and writing "
    "with numpy or pyarrow alone in the same run, warmed the same way (its libraries "
    "imported and its path run once over a few rows before it is timed: "
    "fibnim.bench.pipelines says how); medians."
)
_BY_SIZE = "ns per element, compiled / floor (pure, numpy by hand where measured)."


_KERNEL_HEAD = (
    "kernel, N, ns/element, x floor, x bytes, x pure, x numpy (wrong), threads, call us, peak MB"
)


def _kernel_row(kernel: dict[str, Any]) -> list[Any]:
    f = headline(kernel)
    hand = f"{_number(f['x_hand'])} ({_number(f.get('hand_wrong'))})" if "x_hand" in f else ""
    threads = _number(f.get("threads_speedup")) or "-"
    size = f"{f['size']:.0e}"
    return [kernel["name"], size, f["ns"], f["x_floor"], f.get("x_bytes"), f.get("x_pure"),
            hand, threads, f["overhead_us"], f.get("peak_mb")]  # fmt: skip


def _section(title: str, text: str, head: list[str], rows: list[list[Any]]) -> list[str]:
    """A section of the report: a blank line, its title, what it shows, its table."""
    return ["", f"## {title}", "", *([text, ""] if text else []), *_table(head, rows)]


def markdown(results: dict[str, Any], plots: list[str] | None = None) -> str:
    m = results["machine"]
    path = m.get("implementation") or ("avx512ifma" if m.get("simd") else "scalar")
    of = f" of {', '.join(m['implementations'])}" if m.get("implementations") else ""
    features = (
        f" Processor features used: {', '.join(m['features'])}." if m.get("features") else ""
    )
    load = results.get("load") or {}
    lines = [
        "# fibnim benchmark report",
        "",
        f"{results['when']}, mode {results['mode']}, {_commit(results)}. "
        f"Machine: {m['cpu']}, {m['cores']} cores, "
        f"{m['platform']}; Python {m['python']}, numpy {m['numpy']}, Cython {m['cython']}; "
        f"fibnim {m['fibnim']} (backend {m['backend']}, implementation {path}{of}).{features}",
        "",
        _COLUMNS,
        *_table(_KERNEL_HEAD.split(", "), [_kernel_row(k) for k in results["kernels"]]),
        "",
        f"Load average (1, 5, 15 min) before the run: {load.get('before', 'not recorded')}; "
        f"after: {load.get('after', 'not recorded')}.",
    ]
    if sentence := busy(results):
        lines += ["", sentence]
    checked = targets(results)
    rows = [[r["kernel"], r["target"], r["measured"], _verdict(r["met"])] for r in checked]
    lines += _section("Targets", "", ["kernel", "target", "measured", "met"], rows)
    if _NOT_CHECKED in (r["met"] for r in checked):
        lines += ["", _NOT_CHECKED_NOTE]
    if results.get("implementations"):
        lines += implementation_table(results)
    if pipelines := results.get("pipelines"):
        rows = [
            [
                p["name"],
                f"{p['size']:.0e}",
                p["seconds"],
                p["floor_seconds"],
                p["seconds"] / p["floor_seconds"],
                p["peak_mb"],
                p["threads"],
            ]
            for p in pipelines
        ]
        head = ["pipeline", "rows", "fibnim s", "floor s", "x floor", "peak MB", "threads"]
        lines += _section("Files: fibnim classify", _FILES, head, rows)
        if (quoted := _quoted_over_plain(results)) is not None:
            lines += ["", f"A text column that needs quotes (a comma in every note) costs "
                      f"{_number(quoted[0])}x the same rows whose notes need none "
                      "(csv + quoted text over csv + text)."]  # fmt: skip
    if results.get("coding"):
        lines += coding_table(results["coding"])
    if results.get("calls"):
        lines += call_table(results["calls"])
    if solvers := results["solvers"]:
        rows = [[s["name"], s["size"], s["seconds"]] for s in solvers]
        lines += _section("Solvers", "", ["solver", "N", "seconds"], rows)
    sizes = sorted({row["size"] for k in results["kernels"] for row in k["rows"]})
    rows = [[k["name"], *(_by_size(k, size) for size in sizes)] for k in results["kernels"]]
    lines += _section("By size", _BY_SIZE, ["kernel", *(f"{s:.0e}" for s in sizes)], rows)
    if plots:
        lines += ["", "## Plots", ""] + [f"![{p}]({p})" for p in plots]
    return "\n".join(lines) + "\n"


def _commit(results: dict[str, Any]) -> str:
    """The commit a run measured, as the report's first line names it."""
    commit = results.get("commit")
    if not commit:
        return "commit not recorded"
    state = "" if commit["clean"] else ", with changes not committed"
    return f"commit {commit['id'][:12]}{state}"


def _by_size(kernel: dict[str, Any], size: int) -> str:
    """The By size cell of kernel at size: compiled / floor (pure, by hand)."""
    entry = next((row for row in kernel["rows"] if row["size"] == size), None)
    if entry is None:
        return ""
    extra = [
        f"{key} {_number(entry[key]['median'])}" for key in ("pure", "by_hand") if key in entry
    ]
    cell = f"{_number(entry['compiled']['median'])} / {_number(entry['floor']['median'])}"
    return cell + (f" ({', '.join(extra)})" if extra else "")


#: fibnim.coding's targets, ns per value: pack on both data sets; unpack per data set
CODING_PACK_NS = 7.5
CODING_UNPACK_NS = {"gaps": 3.0, "uniform": 6.0}
_CODING = (
    "fibnim.coding.pack and unpack of N values, one thread, ns per value (median of "
    "repeats) and bits per value, beside other codecs on the same values in the same "
    "run: zlib and lzma (preset 1) of the values' int64 bytes, and StreamVByte "
    "(libstreamvbyte, uint32 values: 64-bit ones as two halves). Targets: pack at most "
    f"{CODING_PACK_NS:g} ns; unpack at most "
    + ", ".join(f"{v:g} ns ({k})" for k, v in CODING_UNPACK_NS.items())
    + "; and against fibnim.encode / decode of the same values' codes (where a 64-bit "
    "code holds them), pack at most 1.5x encode and unpack at most 2x decode. encode and "
    "decode write into arrays made once (out=). unpack's own row, on which its ns "
    "targets are checked, makes a new array each call; its ratio to decode is checked "
    "on the row 'unpack into out=', like for like (a new array's first touch is no part "
    "of either kernel)."
)
_NO_STREAMVBYTE = (
    "StreamVByte is left out: libstreamvbyte was not installed for this run "
    '(pip install "fibnim[bench]").'
)


def coding_table(rows: list[dict[str, Any]]) -> list[str]:
    """The Fibonacci coding section: fibnim.coding beside zlib, lzma and StreamVByte."""
    table = []
    for row in rows:
        name, mine = row["name"], row["fibnim"]
        met = [
            mine["pack_ns"] <= CODING_PACK_NS,
            mine["unpack_ns"] <= CODING_UNPACK_NS.get(name, math.inf),
        ]
        if "encode_ns" in row:
            met += [
                mine["pack_ns"] <= 1.5 * row["encode_ns"],
                row.get("unpack_into_ns", mine["unpack_ns"]) <= 2 * row["decode_ns"],
            ]
        verdict = _MET[all(met)] if row["size"] >= TARGET_SIZE else "not checked (--quick)"
        table.append([name, f"{row['size']:.0e}", *_codec(mine), verdict])
        if "unpack_into_ns" in row:
            into = "fibnim.coding, unpack into out="
            table.append([name, "", into, None, row["unpack_into_ns"], None, ""])
        if "encode_ns" in row:
            codes = "fibnim.encode / decode of the codes"
            table.append([name, "", codes, row["encode_ns"], row["decode_ns"], 64, ""])
        table += [[name, "", *_codec(peer), ""] for peer in row["peers"]]
    head = ["data", "N", "codec", "pack ns", "unpack ns", "bits per value", "met"]
    lines = _section("Fibonacci coding", _CODING, head, table)
    if not all(any(p["name"].startswith("StreamVByte") for p in row["peers"]) for row in rows):
        lines += ["", _NO_STREAMVBYTE]
    return lines


def _codec(figures: dict[str, Any]) -> list[Any]:
    return [figures["name"], figures["pack_ns"], figures["unpack_ns"], figures["bits_per_value"]]


_CALLS_HEAD = (
    "function, ints us, peer, plain x, out= x, where= x, block us, bound us, Series x, met"
)


def call_table(calls: dict[str, Any]) -> list[str]:
    """The per-call section: each form's cost over its peer's, and the targets."""
    x_target, int_target, block = calls["target_x_peer"], calls["target_int_us"], calls["block"]
    text = (
        "Each elementwise function called once (median of 7 runs of 2,000 calls), as a "
        "search, a game loop or a loop over preallocated blocks calls it: on Python ints "
        f"(us; target at most {_number(int_target)} us), and on one-element int64 arrays "
        "plain, with out=, and with out= and where=, each as x its peer, numpy's own ufunc "
        "of as many outputs (np.equal; np.divmod for two), timed in the same form right "
        f"before it (target at most {_number(x_target)}x). A block: {block} elements with "
        "out=, in us, against its bound: the peer's time on the block plus "
        f"{block} times the function's own time per element in cache. Series: a pandas "
        "Series of 10**6 over its ndarray (target at most 1.2)."
    )
    rows = []
    for call in calls["calls"]:
        peer = call["peer_us"]
        ratios = [call[form] / peer[form] for form in _FORMS[:3]]
        bound = peer["block_us"] + block * call["element_ns"] / 1e3
        series = call.get("series_x")
        met = (
            call["ints_us"] <= int_target
            and max(ratios) <= x_target
            and call["block_us"] <= bound
            and (series is None or series <= 1.2)
        )
        rows.append([call["name"], call["ints_us"], call["peer"], *ratios, call["block_us"],
                     bound, series, _MET[met]])  # fmt: skip
    row_us, row_target = calls["classify_row_us"], calls["target_classify_row_us"]
    return [
        *_section("Per call", text, _CALLS_HEAD.split(", "), rows),
        "",
        f"classify of one row (wythoff): {_number(row_us)} us "
        f"(target at most {_number(row_target)} us: {_MET[row_us <= row_target]}).",
    ]


def path_target(kernel: str, path: str, results: dict[str, Any]) -> float | None:
    """The x floor kernel must reach on path: its `path_target`, twice
    that on the scalar path."""
    case: dict[str, Any] = next((k for k in results["kernels"] if k["name"] == kernel), {})
    target = case.get("path_target")
    return None if target is None else target * (2 if path == "scalar" else 1)


#: fibnim's time over its numba peer's that the kernels must reach: 1.5x as fast
NUMBA_TARGET = 1 / 1.5


def implementation_table(results: dict[str, Any]) -> list[str]:
    """The table kernel x implementation of a run with --implementation all."""
    rows = results["implementations"]
    paths = [p for p in results["machine"].get("implementations", []) if p in rows[0]["paths"]]
    text = (
        "Each kernel at its largest size on every implementation this processor runs, "
        "on the same inputs: ns per element (x np.add floor, median of repeats timed in "
        "turns with the floor; x its bytes floor, on one thread each). A target (at "
        "N = 1e+07: the vector implementations at most the figure, the scalar one twice "
        "it) is marked met (yes) or **not**; "
        "x numpy is how many times faster than numpy by hand; ÷ numba (with --peers) is "
        "fibnim's time over an exact numba kernel's, compiled for the same instruction "
        f"set, marked **not** above {_number(NUMBA_TARGET)} (numba 1.5 times as slow); "
        "÷ numba prange is the same on every core, fibnim's own split against numba's "
        "`parallel=True` prange over parts of the same kernel."
    )
    compiled_for = {  # what each implementation's numba peers were compiled for
        path: figures["numba_target"]
        for row in rows
        for path, figures in row["paths"].items()
        if path in paths and "numba_target" in figures
    }
    if compiled_for:
        named = "; ".join(f"{path}: `{target}`" for path, target in compiled_for.items())
        text += f"\n\nnumba compiled for (NUMBA_CPU_NAME and NUMBA_CPU_FEATURES) {named}."
    table = [
        [row["name"], f"{row['size']:.0e}", *(_path_cell(row, path, results) for path in paths),
         path_target(row["name"], "vector", results)]
        for row in rows
    ]  # fmt: skip
    return _section("By implementation", text, ["kernel", "N", *paths, "target (vector)"], table)


def _path_cell(row: dict[str, Any], path: str, results: dict[str, Any]) -> str:
    """One kernel on one implementation: ns (x floor), met, x numpy, ÷ numba."""
    figures = row["paths"].get(path)
    if figures is None:
        return ""
    cell = f"{_number(figures['ns'])} ({_number(figures['x_floor'])}x"
    cell += f", {_number(figures['x_bytes'])}x bytes)" if "x_bytes" in figures else ")"
    target = path_target(row["name"], path, results)
    if target is not None and row["size"] >= TARGET_SIZE:
        cell += " yes" if figures["x_floor"] <= target else " **not**"
    if "by_hand" in row:
        cell += f", x numpy {_number(row['by_hand'] / figures['ns'])}"
    if "x_numba" in figures:
        met = figures["x_numba"] <= NUMBA_TARGET
        cell += f", ÷ numba {_number(figures['x_numba'])}{'' if met else ' **not**'}"
    if "x_numba_every_core" in figures:
        cell += f", ÷ numba prange {_number(figures['x_numba_every_core'])}"
    return cell


# The report's figures: one per topic, with the kernels of that topic (by name)
TOPICS = [
    ("zeckendorf", "Zeckendorf representations", ("zeckendorf.",)),
    ("wythoff", "Wythoff's Nim", ("wythoff.",)),
    ("nim", "Fibonacci Nim and power-of-two Nim", ("fibonacci_nim.", "power_nim.")),
    ("classify", "classify: every game's fused kernel, and files", ("classify",)),
]
FONT = {"title": 12, "label": 10, "ticks": 9, "legend": 10}
DPI = 100  # 100 dpi at figure sizes in inches: legible at 100 % zoom


def _topic(name: str) -> str:
    """The topic of a kernel: classify's cases (and the kernels they are set
    against, "(classify's rows)") apart from the rest of their game."""
    if name.startswith("classify") or "classify's rows" in name:
        return "classify"
    return next(t for t, _, prefixes in TOPICS if name.startswith(prefixes))


def _panels(plt: Any, count: int, columns: int = 3) -> tuple[Any, list[Any]]:
    rows = max(1, math.ceil(count / columns))
    figure, axes = plt.subplots(
        rows, columns, figsize=(4.6 * columns, 3.6 * rows + 1.2), squeeze=False
    )
    panels = list(axes.flat)
    for axis in panels[count:]:
        axis.set_visible(False)
    return figure, panels[:count]


def _legend(figure: Any, panels: list[Any]) -> None:
    """One legend for the figure, of every line and mark any panel drew."""
    seen: dict[str, Any] = {}
    for axis in panels:
        for handle, label in zip(*axis.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, handle)
    figure.legend(
        list(seen.values()),
        list(seen),
        loc="upper center",
        bbox_to_anchor=(0.5, 1.0),
        ncols=min(4, len(seen)),
        fontsize=FONT["legend"],
        frameon=False,
    )


#: the lines of a kernel's panel: its figures, label, colour and style
_LINES = [
    ("compiled", "compiled ({})", "C0", "o-"),
    ("pure", "pure twin", "C1", "s-"),
    ("by_hand", "numpy by hand", "C2", "^-"),
    ("floor", "floor: np.add / np.equal", "0.45", ".--"),
    ("all_threads", "compiled, all cores", "C3", "D"),
]


def _time_panel(axis: Any, kernel: dict[str, Any], results: dict[str, Any]) -> None:
    """ns per element against N: the compiled core on its implementation, the
    pure twin over the sizes it ran, numpy by hand, the floor, all cores; at the
    largest size, each other implementation and the numba peer."""
    used = results["machine"].get("implementation") or "compiled"
    for key, label, color, style in _LINES:
        points = [(row["size"], row[key]["median"]) for row in kernel["rows"] if key in row]
        if points:
            x, y = zip(*points, strict=True)
            axis.loglog(x, y, style, label=label.format(used), color=color, markersize=5)
    implementations = results.get("implementations", [])
    row = next((r for r in implementations if r["name"] == kernel["name"]), None)
    if row is not None:
        size, paths = [row["size"]], row["paths"]
        for offset, (path, figures) in enumerate(paths.items()):
            if path != used:
                label = f"compiled ({path})"
                axis.loglog(
                    size, [figures["ns"]], "x", color=f"C{4 + offset}", markersize=8, label=label
                )
        if (numba := paths.get(used, {}).get("numba_ns")) is not None:
            label = f"numba peer (for {used})"
            axis.loglog(size, [numba], "*", color="C9", markersize=11, label=label)
    axis.set_title(kernel["name"], fontsize=FONT["title"])
    axis.set_xlabel("N (elements)", fontsize=FONT["label"])
    axis.set_ylabel("ns per element", fontsize=FONT["label"])
    axis.tick_params(labelsize=FONT["ticks"])
    axis.grid(True, which="major", color="0.9")


def _quoted_over_plain(results: dict[str, Any]) -> tuple[float, int] | None:
    """The quoted text's run over the plain text's (same rows, same lengths), and the rows."""
    runs = {p["name"]: p for p in results.get("pipelines", [])}
    quoted, plain = (
        runs.get("csv + quoted text -> csv (pyarrow)"),
        runs.get("csv + text -> csv (pyarrow)"),
    )
    if quoted is None or plain is None:
        return None
    return quoted["seconds"] / plain["seconds"], quoted["size"]


def _marks(axis: Any, targets: list[float | None], low: float, high: float, label: str) -> None:
    """A short vertical line at each bar's target (none where it is None)."""
    for i, target in enumerate(targets):
        if target is not None:
            axis.plot([target] * 2, [i + low, i + high], color="black", linewidth=2, label=label)


def _pipelines_panel(axis: Any, pipelines: list[dict[str, Any]]) -> None:
    names = [p["name"] for p in pipelines]
    ratios = [p["seconds"] / p["floor_seconds"] for p in pipelines]
    axis.barh(range(len(names)), ratios, color="C0", label="fibnim classify, x its floor")
    _marks(axis, [p["target_x_floor"] for p in pipelines], -0.4, 0.4, "target")
    axis.set_yticks(range(len(names)), names, fontsize=FONT["ticks"])
    axis.invert_yaxis()
    axis.set_title("fibnim classify, file to file", fontsize=FONT["title"])
    axis.set_xlabel("time over reading and writing alone", fontsize=FONT["label"])
    axis.tick_params(labelsize=FONT["ticks"])


def _plot_topics(results: dict[str, Any], directory: Path, plt: Any) -> list[str]:
    written = []
    for topic, title, _ in TOPICS:
        kernels = [k for k in results["kernels"] if _topic(k["name"]) == topic]
        pipelines = results.get("pipelines", []) if topic == "classify" else []
        if not kernels and not pipelines:
            continue
        figure, panels = _panels(plt, len(kernels) + bool(pipelines))
        for axis, kernel in zip(panels, kernels, strict=False):
            _time_panel(axis, kernel, results)
        if pipelines:
            _pipelines_panel(panels[-1], pipelines)
        _legend(figure, panels)
        figure.suptitle(
            f"{title}: time per element ({results['machine']['cpu']}, {results['mode']} run)",
            fontsize=FONT["title"] + 2,
            y=1.04,
        )
        written += _saved(plt, figure, directory, f"time_{topic}.png", rect=(0, 0, 1, 0.97))
    return written


def _bars(
    plt: Any, labels: list[str], series: dict[str, list[float]], xlabel: str, title: str
) -> tuple[Any, Any]:
    """A figure of horizontal bars, a group per label and a bar per series."""
    figure, axis = plt.subplots(figsize=(11, 0.45 * len(labels) + 1.8))
    height = 0.8 / len(series)
    for offset, (name, values) in enumerate(series.items()):
        places = [i + offset * height for i in range(len(labels))]
        axis.barh(places, values, height, label=name, color=f"C{offset}")
    axis.set_yticks([i + 0.4 - height / 2 for i in range(len(labels))], labels)
    axis.invert_yaxis()
    axis.set_xlabel(xlabel, fontsize=FONT["label"])
    axis.tick_params(labelsize=FONT["ticks"])
    axis.set_title(f"{title}", fontsize=FONT["title"])
    return figure, axis


def _saved(plt: Any, figure: Any, directory: Path, name: str, **layout: Any) -> list[str]:
    figure.tight_layout(**layout)
    figure.savefig(directory / name, dpi=DPI, bbox_inches="tight")
    plt.close(figure)
    return [name]


def _plot_speedups(results: dict[str, Any], directory: Path, plt: Any) -> list[str]:
    """speedups.png: how many times faster than the pure twin and numpy by hand."""
    figures = [headline(k) for k in results["kernels"]]
    series = {
        f"than {who}": [f.get(key) or 0 for f in figures]
        for key, who in (("x_pure", "the pure twin"), ("x_hand", "numpy by hand"))
    }
    figure, axis = _bars(
        plt,
        [k["name"] for k in results["kernels"]],
        series,
        "times faster (log scale), at the largest size",
        "fibnim's compiled core: how many times faster",
    )
    axis.set_xscale("log")
    axis.legend(fontsize=FONT["legend"])
    return _saved(plt, figure, directory, "speedups.png")


def _plot_calls(results: dict[str, Any], directory: Path, plt: Any) -> list[str]:
    """calls.png: each elementwise function's cost per call over numpy's ufunc's."""
    calls = results.get("calls")
    if not calls:
        return []
    rows = calls["calls"]
    forms = {"plain": "plain_us", "out=": "out_us", "out= and where=": "where_us"}
    figure, axis = _bars(
        plt,
        [f"{c['name']} (vs {c['peer']})" for c in rows],
        {label: [c[key] / c["peer_us"][key] for c in rows] for label, key in forms.items()},
        "time of one call on a one-element array, over numpy's ufunc's",
        f"Per call ({results['machine']['cpu']})",
    )
    target = calls["target_x_peer"]
    axis.axvline(target, color="black", linewidth=1.5, label=f"target: at most {_number(target)}x")
    axis.axvline(1, color="0.5", linewidth=1, linestyle="--", label="numpy's own ufunc")
    axis.legend(fontsize=FONT["legend"], loc="upper center", bbox_to_anchor=(0.5, -0.06), ncols=3)
    return _saved(plt, figure, directory, "calls.png")


def plot_paths(results: dict[str, Any], directory: Path, plt: Any) -> list[str]:
    """implementations.png: each kernel's x floor on every implementation."""
    rows = results.get("implementations")
    if not rows:
        return []
    paths = [p for p in results["machine"].get("implementations", []) if p in rows[0]["paths"]]
    figure, axis = _bars(
        plt,
        [r["name"] for r in rows],
        {path: [row["paths"].get(path, {}).get("x_floor", 0) for row in rows] for path in paths},
        "time over np.add's (log scale)",
        f"fibnim by implementation ({results['machine']['cpu']})",
    )
    targets = [path_target(row["name"], "vector", results) for row in rows]
    _marks(axis, targets, -0.1, 0.8, "target of the vector implementations")
    axis.set_xscale("log")
    handles, labels = axis.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    axis.legend(unique.values(), unique.keys(), fontsize=FONT["legend"])
    return _saved(plt, figure, directory, "implementations.png")


def plot(results: dict[str, Any], directory: Path) -> list[str]:
    """The report's figures (time_<topic>.png, speedups.png, calls.png,
    implementations.png); [] without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    return [
        *_plot_topics(results, directory, plt),
        *_plot_speedups(results, directory, plt),
        *_plot_calls(results, directory, plt),
        *plot_paths(results, directory, plt),
    ]


def write(results: dict[str, Any], directory: Path) -> list[Path]:
    """results.json, report.md and the plots (if matplotlib is there) in directory."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    plots = plot(results, directory)
    (directory / "report.md").write_text(markdown(results, plots))
    return [directory / name for name in ("results.json", "report.md", *plots)]


ALPHA = 0.01  # the significance a compare asks of a change


def compare(
    old: dict[str, Any], new: dict[str, Any], threshold: float, alpha: float = ALPHA
) -> tuple[str, int]:
    """Each kernel's time over its floor, run against run, at the sizes both
    have: the text, and how many kernels got slower.

    A kernel is judged at the largest size both runs have (where its targets
    are, and timings vary least); smaller sizes are listed for information. It
    got slower when its median rose by more than `threshold` (0.2: 20%) and
    by more than the spread either run measured of itself (its repeats' max
    over min, less 1: asv's factor is the same idea), and the repeats of the
    two runs differ beyond chance: a one-sided Mann-Whitney U test (exact) at
    level `alpha`, as pyperf and asv decide, over ratios to a floor timed in
    turns with the kernel, which move little when the machine is busier or
    slower (the docs' speed page says how much). Five repeats a side are the
    fewest that can reach p < 0.01; runs have seven. Where either run was made
    on a busy machine (`busy`), such a change is called inconclusive, not a
    regression: a busy core moves a kernel and its floor apart."""
    before = {k["name"]: {r["size"]: r for r in k["rows"]} for k in old["kernels"]}
    loaded = busy(old) is not None or busy(new) is not None
    rows, regressions = [], 0
    for kernel in new["kernels"]:
        shared = [r for r in kernel["rows"] if r["size"] in before.get(kernel["name"], {})]
        for row in shared:
            was, now = _ratios(before[kernel["name"]][row["size"]]), _ratios(row)
            change = statistics.median(now) / statistics.median(was) - 1
            slower = change > 0
            p = None
            if len(was) > 1 and len(now) > 1:
                p = _u_tail(now, was) if slower else _u_tail(was, now)
            verdict = ""
            if row is not shared[-1]:
                verdict = "(not judged at this size)"
            elif p is None:
                verdict = "not tested: one sample"
            elif abs(change) > threshold and p < alpha:
                spread = max(_spread(was), _spread(now))
                if abs(change) <= spread:
                    verdict = f"within the runs' own spread ({spread:.0%})"
                elif loaded and slower:
                    verdict = "inconclusive: the machine was busy"
                else:
                    verdict = "REGRESSION" if slower else "faster"
                    regressions += slower
            medians = statistics.median(was), statistics.median(now)
            size, p_text = f"{row['size']:.0e}", _number(p, 2)
            rows.append([kernel["name"], size, *medians, f"{change:+.1%}", p_text, verdict])
    head = ["kernel", "N", "before x floor", "now x floor", "change", "p", ""]
    return "\n".join(_table(head, rows)), regressions


def comparable(results: Any) -> bool:
    """Whether `results` (a parsed results.json) holds what `compare` reads."""
    try:
        for kernel in results["kernels"]:
            str(kernel["name"])
            for row in kernel["rows"]:
                float(row["size"])
                if not all(ratio > 0 for ratio in _ratios(row)):
                    return False
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return False
    return True


def _ratios(row: dict[str, Any]) -> list[float]:
    """A row's repeats of time over floor (one, from the medians, in older runs)."""
    samples: list[float] | None = row.get("x_floor_samples")
    return samples or [row["compiled"]["median"] / row["floor"]["median"]]


def _spread(ratios: list[float]) -> float:
    """How far a run's repeats lie apart: max over min, less 1."""
    return max(ratios) / min(ratios) - 1


def _u_tail(larger: list[float], smaller: list[float]) -> float:
    """The exact one-sided p of the Mann-Whitney U test that the first sample's
    values lie above the second's (scipy's)."""
    from scipy.stats import mannwhitneyu

    return float(mannwhitneyu(larger, smaller, alternative="greater", method="exact").pvalue)
