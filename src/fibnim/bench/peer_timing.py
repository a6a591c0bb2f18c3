"""The numba peers timed in a process of their own (`fibnim bench --peers`):

    python -m fibnim.bench.peer_timing NAME FLOOR REPEATS INPUTS.npz

prints the figures of case NAME's peer (fibnim.bench.peers) as JSON. A process
of its own, so that NUMBA_CPU_NAME and NUMBA_CPU_FEATURES choose what numba
compiles for (numba reads them once, when it starts); fibnim.bench.run starts it.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np

from fibnim.bench import peers, run
from fibnim.bench.suite import CASES


def measure(name: str, inputs: dict[str, Any], floor: str, repeats: int) -> dict[str, Any]:
    """The peer of case `name` timed in turns with its floor (fibnim.bench.run.paired):
    ns per element and the median of its times over the floor's."""
    peer = next(case.peer for case in CASES if case.name == name)
    assert peer is not None, f"{name} has no peer"
    size = len(inputs[peer[1][-1]])
    call = peers.peer_call(peer, inputs)
    seconds, _, ratios = run.paired(lambda: call, lambda: run.floor_call(floor, size), repeats)
    return {"ns": seconds["median"] / size * 1e9, "x_floor": float(np.median(ratios))}


def main(arguments: list[str]) -> None:
    name, floor, repeats, path = arguments
    with np.load(path) as saved:
        inputs = {key: saved[key] for key in saved.files}
    print(json.dumps(measure(name, inputs, floor, int(repeats))))


if __name__ == "__main__":
    main(sys.argv[1:])
