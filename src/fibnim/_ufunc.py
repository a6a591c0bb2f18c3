"""The public elementwise functions: each a numpy ufunc, behind a thin front.

`Elementwise` is the object that fibnim.wythoff.is_safe and the other
declared functions (fibnim._declarations) are. On the compiled core its calls
of Python ints and of integer arrays (with out= and where=) are answered by
its compiled half (fibnim_c/calls.pxi's `Front`): Python ints by the compiled
kernel (or the exact function, past its bounds), arrays by the function's
numpy ufunc (fibnim_c/ufuncs.pxi), which brings broadcasting, out=, where=,
casting= and order=. Everything else comes to `Elementwise.general`: keyword
inputs and options (misere=True is a ufunc of its own), object arrays of big
ints (answered exactly), lists, pandas and xarray objects (through numpy's
protocol, `__array_ufunc__`, which keeps their labels), dask arrays (block by
block, lazily), and every call on the pure twin, which has no ufuncs and
answers through fibnim._apply (its object loop, np.frompyfunc, for pandas and
xarray).

A ufunc's loop sees buffers, not the caller's arrays: at a refused value it
raises the error naming the value (`Elementwise._refusal`), marked unlocated,
and `Elementwise.locate` finds the value's index in the caller's arrays by
running the call again on the general path, which names it.
"""

from __future__ import annotations

import functools
import inspect
import re
import textwrap
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import numpy as np

from fibnim import _apply, _backend, _tables
from fibnim._apply import INT64_MAX, UINT64_MAX, outs_of, overlap
from fibnim._checks import (
    NONNEGATIVE,
    Bound,
    Test,
    as_int,
    check_int,
    flag,
    integers,
    refuse,
)
from fibnim._declarations import DECLARATIONS, Declaration

_UINT64 = Bound(UINT64_MAX, OverflowError, "is above 2**64 - 1")

#: the keywords of numpy's ufunc calls that the public functions pass on
NUMPY_KEYWORDS = ("casting", "order", "subok")

#: refused ufunc methods: each element is answered on its own, there is
#: nothing to fold
NOT_FOLDS = ("reduce", "accumulate", "reduceat", "at")


class _General:
    """The front of an installation without the compiled core: every call is general."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.general(*args, **kwargs)  # type: ignore[attr-defined]


_Front: type = _General if _backend._CORE is None else _backend._CORE.Front


_OUT_AND_WHERE = """\
out : {out}, optional
    Where to put the result ({shape}).
where : array_like of bool, optional
    As numpy's where=: computed only where True (broadcast over the
    inputs); elsewhere the values are not checked and the result keeps
    out's value there (0 without out).
"""
_SECTION = re.compile(r"^( *)(\w[\w ]*)\n\1-+\n", re.MULTILINE)


def _inputs(declaration: Declaration) -> str:
    """The Parameters entry of inputs that a docstring leaves to its declaration."""
    high = declaration.high
    limit = "every uint64" if high is None else f"values up to {high.limit}"
    if high is not None and high.limit == INT64_MAX:
        limit = "values up to 2**63 - 1"
    return (
        f"{', '.join(declaration.inputs)} : int or array_like of int\n"
        f"    Numbers >= 0. Integer arrays take {limit};\n"
        "    Python ints, and object arrays of them, any size.\n"
    )


def documented(doc: str, declaration: Declaration) -> str:
    """doc with what the declaration says written in: out= and where= at the
    end of its Parameters (a section made, naming the inputs, where it has
    none), and its Returns where it has none, from the declared outputs."""
    found = list(_SECTION.finditer(doc))
    indent = found[0][1] if found else "    "
    head = doc[: found[0].start()] if found else doc.rstrip() + "\n\n"
    ends = [section.start() for section in found[1:]] + [len(doc)]
    sections = {s[2]: doc[s.end() : e].rstrip() + "\n" for s, e in zip(found, ends, strict=True)}
    names, types = declaration.inputs, [np.dtype(o).name for o in declaration.outputs]
    scalar = "bool" if types[0] == "bool" else "int"
    if len(types) == 1:
        out, returns = f"ndarray of {types[0]}", f"{scalar} or ndarray of {types[0]}"
    else:
        out = f"tuple of two {types[0]} arrays"
        returns = f"tuple of {scalar}, or {out}"
    shape = f"the shape of `{names[0]}`" if len(names) == 1 else "the inputs' broadcast shape"
    inputs = sections.pop("Parameters", None) or textwrap.indent(_inputs(declaration), indent)
    sections = {
        "Parameters": inputs
        + textwrap.indent(_OUT_AND_WHERE.format(out=out, shape=shape), indent),
        "Returns": sections.pop("Returns", f"{indent}{returns}\n"),
        **sections,
    }
    body = [
        f"{indent}{title}\n{indent}{'-' * len(title)}\n{text}" for title, text in sections.items()
    ]
    return head + "\n".join(body) + indent


class Elementwise(_Front):  # type: ignore[misc]
    """A public elementwise function of fibnim (see the module)."""

    def __init__(self, declaration: Declaration, template: Callable[..., Any]) -> None:
        functools.update_wrapper(self, template)
        self.__doc__ = documented(template.__doc__ or "", declaration)
        self.declaration = declaration
        self._signature = inspect.signature(template)
        self.__signature__ = self._signature
        self._ufuncs: dict[tuple[tuple[bool, ...], bool], Any] = {}
        self._objects: dict[tuple[tuple[bool, ...], bool, bool], np.ufunc] = {}
        d = declaration
        self.inputs = len(d.inputs)
        plain = tuple(False for _ in d.options)
        self.ufunc = self._ufunc(plain, short=False)
        self.exact = self._scalar(d.exact)
        self.short_ufunc = None
        self.short_exact = None
        if d.default_last is not None:
            self.short_ufunc = self._ufunc(plain, short=True)
            self.short_exact = self._scalar(d._exact_from_first)
        self.scalar_high = self._scalar_high()
        self.option = self.option_ufunc = None
        if len(d.options) == 1:  # misere: its ufunc, for the compiled half
            self.option = d.options[0]
            self.option_ufunc = self._ufunc((True,), short=False)
        if self.ufunc is not None:
            self.use_kernel(
                d.name,
                f"{d.name}_opening" if d.default_last is not None else "",
                UINT64_MAX if d.high is None else d.high.limit,
                tuple(np.dtype(o).num for o in d.outputs),
            )

    def __repr__(self) -> str:
        return f"<fibnim elementwise function {self.declaration.name}>"

    def __get__(self, instance: Any, owner: Any = None) -> Elementwise:
        # a method descriptor, as numpy's ufuncs are, so that tools which look
        # for routines (Sphinx's autodoc, inspect.isroutine) see one
        return self

    def __reduce__(self) -> str:
        # pickled by name, as functions are (dask's workers receive it so)
        return str(self.__qualname__)

    # -- what numpy's ufuncs have ------------------------------------------------

    @property
    def nin(self) -> int:
        return self.inputs

    @property
    def nout(self) -> int:
        return len(self.declaration.outputs)

    @property
    def types(self) -> list[str]:
        """The loops of the compiled ufunc (numpy's type codes); [] on the pure twin."""
        return [] if self.ufunc is None else list(self.ufunc.types)

    def outer(self, a: Any, b: Any, /, **kwargs: Any) -> Any:
        """The function of every pair (a[i...], b[j...]): the result has shape
        a.shape + b.shape, as numpy's ufunc.outer gives it.

        >>> import fibnim
        >>> fibnim.wythoff.is_safe.outer(range(4), range(4)).astype(int)
        array([[1, 0, 0, 0],
               [0, 0, 1, 0],
               [0, 1, 0, 0],
               [0, 0, 0, 0]])
        """
        if self.inputs != 2:
            raise TypeError(
                f"{self.__name__}.outer: {self.__name__} takes one input; outer pairs two"
            )
        if _tables.library(a) != "dask":
            a = integers(a, self.__name__, self.declaration.inputs[0])
        b_ndim = np.ndim(b) if _tables.library(b) != "dask" else b.ndim
        if not isinstance(a, int):
            a = a[(Ellipsis,) + (None,) * b_ndim]
        return self(a, b, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name in NOT_FOLDS:
            raise TypeError(
                f"{self.__name__}.{name} is not supported: {self.__name__} answers each "
                "element on its own, and its results are not its inputs' kind to fold"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- the general path -----------------------------------------------------------

    def general(self, *args: Any, **kwargs: Any) -> Any:
        """Every call the compiled half does not answer (see the module)."""
        if kwargs.get("dtype") is not None:
            return self._in_dtype(args, kwargs)
        kwargs.pop("dtype", None)
        d = self.declaration
        numpy_keywords = {key: kwargs.pop(key) for key in NUMPY_KEYWORDS if key in kwargs}
        passed = dict(numpy_keywords)
        try:
            given = self._signature.bind(*args, **kwargs)
        except TypeError as error:  # as Python words it, with the function's name
            raise TypeError(f"{d.function}(): {error}") from None
        given.apply_defaults()
        values = given.arguments
        inputs = [values[name] for name in d.inputs]
        settings = tuple(flag(values[name], d.function, name) for name in d.options)
        short = d.default_last is not None and inputs[-1] is None
        if short:
            inputs.pop()
        out, where = values["out"], values["where"]
        check_numpy_keywords(d.function, numpy_keywords)
        if out is not None:
            passed["out"] = out
        if where is not True:
            passed["where"] = where = _where_mask(d.function, where)
        compiled = _backend.active() is _backend.COMPILED and _backend.COMPILED is not None
        kinds = {_tables.library(v) for v in inputs}
        if "dask" in kinds:
            # block by block, each block's errors named by their index in the
            # whole array (numpy's protocol would lose where a block starts)
            return _tables.map_blocks(self, args, {**kwargs, **numpy_keywords})
        named = zip(self.declaration.inputs, inputs, strict=False)
        with _tables.labels({n: _tables.places(v) for n, v in named if _tables.is_labelled(v)}):
            if any(map(_tables.is_labelled, inputs)) and out is None:
                return self._labelled(inputs, settings, short, passed, compiled)
            # with out=, pandas and xarray objects are read as their arrays: the
            # answer is out, which has no labels
            return self._arrays(inputs, settings, short, passed, compiled)

    def _in_dtype(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """A call with dtype=, as numpy's ufuncs take it: the answers in that
        dtype, cast from their own under casting= (numpy's default,
        same_kind), each value exactly: OverflowError naming the first that
        does not fit (a cast never wraps here). With out=, into out."""
        d = self.declaration
        dtype = np.dtype(kwargs.pop("dtype"))
        casting = kwargs.get("casting", "same_kind")
        if dtype.kind not in "iub":
            raise TypeError(
                f"{d.function}: dtype={dtype} would round its answers (a float holds "
                "integers exactly only to 2**53); give an integer dtype"
            )
        for native in (np.dtype(t) for t in d.outputs):
            if not np.can_cast(native, dtype, casting):
                raise TypeError(
                    f"{d.function}: cannot give its {native} answers as {dtype} under "
                    f"casting={casting!r}"
                )
        out = kwargs.pop("out", None)
        if any(_tables.library(a) == "dask" for a in (*args, *kwargs.values())):
            kwargs["dtype"] = dtype  # each block casts its own answers
            return _tables.map_blocks(self, args, kwargs) if out is None else self(*args, out=out)
        answer = self.general(*args, **kwargs)
        answers = answer if isinstance(answer, tuple) else (answer,)
        cast = tuple(_exactly_as(a, dtype, d.function) for a in answers)
        if out is not None:
            outs = out if isinstance(out, tuple) else (out,)
            for o, a in zip(outs, cast, strict=True):
                np.copyto(o, a, casting=casting)
            return out
        return cast if isinstance(answer, tuple) else cast[0]

    def _arrays(
        self,
        inputs: list[Any],
        settings: tuple[bool, ...],
        short: bool,
        passed: dict[str, Any],
        compiled: bool,
    ) -> Any:
        """A call of Python ints, arrays, lists and the like."""
        d = self.declaration
        out, where = passed.get("out"), passed.get("where", True)
        arrays = [
            integers(_tables.values(v, d.function, name), d.function, name)
            for v, name in zip(inputs, d.inputs, strict=False)
        ]
        exact = any(isinstance(a, np.ndarray) and a.dtype == object for a in arrays)
        scalars = all(isinstance(a, int) for a in arrays) and not passed
        if not exact and not scalars:
            for value, name in zip(arrays, d.inputs, strict=False):
                if isinstance(value, int):  # among arrays: held to the arrays' bounds
                    check_int(value, d.function, name, NONNEGATIVE, d.high or _UINT64)
        if not compiled and not exact and "casting" in passed:
            # (object operands go to the object loop on both backends: no cast)
            self._check_loop_casting(arrays, passed["casting"])
        if not compiled or exact or scalars:
            # the general path (order= and subok= change nothing in its answers)
            options = dict(zip(d.options, settings, strict=True))
            last = [None] if short else []
            outs = _outs(out, len(d.outputs), d.function)
            if where is not True or outs is not None:
                # where= and out= broadcast with the inputs, as in numpy
                shapes = [np.shape(a) for a in arrays]
                shapes += [np.shape(where)] if where is not True else []
                shapes += [np.shape(o) for o in outs or ()]
                shape = _broadcast(d.function, shapes)
                arrays = [np.broadcast_to(_apply.as_array(a), shape) for a in arrays]
            dtypes = [np.dtype(t) for t in d.outputs]
            # out= held to numpy's rules before any answer, as the ufunc holds it:
            # its shape is the answers' (it is never broadcast), and the answers
            # cast into it under casting= (default "safe")
            casting = passed.get("casting", "safe")
            for i, (o, dtype) in enumerate(zip(outs or (), dtypes, strict=False)):
                if not exact and not np.can_cast(dtype, o.dtype, casting):
                    raise _casting_error(self, casting, dtype, o.dtype, i, output=True)
            for o in outs or ():
                if np.shape(o) != shape:
                    raise ValueError(
                        f"non-broadcastable output operand with shape {_shape(np.shape(o))} "
                        f"doesn't match the broadcast shape {_shape(shape)}"
                    )
            if outs is None or exact or [getattr(o, "dtype", None) for o in outs] == dtypes:
                answer = d.answer(*arrays, *last, out=out, where=where, **options)
                if passed and outs is None and all(isinstance(a, int) for a in arrays):
                    # the ufunc's answers to numpy's keywords: numpy scalars
                    if isinstance(answer, tuple):
                        return tuple(t.type(a) for t, a in zip(dtypes, answer, strict=True))
                    return dtypes[0].type(answer)
                return answer
            # an out of another dtype: written as the ufunc writes it, where the
            # cast is safe
            answer = d.answer(*arrays, *last, where=where, **options)
            answers = answer if isinstance(answer, tuple) else (answer,)
            for o, a in zip(outs, answers, strict=True):
                casting = passed.get("casting", "safe")
                np.copyto(o, a, casting=casting, where=np.asarray(where, dtype=bool))
            return tuple(outs) if len(outs) > 1 else outs[0]
        ufunc = self._ufunc(settings, short)
        outs = _outs(out, len(d.outputs), d.function)
        if outs is not None:
            passed.setdefault("casting", "safe")  # no answer wraps into a narrower out
        if "where" in passed and "out" not in passed:
            # what where= leaves out is 0 (False), never memory nothing wrote
            shape = np.broadcast_shapes(*(np.shape(a) for a in arrays), np.shape(where))
            passed["out"] = tuple(np.zeros(shape, dtype=o) for o in d.outputs)
        try:
            answer = ufunc(*arrays, **passed)
        except (OverflowError, ValueError, RuntimeError) as error:
            if unlocated(error):
                self.locate(error, "__call__", arrays, passed, settings)
            raise
        if out is None and "out" in passed:  # the zeros made above: as a call without out
            answers = answer if isinstance(answer, tuple) else (answer,)
            answers = tuple(a[()] if a.ndim == 0 else a for a in answers)
            return answers if len(answers) > 1 else answers[0]
        return answer

    def _check_loop_casting(self, arrays: list[Any], casting: Any) -> None:
        """numpy's check of casting= on the inputs' casts to the compiled
        ufunc's loop (int64, else uint64), made on the pure twin too."""
        loops = []
        for i, array in enumerate(arrays):
            if isinstance(array, np.ndarray) and array.dtype.kind in "iu":
                loop = np.dtype(np.int64 if np.can_cast(array.dtype, np.int64) else np.uint64)
                if not np.can_cast(array.dtype, loop, casting):
                    raise _casting_error(self, casting, array.dtype, loop, i)
                loops.append(loop)
        # a Python int beside them takes their loop: newer numpys refuse it
        # uint64's under "equiv" (and, oddly, not under "no"), as this one does
        if np.dtype(np.uint64) in loops and casting == "equiv" and _equiv_refuses_int():
            if any(isinstance(a, int) for a in arrays):
                raise TypeError(
                    f"cannot cast Python int to uint64 under the casting rule {casting!r}"
                )

    def locate(
        self,
        error: BaseException,
        method: str,
        args: Any,
        kwargs: dict[str, Any],
        settings: tuple[bool, ...] = (),
    ) -> None:
        """Raise the error of the first value refused in args, named by its index
        in the caller's arrays: the general path's checks, which name it, run
        on them chunk by chunk (no output is made). If they find none (another
        thread has changed the array since), `error` stands."""
        d = self.declaration
        arrays = [np.asarray(a) for a in args]
        if method == "outer":
            a, b = arrays
            arrays = [a.reshape(a.shape + (1,) * b.ndim), b]
        short = len(arrays) < len(d.inputs)
        options = dict(zip(d.options, settings or (False,) * len(d.options), strict=True))
        try:
            d.answer(
                *arrays,
                *([None] if short else []),
                where=kwargs.get("where", True),
                check_only=True,
                **options,
            )
        except (OverflowError, ValueError, RuntimeError, TypeError) as located:
            raise located from None

    # -- pandas and xarray --------------------------------------------------------

    def _labelled(
        self,
        inputs: list[Any],
        settings: tuple[bool, ...],
        short: bool,
        passed: dict[str, Any],
        compiled: bool,
    ) -> Any:
        """A call with a pandas or xarray object among its inputs, without out=:
        through numpy's protocol, which keeps their types and labels."""
        d = self.declaration
        named = list(zip(d.inputs, inputs, strict=False))
        labelled = [(n, v) for n, v in named if _tables.is_labelled(v)]
        for name, other in labelled[1:]:
            # pandas and xarray would align them: fibnim computes on the
            # positions given, and refuses labels that do not match
            _tables.check_same_labels(d.function, *labelled[0], name, other)
        mask = passed.get("where", True)
        if mask is not True:
            # no out= to keep: 1 (which every function takes) where the mask is
            # False, and 0 (False) in the answers there
            inputs = [_where(mask, v, 1) for v in inputs]
            del passed["where"]
            answer = self._labelled(inputs, settings, short, passed, compiled)
            answers = answer if isinstance(answer, tuple) else (answer,)
            zeroed = tuple(_where(mask, a, 0) for a in answers)
            return zeroed if isinstance(answer, tuple) else zeroed[0]
        if any(_tables.extension(v) is not None for v in inputs):
            # pandas' own types (nullable, Arrow's, sparse) as numpy's, NA in
            # and NA out, every other value exact, the answers of the first
            # labelled input's kind (one rule for both backends: _tables.in_kind)
            holes = [_tables.missing(v) for v in inputs]
            answer = self._labelled(
                [_tables.filled(v) for v in inputs], settings, short, passed, compiled
            )
            hole = _tables.union(holes, positions=False)
            like = labelled[0][1]
            if isinstance(answer, tuple):
                return tuple(_tables.in_kind(a, like, hole) for a in answer)
            return _tables.in_kind(answer, like, hole)
        kinds = set()
        for value, name in zip(inputs, d.inputs, strict=False):
            found = _tables.dtypes(value) if _tables.is_labelled(value) else [None]
            for dtype in found:
                # pandas' own integer types were made numpy's above: any other
                # of its types (a category, text) is refused here
                kind = "i" if dtype is None else dtype.kind if isinstance(dtype, np.dtype) else "?"
                if kind not in "iuO":
                    raise TypeError(
                        f"{d.function}: {name} must have an integer dtype, not {dtype}"
                    )
                kinds.add(kind)
        exact = "O" in kinds
        ufunc = self._ufunc(settings, short) if compiled and not exact else None
        if ufunc is None:
            ufunc = self._object_ufunc(settings, short, exact)
        try:
            result = ufunc(*inputs, **passed)
        except (OverflowError, ValueError, RuntimeError, TypeError) as error:
            if unlocated(error):
                self.locate(error, "__call__", inputs, passed, settings)
            raise
        if ufunc.types[0][-1] != "O":
            return result
        # the object loop's answers as the declared types (exact ints stay
        # objects; pandas' own types were made numpy's above)
        results = result if isinstance(result, tuple) else (result,)
        typed = tuple(
            _typed(r, o) if not exact or np.dtype(o).kind == "b" else r
            for r, o in zip(results, d.outputs, strict=True)
        )
        return typed if isinstance(result, tuple) else typed[0]

    # -- the ufuncs -----------------------------------------------------------------

    def _ufunc(self, settings: tuple[bool, ...], short: bool) -> Any:
        """The compiled ufunc of these options (None without the compiled core)."""
        key = (settings, short)
        if key not in self._ufuncs:
            self._ufuncs[key] = self._make_ufunc(settings, short)
        return self._ufuncs[key]

    def _make_ufunc(self, settings: tuple[bool, ...], short: bool) -> Any:
        core = _backend._CORE
        if core is None:
            return None
        d = self.declaration
        suffix = "".join(f"_{name}" for name, on in zip(d.options, settings, strict=True) if on)
        suffix += "_opening" if short else ""
        inputs = len(d.inputs) - short
        limit = UINT64_MAX if d.high is None else min(d.high.limit, UINT64_MAX)
        doc = f"The numpy ufunc of fibnim.{d.name}{' (' + suffix[1:] + ')' if suffix else ''}."
        return core.make_ufunc(
            d.name + suffix,
            d.function + suffix,
            doc,
            inputs,
            tuple(np.dtype(o).num for o in d.outputs),
            limit,
            functools.partial(self._refusal, settings),
        )

    def _object_ufunc(self, settings: tuple[bool, ...], short: bool, exact: bool) -> np.ufunc:
        """numpy's object ufunc of the exact function: each element checked as the
        general path checks it (to exact_high for exact ints, else to the
        fixed-width bounds), its errors unlocated."""
        key = (settings, short, exact)
        if key in self._objects:
            return self._objects[key]
        d = self.declaration
        names = d.inputs[: len(d.inputs) - short]
        high = d.exact_high() if callable(d.exact_high) else d.exact_high
        if not exact:
            high = d.high or _UINT64
        function: Callable[..., Any] = d._exact_from_first if short else d.exact
        missing = (-1,) * len(d.outputs)

        def element(*values: Any) -> Any:
            try:
                # the one rule for a value (fibnim._checks.as_int): an object
                # holding 3.7 or "3" is refused, never read through int()
                ints = [
                    check_int(
                        as_int(v, d.function, name), d.function, name, NONNEGATIVE, high, d.extra
                    )
                    for v, name in zip(values, names, strict=True)
                ]
                if not exact and d.result_check is not None and d.result_check[0](ints[0]):
                    raise refuse(d.function, names[0], None, ints[0], d.result_check[1])
            except (OverflowError, ValueError, TypeError) as error:
                _mark(error)
                raise
            answer = function(*ints, *settings)
            return answer if len(d.outputs) == 1 else (answer or missing)

        ufunc: np.ufunc = np.frompyfunc(element, len(names), len(d.outputs))
        self._objects[key] = ufunc
        return ufunc

    def _refusal(self, settings: tuple[bool, ...], argument: int, value: int) -> BaseException:
        """The error of a value that a ufunc's loop refused (no index: see the module)."""
        d = self.declaration
        extra = d.extra if argument == 0 else ()
        if d.result_check is not None and argument == 0:
            extra += (d.result_check,)
        return refusal(d.function, d.inputs[argument], value, d.high, extra)

    # -- Python ints ----------------------------------------------------------------

    def _scalar(self, exact: Callable[..., Any]) -> Callable[..., Any]:
        """exact, for the compiled half's Python ints (0 .. scalar_high): a value
        the declaration's extra test refuses goes to the general path, which
        raises its error."""
        if not self.declaration.extra:
            return exact
        ((test, _),) = self.declaration.extra  # one each: decode's and array_position's

        def checked(*ints: int) -> Any:
            return self.general(*ints) if test(ints[0]) else exact(*ints)

        return checked

    def _scalar_high(self) -> int:
        """The largest Python int the compiled half hands to the exact function."""
        high = self.declaration.exact_high
        if callable(high):  # exact_number: F_{DIGITS_LIMIT + 2} - 1, far above 2**63
            return INT64_MAX
        return INT64_MAX if high is None else min(high.limit, INT64_MAX)


def _exactly_as(answer: Any, dtype: np.dtype[Any], where: str) -> Any:
    """An answer (a Python or numpy scalar, an array, a pandas or xarray
    object) in dtype, its values kept: OverflowError naming the first that
    does not fit."""
    values = np.asarray(
        _tables.values(answer) if _tables.library(answer) in ("pandas", "xarray") else answer
    )
    if dtype.kind in "iu" and values.size and values.dtype.kind in "iub":
        info = np.iinfo(dtype)
        bad = (values < info.min) | (values > info.max) if values.dtype.kind != "b" else None
        if bad is not None and bad.any():
            index = tuple(map(int, np.unravel_index(int(np.argmax(bad)), values.shape)))
            place = f"[{', '.join(map(str, index))}]" if index else ""
            raise OverflowError(
                f"{where}: its answer{place} = {values[index]} does not fit {dtype} (dtype=)"
            )
    if _tables.library(answer) in ("pandas", "xarray"):
        return answer.astype(dtype)
    if isinstance(answer, np.ndarray):
        return answer.astype(dtype)
    return dtype.type(answer)


def check_numpy_keywords(where: str, keywords: dict[str, Any]) -> None:
    """casting=, order= and subok= held to numpy's own rules (numpy checks them on
    a call of its own), whichever backend answers."""
    if keywords:
        try:
            np.positive(np.zeros(1), **keywords)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{where}: {error}") from None


def _where_mask(where: str, mask: Any) -> Any:
    """where= as numpy takes it: an array of bools (an array of another dtype is a
    TypeError, as numpy's safe cast to bool makes it), anything else as bools."""
    if _tables.library(mask) == "dask":
        return mask
    if isinstance(mask, np.ndarray) and mask.dtype != np.bool_:
        raise TypeError(f"{where}: where= must be an array of bools, not of {mask.dtype}")
    return mask if isinstance(mask, np.ndarray) else np.asarray(mask, dtype=bool)


@functools.cache
def _equiv_refuses_int() -> bool:
    """Whether this numpy refuses a Python int into a uint64 loop under
    casting="equiv" (2.0 takes it; later ones refuse it)."""
    try:
        np.add(np.zeros(1, np.uint64), 1, casting="equiv")
    except TypeError:
        return True
    return False


def _shape(shape: tuple[int, ...]) -> str:
    """A shape as numpy's messages write it: (3,), (1,3)."""
    return f"({','.join(map(str, shape))}{',' if len(shape) == 1 else ''})"


def _broadcast(where: str, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        listed = ", ".join(map(str, shapes))
        raise ValueError(f"{where}: shapes {listed} do not broadcast together") from None


def _where(mask: Any, value: Any, other: int) -> Any:
    """value where mask is True, other elsewhere, keeping value's type (a
    pandas, xarray or dask object, an array, or an int)."""
    kind = _tables.library(value)
    if kind == "pandas":
        return value.where(np.asarray(mask), other)
    if kind == "xarray":
        return value.where(mask, other)
    if kind == "dask":
        import dask.array as da

        return da.where(mask, value, other).astype(value.dtype)
    return np.where(mask, value, other)


def _casting_error(
    ufunc: Any,
    casting: Any,
    source: np.dtype[Any],
    target: np.dtype[Any],
    i: int,
    output: bool = False,
) -> TypeError:
    """The error numpy raises for an input (or an output) that casting= keeps
    from (or out of) its loop, of numpy's own type (a TypeError with its
    words where a numpy keeps that type elsewhere)."""
    side = "output" if output else "input"
    try:
        from numpy._core import _exceptions
    except ImportError:  # another numpy's layout: its message, as a TypeError
        place = f"{i} " if (ufunc.nout if output else ufunc.nin) != 1 else ""
        return TypeError(
            f"Cannot cast ufunc {ufunc.__name__!r} {side} {place}from {source!r} to "
            f"{target!r} with casting rule {casting!r}"
        )
    kind = _exceptions._UFuncOutputCastingError if output else _exceptions._UFuncInputCastingError
    error: TypeError = kind(ufunc, casting, source, target, i)
    return error


def _typed(result: Any, dtype: Any) -> Any:
    """The object loop's answers as dtype (pandas' nullable type where NA is
    among them)."""
    if _tables.library(result) == "pandas" and np.asarray(result.isna()).any():
        return result.astype(_tables.nullable(dtype))  # an Index's isna is an array
    return result.astype(dtype)


def _outs(out: Any, count: int, where: str) -> list[Any] | None:
    """out= as a list (None: not given); outs that share memory refused."""
    outs = outs_of(out, count, where)
    if outs is not None and len(outs) == 2 and all(isinstance(o, np.ndarray) for o in outs):
        if overlap(outs[0], outs[1]):
            raise ValueError(f"{where}: out[0] and out[1] share memory")
    return outs


def refusal(
    where: str,
    name: str,
    value: int,
    high: Bound | None,
    extra: tuple[tuple[Test, Bound], ...] = (),
) -> BaseException:
    """The error of a value that a compiled loop refused, marked as not yet
    naming its index (see the module): the caller finds that by running the
    general path, whose checks name it."""
    error: BaseException
    try:
        check_int(value, where, name, NONNEGATIVE, high, extra)
        error = RuntimeError(
            f"{where}: {name} = {value} was out of range when read and is not now: "
            "the array changed while fibnim read it (nothing was computed from it)"
        )
    except (OverflowError, ValueError) as refused:
        error = refused
    _mark(error)
    return error


def _mark(error: BaseException) -> None:
    setattr(error, "fibnim_unlocated", True)  # noqa: B010


def unlocated(error: BaseException) -> bool:
    """Whether error is one that `refusal` made."""
    return getattr(error, "fibnim_unlocated", False)


Typed = TypeVar("Typed")


class declared(Generic[Typed]):
    """`@declared[Protocol]("module.name")`: make the decorated function the
    public function of declaration `name` (fibnim._declarations), an
    Elementwise (its numpy ufunc behind a thin front), which type checkers
    read as `Protocol` (fibnim._typing).

    The decorated function gives the name, the signature and the docstring;
    its body never runs.
    """

    def __init__(self, name: str) -> None:
        self.declaration = DECLARATIONS[name]

    def __call__(self, template: Callable[..., Any]) -> Typed:
        typed: Typed = Elementwise(self.declaration, template)
        return typed
