"""fibnim.zeckendorf against docs/math/zeckendorf.rst and docs/conventions.rst."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
from _support import UINT64_MAX, F, compiled_twin, decimal_phi, edge_values

import fibnim
from fibnim import _apply, _backend

F66 = F[66]


def greedy_code(n: int) -> int:
    """Zeckendorf by the greedy rule, written here apart from fibnim: bit i is F_{i+2}."""
    fibs = [1, 2]
    while fibs[-1] <= n:
        fibs.append(fibs[-1] + fibs[-2])
    code = 0
    for i in range(len(fibs) - 1, -1, -1):
        if fibs[i] <= n:
            code |= 1 << i
            n -= fibs[i]
    return code


# --- the worked examples of the docs ---------------------------------------------


def test_spec_examples():
    assert fibnim.encode(46) == 0b10010101 == 149
    assert fibnim.to_string(46) == "10010101"
    assert fibnim.to_string(17) == "100101"
    assert fibnim.to_string(17, style="silber") == "1001010"
    assert fibnim.to_string(8, style="silber") == "100000"
    assert fibnim.to_string(12, style="silber") == "101010"
    assert fibnim.to_string(0) == fibnim.to_string(0, style="silber") == "0"
    assert fibnim.second_canonical(8) == "10101"
    assert fibnim.to_string(7) == "1010" and fibnim.to_string(7, "silber") == "10100"
    assert fibnim.parse("11000", style="silber") == 8
    assert fibnim.parse("10010101") == 46
    assert fibnim.terms(46) == [34, 8, 3, 1]
    assert fibnim.terms(0) == []
    assert fibnim.lowest_term(0) == 0
    assert fibnim.lowest_term(46) == 1
    assert fibnim.is_fibonacci(0) is True
    assert fibnim.fib(92) == 7540113804746346429
    assert fibnim.fib(93) == 12200160415121876738
    assert fibnim.CODE_LIMIT == 27777890035288 == F66
    assert fibnim.decode(fibnim.encode(F66 - 1)) == F66 - 1


def test_scalars_give_python_values():
    for function in (fibnim.encode, fibnim.decode, fibnim.lowest_term, fibnim.fib):
        assert type(function(np.uint8(5))) is int
        assert type(function(5)) is int
    assert type(fibnim.is_fibonacci(np.int64(5))) is bool
    assert type(fibnim.to_string(np.uint64(5))) is str


def test_scalars_are_exact_for_any_size():
    for n in (F66, 2**64, 10**100 + 12345, F[300] - 1):
        code = fibnim.encode(n)
        assert code == greedy_code(n)
        assert fibnim.decode(code) == n
        assert fibnim.parse(fibnim.to_string(n)) == n
        assert sum(fibnim.terms(n)) == n
    assert fibnim.fib(1000) == _fib_by_loop(1000)
    assert fibnim.fib(5000) == _fib_by_loop(5000)
    assert fibnim.is_fibonacci(F[500]) and not fibnim.is_fibonacci(F[500] + 1)
    assert fibnim.lowest_term(F[400] + F[7]) == F[7]


def _fib_by_loop(k: int) -> int:
    a, b = 0, 1
    for _ in range(k):
        a, b = b, a + b
    return a


def test_parse_reads_non_canonical_strings():
    assert fibnim.parse("11") == 3  # F_3 + F_2
    assert fibnim.parse("11", style="silber") == 2  # F_2 + F_1
    assert fibnim.parse("0") == 0
    assert fibnim.parse("000101") == 4
    with pytest.raises(ValueError, match=r"s\[2\] = '2'"):
        fibnim.parse("102")
    with pytest.raises(ValueError, match="empty"):
        fibnim.parse("")
    with pytest.raises(TypeError):
        fibnim.parse(101)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="style"):
        fibnim.parse("101", style="binary")  # type: ignore[arg-type]


# --- encode and decode over arrays ---------------------------------------------------


def test_encode_every_small_n_against_greedy():
    n = np.arange(30_000, dtype=np.int64)
    codes = fibnim.encode(n)
    assert codes.dtype == np.uint64
    assert codes.tolist() == [greedy_code(v) for v in range(30_000)]


def test_encode_edges_against_greedy():
    values = edge_values(F66 - 1)
    codes = fibnim.encode(np.array(values, dtype=np.uint64))
    assert codes.tolist() == [greedy_code(v) for v in values]


def block_starts(j: int, count: int) -> list[int]:
    """S_j(m) for m < count: the values where the code bits from j up change."""
    return [_value(greedy_code(m) << j) for m in range(count)]


def _value(code: int) -> int:
    return sum(F[i + 2] for i in range(code.bit_length()) if code >> i & 1)


@pytest.mark.parametrize(
    ("j", "count", "limit"),
    # the scalar loop's blocks, then the vector encode's (simd_avx512.h)
    [
        (44, F[22], F66),
        (22, F[24], F[46]),
        (48, F[18], F66),
        (32, F[18], F[50]),
        (16, F[18], F[34]),
    ],
)
def test_encode_around_every_block_boundary(j, count, limit):
    # encode finds the code bits from j up with one estimate and one correction;
    # these are the n where that answer changes, and their neighbours.
    if _backend.name() == "python":
        count //= 16  # the pure twin is the same greedy the test holds it to
    starts = block_starts(j, count)
    low = F[j + 2] - 1  # the largest lower part
    values = sorted(
        {v for s in starts for v in (s - 1, s, s + 1, s + low, s + low // 2) if 0 <= v < limit}
    )
    codes = fibnim.encode(np.array(values, dtype=np.uint64))
    assert codes.tolist() == [greedy_code(v) for v in values]


def test_encode_estimate_bounds_hold():
    # The proof in fibnim_c/_scalar.pxd needs, for each block start j with its
    # (a, c): delta = 2**a / phi**j + n / 2**(40 + a) < 0.279 - 0.1709 ... and
    # the fixed-point product below 2**64 for every n < F_k it is used for.
    compiled = compiled_twin("zeckendorf")
    phi = decimal_phi(60)
    rho = Decimal(494780232499) / 2**40
    for j, a, c, k in compiled.ENCODE_LEVELS:
        assert j % 2 == 0  # F_j / phi**j < 1/sqrt5 needs an even j
        assert c == int(Decimal(2) ** (40 + a) / phi**j)
        n_max = F[k] - 1
        delta = Decimal(2) ** a / phi**j + Decimal(n_max) / Decimal(2) ** (40 + a)
        c_j = Decimal(F[j]) / phi**j
        assert rho > c_j / phi**2 + delta  # t >= m
        assert rho < 1 - c_j / phi  # t <= m + 1
        assert (n_max >> a) * c + 494780232499 < 2**64
    # wide_top's floor(m (phi - 1)) from one product, for m <= F_46 + 1: its
    # shortfall (below m / 2**64) is less than m (phi - 1)'s distance above
    # the integer below it (at least 1 / (sqrt5 m + 1))
    m_max = F[46] + 1
    assert m_max <= 2**31
    assert Decimal(m_max) / 2**64 < 1 / (Decimal(5).sqrt() * m_max + 1)


def test_vector_encode_estimates_hold():
    # The vector encode's t = (RHO + (n c_j >> 52)) >> 11 (fibnim_c/scalar.h)
    # must be m or m + 1 for the m whose code is n's bits from j up, and stay
    # inside the table (t <= F_18). t grows with n, so checking both ends of
    # each m's range of n checks every n < F_k.
    compiled = compiled_twin("zeckendorf")
    phi = decimal_phi(60)
    rho = compiled.VECTOR_ENCODE_RHO
    assert rho == int(Decimal("0.45") * 2**11)
    for j, c, k in compiled.VECTOR_ENCODE_LEVELS:
        assert c == int(Decimal(2) ** 63 / phi**j) and c < 2**52 and F[k] <= 2**52
        assert F[k] == _value(greedy_code(F[18]) << j)  # the blocks' ranges cover n < F_k
        starts = block_starts(j, F[18] + 1)
        for m in range(F[18]):
            for n in (starts[m], starts[m + 1] - 1):
                t = (rho + (n * c >> 52)) >> 11
                assert m <= t <= m + 1, (j, m, n, t)


def test_decode_inverts_encode():
    rng = np.random.default_rng(2)
    n = rng.integers(0, F66, size=5_000, dtype=np.int64)
    assert (fibnim.decode(fibnim.encode(n)) == n).all()
    assert fibnim.decode(np.array([], dtype=np.uint64)).dtype == np.int64


def test_decode_refuses_adjacent_bits():
    with pytest.raises(ValueError, match=r"decode: code\[2\] = 3 has two adjacent"):
        fibnim.decode([0, 1, 3])
    with pytest.raises(ValueError, match=r"code = 6 has two adjacent"):
        fibnim.decode(6)
    with pytest.raises(ValueError, match=r"code\[0\] = 12 has two adjacent"):
        fibnim.decode(np.array([12], dtype=object))
    largest = int("01" * 32, 2)  # every odd-numbered bit clear: a valid 64-bit code
    assert fibnim.decode(np.array([largest], dtype=np.uint64))[0] == _value(largest)


def test_encode_overflow_names_value_index_and_limit():
    n = np.array([[0, 5], [F66 - 1, F66]], dtype=np.int64)
    with pytest.raises(OverflowError, match=r"encode: n\[1, 1\] = 27777890035288 is F_66") as info:
        fibnim.encode(n)
    assert "digits()" in str(info.value)
    with pytest.raises(OverflowError):
        fibnim.encode(np.array([UINT64_MAX], dtype=np.uint64))


# --- dtypes, shapes, layouts ----------------------------------------------------------


@pytest.mark.parametrize(
    "dtype",
    [
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        ">i8",
        ">u4",
        "<i2",
    ],
)
def test_every_integer_dtype(dtype):
    n = np.arange(0, 100, dtype=dtype).reshape(4, 25)
    expected = [[greedy_code(v) for v in row] for row in n.tolist()]
    codes = fibnim.encode(n)
    assert codes.shape == (4, 25) and codes.dtype == np.uint64
    assert codes.tolist() == expected
    assert fibnim.decode(codes).tolist() == n.tolist()


def test_non_contiguous_and_read_only_inputs_are_not_modified():
    base = np.arange(60, dtype=np.int64).reshape(6, 10)
    view = base[::2, ::3]
    view_before = view.copy()
    base.setflags(write=False)
    assert fibnim.encode(view).tolist() == [[greedy_code(v) for v in row] for row in view.tolist()]
    assert fibnim.to_string(view.T)[1, 2] == fibnim.to_string(int(view[2, 1]))
    assert (view == view_before).all()


def test_zero_d_and_empty_arrays():
    result = fibnim.encode(np.array(46))
    assert isinstance(result, np.uint64) and result == 149
    assert isinstance(fibnim.is_fibonacci(np.array(8)), np.bool_)
    assert fibnim.to_string(np.array(46)) == "10010101"
    for empty in ([], np.array([], dtype=np.int8), np.zeros((0, 3), dtype=np.uint64)):
        assert fibnim.encode(empty).size == 0
        assert fibnim.to_string(empty).size == 0
        assert fibnim.digits(empty).shape == (*np.shape(empty), 1)


def test_chunk_boundaries(monkeypatch):
    monkeypatch.setattr(_apply, "CHUNK", 7)
    n = np.arange(50, dtype=np.int64)[::-1].copy()
    assert fibnim.encode(n).tolist() == [greedy_code(v) for v in n.tolist()]
    assert fibnim.digits(n).tolist() == fibnim.digits(n.tolist()).tolist()
    bad = n.copy()
    bad[23] = -4
    with pytest.raises(ValueError, match=r"n\[23\] = -4 is negative"):
        fibnim.encode(bad)


def test_out_argument():
    n = np.arange(10, dtype=np.int64)
    out = np.zeros(10, dtype=np.uint64)
    assert fibnim.encode(n, out=out) is out
    assert out.tolist() == [greedy_code(v) for v in range(10)]
    strided = np.zeros(20, dtype=np.int64)[::2]
    fibnim.decode(out, out=strided)
    assert strided.tolist() == list(range(10))
    flags = np.zeros(10, dtype=bool)
    fibnim.is_fibonacci(n, out=flags)
    assert flags.tolist() == [v in (0, 1, 2, 3, 5, 8) for v in range(10)]
    with pytest.raises(TypeError, match="Cannot cast"):  # a code may be above 2**63 - 1
        fibnim.encode(n, out=np.zeros(10, dtype=np.int64))
    with pytest.raises(ValueError, match=r"shape \(10,\)|shapes \(10,\),? \(9,\)"):
        fibnim.encode(n, out=np.zeros(9, dtype=np.uint64))


# --- object arrays: exact for any size ------------------------------------------------


def test_object_arrays_are_exact():
    big = [10**30, F[120], 2**64 + 1, 0]
    values = np.array(big, dtype=object)
    codes = fibnim.encode(values)
    assert codes.dtype == object and codes.tolist() == [greedy_code(v) for v in big]
    assert fibnim.decode(codes).tolist() == big
    assert fibnim.fib(np.array([100, 200], dtype=object)).tolist() == [
        _fib_by_loop(100),
        _fib_by_loop(200),
    ]
    flags = fibnim.is_fibonacci(values)
    assert flags.dtype == np.bool_ and flags.tolist() == [False, True, False, True]
    strings = fibnim.to_string(values)
    assert strings.dtype.kind == "U" and [fibnim.parse(s) for s in strings] == big
    assert fibnim.lowest_term(values).tolist() == [fibnim.lowest_term(v) for v in big]
    assert fibnim.digits(values).shape == (4, len(fibnim.to_string(10**30)))
    assert fibnim.second_canonical(np.array([8, 10**20], dtype=object))[0] == "10101"
    # a list with a value beyond uint64 becomes an object array, answered exactly
    assert fibnim.encode([1, 2**70]).tolist() == [1, greedy_code(2**70)]


# --- digits and strings -----------------------------------------------------------------


def test_digits_cover_every_uint64():
    values = np.array([0, 1, F[93] - 1, F[93], UINT64_MAX], dtype=np.uint64)
    rows = fibnim.digits(values)
    assert rows.shape == (5, 92) and rows.dtype == np.uint8
    for row, v in zip(rows, values.tolist(), strict=True):
        assert fibnim.parse("".join(map(str, row))) == v
        assert not (row[1:] & row[:-1]).any()
    assert fibnim.digits(UINT64_MAX).shape == (92,)
    assert fibnim.digits(0).tolist() == [0]
    assert fibnim.digits(4, width=5).tolist() == [0, 0, 1, 0, 1]


def test_digits_width_too_small():
    with pytest.raises(OverflowError, match=r"digits: n\[1\] = 13 needs more than width=5"):
        fibnim.digits([12, 13], width=5)
    assert fibnim.digits([12], width=5).tolist() == [[1, 0, 1, 0, 1]]
    with pytest.raises(OverflowError, match="width=2"):
        fibnim.digits(np.array([10**30], dtype=object), width=2)
    with pytest.raises(ValueError, match="width = 0"):
        fibnim.digits(3, width=0)
    with pytest.raises(TypeError):
        fibnim.digits(3, width=2.0)  # type: ignore[arg-type]


def test_strings_of_arrays():
    values = np.array([[0, 1, 2], [17, 46, UINT64_MAX]], dtype=np.uint64)
    strings = fibnim.to_string(values)
    assert strings.shape == (2, 3)
    assert strings.tolist() == [[fibnim.to_string(int(v)) for v in row] for row in values]
    silber = fibnim.to_string(values, style="silber")
    assert silber[1, 0] == "1001010" and silber[0, 0] == "0" and silber[0, 1] == "10"
    with pytest.raises(ValueError, match="style"):
        fibnim.to_string(values, style="binary")  # type: ignore[arg-type]


def second_canonical_by_definition(n: int) -> str:
    """Search every Silber string without adjacent ones whose lowest one is odd."""
    length = 1
    while F[length + 1] <= n + 1:
        length += 1
    found = []
    for bits in range(1, 1 << length):
        if bits & (bits >> 1):
            continue
        lowest = (bits & -bits).bit_length()  # position p stands for F_p
        if lowest % 2 == 1 and sum(F[i + 1] for i in range(length) if bits >> i & 1) == n:
            found.append(format(bits, "b"))
    assert len(found) == 1, (n, found)
    return found[0]


def test_second_canonical_against_its_definition():
    values = list(range(1, 400))
    assert fibnim.second_canonical(values).tolist() == [
        second_canonical_by_definition(v) for v in values
    ]
    # Silber's rule (docs/math/zeckendorf.rst): the canonical form of n - 1, plus
    # F_1, rounded up
    for n in (8, 12, 46, 1000):
        assert fibnim.parse(fibnim.second_canonical(n), style="silber") == n


def test_second_canonical_wide_values():
    values = np.array([F[66], F[66] + F[64], F[92], F[93], UINT64_MAX], dtype=np.uint64)
    strings = fibnim.second_canonical(values)
    for s, v in zip(strings.tolist(), values.tolist(), strict=True):
        assert s == fibnim.second_canonical(v)
        assert fibnim.parse(s, style="silber") == v and "11" not in s
        assert (len(s) - len(s.rstrip("0"))) % 2 == 0  # the lowest one stands at an odd position


def test_second_canonical_refuses_zero():
    with pytest.raises(ValueError, match="second_canonical: n = 0"):
        fibnim.second_canonical(0)
    with pytest.raises(ValueError, match=r"n\[1\] = 0"):
        fibnim.second_canonical(np.array([3, 0], dtype=np.uint8))


def test_lowest_term_and_is_fibonacci_over_uint64():
    values = edge_values(UINT64_MAX)
    array = np.array(values, dtype=np.uint64)
    lowest = fibnim.lowest_term(array)
    flags = fibnim.is_fibonacci(array)
    fib_set = set(F[:94])
    for v, low, flag in zip(values, lowest.tolist(), flags.tolist(), strict=True):
        code = greedy_code(v)
        assert low == (F[(code & -code).bit_length() + 1] if v else 0)
        assert flag == (v in fib_set)


def test_term_count_is_the_fewest_fibonacci_numbers_that_sum_to_n():
    # the fewest terms, by a search over every sum of Fibonacci numbers (repeats
    # allowed), is what Zeckendorf's greedy representation uses
    size = 3000
    fewest = [0] + [size] * size
    for n in range(1, size + 1):
        fewest[n] = 1 + min(fewest[n - f] for f in F[2:20] if f <= n)
    assert fibnim.term_count(np.arange(size + 1)).tolist() == fewest
    assert [fibnim.term_count(n) for n in range(0, size + 1, 97)] == fewest[::97]


def test_term_count_over_uint64_and_beyond():
    values = edge_values(UINT64_MAX)
    counts = fibnim.term_count(np.array(values, dtype=np.uint64))
    assert counts.dtype == np.uint8
    assert counts.tolist() == [greedy_code(v).bit_count() for v in values]
    large = [F[500] + F[300] + F[3], 2**70, 3**200]
    expected = [greedy_code(v).bit_count() for v in large]
    assert fibnim.term_count(np.array(large, dtype=object)).tolist() == expected
    assert [fibnim.term_count(v) for v in large] == expected
    assert fibnim.term_count(F[500] + F[300] + F[3]) == 3
    with pytest.raises(ValueError, match=r"term_count: n\[1\] = -1 is negative"):
        fibnim.term_count([5, -1])


def test_fib_arrays():
    k = np.arange(94, dtype=np.uint8)
    assert fibnim.fib(k).tolist() == F[:94]
    with pytest.raises(OverflowError, match=r"fib: k\[1\] = 94 is above 93"):
        fibnim.fib([93, 94])
    assert fibnim.fib(94) == F[94]


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "function",
    [
        fibnim.encode,
        fibnim.decode,
        fibnim.lowest_term,
        fibnim.is_fibonacci,
        fibnim.digits,
        fibnim.to_string,
        fibnim.second_canonical,
        fibnim.fib,
    ],
)
def test_bad_input(function):
    name = {"decode": "code", "fib": "k"}.get(function.__name__, "n")
    where = function.__name__
    with pytest.raises(ValueError, match=rf"{where}: {name} = -1 is negative"):
        function(-1)
    with pytest.raises(ValueError, match=rf"{name}\[0, 1\] = -7 is negative"):
        function(np.array([[1, -7]], dtype=np.int32))
    with pytest.raises(ValueError, match=rf"{name}\[1\] = -7 is negative"):
        function([1, -7])
    with pytest.raises(ValueError, match=rf"{name}\[1\] = -3"):
        function(np.array([1, -3], dtype=object))
    for bad in (2.0, float("nan"), True, np.float64(3), np.bool_(False), "5", None, 1 + 0j):
        with pytest.raises(TypeError):
            function(bad)
    with pytest.raises(TypeError, match=rf"float64 \({name}\[0\] = 1.5\)"):
        function(np.array([1.5, 2.0]))
    with pytest.raises(TypeError, match=rf"{name}\[1\] = True is a bool"):
        function([1, True])
    with pytest.raises(TypeError, match=rf"{name}\[2\] = 2.5 is a float"):
        function([1, 2, 2.5])
    with pytest.raises(TypeError, match=rf"{name}\[1\] = nan"):
        function(np.array([1, float("nan")], dtype=object))
    with pytest.raises(TypeError, match="bool"):
        function(np.array([True, False]))


def test_inputs_are_never_modified():
    n = np.array([5, 46, 1000], dtype=np.int64)
    objects = np.array([5, 10**30], dtype=object)
    lst = [5, 46]
    for function in (fibnim.encode, fibnim.lowest_term, fibnim.digits, fibnim.to_string):
        function(n)
        function(objects)
        function(lst)
    assert n.tolist() == [5, 46, 1000] and objects.tolist() == [5, 10**30] and lst == [5, 46]


def test_terms_takes_one_integer():
    with pytest.raises(TypeError, match="one integer"):
        fibnim.terms([1, 2])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="terms: n = -2 is negative"):
        fibnim.terms(-2)


def test_out_argument_for_object_arrays_and_strided_outputs():
    values = np.array([10**30, 5], dtype=object)
    out = np.empty(4, dtype=object)[::2]
    assert fibnim.encode(values, out=out) is out
    assert out.tolist() == [greedy_code(10**30), greedy_code(5)]
    flags = np.zeros(6, dtype=bool)[::3]
    fibnim.is_fibonacci(values, out=flags)
    assert flags.tolist() == [False, True]


def test_scalar_with_out():
    out = np.empty((), dtype=np.uint64)
    fibnim.encode(46, out=out)
    assert out[()] == 149


def test_wide_codes_around_the_top_block_boundaries():
    # Every uint64 at or above F_66 gets its code bits 48..91 from one more block
    # estimate (j = 48); these are the n where that block changes, and their neighbours.
    # Its m's own code bits 22..43 come from one estimate (j = 22) too: m
    # around where those change are among the m taken.
    rng = np.random.default_rng(48)
    m_values = [1, 2, 3, F[45], F[46] - 1, *rng.integers(1, F[46], size=300).tolist()]
    for q in [1, F[23] - 1, F[23], F[24] - 1, *rng.integers(1, F[24], size=100).tolist()]:
        start = _value(greedy_code(q) << 22)
        m_values += [m for m in (start - 1, start, start + 1) if m < F[46]]
    values = set()
    for m in m_values:
        start = _value(greedy_code(m) << 48)
        values.update(
            v for v in (start - 1, start, start + 1, start + F[50] - 1) if F66 <= v <= UINT64_MAX
        )
    values = sorted(values)
    rows = fibnim.digits(np.array(values, dtype=np.uint64), width=92)
    for row, v in zip(rows, values, strict=True):
        assert int("".join(map(str, row)), 2) == greedy_code(v), v
