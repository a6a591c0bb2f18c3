"""Bulk calls split over threads (fibnim._threads): every elementwise function
and classify give, on any number of threads, the answers and the errors of
one thread; the setting is read from set_threads, FIBNIM_NUM_THREADS and the
work around the call (one thread inside the command's workers and dask
tasks); small calls stay on the calling thread.

The split starts at 2 * PART values, and the pure twin's (and classify's)
chunks are CHUNK values; the tests make both small, so that a call of a few
thousand values is split into many parts on both backends."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from _support import F

import fibnim
from fibnim import _apply, _classify, _run, _tables, _threads, classify, wythoff
from fibnim._declarations import DECLARATIONS

CHUNK = 1024
SIZE = 3 * CHUNK + 7  # four chunks


@pytest.fixture(autouse=True)
def small_parts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(_apply, "CHUNK", CHUNK)
    monkeypatch.setattr(_classify, "CHUNK", CHUNK)
    before = _threads.PART
    _threads.set_part(CHUNK // 4)
    yield
    _threads.set_part(before)
    fibnim.set_threads(None)


def function(name: str) -> Any:
    topic, own = name.split(".")
    return getattr(importlib.import_module(f"fibnim.{topic}"), own)


def arguments(name: str, size: int) -> list[np.ndarray]:
    rng = np.random.default_rng(70)
    edges = np.array([0, 1, F[40] - 1, F[40], F[40] + 1, 2**32 - 1, 2**32], dtype=np.int64)
    values = np.concatenate([edges, rng.integers(0, 2**40, size - len(edges))])
    if name == "zeckendorf.decode":
        return [fibnim.encode(values).astype(np.int64)]
    if name == "zeckendorf.fib":
        return [values % 93]
    if name == "wythoff.array_position":
        return [values + 1]
    if len(DECLARATIONS[name].inputs) == 1:
        return [values]
    return [values, np.roll(values, 3) % (2**20) + 1]


def outcome(call: Any) -> tuple[str, Any]:
    try:
        return "answer", call()
    except (ValueError, OverflowError, TypeError) as error:
        return "error", (type(error), str(error))


def same(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "error":
        return bool(a[1] == b[1])
    answers = a[1] if isinstance(a[1], tuple) else (a[1],)
    others = b[1] if isinstance(b[1], tuple) else (b[1],)
    return all(
        x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(answers, others, strict=True)
    )


def on(threads: int, call: Any) -> tuple[str, Any]:
    fibnim.set_threads(threads)
    return outcome(call)


@pytest.mark.parametrize("name", sorted(DECLARATIONS))
def test_every_elementwise_function_answers_on_many_threads_as_on_one(name: str) -> None:
    values = arguments(name, SIZE)
    call = function(name)
    alone = on(1, lambda: call(*values))
    assert alone[0] == "answer", alone
    assert same(on(5, lambda: call(*values)), alone)
    # strided, broadcast and 2-d inputs split along their longest axis
    strided = [np.repeat(v, 2)[::2] for v in values]
    assert same(on(3, lambda: call(*strided)), alone)
    grid = [v[: 3 * CHUNK].reshape(3, CHUNK) for v in values]
    if len(grid) == 2:
        grid[1] = grid[1][:1]  # (3, CHUNK) with (1, CHUNK)
    assert same(on(3, lambda: call(*grid)), on(1, lambda: call(*grid)))


@pytest.mark.parametrize("name", sorted(DECLARATIONS))
@pytest.mark.parametrize("where", [7, SIZE // 2, SIZE - 1])
def test_the_first_bad_value_is_named_on_every_count_of_threads(name: str, where: int) -> None:
    values = arguments(name, SIZE)
    # a bad value in a later part and one further on: the first is named
    for at in (where, SIZE - 1):
        values[0][at] = -5
    call = function(name)
    alone = on(1, lambda: call(*values))
    assert alone[0] == "error" and str(where) in alone[1][1], alone
    for threads in (2, 7):
        assert same(on(threads, lambda: call(*values)), alone)


def test_out_where_and_an_out_over_its_input_give_the_answers_of_one_thread() -> None:
    x, y = arguments("wythoff.is_safe", SIZE)
    expected = on(1, lambda: wythoff.winning_move(x, y))[1]
    fibnim.set_threads(4)
    outs = (np.full(SIZE, 9, np.int64), np.full(SIZE, 9, np.int64))
    returned = wythoff.winning_move(x, y, out=outs)
    assert returned[0] is outs[0] and returned[1] is outs[1]
    assert np.array_equal(outs[0], expected[0]) and np.array_equal(outs[1], expected[1])
    keep = np.arange(SIZE) % 3 == 0
    masked = np.full(SIZE, 9, np.int64), np.full(SIZE, 9, np.int64)
    wythoff.winning_move(x, y, out=masked, where=keep)
    assert np.array_equal(masked[0], np.where(keep, expected[0], 9))
    # an out that is the reversed input: numpy's rule (read all, then write)
    own = x.copy()
    fibnim.encode(own, out=own.view(np.uint64)[::-1])
    assert np.array_equal(own.view(np.uint64)[::-1], on(1, lambda: fibnim.encode(x))[1])


@pytest.mark.parametrize(
    "game,piles",
    [
        ("wythoff", 2),
        ("wythoff-misere", 2),
        ("fibonacci-nim", 1),
        ("nim", 3),
        ("power-nim", 4),
        ("global-fibonacci-nim", 1),
        ("global-fibonacci-nim", 2),
        ("global-fibonacci-nim", 3),
    ],
)
def test_classify_on_many_threads_answers_as_on_one(game: str, piles: int) -> None:
    rows = 3 * CHUNK + 3
    cap = 40 if game == "global-fibonacci-nim" and piles == 3 else 2**40
    positions = np.random.default_rng(7).integers(0, cap, (rows, piles))
    alone = classify(positions, game, threads=1)
    assert np.array_equal(classify(positions, game, threads=3), alone)
    fibnim.set_threads(5)
    assert np.array_equal(classify(positions, game), alone)
    positions[rows - 9, 0] = -1
    positions[rows - 2, 0] = -1
    errors = []
    for threads in (1, 4):
        with pytest.raises(ValueError) as refused:
            classify(positions, game, threads=threads)
        errors.append(str(refused.value))
    assert errors[0] == errors[1] and f"[{rows - 9}, 0]" in errors[0]


@pytest.mark.parametrize("wrong", [0, -1, 1.5, True, "2"])
def test_a_thread_count_that_is_no_positive_int_is_refused(wrong: Any) -> None:
    positions = np.zeros((3, 2), dtype=np.int64)
    with pytest.raises(ValueError, match="threads must be a positive int"):
        classify(positions, "wythoff", threads=wrong)
    with pytest.raises(ValueError, match="set_threads: threads must be a positive int"):
        fibnim.set_threads(wrong)


def test_the_setting_and_the_work_around_a_call_decide_its_threads() -> None:
    fibnim.set_threads(None)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert fibnim.get_threads() == cores
    fibnim.set_threads(6)
    assert fibnim.get_threads() == 6
    assert _threads.for_size(10 * _threads.PART) == 6
    assert _threads.for_size(2 * _threads.PART - 1) == 1  # a small call: one thread
    assert _threads.for_size(3 * _threads.PART) == 3
    # the command's workers, dask tasks and partitions: one thread each
    assert _threads.single(fibnim.get_threads) == 1
    assert _run._watched(__import__("threading").Event(), fibnim.get_threads) == 1
    assert _tables._on_partition(fibnim.get_threads) == 1
    with _threads.limited(2):
        assert fibnim.get_threads() == 2
    assert fibnim.get_threads() == 6


def test_the_environment_sets_the_threads_at_import() -> None:
    code = "import fibnim; print(fibnim.get_threads())"
    environment = {**os.environ, "FIBNIM_NUM_THREADS": "3"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True
    )
    assert done.stdout.strip() == "3", done.stderr
    environment["FIBNIM_NUM_THREADS"] = "many"
    done = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True
    )
    assert done.returncode != 0 and "FIBNIM_NUM_THREADS='many'" in done.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX")
def test_a_forked_child_splits_its_calls_on_a_pool_of_its_own() -> None:
    x, y = arguments("wythoff.is_safe", SIZE)
    fibnim.set_threads(3)
    expected = wythoff.is_safe(x, y)  # the parent's pool has started
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        try:
            os.write(writer, b"1" if np.array_equal(wythoff.is_safe(x, y), expected) else b"0")
        finally:
            os._exit(0)
    os.close(writer)
    answer = os.read(reader, 1)
    os.waitpid(child, 0)
    assert answer == b"1"
