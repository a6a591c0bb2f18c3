"""fibnim.plot draws what fibnim computes: each picture is rendered headless and
what it holds is compared with the exhaustive solvers and the kernels, not with
pixels."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from _support import subprocess_env

from fibnim import solvers, wythoff, zeckendorf

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from fibnim import plot  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def cells(collection) -> set[tuple[int, int]]:
    return {(int(x), int(y)) for x, y in np.asarray(collection.get_offsets())}


def p_positions(table: np.ndarray) -> set[tuple[int, int]]:
    return {(int(x), int(y)) for x, y in zip(*table.nonzero(), strict=True)}


@pytest.mark.parametrize("misere", [False, True])
def test_wythoff_board_draws_the_solvers_p_positions_and_each_winning_direction(misere):
    n = 21
    ax = plot.wythoff_board(n, moves=True, misere=misere)
    assert cells(ax.collections[0]) == p_positions(solvers.board("queen", n, misere=misere))
    arrows = ax.collections[1]
    starts = np.column_stack([arrows.X, arrows.Y]).astype(int)
    board = solvers.board("queen", n, misere=misere)
    # every N-position but misere's (0, 0), which has no move
    assert len(starts) == n * n - board.sum() - misere
    for (x, y), u, v in zip(starts, arrows.U, arrows.V, strict=True):
        assert not board[x, y]
        tx, ty = wythoff.winning_move(int(x), int(y), misere=misere)
        # the arrow points the way of the move, and the move lands on a P-position
        assert (np.sign(u), np.sign(v)) == (np.sign(tx - x), np.sign(ty - y))
        assert board[tx, ty]
    ax.figure.canvas.draw()


def test_wythoff_position_marks_the_move_and_the_safe_pairs_near_it():
    ax = plot.wythoff_position(24, 32)
    safe = cells(ax.collections[0])
    (xlow, xhigh), (ylow, yhigh) = (
        (round(low + 0.5), round(high - 0.5)) for low, high in (ax.get_xlim(), ax.get_ylim())
    )
    board = solvers.board("queen", max(xhigh, yhigh) + 1)
    expected = {(x, y) for x, y in p_positions(board) if xlow <= x <= xhigh and ylow <= y <= yhigh}
    assert safe == expected and (12, 20) in safe
    (arrow,) = ax.texts
    assert arrow.xy == (12, 20) and arrow.xyann == (24, 32)
    assert "P-position" in plot.wythoff_position(12, 20).get_title()
    # huge piles: the view around them, the pairs near the position
    far = plot.wythoff_position(10**15, 3)
    assert all(wythoff.is_safe(x, y) for x, y in cells(far.collections[0]))
    far.figure.canvas.draw()


def test_zeckendorf_digits_is_the_digit_table():
    ax = plot.zeckendorf_digits(100)
    image = np.asarray(ax.images[0].get_array())
    assert (image == zeckendorf.digits(np.arange(101))).all()
    labels = [int(t.get_text()) for t in ax.get_xticklabels()]
    assert (np.array(labels) * image).sum(axis=1).tolist() == list(range(101))


@pytest.mark.parametrize("r", [None, 1, 3, 8])
def test_fibonacci_nim_positions_are_the_searched_ones(r):
    bound = 14
    ax = plot.fibonacci_nim_positions(bound, r=r)
    expected = {
        (m, n)
        for m in range(bound + 1)
        for n in range(bound + 1)
        if solvers.global_outcome([m, n], r=r) == "P"
    }
    assert cells(ax.collections[0]) == expected


@pytest.mark.parametrize("piece", ["queen", "king", "rook+knight"])
def test_grundy_map_shows_the_grundy_values(piece):
    ax = plot.grundy_map(piece, 12)
    image = np.asarray(ax.images[0].get_array())
    assert (image.T == solvers.grundy(piece, 12)).all()
    assert len(ax.figure.axes) == 2  # the map and its colour bar


def test_each_picture_draws_on_the_axes_it_is_given():
    figure, axes = plt.subplots(2, 2)
    drawn = [
        plot.wythoff_board(5, ax=axes[0, 0]),
        plot.zeckendorf_digits(5, ax=axes[0, 1]),
        plot.fibonacci_nim_positions(5, ax=axes[1, 0]),
        plot.grundy_map("rook", 5, ax=axes[1, 1]),
    ]
    assert drawn == list(axes.ravel())
    figure.canvas.draw()


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="n = 0 must be from 1 to 2000"):
        plot.wythoff_board(0)
    with pytest.raises(TypeError, match="n must be an int, not float"):
        plot.zeckendorf_digits(2.5)
    with pytest.raises(ValueError, match="r = 0 must be None or an int >= 1"):
        plot.fibonacci_nim_positions(5, r=0)
    with pytest.raises(ValueError, match="unknown piece 'pawn'"):
        plot.grundy_map("pawn", 5)
    with pytest.raises(ValueError, match="x = -1 is negative"):
        plot.wythoff_position(-1, 3)


def python_output(code: str) -> str:
    """What code prints in a new interpreter on the test's backend."""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=subprocess_env()
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_without_matplotlib_the_error_says_what_to_install():
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import fibnim.plot\n"
        "try:\n"
        "    fibnim.plot.wythoff_board(5)\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    assert 'pip install "fibnim[plot]"' in python_output(code)


def test_import_fibnim_does_not_import_matplotlib():
    code = "import sys, fibnim, fibnim.plot; print('matplotlib' in sys.modules)"
    assert python_output(code).strip() == "False"


@pytest.mark.parametrize(
    "draw",
    [
        lambda: plot.wythoff_board(20),  # the gallery's board: 12.5 and 17.5 before
        lambda: plot.wythoff_board(7, moves=True),
        lambda: plot.wythoff_position(24, 32),
        lambda: plot.wythoff_position(3, 5),
        lambda: plot.fibonacci_nim_positions(20, r=3),
        lambda: plot.grundy_map("king", 13),
    ],
)
def test_board_axes_have_whole_number_ticks(draw):
    # piles and cells are whole numbers: no tick at 12.5
    ax = draw()
    ax.figure.canvas.draw()
    for ticks in (ax.get_xticks(), ax.get_yticks()):
        assert len(ticks) >= 2 and np.array_equal(ticks, np.round(ticks))
