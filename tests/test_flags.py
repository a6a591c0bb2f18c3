"""Flags such as misere= take a bool (numpy's included) and nothing else: a
string, a number or None is a TypeError naming the flag, never a game chosen by
Python's truth ("False" is a non-empty string, so it was misere play)."""

from __future__ import annotations

import numpy as np
import pytest

from fibnim import plot, solvers, wythoff

CALLS = {
    "is_safe": lambda v: wythoff.is_safe(0, 1, misere=v),
    "is_safe, arrays": lambda v: wythoff.is_safe([0, 1], [1, 2], misere=v),
    "is_safe, out=": lambda v: wythoff.is_safe([0], [1], misere=v, out=np.empty(1, bool)),
    "winning_move": lambda v: wythoff.winning_move(2, 3, misere=v),
    "winning_move, arrays": lambda v: wythoff.winning_move([2], [3], misere=v),
    "winning_moves": lambda v: wythoff.winning_moves(2, 3, misere=v),
    "board": lambda v: solvers.board("queen", 4, misere=v),
    "global_outcome": lambda v: solvers.global_outcome([3], 1, power=v),
}


@pytest.mark.parametrize("value", ["yes", "False", "", 1, 0, None, 1.0, [True]])
@pytest.mark.parametrize("call", CALLS)
def test_a_flag_that_is_not_a_bool_is_refused(call, value):
    name = "power" if call == "global_outcome" else "misere"
    with pytest.raises(TypeError, match=f"{name} must be True or False, not "):
        CALLS[call](value)


@pytest.mark.parametrize("call", CALLS)
def test_numpy_bools_are_bools(call):
    for true, false in [(True, False), (np.True_, np.False_)]:
        on, off = CALLS[call](true), CALLS[call](false)
        assert np.array_equal(np.asarray(on, dtype=object), np.asarray(CALLS[call](True), object))
        assert np.array_equal(
            np.asarray(off, dtype=object), np.asarray(CALLS[call](False), object)
        )
    # and the two settings of the flag differ on each call's position
    assert not np.array_equal(
        np.asarray(CALLS[call](True), dtype=object), np.asarray(CALLS[call](False), dtype=object)
    )


def test_the_board_picture_takes_a_bool_for_its_moves():
    pytest.importorskip("matplotlib")
    with pytest.raises(TypeError, match="moves must be True or False, not 'no'"):
        plot.wythoff_board(4, moves="no")
