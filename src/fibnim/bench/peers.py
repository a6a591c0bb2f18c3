"""Exact numba kernels, written as a skilled user would write them in an hour:
the peers that `fibnim bench --peers` times beside fibnim's kernels, in the
same run and on the same inputs (install them with ``pip install
"fibnim[peers]"``); tests/test_peers.py holds them to fibnim's answers.

Each is exact for every value fibnim takes (0 .. 2**63 - 1; codes below
2**64): plain uint64 loops that LLVM vectorizes, small tables, and
candidates (from 32-bit-limb products, double-double or float estimates)
confirmed exactly in a second loop where one falls too near a boundary; each
kernel's docstring says how. Exact 32-bit-limb products were 4 to 5 times as
fast as double-double candidates for is_safe and is_lower (on a Zen 3).

numba compiles for this process's CPU, or for NUMBA_CPU_NAME and
NUMBA_CPU_FEATURES where they are set (fibnim.bench.suite.NUMBA_TARGETS):
fibnim's bench sets both to match the implementation it times.
"""

from __future__ import annotations

import decimal
import fractions
import json
import math
import sys
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros as _leading_zeros

from fibnim.bench import run
from fibnim.bench.suite import CASES, Peer
from fibnim.bench.suite import FIB as _FIB
from fibnim.bench.suite import PHI as _PHI

U = np.uint64
_MASK32 = U(0xFFFFFFFF)
_SQRT5 = math.sqrt(5)
_LOG_PHI = math.log(_PHI)
_TWO64 = 2.0**64
# phi as a double-double, hi + lo, from its value to 50 digits
_FIFTY = decimal.Context(prec=50)
_PHI_DIGITS = fractions.Fraction(_FIFTY.add(_FIFTY.sqrt(decimal.Decimal(5)), 1)) / 2
_PHI_HI = float(_PHI_DIGITS)
_PHI_LO = float(_PHI_DIGITS - fractions.Fraction(_PHI_HI))
_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitter
# the double-double fractional parts are good to about 2**-40: nearer than this
# to a boundary, the exact integer path decides
_NEAR = 2.0**-30
_LOWER_CUT = 2 - _PHI  # x >= 1 is an A-number iff frac(x phi) > 2 - phi
#: The largest m whose a_m the kernels compute: isqrt(5 m^2) + 1 < 2**64. Every
#: a_m below 2**63 has m below 2**63 / phi, about 5.7 * 10**18.
BEATTY_MAX = U(8_000_000_000_000_000_000)

FIB = np.array(_FIB, dtype=np.uint64)  # F_0 .. F_93
# DECODE[j, v]: the sum of F_{8j + i + 2} over the bits i of the byte v
DECODE = np.zeros((8, 256), dtype=np.uint64)
for _j in range(8):
    for _v in range(256):
        DECODE[_j, _v] = sum(_FIB[8 * _j + _i + 2] for _i in range(8) if _v >> _i & 1)

leading_zeros: Any = _leading_zeros  # LLVM's ctlz: lzcnt where the target has it

jit = numba.njit(nogil=True, error_model="numpy")  # numpy: no exception checks per division
inline = numba.njit(inline="always", nogil=True, error_model="numpy")


@inline
def _mul128(a: Any, b: Any) -> tuple[Any, Any]:
    """a * b as (high, low) 64-bit halves, from 32-bit limbs."""
    a0, a1 = a & _MASK32, a >> U(32)
    b0, b1 = b & _MASK32, b >> U(32)
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    middle = (p00 >> U(32)) + (p01 & _MASK32) + (p10 & _MASK32)
    high = p11 + (p01 >> U(32)) + (p10 >> U(32)) + (middle >> U(32))
    return high, (p00 & _MASK32) | (middle << U(32))


@inline
def _above(ah: Any, al: Any, bh: Any, bl: Any) -> Any:
    """(ah, al) > (bh, bl) as 128-bit numbers, without a branch."""
    return U((ah > bh) | ((ah == bh) & (al > bl)))


@inline
def beatty(m: Any) -> Any:
    """floor(m phi) = (m + isqrt(5 m^2)) // 2 for 0 <= m <= BEATTY_MAX, exactly,
    without a branch on m: isqrt from a float estimate, one Newton step on the
    exact 128-bit remainder, and a check of s^2 <= 5 m^2 < (s + 1)^2."""
    high, low = _mul128(m, m)  # 5 m^2 = 4 m^2 + m^2
    low4 = low << U(2)
    low5 = low4 + low
    high5 = (high << U(2)) + (low >> U(62)) + high + U(low5 < low4)
    s = U(float(m) * _SQRT5)  # within a few thousand of isqrt(5 m^2)
    sh, sl = _mul128(s, s)
    # the remainder 5 m^2 - s^2 in two's complement: its high half is small
    rest_high = np.int64(high5 - sh - U(low5 < sl))
    rest = float(rest_high) * _TWO64 + float(low5 - sl)
    s = U(np.int64(s) + np.int64(round(rest / (2.0 * float(s) + 1.0))))  # one Newton step
    sh, sl = _mul128(s, s)
    s -= _above(sh, sl, high5, low5)  # now s^2 <= 5 m^2
    sh, sl = _mul128(s + U(1), s + U(1))
    s += U(1) - _above(sh, sl, high5, low5)  # and 5 m^2 < (s + 1)^2
    return (m >> U(1)) + (s >> U(1)) + (m & s & U(1))


@inline
def _two_product(a: float, b: float) -> tuple[float, float]:
    """a * b = p + e exactly (Dekker's product, by Veltkamp's split)."""
    p = a * b
    t = _SPLIT * a
    a_hi = t - (t - a)
    a_lo = a - a_hi
    t = _SPLIT * b
    b_hi = t - (t - b)
    b_lo = b - b_hi
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


@inline
def floor_phi(m: Any) -> tuple[Any, float]:
    """(floor(m phi), frac(m phi)) for m < 2**63 in double-double arithmetic: the
    fraction good to about 2**-40, and the floor exact unless the fraction is
    within _NEAR of 0 or 1."""
    high = float(m)
    low = float(np.int64(m - U(high)))  # what rounding m to a double left out, exactly
    p, e = _two_product(high, _PHI_HI)
    whole = np.floor(p)  # a double: numba's math.floor is an int64, too small here
    fraction = (p - whole) + (e + high * _PHI_LO + low * _PHI_HI)
    carry = np.floor(fraction)
    return U(whole) + U(np.int64(carry)), fraction - carry


@inline
def _unsure(fraction: float) -> bool:
    """Whether a double-double fraction is too near 0 or 1 to trust its floor."""
    return (fraction < _NEAR) | (fraction > 1.0 - _NEAR)


# Each Wythoff kernel is two loops: the double-double one over every element,
# which LLVM vectorizes, and only where it met an unsure fraction, one that
# redoes those elements exactly. With the exact path inside the first loop,
# LLVM computed it for every element (a branch in a vector loop runs both
# sides): 6.7 ns an element against 1.1.


_GOLDEN_BITS = 0x9E3779B97F4A7C15  # floor(2**64 (phi - 1))
_GOLDEN = U(_GOLDEN_BITS)
_GOLDEN_LOW_LIMB = U(0xF39CC060)  # the top limb of the next 64 bits of phi - 1
_CARRY_WINDOW = 2**33
_NEAR_TOP = U(2**64 - _CARRY_WINDOW)  # a sum from here up may carry once more


@inline
def _golden_split(m: Any) -> tuple[Any, bool]:
    """(floor(m (phi - 1)) for m < 2**63; unsure): the high word of m * _GOLDEN
    from 32-bit limbs, plus the carry of its low word with the next bits'
    product, estimated from their high limbs (at most 2**33 low): unsure
    where that sum lands within the window below 2**64."""
    high, low = _mul128(m, _GOLDEN)
    total = low + (m >> U(32)) * _GOLDEN_LOW_LIMB
    carried = total < low
    return high + U(carried), (not carried) & (total >= _NEAR_TOP)


@jit
def is_safe(x: Any, y: Any, out: Any) -> None:
    """By exact 32-bit-limb products: (s, l) is safe iff s = a_d, d = l - s,
    and a_d = d + floor(d (phi - 1))."""
    unsure = False
    for i in range(x.size):
        a, b = U(x[i]), U(y[i])
        small, large = min(a, b), max(a, b)
        d = large - small
        split, doubt = _golden_split(d)
        out[i] = small == d + split
        unsure |= doubt
    if not unsure:
        return
    for i in range(x.size):
        a, b = U(x[i]), U(y[i])
        small, large = min(a, b), max(a, b)
        d = large - small
        if _golden_split(d)[1]:
            out[i] = d <= BEATTY_MAX and beatty(d) == small


@jit
def pair(n: Any, a: Any, b: Any) -> None:
    """(a_m, b_m) = (m + floor(m (phi - 1)), a_m + m), by _golden_split."""
    unsure = False
    for i in range(n.size):
        m = U(n[i])
        split, doubt = _golden_split(m)
        a[i] = m + split
        b[i] = m + split + m
        unsure |= doubt
    if not unsure:
        return
    for i in range(n.size):
        m = U(n[i])
        if _golden_split(m)[1]:
            a[i] = beatty(m)
            b[i] = a[i] + m


_A_CUT = U(2**64 - _GOLDEN_BITS)  # 2**64 (2 - phi) rounded up: A-numbers lie above
_SURELY_B = U(2**64 - _GOLDEN_BITS - 1 - _CARRY_WINDOW)  # and B-numbers below this


@inline
def _lower(v: Any) -> tuple[bool, bool]:
    """(whether v is an A-number, by the fraction of _golden_split's sum,
    which is at most 2**33 below 2**64 frac(v (phi - 1)); unsure)."""
    total = v * _GOLDEN + (v >> U(32)) * _GOLDEN_LOW_LIMB  # the low words, wrapping
    lower = total >= _A_CUT
    doubt = (total >= _NEAR_TOP) | ((total >= _SURELY_B) & (total < _A_CUT))
    return (v >= U(1)) & lower, (v >= U(1)) & doubt


@jit
def is_lower(x: Any, out: Any) -> None:
    unsure = False
    for i in range(x.size):
        out[i], doubt = _lower(U(x[i]))
        unsure |= doubt
    if not unsure:
        return
    for i in range(x.size):
        v = U(x[i])
        if _lower(v)[1]:
            # exactly: v = a_m needs m = ceil(v / phi) = floor(v / phi) + 1, and
            # floor(v phi) - v is floor(v / phi) but for one
            m = floor_phi(v)[0] - v
            out[i] = beatty(m) == v or beatty(m + U(1)) == v or beatty(m + U(2)) == v


@inline
def _over_phi(x: Any) -> Any:
    """floor(x / phi) for 1 <= x < 2**63, exactly: the largest c with a_c < x
    (c phi is irrational, so c <= x / phi iff a_c < x), from the float's c."""
    c = floor_phi(x)[0] - x  # floor(x phi) - x = floor(x / phi), but for one
    c = c - U(2) if c >= U(2) else U(0)
    while beatty(c + U(1)) < x:
        c += U(1)
    return c


@inline
def _silber(x: Any, y: Any, s: Any, low: Any, c: Any, lower: bool, safe: bool) -> tuple[Any, Any]:
    """Silber's winning move from (x, y) as targets in their pile order (-1, -1
    from a safe pair): s the smaller pile, low = a_(l - s), c = floor(s / phi),
    lower whether s is an A-number (then s = a_(c+1), its partner s + c + 1; a
    B-number's partner is c)."""
    large = max(x, y)
    partner = s + c + U(1) if lower else c
    if safe:
        return -1, -1
    if s == large or s == U(0):
        small_to, large_to = U(0), U(0)
    elif not lower or large > partner:
        small_to, large_to = s, partner
    else:
        small_to, large_to = low, low + (large - s)
    if x <= y:
        return np.int64(small_to), np.int64(large_to)
    return np.int64(large_to), np.int64(small_to)


@inline
def _move_by_floats(a: Any, b: Any) -> tuple[Any, Any, bool]:
    """(the winning move's targets from (a, b) by the double-double floors;
    unsure)."""
    s = min(a, b)
    low, fraction_d = floor_phi(max(a, b) - s)
    whole, fraction_s = floor_phi(s)
    doubt = _unsure(fraction_d) | _unsure(fraction_s) | (abs(fraction_s - _LOWER_CUT) < _NEAR)
    lower = (s >= U(1)) & (fraction_s > _LOWER_CUT)
    small_to, large_to = _silber(a, b, s, low, whole - s, lower, low == s)
    return small_to, large_to, doubt


@inline
def _move_exactly(a: Any, b: Any) -> tuple[Any, Any]:
    s = min(a, b)
    d = max(a, b) - s
    low = beatty(d) if d <= BEATTY_MAX else ~U(0)  # beyond: a_d > 2**63 > s
    c = _over_phi(s) if s >= U(1) else U(0)
    lower = s >= U(1) and beatty(c + U(1)) == s
    return _silber(a, b, s, low, c, lower, low == s)


@jit
def winning_move(x: Any, y: Any, tx: Any, ty: Any) -> None:
    unsure = False
    for i in range(x.size):
        tx[i], ty[i], doubt = _move_by_floats(U(x[i]), U(y[i]))
        unsure |= doubt
    if not unsure:
        return
    for i in range(x.size):
        a, b = U(x[i]), U(y[i])
        if _move_by_floats(a, b)[2]:
            tx[i], ty[i] = _move_exactly(a, b)


@inline
def _move_by_limbs(a: Any, b: Any) -> tuple[Any, Any, bool]:
    """(the winning move's targets from (a, b) by _golden_split's exact limb
    products, with no branch on the position; unsure): with s <= l the piles,
    d = l - s, c = floor(s (phi - 1)) and n = c + 1 where s is an A-number (s =
    a_n) else c (s's partner, a_c): P iff s = a_d; along the diagonal to
    (a_d, a_d + d) where s = a_n with n > d, or d = 0; else l down to s's
    partner, s + n or n."""
    s, large = min(a, b), max(a, b)
    d = large - s
    split, doubt_d = _golden_split(d)
    c, doubt_s = _golden_split(s)
    lower, doubt_l = _lower(s)
    a_d = d + split
    n = c + U(lower)
    diagonal = (lower & (n > d)) | (d == U(0))
    small_to = a_d if diagonal else s
    large_to = a_d + d if diagonal else s * U(lower) + n
    if s == a_d:
        small_to, large_to = ~U(0), ~U(0)
    first, second = (small_to, large_to) if a <= b else (large_to, small_to)
    return np.int64(first), np.int64(second), doubt_d | doubt_s | doubt_l


@jit
def winning_move_limbs(x: Any, y: Any, tx: Any, ty: Any) -> None:
    """winning_move as the is_safe above goes: 64 x 64 products in 32-bit limbs
    (LLVM vectorizes them), a branch-free move, the unsure few redone exactly."""
    unsure = False
    for i in range(x.size):
        tx[i], ty[i], doubt = _move_by_limbs(U(x[i]), U(y[i]))
        unsure |= doubt
    if not unsure:
        return
    for i in range(x.size):
        a, b = U(x[i]), U(y[i])
        if _move_by_limbs(a, b)[2]:
            tx[i], ty[i] = _move_exactly(a, b)


@jit
def classify_wythoff_limbs(p: Any, out: Any) -> None:
    """classify's rows as one flat loop of winning_move_limbs' move, over the
    rows' flat views (2-d indexing kept LLVM from vectorizing it: 3x slower)."""
    unsure = False
    piles, rows = p.reshape(-1), out.reshape(-1)
    for i in range(out.shape[0]):
        small_to, large_to, doubt = _move_by_limbs(U(piles[2 * i]), U(piles[2 * i + 1]))
        rows[3 * i] = np.int64(small_to == -1)
        rows[3 * i + 1] = small_to
        rows[3 * i + 2] = large_to
        unsure |= doubt
    if not unsure:
        return
    for i in range(out.shape[0]):
        a, b = U(p[i, 0]), U(p[i, 1])
        if _move_by_limbs(a, b)[2]:
            small_to, large_to = _move_exactly(a, b)
            out[i, 0], out[i, 1], out[i, 2] = small_to == -1, small_to, large_to


@jit
def classify_wythoff(p: Any, out: Any) -> None:
    """classify's rows (P or not, the winning move's targets) in one pass over
    the positions, fused as winning_move's two loops."""
    unsure = False
    for i in range(out.shape[0]):
        small_to, large_to, doubt = _move_by_floats(U(p[i, 0]), U(p[i, 1]))
        out[i, 0], out[i, 1], out[i, 2] = small_to == -1, small_to, large_to
        unsure |= doubt
    if not unsure:
        return
    for i in range(out.shape[0]):
        a, b = U(p[i, 0]), U(p[i, 1])
        if _move_by_floats(a, b)[2]:
            small_to, large_to = _move_exactly(a, b)
            out[i, 0], out[i, 1], out[i, 2] = small_to == -1, small_to, large_to


@inline
def _top_index(n: Any) -> int:
    """The k with F_k <= n < F_{k+1}, n >= 1."""
    k = min(int(math.log(float(n) * _SQRT5) / _LOG_PHI + 0.5), 92)
    while FIB[k] > n:
        k -= 1
    while k < 93 and FIB[k + 1] <= n:
        k += 1
    return k


@inline
def _greedy(n: Any) -> tuple[Any, Any]:
    """(the Zeckendorf code of n < F_66, its lowest term) by the greedy rule;
    the lowest term for any n < 2**64 (the code's bits stop at F_65)."""
    rest, code, lowest = n, U(0), U(0)
    if rest:
        k = _top_index(rest)
        while rest:
            if FIB[k] <= rest:
                rest -= FIB[k]
                code |= U(1) << U(min(k - 2, 63))  # k > 65 only past F_66: no code
                lowest = FIB[k]
                k -= 2  # the next term is no neighbour
            else:
                k -= 1
    return code, lowest


def _block_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CODE[m]: the Zeckendorf code of m < F_24 (22 bits); S44[m] and S22[m]:
    the value of m's code shifted up 44 and 22 places (m <= F_22, F_24)."""
    m = np.arange(_FIB[24] + 1, dtype=np.uint64)
    code = np.zeros_like(m)
    rest = m.copy()
    s22 = np.zeros_like(m)
    for k in range(24, 1, -1):  # greedy, every m at once
        take = rest >= FIB[k]
        rest[take] -= FIB[k]
        code[take] |= U(1) << U(k - 2)
        s22[take] += FIB[k + 22]
    s44 = np.zeros(_FIB[22] + 1, dtype=np.uint64)
    for k in range(2, 24):
        s44 += np.where((code[: s44.size] >> U(k - 2)) & U(1), FIB[k + 44], U(0))
    return code, s44, s22


CODE, S44, S22 = _block_tables()


@inline
def _block(n: Any, scale: float, sums: Any) -> Any:
    """The m whose code is n's code from bit j up (sums[m] = S_j(m), scale =
    phi**-j): x - 1.28 < m < x + 0.18 for x = n phi**-j (j even), so floor(x +
    0.45) is m or m + 1, and one look-up tells which."""
    t = U(float(n) * scale + 0.45)
    return t - U(sums[t] > n)


@jit
def encode(n: Any, out: Any) -> None:
    """Codes of n < F_66 by blocks of 22 bits: a float estimate of each block
    and a table of its values, then a table of the codes below F_24."""
    for i in range(n.size):
        v = U(n[i])
        top = _block(v, _PHI**-44, S44)
        v -= S44[top]
        middle = _block(v, _PHI**-22, S22)
        out[i] = CODE[top] << U(44) | CODE[middle] << U(22) | CODE[v - S22[middle]]


@jit
def decode(codes: Any, out: Any) -> None:
    for i in range(codes.size):
        c = U(codes[i])
        total = U(0)
        for j in range(8):
            total += DECODE[j, (c >> U(8 * j)) & U(255)]
        out[i] = np.int64(total) if c & (c >> U(1)) == U(0) else np.int64(-1)


def _arc_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ARCS[j]: the arc of x(v) = v / phi mod 1 (in 2**-64 units, start and
    length) on which v's lowest Zeckendorf index is at least j; by the bit
    length b of a bound r, the j of r's lowest index above it is
    FIRST[b] + [r >= ABOVE[b, 0]] + [r >= ABOVE[b, 1]]."""
    context = decimal.Context(prec=80)
    phi = (context.sqrt(decimal.Decimal(5)) + 1) / 2
    arcs = np.zeros((96, 2), dtype=np.uint64)
    for j in range(2, 96):
        power = j - 1 if j % 2 == 0 else j
        start = -context.power(phi, -power)
        start -= start.to_integral_value(rounding=decimal.ROUND_FLOOR)
        length = context.power(phi, -(j - 2))
        arcs[j, 0] = int(start * 2**64)
        arcs[j, 1] = min(int(length * 2**64), 2**64 - 1)
    first = np.zeros(65, dtype=np.int64)
    above = np.zeros((65, 2), dtype=np.uint64)
    for bits in range(65):
        low = 1 << (bits - 1) if bits else 0  # a bound 0 allows no move: j = 2
        top = max(k for k in range(1, 92) if _FIB[k] <= low) if bits else 1
        first[bits] = top + 1
        above[bits] = _FIB[top + 1], _FIB[top + 2]
    return arcs, first, above


ARCS, FIRST, ABOVE = _arc_tables()
# floor(2**128 / phi) = floor(2**128 (sqrt5 - 1) / 2) as two words
_PHI_WORDS = divmod((math.isqrt(5 << 256) - (1 << 128)) // 2, 2**64)
PHI_HIGH_WORD, PHI_LOW_WORD = U(_PHI_WORDS[0]), U(_PHI_WORDS[1])
_MARGIN = U(8)  # X is at most 2 below the true fraction, the tables 1 below


@inline
def _arc_test(v: Any, bound: Any) -> tuple[bool, bool]:
    """(whether v's lowest Zeckendorf term exceeds bound, by the arc test;
    unsure): x(v) in 64-bit fixed point against the arc of bound's j."""
    bits = U(64) - leading_zeros(bound)
    j = FIRST[bits] + np.int64(bound >= ABOVE[bits, 0]) + np.int64(bound >= ABOVE[bits, 1])
    x = v * PHI_HIGH_WORD + _mul128(v, PHI_LOW_WORD)[0]
    u = x - ARCS[j, 0]
    length = ARCS[j, 1]
    doubt = (u + _MARGIN < U(2) * _MARGIN) | (u - length + _MARGIN < U(2) * _MARGIN)
    return u < length, doubt


@jit
def fibonacci_nim_is_p(n: Any, r: Any, out: Any) -> None:
    """The arc test over every position, then the greedy rule where it was
    too near an arc's end to say (about 16 in 2**64 of random piles)."""
    unsure = False
    for i in range(n.size):
        out[i], doubt = _arc_test(U(n[i]), U(r[i]))
        unsure |= doubt
    if not unsure:
        return
    for i in range(n.size):
        if _arc_test(U(n[i]), U(r[i]))[1]:
            lowest = _greedy(U(n[i]))[1]
            out[i] = lowest == U(0) or lowest > U(r[i])


@inline
def _lowest_two(k: Any) -> tuple[int, int]:
    """The indices of the two lowest Zeckendorf terms of k (0 where absent), by
    the greedy rule."""
    first = second = 0
    rest = k
    index = _top_index(rest) if rest else 0
    while rest:
        if FIB[index] <= rest:
            rest -= FIB[index]
            first, second = index, first
            index -= 2
        else:
            index -= 1
    return first, second


@jit
def global_is_p_two_piles(piles: Any, r: Any, out: Any) -> None:
    """Two-pile global Fibonacci Nim's P-positions by the closed form of
    docs/math/fibonacci_nim.rst (two piles), from the greedy rule."""
    for i in range(r.size):
        x, y = U(piles[i, 0]), U(piles[i, 1])
        m, large = min(x, y), max(x, y)
        bound = min(U(r[i]), large)
        if bound == U(0):
            out[i] = True
            continue
        t = _top_index(bound)
        first, second = _lowest_two(large - m)
        if first == 0 or first >= t + 2:
            out[i] = True
        elif first <= t:
            out[i] = False
        elif m < FIB[t]:
            out[i] = True
        elif second != 0 and m >= FIB[second - 1] - FIB[t + 1]:
            out[i] = (second - t) % 2 == 0
        else:
            out[i] = (_top_index(m + FIB[t + 1]) - t - 1) % 2 == 0


@jit
def power_nim_two_piles(piles: Any, r: Any, out: Any) -> None:
    for i in range(r.size):
        x = U(piles[i, 0]) ^ U(piles[i, 1])
        out[i] = x == U(0) or (x & (U(0) - x)) > U(r[i])


_PARALLEL: dict[tuple[str, int], Any] = {}


def on_every_core(kernel_name: str, arity: int) -> Any:
    """kernel on every core numba has, as a numba user writes it: a prange over
    parts of the arrays (eight a thread, so that a slow part does not hold
    the rest), each part the single-thread kernel with its own exact second
    pass (`parallel=True`)."""
    key = (kernel_name, arity)
    if key in _PARALLEL:
        return _PARALLEL[key]
    kernel = globals()[kernel_name]
    parallel: Any = numba.njit(parallel=True, nogil=True, error_model="numpy")
    if arity == 2:

        def split2(a: Any, b: Any) -> None:
            parts = 8 * numba.get_num_threads()
            for k in numba.prange(parts):
                low, high = len(b) * k // parts, len(b) * (k + 1) // parts
                kernel(a[low:high], b[low:high])

        made = parallel(split2)
    elif arity == 3:

        def split3(a: Any, b: Any, c: Any) -> None:
            parts = 8 * numba.get_num_threads()
            for k in numba.prange(parts):
                low, high = len(c) * k // parts, len(c) * (k + 1) // parts
                kernel(a[low:high], b[low:high], c[low:high])

        made = parallel(split3)
    else:

        def split4(a: Any, b: Any, c: Any, d: Any) -> None:
            parts = 8 * numba.get_num_threads()
            for k in numba.prange(parts):
                low, high = len(d) * k // parts, len(d) * (k + 1) // parts
                kernel(a[low:high], b[low:high], c[low:high], d[low:high])

        made = parallel(split4)
    _PARALLEL[key] = made
    return made


def peer_call(
    peer: Peer, inputs: dict[str, Any], every_core: bool = False
) -> Callable[[], tuple[np.ndarray, ...]]:
    """A case's peer (`Case.peer`: a kernel of this module) on its inputs, into
    outputs made once (as the case's own call has them), compiled and run once
    already: the returned call runs the kernel alone and returns its outputs.
    every_core: its `on_every_core` twin."""
    kernel_name, names, dtypes = peer
    kernel = (
        on_every_core(kernel_name, len(names) + len(dtypes))
        if every_core
        else globals()[kernel_name]
    )
    arguments = [inputs[n] for n in names]
    size = len(arguments[-1])
    outs: tuple[np.ndarray, ...] = tuple(
        np.empty((size, spec[1]), spec[0]) if isinstance(spec, tuple) else np.empty(size, spec)
        for spec in dtypes
    )

    def call() -> tuple[np.ndarray, ...]:
        kernel(*arguments, *outs)
        return outs

    call()  # numba compiles here, not in the timing
    return call


def main(arguments: list[str]) -> None:
    """python -m fibnim.bench.peers NAME FLOOR REPEATS INPUTS.npz prints the
    figures of case NAME's peer as JSON: ns per element, and the median of its
    times over its floor's, the two timed in turns (fibnim.bench.run.paired),
    and ns per element of its `on_every_core` twin (every_core_ns). A
    process of its own, for NUMBA_CPU_NAME and NUMBA_CPU_FEATURES to choose what
    numba compiles for (it reads them once, when it starts): fibnim.bench.run
    starts it."""
    name, floor, repeats, path = arguments
    peer = next(case.peer for case in CASES if case.name == name)
    assert peer is not None, f"{name} has no peer"
    with np.load(path) as saved:
        inputs = {key: saved[key] for key in saved.files}
    size = len(inputs[peer[1][-1]])
    call = peer_call(peer, inputs)
    seconds, _, ratios = run.paired(
        lambda: call, lambda: run.floor_call(floor, size), int(repeats)
    )
    every_core = run.timed(peer_call(peer, inputs, every_core=True), int(repeats))
    print(
        json.dumps(
            {
                "ns": seconds["median"] / size * 1e9,
                "x_floor": float(np.median(ratios)),
                "every_core_ns": every_core["median"] / size * 1e9,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
