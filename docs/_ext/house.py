"""The picture of fibnim's modules, drawn from their imports at build time.

Each module of src/fibnim is a box (a folder of modules, bench/, _pure/ and
_exact/, one box), its lines written under its name; an arrow runs from a
module to each module it imports, at the top of the file or inside a function.
A module stands one floor above the highest module it imports, so every
arrow points down: an import that closed a circle has no floor to stand on,
and the docs build fails, naming it.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from matplotlib.patches import Patch

SOURCE = Path(__file__).resolve().parents[2] / "src" / "fibnim"
FOLDERS = ("bench", "_pure", "_exact")  # drawn as one box each
# the compiled core is loaded by name (importlib), so its arrow is said here
LOADED = {"_backend": "_core"}
GROUPS = {  # colour by role
    "the public functions": (
        {"__init__", "zeckendorf", "wythoff", "fibonacci_nim", "power_nim", "coding", "solvers"}
        | {"_classify", "plot", "_typing"},
        "#ffe8a3",
    ),
    "the seam for every kind of data": ({"_tables"}, "#f4a261"),
    "checks, chunks and kernels": (
        {"_checks", "_apply", "_ufunc", "_declarations", "_backend", "_core", "_pure", "_exact"},
        "#8ecae6",
    ),
    "files and commands": (
        {"_files", "_source", "_npy", "_delimited", "_parquet", "_arrow", "_output", "_run"}
        | {"_dataset", "_pack", "cli", "__main__", "bench"},
        "#b7e4c7",
    ),
}


def module_of(path: Path) -> str:
    parts = path.relative_to(SOURCE).with_suffix("").parts
    return parts[0] if parts[0] in FOLDERS else parts[-1]


def read() -> tuple[dict[str, set[str]], dict[str, int]]:
    """Each module's fibnim modules, by name; and each module's lines."""
    found: dict[str, set[str]] = {}
    lines: dict[str, int] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        name = module_of(path)
        targets = found.setdefault(name, set())
        text = path.read_text()
        lines[name] = lines.get(name, 0) + text.count("\n")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                parts = node.module.split(".")
                if parts[0] != "fibnim":
                    continue
                if len(parts) > 1:
                    targets.add(parts[1])
                else:  # from fibnim import _tables, solvers
                    targets.update(alias.name for alias in node.names)
        if name in LOADED:
            targets.add(LOADED[name])
            found.setdefault(LOADED[name], set())
    for name, targets in found.items():
        targets &= set(found)
        targets.discard(name)
    return found, lines


def floors(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each module's floor: 0 for one that imports no other, else one above the
    highest it imports. A circle raises, naming the modules on it."""
    floor: dict[str, int] = {}
    visiting: list[str] = []

    def visit(name: str) -> int:
        if name in floor:
            return floor[name]
        if name in visiting:
            circle = [*visiting[visiting.index(name) :], name]
            raise RuntimeError(f"an import circle: {' -> '.join(circle)}")
        visiting.append(name)
        floor[name] = 1 + max((visit(t) for t in graph[name]), default=-1)
        visiting.pop()
        return floor[name]

    for name in graph:
        visit(name)
    return floor


def colour(name: str) -> str:
    return next((c for members, c in GROUPS.values() if name in members), "#e9ecef")


def draw(ax: Any) -> None:
    """The house on the axes ax: a row of boxes per floor, the ground at the bottom."""
    graph, lines = read()
    floor = floors(graph)
    rows: dict[int, list[str]] = {}
    for name in sorted(graph, key=lambda n: (floor[n], n)):
        rows.setdefault(floor[name], []).append(name)
    where = {}
    for level, names in rows.items():
        for i, name in enumerate(names):
            where[name] = ((i + 0.5) / len(names), level)
    for name, targets in graph.items():
        for target in targets:
            (x0, y0), (x1, y1) = where[name], where[target]
            ax.annotate(
                "",
                xy=(x1, y1 + 0.18),
                xytext=(x0, y0 - 0.18),
                arrowprops={"arrowstyle": "->", "color": "0.6", "lw": 0.6, "alpha": 0.6},
            )
    for name, (x, y) in where.items():
        label = name + ("/" if name in FOLDERS else "")
        size = f"\n{lines[name]:,}" if name in lines else "\n(fibnim_c)"
        ax.text(
            x,
            y,
            label + size,
            ha="center",
            va="center",
            fontsize=7,
            bbox={"boxstyle": "round", "facecolor": colour(name), "edgecolor": "0.3"},
        )
    ax.legend(
        handles=[
            Patch(facecolor=c, edgecolor="0.3", label=role) for role, (_, c) in GROUPS.items()
        ],
        loc="upper left",
        fontsize=8,
        frameon=False,
    )
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.6, max(rows) + 0.6)
    ax.set_yticks(range(max(rows) + 1))
    ax.set_ylabel("floor (imports only the floors below)")
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
