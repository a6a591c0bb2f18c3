"""The examples in the docstrings and in README.md run, on both backends."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize(
    "module",
    [
        "fibnim",
        "fibnim.zeckendorf",
        "fibnim.wythoff",
        "fibnim.fibonacci_nim",
        "fibnim.power_nim",
        "fibnim.solvers",
        "fibnim.classify",
        "fibnim._backend",
    ],
)
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=FLAGS)
    assert result.failed == 0
    assert module == "fibnim" or result.attempted > 0


def test_readme_examples():
    if not README.exists():
        pytest.skip("README.md is not beside the tests (an installed test run)")
    result = doctest.testfile(str(README), module_relative=False, optionflags=FLAGS)
    assert result.failed == 0 and result.attempted > 0
