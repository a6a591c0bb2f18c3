# Scalar helpers shared by the compiled kernels: Fibonacci tables and the
# Zeckendorf code of one uint64. Everything here is `noexcept nogil` and
# assumes checked input; the public layer (fibnim._checks) does the checking.
#
# Conventions (docs/math/zeckendorf.rst): code bit i set <=> F_{i+2} is a term.
# A "wide" code of n < 2**64 needs 92 bits (F_2 .. F_93): the low 64 bits are
# returned, bits 64..91 are stored through `hi`.

from libc.stdint cimport uint8_t, uint32_t, uint64_t, int64_t

cdef extern from "scalar.h":
    int ctz64 "fibnim_ctz64"(uint64_t x) noexcept nogil
    int bit_length "fibnim_bit_length"(uint64_t x) noexcept nogil
    uint64_t mul128 "fibnim_mul128"(uint64_t a, uint64_t b, uint64_t* low) noexcept nogil
    const uint64_t PHI_HI "FIBNIM_PHI_HI"
    const uint64_t PHI_LO "FIBNIM_PHI_LO"
    uint64_t FIB "fibnim_fib"[94]
    uint32_t CODE "fibnim_code"[46369]
    uint32_t STREAM_CODE "fibnim_stream_code"[46369]
    uint64_t S44 "fibnim_s44"[17712]
    uint32_t S22 "fibnim_s22"[46369]
    uint64_t ENCODE_PAIRS "fibnim_encode_pairs"[2585]
    uint64_t BYTE_VALUE "fibnim_byte_value"[8][256]
    uint64_t bytes_value "fibnim_bytes_value"(uint64_t code, int start, int stop) noexcept nogil
    uint64_t STREAM_VALUE "fibnim_stream_value"[12][256]
    uint8_t TOP_BELOW "fibnim_top_below"[65]
    uint64_t NEXT_MINUS_ONE "fibnim_next_minus_one"[94]
    uint64_t load_be64 "fibnim_load_be64"(const uint8_t* p) noexcept nogil
    void store_be64 "fibnim_store_be64"(uint8_t* p, uint64_t x) noexcept nogil
    uint64_t reverse64 "fibnim_reverse64"(uint64_t x) noexcept nogil
    const uint64_t C44 "FIBNIM_C44"
    const uint64_t C22 "FIBNIM_C22"
    const uint64_t RHO "FIBNIM_RHO"
    const uint64_t ENCODE_C48 "FIBNIM_ENCODE_C48"
    const uint64_t ENCODE_C32 "FIBNIM_ENCODE_C32"
    const uint64_t ENCODE_C16 "FIBNIM_ENCODE_C16"
    const uint64_t ENCODE_RHO "FIBNIM_ENCODE_RHO"
    const uint64_t C48_WIDE "FIBNIM_C48_WIDE"
    const uint64_t RHO_WIDE "FIBNIM_RHO_WIDE"
    const uint64_t EVEN_BITS "FIBNIM_EVEN_BITS"
    void fill_tables "fibnim_fill_tables"() noexcept nogil

cdef enum:
    FIB_LIMIT_INDEX = 66  # F_66: the smallest n whose code does not fit 64 bits
    FIXED_SHIFT = 40
    F24 = 46368


# Encoding n < F_66 (a 64-bit code) takes two block estimates and a look-up:
# the code bits 44..63 (an m < F_22), then bits 22..43 of the rest (m < F_24),
# then the code of the rest (< F_24) from the table.
#
# Why one estimate and one correction find a block exactly: let m be the
# number whose code is n's code bits from j up, and S_j(m) = the sum over m's
# code bits i of F_{i+2+j}. Codes are ordered like values, so m is the largest
# integer with S_j(m) <= n, and n - S_j(m) is the value of the bits below j.
# From F_{k+j} = phi^j F_k + psi^k F_j:  S_j(m) = phi^j m + F_j e(m) with
# e(m) = sum psi^{i+2} over non-adjacent i >= 0, so -1/phi^2 < e(m) < 1/phi.
# For even j, F_j / phi^j < 1/sqrt5, hence with x = n / phi^j:
#     x - 1.2764 < m < x + 0.1709.
# y = ((n >> a) * c) / 2**40 with c = floor(2**(40 + a) / phi^j) satisfies
# x - delta <= y <= x with delta = 2**a / phi^j + n / 2**(40 + a) < 0.007 for
# (j, a) = (44, 23) with n < F_66 and (22, 8) with n < F_46 (the rest of a
# code below F_66 after its top block is below F_44; the top 44 bits of a
# wide code, below F_46, take this one estimate too); the product, RHO added,
# stays below 2**64 (below 2**56 in fact; tests/test_zeckendorf.py recomputes
# both bounds). So
# t = floor(y + rho), rho = 0.45, has m <= t <= m + 1, and
# m = t - [S_j(t) > n]: no search. t <= m + 1 <= F_22 (resp. F_24) stays
# inside the tables.

cdef inline uint64_t estimate(uint64_t n, int a, uint64_t c) noexcept nogil:
    return ((n >> a) * c + RHO) >> FIXED_SHIFT


cdef inline uint64_t encode_two_blocks(uint64_t n, uint64_t* low) noexcept nogil:
    """The two blocks of the code of n < F_46 (44 bits): bits 22..43 (returned)
    and 0..21, as their values (indices into CODE)."""
    cdef uint64_t t = estimate(n, 8, C22)
    t -= S22[t] > n
    low[0] = n - S22[t]
    return t


cdef inline uint64_t encode_blocks(uint64_t n, uint64_t* middle, uint64_t* low) noexcept nogil:
    """The three blocks of the code of n < F_66: bits 44..63 (returned), 22..43
    and 0..21, as their values (indices into CODE)."""
    # The fewest instructions win here (measured): a compare and a second
    # look-up of the same, cached, entry beat a branch-free select of two.
    cdef uint64_t top = estimate(n, 23, C44)
    top -= S44[top] > n
    middle[0] = encode_two_blocks(n - S44[top], low)
    return top


cdef inline uint64_t encode_one(uint64_t n) noexcept nogil:
    """The Zeckendorf code of n < F_66."""
    cdef uint64_t middle, low
    cdef uint64_t top = encode_blocks(n, &middle, &low)
    return (<uint64_t>CODE[top]) << 44 | (<uint64_t>CODE[middle]) << 22 | CODE[low]


cdef inline uint64_t stream_code(uint64_t n) noexcept nogil:
    """The code of n < F_66 bit-reversed: the digit of F_2 at bit 63, as a
    stream of Fibonacci codewords writes it (from the blocks' reversed codes)."""
    cdef uint64_t middle, low
    cdef uint64_t top = encode_blocks(n, &middle, &low)
    return ((<uint64_t>STREAM_CODE[low]) << 32 | (<uint64_t>STREAM_CODE[middle]) << 10
            | (<uint64_t>STREAM_CODE[top]) >> 12)


# Wythoff arithmetic for 0 <= m <= 2**63 (docs/math/wythoff.rst).
#
# With F = floor((phi - 1) 2**128) (PHI_HI, PHI_LO), m F / 2**128 falls short of
# m (phi - 1) by less than m / 2**128 <= 2**-65. For integers k, m >= 1,
# (k - m phi)(k - m psi) = k^2 - k m - m^2 is a non-zero integer, so
# |k - m phi| >= 1 / (k + m / phi) >= 1 / (sqrt5 m + 1) > 2**-65 for m <= 2**63:
# m phi, and so m (phi - 1), is never within 2**-65 of an integer. Hence the
# integer part of m F / 2**128 is exactly floor(m (phi - 1)), and its
# fractional part lies on the same side of any m' phi-fraction as the true one.

cdef inline uint64_t golden_split(uint64_t m, uint64_t* frac_hi, uint64_t* frac_lo) noexcept nogil:
    """floor(m (phi - 1)); the top 128 bits of the fraction go to frac_hi, frac_lo."""
    cdef uint64_t low_of_hi, low_of_lo
    cdef uint64_t high_of_hi = mul128(m, PHI_HI, &low_of_hi)
    cdef uint64_t high_of_lo = mul128(m, PHI_LO, &low_of_lo)
    frac_hi[0] = low_of_hi + high_of_lo
    frac_lo[0] = low_of_lo
    return high_of_hi + (frac_hi[0] < high_of_lo)  # the carry out of the middle word


cdef inline uint64_t golden_floor(uint64_t m) noexcept nogil:
    """floor(m (phi - 1)) for m <= 2**63."""
    cdef uint64_t frac_hi, frac_lo
    return golden_split(m, &frac_hi, &frac_lo)


cdef inline uint64_t beatty(uint64_t m) noexcept nogil:
    """a_m = floor(m phi) for m <= 2**63 - 1."""
    return m + golden_floor(m)


cdef inline uint64_t golden_floor_small(uint64_t m) noexcept nogil:
    """floor(m (phi - 1)) for m <= 2**31, from one product: m PHI_HI / 2**64
    falls short of m (phi - 1) by less than 2**-33, while m (phi - 1) is at
    least 1 / (sqrt5 m + 1) > 2**-32.2 above the integer below it (as in
    golden_split)."""
    cdef uint64_t low
    return mul128(m, PHI_HI, &low)


cdef inline uint64_t wide_top(uint64_t n, uint64_t* rest) noexcept nogil:
    """For n >= F_66: the value of n's code bits 48..91 (an m < F_46); rest gets
    the value of the bits below."""
    # One more block, as in encode: the code bits 48..91 (an m < F_46) with
    # j = 48. The estimate y = n * c / 2**96, c = floor(2**96 / phi^48), is
    # within 2**-31 below x = n / phi^48, so t = floor(y + 0.45) is m or m + 1
    # (and t >= 1: n >= F_66 has m >= F_18).
    # S_48(t) = F_49 t + F_48 p(t), where p(t) (the sum of F_{i+1} over t's
    # code bits i) is floor((t + 1) / phi): from F_{i+1} = (F_{i+2} - psi^{i+1}) / phi,
    # p(t) = (t - e) / phi with -1 < e < 1/phi. F_49 t < 2**64 for t <= F_46; the
    # sum may pass 2**64 only where it exceeds n anyway (the carry says so).
    # S_48(t - 1) is made alongside, not after the test.
    cdef uint64_t low_half
    cdef uint64_t t = (mul128(n, C48_WIDE, &low_half) + RHO_WIDE) >> 32
    cdef uint64_t a = FIB[49] * t
    cdef uint64_t s = a + FIB[48] * golden_floor_small(t + 1)
    cdef uint64_t s_below = a - FIB[49] + FIB[48] * golden_floor_small(t)
    cdef bint over = (s < a) | (s > n)
    rest[0] = n - select(over, s_below, s)
    return t - over


cdef inline uint64_t encode_wide(uint64_t n, uint64_t* hi) noexcept nogil:
    """The low 64 bits of the code of any uint64 n; bits 64..91 go to hi."""
    if n < FIB[FIB_LIMIT_INDEX]:
        hi[0] = 0
        return encode_one(n)
    cdef uint64_t rest, low
    cdef uint64_t middle = encode_two_blocks(wide_top(n, &rest), &low)
    cdef uint64_t top = (<uint64_t>CODE[middle]) << 22 | CODE[low]  # code bits 48..91
    hi[0] = top >> 16
    return (top << 48) | encode_one(rest)


cdef inline uint64_t stream_code_wide(uint64_t n, uint64_t* after) noexcept nogil:
    """The code of any uint64 n in stream order: its first 64 digits returned
    (F_2's at bit 63), the rest (F_66 .. F_93) from bit 63 of after."""
    if n < FIB[FIB_LIMIT_INDEX]:
        after[0] = 0
        return stream_code(n)
    cdef uint64_t rest, low
    cdef uint64_t middle = encode_two_blocks(wide_top(n, &rest), &low)
    cdef uint64_t top = (<uint64_t>STREAM_CODE[low]) << 32 | (<uint64_t>STREAM_CODE[middle]) << 10
    after[0] = top << 16
    return stream_code(rest) | (top >> 48)


cdef inline uint64_t decode_one(uint64_t code) noexcept nogil:
    """The value of a code (fibnim_bytes_value of scalar.h)."""
    return bytes_value(code, 0, 8)


cdef inline int lowest_index(uint64_t lo, uint64_t hi) noexcept nogil:
    """The index i >= 2 of the lowest term F_i of a non-zero wide code."""
    if lo:
        return ctz64(lo) + 2
    return ctz64(hi) + 66


cdef inline uint64_t decode_wide(uint64_t lo, uint64_t hi) noexcept nogil:
    """The value of a code of up to 92 bits: lo holds bits 0..63, hi bits 64..91."""
    cdef uint64_t value = decode_one(lo)
    cdef int i
    while hi:
        i = ctz64(hi)
        value += FIB[i + FIB_LIMIT_INDEX]
        hi &= hi - 1
    return value


cdef inline uint64_t select(bint condition, uint64_t if_true, uint64_t if_false) noexcept nogil:
    # Branch-free: where the condition is a coin toss (A- or B-number, on most
    # data), a compiler's branch would be mispredicted half the time.
    return if_false ^ ((if_true ^ if_false) & (0 - <uint64_t>condition))


cdef inline bint lower_count(uint64_t x, uint64_t* below) noexcept nogil:
    """Whether x >= 1 is an A-number; below gets how many A-numbers are <= x.

    The A-numbers up to x number floor((x + 1)(phi - 1)); x is one of them
    exactly when frac((x + 1) phi) < phi - 1: one product for both answers.
    x = a_n gives n = below; x = b_n gives n = x - below, and a_n = below.
    """
    cdef uint64_t frac_hi, frac_lo
    below[0] = golden_split(x + 1, &frac_hi, &frac_lo)
    # the tie of the high words is all but impossible, but exactness needs the low words
    return (frac_hi < PHI_HI) | ((frac_hi == PHI_HI) & (frac_lo < PHI_LO))


cdef inline bint normal_safe(uint64_t small, uint64_t large) noexcept nogil:
    # (small, large) is a P-position iff small = a_d, d = large - small ((0, 0) for d = 0)
    return small == beatty(large - small)


cdef inline int codeword_length(uint64_t v) noexcept nogil:
    """The k with F_k <= v < F_{k+1}, for v >= 1, without a branch: the length
    of v's Fibonacci codeword (see fibnim_top_below in scalar.h)."""
    cdef int k = TOP_BELOW[bit_length(v)]
    k += v > NEXT_MINUS_ONE[k]
    return k + (v > NEXT_MINUS_ONE[k])


cdef inline int top_index(uint64_t v) noexcept nogil:
    """The k >= 2 with F_k <= v < F_{k+1}, for v >= 1."""
    # F_k grows by phi per step and 2 = phi^1.44: 1.44 times the bit length of
    # v is within two steps of k (log 2 / log phi = 1.4404 ~ 1475 / 1024).
    cdef int k = (bit_length(v) * 1475) >> 10
    if k > 92:
        k = 92
    if k < 2:
        k = 2
    while k < 93 and FIB[k + 1] <= v:
        k += 1
    while FIB[k] > v:
        k -= 1
    return k


cdef inline uint64_t lowest_term_of(uint64_t n) noexcept nogil:
    """z_1(n), the smallest Zeckendorf term of n; 0 for n = 0."""
    cdef uint64_t lo, hi
    if n < FIB[FIB_LIMIT_INDEX]:
        lo = encode_one(n)
        # n = 0 gives lo = 0: the bit set at 63 makes FIB[65] of it, and the select 0
        return FIB[ctz64(lo | (<uint64_t>1 << 63)) + 2] & (0 - <uint64_t>(lo != 0))
    lo = encode_wide(n, &hi)
    return FIB[lowest_index(lo, hi)]
