# Compiled twin of fibnim._pure.fibonacci_nim: the same kernel names and
# signatures. Inputs are C-contiguous uint64 arrays with every value
# <= 2**63 - 1, checked before the call except by is_p and two_pile_is_p,
# which check their bound as they go (see fibnim_c/wythoff.pxi); a bound r no
# smaller than the piles stands for an infinite one.
#
# Both P-position tests ask "is the lowest Zeckendorf index of v at least j?"
# and answer it without encoding v. Write v = sum of F_i (i >= 2, Zeckendorf)
# and x(v) = v / phi mod 1. From F_i / phi = F_{i-1} + (-1/phi)**(i-1) / phi,
# x(v) = delta(v) mod 1 with delta(v) = sum of (-1)**(i-1) phi**-i over v's
# terms, which lies in I = (-1/phi, 1/phi**2), an interval of length 1. If the
# lowest index is at least j, shifting every index down by j - 2 gives a
# number m with delta(v) = (-1/phi)**(j-2) delta(m), so delta(v) lies in
# J_j = (-1/phi)**(j-2) I; if it is exactly j, the same shift puts delta(v) in
# (-1/phi)**(j-2) (-1/phi, -1/phi**3), the part of J_j outside J_{j+1}. So the
# lowest index is at least j iff x(v) lies on the arc J_j mod 1, which starts
# at START_j = frac(-phi**-(j-1)) (j even) or frac(-phi**-j) (j odd) and has
# length phi**-(j-2).
#
# In 64-bit fixed point: X = v * PHI_HI + high(v * PHI_LO) mod 2**64, with
# (PHI_HI, PHI_LO) = floor(2**128 / phi), is at most 2 below 2**64 x(v) and
# never above; ARC_START[j] = floor(2**64 START_j) and ARC_LENGTH[j] =
# floor(2**64 phi**-(j-2)) (2**64 - 1 for j = 2) are within 1 below. So with
# u = X - ARC_START[j] mod 2**64 the true offset lies in (u - 1, u + 2): u <
# ARC_LENGTH[j] answers exactly unless u is within 8 (MARGIN) of 0 or of the length.
# There (about 16 in 2**64 of random v, and for j >= 90, whose arcs are that
# short) the kernels fall back to the encode. tests/test_fibonacci_nim.py
# recomputes both tables.


cdef extern from *:
    """
    static const uint64_t fibnim_arc_start[96] = {
        UINT64_C(0x0000000000000000), UINT64_C(0x0000000000000000), UINT64_C(0x61c8864680b583ea),
        UINT64_C(0xc3910c8d016b07d4), UINT64_C(0xc3910c8d016b07d4), UINT64_C(0xe8ea9f60838b9392),
        UINT64_C(0xe8ea9f60838b9392), UINT64_C(0xf72ed1948937b2e2), UINT64_C(0xf72ed1948937b2e2),
        UINT64_C(0xfca1d55d181b8515), UINT64_C(0xfca1d55d181b8515), UINT64_C(0xfeb6ae82bf1adc5e),
        UINT64_C(0xfeb6ae82bf1adc5e), UINT64_C(0xff82362b25351005), UINT64_C(0xff82362b25351005),
        UINT64_C(0xffcff3feb08453b1), UINT64_C(0xffcff3feb08453b1), UINT64_C(0xffeda5d0ec57eb0f),
        UINT64_C(0xffeda5d0ec57eb0f), UINT64_C(0xfff8fd7414836d7c), UINT64_C(0xfff8fd7414836d7c),
        UINT64_C(0xfffd528b51325d65), UINT64_C(0xfffd528b51325d65), UINT64_C(0xfffefa2ddf13aab4),
        UINT64_C(0xfffefa2ddf13aab4), UINT64_C(0xffff9bfe4c08a2b8), UINT64_C(0xffff9bfe4c08a2b8),
        UINT64_C(0xffffd9cd05063d74), UINT64_C(0xffffd9cd05063d74), UINT64_C(0xfffff168c30a15a5),
        UINT64_C(0xfffff168c30a15a5), UINT64_C(0xfffffa6d4418037b), UINT64_C(0xfffffa6d4418037b),
        UINT64_C(0xfffffddf093df4cc), UINT64_C(0xfffffddf093df4cc), UINT64_C(0xffffff2fd7a1dae9),
        UINT64_C(0xffffff2fd7a1dae9), UINT64_C(0xffffffb07da79bf0), UINT64_C(0xffffffb07da79bf0),
        UINT64_C(0xffffffe1a154f8e8), UINT64_C(0xffffffe1a154f8e8), UINT64_C(0xfffffff466574ec7),
        UINT64_C(0xfffffff466574ec7), UINT64_C(0xfffffffb91b0f36f), UINT64_C(0xfffffffb91b0f36f),
        UINT64_C(0xfffffffe4ebb8b85), UINT64_C(0xfffffffe4ebb8b85), UINT64_C(0xffffffff5a81af21),
        UINT64_C(0xffffffff5a81af21), UINT64_C(0xffffffffc0c981de), UINT64_C(0xffffffffc0c981de),
        UINT64_C(0xffffffffe7dad67a), UINT64_C(0xffffffffe7dad67a), UINT64_C(0xfffffffff6c70192),
        UINT64_C(0xfffffffff6c70192), UINT64_C(0xfffffffffc7a2e3b), UINT64_C(0xfffffffffc7a2e3b),
        UINT64_C(0xfffffffffea7891f), UINT64_C(0xfffffffffea7891f), UINT64_C(0xffffffffff7c6d23),
        UINT64_C(0xffffffffff7c6d23), UINT64_C(0xffffffffffcdbe4a), UINT64_C(0xffffffffffcdbe4a),
        UINT64_C(0xffffffffffeccdbc), UINT64_C(0xffffffffffeccdbc), UINT64_C(0xfffffffffff8aaeb),
        UINT64_C(0xfffffffffff8aaeb), UINT64_C(0xfffffffffffd3304), UINT64_C(0xfffffffffffd3304),
        UINT64_C(0xfffffffffffeee23), UINT64_C(0xfffffffffffeee23), UINT64_C(0xffffffffffff9764),
        UINT64_C(0xffffffffffff9764), UINT64_C(0xffffffffffffd80b), UINT64_C(0xffffffffffffd80b),
        UINT64_C(0xfffffffffffff0bc), UINT64_C(0xfffffffffffff0bc), UINT64_C(0xfffffffffffffa2b),
        UINT64_C(0xfffffffffffffa2b), UINT64_C(0xfffffffffffffdc5), UINT64_C(0xfffffffffffffdc5),
        UINT64_C(0xffffffffffffff26), UINT64_C(0xffffffffffffff26), UINT64_C(0xffffffffffffffac),
        UINT64_C(0xffffffffffffffac), UINT64_C(0xffffffffffffffe0), UINT64_C(0xffffffffffffffe0),
        UINT64_C(0xfffffffffffffff3), UINT64_C(0xfffffffffffffff3), UINT64_C(0xfffffffffffffffb),
        UINT64_C(0xfffffffffffffffb), UINT64_C(0xfffffffffffffffe), UINT64_C(0xfffffffffffffffe),
        UINT64_C(0xffffffffffffffff), UINT64_C(0xffffffffffffffff), UINT64_C(0xffffffffffffffff),
    };
    static const uint64_t fibnim_arc_length[96] = {
        UINT64_C(0x0000000000000000), UINT64_C(0x0000000000000000), UINT64_C(0xffffffffffffffff),
        UINT64_C(0x9e3779b97f4a7c15), UINT64_C(0x61c8864680b583ea), UINT64_C(0x3c6ef372fe94f82b),
        UINT64_C(0x255992d382208bbe), UINT64_C(0x1715609f7c746c6d), UINT64_C(0x0e44323405ac1f50),
        UINT64_C(0x08d12e6b76c84d1d), UINT64_C(0x057303c88ee3d233), UINT64_C(0x035e2aa2e7e47aea),
        UINT64_C(0x0214d925a6ff5748), UINT64_C(0x0149517d40e523a1), UINT64_C(0x00cb87a8661a33a6),
        UINT64_C(0x007dc9d4dacaeffa), UINT64_C(0x004dbdd38b4f43ac), UINT64_C(0x00300c014f7bac4e),
        UINT64_C(0x001db1d23bd3975d), UINT64_C(0x00125a2f13a814f0), UINT64_C(0x000b57a3282b826d),
        UINT64_C(0x0007028beb7c9283), UINT64_C(0x000455173caeefe9), UINT64_C(0x0002ad74aecda29a),
        UINT64_C(0x0001a7a28de14d4f), UINT64_C(0x000105d220ec554b), UINT64_C(0x0000a1d06cf4f803),
        UINT64_C(0x00006401b3f75d47), UINT64_C(0x00003dceb8fd9abc), UINT64_C(0x00002632faf9c28b),
        UINT64_C(0x0000179bbe03d830), UINT64_C(0x00000e973cf5ea5a), UINT64_C(0x00000904810dedd5),
        UINT64_C(0x00000592bbe7fc84), UINT64_C(0x00000371c525f151), UINT64_C(0x00000220f6c20b33),
        UINT64_C(0x00000150ce63e61d), UINT64_C(0x000000d0285e2516), UINT64_C(0x00000080a605c106),
        UINT64_C(0x0000004f8258640f), UINT64_C(0x0000003123ad5cf7), UINT64_C(0x0000001e5eab0717),
        UINT64_C(0x00000012c50255df), UINT64_C(0x0000000b99a8b138), UINT64_C(0x000000072b59a4a7),
        UINT64_C(0x000000046e4f0c90), UINT64_C(0x00000002bd0a9816), UINT64_C(0x00000001b144747a),
        UINT64_C(0x000000010bc6239b), UINT64_C(0x00000000a57e50de), UINT64_C(0x000000006647d2bd),
        UINT64_C(0x000000003f367e21), UINT64_C(0x000000002711549c), UINT64_C(0x0000000018252985),
        UINT64_C(0x000000000eec2b17), UINT64_C(0x000000000938fe6d), UINT64_C(0x0000000005b32ca9),
        UINT64_C(0x000000000385d1c4), UINT64_C(0x00000000022d5ae4), UINT64_C(0x00000000015876e0),
        UINT64_C(0x0000000000d4e403), UINT64_C(0x00000000008392dc), UINT64_C(0x0000000000515127),
        UINT64_C(0x00000000003241b5), UINT64_C(0x00000000001f0f71), UINT64_C(0x0000000000133243),
        UINT64_C(0x00000000000bdd2e), UINT64_C(0x0000000000075514), UINT64_C(0x0000000000048819),
        UINT64_C(0x000000000002ccfb), UINT64_C(0x000000000001bb1e), UINT64_C(0x00000000000111dc),
        UINT64_C(0x000000000000a941), UINT64_C(0x000000000000689b), UINT64_C(0x00000000000040a6),
        UINT64_C(0x00000000000027f4), UINT64_C(0x00000000000018b1), UINT64_C(0x0000000000000f43),
        UINT64_C(0x000000000000096e), UINT64_C(0x00000000000005d4), UINT64_C(0x000000000000039a),
        UINT64_C(0x000000000000023a), UINT64_C(0x0000000000000160), UINT64_C(0x00000000000000d9),
        UINT64_C(0x0000000000000086), UINT64_C(0x0000000000000053), UINT64_C(0x0000000000000033),
        UINT64_C(0x000000000000001f), UINT64_C(0x0000000000000013), UINT64_C(0x000000000000000c),
        UINT64_C(0x0000000000000007), UINT64_C(0x0000000000000004), UINT64_C(0x0000000000000002),
        UINT64_C(0x0000000000000001), UINT64_C(0x0000000000000001), UINT64_C(0x0000000000000000),
    };
    /* top_index(2**(b-1)) (at most 91) for bit length b; 1 for b = 0 */
    static uint8_t fibnim_top_of_bits[65];
    """
    const uint64_t ARC_START "fibnim_arc_start"[96]
    const uint64_t ARC_LENGTH "fibnim_arc_length"[96]
    uint8_t TOP_OF_BITS "fibnim_top_of_bits"[65]

# With the two Fibonacci numbers after it, by the same bit length: the index of
# a bound takes three look-ups side by side, none waiting for another.
cdef uint64_t NEXT_OF_BITS[65]
cdef uint64_t AFTER_OF_BITS[65]
TOP_OF_BITS[0] = 1
for _bits in range(65):
    if _bits:
        TOP_OF_BITS[_bits] = min(top_index((<uint64_t>1) << (_bits - 1)), 91)
    NEXT_OF_BITS[_bits] = FIB[TOP_OF_BITS[_bits] + 1]
    AFTER_OF_BITS[_bits] = FIB[TOP_OF_BITS[_bits] + 2]

fibonacci_nim_ARC_TABLES = [(ARC_START[j], ARC_LENGTH[j]) for j in range(96)]

cdef enum:
    ARC_BLOCK = 256  # positions per pass
    MARGIN = 8  # how near an arc's ends u must be to need the encode
    UNSURE = 2  # an answer still to be settled exactly

# The same tables for the kernels of simd.h. For the vector ones, by row: by
# the bit length b < 64 of a bound, top_index(2**(b-1)) and the next two
# Fibonacci numbers; by j < 64, the arc's start and length. For the one-lane
# one, side by side from ROWS_BY_ZEROS and ROWS_BY_ARC (simd.h).
cdef uint64_t SIMD_ROWS[ROWS]
for _bits in range(65):
    SIMD_ROWS[ROWS_BY_ZEROS + 4 * (64 - _bits)] = TOP_OF_BITS[_bits] + 1
    SIMD_ROWS[ROWS_BY_ZEROS + 4 * (64 - _bits) + 1] = NEXT_OF_BITS[_bits]
    SIMD_ROWS[ROWS_BY_ZEROS + 4 * (64 - _bits) + 2] = AFTER_OF_BITS[_bits]
    SIMD_ROWS[ROWS_BY_ZEROS + 4 * (64 - _bits) + 3] = 0
for _j in range(96):
    SIMD_ROWS[ROWS_BY_ARC + 2 * _j] = ARC_START[_j]
    SIMD_ROWS[ROWS_BY_ARC + 2 * _j + 1] = ARC_LENGTH[_j]
for _bits in range(64):
    SIMD_ROWS[_bits] = TOP_OF_BITS[_bits]
    SIMD_ROWS[64 + _bits] = NEXT_OF_BITS[_bits]
    SIMD_ROWS[128 + _bits] = AFTER_OF_BITS[_bits]
    SIMD_ROWS[192 + _bits] = ARC_START[_bits]
    SIMD_ROWS[256 + _bits] = ARC_LENGTH[_bits]


cdef inline uint64_t golden_fraction(uint64_t v) noexcept nogil:
    # X of the header: 2**64 (v / phi mod 1), at most 2 below
    cdef uint64_t low
    return v * PHI_HI + mul128(v, PHI_LO, &low)


cdef inline int top_index_of_bound(uint64_t r) noexcept nogil:
    # top_index(r), and 1 for r = 0, without a loop: [2**(b-1), 2**b) holds at
    # most two Fibonacci numbers
    cdef int bits = bit_length(r)
    return TOP_OF_BITS[bits] + (r >= NEXT_OF_BITS[bits]) + (r >= AFTER_OF_BITS[bits])


cdef inline bint on_arc(uint64_t x, int j, bint* unsure) noexcept nogil:
    # whether the lowest Zeckendorf index of the v with x = golden_fraction(v)
    # is at least j; sets *unsure where x is too near an end of the arc to say
    cdef uint64_t u = x - ARC_START[j]
    unsure[0] |= (u + MARGIN < 2 * MARGIN) | (u - ARC_LENGTH[j] + MARGIN < 2 * MARGIN)
    return u < ARC_LENGTH[j]


cdef Py_ssize_t is_p_rows(const uint64_t* n, const uint64_t* r, uint8_t* out, Py_ssize_t size,
                          uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i, start = 0, done, stop
    cdef bint unsure, p
    cdef int any_unsure
    cdef uint64_t v, bound
    cdef const Path* path = current_path()
    while start < size:
        stop = start + ARC_BLOCK if size - start > ARC_BLOCK else size
        done = start
        any_unsure = False
        if path.fib_is_p != NULL:
            done += path.fib_is_p(&n[start], &r[start], &out[start], stop - start, limit,
                                  SIMD_ROWS, &any_unsure)
        if done < stop:  # a vector kernel's last few, or from a value above limit
            fib_is_p_lanes(&n[done], &r[done], &out[done], stop - done, limit, SIMD_ROWS,
                           &any_unsure)
        if any_unsure:
            # the block again, each position read and checked again, and settled
            # by the encode where the arc test is unsure
            for i in range(start, stop):
                v = n[i]
                bound = r[i]
                if (v > limit) | (bound > limit):
                    return i
                unsure = False
                p = on_arc(golden_fraction(v), top_index_of_bound(bound) + 1, &unsure)
                out[i] = ((v == 0) | (lowest_term_of(v) > bound)) if unsure else p
        start = stop
    return -1


def fibonacci_nim_is_p(const uint64_t[::1] n, const uint64_t[::1] r, uint8_t[::1] out, uint64_t limit):
    """out[i] = 1 where (n[i]; r[i]) is a P-position of one-pile Fibonacci Nim:
    n = 0, or its lowest Zeckendorf term exceeds r, that is its lowest index is
    at least top_index(r) + 1. Checks its bound as it goes (see
    fibnim_c/wythoff.pxi): returns the first i with n or r above limit, or -1."""
    cdef Py_ssize_t above = -1
    if n.shape[0]:
        with nogil:
            above = is_p_rows(&n[0], &r[0], &out[0], n.shape[0], limit)
    return above


cdef Py_ssize_t winning_take_rows(const uint64_t* n, const uint64_t* r, int64_t* out, Py_ssize_t size,
                                   uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t v, bound, low
    for i in range(size):
        v = n[i]
        bound = r[i]
        if (v > limit) | (bound > limit):
            return i
        low = lowest_term_of(v)
        out[i] = <int64_t>(low if low <= bound else 0)
    return -1


def fibonacci_nim_winning_take(const uint64_t[::1] n, const uint64_t[::1] r, int64_t[::1] out,
                 uint64_t limit):
    """out[i] = the winning take from (n[i]; r[i]): its lowest term, or 0 if none wins.
    Returns the first i with n or r above limit, or -1."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = winning_take_rows(&n[0], &r[0], &out[0], n.shape[0], limit) if n.shape[0] else -1
    return first_bad


cdef bint two_pile_p(uint64_t x, uint64_t y, uint64_t r) noexcept nogil:
    # docs/math/fibonacci_nim.rst (two piles), case by case, as fibnim._exact does
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


def fibonacci_nim_two_pile_is_p(const uint64_t[:, ::1] piles, const uint64_t[::1] r, uint8_t[::1] out,
                  uint64_t limit):
    """out[i] = 1 where (piles[i, 0], piles[i, 1]; r[i]) is a P-position of global
    Fibonacci Nim. Checks its bound as it goes, as is_p: returns the first i with
    a pile or r above limit, or -1."""
    cdef Py_ssize_t i, start = 0, done, stop, size = piles.shape[0], above_at = -1
    cdef uint64_t xi, yi, ri, small, large, bound, x
    cdef int t, any_unsure
    cdef bint unsure, above, at_least_next, beyond_next
    cdef const Path* path = current_path()
    with nogil:
        while start < size:
            stop = start + ARC_BLOCK if size - start > ARC_BLOCK else size
            done = start
            any_unsure = above = False
            # Cases 1 and 2 of the theorem ask only whether z_1(k) is below F_{t+1}
            # or above it: two arc tests. The rest (z_1(k) = F_{t+1}), and the
            # unsure ones, go to two_pile_p in a second pass.
            if path.fib_two_pile != NULL:
                done += path.fib_two_pile(&piles[start, 0], &r[start], &out[start], stop - start,
                                          limit, SIMD_ROWS, &any_unsure)
            for i in range(done, stop):
                xi = piles[i, 0]
                yi = piles[i, 1]
                ri = r[i]
                small = xi if xi < yi else yi
                large = xi ^ yi ^ small
                above |= (large > limit) | (ri > limit)
                bound = ri if ri < large else large
                t = top_index_of_bound(bound)
                x = golden_fraction(large - small)
                unsure = False
                at_least_next = on_arc(x, t + 1, &unsure)
                beyond_next = on_arc(x, t + 2, &unsure)
                unsure = (unsure | (at_least_next & (not beyond_next))) & (bound != 0)
                out[i] = (beyond_next | (bound == 0)) | unsure * UNSURE
                any_unsure |= unsure
            if above:
                above_at = done  # should another thread have changed it since
                for i in range(done, stop):
                    if piles[i, 0] > limit or piles[i, 1] > limit or r[i] > limit:
                        above_at = i
                        break
                break
            if any_unsure:
                for i in range(start, stop):
                    if out[i] >= UNSURE:
                        # read again, so checked again
                        xi = piles[i, 0]
                        yi = piles[i, 1]
                        ri = r[i]
                        if (xi > limit) | (yi > limit) | (ri > limit):
                            above_at = i
                            break
                        out[i] = two_pile_p(xi, yi, ri)
                if above_at >= 0:
                    break
            start = stop
    return above_at


cdef int two_pile_move_of(uint64_t xi, uint64_t yi, uint64_t ri, uint64_t* chosen) noexcept nogil:
    # The pile a winning move from (xi, yi; ri) takes from (its take in
    # *chosen), or -1 from a P-position; see two_pile_move.
    cdef uint64_t bound, k, lo, hi, chosen_take
    cdef uint64_t size[2]
    cdef int small, large, first, c, chosen_pile
    cdef uint64_t candidate_take[2]
    cdef int candidate_pile[2]
    cdef int candidates
    if two_pile_p(xi, yi, ri):
        return -1
    size[0] = xi
    size[1] = yi
    small = 0 if xi <= yi else 1
    large = 1 - small
    k = size[large] - size[small]
    bound = size[large] if ri > size[large] else ri
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
            chosen[0] = chosen_take
            return chosen_pile
        size[chosen_pile] += chosen_take
    return -1  # not reached: the theorem names a winning candidate


cdef Py_ssize_t two_pile_move_rows(const uint64_t[:, ::1] piles, const uint64_t[::1] r,
                  int64_t[::1] pile, int64_t[::1] take, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t xi, yi, ri, chosen
    cdef int j
    for i in range(piles.shape[0]):
        xi = piles[i, 0]
        yi = piles[i, 1]
        ri = r[i]
        if (xi > limit) | (yi > limit) | (ri > limit):
            return i
        j = two_pile_move_of(xi, yi, ri, &chosen)
        pile[i] = j
        take[i] = <int64_t>chosen if j >= 0 else -1
    return -1


def fibonacci_nim_two_pile_move(const uint64_t[:, ::1] piles, const uint64_t[::1] r,
                  int64_t[::1] pile, int64_t[::1] take, uint64_t limit):
    """(pile[i], take[i]) = a winning move from (piles[i, 0], piles[i, 1]; r[i]); -1
    where none. Returns the first i with a pile or r above limit, or -1.

    If z_1(k) = F_e <= r, taking F_e from the larger pile or F_{e-1} from the
    smaller one wins; otherwise taking F_t from the smaller one does. The
    candidates are checked with the theorem, in that order."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = two_pile_move_rows(piles, r, pile, take, limit)
    return first_bad


# Fused kernels of fibnim.classify: row i of out is (1 for a P-position or 0,
# the position after the winning move, -1 throughout where there is none), for
# the position in row i of piles, read with any strides. Each returns the
# first row with a pile above its limit, or -1.

cdef inline void no_move(int64_t[:, :] out, Py_ssize_t i) noexcept nogil:
    cdef Py_ssize_t j
    out[i, 0] = 1
    for j in range(1, out.shape[1]):
        out[i, j] = -1


cdef Py_ssize_t one_pile_rows(const uint64_t[:, :] piles, int64_t[:, :] out, uint64_t bound,
                              bint opening, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t v, r, low
    for i in range(piles.shape[0]):
        v = piles[i, 0]
        if v > limit:
            return i
        r = v - (v != 0) if opening else bound
        low = lowest_term_of(v)
        if v == 0 or low > r:
            no_move(out, i)
        else:
            out[i, 0] = 0
            out[i, 1] = <int64_t>(v - low)
    return -1


def fibonacci_nim_classify_one_pile(const uint64_t[:, :] piles, int64_t[:, :] out, uint64_t bound,
                      bint opening, uint64_t limit):
    """One pile: take its lowest Zeckendorf term where that is at most the bound
    (opening: n - 1, the first move's)."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = one_pile_rows(piles, out, bound, opening, limit)
    return first_bad


cdef Py_ssize_t two_piles_rows(const uint64_t[:, :] piles, int64_t[:, :] out, uint64_t bound,
                               uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t xi, yi, take
    cdef int j
    for i in range(piles.shape[0]):
        xi = piles[i, 0]
        yi = piles[i, 1]
        if (xi > limit) | (yi > limit):
            return i
        j = two_pile_move_of(xi, yi, bound, &take)
        if j < 0:
            no_move(out, i)
            continue
        out[i, 0] = 0
        out[i, 1] = <int64_t>(xi - take * (j == 0))
        out[i, 2] = <int64_t>(yi - take * (j == 1))
    return -1


def fibonacci_nim_classify_two_piles(const uint64_t[:, :] piles, int64_t[:, :] out, uint64_t bound,
                       uint64_t limit):
    """Two piles of global Fibonacci Nim: the closed form's move (two_pile_move)."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = two_piles_rows(piles, out, bound, limit)
    return first_bad


cdef Py_ssize_t searched_rows(const uint64_t[:, :] piles, int64_t[:, :] out,
                              const uint32_t[::1] table, const int64_t[::1] steps,
                              const uint64_t[::1] sizes, uint64_t bound,
                              uint64_t limit, uint64_t* values) noexcept nogil:
    # values: room for one row, read once (the input may change while it is read)
    cdef Py_ssize_t i, j, chosen, at, k = piles.shape[1]
    cdef uint64_t threshold, after
    for i in range(piles.shape[0]):
        at = 0
        for j in range(k):
            values[j] = piles[i, j]
            if values[j] > sizes[j] or values[j] > limit:
                return i
            at += <Py_ssize_t>values[j] * steps[j]
        threshold = table[at]
        if threshold == 0 or threshold > bound:
            no_move(out, i)
            continue
        chosen = -1
        for j in range(k):
            if values[j] >= threshold:
                after = table[at - <Py_ssize_t>threshold * steps[j]]
                if after == 0 or after > 2 * threshold:
                    chosen = j
                    break
        out[i, 0] = 0
        for j in range(k):
            out[i, 1 + j] = <int64_t>(values[j] - threshold * (j == chosen))
    return -1


def fibonacci_nim_classify_searched(const uint64_t[:, :] piles, int64_t[:, :] out, const uint32_t[::1] table,
                      const int64_t[::1] steps, const uint64_t[::1] sizes, uint64_t bound,
                      uint64_t limit):
    """Three or more piles, from the threshold table T of fibnim.solvers
    (flattened; steps[j] elements apart along pile j, whose piles are at most
    sizes[j], each at most limit): P iff T = 0 or T > bound; else take T from
    the first pile n >= T after which T' = 0 or T' > 2 T (the least winning take)."""
    cdef Py_ssize_t first_bad
    if steps.shape[0] != piles.shape[1] or sizes.shape[0] != piles.shape[1]:
        raise ValueError("one step and one size per pile")
    cdef uint64_t* values = <uint64_t*>malloc((piles.shape[1] + 1) * sizeof(uint64_t))
    if values == NULL:
        raise MemoryError()
    try:
        with nogil:
            first_bad = searched_rows(piles, out, table, steps, sizes, bound, limit, values)
    finally:
        free(values)
    return first_bad
