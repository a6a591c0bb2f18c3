/* fibnim's AVX-512 kernels, eight lanes at a time: included twice by simd.h,
   once with IFMA (52-bit multiply-add: FIBNIM_IFMA 1) and once without, each
   time with its own FIBNIM_TARGET and FIBNIM_PATH(name), the name suffixed by
   the path. Each kernel returns how many leading elements it did (a multiple
   of 8); the caller's scalar loop finishes the rest. Each stops before eight
   values of which one exceeds `limit`, which the caller then reports, and the
   Wythoff kernels before eight that their fast golden split left unsure,
   which the caller's exact loop does before it calls the kernel again.

   The fast golden split is that of simd_avx2.h (see fibnim_golden4), from
   32-bit limbs and vpmuludq on both paths: from 52-bit limbs it takes nine
   IFMA multiplies where this takes five vpmuludq, and ran 10 % slower on an
   AMD EPYC (Zen 4). The narrow path (simd.h) is where IFMA pays: three
   multiplies exact below 2**50, against three vpmuludq and four shifts and
   adds below 2**32 (game-sized is_safe 1.18 to 1.12 times np.equal, is_lower
   1.00 to 0.90, on an Intel Xeon). */

#if FIBNIM_IFMA
/* (a b) >> 52 for a, b < 2**52 */
FIBNIM_TARGET static inline __m512i FIBNIM_PATH(mulhi52)(__m512i a, __m512i b) {
    return _mm512_madd52hi_epu64(_mm512_setzero_si512(), a, b);
}
#else
/* (a b) >> 52 for a, b < 2**52, from four 32-bit products */
FIBNIM_TARGET static inline __m512i FIBNIM_PATH(mulhi52)(__m512i a, __m512i b) {
    const __m512i low = _mm512_set1_epi64(0xffffffffLL);
    __m512i a1 = _mm512_srli_epi64(a, 32), b1 = _mm512_srli_epi64(b, 32);
    __m512i p00 = _mm512_mul_epu32(a, b), p01 = _mm512_mul_epu32(a, b1);
    __m512i p10 = _mm512_mul_epu32(a1, b), p11 = _mm512_mul_epu32(a1, b1);
    __m512i middle = _mm512_add_epi64(_mm512_srli_epi64(p00, 32),
        _mm512_add_epi64(_mm512_and_si512(p01, low), _mm512_and_si512(p10, low)));
    __m512i high = _mm512_add_epi64(_mm512_add_epi64(p11, _mm512_srli_epi64(middle, 32)),
        _mm512_add_epi64(_mm512_srli_epi64(p01, 32), _mm512_srli_epi64(p10, 32)));
    return _mm512_or_si512(_mm512_slli_epi64(high, 12),
                           _mm512_srli_epi64(_mm512_and_si512(middle, low), 20));
}
#endif

/* H, L and the estimate m1 (PHI_LO >> 32), as fibnim_golden4 of simd_avx2.h */
FIBNIM_TARGET static inline __m512i FIBNIM_PATH(product8)(__m512i m, __m512i *l, __m512i *estimate) {
    const __m512i low = _mm512_set1_epi64(0xffffffffLL);
    const __m512i lo1 = _mm512_set1_epi64((long long)(FIBNIM_PHI_LO >> 32));
    const __m512i hi0 = _mm512_set1_epi64((long long)(FIBNIM_PHI_HI & 0xffffffffULL));
    const __m512i hi1 = _mm512_set1_epi64((long long)(FIBNIM_PHI_HI >> 32));
    __m512i m1 = _mm512_srli_epi64(m, 32);
    __m512i p00 = _mm512_mul_epu32(m, hi0), p01 = _mm512_mul_epu32(m, hi1);
    __m512i p10 = _mm512_mul_epu32(m1, hi0), p11 = _mm512_mul_epu32(m1, hi1);
    __m512i middle = _mm512_add_epi64(_mm512_srli_epi64(p00, 32),  /* < 3 * 2**32 */
        _mm512_add_epi64(_mm512_and_si512(p01, low), _mm512_and_si512(p10, low)));
    *estimate = _mm512_mul_epu32(m1, lo1);
    *l = _mm512_or_si512(_mm512_slli_epi64(middle, 32), _mm512_and_si512(p00, low));
    return _mm512_add_epi64(_mm512_add_epi64(p11, _mm512_srli_epi64(middle, 32)),
        _mm512_add_epi64(_mm512_srli_epi64(p01, 32), _mm512_srli_epi64(p10, 32)));
}

/* floor(m (phi - 1)) for eight m <= 2**63: H, plus one where L + the estimate
   carries; *unsure gets the lanes where it lands within the window below
   2**64, *fraction the fraction's top 64 bits, at most the window below them. */
FIBNIM_TARGET static inline __m512i FIBNIM_PATH(golden8)(__m512i m, __m512i *fraction, __mmask8 *unsure) {
    __m512i l, estimate;
    __m512i h = FIBNIM_PATH(product8)(m, &l, &estimate);
    __m512i f = _mm512_add_epi64(l, estimate);
    __mmask8 carried = _mm512_cmplt_epu64_mask(f, l);
    *unsure |= _mm512_cmpge_epu64_mask(f, _mm512_set1_epi64(-FIBNIM_CARRY_WINDOW)) & (__mmask8)~carried;
    *fraction = f;
    return _mm512_mask_add_epi64(h, carried, h, _mm512_set1_epi64(1));
}

/* lower_count of _scalar.pxd for eight x < 2**63: the mask of A-numbers among
   them (x >= 1 or not), and in *below the count of A-numbers <= x, by the
   fraction of (x + 1)(phi - 1) against phi - 1 (as fibnim_lower4). */
FIBNIM_TARGET static inline __mmask8 FIBNIM_PATH(lower8)(__m512i x, __m512i *below, __mmask8 *unsure) {
    __m512i fraction;
    *below = FIBNIM_PATH(golden8)(_mm512_add_epi64(x, _mm512_set1_epi64(1)), &fraction, unsure);
    __mmask8 lower = _mm512_cmplt_epu64_mask(
        fraction, _mm512_set1_epi64((long long)(FIBNIM_PHI_HI - FIBNIM_CARRY_WINDOW)));
    __mmask8 not_lower = _mm512_cmpgt_epu64_mask(fraction, _mm512_set1_epi64((long long)FIBNIM_PHI_HI));
    *unsure |= (__mmask8)~(lower | not_lower);
    return lower;
}

#if FIBNIM_IFMA
/* The narrow path of simd.h from 52-bit products: floor(m (phi - 1)) for m <
   2**50 (FIBNIM_NARROW_IFMA) and its fraction's top 52 bits, from K, the top
   104 bits of phi - 1 in two 52-bit limbs: three IFMA multiplies, where the
   32-bit limbs take three vpmuludq and four shifts and adds for m < 2**32.
   m K / 2**104 lies below m (phi - 1) by less than m 2**-104, and the
   fraction's 52 bits below it by less than 2**-52 more: both far less than
   the 0.38 / m of simd.h's argument for m < 2**50. */
#define FIBNIM_PATH_NARROW FIBNIM_NARROW_IFMA
FIBNIM_TARGET static inline __m512i FIBNIM_PATH(golden8_narrow)(__m512i m, __m512i *fraction) {
    const __m512i high_limb = _mm512_set1_epi64((long long)(FIBNIM_PHI_HI >> 12));
    const __m512i low_limb = _mm512_set1_epi64(
        (long long)((FIBNIM_PHI_HI & 0xfff) << 40 | FIBNIM_PHI_LO >> 24));
    /* floor(m K / 2**52) = m times the high limb + the low limb's carry: its
       low 52 bits the fraction, the bits above them the carry into the floor */
    __m512i low = _mm512_madd52lo_epu64(
        _mm512_madd52hi_epu64(_mm512_setzero_si512(), m, low_limb), m, high_limb);
    *fraction = _mm512_slli_epi64(low, 12);
    return _mm512_madd52hi_epu64(_mm512_srli_epi64(low, 52), m, high_limb);
}
#else
/* the narrow path of simd.h (FIBNIM_NARROW): floor(m (phi - 1)) for m <
   2**32 and its fraction, exactly */
#define FIBNIM_PATH_NARROW FIBNIM_NARROW
FIBNIM_TARGET static inline __m512i FIBNIM_PATH(golden8_narrow)(__m512i m, __m512i *fraction) {
    __m512i middle = _mm512_add_epi64(_mm512_mul_epu32(m, _mm512_set1_epi64(FIBNIM_C1)),
        _mm512_srli_epi64(_mm512_mul_epu32(m, _mm512_set1_epi64(FIBNIM_C0)), 32));
    __m512i top = _mm512_add_epi64(_mm512_mul_epu32(m, _mm512_set1_epi64(FIBNIM_C2)),
                                   _mm512_srli_epi64(middle, 32));
    /* (top << 32) | the low half of middle */
    *fraction = _mm512_mask_mov_epi32(_mm512_slli_epi64(top, 32), 0x5555, middle);
    return _mm512_srli_epi64(top, 32);
}
#endif

/* lower8 for x + 1 below the path's narrow width */
FIBNIM_TARGET static inline __mmask8 FIBNIM_PATH(lower8_narrow)(__m512i x, __m512i *below) {
    __m512i fraction;
    *below = FIBNIM_PATH(golden8_narrow)(_mm512_add_epi64(x, _mm512_set1_epi64(1)), &fraction);
    return _mm512_cmplt_epu64_mask(fraction, _mm512_set1_epi64((long long)FIBNIM_PHI_HI));
}

/* whether a block takes the narrow path: all its multiplicands below the path's width */
FIBNIM_TARGET static inline int FIBNIM_PATH(narrow8)(__m512i values) {
    return !_mm512_cmpge_epu64_mask(values, _mm512_set1_epi64(FIBNIM_PATH_NARROW));
}

/* eight mask bits as eight bytes of 1 or 0, from a constant register: a
   masked broadcast of 1 from a general register (vpbroadcastb) in each
   iteration was the costliest instruction of these loops */
FIBNIM_TARGET static inline void FIBNIM_PATH(store_bools8)(uint8_t *out, __mmask8 mask) {
    _mm_storel_epi64((__m128i *)out, _mm_maskz_mov_epi8(mask, _mm_set1_epi8(1)));
}

FIBNIM_TARGET static Py_ssize_t FIBNIM_PATH(is_safe8)(
        const uint64_t *x, const uint64_t *y, uint8_t *out, Py_ssize_t n, uint64_t limit) {
    Py_ssize_t i = 0;
    const __m512i most = _mm512_set1_epi64((long long)limit);
    for (; i + 8 <= n; i += 8) {
        __m512i a = _mm512_loadu_si512((const void *)(x + i));
        __m512i b = _mm512_loadu_si512((const void *)(y + i));
        __m512i s = _mm512_min_epu64(a, b);
        __m512i large = _mm512_max_epu64(a, b);
        if (_mm512_cmpgt_epu64_mask(large, most)) break;
        __m512i d = _mm512_sub_epi64(large, s), fraction, a_d;
        if (FIBNIM_PATH(narrow8)(d)) {
            a_d = _mm512_add_epi64(d, FIBNIM_PATH(golden8_narrow)(d, &fraction));
        } else {
            __mmask8 unsure = 0;
            a_d = _mm512_add_epi64(d, FIBNIM_PATH(golden8)(d, &fraction, &unsure));
            if (unsure) break;
        }
        FIBNIM_PATH(store_bools8)(out + i, _mm512_cmpeq_epu64_mask(s, a_d));
    }
    return i;
}

FIBNIM_TARGET static Py_ssize_t FIBNIM_PATH(pair8)(
        const uint64_t *n, int64_t *a, int64_t *b, Py_ssize_t count, uint64_t limit) {
    Py_ssize_t i = 0;
    const __m512i most = _mm512_set1_epi64((long long)limit);
    for (; i + 8 <= count; i += 8) {
        __m512i v = _mm512_loadu_si512((const void *)(n + i));
        if (_mm512_cmpgt_epu64_mask(v, most)) break;
        /* the full path only: pair moves 24 bytes a value, and on game-sized
           n the narrow path's shorter loop ran at 1.6 times np.add where this
           one runs at 1.0 (Intel Xeon, avx512ifma) */
        __m512i fraction;
        __mmask8 unsure = 0;
        __m512i lower = _mm512_add_epi64(v, FIBNIM_PATH(golden8)(v, &fraction, &unsure));
        if (unsure) break;
        _mm512_storeu_si512((void *)(a + i), lower);
        _mm512_storeu_si512((void *)(b + i), _mm512_add_epi64(lower, v));
    }
    return i;
}

/* x is an A-number iff x >= 1 and lower8 says so; upper: a B-number. */
FIBNIM_TARGET static Py_ssize_t FIBNIM_PATH(is_lower8)(
        const uint64_t *x, uint8_t *out, Py_ssize_t n, int upper, uint64_t limit) {
    Py_ssize_t i = 0;
    const __m512i most = _mm512_set1_epi64((long long)limit);
    const __mmask8 flip = upper ? 0xff : 0;
    for (; i + 8 <= n; i += 8) {
        __m512i v = _mm512_loadu_si512((const void *)(x + i));
        if (_mm512_cmpgt_epu64_mask(v, most)) break;
        __m512i below;
        __mmask8 lower;
        if (FIBNIM_PATH(narrow8)(_mm512_add_epi64(v, _mm512_set1_epi64(1)))) {
            lower = FIBNIM_PATH(lower8_narrow)(v, &below);
        } else {
            __mmask8 unsure = 0;
            lower = FIBNIM_PATH(lower8)(v, &below, &unsure);
            if (unsure) break;
        }
        FIBNIM_PATH(store_bools8)(out + i, (__mmask8)((lower ^ flip) & _mm512_test_epi64_mask(v, v)));
    }
    return i;
}

/* Silber's winning move in normal play from eight positions (a, b) below
   2**63, as winning_move in wythoff.pxi: the targets in *ta, *tb, -1 where
   none; narrow: every pile + 1 below FIBNIM_PATH_NARROW. Returns whether the fast
   golden split left a lane unsure. */
FIBNIM_TARGET static inline int FIBNIM_PATH(move8)(__m512i a, __m512i b, int narrow, __m512i *ta,
                                                   __m512i *tb) {
    const __m512i zero = _mm512_setzero_si512();
    const __m512i none_value = _mm512_set1_epi64(-1);
    __m512i s = _mm512_min_epu64(a, b);
    __m512i l = _mm512_max_epu64(a, b);
    /* below = the A-numbers <= s; s = a_n (lower) has partner s + below,
       s = b_n has partner a_n = below (0 for s = 0) */
    __m512i below, fraction;
    __mmask8 unsure = 0;
    __mmask8 lower = narrow ? FIBNIM_PATH(lower8_narrow)(s, &below)
        : FIBNIM_PATH(lower8)(s, &below, &unsure);
    __m512i other = _mm512_mask_add_epi64(below, lower, below, s);
    __mmask8 nonzero = _mm512_cmpneq_epu64_mask(s, zero);
    __mmask8 equal = _mm512_cmpeq_epu64_mask(s, l);
    __mmask8 none = (lower & _mm512_cmpeq_epu64_mask(l, other) & nonzero)
        | _mm512_cmpeq_epu64_mask(l, zero);
    __mmask8 empty = equal | (__mmask8)~nonzero;
    __mmask8 diagonal = lower & _mm512_cmplt_epu64_mask(l, other) & nonzero & (__mmask8)~equal;
    __m512i ts = _mm512_maskz_mov_epi64((__mmask8)~empty, s);
    __m512i tl = _mm512_maskz_mov_epi64((__mmask8)~empty, other);
    /* a_n < l < b_n: to (a_d, b_d), d = l - s; computed for every lane, as
       a branch on "any lane diagonal" is a coin toss on mixed data */
    __m512i d = _mm512_sub_epi64(l, s);
    __m512i a_d = _mm512_add_epi64(d, narrow ? FIBNIM_PATH(golden8_narrow)(d, &fraction)
        : FIBNIM_PATH(golden8)(d, &fraction, &unsure));
    ts = _mm512_mask_mov_epi64(ts, diagonal, a_d);
    tl = _mm512_mask_mov_epi64(tl, diagonal, _mm512_add_epi64(a_d, d));
    ts = _mm512_mask_mov_epi64(ts, none, none_value);
    tl = _mm512_mask_mov_epi64(tl, none, none_value);
    __mmask8 swapped = _mm512_cmpgt_epu64_mask(a, b);
    *ta = _mm512_mask_blend_epi64(swapped, ts, tl);
    *tb = _mm512_mask_blend_epi64(swapped, tl, ts);
    return unsure != 0;
}

/* move8 by the width of the block: one test of its largest pile */
FIBNIM_TARGET static inline int FIBNIM_PATH(move8_any)(__m512i a, __m512i b, __m512i l, __m512i *ta,
                                                       __m512i *tb) {
    if (FIBNIM_PATH(narrow8)(_mm512_add_epi64(l, _mm512_set1_epi64(1))))
        return FIBNIM_PATH(move8)(a, b, 1, ta, tb);
    return FIBNIM_PATH(move8)(a, b, 0, ta, tb);
}

FIBNIM_TARGET static Py_ssize_t FIBNIM_PATH(winning_move8)(
        const uint64_t *x, const uint64_t *y, int64_t *tx, int64_t *ty, Py_ssize_t n,
        uint64_t limit) {
    Py_ssize_t i = 0;
    const __m512i most = _mm512_set1_epi64((long long)limit);
    for (; i + 8 <= n; i += 8) {
        __m512i a = _mm512_loadu_si512((const void *)(x + i));
        __m512i b = _mm512_loadu_si512((const void *)(y + i));
        __m512i l = _mm512_max_epu64(a, b);
        if (_mm512_cmpgt_epu64_mask(l, most)) break;
        __m512i ta, tb;
        if (FIBNIM_PATH(move8_any)(a, b, l, &ta, &tb)) break;
        _mm512_storeu_si512((void *)(tx + i), ta);
        _mm512_storeu_si512((void *)(ty + i), tb);
    }
    return i;
}

/* classify of wythoff.pxi in normal play, for C-contiguous rows: piles
   (n, 2) in, out (n, 3) = (1 for P or 0, the target, -1 -1 where none). */
FIBNIM_TARGET static Py_ssize_t FIBNIM_PATH(classify_wythoff8)(
        const uint64_t *piles, int64_t *out, Py_ssize_t n, uint64_t limit) {
    Py_ssize_t i = 0;
    const int stream = fibnim_streams(out, 24 * n);
    const __m512i most = _mm512_set1_epi64((long long)limit);
    const __m512i first = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i second = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    /* row j of the eight goes to lanes 3j, 3j + 1, 3j + 2 of the 24 out:
       (p_j, ta_j, tb_j), each register one permute of ta and tb with ta_j in
       p_j's lane too, then p_j = 1 where ta_j = -1 (no move), else 0: the
       sign bit of ta_j >= -1, shifted down in those lanes */
    const __m512i order0 = _mm512_set_epi64(2, 2, 9, 1, 1, 8, 0, 0);
    const __m512i order1 = _mm512_set_epi64(5, 12, 4, 4, 11, 3, 3, 10);
    const __m512i order2 = _mm512_set_epi64(15, 7, 7, 14, 6, 6, 13, 5);
    for (; i + 8 <= n; i += 8) {
        __m512i lo = _mm512_loadu_si512((const void *)(piles + 2 * i));
        __m512i hi = _mm512_loadu_si512((const void *)(piles + 2 * i + 8));
        __m512i a = _mm512_permutex2var_epi64(lo, first, hi);
        __m512i b = _mm512_permutex2var_epi64(lo, second, hi);
        __m512i l = _mm512_max_epu64(a, b);
        if (_mm512_cmpgt_epu64_mask(l, most)) break;
        __m512i ta, tb;
        if (FIBNIM_PATH(move8_any)(a, b, l, &ta, &tb)) break;
        __m512i o0 = _mm512_permutex2var_epi64(ta, order0, tb);
        __m512i o1 = _mm512_permutex2var_epi64(ta, order1, tb);
        __m512i o2 = _mm512_permutex2var_epi64(ta, order2, tb);
        o0 = _mm512_mask_srli_epi64(o0, 0x49, o0, 63);
        o1 = _mm512_mask_srli_epi64(o1, 0x92, o1, 63);
        o2 = _mm512_mask_srli_epi64(o2, 0x24, o2, 63);
        if (stream) {
            _mm512_stream_si512((void *)(out + 3 * i), o0);
            _mm512_stream_si512((void *)(out + 3 * i + 8), o1);
            _mm512_stream_si512((void *)(out + 3 * i + 16), o2);
        } else {
            _mm512_storeu_si512((void *)(out + 3 * i), o0);
            _mm512_storeu_si512((void *)(out + 3 * i + 8), o1);
            _mm512_storeu_si512((void *)(out + 3 * i + 16), o2);
        }
    }
    if (stream) _mm_sfence();
    return i;
}

/* the digit sums of fibnim_digit_sums4 (simd_avx2.h), eight codes at a time,
   from tables a kernel makes before its loop */
FIBNIM_ALWAYS_INLINE FIBNIM_TARGET fibnim_digit_tables8 FIBNIM_PATH(digit_tables8)(void) {
    fibnim_digit_tables8 t;
    t.nibble = _mm512_set1_epi8(0x0f);
    t.low_a = _mm512_broadcast_i32x4(FIBNIM_NIBBLE_TABLE(1, 2, 3, 5));
    t.low_b = _mm512_broadcast_i32x4(FIBNIM_NIBBLE_TABLE(1, 1, 2, 3));
    t.high_a = _mm512_broadcast_i32x4(FIBNIM_NIBBLE_TABLE(8, 13, 21, 34));
    t.high_b = _mm512_broadcast_i32x4(FIBNIM_NIBBLE_TABLE(5, 8, 13, 21));
    t.a8 = _mm512_set1_epi16(1 | 34 << 8);
    t.ab8 = _mm512_set1_epi16(21 << 8);
    t.b8 = _mm512_set1_epi16(1 | 13 << 8);
    t.a16 = _mm512_set1_epi32(1 | 1597 << 16);
    t.ab16 = _mm512_set1_epi32(987 << 16);
    t.b16 = _mm512_set1_epi32(1 | 610 << 16);
    return t;
}
FIBNIM_ALWAYS_INLINE FIBNIM_TARGET void FIBNIM_PATH(digit_sums8)(const fibnim_digit_tables8 *t,
                                                                 __m512i c, __m512i *a_d,
                                                                 __m512i *b_d) {
    __m512i lo = _mm512_and_si512(c, t->nibble);
    __m512i hi = _mm512_and_si512(_mm512_srli_epi16(c, 4), t->nibble);
    __m512i a = _mm512_add_epi8(_mm512_shuffle_epi8(t->low_a, lo), _mm512_shuffle_epi8(t->high_a, hi));
    __m512i b = _mm512_add_epi8(_mm512_shuffle_epi8(t->low_b, lo), _mm512_shuffle_epi8(t->high_b, hi));
    __m512i a_w = _mm512_add_epi16(_mm512_maddubs_epi16(a, t->a8), _mm512_maddubs_epi16(b, t->ab8));
    __m512i b_w = _mm512_add_epi16(_mm512_maddubs_epi16(a, t->ab8), _mm512_maddubs_epi16(b, t->b8));
    *a_d = _mm512_add_epi32(_mm512_madd_epi16(a_w, t->a16), _mm512_madd_epi16(b_w, t->ab16));
    *b_d = _mm512_add_epi32(_mm512_madd_epi16(a_w, t->ab16), _mm512_madd_epi16(b_w, t->b16));
}

/* decode, eight codes at a time, as fibnim_decode4 of simd_avx2.h (and as
   there, unchecked for the lanes) */
FIBNIM_ALWAYS_INLINE FIBNIM_TARGET Py_ssize_t FIBNIM_PATH(decode8_body)(
        const uint64_t *code, int64_t *out, Py_ssize_t n, uint64_t limit, int checked) {
    Py_ssize_t i = 0;
    const __m512i most = _mm512_set1_epi64((long long)limit);
    const __m512i f33 = _mm512_set1_epi64(3524578), f32 = _mm512_set1_epi64(2178309);
    const __m512i low = _mm512_set1_epi64(0xffffffffLL);
    const fibnim_digit_tables8 tables = FIBNIM_PATH(digit_tables8)();
    for (; i + 8 <= n; i += 8) {
        __m512i c = _mm512_loadu_si512((const void *)(code + i)), a_d, b_d;
        if (checked && (_mm512_cmpgt_epu64_mask(c, most)
                        | _mm512_test_epi64_mask(c, _mm512_srli_epi64(c, 1))))
            break;
        FIBNIM_PATH(digit_sums8)(&tables, c, &a_d, &b_d);
        __m512i value = _mm512_add_epi64(_mm512_and_si512(a_d, low),
            _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a_d, 32), f33),
                             _mm512_mul_epu32(_mm512_srli_epi64(b_d, 32), f32)));
        _mm512_storeu_si512((void *)(out + i), value);
    }
    return i;
}
FIBNIM_TARGET static Py_ssize_t FIBNIM_PATH(decode8)(
        const uint64_t *code, int64_t *out, Py_ssize_t n, uint64_t limit) {
    return FIBNIM_PATH(decode8_body)(code, out, n, limit, 1);
}

#if FIBNIM_IFMA
/* encode of n < F_66 by four blocks of 16 code bits, each from one look-up
   in fibnim_encode_pairs (scalar.h): 20 kB, where the scalar loop's three
   blocks of 22 bits read 500 kB of tables. The 8-lane gathers of those large
   tables ran 1.4 times slower than the scalar loop; these, four vectors in
   flight, 1.7 times faster (Intel Xeon). Block j takes n < F_{j+18}: its m is
   t or t - 1 (t from one 52-bit product, scalar.h), S_j of both comes from
   the one entry by two multiply-adds each (S_j(m) = F_{j+1} m + F_j p(m),
   below 2**46), and the code bits of the right one go to bits j up
   (f_above = F_{j+1}, f_at = F_j). */
FIBNIM_ALWAYS_INLINE FIBNIM_TARGET __m512i FIBNIM_PATH(encode_block8)(
        __m512i n, int j, uint64_t c_j, uint64_t f_above, uint64_t f_at, __m512i *code) {
    const __m512i above = _mm512_set1_epi64((long long)f_above);
    const __m512i at = _mm512_set1_epi64((long long)f_at);
    const __m512i field = _mm512_set1_epi64(0xffff);
    __m512i t = _mm512_srli_epi64(_mm512_madd52hi_epu64(_mm512_set1_epi64(FIBNIM_ENCODE_RHO), n,
                                                        _mm512_set1_epi64((long long)c_j)), 11);
    __m512i pair = _mm512_i64gather_epi64(t, (const void *)fibnim_encode_pairs, 8);
    __m512i s = _mm512_madd52lo_epu64(_mm512_madd52lo_epu64(_mm512_setzero_si512(), t, above),
                                      _mm512_srli_epi64(pair, 48), at);
    /* S_j(t - 1) from -F_{j+1} + t F_{j+1}; it wraps where t = 0, which S_j(0) = 0 <= n keeps */
    __m512i s_before = _mm512_madd52lo_epu64(
        _mm512_madd52lo_epu64(_mm512_sub_epi64(_mm512_setzero_si512(), above), t, above),
        _mm512_and_si512(_mm512_srli_epi64(pair, 16), field), at);
    __mmask8 before = _mm512_cmpgt_epu64_mask(s, n);
    __m512i chosen = _mm512_mask_mov_epi64(_mm512_srli_epi64(pair, 32), before, pair);
    /* code |= (chosen & 0xffff) << j */
    *code = _mm512_ternarylogic_epi64(*code, _mm512_slli_epi64(chosen, j),
                                      _mm512_slli_epi64(field, j), 0xf8);
    return _mm512_sub_epi64(n, _mm512_mask_mov_epi64(s, before, s_before));
}

/* the codes of `vectors` (at most FIBNIM_ENCODE_VECTORS) vectors of n < F_66,
   in place, each block done for all of them before the next: their look-ups overlap */
enum { FIBNIM_ENCODE_VECTORS = 4 };
FIBNIM_ALWAYS_INLINE FIBNIM_TARGET void FIBNIM_PATH(encode_vectors8)(__m512i *value, int vectors) {
    __m512i code[FIBNIM_ENCODE_VECTORS];
    for (int u = 0; u < vectors; u++) code[u] = _mm512_setzero_si512();
    for (int u = 0; u < vectors; u++)
        value[u] = FIBNIM_PATH(encode_block8)(value[u], 48, FIBNIM_ENCODE_C48, UINT64_C(7778742049),
                                              UINT64_C(4807526976), &code[u]);
    for (int u = 0; u < vectors; u++)
        value[u] = FIBNIM_PATH(encode_block8)(value[u], 32, FIBNIM_ENCODE_C32, 3524578, 2178309,
                                              &code[u]);
    for (int u = 0; u < vectors; u++)
        value[u] = FIBNIM_PATH(encode_block8)(value[u], 16, FIBNIM_ENCODE_C16, 1597, 987, &code[u]);
    for (int u = 0; u < vectors; u++) {
        __m512i pair = _mm512_i64gather_epi64(value[u], (const void *)fibnim_encode_pairs, 8);
        value[u] = _mm512_ternarylogic_epi64(code[u], _mm512_srli_epi64(pair, 32),
                                             _mm512_set1_epi64(0xffff), 0xf8);
    }
}

/* encode; stops before a block with a value above limit (< F_66). Each
   block is loaded whole before its codes are stored: out may be n. */
FIBNIM_ALWAYS_INLINE FIBNIM_TARGET Py_ssize_t FIBNIM_PATH(encode_span8)(
        const uint64_t *n, uint64_t *out, Py_ssize_t count, uint64_t limit, int vectors) {
    const __m512i most = _mm512_set1_epi64((long long)limit);
    Py_ssize_t i = 0;
    for (; i + 8 * vectors <= count; i += 8 * vectors) {
        __m512i value[FIBNIM_ENCODE_VECTORS];
        __mmask8 over = 0;
        for (int u = 0; u < vectors; u++) {
            value[u] = _mm512_loadu_si512((const void *)(n + i + 8 * u));
            over |= _mm512_cmpgt_epu64_mask(value[u], most);
        }
        if (over) break;
        FIBNIM_PATH(encode_vectors8)(value, vectors);
        for (int u = 0; u < vectors; u++) _mm512_storeu_si512((void *)(out + i + 8 * u), value[u]);
    }
    return i;
}
FIBNIM_TARGET static Py_ssize_t FIBNIM_PATH(encode8)(
        const uint64_t *n, uint64_t *out, Py_ssize_t count, uint64_t limit) {
    Py_ssize_t done = FIBNIM_PATH(encode_span8)(n, out, count, limit, FIBNIM_ENCODE_VECTORS);
    return done + FIBNIM_PATH(encode_span8)(n + done, out + done, count - done, limit, 1);
}
#endif

/* codes of at most 32 digits, sixteen at a time, as fibnim_decode_short8 of
   simd_avx2.h; n a multiple of 16 */
FIBNIM_TARGET static inline void FIBNIM_PATH(decode_short16)(const uint64_t *code, uint64_t *out,
                                                            Py_ssize_t n) {
    const __m512i low = _mm512_set1_epi64(0xffffffffLL);
    const fibnim_digit_tables8 tables = FIBNIM_PATH(digit_tables8)();
    for (Py_ssize_t i = 0; i < n; i += 16) {
        __m512i first = _mm512_loadu_si512((const void *)(code + i));
        __m512i second = _mm512_loadu_si512((const void *)(code + i + 8)), a_d, b_d;
        FIBNIM_PATH(digit_sums8)(&tables, _mm512_mask_blend_epi32(0xaaaa, first,
                                                                  _mm512_slli_epi64(second, 32)),
                                 &a_d, &b_d);
        _mm512_storeu_si512((void *)(out + i), _mm512_and_si512(a_d, low));
        _mm512_storeu_si512((void *)(out + i + 8), _mm512_srli_epi64(a_d, 32));
    }
}

/* Two-pile power-of-two Nim: P iff X = 0 or sb(X) > r, X = n_0 xor n_1. */
FIBNIM_TARGET static Py_ssize_t FIBNIM_PATH(power_pairs8)(
        const uint64_t *piles, const uint64_t *r, uint8_t *out, Py_ssize_t n, uint64_t limit) {
    Py_ssize_t i = 0;
    const __m512i most = _mm512_set1_epi64((long long)limit);
    const __m512i first = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i second = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    for (; i + 8 <= n; i += 8) {
        __m512i lo = _mm512_loadu_si512((const void *)(piles + 2 * i));
        __m512i hi = _mm512_loadu_si512((const void *)(piles + 2 * i + 8));
        __m512i bound = _mm512_loadu_si512((const void *)(r + i));
        __m512i top = _mm512_max_epu64(_mm512_max_epu64(lo, hi), bound);
        if (_mm512_cmpgt_epu64_mask(top, most)) break;
        __m512i x = _mm512_xor_si512(_mm512_permutex2var_epi64(lo, first, hi),
                                     _mm512_permutex2var_epi64(lo, second, hi));
        __m512i lowest = _mm512_and_si512(x, _mm512_sub_epi64(_mm512_setzero_si512(), x));
        __mmask8 p = _mm512_testn_epi64_mask(x, x) | _mm512_cmpgt_epu64_mask(lowest, bound);
        FIBNIM_PATH(store_bools8)(out + i, p);
    }
    return i;
}

/* Fibonacci Nim's arc test (see fibnim_c/fibonacci_nim.pxi) eight lanes at
   a time. Its tables come as one array of 5 x 64: by bit
   length b of the bound, top_index(2**(b-1)) and the two Fibonacci numbers
   after it; by j < 64, the arc's start and length. Each writes 2 for a lane
   it cannot settle, and sets *any_unsure. */

/* table[index] for index < 64, with the table in eight registers */
FIBNIM_TARGET static inline __m512i FIBNIM_PATH(lookup64)(const __m512i table[8], __m512i index) {
    /* a part of 16 entries is read only where some lane needs it: bounds and
       arcs mostly sit in the first two */
    __m512i part = _mm512_srli_epi64(index, 4);
    __m512i value = _mm512_permutex2var_epi64(table[0], index, table[1]);
    __mmask8 rest = _mm512_test_epi64_mask(part, part);
    for (int p = 1; p < 4 && rest; p++) {
        __mmask8 in_part = _mm512_cmpeq_epi64_mask(part, _mm512_set1_epi64(p));
        value = _mm512_mask_mov_epi64(value, in_part,
            _mm512_permutex2var_epi64(table[2 * p], index, table[2 * p + 1]));
        rest &= (__mmask8)~in_part;
    }
    return value;
}

FIBNIM_TARGET static inline void FIBNIM_PATH(load_arc_tables)(const uint64_t *rows, fibnim_arc_tables *t) {
    for (int q = 0; q < 8; q++) {
        t->top[q] = _mm512_loadu_si512((const void *)(rows + 8 * q));
        t->next[q] = _mm512_loadu_si512((const void *)(rows + 64 + 8 * q));
        t->after[q] = _mm512_loadu_si512((const void *)(rows + 128 + 8 * q));
        t->start[q] = _mm512_loadu_si512((const void *)(rows + 192 + 8 * q));
        t->length[q] = _mm512_loadu_si512((const void *)(rows + 256 + 8 * q));
    }
}

/* top_index(r), 1 for r = 0 (top_index_of_bound of fibonacci_nim.pxi) */
FIBNIM_TARGET static inline __m512i FIBNIM_PATH(top_index8)(const fibnim_arc_tables *t, __m512i r) {
    const __m512i one = _mm512_set1_epi64(1);
    __m512i bits = _mm512_sub_epi64(_mm512_set1_epi64(64), _mm512_lzcnt_epi64(r));
    __m512i top = FIBNIM_PATH(lookup64)(t->top, bits);
    top = _mm512_mask_add_epi64(top, _mm512_cmpge_epu64_mask(r, FIBNIM_PATH(lookup64)(t->next, bits)), top, one);
    return _mm512_mask_add_epi64(top, _mm512_cmpge_epu64_mask(r, FIBNIM_PATH(lookup64)(t->after, bits)), top, one);
}

/* golden_fraction of fibonacci_nim.pxi, at most 4 below 2**64 (v / phi mod 1):
   v = v1 2**52 + v0 and PHI_LO = a1 2**12 + a0 make v * PHI_LO / 2**64 =
   v1 a1 + v1 a0 / 2**12 + v0 a1 / 2**52 + v0 a0 / 2**64; the first is
   exact in 64 bits, the next two are floored, the last (below 1) dropped,
   and PHI's own truncation adds less than 1 more. */
FIBNIM_TARGET static inline __m512i FIBNIM_PATH(golden_fraction8)(__m512i v) {
    const __m512i phi_hi = _mm512_set1_epi64((long long)FIBNIM_PHI_HI);
    const __m512i a1 = _mm512_set1_epi64((long long)(FIBNIM_PHI_LO >> 12));
    const __m512i a0 = _mm512_set1_epi64((long long)(FIBNIM_PHI_LO & 0xfff));
    __m512i v0 = _mm512_and_si512(v, _mm512_set1_epi64((1LL << 52) - 1));
    __m512i v1 = _mm512_srli_epi64(v, 52);
    __m512i x = _mm512_mullo_epi64(v, phi_hi);
    x = _mm512_add_epi64(x, _mm512_mullo_epi64(v1, a1));
    x = _mm512_add_epi64(x, _mm512_srli_epi64(_mm512_mullo_epi64(v1, a0), 12));
    return _mm512_add_epi64(x, FIBNIM_PATH(mulhi52)(v0, a1));
}

/* The lanes whose lowest Zeckendorf index is at least j (x their golden
   fractions); *unsure gets the lanes too near an arc's end to say, and
   those with j >= 64, beyond the tables. */
FIBNIM_TARGET static inline __mmask8 FIBNIM_PATH(on_arc8)(
        const fibnim_arc_tables *t, __m512i x, __m512i j, __mmask8 *unsure) {
    const __m512i margin = _mm512_set1_epi64(FIBNIM_ARC_MARGIN);
    const __m512i twice = _mm512_set1_epi64(2 * FIBNIM_ARC_MARGIN);
    __m512i length = FIBNIM_PATH(lookup64)(t->length, j);
    __m512i u = _mm512_sub_epi64(x, FIBNIM_PATH(lookup64)(t->start, j));
    *unsure |= _mm512_cmplt_epu64_mask(_mm512_add_epi64(u, margin), twice)
        | _mm512_cmplt_epu64_mask(_mm512_add_epi64(_mm512_sub_epi64(u, length), margin), twice)
        | _mm512_cmpge_epu64_mask(j, _mm512_set1_epi64(64));
    return _mm512_cmplt_epu64_mask(u, length);
}

/* out = 1 for a P-position, 0 for an N-position, 2 where unsure */
FIBNIM_TARGET static inline void FIBNIM_PATH(store_answer8)(uint8_t *out, __mmask8 p, __mmask8 unsure) {
    __m128i answer = _mm_maskz_mov_epi8(p, _mm_set1_epi8(1));
    _mm_storel_epi64((__m128i *)out, _mm_mask_mov_epi8(answer, unsure, _mm_set1_epi8(2)));
}

/* One-pile Fibonacci Nim, as is_p of fibonacci_nim.pxi; stops before
   eight values of which one exceeds limit. */
FIBNIM_TARGET static Py_ssize_t FIBNIM_PATH(fib_is_p8)(
        const uint64_t *n, const uint64_t *r, uint8_t *out, Py_ssize_t count, uint64_t limit,
        const uint64_t *rows, int *any_unsure) {
    Py_ssize_t i = 0;
    const __m512i most = _mm512_set1_epi64((long long)limit);
    fibnim_arc_tables t;
    FIBNIM_PATH(load_arc_tables)(rows, &t);
    for (; i + 8 <= count; i += 8) {
        __m512i v = _mm512_loadu_si512((const void *)(n + i));
        __m512i bound = _mm512_loadu_si512((const void *)(r + i));
        if (_mm512_cmpgt_epu64_mask(_mm512_max_epu64(v, bound), most)) break;
        __m512i j = _mm512_add_epi64(FIBNIM_PATH(top_index8)(&t, bound), _mm512_set1_epi64(1));
        __mmask8 unsure = 0;
        __mmask8 p = FIBNIM_PATH(on_arc8)(&t, FIBNIM_PATH(golden_fraction8)(v), j, &unsure);
        FIBNIM_PATH(store_answer8)(out + i, p, unsure);
        *any_unsure |= unsure;
    }
    return i;
}

/* Two-pile global Fibonacci Nim, cases 1 and 2 of the theorem as
   two_pile_is_p of fibonacci_nim.pxi does them; 2 where another case (or
   an unsure lane) needs two_pile_p. Stops as FIBNIM_PATH(fib_is_p8) does. */
FIBNIM_TARGET static Py_ssize_t FIBNIM_PATH(fib_two_pile8)(
        const uint64_t *piles, const uint64_t *r, uint8_t *out, Py_ssize_t count,
        uint64_t limit, const uint64_t *rows, int *any_unsure) {
    Py_ssize_t i = 0;
    const __m512i most = _mm512_set1_epi64((long long)limit);
    const __m512i one = _mm512_set1_epi64(1);
    const __m512i first = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i second = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    fibnim_arc_tables t;
    FIBNIM_PATH(load_arc_tables)(rows, &t);
    for (; i + 8 <= count; i += 8) {
        __m512i lo = _mm512_loadu_si512((const void *)(piles + 2 * i));
        __m512i hi = _mm512_loadu_si512((const void *)(piles + 2 * i + 8));
        __m512i x = _mm512_permutex2var_epi64(lo, first, hi);
        __m512i y = _mm512_permutex2var_epi64(lo, second, hi);
        __m512i large = _mm512_max_epu64(x, y);
        __m512i given = _mm512_loadu_si512((const void *)(r + i));
        if (_mm512_cmpgt_epu64_mask(_mm512_max_epu64(large, given), most)) break;
        __m512i bound = _mm512_min_epu64(given, large);
        __m512i next = _mm512_add_epi64(FIBNIM_PATH(top_index8)(&t, bound), one);
        __m512i fraction = FIBNIM_PATH(golden_fraction8)(_mm512_sub_epi64(large, _mm512_min_epu64(x, y)));
        __mmask8 unsure = 0;
        __mmask8 at_least_next = FIBNIM_PATH(on_arc8)(&t, fraction, next, &unsure);
        __mmask8 beyond_next = FIBNIM_PATH(on_arc8)(&t, fraction, _mm512_add_epi64(next, one), &unsure);
        __mmask8 no_move = _mm512_testn_epi64_mask(bound, bound);
        unsure = (unsure | (at_least_next & (__mmask8)~beyond_next)) & (__mmask8)~no_move;
        FIBNIM_PATH(store_answer8)(out + i, beyond_next | no_move, unsure);
        *any_unsure |= unsure;
    }
    return i;
}

