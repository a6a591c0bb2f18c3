"""fibnim.wythoff against the rules of the game (docs/math/wythoff.rst)."""

from __future__ import annotations

from math import isqrt

import numpy as np
import pytest
from _support import F, wythoff_board, wythoff_options
from hypothesis import given
from hypothesis import strategies as st

from fibnim import wythoff

INT64_MAX = 2**63 - 1
SIZE = 200  # the exhaustive grid: every position up to SIZE x SIZE
BOARD = {False: wythoff_board(SIZE), True: wythoff_board(SIZE, misere=True)}
GRID_X, GRID_Y = np.arange(SIZE)[:, None], np.arange(SIZE)[None, :]


def floor_n_phi(n: int) -> int:
    """floor(n phi), by integer square root: written here, apart from fibnim."""
    return (n + isqrt(5 * n * n)) // 2


@pytest.mark.parametrize("misere", [False, True])
def test_is_safe_matches_the_rules_on_the_whole_grid(misere):
    safe = wythoff.is_safe(GRID_X, GRID_Y, misere=misere)
    assert safe.shape == (SIZE, SIZE) and safe.dtype == np.bool_
    assert safe.tolist() == BOARD[misere]


@pytest.mark.parametrize("misere", [False, True])
def test_winning_move_is_legal_and_wins_on_the_whole_grid(misere):
    board = BOARD[misere]
    tx, ty = wythoff.winning_move(GRID_X, GRID_Y, misere=misere)
    for x in range(SIZE):
        for y in range(SIZE):
            move = (int(tx[x, y]), int(ty[x, y]))
            if board[x][y] or (x, y) == (0, 0):
                assert move == (-1, -1), (x, y)  # no winning move (or no move at all)
            else:
                assert move in wythoff_options(x, y), (x, y, move)
                assert board[move[0]][move[1]], (x, y, move)


@pytest.mark.parametrize("misere", [False, True])
def test_winning_moves_lists_every_winning_option(misere):
    board = BOARD[misere]
    for x in range(60):
        for y in range(60):
            expected = sorted(m for m in wythoff_options(x, y) if board[m[0]][m[1]])
            assert wythoff.winning_moves(x, y, misere=misere) == expected, (x, y)
            move = wythoff.winning_move(x, y, misere=misere)
            assert (move is None) == (not expected) and (move is None or move in expected)


def test_silbers_examples():
    assert wythoff.winning_move(10, 15) == (10, 6)
    assert wythoff.winning_move(9, 20) == (9, 15)
    assert wythoff.winning_move(24, 32) == (12, 20)
    assert wythoff.winning_move(15, 10) == (6, 10)  # pile order is kept
    assert wythoff.winning_move(3, 5) is None
    assert wythoff.winning_move(0, 0) is None
    assert wythoff.winning_move(7, 7) == (0, 0) and wythoff.winning_move(0, 9) == (0, 0)
    assert wythoff.winning_move(0, 0, misere=True) is None  # no move at all
    assert wythoff.winning_move(1, 2, misere=True) == (0, 1)
    assert wythoff.pair(np.arange(1, 8))[0].tolist() == [1, 3, 4, 6, 8, 9, 11]  # A000201
    assert wythoff.pair(np.arange(1, 8))[1].tolist() == [2, 5, 7, 10, 13, 15, 18]  # A001950


def test_the_first_safe_pairs_against_beatty():
    n = np.arange(0, 5000)
    a, b = wythoff.pair(n)
    assert a.dtype == b.dtype == np.int64
    assert a.tolist() == [floor_n_phi(v) for v in range(5000)]
    assert (b - a == n).all()


def large_indices() -> list[int]:
    rng = np.random.default_rng(7)
    edges = [1, 2, F[40] - 1, F[40], F[40] + 1, 2**52, 2**53 + 1, PAIR_LIMIT - 1, PAIR_LIMIT]
    edges += [f + d for f in F[40:92] for d in (-1, 0, 1) if f + d <= PAIR_LIMIT]
    return edges + rng.integers(0, PAIR_LIMIT, size=3000, endpoint=True).tolist()


PAIR_LIMIT = wythoff.PAIR_LIMIT


def test_large_pairs_against_isqrt():
    n = large_indices()
    a, b = wythoff.pair(np.array(n, dtype=np.int64))
    assert a.tolist() == [floor_n_phi(v) for v in n]
    assert b.tolist() == [floor_n_phi(v) + v for v in n]
    assert floor_n_phi(PAIR_LIMIT) + PAIR_LIMIT <= INT64_MAX
    assert floor_n_phi(PAIR_LIMIT + 1) + PAIR_LIMIT + 1 > INT64_MAX


def test_large_values_classified_against_isqrt():
    n = np.array(large_indices(), dtype=np.int64)
    n = n[n > 0]
    a, b = wythoff.pair(n)
    assert wythoff.is_lower(a).all() and not wythoff.is_upper(a).any()
    assert wythoff.is_upper(b).all() and not wythoff.is_lower(b).any()
    assert (wythoff.index(a) == n).all() and (wythoff.index(b) == n).all()
    assert (wythoff.partner(b) == a).all()
    assert wythoff.is_safe(a, b).all() and wythoff.is_safe(b, a).all()
    assert not wythoff.is_safe(a, b - 1).any() and not wythoff.is_safe(a + 1, b).any()
    room = b < INT64_MAX
    tx, ty = wythoff.winning_move(a[room], b[room] + 1)
    assert (tx == a[room]).all() and (ty == b[room]).all()


def test_partner_overflow():
    a, b = wythoff.pair(PAIR_LIMIT)
    assert wythoff.partner(np.array([a])).tolist() == [b]
    next_a = floor_n_phi(PAIR_LIMIT + 1)
    with pytest.raises(OverflowError, match=rf"partner: x\[1\] = {next_a} has a partner above"):
        wythoff.partner(np.array([5, next_a], dtype=np.int64))
    assert wythoff.partner(next_a) == next_a + PAIR_LIMIT + 1  # scalars are exact
    assert wythoff.partner(np.array([next_a], dtype=object))[0] == next_a + PAIR_LIMIT + 1


def test_float_formula_goes_wrong_fibnim_does_not():
    # What a user writes: floor(n * phi) in float64. First wrong at n = F_40.
    phi = (1 + 5**0.5) / 2
    n = np.array([F[40] - 1, F[40]], dtype=np.int64)
    by_float = np.floor(n * phi).astype(np.int64)
    exact = [floor_n_phi(v) for v in n.tolist()]
    assert by_float[0] == exact[0] and by_float[1] != exact[1]
    assert wythoff.pair(n)[0].tolist() == exact


def test_scalars_and_object_arrays_are_exact_for_any_size():
    n = 10**40 + 7
    a, b = wythoff.pair(n)
    assert a == floor_n_phi(n) and b == a + n
    assert wythoff.is_safe(b, a) and not wythoff.is_safe(a, b + 1)
    assert wythoff.index(a) == n and wythoff.partner(a) == b and wythoff.is_lower(a)
    assert wythoff.winning_move(a, b + 5) == (a, b)
    big = np.array([a, b, 2**70], dtype=object)
    assert wythoff.index(big).tolist()[:2] == [n, n] and wythoff.index(big).dtype == object
    assert wythoff.is_lower(big).dtype == np.bool_
    tx, ty = wythoff.winning_move(big, np.array([b, a, 2**70], dtype=object))
    assert tx.tolist() == [-1, -1, 0] and ty.tolist() == [-1, -1, 0]


def test_broadcasting_and_dtypes():
    x = np.array([[3], [4], [5]], dtype=np.uint8)
    y = np.array([5, 7, 3, 4], dtype=">i4")
    safe = wythoff.is_safe(x, y)
    assert safe.shape == (3, 4)
    assert safe.tolist() == [
        [True, False, False, False],
        [False, True, False, False],
        [False, False, True, False],
    ]
    tx, ty = wythoff.winning_move(x, 9)
    assert tx.shape == ty.shape == (3, 1)
    assert isinstance(wythoff.is_safe(np.int64(3), np.array(5)), np.bool_)
    assert wythoff.is_safe(3, 5) is True
    assert wythoff.is_safe([], []).shape == (0,)


def test_bad_input():
    with pytest.raises(ValueError, match=r"is_safe: y\[1\] = -2 is negative"):
        wythoff.is_safe([1, 2], [3, -2])
    with pytest.raises(ValueError, match=r"is_safe: x\[1, 0\] = -1 is negative"):
        wythoff.is_safe(np.array([[1], [-1]]), np.array([1, 2, 3]))
    with pytest.raises(OverflowError, match=r"x\[0\] = 9223372036854775808 is above 2\*\*63 - 1"):
        wythoff.index(np.array([2**63], dtype=np.uint64))
    with pytest.raises(OverflowError, match=rf"pair: n\[0\] = {PAIR_LIMIT + 1} is above"):
        wythoff.pair(np.array([PAIR_LIMIT + 1]))
    with pytest.raises(
        ValueError, match=r"array_position: x\[1\] = 0 is not in the Wythoff array"
    ):
        wythoff.array_position([5, 0])
    with pytest.raises(ValueError, match="x = -1 is negative"):
        wythoff.array_position(-1)
    with pytest.raises(TypeError):
        wythoff.is_safe(1.5, 2)
    with pytest.raises(TypeError):
        wythoff.winning_moves([1], [2])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        wythoff.is_lower(True)


def test_the_wythoff_array():
    w = wythoff.array(40, 12)
    assert w.dtype == np.int64
    assert w[:3, :5].tolist() == [[1, 2, 3, 5, 8], [4, 7, 11, 18, 29], [6, 10, 16, 26, 42]]
    assert (w[:, 2:] == w[:, 1:-1] + w[:, :-2]).all()
    assert w.size == len(np.unique(w))  # every entry once
    rows, columns = wythoff.array_position(w)
    assert (rows == np.arange(1, 41)[:, None]).all() and (columns == np.arange(1, 13)).all()
    # every positive integer stands in the array: all of 1..1000 within 16 columns
    # (W(1, 16) = F_17 > 1000) and the rows up to the first that starts above 1000
    rows_needed = int(np.searchsorted(wythoff.array(1000, 1)[:, 0], 1000, side="right"))
    entries = wythoff.array(rows_needed, 16).ravel()
    assert sorted(entries[entries <= 1000].tolist()) == list(range(1, 1001))
    assert wythoff.array(0, 5).shape == (0, 5)
    assert wythoff.array(1, 91)[0, -1] == F[92]
    with pytest.raises(OverflowError, match=r"W\(1, 92\) = 12200160415121876738 exceeds"):
        wythoff.array(1, 95)


def test_array_position_of_every_uint63_scale():
    x = np.array([1, 17, 2**40 + 3, INT64_MAX, F[91], F[92]], dtype=np.int64)
    rows, columns = wythoff.array_position(x)
    for value, r, c in zip(x.tolist(), rows.tolist(), columns.tolist(), strict=True):
        assert wythoff.array_position(value) == (r, c)
    assert wythoff.array_position(17) == (7, 1)  # 17 = F_7 + F_4 + F_2: lowest index 2


def test_explain():
    text = wythoff.explain(24, 32)
    assert "10101" in text and "(12, 20)" in text and "Case 3" in text
    assert "a B-number" in wythoff.explain(10, 15) and "Case 1" in wythoff.explain(10, 15)
    assert "Case 2" in wythoff.explain(9, 20)
    safe = wythoff.explain(3, 5)
    assert "P-position" in safe and "No winning move" in safe
    assert "No move exists at all" in wythoff.explain(0, 0)


# --- invariants -----------------------------------------------------------------------

positive = st.integers(1, INT64_MAX)


@given(positive)
def test_every_positive_integer_lies_in_exactly_one_safe_pair(x):
    lower, upper = bool(wythoff.is_lower([x])[0]), bool(wythoff.is_upper([x])[0])
    assert lower != upper
    n = int(wythoff.index([x])[0])
    a, b = wythoff.pair(n)
    assert x == (a if lower else b)


@given(positive)
def test_partner_is_an_involution(x):
    p = wythoff.partner(x)
    assert wythoff.partner(p) == x
    assert wythoff.is_safe(x, p)


@given(st.integers(0, PAIR_LIMIT))
def test_index_and_pair_round_trip(n):
    a, b = wythoff.pair(np.array([n]))
    assert wythoff.index(a).tolist() == wythoff.index(b).tolist() == [n]


def test_out_arguments():
    a, b = np.empty(4, dtype=np.int64), np.empty(4, dtype=np.int64)
    result = wythoff.pair([1, 2, 3, 4], out=(a, b))
    assert result[0] is a and result[1] is b and b.tolist() == [2, 5, 7, 10]
    flags = np.empty(8, dtype=bool)[::2]  # strided outputs are filled too
    assert wythoff.is_safe([1, 3, 4, 0], [2, 5, 5, 0], out=flags) is flags
    assert flags.tolist() == [True, True, False, True]
    wythoff.winning_move([10, 3, 24, 7], [15, 5, 32, 7], out=(a, b))
    assert a.tolist() == [10, -1, 12, 0] and b.tolist() == [6, -1, 20, 0]
    n = np.empty(3, dtype=np.int64)
    assert wythoff.index([6, 10, 12], out=n) is n and n.tolist() == [4, 4, 8]
    with pytest.raises(ValueError, match=r"out must hold 2 arrays|one entry per ufunc output"):
        wythoff.pair([1], out=(a,))
    with pytest.raises(TypeError, match="Cannot cast"):  # int64 answers do not fit int32
        wythoff.index([1, 2, 3], out=np.empty(3, dtype=np.int32))
    wide = np.zeros(3, dtype=np.int64)  # bools fit any integer type: numpy casts them
    assert wythoff.is_lower([1, 2, 3], out=wide) is wide and wide.tolist() == [1, 0, 1]


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32])
def test_bad_values_deep_in_large_arrays(dtype):
    # The kernels of these functions check the bound themselves as they go
    # (int64 and uint64 input); the message must be the same as from the checks.
    size = 150_003
    bad_at = 131_077  # in the third chunk, not on a multiple of 8
    x = np.arange(size, dtype=dtype)
    value = -5 if np.dtype(dtype).kind == "i" else 2**63 + 5
    x[bad_at] = value
    error = ValueError if value < 0 else OverflowError
    where = rf"x\[{bad_at}\] = {value}"
    with pytest.raises(error, match=rf"is_safe: {where}"):
        wythoff.is_safe(x, np.zeros(size, dtype=dtype))
    with pytest.raises(error, match=rf"is_lower: {where}"):
        wythoff.is_lower(x)
    with pytest.raises(error, match=rf"is_upper: {where}"):
        wythoff.is_upper(x)
    with pytest.raises(error, match=rf"winning_move: y\[{bad_at}\] = {value}"):
        wythoff.winning_move(np.zeros(size, dtype=dtype), x)
    with pytest.raises(error, match=rf"pair: n\[{bad_at}\] = {value}"):
        wythoff.pair(x.astype(dtype))
    too_large = np.arange(size, dtype=np.int64)
    too_large[bad_at] = PAIR_LIMIT + 1
    with pytest.raises(OverflowError, match=rf"pair: n\[{bad_at}\] = {PAIR_LIMIT + 1} is above"):
        wythoff.pair(too_large)
