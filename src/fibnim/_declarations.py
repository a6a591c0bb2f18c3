"""The elementwise array functions of the public API, each declared once.

A `Declaration` holds every fact of one function: its inputs, its outputs'
dtypes, the bounds integer arrays are held to, the exact Python-int function
it answers with, and where its benchmark's inputs come from. From it come:

- the public function (fibnim._ufunc.declared): an Elementwise, whose numpy
  ufunc (one per setting of its options) runs the compiled kernel's loop
  (fibnim_c/ufuncs.pxi) on the compiled core;
- its general path (`Declaration.answer`: Python ints, object arrays, and
  every call on the pure twin), which runs fibnim._core's
  ``<topic>_<function>`` (fibnim_c/<topic>.pxi) or its twin chunk by chunk,
  called as ``kernel(*inputs, *outputs, *options, limit) -> first bad index
  or -1``;
- its pure twin (`twin`), the same call answered by the exact function;
- its benchmark case (fibnim.bench.suite) and its differential test
  (tests/test_declarations.py).

Adding an elementwise kernel is then: the compiled kernel, the exact function
in fibnim._exact, one declaration here, the public function in its module
(its signature, overloads and docstring under fibnim._ufunc's `@declared`),
its tests and docs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from fibnim import _backend
from fibnim._apply import INT64_MAX, apply, outs_of
from fibnim._checks import DIGITS_LIMIT, Bound, Test, flag
from fibnim._exact import fibonacci_nim as nim
from fibnim._exact import wythoff
from fibnim._exact import zeckendorf as zeck

Tests = tuple[tuple[Test, Bound], ...]

#: F_66 = 27777890035288: every n below it has a 64-bit code (F_2 .. F_65).
CODE_LIMIT = zeck.fib(66)

#: The largest n whose b_n fits int64: b_n <= 2**63 - 1 for n <= PAIR_LIMIT.
PAIR_LIMIT = 3523014627193176565

PILE = Bound(
    INT64_MAX,
    OverflowError,
    "is above 2**63 - 1, the largest value fibnim's integer arrays take "
    "(an object array of Python ints takes any size)",
)


@cache
def exact_number() -> Bound:
    """The bound on exact numbers: their codes have at most DIGITS_LIMIT digits
    (built on first use: F_{DIGITS_LIMIT + 2} has about 364,000 bits)."""
    return Bound(
        zeck.fib(DIGITS_LIMIT + 2) - 1,
        OverflowError,
        f"needs more than DIGITS_LIMIT = {DIGITS_LIMIT} Zeckendorf digits",
    )


EXACT_INDEX = Bound(DIGITS_LIMIT, OverflowError, f"is above DIGITS_LIMIT = {DIGITS_LIMIT}")

ADJACENT: Tests = (
    (
        lambda c: (c & (c >> 1)) != 0,
        Bound(0, ValueError, "has two adjacent set bits, so it is not a Zeckendorf code"),
    ),
)


@dataclass(frozen=True)
class Declaration:
    """One elementwise public function, `topic.function`.

    `exact(*ints, *options)` answers Python ints (None, for a function of
    several outputs, where there is no answer: -1 in each array). Integer
    arrays are held to 0 .. `high` and the `extra` tests (True where a
    value is refused); `result_check` (a test of the first input's value, and
    its bound) refuses values whose answer does not fit the output dtype.
    Scalars and object arrays are held to `exact_high`, which keeps the work
    bounded. When the last input is None, `default_last` makes it from the
    first. `bench`: the inputs of its benchmark case
    (fibnim.bench.suite.INPUTS).
    """

    name: str
    inputs: tuple[str, ...]
    outputs: tuple[DTypeLike, ...]
    exact: Callable[..., Any]
    high: Bound | None = None
    exact_high: Bound | Callable[[], Bound] | None = None
    extra: Tests = ()
    options: tuple[str, ...] = ()
    result_check: tuple[Callable[[int], bool], Bound] | None = None
    default_last: Callable[[Any], Any] | None = None
    bench: str = ""

    @cached_property
    def topic(self) -> str:
        return self.name.split(".")[0]

    @cached_property
    def function(self) -> str:
        return self.name.split(".")[1]

    @property
    def public(self) -> Callable[..., Any]:
        """The public function, fibnim.<topic>.<function>."""
        return getattr(importlib.import_module(f"fibnim.{self.topic}"), self.function)  # type: ignore[no-any-return]

    def answer(
        self,
        *values: Any,
        out: Any = None,
        where: Any = True,
        check_only: bool = False,
        **options: Any,
    ) -> Any:
        """The general path's answer for `values` (one per input): scalars, object
        arrays, integer arrays chunk by chunk; `where` as numpy's ufuncs take it.
        `check_only`: the checks of integer arrays alone, which raise the error
        of the first value refused (see fibnim._apply.apply)."""
        kernels = _backend.active().modules[self.topic]
        settings = tuple(flag(options[name], self.function, name) for name in self.options)
        kernel = getattr(kernels, self.function)
        arguments = list(zip(values, self.inputs, strict=True))
        exact = self.exact
        if self.default_last is not None and values[-1] is None:
            arguments.pop()
            kernel, exact = self._last_from_first(kernel), self._exact_from_first
        high = self.exact_high() if callable(self.exact_high) else self.exact_high
        return apply(
            self.function,
            arguments,
            lambda *ints: exact(*ints, *settings),
            kernel,
            self.outputs,
            high=self.high,
            extra=self.extra,
            options=settings,
            result_check=self.result_check,
            outs=outs_of(out, len(self.outputs), self.function),
            element=self._element(exact, settings),
            exact_high=high,
            mask=where,
            check_only=check_only,
        )

    def _element(
        self, exact: Callable[..., Any], settings: tuple[bool, ...]
    ) -> Callable[..., Any]:
        """exact, for one element of object arrays: no answer is -1 in each output."""
        if len(self.outputs) == 1:
            return lambda *ints: exact(*ints, *settings)
        missing = (-1,) * len(self.outputs)
        return lambda *ints: exact(*ints, *settings) or missing

    def _exact_from_first(self, first: int, *settings: bool) -> Any:
        assert self.default_last is not None
        return self.exact(first, self.default_last(first), *settings)

    def _last_from_first(self, kernel: Callable[..., int]) -> Callable[..., int]:
        assert self.default_last is not None
        make = self.default_last

        def run(chunk: np.ndarray, *rest: Any) -> int:
            # the last input from a private copy of the first, which the kernel
            # checks as it reads it
            first = chunk.copy()
            return int(kernel(first, make(first), *rest))

        return run


DECLARATIONS: dict[str, Declaration] = {
    d.name: d
    for d in [
        Declaration(
            "zeckendorf.fib",
            ("k",),
            (np.uint64,),
            zeck.fib,
            high=Bound(
                93,
                OverflowError,
                "is above 93: F_k > 2**64 - 1 for k > 93 (use an int or an object array)",
            ),
            exact_high=EXACT_INDEX,
            bench="indices",
        ),
        Declaration(
            "zeckendorf.encode",
            ("n",),
            (np.uint64,),
            zeck.code,
            high=Bound(
                CODE_LIMIT - 1,
                OverflowError,
                f"is F_66 = {CODE_LIMIT} or more: its code does not fit 64 bits "
                "(digits() and to_string() take every uint64; object arrays take any size)",
            ),
            exact_high=exact_number,
            bench="codes",
        ),
        Declaration(
            "zeckendorf.decode",
            ("code",),
            (np.int64,),
            zeck.value,
            extra=ADJACENT,
            bench="codes",
        ),
        Declaration(
            "zeckendorf.lowest_term",
            ("n",),
            (np.uint64,),
            zeck.lowest_term,
            exact_high=exact_number,
            bench="codes",
        ),
        Declaration(
            "zeckendorf.is_fibonacci",
            ("n",),
            (np.bool_,),
            zeck.is_fibonacci,
            exact_high=exact_number,
            bench="codes",
        ),
        Declaration(
            "zeckendorf.term_count",
            ("n",),
            (np.uint8,),
            zeck.term_count,
            exact_high=exact_number,
            bench="codes",
        ),
        Declaration(
            "wythoff.pair",
            ("n",),
            (np.int64, np.int64),
            wythoff.pair,
            high=Bound(
                PAIR_LIMIT, OverflowError, f"is above {PAIR_LIMIT}: b_n would exceed 2**63 - 1"
            ),
            bench="wythoff",
        ),
        Declaration(
            "wythoff.is_safe",
            ("x", "y"),
            (np.bool_,),
            wythoff.is_safe,
            high=PILE,
            options=("misere",),
            bench="wythoff",
        ),
        Declaration(
            "wythoff.is_lower", ("x",), (np.bool_,), wythoff.is_lower, high=PILE, bench="wythoff"
        ),
        Declaration(
            "wythoff.is_upper", ("x",), (np.bool_,), wythoff.is_upper, high=PILE, bench="wythoff"
        ),
        Declaration(
            "wythoff.index", ("x",), (np.int64,), wythoff.index, high=PILE, bench="wythoff"
        ),
        Declaration(
            "wythoff.partner",
            ("x",),
            (np.int64,),
            wythoff.partner,
            high=PILE,
            result_check=(
                lambda v: wythoff.partner(v) > INT64_MAX,
                Bound(INT64_MAX, OverflowError, "has a partner above 2**63 - 1"),
            ),
            bench="wythoff",
        ),
        Declaration(
            "wythoff.winning_move",
            ("x", "y"),
            (np.int64, np.int64),
            wythoff.winning_move,
            high=PILE,
            options=("misere",),
            bench="wythoff",
        ),
        Declaration(
            "wythoff.array_position",
            ("x",),
            (np.int64, np.int64),
            wythoff.array_position,
            high=PILE,
            extra=(
                (
                    lambda v: v == 0,
                    Bound(1, ValueError, "is not in the Wythoff array (it holds x >= 1)"),
                ),
            ),
            bench="wythoff",
        ),
        Declaration(
            "fibonacci_nim.is_p",
            ("n", "r"),
            (np.bool_,),
            nim.one_pile_is_p,
            high=PILE,
            default_last=lambda n: n - (n > 0),  # the opening bound n - 1
            bench="piles",
        ),
        Declaration(
            "fibonacci_nim.winning_take",
            ("n", "r"),
            (np.int64,),
            nim.one_pile_take,
            high=PILE,
            default_last=lambda n: n - (n > 0),
            bench="piles",
        ),
    ]
}


#: The public array functions whose results have a shape of their own, written
#: out in their modules rather than declared: why each is.
SHAPED = {
    "zeckendorf.digits": "a row of digits per number, as wide as the largest needs",
    "zeckendorf.to_string": "strings, as long as the largest needs",
    "zeckendorf.second_canonical": "strings, as long as the largest needs",
    "fibonacci_nim.global_is_p": "positions of any number of piles, searched beyond two",
    "fibonacci_nim.global_winning_move": "positions of any number of piles, searched beyond two",
    "power_nim.is_p": "positions of any number of piles",
    "power_nim.winning_move": "positions of any number of piles",
    "classify": "every game's positions, one row of answers each",
}


def of_topic(topic: str) -> dict[str, Declaration]:
    """The declarations of `topic` by function name."""
    return {d.function: d for d in DECLARATIONS.values() if d.topic == topic}


@cache
def twin(name: str) -> Callable[..., int]:
    """The pure twin of declaration `name`'s compiled kernel: the same signature
    and checks (each value against `limit`, the extra tests and the result
    check, before anything is written), answered by the exact function."""
    d = DECLARATIONS[name]
    count = len(d.inputs)
    refused = [test for test, _ in d.extra]
    if d.result_check is not None:
        refused.append(d.result_check[0])
    missing = (-1,) * len(d.outputs)

    def kernel(*arguments: Any) -> int:
        inputs, outs = arguments[:count], arguments[count : count + len(d.outputs)]
        settings, limit = arguments[count + len(d.outputs) : -1], arguments[-1]
        rows = list(zip(*(a.tolist() for a in inputs), strict=True))
        for i, row in enumerate(rows):
            if max(row) > limit or any(test(row[0]) for test in refused):
                return i
        answers = [d.exact(*row, *settings) for row in rows]
        if len(outs) == 1:
            outs[0][:] = answers
        else:
            for j, out in enumerate(outs):
                out[:] = [(answer or missing)[j] for answer in answers]
        return -1

    kernel.__name__ = kernel.__qualname__ = d.function
    kernel.__doc__ = f"The pure twin of fibnim._core.{d.topic}_{d.function} (see {__name__})."
    return kernel


def twin_of(topic: str) -> Callable[[str], Callable[..., int]]:
    """A module __getattr__ for fibnim._pure.<topic>: its declared kernels."""

    def lookup(function: str) -> Callable[..., int]:
        if f"{topic}.{function}" not in DECLARATIONS:
            raise AttributeError(f"module 'fibnim._pure.{topic}' has no attribute '{function}'")
        return twin(f"{topic}.{function}")

    return lookup
