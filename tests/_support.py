"""Values and helpers the tests share (tests/ is on pytest's pythonpath)."""

from __future__ import annotations

F = [0, 1]  # F_0 .. F_599, built here rather than taken from fibnim
while len(F) < 600:
    F.append(F[-1] + F[-2])
UINT64_MAX = 2**64 - 1


def edge_values(limit: int) -> list[int]:
    """0, 1, F_k - 1, F_k, F_k + 1 for every k, limit - 1 and limit: those <= limit."""
    values = {0, 1, limit - 1, limit}
    for f in F:
        values.update((f - 1, f, f + 1))
    return sorted(v for v in values if 0 <= v <= limit)
