/* fibnim's AVX2 kernels, four lanes at a time (Haswell and later, AMD Zen and
   later), with the contract of simd_avx512.h: each does a leading multiple of
   4 elements and returns how many, stopping before four values of which one
   exceeds `limit`. AVX2 has no unsigned 64-bit compares or min/max and no mask
   registers: compares are signed ones on values with the top bit flipped, and
   masks are lanes of all ones. The exact product m * F comes from 32-bit limbs
   (vpmuludq), as in the AVX-512 kernels without IFMA. */

#define FIBNIM_AVX2 __attribute__((target("avx2,bmi2,fma")))

FIBNIM_AVX2 static inline __m256i fibnim_gt4(__m256i a, __m256i b) {  /* a > b, unsigned */
    const __m256i top = _mm256_set1_epi64x((long long)0x8000000000000000ULL);
    return _mm256_cmpgt_epi64(_mm256_xor_si256(a, top), _mm256_xor_si256(b, top));
}

/* b where the lanes of mask are ones, else a: by the lanes' sign bits (a
   byte blend of a 64-bit mask costs a compare more) */
FIBNIM_AVX2 static inline __m256i fibnim_blend4(__m256i a, __m256i b, __m256i mask) {
    return _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b),
                                                _mm256_castsi256_pd(mask)));
}

FIBNIM_AVX2 static inline __m256i fibnim_min4(__m256i a, __m256i b) {
    return fibnim_blend4(a, b, fibnim_gt4(a, b));
}

FIBNIM_AVX2 static inline __m256i fibnim_max4(__m256i a, __m256i b) {
    return fibnim_blend4(b, a, fibnim_gt4(a, b));
}

FIBNIM_AVX2 static inline int fibnim_any4(__m256i mask) {
    return !_mm256_testz_si256(mask, mask);
}

/* four bits b3 b2 b1 b0 as the bytes 0 or 1 of b0, b1, b2, b3 (little-endian):
   b * 0x204081 puts bit k at bit 8k (and elsewhere), without pdep, which Zen 2
   microcodes */
static inline uint32_t fibnim_bytes_of_bits4(uint32_t bits) {
    return (bits * 0x204081u) & 0x01010101u;
}

/* four lanes of all ones or zeros as four bytes of 1 or 0 */
FIBNIM_AVX2 static inline void fibnim_store_bools4(uint8_t *out, __m256i mask) {
    uint32_t bytes = fibnim_bytes_of_bits4((uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(mask)));
    memcpy(out, &bytes, 4);
}

/* eight lanes of two masks (the first four first) as eight bytes in one store */
FIBNIM_AVX2 static inline void fibnim_store_bools8(uint8_t *out, __m256i first, __m256i second) {
    uint64_t low = fibnim_bytes_of_bits4((uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(first)));
    uint64_t high = fibnim_bytes_of_bits4((uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(second)));
    uint64_t bytes = low | high << 32;
    memcpy(out, &bytes, 8);
}

/* a with its top bit flipped: signed compares of flipped values order them as
   unsigned ones (a constant is flipped once, outside the loop) */
FIBNIM_AVX2 static inline __m256i fibnim_flip4(__m256i a) {
    return _mm256_xor_si256(a, _mm256_set1_epi64x((long long)0x8000000000000000ULL));
}

/* The fast golden split: floor(m (phi - 1)) for four m <= 2**63, from the
   128-bit product m * PHI_HI = H 2**64 + L alone (four vpmuludq, where the
   whole 192-bit product m * F of _scalar.pxd takes eight).

   m (phi - 1) 2**64 = H 2**64 + L + delta, where delta = m * PHI_LO / 2**64
   (and less than 2**-63 more) lies in [0, 2**63 + 2**33). So the floor is H,
   plus one where L + delta carries out of 64 bits. delta is estimated by the
   product of the high limbs, m1 * (PHI_LO >> 32), which is at most 2**33
   (FIBNIM_CARRY_WINDOW) below it: the carry is sure unless L + that estimate
   lands within 2**33 below 2**64. Those lanes are set in *unsure (for random
   m, a chance of 2**-31; for m = F_k, k >= 46, every other k), for the exact
   path to redo. *fraction gets L + the estimate: the fraction's top 64 bits,
   or at most 2**33 below them. */
FIBNIM_AVX2 static inline __m256i fibnim_golden4(__m256i m, __m256i *fraction, __m256i *unsure) {
    const __m256i low = _mm256_set1_epi64x(0xffffffffLL);
    const __m256i lo1 = _mm256_set1_epi64x((long long)(FIBNIM_PHI_LO >> 32));
    const __m256i hi0 = _mm256_set1_epi64x((long long)(FIBNIM_PHI_HI & 0xffffffffULL));
    const __m256i hi1 = _mm256_set1_epi64x((long long)(FIBNIM_PHI_HI >> 32));
    const __m256i near_top = fibnim_flip4(_mm256_set1_epi64x(-FIBNIM_CARRY_WINDOW - 1));
    __m256i m1 = _mm256_srli_epi64(m, 32);
    __m256i p00 = _mm256_mul_epu32(m, hi0), p01 = _mm256_mul_epu32(m, hi1);
    __m256i p10 = _mm256_mul_epu32(m1, hi0), p11 = _mm256_mul_epu32(m1, hi1);
    __m256i middle = _mm256_add_epi64(_mm256_srli_epi64(p00, 32),  /* < 3 * 2**32 */
        _mm256_add_epi64(_mm256_and_si256(p01, low), _mm256_and_si256(p10, low)));
    __m256i l = _mm256_or_si256(_mm256_slli_epi64(middle, 32), _mm256_and_si256(p00, low));
    __m256i h = _mm256_add_epi64(_mm256_add_epi64(p11, _mm256_srli_epi64(middle, 32)),
        _mm256_add_epi64(_mm256_srli_epi64(p01, 32), _mm256_srli_epi64(p10, 32)));
    __m256i f = _mm256_add_epi64(l, _mm256_mul_epu32(m1, lo1));
    __m256i flipped = fibnim_flip4(f);
    __m256i carried = _mm256_cmpgt_epi64(fibnim_flip4(l), flipped);  /* L + estimate wrapped */
    __m256i near = _mm256_cmpgt_epi64(flipped, near_top);
    *unsure = _mm256_or_si256(*unsure, _mm256_andnot_si256(carried, near));
    *fraction = f;
    return _mm256_sub_epi64(h, carried);  /* a lane of ones is -1 */
}

/* lower_count of _scalar.pxd for four x < 2**63, by the fast golden split
   of x + 1: lanes of ones where x is an A-number (x >= 1 or not), the count of
   A-numbers <= x in *below. x is one iff the fraction is below phi - 1, whose
   top 64 bits are PHI_HI: sure where the estimate, at most 2**33 low, is below
   PHI_HI - 2**33 or above PHI_HI; *unsure gets the lanes between. */
FIBNIM_AVX2 static inline __m256i fibnim_lower4(__m256i x, __m256i *below, __m256i *unsure) {
    const __m256i sure_below = fibnim_flip4(_mm256_set1_epi64x((long long)(FIBNIM_PHI_HI - FIBNIM_CARRY_WINDOW)));
    const __m256i above = fibnim_flip4(_mm256_set1_epi64x((long long)FIBNIM_PHI_HI));
    __m256i fraction;
    *below = fibnim_golden4(_mm256_add_epi64(x, _mm256_set1_epi64x(1)), &fraction, unsure);
    __m256i flipped = fibnim_flip4(fraction);
    __m256i lower = _mm256_cmpgt_epi64(sure_below, flipped);
    __m256i not_lower = _mm256_cmpgt_epi64(flipped, above);
    *unsure = _mm256_or_si256(*unsure,
        _mm256_andnot_si256(_mm256_or_si256(lower, not_lower), _mm256_set1_epi64x(-1)));
    return lower;
}

/* fibnim_lower4 without the count: whether x < 2**63 is an A-number from the
   fraction alone, the low word of (x + 1) * PHI_HI (three vpmuludq, the high
   word never made) and the estimate of the next bits (one more). Unsure as
   there, and where the sum lies within the carry window below 2**64 (the
   true fraction may have wrapped to near 0). */
FIBNIM_AVX2 static inline __m256i fibnim_is_a4(__m256i x, __m256i *unsure) {
    const __m256i hi0 = _mm256_set1_epi64x((long long)(FIBNIM_PHI_HI & 0xffffffffULL));
    const __m256i hi1 = _mm256_set1_epi64x((long long)(FIBNIM_PHI_HI >> 32));
    const __m256i lo1 = _mm256_set1_epi64x((long long)(FIBNIM_PHI_LO >> 32));
    const __m256i sure_below = fibnim_flip4(_mm256_set1_epi64x((long long)(FIBNIM_PHI_HI - FIBNIM_CARRY_WINDOW)));
    const __m256i above = fibnim_flip4(_mm256_set1_epi64x((long long)FIBNIM_PHI_HI));
    const __m256i near_top = fibnim_flip4(_mm256_set1_epi64x(-FIBNIM_CARRY_WINDOW - 1));
    __m256i m = _mm256_add_epi64(x, _mm256_set1_epi64x(1));
    __m256i m1 = _mm256_srli_epi64(m, 32);
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(m, hi1), _mm256_mul_epu32(m1, hi0));
    __m256i fraction = _mm256_add_epi64(
        _mm256_add_epi64(_mm256_mul_epu32(m, hi0), _mm256_slli_epi64(cross, 32)),
        _mm256_mul_epu32(m1, lo1));
    __m256i flipped = fibnim_flip4(fraction);
    __m256i lower = _mm256_cmpgt_epi64(sure_below, flipped);
    __m256i sure = _mm256_or_si256(lower, _mm256_andnot_si256(
        _mm256_cmpgt_epi64(flipped, near_top), _mm256_cmpgt_epi64(flipped, above)));
    *unsure = _mm256_or_si256(*unsure, _mm256_andnot_si256(sure, _mm256_set1_epi64x(-1)));
    return lower;
}

/* Whether a value of a or b exceeds limit <= 2**63 - 1: signed compares, and
   the sign bits for values of 2**63 and up, all decided by one test of the
   sign bits. */
FIBNIM_AVX2 static inline int fibnim_above4(__m256i a, __m256i b, __m256i most) {
    __m256i over = _mm256_or_si256(_mm256_or_si256(a, b),
        _mm256_or_si256(_mm256_cmpgt_epi64(a, most), _mm256_cmpgt_epi64(b, most)));
    return !_mm256_testz_pd(_mm256_castsi256_pd(over), _mm256_castsi256_pd(over));
}

/* four values below 2**52 as doubles, exactly: their bits added to those of 2**52 */
FIBNIM_AVX2 static inline __m256d fibnim_to_double4(__m256i small) {
    const __m256i two52 = _mm256_set1_epi64x(0x4330000000000000LL);
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(small, two52)),
                         _mm256_castsi256_pd(two52));
}

/* the narrow path of simd.h (FIBNIM_NARROW): floor(m (phi - 1)) for m <
   2**32 and its fraction, exactly; and fibnim_lower4 for x + 1 < 2**32 */
FIBNIM_AVX2 static inline __m256i fibnim_golden4_narrow(__m256i m, __m256i *fraction) {
    __m256i middle = _mm256_add_epi64(_mm256_mul_epu32(m, _mm256_set1_epi64x(FIBNIM_C1)),
        _mm256_srli_epi64(_mm256_mul_epu32(m, _mm256_set1_epi64x(FIBNIM_C0)), 32));
    __m256i top = _mm256_add_epi64(_mm256_mul_epu32(m, _mm256_set1_epi64x(FIBNIM_C2)),
                                   _mm256_srli_epi64(middle, 32));
    /* (top << 32) | the low half of middle */
    *fraction = _mm256_blend_epi32(_mm256_slli_epi64(top, 32), middle, 0x55);
    return _mm256_srli_epi64(top, 32);
}

FIBNIM_AVX2 static inline __m256i fibnim_lower4_narrow(__m256i x, __m256i *below) {
    const __m256i phi = fibnim_flip4(_mm256_set1_epi64x((long long)FIBNIM_PHI_HI));
    __m256i fraction;
    *below = fibnim_golden4_narrow(_mm256_add_epi64(x, _mm256_set1_epi64x(1)), &fraction);
    return _mm256_cmpgt_epi64(phi, fibnim_flip4(fraction));
}

/* whether a block takes the narrow path: its multiplicands all below
   FIBNIM_NARROW, as are those or'ed together into `values` */
FIBNIM_AVX2 static inline int fibnim_narrow4(__m256i values) {
    return _mm256_testz_si256(values, _mm256_set1_epi64x(-FIBNIM_NARROW));
}

/* Each Wythoff kernel stops before a block with a value above limit, or one
   its fast golden split left unsure: the caller's exact scalar loop does that
   block, and calls the kernel again for the rest. */

FIBNIM_AVX2 static Py_ssize_t fibnim_is_safe4(
        const uint64_t *x, const uint64_t *y, uint8_t *out, Py_ssize_t n, uint64_t limit) {
    Py_ssize_t i = 0;
    const __m256i most = _mm256_set1_epi64x((long long)limit);
    /* eight at a time, two independent chains of products for the two
       multiply ports, one test of each kind for both (an or of values is
       above limit or unsure if either is; the four-lane loop below settles
       a block that one test stopped) */
    for (; i + 8 <= n; i += 8) {
        __m256i a0 = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i b0 = _mm256_loadu_si256((const __m256i *)(y + i));
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(x + i + 4));
        __m256i b1 = _mm256_loadu_si256((const __m256i *)(y + i + 4));
        __m256i as = _mm256_or_si256(a0, a1), bs = _mm256_or_si256(b0, b1);
        if (fibnim_above4(as, bs, most)) break;
        __m256i s0, s1, d0, d1, fraction, floor0, floor1;
        if (fibnim_narrow4(_mm256_or_si256(as, bs))) {
            /* piles below 2**32: their 32-bit halves order them */
            s0 = _mm256_min_epu32(a0, b0);
            s1 = _mm256_min_epu32(a1, b1);
            d0 = _mm256_sub_epi64(_mm256_max_epu32(a0, b0), s0);
            d1 = _mm256_sub_epi64(_mm256_max_epu32(a1, b1), s1);
            floor0 = fibnim_golden4_narrow(d0, &fraction);
            floor1 = fibnim_golden4_narrow(d1, &fraction);
        } else {
            __m256i swapped0 = _mm256_cmpgt_epi64(a0, b0), swapped1 = _mm256_cmpgt_epi64(a1, b1);
            __m256i unsure = _mm256_setzero_si256();
            s0 = fibnim_blend4(a0, b0, swapped0);
            s1 = fibnim_blend4(a1, b1, swapped1);
            d0 = fibnim_blend4(_mm256_sub_epi64(b0, a0), _mm256_sub_epi64(a0, b0), swapped0);
            d1 = fibnim_blend4(_mm256_sub_epi64(b1, a1), _mm256_sub_epi64(a1, b1), swapped1);
            floor0 = fibnim_golden4(d0, &fraction, &unsure);
            floor1 = fibnim_golden4(d1, &fraction, &unsure);
            if (!_mm256_testz_si256(unsure, unsure)) break;
        }
        fibnim_store_bools8(out + i, _mm256_cmpeq_epi64(s0, _mm256_add_epi64(d0, floor0)),
                            _mm256_cmpeq_epi64(s1, _mm256_add_epi64(d1, floor1)));
    }
    for (; i + 4 <= n; i += 4) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(y + i));
        if (fibnim_above4(a, b, most)) break;
        /* both below 2**63 now: signed compares order them; the narrow path
           needs only the difference below 2**32 (the loop above tests the
           piles, whose 32-bit halves then order them) */
        __m256i swapped = _mm256_cmpgt_epi64(a, b);
        __m256i s = fibnim_blend4(a, b, swapped);
        __m256i d = fibnim_blend4(_mm256_sub_epi64(b, a), _mm256_sub_epi64(a, b), swapped);
        __m256i fraction, unsure = _mm256_setzero_si256(), floor;
        if (fibnim_narrow4(d)) {
            floor = fibnim_golden4_narrow(d, &fraction);
        } else {
            floor = fibnim_golden4(d, &fraction, &unsure);
            if (!_mm256_testz_si256(unsure, unsure)) break;
        }
        fibnim_store_bools4(out + i, _mm256_cmpeq_epi64(s, _mm256_add_epi64(d, floor)));
    }
    return i;
}

FIBNIM_AVX2 static Py_ssize_t fibnim_pair4(
        const uint64_t *n, int64_t *a, int64_t *b, Py_ssize_t count, uint64_t limit) {
    Py_ssize_t i = 0;
    const __m256i most = _mm256_set1_epi64x((long long)limit);
    for (; i + 4 <= count; i += 4) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(n + i));
        if (fibnim_above4(v, v, most)) break;
        __m256i fraction, unsure = _mm256_setzero_si256(), lower;
        if (fibnim_narrow4(v)) {
            lower = _mm256_add_epi64(v, fibnim_golden4_narrow(v, &fraction));
        } else {
            lower = _mm256_add_epi64(v, fibnim_golden4(v, &fraction, &unsure));
            if (!_mm256_testz_si256(unsure, unsure)) break;
        }
        _mm256_storeu_si256((__m256i *)(a + i), lower);
        _mm256_storeu_si256((__m256i *)(b + i), _mm256_add_epi64(lower, v));
    }
    return i;
}

FIBNIM_AVX2 static Py_ssize_t fibnim_is_lower4(
        const uint64_t *x, uint8_t *out, Py_ssize_t n, int upper, uint64_t limit) {
    Py_ssize_t i = 0;
    const __m256i most = _mm256_set1_epi64x((long long)limit);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i flip = upper ? _mm256_set1_epi64x(-1) : zero;
    /* eight at a time, as fibnim_is_safe4 */
    for (; i + 8 <= n; i += 8) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(x + i + 4));
        __m256i either = _mm256_or_si256(v0, v1);
        if (fibnim_above4(either, either, most)) break;
        __m256i unsure = zero, lower0, lower1, below;
        if (fibnim_narrow4(_mm256_or_si256(_mm256_add_epi64(v0, _mm256_set1_epi64x(1)),
                                           _mm256_add_epi64(v1, _mm256_set1_epi64x(1))))) {
            lower0 = fibnim_lower4_narrow(v0, &below);
            lower1 = fibnim_lower4_narrow(v1, &below);
        } else {
            lower0 = fibnim_is_a4(v0, &unsure);
            lower1 = fibnim_is_a4(v1, &unsure);
            if (!_mm256_testz_si256(unsure, unsure)) break;
        }
        fibnim_store_bools8(out + i,
            _mm256_andnot_si256(_mm256_cmpeq_epi64(v0, zero), _mm256_xor_si256(lower0, flip)),
            _mm256_andnot_si256(_mm256_cmpeq_epi64(v1, zero), _mm256_xor_si256(lower1, flip)));
    }
    for (; i + 4 <= n; i += 4) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(x + i));
        if (fibnim_above4(v, v, most)) break;
        __m256i below, unsure = zero, lower;
        if (fibnim_narrow4(_mm256_add_epi64(v, _mm256_set1_epi64x(1)))) {
            lower = fibnim_lower4_narrow(v, &below);
        } else {
            lower = fibnim_is_a4(v, &unsure);
            if (!_mm256_testz_si256(unsure, unsure)) break;
        }
        __m256i result = _mm256_andnot_si256(_mm256_cmpeq_epi64(v, zero), _mm256_xor_si256(lower, flip));
        fibnim_store_bools4(out + i, result);
    }
    return i;
}

/* Silber's winning move from four positions below 2**63 (narrow: every pile
   below FIBNIM_NARROW); *unsure gets the lanes the fast split left undecided.
   With s <= l the piles, d = l - s and n the count of A-numbers <= s (s = a_n
   where s is one, else s = b_m and n = a_m, its partner): (s, l) is P iff s =
   a_d; the move is along the diagonal to (a_d, a_d + d) where s = a_n with n >
   d, or where d = 0 (to (0, 0)); else l goes down to s's partner, n + s or n.
   s = 0 needs no case of its own (n = 0 there), nor does s = 2**32 - 1 on the
   narrow path, where d = 0 (its count, past the narrow split's range, goes
   unused). P lanes are -1 in both targets. */
FIBNIM_AVX2 static inline void fibnim_move4(
        __m256i a, __m256i b, int narrow, __m256i *ta, __m256i *tb, __m256i *unsure) {
    const __m256i zero = _mm256_setzero_si256();
    __m256i swapped = _mm256_cmpgt_epi64(a, b);
    /* narrow piles are ordered by their 32-bit halves */
    __m256i s = narrow ? _mm256_min_epu32(a, b) : fibnim_blend4(a, b, swapped);
    __m256i l = narrow ? _mm256_max_epu32(a, b) : fibnim_blend4(b, a, swapped);
    __m256i count, fraction;
    __m256i lower = narrow ? fibnim_lower4_narrow(s, &count) : fibnim_lower4(s, &count, unsure);
    __m256i d = _mm256_sub_epi64(l, s);
    __m256i a_d = _mm256_add_epi64(d, narrow ? fibnim_golden4_narrow(d, &fraction)
                                            : fibnim_golden4(d, &fraction, unsure));
    __m256i p = _mm256_cmpeq_epi64(s, a_d);
    /* count and d are below 2**63: signed compares order them */
    __m256i diagonal = _mm256_or_si256(_mm256_and_si256(lower, _mm256_cmpgt_epi64(count, d)),
                                       _mm256_cmpeq_epi64(d, zero));
    __m256i partner = _mm256_add_epi64(count, _mm256_and_si256(lower, s));
    __m256i ts = _mm256_or_si256(fibnim_blend4(s, a_d, diagonal), p);
    __m256i tl = _mm256_or_si256(fibnim_blend4(partner, _mm256_add_epi64(a_d, d), diagonal), p);
    *ta = fibnim_blend4(ts, tl, swapped);
    *tb = fibnim_blend4(tl, ts, swapped);
}

/* whether every pile of a block (or'ed into `piles`) takes fibnim_move4's
   narrow path: all below FIBNIM_NARROW, so also at most a limit of 2**32 - 1
   or more, which the kernels then need not test */
FIBNIM_AVX2 static inline int fibnim_narrow_piles4(__m256i piles) {
    return _mm256_testz_si256(piles, _mm256_set1_epi64x(-FIBNIM_NARROW));
}

/* The moves of positions that failed the narrow test, four at a time: 0
   where a pile is above the limit or the fast split was unsure (nothing is
   stored then; the caller's exact loop takes over), else 1 */
FIBNIM_AVX2 static inline int fibnim_wide_moves4(
        __m256i a, __m256i b, __m256i most, __m256i *ta, __m256i *tb) {
    __m256i unsure = _mm256_setzero_si256();
    if (fibnim_above4(a, b, most)) return 0;
    fibnim_move4(a, b, 0, ta, tb, &unsure);
    return _mm256_testz_si256(unsure, unsure);
}

/* The kernels below take blocks of eight positions, two independent chains
   of four, with one narrow test for both (the limit needs no test there when
   it is 2**32 - 1 or more, as it is for every caller but a test's), and four
   at a time at the end or where the block is wide. Stores are plain: the
   arithmetic, not the memory, limits them, and streaming stores ran at half
   the speed. */
FIBNIM_AVX2 static Py_ssize_t fibnim_winning_move4(
        const uint64_t *x, const uint64_t *y, int64_t *tx, int64_t *ty, Py_ssize_t n,
        uint64_t limit) {
    Py_ssize_t i = 0;
    const __m256i most = _mm256_set1_epi64x((long long)limit);
    const int narrow_within = limit >= (uint64_t)FIBNIM_NARROW - 1;
    __m256i ta0, tb0, ta1, tb1;
    for (; i + 8 <= n; i += 8) {
        __m256i a0 = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i b0 = _mm256_loadu_si256((const __m256i *)(y + i));
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(x + i + 4));
        __m256i b1 = _mm256_loadu_si256((const __m256i *)(y + i + 4));
        __m256i piles = _mm256_or_si256(_mm256_or_si256(a0, b0), _mm256_or_si256(a1, b1));
        if (narrow_within && fibnim_narrow_piles4(piles)) {
            fibnim_move4(a0, b0, 1, &ta0, &tb0, NULL);
            fibnim_move4(a1, b1, 1, &ta1, &tb1, NULL);
        } else if (!fibnim_wide_moves4(a0, b0, most, &ta0, &tb0)
                   || !fibnim_wide_moves4(a1, b1, most, &ta1, &tb1)) {
            break;
        }
        _mm256_storeu_si256((__m256i *)(tx + i), ta0);
        _mm256_storeu_si256((__m256i *)(ty + i), tb0);
        _mm256_storeu_si256((__m256i *)(tx + i + 4), ta1);
        _mm256_storeu_si256((__m256i *)(ty + i + 4), tb1);
    }
    for (; i + 4 <= n; i += 4) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(y + i));
        if (narrow_within && fibnim_narrow_piles4(_mm256_or_si256(a, b)))
            fibnim_move4(a, b, 1, &ta0, &tb0, NULL);
        else if (!fibnim_wide_moves4(a, b, most, &ta0, &tb0))
            break;
        _mm256_storeu_si256((__m256i *)(tx + i), ta0);
        _mm256_storeu_si256((__m256i *)(ty + i), tb0);
    }
    return i;
}

/* The two columns of four rows of (n, 2) piles, in row order: rows 0 and 2
   in one register and 1 and 3 in the other (128 bits each, loaded as halves),
   so that one unpack each gives them with no lane-crossing shuffle. */
FIBNIM_AVX2 static inline void fibnim_columns4(const uint64_t *rows, __m256i *first, __m256i *second) {
    __m256i even = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)rows)),
        _mm_loadu_si128((const __m128i *)(rows + 4)), 1);
    __m256i odd = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(rows + 2))),
        _mm_loadu_si128((const __m128i *)(rows + 6)), 1);
    *first = _mm256_unpacklo_epi64(even, odd);
    *second = _mm256_unpackhi_epi64(even, odd);
}

/* Four rows of classify's answers (p ta tb, with p the sign bit of ta: -1
   where there is no move) stored as 12 words (p0 ta0 tb0 p1) (ta1 tb1 p2 ta2)
   (tb2 p3 ta3 tb3): three unpacks make (p0 ta0 | p2 ta2), (tb0 p1 | tb2 p3)
   and (ta1 tb1 | ta3 tb3), and two 128-bit permutes and a blend put them in
   place. */
FIBNIM_AVX2 static inline void fibnim_store_rows4(int64_t *out, __m256i ta, __m256i tb) {
    __m256i p = _mm256_srli_epi64(ta, 63);
    __m256i p_ta = _mm256_unpacklo_epi64(p, ta);
    __m256i tb_p = _mm256_unpacklo_epi64(tb, _mm256_shuffle_epi32(p, _MM_SHUFFLE(1, 0, 3, 2)));
    __m256i ta_tb = _mm256_unpackhi_epi64(ta, tb);
    _mm256_storeu_si256((__m256i *)out, _mm256_permute2x128_si256(p_ta, tb_p, 0x20));
    _mm256_storeu_si256((__m256i *)(out + 4), _mm256_blend_epi32(ta_tb, p_ta, 0xF0));
    _mm256_storeu_si256((__m256i *)(out + 8), _mm256_permute2x128_si256(tb_p, ta_tb, 0x31));
}

/* classify of wythoff.pxi in normal play, for C-contiguous rows: piles (n, 2)
   in, out (n, 3) = (1 for P or 0, the target, -1 -1 where none), as
   fibnim_winning_move4 goes */
FIBNIM_AVX2 static Py_ssize_t fibnim_classify_wythoff4(
        const uint64_t *piles, int64_t *out, Py_ssize_t n, uint64_t limit) {
    Py_ssize_t i = 0;
    const __m256i most = _mm256_set1_epi64x((long long)limit);
    const int narrow_within = limit >= (uint64_t)FIBNIM_NARROW - 1;
    __m256i a0, b0, a1, b1, ta0, tb0, ta1, tb1;
    for (; i + 8 <= n; i += 8) {
        fibnim_columns4(piles + 2 * i, &a0, &b0);
        fibnim_columns4(piles + 2 * i + 8, &a1, &b1);
        __m256i all = _mm256_or_si256(_mm256_or_si256(a0, b0), _mm256_or_si256(a1, b1));
        if (narrow_within && fibnim_narrow_piles4(all)) {
            fibnim_move4(a0, b0, 1, &ta0, &tb0, NULL);
            fibnim_move4(a1, b1, 1, &ta1, &tb1, NULL);
        } else if (!fibnim_wide_moves4(a0, b0, most, &ta0, &tb0)
                   || !fibnim_wide_moves4(a1, b1, most, &ta1, &tb1)) {
            break;
        }
        fibnim_store_rows4(out + 3 * i, ta0, tb0);
        fibnim_store_rows4(out + 3 * i + 12, ta1, tb1);
    }
    for (; i + 4 <= n; i += 4) {
        fibnim_columns4(piles + 2 * i, &a0, &b0);
        if (narrow_within && fibnim_narrow_piles4(_mm256_or_si256(a0, b0)))
            fibnim_move4(a0, b0, 1, &ta0, &tb0, NULL);
        else if (!fibnim_wide_moves4(a0, b0, most, &ta0, &tb0))
            break;
        fibnim_store_rows4(out + 3 * i, ta0, tb0);
    }
    return i;
}

/* the nibble tables of fibnim_digit_sums4 below */
typedef struct { __m256i low_a, low_b, high_a, high_b; } fibnim_nibble_tables4;
/* the tables for a code's order of digits (bit j: F_(j+2)), made once by a kernel */
FIBNIM_AVX2 static inline fibnim_nibble_tables4 fibnim_code_nibbles4(void) {
    fibnim_nibble_tables4 t;
    t.low_a = _mm256_broadcastsi128_si256(FIBNIM_NIBBLE_TABLE(1, 2, 3, 5));
    t.low_b = _mm256_broadcastsi128_si256(FIBNIM_NIBBLE_TABLE(1, 1, 2, 3));
    t.high_a = _mm256_broadcastsi128_si256(FIBNIM_NIBBLE_TABLE(8, 13, 21, 34));
    t.high_b = _mm256_broadcastsi128_si256(FIBNIM_NIBBLE_TABLE(5, 8, 13, 21));
    return t;
}

/* The sums of a 64-bit code's digits, by the halves of its 64-bit lanes: a
   chunk of a code's bits at offset o adds F_(o+1) A + F_o B to its value,
   where A and B are the sums of F_(j+2) and F_(j+1) over its set bits j
   (F_(o+j+2) = F_(o+1) F_(j+2) + F_o F_(j+1)). Nibbles get (A, B) from
   vpshufb tables (low_a .. high_b: by the nibble's own order of digits); a
   chunk twice as wide is the low half's (A, B) plus the high half's moved up
   by w bits, (F_(w+1) A + F_w B, F_w A + F_(w-1) B): bytes to 16-bit words by
   vpmaddubsw, words to 32-bit by vpmaddwd (every A and B fits their signed
   lanes: A < 2**24 at 32 bits). *a_d and *b_d get each 32-bit half's (A, B). */
FIBNIM_AVX2 static inline void fibnim_digit_sums4(__m256i c, const fibnim_nibble_tables4 *t,
                                                  __m256i *a_d, __m256i *b_d) {
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    /* byte pairs (low, high) and 16-bit pairs of (1, F_(w+1)), (0, F_w), (1, F_(w-1)) */
    const __m256i a8 = _mm256_set1_epi16(1 | 34 << 8), ab8 = _mm256_set1_epi16(21 << 8);
    const __m256i b8 = _mm256_set1_epi16(1 | 13 << 8);
    const __m256i a16 = _mm256_set1_epi32(1 | 1597 << 16), ab16 = _mm256_set1_epi32(987 << 16);
    const __m256i b16 = _mm256_set1_epi32(1 | 610 << 16);
    __m256i lo = _mm256_and_si256(c, nibble);
    __m256i hi = _mm256_and_si256(_mm256_srli_epi16(c, 4), nibble);
    __m256i a = _mm256_add_epi8(_mm256_shuffle_epi8(t->low_a, lo), _mm256_shuffle_epi8(t->high_a, hi));
    __m256i b = _mm256_add_epi8(_mm256_shuffle_epi8(t->low_b, lo), _mm256_shuffle_epi8(t->high_b, hi));
    __m256i a_w = _mm256_add_epi16(_mm256_maddubs_epi16(a, a8), _mm256_maddubs_epi16(b, ab8));
    __m256i b_w = _mm256_add_epi16(_mm256_maddubs_epi16(a, ab8), _mm256_maddubs_epi16(b, b8));
    *a_d = _mm256_add_epi32(_mm256_madd_epi16(a_w, a16), _mm256_madd_epi16(b_w, ab16));
    *b_d = _mm256_add_epi32(_mm256_madd_epi16(a_w, ab16), _mm256_madd_epi16(b_w, b16));
}

/* The value of 64 digits from their halves' sums: the high half moved up by
   32 bits with vpmuludq. */
FIBNIM_AVX2 static inline __m256i fibnim_digits_value4(__m256i a_d, __m256i b_d) {
    const __m256i f33 = _mm256_set1_epi64x(3524578), f32 = _mm256_set1_epi64x(2178309);
    return _mm256_add_epi64(_mm256_and_si256(a_d, _mm256_set1_epi64x(0xffffffffLL)),
        _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a_d, 32), f33),
                         _mm256_mul_epu32(_mm256_srli_epi64(b_d, 32), f32)));
}

/* decode, four codes at a time (each stops before a block with a code above
   limit or with two adjacent set bits); a code's bit j is the digit of F_(j+2).
   Unchecked, for the fast lanes of coding_lanes.h, whose codes are
   codewords' digits that they cut themselves: the test cost the avx2 lane
   9 % (on Zen 4). */
FIBNIM_ALWAYS_INLINE FIBNIM_AVX2 Py_ssize_t fibnim_decode4_body(
        const uint64_t *code, int64_t *out, Py_ssize_t n, uint64_t limit, int checked) {
    Py_ssize_t i = 0;
    const __m256i most = _mm256_set1_epi64x((long long)limit);
    const fibnim_nibble_tables4 tables = fibnim_code_nibbles4();
    for (; i + 4 <= n; i += 4) {
        __m256i c = _mm256_loadu_si256((const __m256i *)(code + i)), a_d, b_d;
        if (checked && fibnim_any4(_mm256_or_si256(fibnim_gt4(c, most),  /* codes take all 64 bits */
                                                   _mm256_and_si256(c, _mm256_srli_epi64(c, 1)))))
            break;
        fibnim_digit_sums4(c, &tables, &a_d, &b_d);
        _mm256_storeu_si256((__m256i *)(out + i), fibnim_digits_value4(a_d, b_d));
    }
    return i;
}
FIBNIM_AVX2 static Py_ssize_t fibnim_decode4(
        const uint64_t *code, int64_t *out, Py_ssize_t n, uint64_t limit) {
    return fibnim_decode4_body(code, out, n, limit, 1);
}

/* decode for codes of at most 32 digits (unchecked, for coding_lanes.h):
   eight to a vector, two codes to each 64-bit lane, whose 32-bit halves'
   digit sums are then the values; n a multiple of 8 */
FIBNIM_AVX2 static inline void fibnim_decode_short8(const uint64_t *code, uint64_t *out,
                                                    Py_ssize_t n) {
    const fibnim_nibble_tables4 tables = fibnim_code_nibbles4();
    const __m256i low = _mm256_set1_epi64x(0xffffffffLL);
    for (Py_ssize_t i = 0; i < n; i += 8) {
        __m256i first = _mm256_loadu_si256((const __m256i *)(code + i));
        __m256i second = _mm256_loadu_si256((const __m256i *)(code + i + 4));
        __m256i a_d, b_d;
        fibnim_digit_sums4(_mm256_blend_epi32(first, _mm256_slli_epi64(second, 32), 0xaa), &tables,
                           &a_d, &b_d);
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_and_si256(a_d, low));
        _mm256_storeu_si256((__m256i *)(out + i + 4), _mm256_srli_epi64(a_d, 32));
    }
}

/* coding.h's long codewords (fibnim_long_batch), four at a time: their
   digits in stream order, the first at bit 63, so with each lane's bytes
   swapped a byte holds 8 digits, its first at bit 7 (the nibble tables
   read the digits from the top). The 28 digits of tail (at most) are
   the low half of its lanes, and add F_65 A + F_64 B; each product stays
   below 2**64 (A, B < F_30), by 32-bit halves of F_65 and F_64. */
FIBNIM_AVX2 static void fibnim_long_values4(const uint64_t *head, const uint64_t *tail,
                                            uint64_t *value, int n) {
    const __m256i swap = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
                                          7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
    fibnim_nibble_tables4 tables;  /* for digits read from the top of each byte */
    tables.low_a = _mm256_broadcastsi128_si256(FIBNIM_NIBBLE_TABLE(34, 21, 13, 8));
    tables.low_b = _mm256_broadcastsi128_si256(FIBNIM_NIBBLE_TABLE(21, 13, 8, 5));
    tables.high_a = _mm256_broadcastsi128_si256(FIBNIM_NIBBLE_TABLE(5, 3, 2, 1));
    tables.high_b = _mm256_broadcastsi128_si256(FIBNIM_NIBBLE_TABLE(3, 2, 1, 1));
    const __m256i f65_low = _mm256_set1_epi64x(17167680177565LL & 0xffffffffLL);
    const __m256i f65_high = _mm256_set1_epi64x(17167680177565LL >> 32);
    const __m256i f64_low = _mm256_set1_epi64x(10610209857723LL & 0xffffffffLL);
    const __m256i f64_high = _mm256_set1_epi64x(10610209857723LL >> 32);
    for (int k = 0; k < n; k += 4) {
        __m256i a_d, b_d, ta, tb;
        fibnim_digit_sums4(_mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(head + k)), swap),
                           &tables, &a_d, &b_d);
        fibnim_digit_sums4(_mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(tail + k)), swap),
                           &tables, &ta, &tb);
        __m256i moved = _mm256_add_epi64(
            _mm256_add_epi64(_mm256_mul_epu32(ta, f65_low),
                             _mm256_slli_epi64(_mm256_mul_epu32(ta, f65_high), 32)),
            _mm256_add_epi64(_mm256_mul_epu32(tb, f64_low),
                             _mm256_slli_epi64(_mm256_mul_epu32(tb, f64_high), 32)));
        _mm256_storeu_si256((__m256i *)(value + k),
                            _mm256_add_epi64(fibnim_digits_value4(a_d, b_d), moved));
    }
}

/* Two-pile power-of-two Nim: P iff X = 0 or sb(X) > r, X = n_0 xor n_1 */
FIBNIM_AVX2 static Py_ssize_t fibnim_power_pairs4(
        const uint64_t *piles, const uint64_t *r, uint8_t *out, Py_ssize_t n, uint64_t limit) {
    Py_ssize_t i = 0;
    const __m256i most = _mm256_set1_epi64x((long long)limit);
    for (; i + 4 <= n; i += 4) {
        __m256i lo = _mm256_loadu_si256((const __m256i *)(piles + 2 * i));
        __m256i hi = _mm256_loadu_si256((const __m256i *)(piles + 2 * i + 4));
        __m256i bound = _mm256_loadu_si256((const __m256i *)(r + i));
        __m256i top = fibnim_max4(fibnim_max4(lo, hi), bound);
        if (fibnim_any4(fibnim_gt4(top, most))) break;
        /* rows 0, 2, 1, 3 after the unpacks; the permute puts them in order */
        __m256i x = _mm256_permute4x64_epi64(
            _mm256_xor_si256(_mm256_unpacklo_epi64(lo, hi), _mm256_unpackhi_epi64(lo, hi)), 0xD8);
        __m256i lowest = _mm256_and_si256(x, _mm256_sub_epi64(_mm256_setzero_si256(), x));
        __m256i p = _mm256_or_si256(_mm256_cmpeq_epi64(x, _mm256_setzero_si256()),
                                    fibnim_gt4(lowest, bound));
        fibnim_store_bools4(out + i, p);
    }
    return i;
}

/* Fibonacci Nim's arc tests (fibonacci_nim.pxi), four lanes at a time, with the
   tables of the AVX-512 kernels (rows: five rows of 64) read by gathers. */

/* the bit length of four values below 2**63: of the high half if it is not
   zero, else of the low one; a 32-bit value converts to a double exactly, and
   its exponent field is 1022 + its bit length (0 for 0) */
FIBNIM_AVX2 static inline __m256i fibnim_bit_length4(__m256i v) {
    const __m256i low = _mm256_set1_epi64x(0xffffffffLL);
    __m256i high = _mm256_srli_epi64(v, 32);
    __m256i is_high = fibnim_gt4(high, _mm256_setzero_si256());
    __m256i half = fibnim_blend4(_mm256_and_si256(v, low), high, is_high);
    __m256i exponent = _mm256_srli_epi64(_mm256_castpd_si256(fibnim_to_double4(half)), 52);
    __m256i length = _mm256_max_epi32(_mm256_sub_epi64(exponent, _mm256_set1_epi64x(1022)),
                                      _mm256_setzero_si256());
    return _mm256_add_epi64(length, _mm256_and_si256(is_high, _mm256_set1_epi64x(32)));
}

/* golden_fraction of fibonacci_nim.pxi, at most 4 below 2**64 (v / phi mod 1),
   from 32-bit limbs: the low 64 bits of v * PHI_HI (three vpmuludq) and the
   high 64 bits of v * PHI_LO but for the carries out of its middle and low
   products, which are at most 2 (three more) */
FIBNIM_AVX2 static inline __m256i fibnim_golden_fraction4(__m256i v) {
    const __m256i hi0 = _mm256_set1_epi64x((long long)(FIBNIM_PHI_HI & 0xffffffffULL));
    const __m256i hi1 = _mm256_set1_epi64x((long long)(FIBNIM_PHI_HI >> 32));
    const __m256i lo0 = _mm256_set1_epi64x((long long)(FIBNIM_PHI_LO & 0xffffffffULL));
    const __m256i lo1 = _mm256_set1_epi64x((long long)(FIBNIM_PHI_LO >> 32));
    __m256i v1 = _mm256_srli_epi64(v, 32);
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(v, hi1), _mm256_mul_epu32(v1, hi0));
    __m256i x = _mm256_add_epi64(_mm256_mul_epu32(v, hi0), _mm256_slli_epi64(cross, 32));
    __m256i high = _mm256_add_epi64(_mm256_mul_epu32(v1, lo1),
        _mm256_add_epi64(_mm256_srli_epi64(_mm256_mul_epu32(v1, lo0), 32),
                         _mm256_srli_epi64(_mm256_mul_epu32(v, lo1), 32)));
    return _mm256_add_epi64(x, high);
}

FIBNIM_AVX2 static inline __m256i fibnim_lookup4(const uint64_t *table, __m256i index) {
    return _mm256_i64gather_epi64((const long long *)table, index, 8);
}

/* top_index(r), 1 for r = 0 */
FIBNIM_AVX2 static inline __m256i fibnim_top_index4(const uint64_t *rows, __m256i r) {
    __m256i bits = fibnim_bit_length4(r);
    __m256i top = fibnim_lookup4(rows, bits);
    /* a lane of ones is -1: subtracting it adds one */
    top = _mm256_sub_epi64(top, _mm256_xor_si256(fibnim_gt4(fibnim_lookup4(rows + 64, bits), r),
                                                 _mm256_set1_epi64x(-1)));
    return _mm256_sub_epi64(top, _mm256_xor_si256(fibnim_gt4(fibnim_lookup4(rows + 128, bits), r),
                                                  _mm256_set1_epi64x(-1)));
}

/* the lanes whose lowest Zeckendorf index is at least j (x their golden
   fractions); *unsure gets those too near an arc's end, and those with j >= 64 */
FIBNIM_AVX2 static inline __m256i fibnim_on_arc4(
        const uint64_t *rows, __m256i x, __m256i j, __m256i *unsure) {
    const __m256i margin = _mm256_set1_epi64x(FIBNIM_ARC_MARGIN);
    const __m256i near = _mm256_set1_epi64x(2 * FIBNIM_ARC_MARGIN - 1);
    __m256i beyond = fibnim_gt4(j, _mm256_set1_epi64x(63));
    __m256i index = _mm256_andnot_si256(beyond, j);  /* in the tables, whatever j */
    __m256i length = fibnim_lookup4(rows + 256, index);
    __m256i u = _mm256_sub_epi64(x, fibnim_lookup4(rows + 192, index));
    __m256i near_start = fibnim_gt4(near, _mm256_add_epi64(u, margin));
    __m256i near_end = fibnim_gt4(near, _mm256_add_epi64(_mm256_sub_epi64(u, length), margin));
    *unsure = _mm256_or_si256(*unsure, _mm256_or_si256(_mm256_or_si256(near_start, near_end), beyond));
    return fibnim_gt4(length, u);
}

/* out = 1 for a P-position, 0 for an N-position, 2 where unsure */
FIBNIM_AVX2 static inline void fibnim_store_answer4(uint8_t *out, __m256i p, __m256i unsure) {
    uint32_t p_bits = (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(p));
    uint32_t unsure_bits = (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(unsure));
    uint32_t bytes = fibnim_bytes_of_bits4(p_bits & ~unsure_bits)
        | (fibnim_bytes_of_bits4(unsure_bits) << 1);
    memcpy(out, &bytes, 4);
}

/* Two-pile global Fibonacci Nim, cases 1 and 2 of the theorem, as
   fibnim_fib_two_pile8 of simd_avx512.h */
FIBNIM_AVX2 static Py_ssize_t fibnim_fib_two_pile4(
        const uint64_t *piles, const uint64_t *r, uint8_t *out, Py_ssize_t count,
        uint64_t limit, const uint64_t *rows, int *any_unsure) {
    Py_ssize_t i = 0;
    const __m256i most = _mm256_set1_epi64x((long long)limit);
    const __m256i one = _mm256_set1_epi64x(1);
    const __m256i zero = _mm256_setzero_si256();
    for (; i + 4 <= count; i += 4) {
        __m256i x, y;
        fibnim_columns4(piles + 2 * i, &x, &y);
        __m256i large = fibnim_max4(x, y);
        __m256i given = _mm256_loadu_si256((const __m256i *)(r + i));
        if (fibnim_any4(fibnim_gt4(fibnim_max4(large, given), most))) break;
        __m256i bound = fibnim_min4(given, large);
        __m256i next = _mm256_add_epi64(fibnim_top_index4(rows, bound), one);
        __m256i fraction = fibnim_golden_fraction4(_mm256_sub_epi64(large, fibnim_min4(x, y)));
        __m256i unsure = zero;
        __m256i at_least_next = fibnim_on_arc4(rows, fraction, next, &unsure);
        __m256i beyond_next = fibnim_on_arc4(rows, fraction, _mm256_add_epi64(next, one), &unsure);
        __m256i no_move = _mm256_cmpeq_epi64(bound, zero);
        unsure = _mm256_andnot_si256(no_move,
            _mm256_or_si256(unsure, _mm256_andnot_si256(beyond_next, at_least_next)));
        fibnim_store_answer4(out + i, _mm256_or_si256(beyond_next, no_move), unsure);
        *any_unsure |= fibnim_any4(unsure);
    }
    return i;
}

/* fibnim_closing_bits of coding.h, four words at a time */
FIBNIM_AVX2 static inline __m256i fibnim_closing_bits4(__m256i w) {
    const __m256i even = _mm256_set1_epi64x((long long)FIBNIM_EVEN_POSITIONS);
    __m256i lows = _mm256_andnot_si256(_mm256_slli_epi64(w, 1), w);
    __m256i even_low = _mm256_andnot_si256(_mm256_add_epi64(w, _mm256_and_si256(lows, even)), w);
    return _mm256_and_si256(w, _mm256_xor_si256(even_low, even));
}

/* Fibonacci coding's count (fibnim_word_pairs of coding.h) four words at a
   time: the closing bits of each word at once, their popcounts summed by
   bytes (vpshufb on nibbles: a byte holds at most four closing bits, so 60
   rounds fit a byte), and the carries between words from the four lanes'
   top and bottom runs as bits. A word of all ones passes its carry on
   unchanged: its four words are counted one by one. */
FIBNIM_AVX2 __attribute__((target("popcnt"))) static uint64_t fibnim_count_codewords4(
        const uint8_t *data, uint64_t bits) {
    const __m256i big_endian = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
                                                7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
    const __m256i even = _mm256_set1_epi64x((long long)FIBNIM_EVEN_POSITIONS);
    const __m256i nibble = _mm256_set1_epi8(0x0f), one = _mm256_set1_epi64x(1);
    const __m256i ones = _mm256_set1_epi64x(-1), zero = _mm256_setzero_si256();
    const __m256i bit_counts = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                                0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    uint64_t words = bits >> 6, k = 0, count = 0, carry = 0;
    __m256i totals = zero;
    while (k + 4 <= words) {
        __m256i by_byte = zero;
        for (int round = 0; round < 60 && k + 4 <= words; round++, k += 4) {
            __m256i w = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(data + 8 * k)),
                                            big_endian);
            if (!_mm256_testz_si256(_mm256_cmpeq_epi64(w, ones), ones)) {
                uint64_t lane[4];  /* the words already read: the stream may change meanwhile */
                memcpy(lane, &w, sizeof lane);
                for (int j = 0; j < 4; j++) count += fibnim_word_pairs(lane[j], &carry);
                continue;
            }
            __m256i closing = fibnim_closing_bits4(w);
            by_byte = _mm256_add_epi8(by_byte, _mm256_add_epi8(
                _mm256_shuffle_epi8(bit_counts, _mm256_and_si256(closing, nibble)),
                _mm256_shuffle_epi8(bit_counts, _mm256_and_si256(_mm256_srli_epi16(closing, 4), nibble))));
            unsigned top_odd = (unsigned)_mm256_movemask_pd(
                _mm256_castsi256_pd(_mm256_andnot_si256(closing, w)));
            __m256i run_end = _mm256_andnot_si256(even, _mm256_andnot_si256(w, _mm256_add_epi64(w, one)));
            unsigned left_over = ~(unsigned)_mm256_movemask_pd(
                _mm256_castsi256_pd(_mm256_cmpeq_epi64(run_end, zero))) & 15u;
            count += (uint64_t)fibnim_popcount64(((left_over << 1) | (unsigned)carry) & top_odd);
            carry = left_over >> 3;
        }
        totals = _mm256_add_epi64(totals, _mm256_sad_epu8(by_byte, zero));
    }
    uint64_t lanes[4];
    memcpy(lanes, &totals, sizeof lanes);
    return count + lanes[0] + lanes[1] + lanes[2] + lanes[3]
           + fibnim_count_from(data, bits, k, carry);
}
