/* The neon path of simd.h, for every AArch64 processor (NEON is part of the
   architecture: no run-time check).

   NEON has two 64-bit lanes and no 64 x 64-bit multiply: a lane's golden
   split takes five 32 x 32 -> 64-bit products (umull) and an estimate of
   its carry. The general registers have the exact 128-bit product in two
   instructions (mul, umulh), but one multiplier for them (on the Neoverse
   N1, 3 or 4 cycles a 64-bit product). So each kernel does part of each
   pass in NEON lanes and the rest in the general registers, the two sides'
   pipelines working side by side: the Wythoff kernels two positions in
   lanes and two or four by umulh, decode four codes by tbl and four by the
   byte tables, two-pile power-of-two Nim eight rows in lanes and four in
   the general registers. Coding's count is NEON alone, its unpack the lane
   of coding_lanes.h with the NEON parts at the end of this file, and
   Fibonacci Nim's arc test the general registers alone (its look-ups are by
   lane). The
   Wythoff kernels' mixes are the best balance llvm-mca found between the
   Neoverse N1 and V1 (tools/loop_counts.py): more lanes gained on the N1
   and lost on the V1, more general registers the other way round. */

#include <arm_neon.h>
#include <arm_acle.h>

/* clz of 0 is 64 on AArch64 (__clzll says so, where __builtin_clzll leaves it
   undefined): no test and select for a zero */
#define FIBNIM_CLZ(x) __clzll(x)

static Py_ssize_t fibnim_fib_is_p_neon(const uint64_t *n, const uint64_t *r, uint8_t *out,
        Py_ssize_t count, uint64_t limit, const uint64_t *rows, int *any_unsure) {
    FIBNIM_FIB_IS_P_LANES(FIBNIM_CLZ)
}

/* floor(m (phi - 1)) for m <= 2**63, exactly (the proof is golden_split's, in
   _scalar.pxd): three products (umulh, madd, umulh) */
FIBNIM_INLINE uint64_t fibnim_golden_floor(uint64_t m) {
    uint64_t low_of_hi, low_of_lo;
    uint64_t high_of_hi = fibnim_mul128(m, FIBNIM_PHI_HI, &low_of_hi);
    uint64_t high_of_lo = fibnim_mul128(m, FIBNIM_PHI_LO, &low_of_lo);
    uint64_t fraction = low_of_hi + high_of_lo;
    return high_of_hi + (fraction < high_of_lo);  /* the carry out of the middle word */
}

/* The golden split of two lanes in NEON, simd_avx2.h's fibnim_golden4 with
   32-bit limbs: the top 64 bits of m * PHI_HI from four umull, and the carry
   out of the fraction from an estimate of the product by PHI_LO at most
   2**33 low (FIBNIM_CARRY_WINDOW): floor(m (phi - 1)) where the estimate
   decides the carry, *unsure set in the lanes where it does not; *fraction
   gets the estimated fraction. The products run on the vector pipelines, so
   a kernel does two lanes here while the general registers' multiplier does
   others (the Neoverse N1 has one of those, 3 or 4 cycles a 64-bit product). */
FIBNIM_INLINE uint64x2_t fibnim_not_neon(uint64x2_t x) {
    return vreinterpretq_u64_u32(vmvnq_u32(vreinterpretq_u32_u64(x)));
}
FIBNIM_INLINE uint64x2_t fibnim_golden2_neon(uint64x2_t m, uint64x2_t *fraction,
                                             uint64x2_t *unsure) {
    const uint32_t hi0 = (uint32_t)FIBNIM_PHI_HI, hi1 = (uint32_t)(FIBNIM_PHI_HI >> 32);
    const uint64x2_t low = vdupq_n_u64(0xffffffffu);
    uint32x2_t m0 = vmovn_u64(m), m1 = vshrn_n_u64(m, 32);
    uint64x2_t p00 = vmull_n_u32(m0, hi0), p01 = vmull_n_u32(m0, hi1);
    uint64x2_t p10 = vmull_n_u32(m1, hi0), p11 = vmull_n_u32(m1, hi1);
    /* the second 32 bits of the product and what they carry (< 3 * 2**32) */
    uint64x2_t middle = vsraq_n_u64(vaddq_u64(vandq_u64(p01, low), vandq_u64(p10, low)), p00, 32);
    uint64x2_t l = vsliq_n_u64(p00, middle, 32);
    uint64x2_t h = vsraq_n_u64(vsraq_n_u64(vsraq_n_u64(p11, middle, 32), p01, 32), p10, 32);
    uint64x2_t f = vmlal_n_u32(l, m1, (uint32_t)(FIBNIM_PHI_LO >> 32));
    uint64x2_t carried = vcgtq_u64(l, f);  /* l + the estimate wrapped */
    uint64x2_t near = vcgtq_u64(f, vdupq_n_u64(~(uint64_t)FIBNIM_CARRY_WINDOW));
    *unsure = vorrq_u64(*unsure, vbicq_u64(near, carried));
    *fraction = f;
    return vsubq_u64(h, carried);  /* a lane of ones is -1 */
}

/* (x, y) is a P-position of Wythoff's Nim iff min = a_d, d = |x - y| */
FIBNIM_INLINE uint8_t fibnim_safe_position(uint64_t x, uint64_t y) {
    uint64_t small = x < y ? x : y, d = (x ^ y ^ small) - small;
    return (uint8_t)(small == d + fibnim_golden_floor(d));
}

/* lanes of ones where the two pairs of piles are P-positions, as
   fibnim_safe_position */
FIBNIM_INLINE uint64x2_t fibnim_safe2_neon(uint64x2_t x, uint64x2_t y, uint64x2_t *unsure) {
    uint64x2_t swapped = vcgtq_u64(x, y), fraction;
    uint64x2_t small = vbslq_u64(swapped, y, x);
    uint64x2_t d = vbslq_u64(swapped, vsubq_u64(x, y), vsubq_u64(y, x));
    return vceqq_u64(small, vaddq_u64(d, fibnim_golden2_neon(d, &fraction, unsure)));
}

/* six positions a pass, two in lanes: llvm-mca put that mix at 1.5x the
   scalar loop on both the Neoverse N1 and V1 (pair; is_safe 1.7 and 2.2x),
   where two and two, or four and four, gained more on the N1 (1.9 to 2.0x)
   and less on the V1 (1.2 to 1.35x) */
static Py_ssize_t fibnim_is_safe_neon(
        const uint64_t *x, const uint64_t *y, uint8_t *out, Py_ssize_t n, uint64_t limit) {
    Py_ssize_t i = 0;
    const uint64x2_t most = vdupq_n_u64(limit);
    for (; i + 6 <= n; i += 6) {
        uint64x2_t x01 = vld1q_u64(x + i), y01 = vld1q_u64(y + i), unsure = vdupq_n_u64(0);
        uint64_t x2 = x[i + 2], y2 = y[i + 2], x3 = x[i + 3], y3 = y[i + 3];
        uint64_t x4 = x[i + 4], y4 = y[i + 4], x5 = x[i + 5], y5 = y[i + 5];
        uint64x2_t safe = fibnim_safe2_neon(x01, y01, &unsure);
        uint64x2_t bad = vorrq_u64(unsure, vcgtq_u64(vorrq_u64(x01, y01), most));
        if ((x2 | y2 | x3 | y3 | x4 | y4 | x5 | y5) > limit
                || vmaxvq_u32(vreinterpretq_u32_u64(bad)))
            break;
        out[i] = (uint8_t)(vgetq_lane_u64(safe, 0) & 1);
        out[i + 1] = (uint8_t)(vgetq_lane_u64(safe, 1) & 1);
        out[i + 2] = fibnim_safe_position(x2, y2);
        out[i + 3] = fibnim_safe_position(x3, y3);
        out[i + 4] = fibnim_safe_position(x4, y4);
        out[i + 5] = fibnim_safe_position(x5, y5);
    }
    return i;
}

static Py_ssize_t fibnim_pair_neon(
        const uint64_t *n, int64_t *a, int64_t *b, Py_ssize_t count, uint64_t limit) {
    Py_ssize_t i = 0;
    const uint64x2_t most = vdupq_n_u64(limit);
    for (; i + 6 <= count; i += 6) {  /* as fibnim_is_safe_neon */
        uint64x2_t v = vld1q_u64(n + i);
        uint64_t v2 = n[i + 2], v3 = n[i + 3], v4 = n[i + 4], v5 = n[i + 5];
        uint64x2_t fraction, unsure = vdupq_n_u64(0);
        uint64x2_t lower = vaddq_u64(v, fibnim_golden2_neon(v, &fraction, &unsure));
        uint64x2_t bad = vorrq_u64(unsure, vcgtq_u64(v, most));
        /* each against limit: pair's (PAIR_LIMIT) is no 2**k - 1, and an or of
           values below it is often above */
        if ((v2 > limit) | (v3 > limit) | (v4 > limit) | (v5 > limit)
                || vmaxvq_u32(vreinterpretq_u32_u64(bad)))
            break;
        uint64_t lower2 = v2 + fibnim_golden_floor(v2), lower3 = v3 + fibnim_golden_floor(v3);
        uint64_t lower4 = v4 + fibnim_golden_floor(v4), lower5 = v5 + fibnim_golden_floor(v5);
        vst1q_s64(a + i, vreinterpretq_s64_u64(lower));
        vst1q_s64(b + i, vreinterpretq_s64_u64(vaddq_u64(lower, v)));
        a[i + 2] = (int64_t)lower2; a[i + 3] = (int64_t)lower3;
        b[i + 2] = (int64_t)(lower2 + v2); b[i + 3] = (int64_t)(lower3 + v3);
        a[i + 4] = (int64_t)lower4; a[i + 5] = (int64_t)lower5;
        b[i + 4] = (int64_t)(lower4 + v4); b[i + 5] = (int64_t)(lower5 + v5);
    }
    return i;
}

/* x >= 1 is an A-number iff frac((x + 1) phi) < phi - 1 (lower_count of
   _scalar.pxd): the top 64 bits of the fraction are the low word of
   (x + 1) * PHI_HI plus the high one of (x + 1) * PHI_LO.

   In NEON lanes (simd_avx2.h's fibnim_is_a4): the low word from three umull,
   the estimate of the next from one more (at most 2**33 low); lanes of ones
   where x is one, *unsure set where the estimate cannot say (within the
   window below PHI_HI, or below 2**64, where the true fraction may have
   wrapped), but for x = 0, which is neither. */
FIBNIM_INLINE uint64x2_t fibnim_is_a2_neon(uint64x2_t x, uint64x2_t *unsure) {
    const uint32_t hi0 = (uint32_t)FIBNIM_PHI_HI, hi1 = (uint32_t)(FIBNIM_PHI_HI >> 32);
    uint64x2_t m = vaddq_u64(x, vdupq_n_u64(1));
    uint32x2_t m0 = vmovn_u64(m), m1 = vshrn_n_u64(m, 32);
    uint64x2_t cross = vmlal_n_u32(vmull_n_u32(m0, hi1), m1, hi0);
    uint64x2_t f = vmlal_n_u32(vaddq_u64(vmull_n_u32(m0, hi0), vshlq_n_u64(cross, 32)), m1,
                               (uint32_t)(FIBNIM_PHI_LO >> 32));
    uint64x2_t lower = vcgtq_u64(vdupq_n_u64(FIBNIM_PHI_HI - FIBNIM_CARRY_WINDOW), f);
    uint64x2_t upper = vandq_u64(vcgtq_u64(f, vdupq_n_u64(FIBNIM_PHI_HI)),
                                 vcleq_u64(f, vdupq_n_u64(~(uint64_t)FIBNIM_CARRY_WINDOW)));
    uint64x2_t sure = vorrq_u64(vorrq_u64(lower, upper), vceqzq_u64(x));
    *unsure = vorrq_u64(*unsure, fibnim_not_neon(sure));
    return lower;
}

/* In the general registers: two products where the floor would take three;
   they decide it unless they equal PHI_HI (for x >= 1 a chance of 2**-64,
   for the caller's exact loop; x = 0, whose fraction is phi - 1 itself, is
   neither). B-numbers lie above: f > PHI_HI is ~f < ~PHI_HI. Sets *tie where
   the fraction ties. */
FIBNIM_INLINE uint8_t fibnim_lower_or_upper(uint64_t v, uint64_t flip, int *tie) {
    uint64_t low, bound = FIBNIM_PHI_HI ^ flip;
    uint64_t f = ((v + 1) * FIBNIM_PHI_HI + fibnim_mul128(v + 1, FIBNIM_PHI_LO, &low)) ^ flip;
    *tie |= (f == bound) & (v != 0);
    return (uint8_t)(f < bound);
}

/* four a pass, two in lanes */
static Py_ssize_t fibnim_is_lower_neon(
        const uint64_t *x, uint8_t *out, Py_ssize_t n, int upper, uint64_t limit) {
    const uint64_t flip = upper ? ~(uint64_t)0 : 0;
    const uint64x2_t most = vdupq_n_u64(limit), flips = vdupq_n_u64(flip);
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64x2_t v = vld1q_u64(x + i), unsure = vdupq_n_u64(0);
        uint64_t v2 = x[i + 2], v3 = x[i + 3];
        int tie = 0;
        uint64x2_t lower = vbicq_u64(veorq_u64(fibnim_is_a2_neon(v, &unsure), flips),
                                     vceqzq_u64(v));
        uint8_t answer2 = fibnim_lower_or_upper(v2, flip, &tie);
        uint8_t answer3 = fibnim_lower_or_upper(v3, flip, &tie);
        uint64x2_t bad = vorrq_u64(unsure, vcgtq_u64(v, most));
        if (((v2 | v3) > limit) | tie || vmaxvq_u32(vreinterpretq_u32_u64(bad))) break;
        out[i] = (uint8_t)(vgetq_lane_u64(lower, 0) & 1);
        out[i + 1] = (uint8_t)(vgetq_lane_u64(lower, 1) & 1);
        out[i + 2] = answer2;
        out[i + 3] = answer3;
    }
    return i;
}

/* Silber's winning move from (x, y), both below 2**63, as moves of
   wythoff.pxi plays it in normal play (-1 -1 where there is none), the
   diagonal move's (a_d, b_d) made for every position and chosen by mask: on
   most data which case applies is a coin toss, and a branch mispredicted
   costs more than the three products. Returns 0 where the fraction of
   (s + 1) phi ties with PHI_HI for s >= 1 (a chance of 2**-64: the caller's
   exact loop decides it). */
FIBNIM_INLINE int fibnim_move_neon(uint64_t x, uint64_t y, int64_t *tx, int64_t *ty) {
    uint64_t s = x < y ? x : y, l = x ^ y ^ s, low_of_hi, low_of_lo;
    /* lower_count(s) of _scalar.pxd: how many A-numbers are <= s, and whether s is one */
    uint64_t high_of_hi = fibnim_mul128(s + 1, FIBNIM_PHI_HI, &low_of_hi);
    uint64_t high_of_lo = fibnim_mul128(s + 1, FIBNIM_PHI_LO, &low_of_lo);
    uint64_t fraction = low_of_hi + high_of_lo;
    uint64_t below = high_of_hi + (fraction < high_of_lo);
    uint64_t lower = 0 - (uint64_t)(fraction < FIBNIM_PHI_HI);
    uint64_t other = below + (s & lower);  /* the partner: b_n = a_n + n, or a_n */
    /* masks, as moves has them: equal piles or one empty (take everything), no
       move (a P-position), the diagonal move to (a_d, b_d), d = l - s */
    uint64_t empty = 0 - (uint64_t)((s == l) | (s == 0));
    uint64_t none = 0 - (uint64_t)(((lower & 1) & (l == other) & (s != 0)) | (l == 0));
    uint64_t diagonal = lower & (0 - (uint64_t)(l < other)) & ~empty;
    uint64_t d = l - s, a_d = d + fibnim_golden_floor(d);
    uint64_t ts = s & ~empty, tl = other & ~empty;
    ts = (ts ^ ((ts ^ a_d) & diagonal)) | none;
    tl = (tl ^ ((tl ^ (a_d + d)) & diagonal)) | none;
    uint64_t swapped = (0 - (uint64_t)(x > y)) & (ts ^ tl);
    *tx = (int64_t)(ts ^ swapped);
    *ty = (int64_t)(tl ^ swapped);
    return (fraction != FIBNIM_PHI_HI) | (s == 0);
}

/* fibnim_move_neon in two NEON lanes (simd_avx2.h's fibnim_move4): the same
   masks, the golden splits by fibnim_golden2_neon; *unsure gets the lanes
   the estimates leave undecided */
FIBNIM_INLINE void fibnim_move2_neon(uint64x2_t x, uint64x2_t y, uint64x2_t *tx, uint64x2_t *ty,
                                     uint64x2_t *unsure) {
    uint64x2_t swapped = vcgtq_u64(x, y), fraction, d_fraction;
    uint64x2_t s = vbslq_u64(swapped, y, x), l = vbslq_u64(swapped, x, y);
    uint64x2_t below = fibnim_golden2_neon(vaddq_u64(s, vdupq_n_u64(1)), &fraction, unsure);
    uint64x2_t lower = vcgtq_u64(vdupq_n_u64(FIBNIM_PHI_HI - FIBNIM_CARRY_WINDOW), fraction);
    uint64x2_t is_zero = vceqzq_u64(s);
    /* s = 0 needs no answer (its fraction is PHI_HI itself) */
    *unsure = vorrq_u64(*unsure, fibnim_not_neon(vorrq_u64(
        vorrq_u64(lower, vcgtq_u64(fraction, vdupq_n_u64(FIBNIM_PHI_HI))), is_zero)));
    uint64x2_t other = vaddq_u64(below, vandq_u64(s, lower));
    uint64x2_t none = vorrq_u64(vbicq_u64(vandq_u64(lower, vceqq_u64(l, other)), is_zero),
                                vceqzq_u64(l));
    uint64x2_t empty = vorrq_u64(vceqq_u64(s, l), is_zero);
    uint64x2_t diagonal = vbicq_u64(vandq_u64(lower, vcgtq_u64(other, l)), empty);
    uint64x2_t d = vsubq_u64(l, s);
    uint64x2_t a_d = vaddq_u64(d, fibnim_golden2_neon(d, &d_fraction, unsure));
    uint64x2_t ts = vorrq_u64(vbslq_u64(diagonal, a_d, vbicq_u64(s, empty)), none);
    uint64x2_t tl = vorrq_u64(
        vbslq_u64(diagonal, vaddq_u64(a_d, d), vbicq_u64(other, empty)), none);
    *tx = vbslq_u64(swapped, tl, ts);
    *ty = vbslq_u64(swapped, ts, tl);
}

/* four positions a pass: two in NEON lanes, two in the general registers */
static Py_ssize_t fibnim_winning_move_neon(const uint64_t *x, const uint64_t *y, int64_t *tx,
                                           int64_t *ty, Py_ssize_t n, uint64_t limit) {
    const uint64x2_t most = vdupq_n_u64(limit);
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64x2_t x01 = vld1q_u64(x + i), y01 = vld1q_u64(y + i), t0, t1;
        uint64_t x2 = x[i + 2], y2 = y[i + 2], x3 = x[i + 3], y3 = y[i + 3];
        uint64x2_t unsure = vcgtq_u64(vorrq_u64(x01, y01), most);
        fibnim_move2_neon(x01, y01, &t0, &t1, &unsure);
        int64_t t[4];  /* written only once all are sure */
        int sure = fibnim_move_neon(x2, y2, &t[0], &t[1]) & fibnim_move_neon(x3, y3, &t[2], &t[3]);
        if (((x2 | y2 | x3 | y3) > limit) | !sure || vmaxvq_u32(vreinterpretq_u32_u64(unsure)))
            break;
        vst1q_s64(tx + i, vreinterpretq_s64_u64(t0));
        vst1q_s64(ty + i, vreinterpretq_s64_u64(t1));
        tx[i + 2] = t[0];
        ty[i + 2] = t[1];
        tx[i + 3] = t[2];
        ty[i + 3] = t[3];
    }
    return i;
}

/* classify in normal play for C-contiguous rows: piles (n, 2) in, out (n, 3)
   = (1 for P or 0, the target, -1 -1 where none), four rows a pass as
   fibnim_winning_move_neon (ld2 and st3 for the NEON rows) */
static Py_ssize_t fibnim_classify_wythoff_neon(const uint64_t *piles, int64_t *out, Py_ssize_t n,
                                               uint64_t limit) {
    const uint64x2_t most = vdupq_n_u64(limit);
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64x2x2_t rows = vld2q_u64(piles + 2 * i);
        uint64_t x2 = piles[2 * i + 4], y2 = piles[2 * i + 5];
        uint64_t x3 = piles[2 * i + 6], y3 = piles[2 * i + 7];
        uint64x2_t unsure = vcgtq_u64(vorrq_u64(rows.val[0], rows.val[1]), most), t0, t1;
        fibnim_move2_neon(rows.val[0], rows.val[1], &t0, &t1, &unsure);
        int64_t t[4];
        int sure = fibnim_move_neon(x2, y2, &t[0], &t[1]) & fibnim_move_neon(x3, y3, &t[2], &t[3]);
        if (((x2 | y2 | x3 | y3) > limit) | !sure || vmaxvq_u32(vreinterpretq_u32_u64(unsure)))
            break;
        uint64x2_t p = vshrq_n_u64(vceqq_u64(t0, vdupq_n_u64(~(uint64_t)0)), 63);
        int64x2x3_t answers = { { vreinterpretq_s64_u64(p), vreinterpretq_s64_u64(t0),
                                  vreinterpretq_s64_u64(t1) } };
        vst3q_s64(out + 3 * i, answers);
        int64_t *row = out + 3 * i + 6;
        row[0] = t[0] == -1;
        row[1] = t[0];
        row[2] = t[1];
        row[3] = t[2] == -1;
        row[4] = t[2];
        row[5] = t[3];
    }
    return i;
}

/* fibnim_closing_bits of coding.h, two words at a time */
FIBNIM_INLINE uint64x2_t fibnim_closing_bits2_neon(uint64x2_t w) {
    const uint64x2_t even = vdupq_n_u64(FIBNIM_EVEN_POSITIONS);
    uint64x2_t lows = vbicq_u64(w, vshlq_n_u64(w, 1));
    uint64x2_t even_low = vbicq_u64(w, vaddq_u64(w, vandq_u64(lows, even)));
    return vandq_u64(w, veorq_u64(even_low, even));
}

/* Fibonacci coding's count (fibnim_word_pairs of coding.h) four words a pass,
   two to a vector: each word made big-endian by rev64, its closing bits at
   once, counted by cnt into bytes and summed pairwise into 16-bit lanes, and
   the carries between words as lanes (a word whose top run is odd pairs with
   the one left over at the bottom of the word before). A word of all ones
   passes its carry on unchanged: its pass is counted word by word. */
static uint64_t fibnim_count_codewords_neon(const uint8_t *data, uint64_t bits) {
    const uint64x2_t odd = vdupq_n_u64(~FIBNIM_EVEN_POSITIONS);
    const uint64x2_t one = vdupq_n_u64(1), ones = vdupq_n_u64(~(uint64_t)0);
    uint64_t words = bits >> 6, k = 0, count = 0, carry = 0;
    while (k + 4 <= words) {
        uint16x8_t by_pair = vdupq_n_u16(0);
        uint64x2_t pairs = vdupq_n_u64(0), before = vdupq_n_u64(0 - carry);
        /* 16-bit lanes gain at most 16 a pass */
        for (int round = 0; round < 4000 && k + 4 <= words; round++, k += 4) {
            uint64x2_t w0 = vreinterpretq_u64_u8(vrev64q_u8(vld1q_u8(data + 8 * k)));
            uint64x2_t w1 = vreinterpretq_u64_u8(vrev64q_u8(vld1q_u8(data + 8 * k + 16)));
            uint64x2_t full = vorrq_u64(vceqq_u64(w0, ones), vceqq_u64(w1, ones));
            if (vmaxvq_u32(vreinterpretq_u32_u64(full))) {
                uint64_t lane[4];  /* the words already read: the stream may change meanwhile */
                vst1q_u64(lane, w0);
                vst1q_u64(lane + 2, w1);
                carry = vgetq_lane_u64(before, 1) & 1;
                for (int j = 0; j < 4; j++) count += fibnim_word_pairs(lane[j], &carry);
                before = vdupq_n_u64(0 - carry);
                continue;
            }
            uint64x2_t closing0 = fibnim_closing_bits2_neon(w0);
            uint64x2_t closing1 = fibnim_closing_bits2_neon(w1);
            by_pair = vpadalq_u8(by_pair, vaddq_u8(vcntq_u8(vreinterpretq_u8_u64(closing0)),
                                                   vcntq_u8(vreinterpretq_u8_u64(closing1))));
            /* all ones where the top run is odd, and where the bottom run is */
            uint64x2_t top_odd0 = vreinterpretq_u64_s64(vshrq_n_s64(
                vreinterpretq_s64_u64(vbicq_u64(w0, closing0)), 63));
            uint64x2_t top_odd1 = vreinterpretq_u64_s64(vshrq_n_s64(
                vreinterpretq_s64_u64(vbicq_u64(w1, closing1)), 63));
            uint64x2_t left_over0 = vtstq_u64(vbicq_u64(vaddq_u64(w0, one), w0), odd);
            uint64x2_t left_over1 = vtstq_u64(vbicq_u64(vaddq_u64(w1, one), w1), odd);
            /* each word's carry in: the left-over of the word before */
            pairs = vsubq_u64(pairs, vandq_u64(top_odd0, vextq_u64(before, left_over0, 1)));
            pairs = vsubq_u64(pairs, vandq_u64(top_odd1, vextq_u64(left_over0, left_over1, 1)));
            before = left_over1;
        }
        count += vaddlvq_u16(by_pair) + vgetq_lane_u64(pairs, 0) + vgetq_lane_u64(pairs, 1);
        carry = vgetq_lane_u64(before, 1) & 1;
    }
    return count + fibnim_count_from(data, bits, k, carry);
}

/* decode: a code's digit sums as simd_avx2.h's fibnim_digit_sums4 makes them
   (A and B of each nibble by table, then chunks twice as wide: the high
   half's (A, B) moved up by w bits is (F_(w+1) A + F_w B, F_w A + F_(w-1) B)),
   with tbl for vpshufb and multiply-accumulates by a constant: each wider
   lane holds its low half's sum in its low part, so adding (F_(w+1) - 2**w)
   times the high half's A moves it and drops the high half at once
   (mod 2**w: every sum is below 2**w). Two codes to a vector. */
typedef struct { uint8x16_t low_a, low_b, high_a, high_b; } fibnim_nibble_tables_neon;
/* the tables for a code's order of digits (bit j: F_(j+2)) */
static const fibnim_nibble_tables_neon fibnim_code_nibbles_neon = {
    { FIBNIM_NIBBLES(1, 2, 3, 5) }, { FIBNIM_NIBBLES(1, 1, 2, 3) },
    { FIBNIM_NIBBLES(8, 13, 21, 34) }, { FIBNIM_NIBBLES(5, 8, 13, 21) } };

/* A and B of each 16-bit chunk of the bytes: A is a 16-digit chunk's value */
FIBNIM_INLINE void fibnim_sums16_neon(uint8x16_t bytes, const fibnim_nibble_tables_neon *t,
                                      uint16x8_t *a16, uint16x8_t *b16) {
    uint8x16_t lo = vandq_u8(bytes, vdupq_n_u8(0x0f)), hi = vshrq_n_u8(bytes, 4);
    uint8x16_t a8 = vaddq_u8(vqtbl1q_u8(t->low_a, lo), vqtbl1q_u8(t->high_a, hi));
    uint8x16_t b8 = vaddq_u8(vqtbl1q_u8(t->low_b, lo), vqtbl1q_u8(t->high_b, hi));
    /* bytes to 16 bits: w = 8, F_9 = 34, F_8 = 21, F_7 = 13 */
    uint16x8_t a = vreinterpretq_u16_u8(a8), b = vreinterpretq_u16_u8(b8);
    uint16x8_t a_high = vshrq_n_u16(a, 8), b_high = vshrq_n_u16(b, 8);
    *a16 = vmlaq_n_u16(vmlaq_n_u16(a, a_high, (uint16_t)(34 - 256)), b_high, 21);
    *b16 = vmlaq_n_u16(vmlaq_n_u16(b, a_high, 21), b_high, (uint16_t)(13 - 256));
}

/* the same of 32-bit chunks: w = 16, F_17 = 1597, F_16 = 987, F_15 = 610 */
FIBNIM_INLINE void fibnim_sums32_neon(uint16x8_t a16, uint16x8_t b16, uint32x4_t *a32,
                                      uint32x4_t *b32) {
    uint32x4_t a = vreinterpretq_u32_u16(a16), b = vreinterpretq_u32_u16(b16);
    uint32x4_t a_top = vshrq_n_u32(a, 16), b_top = vshrq_n_u32(b, 16);
    *a32 = vmlaq_n_u32(vmlaq_n_u32(a, a_top, (uint32_t)(1597 - 65536)), b_top, 987);
    *b32 = vmlaq_n_u32(vmlaq_n_u32(b, a_top, 987), b_top, (uint32_t)(610 - 65536));
}

static inline uint64x2_t fibnim_decode2_neon(uint64x2_t code, const fibnim_nibble_tables_neon *t) {
    uint16x8_t a16, b16;
    uint32x4_t a32, b32;
    fibnim_sums16_neon(vreinterpretq_u8_u64(code), t, &a16, &b16);
    fibnim_sums32_neon(a16, b16, &a32, &b32);
    /* to 64 bits: w = 32, F_33 = 3524578, F_32 = 2178309 (the widening products
       take the high halves narrowed) */
    uint64x2_t a64 = vreinterpretq_u64_u32(a32), b64 = vreinterpretq_u64_u32(b32);
    uint64x2_t value = vandq_u64(a64, vdupq_n_u64(0xffffffffu));
    value = vmlal_n_u32(value, vshrn_n_u64(a64, 32), 3524578);
    return vmlal_n_u32(value, vshrn_n_u64(b64, 32), 2178309);
}

/* eight codes a pass: four in NEON, four by the scalar path's byte tables in
   the general registers, the two sides' pipelines working side by side;
   stops before a block with a code above limit or with two adjacent set bits */
static Py_ssize_t fibnim_decode_neon(const uint64_t *code, int64_t *out, Py_ssize_t n,
                                     uint64_t limit) {
    const uint64x2_t most = vdupq_n_u64(limit);
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64x2_t c0 = vld1q_u64(code + i), c1 = vld1q_u64(code + i + 2);
        uint64_t c[4];
        memcpy(c, code + i + 4, sizeof c);
        uint64x2_t bad = vorrq_u64(
            vorrq_u64(vcgtq_u64(c0, most), vcgtq_u64(c1, most)),
            vorrq_u64(vandq_u64(c0, vshrq_n_u64(c0, 1)), vandq_u64(c1, vshrq_n_u64(c1, 1))));
        int bad_here = 0;
        uint64_t value[4];
        for (int j = 0; j < 4; j++) {
            bad_here |= (c[j] > limit) | ((c[j] & (c[j] >> 1)) != 0);
            value[j] = fibnim_bytes_value(c[j], 0, 8);
        }
        if (bad_here || vmaxvq_u32(vreinterpretq_u32_u64(bad))) break;
        const fibnim_nibble_tables_neon *t = &fibnim_code_nibbles_neon;
        vst1q_s64(out + i, vreinterpretq_s64_u64(fibnim_decode2_neon(c0, t)));
        vst1q_s64(out + i + 2, vreinterpretq_s64_u64(fibnim_decode2_neon(c1, t)));
        memcpy(out + i + 4, value, sizeof value);
    }
    return i;
}

/* Two-pile power-of-two Nim: P iff X = 0 or sb(X) > r, X = n_0 xor n_1; eight
   rows a pass, the piles' columns apart by ld2, one test of all against limit
   (their or: above it if any is, for a limit of the form 2**k - 1, and
   otherwise at worst a block for the caller's exact loop), eight answers
   narrowed to bytes and stored at once */
FIBNIM_INLINE uint64x2_t fibnim_power_p_neon(uint64x2x2_t piles, uint64x2_t bound) {
    uint64x2_t x = veorq_u64(piles.val[0], piles.val[1]);
    uint64x2_t lowest = vandq_u64(x, vreinterpretq_u64_s64(vnegq_s64(vreinterpretq_s64_u64(x))));
    return vorrq_u64(vceqzq_u64(x), vcgtq_u64(lowest, bound));
}

static Py_ssize_t fibnim_power_pairs_neon(
        const uint64_t *piles, const uint64_t *r, uint8_t *out, Py_ssize_t n, uint64_t limit) {
    Py_ssize_t i = 0;
    for (; i + 12 <= n; i += 12) {
        uint64_t rows[8], bounds[4], seen_here = 0;
        memcpy(rows, piles + 2 * i + 16, sizeof rows);
        memcpy(bounds, r + i + 8, sizeof bounds);
        uint8_t answer[4];
        for (int j = 0; j < 4; j++) {
            uint64_t x = rows[2 * j] ^ rows[2 * j + 1];
            seen_here |= rows[2 * j] | rows[2 * j + 1] | bounds[j];
            answer[j] = (uint8_t)((x == 0) | ((x & (0 - x)) > bounds[j]));
        }
        uint64x2x2_t p0 = vld2q_u64(piles + 2 * i), p1 = vld2q_u64(piles + 2 * i + 4);
        uint64x2x2_t p2 = vld2q_u64(piles + 2 * i + 8), p3 = vld2q_u64(piles + 2 * i + 12);
        uint64x2_t r0 = vld1q_u64(r + i), r1 = vld1q_u64(r + i + 2);
        uint64x2_t r2 = vld1q_u64(r + i + 4), r3 = vld1q_u64(r + i + 6);
        uint64x2_t seen = vorrq_u64(vorrq_u64(vorrq_u64(p0.val[0], p0.val[1]),
                                              vorrq_u64(p1.val[0], p1.val[1])),
                                    vorrq_u64(vorrq_u64(p2.val[0], p2.val[1]),
                                              vorrq_u64(p3.val[0], p3.val[1])));
        seen = vorrq_u64(seen, vorrq_u64(vorrq_u64(r0, r1), vorrq_u64(r2, r3)));
        if (seen_here > limit
                || vmaxvq_u32(vreinterpretq_u32_u64(vcgtq_u64(seen, vdupq_n_u64(limit)))))
            break;
        uint32x4_t low = vmovn_high_u64(vmovn_u64(fibnim_power_p_neon(p0, r0)),
                                        fibnim_power_p_neon(p1, r1));
        uint32x4_t high = vmovn_high_u64(vmovn_u64(fibnim_power_p_neon(p2, r2)),
                                         fibnim_power_p_neon(p3, r3));
        uint8x8_t answers = vmovn_u16(vmovn_high_u32(vmovn_u32(low), high));
        vst1_u8(out + i, vand_u8(answers, vdup_n_u8(1)));
        memcpy(out + i + 8, answer, sizeof answer);
    }
    return i;
}

/* The unpack lane's parts (coding_lanes.h's fibnim_lane_body): */
/* 8 words of the stream, each byte's bits reversed by rbit (the first bit
   at bit 0 of the little-endian word), and their closing bits */
static inline void fibnim_lane_block_neon(const uint8_t *bytes, uint64_t *word,
                                          uint64_t *closing) {
    for (int q = 0; q < 4; q++) {
        uint64x2_t w = vreinterpretq_u64_u8(vrbitq_u8(vld1q_u8(bytes + 16 * q)));
        vst1q_u64(word + 2 * q, w);
        vst1q_u64(closing + 2 * q, fibnim_closing_bits2_neon(w));
    }
}

/* each codeword's digits, from a bit past the end before to its closing bit
   (rbit and clz find it) */
static inline void fibnim_lane_cut_neon(uint64_t w, uint64_t closing, int ends, uint64_t *code) {
    int start = 0;  /* code[0]: the body's to write */
    for (int g = 0; g < ends; g++) {
        int end = (int)__clzll(__rbitll(closing));
        closing &= closing - 1;
        code[g] = (w >> start) & ~(~(uint64_t)0 << (end - start));
        start = end + 1;
    }
}

/* four codes below 2**32 in 32-bit lanes */
FIBNIM_INLINE uint32x4_t fibnim_narrow4_neon(const uint64_t *code) {
    return vmovn_high_u64(vmovn_u64(vld1q_u64(code)), vld1q_u64(code + 2));
}

/* codes (at most 56 digits: the lane made them) to values: narrowed to 16-
   or 32-bit lanes where all of them fit (eight or four a vector, most
   streams), else two a vector */
static inline void fibnim_lane_values_neon(const uint64_t *code, uint64_t *out, Py_ssize_t n) {
    const fibnim_nibble_tables_neon *t = &fibnim_code_nibbles_neon;
    uint64x2_t any = vdupq_n_u64(0);
    for (Py_ssize_t j = 0; j + 2 <= n; j += 2) any = vorrq_u64(any, vld1q_u64(code + j));
    uint64_t widest = vgetq_lane_u64(any, 0) | vgetq_lane_u64(any, 1);
    Py_ssize_t k = 0;
    uint16x8_t a16, b16;
    uint32x4_t a32, b32;
    if (widest >> 16 == 0) {
        for (; k + 8 <= n; k += 8) {
            uint16x8_t codes = vmovn_high_u32(vmovn_u32(fibnim_narrow4_neon(code + k)),
                                              fibnim_narrow4_neon(code + k + 4));
            fibnim_sums16_neon(vreinterpretq_u8_u16(codes), t, &a16, &b16);
            uint32x4_t first = vmovl_u16(vget_low_u16(a16)), second = vmovl_high_u16(a16);
            vst1q_u64(out + k, vmovl_u32(vget_low_u32(first)));
            vst1q_u64(out + k + 2, vmovl_high_u32(first));
            vst1q_u64(out + k + 4, vmovl_u32(vget_low_u32(second)));
            vst1q_u64(out + k + 6, vmovl_high_u32(second));
        }
    } else if (widest >> 32 == 0) {
        for (; k + 4 <= n; k += 4) {
            fibnim_sums16_neon(vreinterpretq_u8_u32(fibnim_narrow4_neon(code + k)), t, &a16, &b16);
            fibnim_sums32_neon(a16, b16, &a32, &b32);
            vst1q_u64(out + k, vmovl_u32(vget_low_u32(a32)));
            vst1q_u64(out + k + 2, vmovl_high_u32(a32));
        }
    }
    for (; k + 2 <= n; k += 2) vst1q_u64(out + k, fibnim_decode2_neon(vld1q_u64(code + k), t));
    for (; k < n; k++) out[k] = fibnim_bytes_value(code[k], 0, 8);
}
