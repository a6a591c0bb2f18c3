"""Timing helpers shared by fibnim's benchmarks: medians of repeats, machine facts, JSON."""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"


def time_per_element(function: Callable[[], Any], size: int, repeats: int) -> dict[str, float]:
    """ns per element of function(): median, min and max over repeats, after one warm-up."""
    function()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) / size * 1e9)
    return {
        "ns_per_element": statistics.median(samples),
        "min": min(samples),
        "max": max(samples),
        "repeats": repeats,
    }


def machine() -> dict[str, Any]:
    import fibnim

    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "fibnim": fibnim.__version__,
        "backend": fibnim.backend,
        "platform": platform.platform(),
    }


def write(name: str, rows: list[dict[str, Any]], notes: dict[str, Any]) -> Path:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(
        json.dumps({"machine": machine(), "notes": notes, "rows": rows}, indent=2) + "\n"
    )
    return path


def table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    """A Markdown table of rows."""

    def cell(value: Any) -> str:
        return f"{value:.3g}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row.get(c, "")) for c in columns) + " |" for row in rows]
    return "\n".join(lines)
