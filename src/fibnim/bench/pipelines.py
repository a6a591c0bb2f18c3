"""Whole `fibnim classify` runs over files, each next to its floor: the same
reading and writing done by numpy or pyarrow alone, in the same run.

fibnim runs as users run it, in a subprocess on all cores; its time is the one
it reports itself (start-up and imports left out), its peak resident memory
the one the kernel counted for it. Each floor runs in a subprocess of its own
too (`main` here prints its seconds), timed the same way: its imports done,
its first use of them timed.
- npy: a numpy pass that reads the input's memory map and writes an output
  memory map of shape (N, 3) chunk by chunk on as many threads, then fsync (as
  fibnim's output is synced before it takes its name);
- csv and parquet: pyarrow reads the file, makes a table of the output's shape
  (the columns, an outcome string, two int64 columns) and writes it;
- csv without pyarrow: np.loadtxt and np.savetxt of an array of that shape;
- csv with a text column (an id, the piles, a note; `--columns x,y`): pyarrow
  reads it and writes the note, the piles and the answers' columns, quoting
  the text as its writer does (every text field). Twice: a note that needs
  quotes (a comma) and one of the same length that does not, so that the
  quoted path is seen beside the plain one in the same run.
Each floor is warmed as fibnim is before it times its work: its libraries
imported and its whole path run once over a few rows (pyarrow's first read
costs a fresh process most of a second, which fibnim's own figure leaves out).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fibnim import _backend

CHUNK = 1 << 18


@dataclass(frozen=True)
class Pipeline:
    """One command: its name, the suffix of its input and output, its rows in a
    quick run and in the others, its floor, its target (x floor, at most),
    whether it needs pyarrow, its environment and, for a CSV with a text
    column, the text of its notes (a row's number after it)."""

    name: str
    suffix: str
    sizes: tuple[int, int]
    floor: Callable[[Path, Path, int], None]
    target: float
    needs_arrow: bool = True
    environment: dict[str, str] = field(default_factory=dict)
    note: str | None = None


def _positions(n: int, seed: int = 2026) -> Any:
    """Random Wythoff positions below 10**6, made a chunk at a time."""
    rng = np.random.default_rng(seed)
    for start in range(0, n, 1 << 22):
        yield rng.integers(0, 10**6, size=(min(1 << 22, n - start), 2), dtype=np.int64)


def make_input(path: Path, n: int, note: str | None = None) -> None:
    suffix = path.suffix
    if note is not None:
        _text_input(path, n, note)
        return
    if suffix == ".npy":
        rows = np.lib.format.open_memmap(path, mode="w+", dtype=np.int64, shape=(n, 2))
        start = 0
        for block in _positions(n):
            rows[start : start + len(block)] = block
            start += len(block)
        rows.flush()
        del rows
        return
    if suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pa.schema([("x", pa.int64()), ("y", pa.int64())])
        with pq.ParquetWriter(path, schema) as writer:
            for block in _positions(n):
                writer.write_table(pa.table({"x": block[:, 0], "y": block[:, 1]}))
        return
    with open(path, "wb") as f:
        f.write(b"x,y\n")
        for block in _positions(n):
            np.savetxt(f, block, fmt="%d", delimiter=",")


def _text_input(path: Path, n: int, note: str) -> None:
    """id,x,y,note: `note` and the row's number as the note, written by pyarrow
    (which quotes every text field: fibnim's own reading must unquote them all)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    names = ["id", "x", "y", "note"]
    schema = pa.schema([(name, pa.string() if name == "note" else pa.int64()) for name in names])
    with pacsv.CSVWriter(path, schema) as writer:
        start = 0
        for block in _positions(n):
            ids = pa.array(np.arange(start, start + len(block)))
            text = pc.binary_join_element_wise(note, pc.cast(ids, pa.string()), "")
            writer.write_table(pa.table([ids, block[:, 0], block[:, 1], text], names=names))
            start += len(block)


def _npy_floor(source: Path, target: Path, threads: int) -> None:
    rows = np.load(source, mmap_mode="r")
    out = np.lib.format.open_memmap(target, mode="w+", dtype=np.int64, shape=(len(rows), 3))

    def copy(start: int) -> None:
        part = out[start : start + CHUNK]
        part[:, 1:] = rows[start : start + CHUNK]
        part[:, 0] = 0

    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(copy, range(0, len(rows), CHUNK)))
    out.flush()
    descriptor = os.open(target, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _arrow_table(table: Any, keep: tuple[str, ...] = ("x", "y")) -> Any:
    """A table of the output's shape from the input's: its columns `keep`, then
    outcome, move_1, move_2."""
    import pyarrow as pa

    m = table.num_rows
    offsets, letters = np.arange(m + 1, dtype=np.int32), np.full(m, ord("N"), dtype=np.uint8)
    outcome = pa.StringArray.from_buffers(m, pa.py_buffer(offsets), pa.py_buffer(letters))
    answers = {"outcome": outcome, "move_1": table["x"], "move_2": table["y"]}
    return pa.table({**{name: table[name] for name in keep}, **answers})


def _csv_floor(source: Path, target: Path, threads: int) -> None:
    import pyarrow.csv as pacsv

    pacsv.write_csv(_arrow_table(pacsv.read_csv(source)), target)


def _text_floor(source: Path, target: Path, threads: int) -> None:
    import pyarrow.csv as pacsv

    pacsv.write_csv(_arrow_table(pacsv.read_csv(source), ("id", "x", "y", "note")), target)


def _parquet_floor(source: Path, target: Path, threads: int) -> None:
    import pyarrow.parquet as pq

    pq.write_table(_arrow_table(pq.read_table(source)), target)


def _numpy_text_floor(source: Path, target: Path, threads: int) -> None:
    rows = np.loadtxt(source, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    np.savetxt(target, np.column_stack([rows, rows[:, :1] % 2, rows]), fmt="%d", delimiter=",")


_TEXT = (10**5, 4 * 10**6)
PIPELINES = [
    Pipeline("npy -> npy", ".npy", (10**6, 10**8), _npy_floor, 1.15, needs_arrow=False),
    Pipeline("csv -> csv (pyarrow)", ".csv", (10**5, 10**7), _csv_floor, 1.5),
    Pipeline("parquet -> parquet", ".parquet", (10**5, 10**7), _parquet_floor, 1.5),
    # the same rows, notes of the same length: with a comma, or not
    *(
        Pipeline(f"csv + {kind}text -> csv (pyarrow)", ".csv", _TEXT, _text_floor, 1.5, note=note)
        for kind, note in (("", "note; row "), ("quoted ", "note, row "))
    ),
    Pipeline(
        "csv -> csv (no pyarrow)", ".csv", (10**5, 10**6), _numpy_text_floor, 1.0,
        needs_arrow=False, environment={"FIBNIM_NO_ARROW": "1"},
    ),
]  # fmt: skip


# this module's main() in a process of its own
_SELF = [
    sys.executable,
    "-c",
    "import sys; from fibnim.bench.pipelines import main; main(sys.argv[1:])",
]


def _command(source: Path, target: Path, columns: bool = False) -> list[str]:
    command = [sys.executable, "-m", "fibnim", "classify", str(source), "-o", str(target)]
    return [*command, "--game", "wythoff", "--force", "--json", *(["--columns", "x,y"] * columns)]


def _output(command: list[str], environment: dict[str, str]) -> str:
    """What command prints, run with environment added to this one's."""
    done = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, **environment}, check=False
    )
    if done.returncode:
        raise RuntimeError(f"fibnim classify failed: {done.stderr.strip()}")
    return done.stdout


def _fibnim(
    source: Path, target: Path, environment: dict[str, str], columns: bool = False
) -> tuple[float, float | None]:
    """fibnim classify on all cores: the seconds it reports for its work, and
    its peak resident memory as it read it itself (VmHWM, Linux; None
    elsewhere; the kernel's count for a child process would not do: it starts
    from the size of the process that forked it)."""
    summary = json.loads(_output(_command(source, target, columns), environment))
    return float(summary["seconds"]), summary["peak_mb"]


def measure(
    mode: str,
    repeats: int,
    progress: Callable[[str], None],
    environment: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Each pipeline's figures (see fibnim.bench.report); fibnim's runs with
    `environment` added to theirs."""
    try:
        import pyarrow  # noqa: F401

        arrow = True
    except ImportError:
        arrow = False
    threads = _backend.cores()
    chosen = environment or {}
    results = []
    with tempfile.TemporaryDirectory(prefix="fibnim-bench-") as scratch:
        directory = Path(scratch)
        for pipeline in PIPELINES:
            if pipeline.needs_arrow and not arrow:
                continue
            progress(pipeline.name)
            n = pipeline.sizes[mode != "quick"]
            # three files of up to 24 bytes a row, with room to spare
            free = shutil.disk_usage(directory).free
            while n > 10**5 and 100 * n > free:
                n //= 10
            source = directory / f"in{pipeline.suffix}"
            target = directory / f"out{pipeline.suffix}"
            floor_target = directory / f"floor{pipeline.suffix}"
            make_input(source, n, pipeline.note)
            environment = {**pipeline.environment, **chosen}
            floors, runs = [], []
            for _ in range(repeats):
                floors.append(_floor(pipeline, source, _fresh(floor_target), threads))
                runs.append(
                    _fibnim(source, _fresh(target), environment, pipeline.note is not None)
                )
            for path in (source, target, floor_target):
                path.unlink(missing_ok=True)
            results.append({
                "name": pipeline.name,
                "size": n,
                "seconds": statistics.median(seconds for seconds, _ in runs),
                "floor_seconds": statistics.median(floors),
                "target_x_floor": pipeline.target,
                "peak_mb": max((peak for _, peak in runs if peak is not None), default=None),
                "threads": threads,
            })  # fmt: skip
    return results


def _floor(pipeline: Pipeline, source: Path, target: Path, threads: int) -> float:
    done = subprocess.run(
        [*_SELF, pipeline.name, str(source), str(target), str(threads)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"the floor of {pipeline.name} failed: {done.stderr.strip()}")
    return float(done.stdout)


def _fresh(output: Path) -> Path:
    """output removed and every dirty page written out, so that each run starts
    the same way and none is timed writing another's pages (the page cache that
    a removal frees and that a write takes is most of the time here)."""
    output.unlink(missing_ok=True)
    if hasattr(os, "sync"):
        os.sync()
    return output


def main(arguments: list[str]) -> None:
    """Run one floor: NAME IN OUT THREADS, and print its seconds."""
    name, source, target, threads = arguments
    pipeline = next(p for p in PIPELINES if p.name == name)
    with tempfile.TemporaryDirectory(prefix="fibnim-floor-") as scratch:
        small = Path(scratch) / f"in{pipeline.suffix}"
        make_input(small, 100, pipeline.note)
        pipeline.floor(small, Path(scratch) / f"out{pipeline.suffix}", int(threads))
    start = time.perf_counter()
    pipeline.floor(Path(source), Path(target), int(threads))
    print(time.perf_counter() - start)
