"""Empty piles: a pile of 0 offers no move, so it changes no outcome and no
complementary value, and a winning move's pile index refers to the position as
given. Every public function that takes piles is swept over all positions of 1
to 3 piles of 0..8, at several bounds, in scalar and array form, on every
implementation of the compiled core and on the pure twin, against a solver that
knows only the rules (tests/_support.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _support import global_nim_solver
from hypothesis import given
from hypothesis import strategies as st

from fibnim import _backend, classify, fibonacci_nim, power_nim, solvers

FIBONACCI = global_nim_solver(power=False)
POWER = global_nim_solver(power=True)
BOUNDS = [None, 0, 1, 2, 3, 5, 8]
PILES = {k: list(itertools.product(range(9), repeat=k)) for k in (1, 2, 3)}

# (function, is it a move function, the rules it follows)
OUTCOMES = [
    (fibonacci_nim.global_is_p, FIBONACCI),
    (power_nim.is_p, POWER),
]
MOVES = [
    (fibonacci_nim.global_winning_move, FIBONACCI, 2),
    (power_nim.winning_move, POWER, 1),
]


@pytest.fixture(
    params=["python", *_backend.IMPLEMENTATIONS],
    ids=lambda name: name if name == "python" else f"cython-{name}",
    autouse=True,
)
def backend(request: pytest.FixtureRequest):
    """The pure twin, and the compiled core on each implementation this processor runs."""
    core = _backend._CORE  # None in an install without the compiled core
    before = (_backend.name(), core.implementation() if core is not None else None)
    if request.param != "python":
        if "cython" not in _backend.available():
            pytest.skip("no compiled extension in this installation")
        if request.param not in _backend.implementations():
            pytest.skip(f"this processor (or build) does not run {request.param}")
        _backend.use("cython")
        _backend.use_implementation(request.param)
    else:
        _backend.use("python")
    yield request.param
    _backend.use(before[0])
    if before[1]:
        _backend.use_implementation(before[1])


def _legal_winning(rules, growth: int, piles, r, move) -> bool:
    """Whether move = (pile, take) is legal at bound r and leaves a P-position."""
    pile, take = move
    if not (0 <= pile < len(piles) and 1 <= take <= piles[pile]):
        return False
    if r is not None and take > r:
        return False
    after = list(piles)
    after[pile] -= take
    return rules(after, growth * take) == "P"


def _one_form_only(implementation: str) -> bool:
    """The scalar forms are exact Python (or the search), the same code on every
    implementation: swept on the pure twin and on one compiled implementation."""
    return implementation not in ("python", *_backend.implementations()[:1])


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("r", BOUNDS)
def test_outcomes_of_every_small_position(backend, k, r):
    rows = np.array(PILES[k], dtype=np.int64)
    for function, rules in OUTCOMES:
        truth = np.array([rules(row, r) == "P" for row in PILES[k]])
        array = function(rows, r)
        assert array.dtype == np.bool_ and (array == truth).all(), function.__name__
        if _one_form_only(backend):
            continue
        scalars = [function(list(row), r) for row in PILES[k]]
        assert scalars == truth.tolist(), function.__name__
        if function is fibonacci_nim.global_is_p:
            outcomes = [solvers.global_outcome(list(row), r) == "P" for row in PILES[k]]
            assert outcomes == truth.tolist()


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("r", BOUNDS)
def test_moves_of_every_small_position(backend, k, r):
    rows = np.array(PILES[k], dtype=np.int64)
    for function, rules, growth in MOVES:
        pile, take = function(rows, r)
        scalars = None if _one_form_only(backend) else [function(list(row), r) for row in PILES[k]]
        for i, row in enumerate(PILES[k]):
            where = f"{function.__name__}({list(row)}, r={r})"
            if rules(row, r) == "P":
                assert (pile[i], take[i]) == (-1, -1), where
                assert scalars is None or scalars[i] is None, where
                continue
            move = (int(pile[i]), int(take[i]))
            assert _legal_winning(rules, growth, row, r, move), (where, move)
            assert scalars is None or scalars[i] == move, where


@pytest.mark.parametrize("game", ["global-fibonacci-nim", "power-nim", "nim"])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("r", BOUNDS)
def test_classify_of_every_small_position(game, k, r):
    if game == "nim" and r is not None:
        return
    rules, growth = (FIBONACCI, 2) if game == "global-fibonacci-nim" else (POWER, 1)
    rows = np.array(PILES[k], dtype=np.int64)
    result = classify(rows, game, r)
    for row, answer in zip(PILES[k], result.tolist(), strict=True):
        p = rules(row, r) == "P"
        assert answer[0] == int(p), (game, row, r)
        if p:
            assert answer[1:] == [-1] * k
            continue
        changed = [j for j in range(k) if answer[1 + j] != row[j]]
        assert len(changed) == 1, (game, row, r, answer)
        pile = changed[0]
        assert _legal_winning(rules, growth, row, r, (pile, row[pile] - answer[1 + pile]))


@pytest.mark.parametrize("k", [1, 2])
def test_complementary_value_of_every_small_position(k):
    limit = 12
    for row in PILES[k]:
        truth = next(
            (b for b in range(limit + 1) if FIBONACCI([*row, b], None) == "P"),
            None,
        )
        assert fibonacci_nim.complementary_value(list(row), limit=limit) == truth, row


def test_complementary_value_of_an_empty_pile_and_n_is_n():
    """Row 0 of the paper's Table 1: (0, n, b) is P exactly for b = n."""
    assert [fibonacci_nim.complementary_value([0, n]) for n in range(40)] == list(range(40))
    assert [fibonacci_nim.complementary_value([n, 0, 0]) for n in range(40)] == list(range(40))


@pytest.mark.parametrize(
    "function",
    [
        fibonacci_nim.global_is_p,
        fibonacci_nim.global_winning_move,
        power_nim.is_p,
        power_nim.winning_move,
    ],
)
def test_positions_of_empty_piles_only(function):
    """Only empty piles, or none: a P-position with no move, in every form."""
    moves = function in (fibonacci_nim.global_winning_move, power_nim.winning_move)
    for k in range(0, 5):
        for r in (None, 0, 3):
            assert function([0] * k, r) == (None if moves else True)
            answer = function(np.zeros((2, k), dtype=np.int64), r)
            if moves:
                assert [a.tolist() for a in answer] == [[-1, -1], [-1, -1]]
            else:
                assert answer.tolist() == [True, True]
    assert fibonacci_nim.complementary_value([]) == 0
    assert fibonacci_nim.complementary_value([0, 0, 0]) == 0
    assert solvers.global_outcome([0, 0]) == "P" and solvers.global_outcome([]) == "P"


def _spread(row: list[int], zeros: list[int]) -> tuple[list[int], list[int]]:
    """row with an empty pile inserted before position p of it for each p in
    zeros, and where each pile of row went."""
    spread, index = [], []
    for i in range(len(row) + 1):
        spread.extend([0] * zeros.count(i))
        if i < len(row):
            index.append(len(spread))
            spread.append(row[i])
    return spread, index


@given(
    row=st.lists(st.integers(1, 9), min_size=0, max_size=3),
    spots=st.lists(st.integers(0, 3), min_size=1, max_size=70),
    r=st.one_of(st.none(), st.integers(0, 12)),
)
def test_empty_piles_change_nothing_but_the_pile_index(row, spots, r):
    zeros = [min(s, len(row)) for s in spots]
    spread, index = _spread(row, zeros)
    for function, _ in OUTCOMES:
        assert function(spread, r) == function(row, r)
        many = function(np.array([spread, spread]), r)
        assert many.tolist() == [function(row, r)] * 2
    for function, _, _ in MOVES:
        plain = function(row, r)
        expected = None if plain is None else (index[plain[0]], plain[1])
        assert function(spread, r) == expected, function.__name__
        pile, take = function(np.array([spread]), r)
        assert (int(pile[0]), int(take[0])) == (expected or (-1, -1)), function.__name__
    if len(spread) <= 70:
        value = fibonacci_nim.complementary_value(row, limit=30)
        assert fibonacci_nim.complementary_value(spread, limit=30) == value
    for game in ("global-fibonacci-nim", "power-nim"):
        if not row:
            continue
        plain = classify(np.array([row]), game, r)[0]
        wide = classify(np.array([spread]), game, r)[0]
        assert wide[0] == plain[0]
        expected = np.array(spread)
        if plain[0] == 1:
            expected[:] = -1
        else:
            expected[index] = plain[1:]
        assert wide[1:].tolist() == expected.tolist(), game
