"""Invariants of the Zeckendorf number system, with Hypothesis."""

from __future__ import annotations

import numpy as np
from _support import UINT64_MAX, F
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fibnim

F66 = F[66]
below_f66 = st.integers(0, F66 - 1)
any_uint64 = st.integers(0, UINT64_MAX)
code_arrays = hnp.arrays(np.int64, hnp.array_shapes(max_dims=3, max_side=6), elements=below_f66)


@given(code_arrays)
def test_decode_encode_round_trip(n):
    assert (fibnim.decode(fibnim.encode(n)) == n).all()


@given(code_arrays)
def test_no_two_adjacent_bits(n):
    codes = fibnim.encode(n)
    assert not (codes & (codes >> np.uint64(1))).any()


@given(below_f66, below_f66)
def test_codes_are_ordered_like_numbers(n, m):
    codes = fibnim.encode([n, m])
    assert (n < m) == (codes[0] < codes[1])
    assert (n == m) == (codes[0] == codes[1])


@given(st.lists(any_uint64, min_size=1, max_size=20))
def test_digits_reconstruct_n(values):
    rows = fibnim.digits(np.array(values, dtype=np.uint64))
    width = rows.shape[1]
    weights = [F[width + 1 - j] for j in range(width)]
    assert [sum(int(d) * w for d, w in zip(row, weights, strict=True)) for row in rows] == values
    assert not (rows[:, 1:] & rows[:, :-1]).any()


@given(st.lists(any_uint64, min_size=1, max_size=20))
def test_term_count_counts_the_digits_set(values):
    array = np.array(values, dtype=np.uint64)
    assert (fibnim.term_count(array) == fibnim.digits(array).sum(axis=-1)).all()


@given(st.integers(1, 10**40))
def test_removing_the_lowest_term_removes_one_term(n):
    assert fibnim.term_count(n - fibnim.lowest_term(n)) == fibnim.term_count(n) - 1


@given(st.integers(0, 10**40))
def test_strings_parse_back(n):
    assert fibnim.parse(fibnim.to_string(n)) == n
    assert fibnim.parse(fibnim.to_string(n, style="silber"), style="silber") == n
    assert sum(fibnim.terms(n)) == n


@given(st.integers(1, 10**30))
def test_second_canonical_is_a_representation_with_odd_lowest_index(n):
    s = fibnim.second_canonical(n)
    assert fibnim.parse(s, style="silber") == n
    assert "11" not in s
    assert (len(s) - len(s.rstrip("0"))) % 2 == 0  # position 1 + trailing zeros is odd


@given(any_uint64)
def test_lowest_term_is_the_smallest_term(n):
    assert fibnim.lowest_term(np.array([n], dtype=np.uint64))[0] == (
        min(fibnim.terms(n)) if n else 0
    )
    assert fibnim.is_fibonacci(np.array([n], dtype=np.uint64))[0] == (len(fibnim.terms(n)) <= 1)
