"""The elementwise functions as a type checker reads them.

At run time each is an Elementwise (fibnim._ufunc): a numpy ufunc behind a
thin front. A checker reads it as one of the Protocols below, chosen by its
inputs and answers: its calls by the kind of input (Python ints, numpy
arrays, pandas and xarray objects, anything array-like), with out=, where=
and dtype=, and the attributes numpy's ufuncs have (nin, nout, types, ufunc,
and outer where there are two inputs). The inputs of a function of one input
are positional, as a ufunc's are. pandas and xarray are named only here, for
the checker: neither is imported at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict, TypeVar, overload

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from fibnim._apply import Int

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr
    from typing_extensions import Unpack

__all__ = ["Binary", "Taking", "Unary", "UnaryPair", "WinningMove"]

S = TypeVar("S", covariant=True)  # the answer for Python ints: int, bool, ...
D = TypeVar("D", bound=np.generic, covariant=True)  # the answer's dtype for arrays
G = TypeVar("G", bound=np.generic)  # a dtype='s or an out='s
G2 = TypeVar("G2", bound=np.generic)  # the second out='s
#: a labelled input gives the same kind of object, on its labels
L = TypeVar("L", "pd.Series[Any]", "pd.DataFrame", "xr.DataArray")

Pair = tuple[NDArray[np.int64], NDArray[np.int64]]


class NumpyKeywords(TypedDict, total=False):
    """The keywords of numpy's ufuncs that the elementwise functions take too."""

    casting: Literal["no", "equiv", "safe", "same_kind", "unsafe"]
    order: Literal["K", "A", "C", "F"]
    subok: bool


class Ufunclike(Protocol):
    """What numpy's ufuncs have and every elementwise function has too."""

    __name__: str

    @property
    def nin(self) -> int: ...
    @property
    def nout(self) -> int: ...
    @property
    def types(self) -> list[str]:
        """The compiled ufunc's loops (numpy's type codes); [] on the pure twin."""

    @property
    def ufunc(self) -> np.ufunc | None:
        """The compiled numpy ufunc; None on the pure twin."""


class Unary(Ufunclike, Protocol[S, D]):
    """One input, one answer: S for a Python int, an array of D for arrays."""

    @overload
    def __call__(self, x: Int, /, *, out: None = ..., dtype: None = ...) -> S: ...
    @overload
    def __call__(
        self, x: Int, /, *, out: None = ..., dtype: type[G], **numpy: Unpack[NumpyKeywords]
    ) -> G: ...
    @overload
    def __call__(self, x: L, /, *, dtype: DTypeLike = ...) -> L: ...
    @overload
    def __call__(
        self,
        x: ArrayLike,
        /,
        *,
        out: NDArray[G] | tuple[NDArray[G]],
        where: ArrayLike = ...,
        dtype: DTypeLike = ...,
        **numpy: Unpack[NumpyKeywords],
    ) -> NDArray[G]: ...
    @overload
    def __call__(
        self,
        x: ArrayLike,
        /,
        *,
        out: None = ...,
        where: ArrayLike = ...,
        dtype: type[G],
        **numpy: Unpack[NumpyKeywords],
    ) -> NDArray[G]: ...
    @overload
    def __call__(
        self,
        x: ArrayLike,
        /,
        *,
        out: None = ...,
        where: ArrayLike = ...,
        dtype: None = ...,
        **numpy: Unpack[NumpyKeywords],
    ) -> NDArray[D]: ...


class UnaryPair(Ufunclike, Protocol):
    """One input, two int64 answers (wythoff.pair, wythoff.array_position)."""

    @overload
    def __call__(self, x: Int, /, *, out: None = ..., dtype: None = ...) -> tuple[int, int]: ...
    @overload
    def __call__(self, x: L, /, *, dtype: DTypeLike = ...) -> tuple[L, L]: ...
    @overload
    def __call__(
        self,
        x: ArrayLike,
        /,
        *,
        out: tuple[NDArray[G], NDArray[G2]],
        where: ArrayLike = ...,
        dtype: DTypeLike = ...,
        **numpy: Unpack[NumpyKeywords],
    ) -> tuple[NDArray[G], NDArray[G2]]: ...
    @overload
    def __call__(
        self,
        x: ArrayLike,
        /,
        *,
        out: None = ...,
        where: ArrayLike = ...,
        dtype: type[G],
        **numpy: Unpack[NumpyKeywords],
    ) -> tuple[NDArray[G], NDArray[G]]: ...
    @overload
    def __call__(
        self,
        x: ArrayLike,
        /,
        *,
        out: None = ...,
        where: ArrayLike = ...,
        dtype: None = ...,
        **numpy: Unpack[NumpyKeywords],
    ) -> Pair: ...


class Binary(Ufunclike, Protocol[S, D]):
    """Two piles x and y, misere= or not, one answer (wythoff.is_safe)."""

    @overload
    def __call__(
        self, x: Int, y: Int, *, misere: bool = ..., out: None = ..., dtype: None = ...
    ) -> S: ...
    @overload
    def __call__(
        self,
        x: Int,
        y: Int,
        *,
        misere: bool = ...,
        out: None = ...,
        dtype: type[G],
        **numpy: Unpack[NumpyKeywords],
    ) -> G: ...
    @overload
    def __call__(
        self, x: L, y: L | ArrayLike, *, misere: bool = ..., dtype: DTypeLike = ...
    ) -> L: ...
    @overload
    def __call__(self, x: ArrayLike, y: L, *, misere: bool = ..., dtype: DTypeLike = ...) -> L: ...
    @overload
    def __call__(
        self,
        x: ArrayLike,
        y: ArrayLike,
        *,
        misere: bool = ...,
        out: NDArray[G] | tuple[NDArray[G]],
        where: ArrayLike = ...,
        dtype: DTypeLike = ...,
        **numpy: Unpack[NumpyKeywords],
    ) -> NDArray[G]: ...
    @overload
    def __call__(
        self,
        x: ArrayLike,
        y: ArrayLike,
        *,
        misere: bool = ...,
        out: None = ...,
        where: ArrayLike = ...,
        dtype: type[G],
        **numpy: Unpack[NumpyKeywords],
    ) -> NDArray[G]: ...
    @overload
    def __call__(
        self,
        x: ArrayLike,
        y: ArrayLike,
        *,
        misere: bool = ...,
        out: None = ...,
        where: ArrayLike = ...,
        dtype: None = ...,
        **numpy: Unpack[NumpyKeywords],
    ) -> NDArray[D]: ...
    def outer(self, a: ArrayLike, b: ArrayLike, /, *, misere: bool = ...) -> NDArray[D]:
        """The answer for every pair (a[i...], b[j...]), of shape a.shape + b.shape."""


class WinningMove(Ufunclike, Protocol):
    """Two piles x and y, misere= or not, two int64 answers: the target (x', y')."""

    @overload
    def __call__(
        self, x: Int, y: Int, *, misere: bool = ..., out: None = ..., dtype: None = ...
    ) -> tuple[int, int] | None: ...
    @overload
    def __call__(
        self, x: L, y: L | ArrayLike, *, misere: bool = ..., dtype: DTypeLike = ...
    ) -> tuple[L, L]: ...
    @overload
    def __call__(
        self, x: ArrayLike, y: L, *, misere: bool = ..., dtype: DTypeLike = ...
    ) -> tuple[L, L]: ...
    @overload
    def __call__(
        self,
        x: ArrayLike,
        y: ArrayLike,
        *,
        misere: bool = ...,
        out: tuple[NDArray[G], NDArray[G2]],
        where: ArrayLike = ...,
        dtype: DTypeLike = ...,
        **numpy: Unpack[NumpyKeywords],
    ) -> tuple[NDArray[G], NDArray[G2]]: ...
    @overload
    def __call__(
        self,
        x: ArrayLike,
        y: ArrayLike,
        *,
        misere: bool = ...,
        out: None = ...,
        where: ArrayLike = ...,
        dtype: type[G],
        **numpy: Unpack[NumpyKeywords],
    ) -> tuple[NDArray[G], NDArray[G]]: ...
    @overload
    def __call__(
        self,
        x: ArrayLike,
        y: ArrayLike,
        *,
        misere: bool = ...,
        out: None = ...,
        where: ArrayLike = ...,
        dtype: None = ...,
        **numpy: Unpack[NumpyKeywords],
    ) -> Pair: ...
    def outer(self, a: ArrayLike, b: ArrayLike, /, *, misere: bool = ...) -> Pair:
        """The answers for every pair (a[i...], b[j...]), of shape a.shape + b.shape."""


class Taking(Ufunclike, Protocol[S, D]):
    """A pile n and the most that may be taken, r (None: the opening bound n - 1)."""

    @overload
    def __call__(
        self, n: Int, r: Int | None = ..., *, out: None = ..., dtype: None = ...
    ) -> S: ...
    @overload
    def __call__(
        self,
        n: Int,
        r: Int | None = ...,
        *,
        out: None = ...,
        dtype: type[G],
        **numpy: Unpack[NumpyKeywords],
    ) -> G: ...
    @overload
    def __call__(self, n: L, r: L | ArrayLike | None = ..., *, dtype: DTypeLike = ...) -> L: ...
    @overload
    def __call__(self, n: ArrayLike, r: L, *, dtype: DTypeLike = ...) -> L: ...
    @overload
    def __call__(
        self,
        n: ArrayLike,
        r: ArrayLike | None = ...,
        *,
        out: NDArray[G] | tuple[NDArray[G]],
        where: ArrayLike = ...,
        dtype: DTypeLike = ...,
        **numpy: Unpack[NumpyKeywords],
    ) -> NDArray[G]: ...
    @overload
    def __call__(
        self,
        n: ArrayLike,
        r: ArrayLike | None = ...,
        *,
        out: None = ...,
        where: ArrayLike = ...,
        dtype: type[G],
        **numpy: Unpack[NumpyKeywords],
    ) -> NDArray[G]: ...
    @overload
    def __call__(
        self,
        n: ArrayLike,
        r: ArrayLike | None = ...,
        *,
        out: None = ...,
        where: ArrayLike = ...,
        dtype: None = ...,
        **numpy: Unpack[NumpyKeywords],
    ) -> NDArray[D]: ...
    def outer(self, a: ArrayLike, b: ArrayLike, /) -> NDArray[D]:
        """The answer for every pair (a[i...], b[j...]), of shape a.shape + b.shape."""
