"""Pictures of the games and of the Fibonacci number system, drawn with matplotlib.

Each function draws on `ax` (a new figure's axes when None) and returns the
matplotlib Axes, so that it can be restyled, combined or saved. What is drawn
comes from fibnim's own functions: the P-positions plotted are those that
fibnim computes. matplotlib is an optional dependency (``pip install
"fibnim[plot]"``), imported only when one of these functions is called.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from fibnim import plot
>>> ax = plot.wythoff_board(12, moves=True)
>>> ax.get_title()
"Wythoff's Nim: P-positions and winning moves"
>>> ax.figure.savefig("board.png")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from fibnim import fibonacci_nim, solvers, wythoff, zeckendorf
from fibnim._checks import flag
from fibnim._exact import zeckendorf as exact

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "classify_summary",
    "fibonacci_nim_positions",
    "grundy_map",
    "wythoff_board",
    "wythoff_position",
    "zeckendorf_digits",
]

P_COLOR = "#c0392b"
MOVE_COLOR = "#2c3e50"

#: the largest board or range these pictures draw: beyond it nothing is readable
LIMIT = 2000


def _axes(ax: Axes | None) -> Axes:
    """ax, or the axes of a new figure; an ImportError that says what to install
    when matplotlib is missing."""
    if ax is not None:
        return ax
    new: Axes = pyplot().subplots(figsize=(6, 6), layout="constrained")[1]
    return new


def pyplot() -> Any:
    """matplotlib.pyplot, or an ImportError that says what to install."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            'fibnim.plot needs matplotlib: pip install "fibnim[plot]" (or matplotlib)'
        ) from None
    return plt


def _size(n: Any, where: str, least: int = 1) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{where}: n must be an int, not {type(n).__name__}")
    if not least <= n <= LIMIT:
        raise ValueError(f"{where}: n = {n} must be from {least} to {LIMIT}")
    return int(n)


def _grid(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The cells (x, y) of an n x n board, as two flat arrays."""
    x, y = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    return x.ravel(), y.ravel()


def _whole_ticks(ax: Axes) -> None:
    """Ticks on whole numbers only: piles and cells have no 12.5."""
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def _board(ax: Axes, n: int, xlabel: str, ylabel: str) -> None:
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(-0.5, n - 0.5)
    ax.set_aspect("equal")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, color="#dddddd", linewidth=0.5)
    ax.set_axisbelow(True)
    _whole_ticks(ax)


def wythoff_board(
    n: int, *, moves: bool = False, misere: bool = False, ax: Axes | None = None
) -> Axes:
    """The P-positions of Wythoff's Nim on the n x n board, cell (x, y) for piles x and y.

    The P-positions (safe pairs) are red squares: (0, 0), then (a_k, b_k) and
    (b_k, a_k) with a_k = floor(k phi) and b_k = a_k + k. With ``moves=True``
    every other cell gets an arrow in the direction of fibnim's winning move:
    west (take from x), south (take from y) or south-west (take from both). Each
    row, column and diagonal holds exactly one P-position, so the direction says
    where the move goes.

    Parameters
    ----------
    n : int
        The board's side, 1 to 2000 (moves are readable up to about 20).
    moves : bool
        Draw the winning move of each N-position as an arrow.
    misere : bool
        Misere play (the player who takes the last counter loses).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The P-positions are its first collection (labelled ``"P-positions"``),
        the moves its second, a quiver.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fibnim.plot import wythoff_board
    >>> ax = wythoff_board(6)
    >>> sorted(map(tuple, ax.collections[0].get_offsets().astype(int).tolist()))
    [(0, 0), (1, 2), (2, 1), (3, 5), (5, 3)]
    """
    n = _size(n, "wythoff_board")
    moves = flag(moves, "wythoff_board", "moves")
    ax = _axes(ax)
    x, y = _grid(n)
    safe = wythoff.is_safe(x, y, misere=misere)
    size = max(8.0, (120 / n) ** 2)
    ax.scatter(x[safe], y[safe], s=size, marker="s", color=P_COLOR, label="P-positions", zorder=3)
    if moves:
        # each row, column and diagonal holds one P-position: the direction of the
        # move (west, south or south-west) says where it goes, and arrows of one
        # length stay readable where the moves themselves would overlap
        tx, ty = wythoff.winning_move(x[~safe], y[~safe], misere=misere)
        has = tx >= 0  # misere (0, 0): an N-position with no move
        fx, fy, tx, ty = x[~safe][has], y[~safe][has], tx[has], ty[has]
        u, v = np.sign(tx - fx), np.sign(ty - fy)
        length = 0.7 / np.hypot(u, v)
        ax.quiver(
            fx,
            fy,
            u * length,
            v * length,
            angles="xy",
            scale_units="xy",
            scale=1,
            width=0.004,
            color=MOVE_COLOR,
            label="winning moves (direction)",
            zorder=2,
        )
    title = "Wythoff's Nim: P-positions" + (" and winning moves" if moves else "")
    ax.set_title(title + (" (misere play)" if misere else ""))
    _board(ax, n, "pile x", "pile y")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncols=3, frameon=False)
    return ax


def _partners(low: int, high: int, ylow: int, yhigh: int) -> list[tuple[int, int]]:
    """The safe pairs (x, y) with low <= x <= high and ylow <= y <= yhigh."""
    xs = np.array(range(max(low, 1), high + 1), dtype=object)
    pairs = [(0, 0)] if low == 0 and ylow == 0 else []
    if xs.size:
        partners = wythoff.partner(xs)
        pairs += [
            (int(x), int(p)) for x, p in zip(xs, partners, strict=True) if ylow <= p <= yhigh
        ]
    return pairs


def wythoff_position(x: int, y: int, *, misere: bool = False, ax: Axes | None = None) -> Axes:
    """One position of Wythoff's Nim, the safe pairs near it, and its winning move.

    The view holds the position and the target of its winning move with a margin;
    for piles far apart only the safe pairs within 1000 of each are drawn.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fibnim.plot import wythoff_position
    >>> ax = wythoff_position(9, 20)
    >>> ax.get_title()
    '(9, 20) is an N-position: the winning move goes to (9, 15)'
    """
    for name, value in (("x", x), ("y", y)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"wythoff_position: {name} must be an int")
        if value < 0:
            raise ValueError(f"wythoff_position: {name} = {value} is negative")
    x, y = int(x), int(y)
    ax = _axes(ax)
    move = wythoff.winning_move(x, y, misere=misere)
    corners = [(x, y)] + ([move] if move else [])
    margin = max(3, max(max(c) for c in corners) // 10)
    xlow = max(0, min(c[0] for c in corners) - margin)
    xhigh = max(c[0] for c in corners) + margin
    ylow = max(0, min(c[1] for c in corners) - margin)
    yhigh = max(c[1] for c in corners) + margin
    pairs: set[tuple[int, int]] = set()
    near = {x, move[0]} if move else {x}
    if xhigh - xlow <= LIMIT:
        pairs.update(_partners(xlow, xhigh, ylow, yhigh))
    else:
        for centre in near:
            pairs.update(_partners(max(xlow, centre - 1000), centre + 1000, ylow, yhigh))
    if misere:
        pairs = {p for p in pairs if wythoff.is_safe(*p, misere=True)}
        pairs.update(
            p for p in [(0, 1), (1, 0), (2, 2)] if xlow <= p[0] <= xhigh and ylow <= p[1] <= yhigh
        )
    if pairs:
        px, py = zip(*sorted(pairs), strict=True)
        ax.scatter(px, py, s=60, marker="s", color=P_COLOR, label="P-positions")
    ax.scatter([x], [y], s=120, marker="o", color=MOVE_COLOR, label="the position", zorder=3)
    if move:
        ax.annotate(
            "",
            xy=move,
            xytext=(x, y),
            arrowprops={"arrowstyle": "->", "color": MOVE_COLOR, "linewidth": 2},
        )
        ax.set_title(f"({x}, {y}) is an N-position: the winning move goes to {move}")
    else:
        ax.set_title(f"({x}, {y}) is a P-position: every move leads to an N-position")
    ax.set_xlim(xlow - 0.5, xhigh + 0.5)
    ax.set_ylim(ylow - 0.5, yhigh + 0.5)
    ax.set_xlabel("pile x")
    ax.set_ylabel("pile y")
    ax.grid(True, color="#dddddd", linewidth=0.5)
    _whole_ticks(ax)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncols=3, frameon=False)
    return ax


def zeckendorf_digits(n: int, *, ax: Axes | None = None) -> Axes:
    """The Zeckendorf representations of 0 .. n as a picture: one row per number,
    one column per Fibonacci number, dark where it is a term.

    No two dark cells touch in a row (no two consecutive Fibonacci numbers), and
    the rows count upwards like binary numbers with that rule.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fibnim.plot import zeckendorf_digits
    >>> ax = zeckendorf_digits(12)
    >>> ax.images[0].get_array()[12].tolist()   # 12 = 8 + 3 + 1
    [1, 0, 1, 0, 1]
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['8', '5', '3', '2', '1']
    """
    n = _size(n, "zeckendorf_digits", least=0)
    ax = _axes(ax)
    rows = zeckendorf.digits(np.arange(n + 1))
    width = rows.shape[1]
    ax.imshow(rows, cmap="Greys", vmin=0, vmax=1, aspect="auto", interpolation="nearest")
    ax.set_xticks(range(width), [str(exact.fib(width + 1 - j)) for j in range(width)])
    ax.set_xlabel("Fibonacci number (F_k)")
    ax.set_ylabel("n")
    ax.set_title(f"Zeckendorf representations of 0 .. {n}")
    return ax


def fibonacci_nim_positions(bound: int, r: int | None = None, *, ax: Axes | None = None) -> Axes:
    """The P-positions (m, n) of two-pile global Fibonacci Nim with both piles
    up to `bound`, when at most `r` counters may be taken next (None: any
    number, as at the start).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fibnim.plot import fibonacci_nim_positions
    >>> ax = fibonacci_nim_positions(6, r=2)
    >>> sorted(map(tuple, ax.collections[0].get_offsets().astype(int).tolist()))[:6]
    [(0, 0), (0, 3), (0, 5), (1, 1), (1, 4), (1, 6)]
    """
    bound = _size(bound, "fibonacci_nim_positions", least=0)
    if r is not None and (isinstance(r, bool) or not isinstance(r, (int, np.integer)) or r < 1):
        raise ValueError(f"fibonacci_nim_positions: r = {r!r} must be None or an int >= 1")
    ax = _axes(ax)
    x, y = _grid(bound + 1)
    p = fibonacci_nim.global_is_p(np.stack([x, y], axis=1), r=r)
    size = max(8.0, (300 / (bound + 1)) ** 2)
    ax.scatter(x[p], y[p], s=size, marker="s", color=P_COLOR, label="P-positions")
    bound_text = "no bound on the next take" if r is None else f"next take at most {r}"
    ax.set_title(f"Global Fibonacci Nim, two piles: P-positions\n({bound_text})")
    _board(ax, bound + 1, "pile m", "pile n")
    return ax


def grundy_map(piece: str, n: int, *, ax: Axes | None = None) -> Axes:
    """The Grundy values of a cornering game (a chess piece moving west, south or
    south-west) on the n x n board, as a heat map; 0 marks the P-positions.

    `piece` is one of fibnim.solvers.PIECES or a union such as ``"rook+knight"``;
    the queen's game is Wythoff's Nim.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fibnim.plot import grundy_map
    >>> ax = grundy_map("king", 4)
    >>> ax.images[0].get_array().T.tolist()   # row y, column x
    [[0, 1, 0, 1], [1, 2, 3, 2], [0, 3, 0, 1], [1, 2, 1, 2]]
    """
    n = _size(n, "grundy_map")
    values = solvers.grundy(piece, n)
    ax = _axes(ax)
    from matplotlib.ticker import MaxNLocator

    image = ax.imshow(values.T, origin="lower", cmap="viridis", interpolation="nearest")
    ticks = MaxNLocator(integer=True)
    ax.figure.colorbar(image, ax=ax, label="Grundy value", shrink=0.8, ticks=ticks)
    ax.set_title(f"Grundy values of the {piece}'s cornering game")
    ax.set_xlabel("x (west to east)")
    ax.set_ylabel("y (south to north)")
    _whole_ticks(ax)
    return ax


def classify_summary(
    rows: Sequence[int],
    p_positions: Sequence[int],
    seconds: Sequence[float],
    *,
    title: str = "",
    axes: Sequence[Axes] | None = None,
) -> list[Axes]:
    """A run of ``fibnim classify`` chunk by chunk: the share of P-positions in
    each chunk, and the positions classified per second.

    `rows`, `p_positions` and `seconds` (the time its classification took)
    hold one value per chunk, in order; `axes`, two Axes to draw on (a new
    figure's when None). Returns the two Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fibnim.plot import classify_summary
    >>> share, rate = classify_summary([100, 100, 50], [40, 38, 21], [0.01, 0.01, 0.005])
    >>> share.lines[0].get_ydata().tolist()
    [40.0, 38.0, 42.0]
    >>> rate.lines[0].get_ydata().tolist()
    [10000.0, 10000.0, 10000.0]
    """
    rows_, p_, seconds_ = (np.asarray(v, dtype=float) for v in (rows, p_positions, seconds))
    if not rows_.shape == p_.shape == seconds_.shape or rows_.ndim != 1:
        raise ValueError("classify_summary: rows, p_positions and seconds need one value a chunk")
    if axes is None:
        _, pair = pyplot().subplots(2, 1, figsize=(7, 6), sharex=True, layout="constrained")
        axes = list(pair)
    share, rate = axes
    chunk = np.arange(1, rows_.size + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        share.plot(chunk, np.where(rows_ > 0, 100 * p_ / rows_, np.nan), marker=".", color=P_COLOR)
        rate.plot(
            chunk, np.where(seconds_ > 0, rows_ / seconds_, np.nan), marker=".", color=MOVE_COLOR
        )
    total = rows_.sum()
    if total:
        share.axhline(100 * p_.sum() / total, color="#888888", linestyle="--", label="whole run")
        share.legend(loc="best", frameon=False)
    share.set_ylabel("P-positions (%)")
    share.set_ylim(bottom=0)
    share.set_title(title or "classify, chunk by chunk")
    rate.set_ylabel("positions per second\n(classification alone, one thread)")
    rate.set_ylim(bottom=0)
    rate.set_xlabel("chunk")
    from matplotlib.ticker import MaxNLocator

    rate.xaxis.set_major_locator(MaxNLocator(integer=True))
    return [share, rate]
