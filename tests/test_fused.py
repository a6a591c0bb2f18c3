"""The fused classify kernels against the composition of the public functions
(the way classify was built before them), on every game, layout and dtype."""

from __future__ import annotations

import numpy as np
import pytest

from fibnim import _apply, classify, fibonacci_nim, power_nim, wythoff, zeckendorf

INT64_MAX = 2**63 - 1


def _targets(piles, pile, take):
    targets = piles.astype(np.int64, copy=True)
    rows = np.flatnonzero(pile >= 0)
    targets[rows, pile[rows]] -= take[rows]
    targets[pile < 0] = -1
    return targets


def composed(piles, game, bound=None):
    """classify as the public functions compose it, column by column."""
    piles = np.asarray(piles, dtype=np.int64)
    if game.startswith("wythoff"):
        misere = game == "wythoff-misere"
        x, y = piles[:, 0], piles[:, 1]
        outcome = wythoff.is_safe(x, y, misere=misere)
        targets = np.stack(wythoff.winning_move(x, y, misere=misere), axis=-1)
    elif game == "fibonacci-nim":
        take = fibonacci_nim.winning_take(piles[:, 0], bound)
        outcome, targets = take == 0, np.where(take > 0, piles[:, 0] - take, -1)[:, None]
    elif game == "global-fibonacci-nim":
        pile, take = fibonacci_nim.global_winning_move(piles, bound)
        outcome, targets = pile < 0, _targets(piles, pile, take)
    else:
        pile, take = power_nim.winning_move(piles, bound)
        outcome, targets = pile < 0, _targets(piles, pile, take)
    return np.column_stack([np.asarray(outcome, dtype=np.int64), targets])


def edge_values(high):
    """0, 1, F_k - 1, F_k, F_k + 1 up to high, and high itself."""
    fibs = [int(f) for f in zeckendorf.fib(np.arange(2, 93)) if f <= high]
    values = {0, 1, high}
    for f in fibs:
        values.update(v for v in (f - 1, f, f + 1) if 0 <= v <= high)
    return np.array(sorted(values), dtype=np.int64)


CASES = [
    ("wythoff", 2, None),
    ("wythoff-misere", 2, None),
    ("fibonacci-nim", 1, None),
    ("fibonacci-nim", 1, 7),
    ("global-fibonacci-nim", 1, None),
    ("global-fibonacci-nim", 2, None),
    ("global-fibonacci-nim", 2, 10),
    ("global-fibonacci-nim", 3, None),
    ("global-fibonacci-nim", 3, 4),
    ("power-nim", 3, None),
    ("power-nim", 4, 8),
    ("nim", 1, None),
    ("nim", 5, None),
]


def sample(game, k, count, seed):
    rng = np.random.default_rng(seed)
    if game == "global-fibonacci-nim" and k >= 3:
        return rng.integers(0, 12, size=(count, k))
    high = INT64_MAX if not game.startswith("wythoff") else 3 * 10**18
    edges = edge_values(high)
    rows = rng.integers(0, 10**6, size=(count, k))
    rows[: count // 3] = rng.choice(edges, size=(count // 3, k))
    rows[count // 3 : count // 2] = rng.integers(0, 2**62, size=(count // 2 - count // 3, k))
    rows[-3:] = rng.integers(0, 4, size=(3, k))
    return rows


@pytest.mark.parametrize(("game", "k", "bound"), CASES)
def test_fused_equals_the_composition(game, k, bound):
    piles = sample(game, k, 2000 if k < 3 else 300, seed=k)
    assert np.array_equal(classify(piles, game, bound), composed(piles, game, bound))


@pytest.mark.parametrize(("game", "k", "bound"), CASES)
def test_every_layout_and_dtype_gives_the_same(game, k, bound):
    piles = sample(game, k, 300, seed=7)
    expected = classify(piles, game, bound)
    small = piles % 100 if game != "global-fibonacci-nim" or k < 3 else piles
    wide = np.zeros((len(piles), 2 * k + 1), dtype=np.int64)
    wide[:, 1::2] = piles
    layouts = [
        np.asfortranarray(piles),
        wide[:, 1::2],  # every other column of a wider array
        piles[::-1][::-1],
        piles.astype(np.uint64),
        piles.astype(">i8"),  # not native
        np.array(piles.tolist(), dtype=object),
    ]
    for layout in layouts:
        assert np.array_equal(classify(layout, game, bound), expected), layout.dtype
    expected_small = classify(small, game, bound)
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32):
        assert np.array_equal(classify(small.astype(dtype), game, bound), expected_small), dtype


@pytest.mark.parametrize(("game", "k", "bound"), CASES)
def test_chunk_boundaries_and_sizes(game, k, bound, monkeypatch):
    piles = sample(game, k, 70, seed=3)
    expected = composed(piles, game, bound)
    monkeypatch.setattr(_apply, "CHUNK", 16)
    import fibnim._classify as module

    monkeypatch.setattr(module, "CHUNK", 16)
    for n in (0, 1, 15, 16, 17, 70):
        assert np.array_equal(classify(piles[:n], game, bound), expected[:n])
    assert classify(piles[:0], game, bound).shape == (0, 1 + k)


def test_out_is_filled_and_returned():
    piles = sample("wythoff", 2, 500, seed=1)
    out = np.full((500, 3), 99, dtype=np.int64)
    assert classify(piles, "wythoff", out=out) is out
    assert np.array_equal(out, composed(piles, "wythoff"))
    strided = np.zeros((500, 6), dtype=np.int64)[:, ::2]
    classify(piles, "wythoff", out=strided)
    assert np.array_equal(strided, out)


def test_out_may_overlap_the_positions():
    piles = sample("nim", 3, 200, seed=2)
    expected = classify(piles, "nim")
    both = np.zeros((200, 4), dtype=np.int64)
    both[:, 1:] = piles
    classify(both[:, 1:], "nim", out=both)  # the result lands on its own input
    assert np.array_equal(both, expected)


def test_out_of_a_wrong_shape_dtype_or_kind_is_refused():
    piles = np.array([[1, 2], [3, 5]])
    for out, error in [
        (np.zeros((2, 2), dtype=np.int64), ValueError),
        (np.zeros((3, 3), dtype=np.int64), ValueError),
        (np.zeros((2, 3), dtype=np.int32), ValueError),
        (np.zeros((2, 3), dtype=np.int64).tolist(), TypeError),
    ]:
        with pytest.raises(error, match="out"):
            classify(piles, "wythoff", out=out)
    frozen = np.zeros((2, 3), dtype=np.int64)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        classify(piles, "wythoff", out=frozen)


@pytest.mark.parametrize(("game", "k", "bound"), CASES)
def test_bad_values_are_named_by_row_and_column(game, k, bound):
    piles = sample(game, k, 100, seed=4)
    out = np.full((100, 1 + k), 7, dtype=np.int64)
    before = piles.copy()
    bad = piles.copy()
    bad[57, k - 1] = -3
    with pytest.raises(ValueError, match=rf"positions\[57, {k - 1}\] = -3"):
        classify(bad, game, bound, out=out)
    huge = piles.astype(np.uint64)
    huge[80, 0] = 2**63
    with pytest.raises(OverflowError, match=r"positions\[80, 0\] = 9223372036854775808"):
        classify(huge, game, bound)
    assert np.array_equal(piles, before)


def test_the_largest_pile_is_accepted():
    top = np.array([[INT64_MAX, INT64_MAX], [0, INT64_MAX], [INT64_MAX - 1, INT64_MAX]])
    for game in ("wythoff", "wythoff-misere", "nim", "power-nim"):
        assert np.array_equal(classify(top, game), composed(top, game))
    assert np.array_equal(
        classify(top[:, :1], "fibonacci-nim"), composed(top[:, :1], "fibonacci-nim")
    )
    assert np.array_equal(
        classify(top, "global-fibonacci-nim"), composed(top, "global-fibonacci-nim")
    )


@pytest.mark.parametrize("game", ["wythoff", "wythoff-misere", "nim"])
def test_rows_and_outs_not_whole_elements_apart(game):
    # a packed record array: rows 17 bytes apart, unaligned; an unaligned out
    piles = sample(game, 2, 1000, seed=9)
    records = np.zeros(len(piles), dtype=[("tag", "i1"), ("x", "<i8"), ("y", "<i8")])
    records["x"], records["y"] = piles[:, 0], piles[:, 1]
    rows = np.lib.stride_tricks.as_strided(records["x"], shape=piles.shape, strides=(17, 8))
    out = np.zeros(3 * 8 * len(piles) + 1, dtype=np.uint8)[1:].view(np.int64).reshape(-1, 3)
    expected = composed(piles, game)
    assert np.array_equal(classify(rows, game), expected)
    assert np.array_equal(classify(piles, game, out=out), expected)
    assert np.array_equal(classify(piles[::-1], game), expected[::-1])  # negative strides
