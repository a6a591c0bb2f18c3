"""What `fibnim bench` measures: every array kernel of the public API, each with
the inputs of its issue's benchmark, what a user would write by hand with
numpy (where people write something), its memory floor, and its targets.

A `Case` makes its inputs for a size N (outputs preallocated where the API
takes `out=`), calls fibnim on them, and maybe the numpy version. The asv
benchmarks in `benchmarks/` and the `fibnim bench` report both read `CASES`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

import fibnim
from fibnim import GameName, classify, fibonacci_nim, power_nim, solvers, wythoff, zeckendorf
from fibnim._declarations import DECLARATIONS, Declaration

PHI = (1 + 5**0.5) / 2
FIB = [int(f) for f in fibnim.fib(range(94))]  # F_0 .. F_93, exact

Inputs = dict[str, Any]
#: NUMBA_CPU_NAME and NUMBA_CPU_FEATURES for each implementation of fibnim's
#: core: numba compiles its peer for the same instruction set (LLVM's names
#: for x86-64 processors and their features). The features are named, for a
#: CPU name alone keeps the host's: haswell on an AVX-512 host compiled AVX-512.
NUMBA_TARGETS = {
    "avx512ifma": (
        "icelake-server",
        "+avx2,+fma,+bmi2,+avx512f,+avx512dq,+avx512bw,+avx512vl,+avx512ifma",
    ),
    "avx512": ("skylake-avx512", "+avx2,+fma,+bmi2,+avx512f,+avx512dq,+avx512bw,+avx512vl"),
    "avx2": ("haswell", "+avx2,+fma,+bmi2,-avx512f"),
    "scalar": ("x86-64", "-avx,-avx2,-avx512f"),
}

#: A kernel's numba peer (fibnim.bench.peers): its function's name there, the
#: case's inputs it reads, and its outputs' dtypes (with a width for rows)
Peer = tuple[str, tuple[str, ...], tuple[Any, ...]]


@dataclass(frozen=True)
class Case:
    """One kernel. `make(n, rng)` gives its inputs; `call(inputs)` runs fibnim;
    `by_hand(inputs)` the numpy a user would write (None: nobody writes it),
    whose answers `wrong(inputs, hand_result, fibnim_result)` counts against
    fibnim's. `floor` is "add" (np.add over two int64 arrays of the length) or
    "equal" (np.equal into bools). `targets` maps a ratio (x_floor and
    x_reference: at most; x_pure, x_hand: at least) to the figure an issue
    asked for; x_reference is against the case named `reference`. `largest`
    caps the sizes of slow kernels (strings, digit arrays, searches); `peer`
    names its exact numba peer, if it has one."""

    name: str
    make: Callable[[int, np.random.Generator], Inputs]
    call: Callable[[Inputs], Any]
    by_hand: Callable[[Inputs], Any] | None = None
    wrong: Callable[[Inputs, Any, Any], int] | None = None
    floor: str = "add"
    targets: dict[str, float] = field(default_factory=dict)
    note: str = ""
    largest: int = 10**8  # kernels that make Python objects stop sooner
    reference: str = ""  # a case whose time in the same run x_reference divides by
    # x floor at 10**7 that each vector implementation must reach (the scalar one: twice it)
    path_target: float | None = None
    needs: str = ""  # an optional package the case needs; left out where it is not installed
    peer: Peer | None = None  # timed beside it with --peers
    # the inputs the call reads (keys of its inputs): its bytes floor reads as many
    # words per element and writes as many bytes as the call returns
    reads: tuple[str, ...] = ()

    def available(self) -> bool:
        """Whether this environment has what the case needs."""
        return not self.needs or importlib.util.find_spec(self.needs) is not None


@dataclass(frozen=True)
class Solver:
    """A solver timed by size (seconds per call), with a target in seconds."""

    name: str
    call: Callable[[int], Any]
    sizes: tuple[int, ...]
    quick_sizes: tuple[int, ...]
    target_seconds: dict[int, float] = field(default_factory=dict)


# --- inputs --------------------------------------------------------------------------------


#: game-sized data: every pile below 2**32, as the positions people classify
#: are (fibnim's own data reaches 2**62, where the exact arithmetic is widest)
GAME_LIMIT = 2**32
GAME_SIZED = " (game-sized)"
#: the largest m whose safe pair (a_m, b_m) lies below GAME_LIMIT
_GAME_PAIR_LIMIT = int((GAME_LIMIT - 1) / PHI**2)


def _codes(n: int, rng: np.random.Generator, below: int = fibnim.CODE_LIMIT) -> Inputs:
    values = rng.integers(0, below, size=n, dtype=np.int64)
    return {"n": values, "code": fibnim.encode(values)}


def _fibonacci_indices(n: int, rng: np.random.Generator) -> Inputs:
    return {"k": rng.integers(0, 94, size=n)}


def _wythoff_positions(n: int, rng: np.random.Generator, below: int = 2**62) -> Inputs:
    """Half safe pairs (a_m, b_m) in either order, half random pairs below
    `below` (2**62; game-sized data: 2**32, the safe pairs below it too)."""
    half = n // 2
    most = wythoff.PAIR_LIMIT if below > GAME_LIMIT else _GAME_PAIR_LIMIT
    a, b = wythoff.pair(rng.integers(0, most, size=half, endpoint=True))
    swap = rng.random(half) < 0.5
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    x = np.concatenate([a, rng.integers(0, below, size=n - half)])
    y = np.concatenate([b, rng.integers(0, below, size=n - half)])
    order = rng.permutation(n)
    return {
        "x": x[order],
        "y": y[order],
        "n": rng.integers(0, most, size=n, endpoint=True),
        "flags": np.empty(n, dtype=bool),
    }


def _nim_piles(n: int, rng: np.random.Generator, below: int = 2**40) -> Inputs:
    """Piles uniform below `below` (2**40, as issue 4's benchmark), bounds
    uniform below 2**20."""
    return {
        "n": rng.integers(0, below, size=n),
        "piles": rng.integers(0, below, size=(n, 2)),
        "piles3": rng.integers(0, below, size=(n, 3)),
        "r": rng.integers(1, 2**20, size=n),
    }


def _wythoff_series(n: int, rng: np.random.Generator) -> Inputs:
    import pandas as pd

    positions = _wythoff_positions(n, rng)
    return {"sx": pd.Series(positions["x"]), "sy": pd.Series(positions["y"])}


INPUTS = {
    "indices": _fibonacci_indices,
    "codes": _codes,
    "wythoff": _wythoff_positions,
    "piles": _nim_piles,
}


# --- numpy by hand -------------------------------------------------------------------------


def greedy_code(n: np.ndarray) -> np.ndarray:
    """The Zeckendorf code the way one writes it with numpy: each Fibonacci
    number, largest first, taken where it fits."""
    rest = n.astype(np.uint64)
    code = np.zeros_like(rest)
    for k in range(65, 1, -1):
        fits = rest >= np.uint64(FIB[k])
        code |= fits.astype(np.uint64) << np.uint64(k - 2)
        rest -= fits.astype(np.uint64) * np.uint64(FIB[k])
    return code


def greedy_decode(codes: np.ndarray) -> np.ndarray:
    total = np.zeros(codes.shape, dtype=np.uint64)
    for i in range(64):
        total += ((codes >> np.uint64(i)) & np.uint64(1)) * np.uint64(FIB[i + 2])
    return total.astype(np.int64)


def greedy_lowest_term(n: np.ndarray) -> np.ndarray:
    code = greedy_code(n)
    low = code & (~code + np.uint64(1))  # the lowest set bit
    terms = np.array(FIB[2:66], dtype=np.uint64)
    index = np.log2(np.maximum(low, 1).astype(np.float64)).astype(np.int64)
    return np.where(low > 0, terms[index], 0).astype(np.int64)


def float_pair(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.floor(m * PHI).astype(np.int64)
    return a, a + m


def float_is_safe(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    small, large = np.minimum(x, y), np.maximum(x, y)
    return np.asarray(small == np.floor((large - small) * PHI).astype(np.int64))


def float_is_lower(x: np.ndarray) -> np.ndarray:
    # x is floor(m phi) for some m iff floor((x + 1) / phi) > floor(x / phi)
    return (x > 0) & (np.floor((x + 1) / PHI) > np.floor(x / PHI))


def power_two_piles(piles: np.ndarray, r: np.ndarray) -> np.ndarray:
    x = piles[:, 0] ^ piles[:, 1]
    return np.asarray((x == 0) | ((x & -x) > r))


def _mismatch(_: Inputs, hand: Any, exact: Any) -> int:
    if isinstance(exact, tuple):
        differ = [h != e for h, e in zip(hand, exact, strict=True)]
        return int(np.count_nonzero(np.any(differ, axis=0)))
    return int(np.count_nonzero(np.asarray(hand) != np.asarray(exact)))


# the declared functions' cases (fibnim._declarations), with what a user would
# write by hand and the issues' targets where there are some
BY_NAME: dict[str, dict[str, Any]] = {
    "zeckendorf.encode": {
        "peer": "encode",
        "by_hand": lambda d: greedy_code(d["n"]),
        "targets": {"x_floor": 5, "x_pure": 250},
        "path_target": 4,
        "note": "n < F_66",
    },
    "zeckendorf.decode": {
        "peer": "decode",
        "by_hand": lambda d: greedy_decode(d["code"]),
        "path_target": 4,
    },
    "zeckendorf.lowest_term": {"by_hand": lambda d: greedy_lowest_term(d["n"])},
    "wythoff.is_safe": {
        "peer": "is_safe",
        "by_hand": lambda d: float_is_safe(d["x"], d["y"]),
        "targets": {"x_floor": 1.25, "x_pure": 250, "x_hand": 4},
        "note": "half safe pairs, half random below 2**62",
        "path_target": 1.25,
    },
    "wythoff.pair": {
        "peer": "pair",
        "by_hand": lambda d: float_pair(d["n"]),
        "targets": {"x_floor": 1.25},
        "path_target": 1.25,
    },
    "wythoff.is_lower": {
        "peer": "is_lower",
        "by_hand": lambda d: float_is_lower(d["x"]),
        "targets": {"x_floor": 1.0},
        "path_target": 1.0,
    },
    "wythoff.winning_move": {
        "peer": "winning_move_limbs",
        "targets": {"x_floor": 3},
        "path_target": 1.5,
    },
    "wythoff.array_position": {"largest": 10**6},
    "fibonacci_nim.is_p": {
        "peer": "fibonacci_nim_is_p",
        "by_hand": lambda d: (d["n"] == 0) | (greedy_lowest_term(d["n"]) > d["r"]),
        "targets": {"x_floor": 3},
        "note": "n < 2**40, r < 2**20",
        "path_target": 2,
    },
}


def _declared_case(declaration: Declaration) -> Case:
    """A declared function on its benchmark's inputs, into preallocated outputs."""
    function = declaration.public
    make_inputs = INPUTS[declaration.bench]

    def make(n: int, rng: np.random.Generator, **data: Any) -> Inputs:
        inputs = make_inputs(n, rng, **data)
        inputs["results"] = tuple(np.empty(n, dtype=dtype) for dtype in declaration.outputs)
        return inputs

    def call(d: Inputs) -> Any:
        return function(*(d[name] for name in declaration.inputs), out=d["results"])

    extras = dict(BY_NAME.get(declaration.name, {}), reads=declaration.inputs)
    if "peer" in extras:  # it reads the declared inputs and writes the declared outputs
        extras["peer"] = (extras["peer"], declaration.inputs, declaration.outputs)
    if "by_hand" in extras:
        extras["wrong"] = _mismatch
    return Case(declaration.name, make=make, call=call, **extras)


def _of_values(function: Callable[[Any], Any]) -> Callable[[Inputs], Any]:
    return lambda d: function(d["n"])


CASES: list[Case] = [
    *(_declared_case(d) for d in DECLARATIONS.values()),
    *(  # their answers are rows or Python objects: up to 10**6
        Case(f"zeckendorf.{f.__name__}", make=_codes, call=_of_values(f), largest=10**6)
        for f in (fibnim.digits, fibnim.to_string, fibnim.second_canonical)
    ),
    Case(
        "wythoff.is_safe (misere)",
        make=_wythoff_positions,
        call=lambda d: wythoff.is_safe(d["x"], d["y"], misere=True, out=d["flags"]),
        reads=("x", "y"),
    ),
    # a pandas Series in, one out on its index: against the same call on its values
    Case(
        "wythoff.is_safe (Series.to_numpy())",
        make=_wythoff_series,
        call=lambda d: wythoff.is_safe(d["sx"].to_numpy(), d["sy"].to_numpy()),
        note="the reference of the Series case",
        needs="pandas",
    ),
    Case(
        "wythoff.is_safe (pandas Series)",
        make=_wythoff_series,
        call=lambda d: wythoff.is_safe(d["sx"], d["sy"]),
        reference="wythoff.is_safe (Series.to_numpy())",
        targets={"x_reference": 1.5},
        note="the result a Series on the same index",
        needs="pandas",
    ),
    Case(
        "fibonacci_nim.global_is_p (2 piles)",
        make=_nim_piles,
        call=lambda d: fibonacci_nim.global_is_p(d["piles"], d["r"]),
        reads=("piles", "r"),
        targets={"x_floor": 5},
        peer=("global_is_p_two_piles", ("piles", "r"), (np.bool_,)),
        path_target=3,
    ),
    Case(
        "fibonacci_nim.global_winning_move (2 piles)",
        make=_nim_piles,
        call=lambda d: fibonacci_nim.global_winning_move(d["piles"], d["r"]),
        largest=10**6,
    ),
    Case(
        "power_nim.is_p (2 piles)",
        make=_nim_piles,
        call=lambda d: power_nim.is_p(d["piles"], d["r"]),
        reads=("piles", "r"),
        by_hand=lambda d: power_two_piles(d["piles"], d["r"]),
        wrong=_mismatch,
        targets={"x_floor": 2},
        peer=("power_nim_two_piles", ("piles", "r"), (np.bool_,)),
        path_target=1.25,
    ),
    Case(
        "power_nim.winning_move (3 piles)",
        make=_nim_piles,
        call=lambda d: power_nim.winning_move(d["piles3"], d["r"]),
    ),
]


# --- classify: each game's fused kernel next to its winning-move kernel ----------------------


def _classify_inputs(k: int) -> Callable[[int, np.random.Generator], Inputs]:
    """Positions (n, k) below 10**6, as `fibnim classify --random` makes them; their
    columns as contiguous arrays, and preallocated outputs for both."""

    def make(n: int, rng: np.random.Generator, below: int = 0) -> Inputs:
        if below:  # game-sized Wythoff positions, half of them P
            made = _wythoff_positions(n, rng, below)
            positions = np.stack([made["x"], made["y"]], axis=1)
        else:
            positions = rng.integers(0, 10**6, size=(n, k), dtype=np.int64)
        columns = {f"c{j}": np.ascontiguousarray(positions[:, j]) for j in range(k)}
        return {
            "p": positions,
            "out": np.empty((n, 1 + k), dtype=np.int64),
            "first": np.empty(n, dtype=np.int64),
            "second": np.empty(n, dtype=np.int64),
            **columns,
        }

    return make


def _classify_cases(
    label: str,
    game: GameName,
    k: int,
    bound: int | None,
    reference: str,
    moves: Callable[[Inputs], Any],
    targets: dict[str, float],
    largest: int = 10**8,
    peer: Peer | None = None,
) -> list[Case]:
    """classify of a game beside its winning-move kernel on the same rows."""
    make = _classify_inputs(k)
    reference += " (classify's rows)"
    return [
        Case(
            reference,
            make=make,
            call=moves,
            largest=largest,
            note="classify's rows",
            reads=("p",),
        ),
        Case(
            f"classify ({label})",
            make=make,
            call=lambda d: classify(d["p"], game, bound, out=d["out"]),
            reads=("p",),
            reference=reference,
            targets={"x_reference": 1.2, **targets},
            largest=largest,
            note="rows (N, k) below 10**6",
            peer=peer,
        ),
    ]


def _pair_moves(misere: bool) -> Callable[[Inputs], Any]:
    return lambda d: wythoff.winning_move(
        d["c0"], d["c1"], misere=misere, out=(d["first"], d["second"])
    )


# the label, the game, its piles and bound, its winning-move kernel and its call,
# classify's targets and (optionally) its largest size and numba peer
_CLASSIFY: list[tuple[Any, ...]] = [
    ("wythoff", "wythoff", 2, None, "wythoff.winning_move", _pair_moves(False), {"x_floor": 2.5},
     10**8, ("classify_wythoff_limbs", ("p",), ((np.int64, 3),))),
    ("wythoff-misere", "wythoff-misere", 2, None, "wythoff.winning_move misere",
     _pair_moves(True), {}),
    ("fibonacci-nim", "fibonacci-nim", 1, None, "fibonacci_nim.winning_take",
     lambda d: fibonacci_nim.winning_take(d["c0"]), {}),
    ("global-fibonacci-nim, 2 piles", "global-fibonacci-nim", 2, None,
     "fibonacci_nim.global_winning_move", lambda d: fibonacci_nim.global_winning_move(d["p"]),
     {}, 10**6),
    ("power-nim, 3 piles, bound 1000", "power-nim", 3, 1000, "power_nim.winning_move bound 1000",
     lambda d: power_nim.winning_move(d["p"], 1000), {}),
    ("nim, 3 piles", "nim", 3, None, "power_nim.winning_move",
     lambda d: power_nim.winning_move(d["p"]), {}),
]  # fmt: skip
CASES += [case for row in _CLASSIFY for case in _classify_cases(*row)]

# --- game-sized data: the same kernels on piles below 2**32 ----------------------------------

#: each kernel also timed on game-sized data: its floor there (np.equal for a
#: bool answer) and the targets of issue 57 (a move kernel: 1.5x the bytes it
#: moves, np.add moving 24 a position)
GAME_SIZED_KERNELS: dict[str, tuple[str, dict[str, float], float | None]] = {
    "wythoff.is_safe": ("equal", {"x_floor": 1.1}, 1.1),
    "wythoff.pair": ("add", {"x_floor": 1.1}, 1.1),
    "wythoff.is_lower": ("equal", {"x_floor": 1.1}, 1.1),
    "zeckendorf.decode": ("add", {"x_floor": 1.1}, 1.1),
    "zeckendorf.encode": ("add", {}, None),
    "power_nim.is_p (2 piles)": ("equal", {"x_floor": 1.1}, 1.1),
    "fibonacci_nim.is_p": ("equal", {}, None),
    "wythoff.winning_move": ("add", {"x_floor": 1.5 * 32 / 24}, 1.5 * 32 / 24),
    "wythoff.winning_move (classify's rows)": ("add", {"x_floor": 1.5 * 32 / 24}, None),
    "classify (wythoff)": ("add", {"x_floor": 1.5 * 40 / 24, "x_reference": 1.2}, None),
}


def _game_sized(case: Case) -> Case:
    floor, targets, path_target = GAME_SIZED_KERNELS[case.name]
    make = case.make

    def make_game(n: int, rng: np.random.Generator) -> Inputs:
        return make(n, rng, below=GAME_LIMIT)  # type: ignore[call-arg]

    return replace(
        case,
        name=case.name + GAME_SIZED,
        make=make_game,
        floor=floor,
        targets=targets,
        path_target=path_target,
        reference=case.reference and case.reference + GAME_SIZED,
        note="piles below 2**32, half of the positions P",
    )


CASES += [_game_sized(case) for case in CASES if case.name in GAME_SIZED_KERNELS]

SOLVERS: list[Solver] = [  # name, call, sizes, quick sizes, target seconds by size
    Solver('solvers.board("queen", N)', lambda n: solvers.board("queen", n),
           (500, 1000, 2000), (100, 200), {2000: 10.0}),
    Solver('solvers.grundy("queen", N)', lambda n: solvers.grundy("queen", n),
           (250, 500, 1000), (50, 100), {1000: 60.0}),
    Solver("solvers.global_outcome([N, N, N])", lambda n: solvers.global_outcome([n, n, n]),
           (50, 100, 200), (10, 20)),
]  # fmt: skip


@dataclass(frozen=True)
class Call:
    """One public elementwise function called once, as a search, a game loop or
    a loop over preallocated blocks calls it, in each form: on Python ints, and
    on one-element int64 arrays plain, with out= and with out= and where=;
    each next to np.equal in the same form and run."""

    name: str
    function: Callable[..., Any]
    arity: int
    outputs: tuple[Any, ...]

    def sample(self, size: int) -> np.ndarray:
        """`size` values every one of the functions takes: 1 to 93 (codes of
        them, for decode), as int64."""
        values = np.random.default_rng(0).integers(1, 94, size)
        if self.name == "zeckendorf.decode":
            codes: np.ndarray = zeckendorf.encode(values)
            return codes.astype(np.int64)
        return values

    def outs(self, size: int) -> Any:
        """Preallocated outputs of `size` elements, as out= takes them."""
        outs = tuple(np.empty(size, dtype=dtype) for dtype in self.outputs)
        return outs[0] if len(outs) == 1 else outs


#: the targets: every form at most this many times np.equal's cost in the same
#: form; Python ints at most INT_CALL_US microseconds
CALL_X_EQUAL = 2.0
INT_CALL_US = 0.5
CLASSIFY_ROW_US = 2.0  # classify of one position

CALLS: list[Call] = [
    Call(d.name, d.public, len(d.inputs), tuple(np.dtype(o) for o in d.outputs))
    for d in DECLARATIONS.values()
]
