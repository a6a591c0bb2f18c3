"""fibnim.classify against the games' rules, and the dask paths of the public API."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _support import wythoff_board, wythoff_options

from fibnim import GAMES, classify, fibonacci_nim, power_nim, random_positions, wythoff

BOX = 24


def box(k: int, size: int = BOX) -> np.ndarray:
    return np.array(list(itertools.product(range(size), repeat=k)), dtype=np.int64)


@pytest.mark.parametrize("misere", [False, True])
def test_wythoff_against_the_board(misere):
    positions = box(2)
    result = classify(positions, "wythoff-misere" if misere else "wythoff")
    board = wythoff_board(BOX, misere)
    assert result.dtype == np.int64 and result.shape == (BOX * BOX, 3)
    for (x, y), (p, tx, ty) in zip(positions.tolist(), result.tolist(), strict=True):
        assert p == board[x][y]
        if (tx, ty) != (-1, -1):
            assert (tx, ty) in wythoff_options(x, y) and board[tx][ty]
        else:  # no move: a P-position, or misere (0, 0)
            assert p == 1 or (misere and (x, y) == (0, 0))


def take_rule_holds(before: list[int], after: list[int]) -> int:
    """The amount taken if exactly one pile shrank, else fail."""
    changed = [j for j, (b, a) in enumerate(zip(before, after, strict=True)) if b != a]
    assert len(changed) == 1 and after[changed[0]] < before[changed[0]]
    return before[changed[0]] - after[changed[0]]


@pytest.mark.parametrize("bound", [None, 1, 3, 10])
def test_fibonacci_nim_moves_are_legal_and_win(bound):
    n = np.arange(300, dtype=np.int64)[:, None]
    result = classify(n, "fibonacci-nim", bound)
    assert result[:, 0].tolist() == fibonacci_nim.is_p(n[:, 0], bound).tolist()
    for (pile,), (p, target) in zip(n.tolist(), result.tolist(), strict=True):
        if p:
            assert target == -1
            continue
        take = pile - target
        assert 1 <= take <= (max(pile - 1, 1) if bound is None else bound)
        assert fibonacci_nim.is_p(target, 2 * take)


@pytest.mark.parametrize(
    ("game", "k", "bound"),
    [
        ("nim", 3, None),
        ("power-nim", 3, 2),
        ("power-nim", 2, 1),
        ("global-fibonacci-nim", 2, None),
        ("global-fibonacci-nim", 2, 3),
        ("global-fibonacci-nim", 3, 4),
    ],
)
def test_many_pile_moves_are_legal_and_win(game, k, bound):
    positions = box(k, 12 if k == 3 else BOX)
    result = classify(positions, game, bound)
    if game == "global-fibonacci-nim":
        assert result[:, 0].tolist() == fibonacci_nim.global_is_p(positions, bound).tolist()
    else:
        assert result[:, 0].tolist() == power_nim.is_p(positions, bound).tolist()
    for before, (p, *after) in zip(positions.tolist(), result.tolist(), strict=True):
        if p:
            assert after == [-1] * k
            continue
        take = take_rule_holds(before, after)
        if game == "nim":
            assert np.bitwise_xor.reduce(after) == 0
        elif game == "power-nim":
            assert take & (take - 1) == 0 and take <= bound and power_nim.is_p(after, take)
        else:
            assert bound is None or take <= bound
            assert fibonacci_nim.global_is_p(after, 2 * take)


def test_classify_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="wythoff takes positions of 2 piles"):
        classify(np.zeros((3, 3), dtype=np.int64), "wythoff")
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        classify(np.zeros((3, 2), dtype=np.int64), "chess")
    with pytest.raises(ValueError, match="nim has no bound"):
        classify(np.zeros((3, 2), dtype=np.int64), "nim", 4)
    with pytest.raises(ValueError, match=r"an array \(N, k\), not of shape \(3,\)"):
        classify(np.zeros(3, dtype=np.int64), "nim")
    with pytest.raises(ValueError, match="negative"):
        classify(np.array([[1, -2]]), "wythoff")


def test_empty_and_single_positions():
    for name, game in GAMES.items():
        k = game.piles or 2
        assert classify(np.empty((0, k), dtype=np.int64), name).shape == (0, 1 + k)
        assert classify(np.ones((1, k), dtype=np.int64), name).shape == (1, 1 + k)


def test_random_positions_depend_on_the_seed_only():
    a = random_positions(1000, "nim", 3, seed=[7, 0])
    assert (a == random_positions(1000, "nim", 3, seed=[7, 0])).all()
    assert not (a == random_positions(1000, "nim", 3, seed=[7, 1])).all()
    assert a.min() >= 0 and a.max() < 10**6


# --- dask --------------------------------------------------------------------------------


@pytest.fixture
def da():
    return pytest.importorskip("dask.array")


def test_elementwise_functions_on_dask_arrays(da):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2**40, size=1000)
    y = rng.integers(0, 2**40, size=1000)
    lazy_x, lazy_y = da.from_array(x, chunks=170), da.from_array(y, chunks=300)
    result = wythoff.is_safe(lazy_x, lazy_y)
    assert isinstance(result, da.Array)  # lazy: nothing computed yet
    assert (result.compute() == wythoff.is_safe(x, y)).all()
    for lazy, eager in zip(
        wythoff.winning_move(lazy_x, 5), wythoff.winning_move(x, 5), strict=True
    ):
        assert isinstance(lazy, da.Array) and (lazy.compute() == eager).all()
    assert (
        fibonacci_nim.is_p(lazy_x, lazy_y % 50).compute() == fibonacci_nim.is_p(x, y % 50)
    ).all()
    import fibnim

    assert (fibnim.encode(lazy_x).compute() == fibnim.encode(x)).all()
    assert (fibnim.to_string(lazy_x[:10]).compute() == fibnim.to_string(x[:10])).all()


def test_position_functions_on_dask_arrays(da):
    piles = np.random.default_rng(4).integers(0, 1000, size=(500, 3))
    lazy = da.from_array(piles, chunks=(77, 2))  # the piles axis split too: it is joined
    assert (power_nim.is_p(lazy, 4).compute() == power_nim.is_p(piles, 4)).all()
    for a, b in zip(power_nim.winning_move(lazy), power_nim.winning_move(piles), strict=True):
        assert (a.compute() == b).all()
    two = lazy[:, :2]
    assert (
        fibonacci_nim.global_is_p(two, 7).compute() == fibonacci_nim.global_is_p(piles[:, :2], 7)
    ).all()
    result = classify(lazy, "nim")
    assert isinstance(result, da.Array) and (result.compute() == classify(piles, "nim")).all()
    with pytest.raises(TypeError, match="the other arguments must be numbers"):
        power_nim.is_p(lazy, np.arange(500))
    with pytest.raises(TypeError, match="out= does not go with dask"):
        wythoff.is_safe(lazy[:, 0], lazy[:, 1], out=np.empty(500, dtype=bool))


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of two workers (threads of this process, so that the test's
    backend is the one they run)."""
    distributed = pytest.importorskip("distributed")
    with (
        # the dashboard on a free port: None still took 8787, which another run held
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as local,
        distributed.Client(local) as client,
    ):
        yield local, client


def test_classify_on_a_local_cluster_from_chunks_on_disk(da, cluster, tmp_path):
    _, client = cluster
    positions = random_positions(200_000, "wythoff", 2, seed=5)
    positions[::7] = np.stack(wythoff.pair(np.arange(0, 200_000, 7) // 7), axis=-1)
    da.to_npy_stack(tmp_path / "stack", da.from_array(positions, chunks=(9_000, 2)))
    on_disk = da.from_npy_stack(tmp_path / "stack")
    assert on_disk.numblocks[0] == 23  # far more than one chunk
    lazy = classify(on_disk, "wythoff")
    result = client.compute(lazy).result()
    assert (result == classify(positions, "wythoff")).all()
    assert result[::7, 0].all()  # the safe pairs put in
