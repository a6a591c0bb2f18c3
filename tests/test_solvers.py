"""fibnim.solvers against solvers written here from the rules alone."""

from __future__ import annotations

import numpy as np
import pytest
from _support import global_nim_solver, solve_board, solve_grundy, wythoff_board

from fibnim import _backend, solvers, wythoff

PIECES = [
    "rook",
    "bishop",
    "queen",
    "king",
    "knight",
    "rook+knight",
    "queen+knight",
    "king+knight",
    "king+rook",
    "king+bishop",
]


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("misere", [False, True])
def test_board_matches_the_rules(piece, misere):
    size = 24
    assert solvers.board(piece, size, misere=misere).tolist() == solve_board(piece, size, misere)


@pytest.mark.parametrize("piece", PIECES)
def test_grundy_matches_an_independent_mex(piece):
    size = 18
    values = solvers.grundy(piece, size)
    assert values.dtype == np.int64
    assert values.tolist() == solve_grundy(piece, size)
    assert ((values == 0) == solvers.board(piece, size)).all()


def test_known_games():
    size = 120
    x, y = np.arange(size)[:, None], np.arange(size)[None, :]
    assert (solvers.board("queen", size) == wythoff.is_safe(x, y)).all()
    assert solvers.board("queen", size, misere=True).tolist() == wythoff_board(size, misere=True)
    assert (solvers.board("rook", size) == (x == y)).all()  # two-pile Nim
    assert (solvers.grundy("rook", 64) == (x[:64] ^ y[:, :64])).all()  # Nim's Grundy values


def test_wythoff_grundy_zero_set_is_wythoffs_safe_pairs():
    size = 200 if _backend.name() == "cython" else 40
    g = solvers.grundy("queen", size)
    x, y = np.arange(size)[:, None], np.arange(size)[None, :]
    assert ((g == 0) == wythoff.is_safe(x, y)).all()
    assert (g == g.T).all()


@pytest.mark.parametrize("power", [False, True])
def test_global_outcome_matches_the_rules(power):
    outcome = global_nim_solver(power)
    for piles in [(1,), (2, 3), (1, 2, 3), (3, 4, 5), (2, 2, 2), (1, 2, 4), (4, 1, 6), (0, 3, 5)]:
        for r in [None, 0, 1, 2, 3, 5, 8]:
            assert solvers.global_outcome(list(piles), r, power=power) == outcome(piles, r), (
                piles,
                r,
            )


def test_search_limit_is_refused_with_the_count():
    limit = solvers.state_limit()
    with pytest.raises(ValueError, match=rf"states, more than the {limit}"):
        solvers.global_outcome([10**4, 10**4, 10**4])
    with pytest.raises(ValueError, match="1000000000000 states"):
        solvers.global_outcome([9999, 9999, 9999])


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown piece 'dragon'"):
        solvers.board("queen+dragon", 5)
    with pytest.raises(ValueError, match="size = -1 is negative"):
        solvers.board("rook", -1)
    with pytest.raises(ValueError, match="is above"):
        solvers.grundy("queen", solvers.GRUNDY_LIMIT + 1)
    with pytest.raises(TypeError):
        solvers.board(3, 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"piles\[1\] = -2 is negative"):
        solvers.global_outcome([1, -2, 3])
    assert solvers.board("queen", 0).shape == (0, 0)
