"""Values and helpers the tests share (tests/ is on pytest's pythonpath)."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal, getcontext
from typing import Any

import pytest

F = [0, 1]  # F_0 .. F_599, built here rather than taken from fibnim
while len(F) < 600:
    F.append(F[-1] + F[-2])
UINT64_MAX = 2**64 - 1
#: pytest --exhaustive (conftest.py): the sweeps and the full numbers of examples
EXHAUSTIVE = False


def sweep(*values: Any) -> Any:
    """One case of a parametrized sweep that only the exhaustive tier runs."""
    return pytest.param(*values, marks=pytest.mark.exhaustive)


def tier(full: Any, fast: Any) -> Any:
    """`full` with pytest --exhaustive (CI), `fast` in the fast tier: counts of
    examples, or the cases of a sweep."""
    return full if EXHAUSTIVE else fast


def decimal_phi(digits: int) -> Decimal:
    """phi to `digits` significant digits (the context's precision from now on)."""
    getcontext().prec = digits
    return (1 + Decimal(5).sqrt()) / 2


def compiled_twin(topic: str) -> Any:
    """The compiled core's kernels of a topic; skips where it is not installed."""
    from fibnim import _backend

    compiled, _ = _backend.twins(topic)
    if compiled is None:
        pytest.skip("no compiled extension in this installation")
    return compiled


def edge_values(limit: int) -> list[int]:
    """0, 1, F_k - 1, F_k, F_k + 1 for every k, limit - 1 and limit: those <= limit."""
    values = {0, 1, limit - 1, limit}
    for f in F:
        values.update((f - 1, f, f + 1))
    return sorted(v for v in values if 0 <= v <= limit)


def wythoff_board(size: int, misere: bool = False) -> list[list[bool]]:
    """P-positions of Wythoff's Nim on a size x size board, from its rules alone.

    A position is P when no move (take from one pile, or the same from both)
    reaches a P-position; in misere play (0, 0), where the player to move
    cannot move and so wins, is not one. One sweep in increasing order, with
    flags saying whether a row, a column or a diagonal already holds a P-position
    below the current cell.
    """
    p = [[False] * size for _ in range(size)]
    row_has = [False] * size  # some (x', y) with x' < x is P
    col_has = [False] * size  # some (x, y') with y' < y is P
    diag_has = [False] * (2 * size)  # some (x - k, y - k) is P, keyed by x - y + size
    for x in range(size):
        for y in range(size):
            reaches_p = row_has[y] or col_has[x] or diag_has[x - y + size]
            p[x][y] = not reaches_p and not (misere and x == y == 0)
            if p[x][y]:
                row_has[y] = col_has[x] = diag_has[x - y + size] = True
    return p


def wythoff_options(x: int, y: int) -> list[tuple[int, int]]:
    """Every position one move from (x, y)."""
    moves = [(k, y) for k in range(x)] + [(x, k) for k in range(y)]
    return moves + [(x - k, y - k) for k in range(1, min(x, y) + 1)]


# --- rule-only solvers, written apart from fibnim.solvers ------------------------------

STEPS = {
    "king": [(1, 0), (0, 1), (1, 1)],
    "knight": [(1, 2), (2, 1)],
}
SLIDES = {
    "rook": [(1, 0), (0, 1)],
    "bishop": [(1, 1)],
    "queen": [(1, 0), (0, 1), (1, 1)],
}


def piece_moves(piece: str, x: int, y: int) -> set[tuple[int, int]]:
    """Every cell a piece (names joined by "+") reaches from (x, y), moving west/south."""
    cells = set()
    for name in piece.split("+"):
        for dx, dy in STEPS.get(name, []):
            if x >= dx and y >= dy:
                cells.add((x - dx, y - dy))
        for dx, dy in SLIDES.get(name, []):
            k = 1
            while x >= k * dx and y >= k * dy:
                cells.add((x - k * dx, y - k * dy))
                k += 1
    return cells


def solve_board(piece: str, size: int, misere: bool = False) -> list[list[bool]]:
    """P-positions by the definition: no move reaches one; misere: a stuck player wins."""
    p = [[False] * size for _ in range(size)]
    for total in range(2 * size - 1):  # every move lowers x + y
        for x in range(max(0, total - size + 1), min(total, size - 1) + 1):
            y = total - x
            moves = piece_moves(piece, x, y)
            p[x][y] = not any(p[a][b] for a, b in moves) and not (misere and not moves)
    return p


def solve_grundy(piece: str, size: int) -> list[list[int]]:
    g = [[0] * size for _ in range(size)]
    for total in range(2 * size - 1):
        for x in range(max(0, total - size + 1), min(total, size - 1) + 1):
            y = total - x
            seen = {g[a][b] for a, b in piece_moves(piece, x, y)}
            g[x][y] = next(v for v in range(len(seen) + 1) if v not in seen)
    return g


def global_nim_solver(power: bool = False):
    """outcome(piles, r) of global Fibonacci Nim (power: power-of-two Nim) by
    memoized recursion over the rules; r = None is no bound."""
    from functools import cache

    @cache
    def wins(piles: tuple[int, ...], r: int) -> bool:
        for i, n in enumerate(piles):
            for s in range(1, min(n, r) + 1):
                after = tuple(sorted((*piles[:i], n - s, *piles[i + 1 :])))
                if not wins(after, s if power else 2 * s):
                    return True
        return False

    def outcome(piles, r=None) -> str:
        piles = tuple(sorted(int(n) for n in piles))
        bound = max(piles, default=0) if r is None else min(int(r), max(piles, default=0))
        return "N" if wins(piles, bound) else "P"

    return outcome


def subprocess_env() -> dict[str, str]:
    """The environment for fibnim in a subprocess: the test's backend, and any
    DeprecationWarning an error (outside __main__ it would pass unseen, while
    numpy versions differ in what they only warn about)."""
    import os

    from fibnim import _backend

    env = dict(os.environ)
    env.pop("FIBNIM_REQUIRE_EXTENSION", None)
    env.pop("FIBNIM_PURE_PYTHON", None)
    if _backend.name() == "python":
        env["FIBNIM_PURE_PYTHON"] = "1"
    env["PYTHONWARNINGS"] = "error::DeprecationWarning"
    return env


def run_fibnim(
    *arguments: str,
    stdin: str | None = None,
    cwd: Any = None,
    preexec_fn: Any = None,
) -> subprocess.CompletedProcess[str]:
    """The `fibnim` command in a subprocess, on the test's backend."""
    return subprocess.run(
        [sys.executable, "-m", "fibnim", *arguments],
        capture_output=True,
        text=True,
        check=False,
        input=stdin,
        cwd=cwd,
        env=subprocess_env(),
        preexec_fn=preexec_fn,
    )
