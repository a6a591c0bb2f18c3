"""Many threads at once on shared inputs: the elementwise functions, classify
and Fibonacci coding answer each thread exactly as one thread alone does, and
leave the inputs as they were. The compiled kernels run without the GIL, so
on any build these calls overlap; on a free-threaded build so does the
Python around them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _support import F

import fibnim
from fibnim import classify, coding, fibonacci_nim, wythoff

THREADS = 8
ROUNDS = 3


def inputs(size: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(58)
    # half game-sized, half up to 2**62, with the edges the kernels turn on
    edges = np.array([0, 1, F[40] - 1, F[40], F[40] + 1, 2**32 - 1, 2**32], dtype=np.int64)
    wide = rng.integers(0, 2**62, size=size // 2, dtype=np.int64)
    small = rng.integers(0, 2**32, size=size - size // 2 - len(edges), dtype=np.int64)
    piles = np.concatenate([edges, small, wide])
    partner = np.roll(piles, 1)
    # a quarter of the rows safe pairs, so that both answers of each test are exercised
    m = rng.integers(0, 10**6, size=size // 4)
    a, b = wythoff.pair(m)
    partner[: size // 4], piles[: size // 4] = a, b
    return {
        "piles": piles,
        "partner": partner,
        "n": piles % F[66],
        "bound": rng.integers(1, 2**20, size=size),
        "rows": np.stack([piles, partner], axis=1),
    }


CALLS: dict[str, Callable[[dict[str, np.ndarray]], Any]] = {
    "encode": lambda d: fibnim.encode(d["n"]),
    "decode": lambda d: fibnim.decode(fibnim.encode(d["n"])),
    "is_safe": lambda d: wythoff.is_safe(d["piles"], d["partner"]),
    "winning_move": lambda d: wythoff.winning_move(d["piles"], d["partner"]),
    "fibonacci_nim.is_p": lambda d: fibonacci_nim.is_p(d["piles"], d["bound"]),
    "classify": lambda d: classify(d["rows"], "wythoff"),
    "coding": lambda d: coding.unpack(coding.pack(d["n"] + 1)),
}


def same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple):
        return all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a.dtype == b.dtype and a.shape == b.shape and (a == b).all())


def test_eight_threads_at_once_answer_as_one(backend):
    data = inputs(200_000 if backend == "cython" else 2_000)
    before = {name: array.copy() for name, array in data.items()}
    expected = {name: call(data) for name, call in CALLS.items()}
    start = threading.Barrier(THREADS)
    wrong: list[tuple[int, str]] = []
    failed: list[BaseException] = []

    def work(thread: int) -> None:
        try:
            start.wait()
            for turn in range(ROUNDS):
                # each thread its own order, so that different kernels overlap
                names = list(CALLS)[thread % len(CALLS) :] + list(CALLS)[: thread % len(CALLS)]
                for name in names if turn % 2 == 0 else reversed(names):
                    if not same(CALLS[name](data), expected[name]):
                        wrong.append((thread, name))
        except BaseException as error:  # reported below, with its thread
            failed.append(error)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not failed, failed
    assert not wrong, wrong
    for name, array in data.items():
        assert (array == before[name]).all(), f"{name} was changed"


def test_a_thread_that_switches_the_implementation_leaves_the_others_exact(backend):
    # The implementation in use is one setting for the process: another
    # thread changing it mid-call may change which kernel runs, never an answer.
    if backend != "cython":
        pytest.skip("the pure twin has one implementation")
    data = inputs(200_000)
    expected = {name: call(data) for name, call in CALLS.items()}
    before = fibnim.implementation
    stop = threading.Event()
    wrong: list[str] = []

    def switch() -> None:
        names = fibnim.implementations()
        i = 0
        while not stop.is_set():
            fibnim.use_implementation(names[i % len(names)])
            i += 1

    switcher = threading.Thread(target=switch)
    switcher.start()
    try:
        for _ in range(ROUNDS):
            for name, call in CALLS.items():
                if not same(call(data), expected[name]):
                    wrong.append(name)
    finally:
        stop.set()
        switcher.join()
        fibnim.use_implementation(before)
    assert not wrong, wrong
