"""Rows of positions from an input, a chunk at a time: what every format's
reader gives (`Source`), the names of its columns, --columns, and the check
that names a bad row by its file, row and column."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
from numpy.typing import NDArray

from fibnim._errors import DataError, UsageError

INT64_MAX = 2**63 - 1


_INTEGER = re.compile(r"[ \t]*[+-]?[0-9]+[ \t]*")  # as text.parse_integers reads them


def is_integer(text: str) -> bool:
    """Whether text is a decimal integer, spaces and tabs around it allowed."""
    return _INTEGER.fullmatch(text) is not None


def repeated(names: Sequence[str]) -> str | None:
    """The first name that names two columns (None: each names one)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


@dataclass
class Records:
    """Rows as their text in the input, to pass through as they are: row i of
    a piece (data, starts, ends) is data[starts[i]:ends[i]]."""

    pieces: list[tuple[bytes, NDArray[np.int64], NDArray[np.int64]]]
    rows: int

    @staticmethod
    def joined(parts: Sequence[Records]) -> Records:
        return Records([p for part in parts for p in part.pieces], sum(p.rows for p in parts))


# The input's columns as the output repeats them, where --columns chose some of
# them as piles: one array per column (numpy or Arrow), in the input's order.
Kept = list[Any] | Records | None


Chunk = tuple[int, NDArray[np.int64], Kept]


class Source:
    """Rows of positions: `columns` (the input's column names), `pick` (where
    --columns chose the piles among them; None: every column is a pile), `rows`
    (None if unknown until read), and `chunks(size)` giving, in order, (first
    row, the piles as an int64 array (m, k), the input's columns as they are
    (`Kept`; None without `pick`))."""

    name: str
    columns: Sequence[str]
    rows: int | None = None
    pick: list[int] | None = None
    named = True  # whether the columns have names of the input's own (a header)

    @property
    def piles(self) -> Sequence[str]:
        """The names of the pile columns."""
        return self.columns if self.pick is None else [self.columns[j] for j in self.pick]

    def choose(self, spec: str) -> None:
        """--columns spec: the pile columns, by name or by 0-based index."""
        self.pick = pile_columns(self.columns, spec, self.name, self.named)

    def check(self) -> None:
        """Refuse, once the piles are chosen, what cannot be piles (before any row is read)."""

    def watch(self, wait: Callable[[Any], None]) -> None:
        """`wait(file)` runs before each read of file that may wait (on a pipe,
        stdin): it returns once there are bytes, and raises a signal that came."""

    def chunks(self, size: int) -> Iterator[Chunk]:
        raise NotImplementedError

    def close(self) -> None:
        """Close the file, if the source holds one open."""


class PileNames(Sequence[str]):
    """pile_1 .. pile_k, the columns of an input without names of its own,
    each made when it is asked for: a width read from a file's header (a
    .npy of shape (0, 20000000), say) costs a number, not k strings."""

    def __init__(self, k: int) -> None:
        self.k = k

    def __len__(self) -> int:
        return self.k

    @overload
    def __getitem__(self, j: int) -> str: ...
    @overload
    def __getitem__(self, j: slice) -> list[str]: ...
    def __getitem__(self, j: int | slice) -> str | list[str]:
        if isinstance(j, slice):
            return [f"pile_{i + 1}" for i in range(*j.indices(self.k))]
        if not -self.k <= j < self.k:
            raise IndexError(j)
        return f"pile_{j % self.k + 1}"

    def index(self, name: Any, start: int = 0, stop: int | None = None) -> int:
        match = re.fullmatch(r"pile_([1-9][0-9]*)", name) if isinstance(name, str) else None
        j = int(match[1]) - 1 if match else -1
        if not max(start, 0) <= j < min(self.k, self.k if stop is None else stop):
            raise ValueError(f"{name!r} is not a column")
        return j

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PileNames):
            return self.k == other.k
        return isinstance(other, (list, tuple)) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PileNames({self.k})"

    def __contains__(self, name: object) -> bool:
        try:
            self.index(name)
        except ValueError:
            return False
        return True


def pile_columns(
    names: Sequence[str], spec: str, where: str, named: bool = True, option: str = "--columns"
) -> list[int]:
    """Where the piles are among an input's columns, from --columns: a
    comma-separated list of column names, or of 0-based column indices (the only
    choice where the columns have no names of their own: a .npy, a CSV without
    a header), or '*' for every column. UsageError, listing the columns, for
    one that is not there (its message begins with `option`, the one that
    named it)."""
    if spec.strip() == "*":  # every column, said outright
        return list(range(len(names)))
    items = [item.strip() for item in spec.split(",")]
    listing = f"its columns: {', '.join(names)}" if named else f"it has {len(names)} columns"
    if not all(items):
        raise UsageError(f"{option} {spec!r}: an empty column name")
    if all(is_integer(item) for item in items) and not (named and set(items) <= set(names)):
        pick = [int(item) for item in items]
        for j in pick:
            if not 0 <= j < len(names):
                raise UsageError(
                    f"{option}: {where} has no column {j} (counted from 0); {listing}"
                )
    elif not named:
        raise UsageError(
            f"{option} {spec!r}: {where} has no column names; give indices (counted from 0); "
            f"{listing}"
        )
    else:
        # a name as the header has it, or without the spaces around it (the
        # items are stripped: "x, y" names x and y)
        bare = [name if name in items else name.strip() for name in names]
        for item in items:
            if item not in bare:
                raise UsageError(f"{option}: {where} has no column {item!r}; {listing}")
            if bare.count(item) > 1:
                places = ", ".join(str(j) for j, name in enumerate(bare) if name == item)
                raise UsageError(
                    f"{option}: {where} has {bare.count(item)} columns named {item!r} "
                    f"(columns {places}, counted from 0); rename them, or give indices"
                )
        pick = [bare.index(item) for item in items]
    if len(set(pick)) < len(pick):
        raise UsageError(f"{option} {spec!r}: a column is named twice")
    return pick


def checked(
    name: str,
    block: NDArray[Any] | list[NDArray[Any]],
    first: int,
    unit: str,
    where: list[int] | None = None,
    names: Sequence[str] | None = None,
) -> NDArray[np.int64]:
    """block (an integer array (m, k), or its k columns, each of its own integer
    type) as int64, exactly, refusing negative values and values above int64
    with their true value, row and column (both counted from 0, the row from the
    first data row; `where`: the input's column of each, 0-based, whose name
    from `names` is given too). Columns are
    never stacked before the check: numpy stacks uint64 beside int64 as float64,
    which rounds above 2**53."""
    columns = list(block.T) if isinstance(block, np.ndarray) else block
    place = [
        f"{j} ({names[j]!r})" if names is not None else str(j)
        for j in (where or range(len(columns)))
    ]
    for column, values in enumerate(columns):
        if values.dtype.kind == "u" and values.size and values.max() > INT64_MAX:
            row = int(np.argmax(values > INT64_MAX))
            raise DataError(
                f"{name}: {unit} {first + row}, column {place[column]}: "
                f"{values[row]} is too large for int64"
            )
    if isinstance(block, np.ndarray):
        block = block.astype(np.int64, copy=False)
    else:
        block = np.empty((len(columns[0]) if columns else 0, len(columns)), dtype=np.int64)
        for column, values in enumerate(columns):
            block[:, column] = values
    if block.size and block.min() < 0:
        row, column = np.argwhere(block < 0)[0]
        raise DataError(
            f"{name}: {unit} {first + row}, column {place[column]}: "
            f"{block[row, column]} is negative"
        )
    return block
