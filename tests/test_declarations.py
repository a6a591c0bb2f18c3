"""The table of declared functions (fibnim._declarations) against what the
package exposes: every public array function is declared (or has a shape of its
own, SHAPED), every declaration has its compiled kernel, its pure twin, its
benchmark case and tests; and each declaration's compiled kernel and pure twin
give the same answers and errors on the edge values of its bounds, on every
implementation."""

from __future__ import annotations

import inspect
import itertools
import pathlib

import numpy as np
import pytest
from _support import UINT64_MAX, edge_values

import fibnim
from fibnim import _backend
from fibnim._declarations import DECLARATIONS, SHAPED
from fibnim.bench.suite import CALLS, CASES

TOPICS = ("zeckendorf", "wythoff", "fibonacci_nim", "power_nim")
TESTS = pathlib.Path(__file__).parent


def public_array_functions() -> list[str]:
    """Every function of the topic modules that takes arrays (numpy, dask, pandas:
    the wrapper of fibnim._tables marks it), and classify."""
    found = ["classify"]
    for topic in TOPICS:
        module = getattr(fibnim, topic)
        for name in module.__all__:
            if hasattr(getattr(module, name), "__wrapped__"):
                found.append(f"{topic}.{name}")
    return found


def test_every_public_array_function_is_declared_once():
    functions = public_array_functions()
    assert len(functions) > 20
    undeclared = [f for f in functions if f not in DECLARATIONS and f not in SHAPED]
    assert not undeclared
    assert not set(DECLARATIONS) & set(SHAPED)
    assert set(DECLARATIONS) | set(SHAPED) == set(functions)  # nothing declared that is gone


@pytest.mark.parametrize("name", sorted(DECLARATIONS))
def test_each_docstring_describes_out_where_and_the_returns_from_the_declaration(name):
    declaration = DECLARATIONS[name]
    topic, function = name.split(".")
    doc = inspect.getdoc(getattr(getattr(fibnim, topic), function))
    lines = doc.splitlines()
    titles = [line for line, under in itertools.pairwise(lines) if set(under) == {"-"}]
    assert titles[:2] == ["Parameters", "Returns"] and titles[-1] == "Examples", titles
    parameters = doc.split("Parameters\n----------\n")[1].split("\n\n")[0]
    entries = [
        line.split(" : ")[0]
        for line in parameters.splitlines()
        if " : " in line and not line.startswith(" ")
    ]
    assert entries[-2:] == ["out", "where"] and entries.count("out") == 1, entries
    assert ", ".join(declaration.inputs) in entries or entries[0] == declaration.inputs[0], entries
    for dtype in declaration.outputs:
        assert np.dtype(dtype).name in parameters.split("out : ")[1].splitlines()[0]


@pytest.mark.parametrize("name", [*DECLARATIONS, *SHAPED])
def test_every_public_array_function_has_a_benchmark_case_and_tests(name):
    assert any(case.name == name or case.name.startswith(f"{name} (") for case in CASES), name
    topic, _, function = name.rpartition(".")
    text = (TESTS / f"test_{topic or 'classify'}.py").read_text()
    assert f"{function}(" in text, f"tests/test_{topic}.py does not call {function}"


@pytest.mark.parametrize("name", DECLARATIONS)
def test_every_declaration_has_its_kernels(name):
    declaration = DECLARATIONS[name]
    assert declaration.public.__name__ == declaration.function
    compiled, pure = _backend.twins(declaration.topic)
    count = len(declaration.inputs) + len(declaration.outputs) + len(declaration.options) + 1
    assert callable(getattr(pure, declaration.function))
    assert [c.name for c in CALLS] == list(DECLARATIONS)  # each has its per-call figures
    if compiled is None:
        pytest.skip("no compiled core in this installation")
    kernel = getattr(compiled, declaration.function)
    assert len(inspect.signature(kernel).parameters) == count
    ufunc = declaration.public.ufunc  # its numpy ufunc, on the compiled core's loops
    assert isinstance(ufunc, np.ufunc)
    assert (ufunc.nin, ufunc.nout) == (len(declaration.inputs), len(declaration.outputs))


@pytest.mark.parametrize("name", DECLARATIONS)
def test_inputs_and_options_given_by_name_are_heard(name):
    declaration = DECLARATIONS[name]
    values = [12, 0][: len(declaration.inputs)]  # r = 0 is not the opening bound
    if declaration.function == "decode":
        values = [0b1001]
    expected = declaration.public(*values)
    by_name = dict(zip(declaration.inputs, values, strict=True))
    assert declaration.public(**by_name) == expected
    assert declaration.public(*values[:1], **dict(list(by_name.items())[1:])) == expected
    for option in declaration.options:
        assert declaration.public(*values, **{option: False}) == expected
        assert declaration.public(*values, **{option: True}) == declaration.exact(*values, True)


@pytest.mark.parametrize("name", DECLARATIONS)
def test_where_computes_only_where_true_as_numpy_does(name):
    declaration = DECLARATIONS[name]
    pick = np.random.default_rng(7)
    values = pick.integers(1, 10**6, size=(6, 50))
    if declaration.function == "decode":
        values = fibnim.encode(values).astype(np.int64)
    if declaration.function == "fib":
        values %= 90
    arguments = [values] + [
        pick.permutation(values.ravel()).reshape(values.shape) % 1000
        for _ in declaration.inputs[1:]
    ]
    mask = pick.random(values.shape[1]) < 0.5  # broadcast over the rows
    bad = [a.copy() for a in arguments]
    bad[0][:, ~mask] = -1  # refused, where nothing is computed
    full = declaration.public(*arguments)
    full = full if isinstance(full, tuple) else (full,)
    for given in (bad, [a.astype(object) for a in bad]):
        exact = given[0].dtype == object  # object answers, but for bools
        kinds = [object if exact and f.dtype != bool else f.dtype for f in full]
        before = [np.full(f.shape, 7).astype(kind) for f, kind in zip(full, kinds, strict=True)]
        outs = tuple(b.copy() for b in before)
        declaration.public(*given, out=outs if len(outs) > 1 else outs[0], where=mask)
        fresh = declaration.public(*given, where=mask)
        fresh = fresh if isinstance(fresh, tuple) else (fresh,)
        for f, out, new, kept in zip(full, outs, fresh, before, strict=True):
            assert (out[:, mask] == f[:, mask]).all() and (out[:, ~mask] == kept[:, ~mask]).all()
            assert (new[:, mask] == f[:, mask]).all() and (new[:, ~mask] == 0).all()
    with pytest.raises(ValueError, match=r"\[0, \d+\] = -1 is negative"):
        declaration.public(*bad, where=~mask)


def test_where_is_read_as_numpy_reads_it():
    # numpy's ufuncs take any values as bools there (nonzero: True)
    assert fibnim.encode([1, 2], where=[1, 0]).tolist() == [1, 0]
    with pytest.raises(ValueError, match=r"broadcast|where has shape \(3,\)"):
        fibnim.encode([1, 2], where=[True, False, True])


def test_pure_modules_have_no_other_kernels():
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        _backend.twins("wythoff")[1].nothing  # noqa: B018


# --- each declaration: the compiled core, on every implementation, against its twin ------


def edges(name: str) -> np.ndarray:
    """Edge values of the declaration's array bound, and 1 past it, as uint64."""
    declaration = DECLARATIONS[name]
    high = UINT64_MAX if declaration.high is None else declaration.high.limit
    values = np.array(edge_values(min(high + 1, UINT64_MAX)), dtype=np.uint64)
    if declaration.function == "decode":
        values = np.concatenate([values, fibnim.encode(values[values < fibnim.CODE_LIMIT])])
    return values


def inputs_of(name: str, values: np.ndarray) -> list[np.ndarray]:
    """values for each input, in a different order for each, so that inputs differ."""
    shift = np.random.default_rng(len(name))
    return [values] + [shift.permutation(values) for _ in DECLARATIONS[name].inputs[1:]]


def answer(function, *arguments, **options):
    """The answer, or the error it raises (type and message)."""
    try:
        return function(*arguments, **options)
    except (ValueError, OverflowError) as error:
        return type(error), str(error)


def rows_of(result):
    """An answer as comparable lists: each output with its dtype, or the error."""
    if isinstance(result, tuple) and isinstance(result[0], type):
        return result
    outputs = result if isinstance(result, tuple) else (result,)
    return [(o.dtype, o.tolist()) for o in outputs]


@pytest.mark.parametrize("implementation", _backend.IMPLEMENTATIONS)
@pytest.mark.parametrize("name", DECLARATIONS)
def test_each_declaration_answers_as_its_pure_twin(name, implementation):
    if "cython" not in _backend.available():
        pytest.skip("no compiled core in this installation")
    if implementation not in _backend.implementations():
        pytest.skip(f"this processor (or build) does not run {implementation}")
    declaration = DECLARATIONS[name]
    before = (_backend.name(), _backend.implementation())
    values = edges(name)
    # all values (the first bad one refused, with the same message), and those that
    # the bound takes (answered)
    high = UINT64_MAX if declaration.high is None else declaration.high.limit
    refused = [test for test, _ in declaration.extra]
    if declaration.result_check is not None:
        refused.append(declaration.result_check[0])
    takes = [v <= high and not any(test(v) for test in refused) for v in values.tolist()]
    cases = [inputs_of(name, values), inputs_of(name, values[takes])]
    if declaration.default_last is not None:
        cases.insert(1, [*cases[1][:-1], None])
    settings = [{}] + [{option: True} for option in declaration.options]
    try:
        _backend.use_implementation(implementation)
        for values in cases:
            for options in settings:
                results = []
                for backend in ("cython", "python"):
                    _backend.use(backend)
                    results.append(rows_of(answer(declaration.public, *values, **options)))
                assert results[0] == results[1], (name, options)
        assert results[0] and not isinstance(results[0][0], type)  # the last case answered
    finally:
        _backend.use(before[0])
        if before[1] != "python":
            _backend.use_implementation(before[1])


@pytest.mark.parametrize("name", DECLARATIONS)
def test_a_call_that_does_not_fit_the_signature_is_a_type_error_naming_the_function(name):
    declaration = DECLARATIONS[name]
    too_many = [1] * (len(declaration.inputs) + 1)
    with pytest.raises(TypeError, match=rf"^{declaration.function}\(\): too many positional"):
        declaration.public(*too_many)
    with pytest.raises(TypeError, match=rf"^{declaration.function}\(\): .*'bogus'"):
        declaration.public(*too_many[1:], bogus=1)
