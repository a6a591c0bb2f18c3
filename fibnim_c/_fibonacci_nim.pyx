# Compiled twin of fibnim._pure.fibonacci_nim: the same kernel names and
# signatures. Inputs are C-contiguous uint64 arrays with every value
# <= 2**63 - 1, checked before the call except by is_p, which checks its bound
# as it goes (see fibnim_c/_wythoff.pyx); a bound r no smaller than the piles
# stands for an infinite one.

from libc.stdint cimport int64_t, uint8_t, uint64_t

from _scalar cimport (
    FIB, FIB_LIMIT_INDEX, ctz64, encode, encode_wide, fill_tables, lowest_index, lowest_term_of,
    top_index,
)

fill_tables()

cdef enum:
    BLOCK = 256  # positions per pass of is_p (a multiple of 4)


cdef inline uint64_t lowest_of_code(uint64_t code) noexcept nogil:
    # F at the lowest set bit of a 64-bit code; 0 for no bits (the bit put at 63
    # makes the look-up safe, the mask makes its answer 0)
    return FIB[ctz64(code | (<uint64_t>1 << 63)) + 2] & (0 - <uint64_t>(code != 0))


def is_p(const uint64_t[::1] n, const uint64_t[::1] r, uint8_t[::1] out, uint64_t limit):
    """out[i] = 1 where (n[i]; r[i]) is a P-position of one-pile Fibonacci Nim:
    n = 0, or its lowest Zeckendorf term exceeds r. Checks its bound as it goes
    (see fibnim_c/_wythoff.pyx): returns the first i with n or r above limit, or -1."""
    cdef Py_ssize_t i, start = 0, stop, size = n.shape[0]
    cdef Py_ssize_t above = -1
    cdef uint64_t codes[BLOCK]
    cdef uint64_t a0, a1, a2, a3, top
    with nogil:
        while start < size and above < 0:
            stop = start + BLOCK if size - start > BLOCK else size
            top = 0
            for i in range(start, stop):
                top |= n[i] | (r[i] > limit) << 63
            if top >= FIB[FIB_LIMIT_INDEX] or stop - start < BLOCK:
                # a wide value, one to check, or the last few: one at a time
                above = one_at_a_time(n, r, out, limit, start, stop)
                start = stop
                continue
            # The codes first, four at a time with every load before any store,
            # so that their chains of look-ups overlap; then the answers.
            for i in range(start, stop, 4):
                a0 = encode(n[i])
                a1 = encode(n[i + 1])
                a2 = encode(n[i + 2])
                a3 = encode(n[i + 3])
                codes[i - start] = a0
                codes[i - start + 1] = a1
                codes[i - start + 2] = a2
                codes[i - start + 3] = a3
            for i in range(start, stop):
                out[i] = (n[i] == 0) | (lowest_of_code(codes[i - start]) > r[i])
            start = stop
    return above


cdef Py_ssize_t one_at_a_time(const uint64_t[::1] n, const uint64_t[::1] r, uint8_t[::1] out,
                              uint64_t limit, Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(start, stop):
        if n[k] > limit or r[k] > limit:
            return k
        out[k] = (n[k] == 0) | (lowest_term_of(n[k]) > r[k])
    return -1


def winning_take(const uint64_t[::1] n, const uint64_t[::1] r, int64_t[::1] out):
    """out[i] = the winning take from (n[i]; r[i]): its lowest term, or 0 if none wins."""
    cdef Py_ssize_t i
    cdef uint64_t low
    with nogil:
        for i in range(n.shape[0]):
            low = lowest_term_of(n[i])
            out[i] = <int64_t>(low if low <= r[i] else 0)


cdef bint two_pile_p(uint64_t x, uint64_t y, uint64_t r) noexcept nogil:
    # spec/two_pile_theorem.md, case by case (as fibnim._exact.fibonacci_nim)
    cdef uint64_t m = x if x < y else y
    cdef uint64_t large = x ^ y ^ m
    cdef uint64_t k = large - m
    cdef uint64_t lo, hi
    cdef int t, first, second
    if r > large:
        r = large
    if r == 0 or k == 0:
        return True
    t = top_index(r)
    lo = encode_wide(k, &hi)
    first = lowest_index(lo, hi)
    if first >= t + 2:
        return True  # case 2
    if first <= t:
        return False  # case 1
    if m < FIB[t]:
        return True  # case 3
    if lo:
        lo &= lo - 1
    else:
        hi &= hi - 1
    if lo | hi:
        second = lowest_index(lo, hi)
        if m >= FIB[second - 1] - FIB[t + 1]:
            return (second - t) % 2 == 0  # case 5
    # case 4 (first = t + 1 <= 92, so t <= 91 and the sum stays below 2**64)
    return (top_index(m + FIB[t + 1]) - t - 1) % 2 == 0


def two_pile_is_p(const uint64_t[:, ::1] piles, const uint64_t[::1] r, uint8_t[::1] out):
    """out[i] = 1 where (piles[i, 0], piles[i, 1]; r[i]) is a P-position of global
    Fibonacci Nim."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(piles.shape[0]):
            out[i] = two_pile_p(piles[i, 0], piles[i, 1], r[i])


def two_pile_move(const uint64_t[:, ::1] piles, const uint64_t[::1] r,
                  int64_t[::1] pile, int64_t[::1] take):
    """(pile[i], take[i]) = a winning move from (piles[i, 0], piles[i, 1]; r[i]); -1
    where none.

    If z_1(k) = F_e <= r, taking F_e from the larger pile or F_{e-1} from the
    smaller one wins; otherwise taking F_t from the smaller one does. The
    candidates are checked with the theorem, in that order."""
    cdef Py_ssize_t i
    cdef uint64_t xi, yi, bound, k, lo, hi, size[2]
    cdef int small, large, first, c, chosen_pile
    cdef uint64_t candidate_take[2]
    cdef int candidate_pile[2]
    cdef int candidates
    cdef uint64_t chosen_take
    with nogil:
        for i in range(piles.shape[0]):
            xi = piles[i, 0]
            yi = piles[i, 1]
            pile[i] = -1
            take[i] = -1
            if two_pile_p(xi, yi, r[i]):
                continue
            size[0] = xi
            size[1] = yi
            small = 0 if xi <= yi else 1
            large = 1 - small
            k = size[large] - size[small]
            bound = size[large] if r[i] > size[large] else r[i]
            candidates = 1
            candidate_pile[0] = small
            candidate_take[0] = FIB[top_index(bound)]
            if k:
                lo = encode_wide(k, &hi)
                first = lowest_index(lo, hi)
                if FIB[first] <= bound:
                    candidates = 2
                    candidate_pile[0], candidate_take[0] = large, FIB[first]
                    candidate_pile[1], candidate_take[1] = small, FIB[first - 1]
            for c in range(candidates):
                chosen_pile = candidate_pile[c]
                chosen_take = candidate_take[c]
                if chosen_take > size[chosen_pile] or chosen_take > bound:
                    continue
                size[chosen_pile] -= chosen_take
                if two_pile_p(size[0], size[1], 2 * chosen_take):
                    pile[i] = chosen_pile
                    take[i] = <int64_t>chosen_take
                    break
                size[chosen_pile] += chosen_take
