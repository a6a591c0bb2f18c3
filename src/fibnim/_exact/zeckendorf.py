"""The Zeckendorf number system on Python ints, exact for any size.

The reference the kernels are held against: plain greedy Zeckendorf, written
to be obviously right. The pure twin's kernels and the public scalar paths use
it; nothing here knows about arrays or checks its input.

Conventions of spec/math.md section 2: a code has bit i set when F_{i+2} is a
term; a Silber code has bit i set when F_{i+1} is a term.
"""

from __future__ import annotations

_FIB = [0, 1]


def _extend_to(value: int) -> None:
    """Grow the table until it holds a Fibonacci number greater than value."""
    while _FIB[-1] <= value:
        _FIB.append(_FIB[-1] + _FIB[-2])


def fib(k: int) -> int:
    """F_k for k >= 0 (fast doubling beyond the table)."""
    if k < len(_FIB):
        return _FIB[k]
    if k < 2000:
        while len(_FIB) <= k:
            _FIB.append(_FIB[-1] + _FIB[-2])
        return _FIB[k]
    a, b = 0, 1  # F_0, F_1; invariant: (a, b) = (F_i, F_{i+1}) for the prefix of k's bits
    for bit in bin(k)[2:]:
        a, b = a * (2 * b - a), a * a + b * b
        if bit == "1":
            a, b = b, a + b
    return a


def top_index(n: int) -> int:
    """The index k of the largest Fibonacci number F_k <= n, n >= 1 (k >= 2)."""
    _extend_to(n)
    lo, hi = 2, len(_FIB) - 1  # F_lo <= n < F_hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _FIB[mid] <= n:
            lo = mid
        else:
            hi = mid
    return lo


def code(n: int) -> int:
    """The Zeckendorf code of n >= 0: the greedy rule, one term at a time."""
    result = 0
    k = top_index(n) if n else 0
    while n:
        while _FIB[k] > n:
            k -= 1
        result |= 1 << (k - 2)
        n -= _FIB[k]
    return result


def value(code: int, lowest: int = 2) -> int:
    """The number a code stands for, bit i meaning F_{i+lowest} (adjacent ones allowed)."""
    return sum(fib(i + lowest) for i in range(code.bit_length()) if code >> i & 1)


def digit_count(n: int) -> int:
    """How many Zeckendorf digits n >= 0 needs: F_top .. F_2, at least 1."""
    return max(1, code(n).bit_length())


def lowest_term(n: int) -> int:
    """z_1(n), the smallest term of n's Zeckendorf representation; 0 for 0."""
    c = code(n)
    return fib((c & -c).bit_length() + 1) if c else 0


def is_fibonacci(n: int) -> bool:
    """Whether n >= 0 is a Fibonacci number (0 = F_0 counts)."""
    c = code(n)
    return c & (c - 1) == 0


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


def bits_to_string(bits: int, width: int | None = None) -> str:
    """A code written most significant digit first; "0" for an empty code."""
    text = format(bits, "b")
    return text if width is None else text.zfill(width)
