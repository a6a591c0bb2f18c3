"""The Zeckendorf number system on Python ints, exact for any size.

The reference the kernels are held against: plain greedy Zeckendorf, written
to be obviously right. The pure twin's kernels and the public scalar paths use
it; nothing here knows about arrays or checks its input.

Conventions of docs/math/zeckendorf.rst: a code has bit i set when F_{i+2} is a
term; a Silber code has bit i set when F_{i+1} is a term.
"""

from __future__ import annotations

import math
from functools import lru_cache

_FIB = [0, 1]
while len(_FIB) < 160:
    _FIB.append(_FIB[-1] + _FIB[-2])
_SMALL = _FIB[150]  # below it, the plain greedy rule on the table is fastest


def fib(k: int) -> int:
    """F_k for k >= 0 (fast doubling beyond the table)."""
    return _FIB[k] if k < len(_FIB) else _fib_pair(k)[0]


@lru_cache(maxsize=256)
def _fib_pair(k: int) -> tuple[int, int]:
    """(F_k, F_{k+1}), by fast doubling: O(log k) products."""
    a, b = 0, 1  # (F_i, F_{i+1}) for the prefix i of k's bits read so far
    for bit in bin(k)[2:]:
        a, b = a * (2 * b - a), a * a + b * b
        if bit == "1":
            a, b = b, a + b
    return a, b


def top_index(n: int) -> int:
    """The index k of the largest Fibonacci number F_k <= n, n >= 1 (k >= 2)."""
    if n < _FIB[-1]:
        k = 2
        while _FIB[k + 1] <= n:
            k += 1
        return k
    # F_k is about phi**k / sqrt5: an estimate from the bit length, then a step or two
    k = int((n.bit_length() - 1) * 1.4404200904125564)
    f, g = _fib_pair(k)
    while g <= n:
        f, g, k = g, f + g, k + 1
    while f > n:
        f, g, k = g - f, f, k - 1
    return k


def _greedy(n: int) -> int:
    result, k = 0, len(_FIB) - 1
    while n:
        while _FIB[k] > n:
            k -= 1
        result |= 1 << (k - 2)
        n -= _FIB[k]
    return result


def _right_shift(t: int) -> int:
    """floor((t + 1) / phi): for t >= 0, the sum of F_{i+1} over t's code bits i."""
    a = t + 1
    return (math.isqrt(5 * a * a) - a) // 2


def code(n: int) -> int:
    """The Zeckendorf code of n >= 0.

    The greedy rule below F_150; above it, divide and conquer, so that the work
    is a few products of the size of n per halving rather than one subtraction
    per term. With an even j near half of n's top index, the code bits from j
    up are those of the largest t with S_j(t) <= n, where S_j(t) is the value
    of t's code shifted up j places: S_j(t) = F_{j+1} t + F_j p(t), p(t) =
    floor((t + 1) / phi) (the identity F_{i+2+j} = F_{j+1} F_{i+2} + F_j F_{i+1}
    summed over t's code bits i). t is within 1.3 of n / phi**j (the estimate of
    _scalar.pxd's encode), computed exactly as (n L_j - sqrt(5) n F_j) / 2 with
    isqrt; a step or two settles it. The bits below j are the code of n - S_j(t).
    """
    if n < _SMALL:
        return _greedy(n)
    j = ((top_index(n) - 2) // 2) & ~1
    fj, fj1 = _fib_pair(j)
    m = n * fj
    t = (n * (2 * fj1 - fj) - math.isqrt(5 * m * m)) // 2 + 1  # L_j = 2 F_{j+1} - F_j
    s = fj1 * t + fj * _right_shift(t)
    while s > n:
        t -= 1
        s = fj1 * t + fj * _right_shift(t)
    while (after := fj1 * (t + 1) + fj * _right_shift(t + 1)) <= n:
        t, s = t + 1, after
    return (code(t) << j) | code(n - s)


def _sums(bits: int, width: int) -> tuple[int, int]:
    """(sum of F_{i+2}, sum of F_{i+1}) over the set bits i < width of bits.

    Halves add up: with h low bits, a high bit i' stands for F_{h+i'+2} =
    F_{h+1} F_{i'+2} + F_h F_{i'+1} and F_{h+i'+1} = F_h F_{i'+2} + F_{h-1} F_{i'+1}.
    """
    if width <= 128:
        ones = [i for i in range(width) if bits >> i & 1]
        return sum(_FIB[i + 2] for i in ones), sum(_FIB[i + 1] for i in ones)
    h = width // 2
    low_p, low_q = _sums(bits & ((1 << h) - 1), h)
    high_p, high_q = _sums(bits >> h, width - h)
    fh, fh1 = _fib_pair(h)
    return fh1 * high_p + fh * high_q + low_p, fh * high_p + (fh1 - fh) * high_q + low_q


def value(code: int, lowest: int = 2) -> int:
    """The number a code stands for, bit i meaning F_{i+lowest} (lowest 1 or 2;
    adjacent ones allowed)."""
    p, q = _sums(code, code.bit_length())
    return p if lowest == 2 else q


def digit_count(n: int) -> int:
    """How many Zeckendorf digits n >= 0 needs: F_top .. F_2, at least 1."""
    return max(1, top_index(n) - 1) if n else 1  # F_top is code bit top - 2


def lowest_term(n: int) -> int:
    """z_1(n), the smallest term of n's Zeckendorf representation; 0 for 0."""
    c = code(n)
    return fib((c & -c).bit_length() + 1) if c else 0


def is_fibonacci(n: int) -> bool:
    """Whether n >= 0 is a Fibonacci number (0 = F_0 counts)."""
    c = code(n)
    return c & (c - 1) == 0


def term_count(n: int) -> int:
    """The number of terms of n's Zeckendorf representation (OEIS A007895)."""
    return code(n).bit_count()


def terms(n: int) -> list[int]:
    """The Zeckendorf terms of n >= 0, largest first."""
    c = code(n)
    return [fib(i + 2) for i in range(c.bit_length() - 1, -1, -1) if c >> i & 1]


def second_canonical_code(n: int) -> int:
    """The Silber code of n >= 1's second canonical representation (math.md section 3)."""
    silber = code(n) << 1
    low = (silber & -silber).bit_length()  # F_low is the lowest term
    if low % 2 == 0:
        # F_{2j} -> F_{2j-1} + F_{2j-3} + ... + F_1
        silber ^= 1 << (low - 1)
        silber |= sum(1 << i for i in range(0, low - 1, 2))
    return silber


def bits_to_string(bits: int) -> str:
    """A code written most significant digit first; "0" for an empty code."""
    return format(bits, "b")
