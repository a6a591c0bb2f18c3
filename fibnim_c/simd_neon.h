/* The neon path of simd.h, for every AArch64 processor (NEON is part of the
   architecture: no run-time check).

   NEON has two 64-bit lanes and no 64 x 64-bit multiply: a lane's 128-bit
   product takes four 32 x 32 -> 64 ones, and the golden split two such
   products. The general registers have the 128-bit product in two
   instructions (mul, umulh), so the Wythoff kernels below are plain C over
   two positions a pass, one test of both against limit, exact (but for
   is_lower's tie, a chance of 2**-64): fewer instructions per position than
   NEON lanes would take. Where the work is table look-ups and bit tests, the kernels
   are NEON: decode's digit sums by tbl, two-pile power-of-two Nim by lanes. */

#include <arm_neon.h>

/* floor(m (phi - 1)) for m <= 2**63, exactly (the proof is golden_split's, in
   _scalar.pxd): three products (umulh, madd, umulh) */
FIBNIM_INLINE uint64_t fibnim_golden_floor(uint64_t m) {
    uint64_t low_of_hi, low_of_lo;
    uint64_t high_of_hi = fibnim_mul128(m, FIBNIM_PHI_HI, &low_of_hi);
    uint64_t high_of_lo = fibnim_mul128(m, FIBNIM_PHI_LO, &low_of_lo);
    uint64_t fraction = low_of_hi + high_of_lo;
    return high_of_hi + (fraction < high_of_lo);  /* the carry out of the middle word */
}

/* (x, y) is a P-position of Wythoff's Nim iff min = a_d, d = |x - y| */
FIBNIM_INLINE uint8_t fibnim_safe_position(uint64_t x, uint64_t y) {
    uint64_t small = x < y ? x : y, d = (x ^ y ^ small) - small;
    return (uint8_t)(small == d + fibnim_golden_floor(d));
}

static Py_ssize_t fibnim_is_safe_neon(
        const uint64_t *x, const uint64_t *y, uint8_t *out, Py_ssize_t n, uint64_t limit) {
    Py_ssize_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint64_t x0 = x[i], y0 = y[i], x1 = x[i + 1], y1 = y[i + 1];
        if ((x0 | y0 | x1 | y1) > limit) break;
        out[i] = fibnim_safe_position(x0, y0);
        out[i + 1] = fibnim_safe_position(x1, y1);
    }
    return i;
}

static Py_ssize_t fibnim_pair_neon(
        const uint64_t *n, int64_t *a, int64_t *b, Py_ssize_t count, uint64_t limit) {
    Py_ssize_t i = 0;
    for (; i + 2 <= count; i += 2) {
        uint64_t v0 = n[i], v1 = n[i + 1];
        if ((v0 | v1) > limit) break;
        uint64_t lower0 = v0 + fibnim_golden_floor(v0), lower1 = v1 + fibnim_golden_floor(v1);
        a[i] = (int64_t)lower0;
        a[i + 1] = (int64_t)lower1;
        b[i] = (int64_t)(lower0 + v0);
        b[i + 1] = (int64_t)(lower1 + v1);
    }
    return i;
}

/* x >= 1 is an A-number iff frac((x + 1) phi) < phi - 1 (lower_count of
   _scalar.pxd): the top 64 bits of the fraction are the low word of
   (x + 1) * PHI_HI plus the high one of (x + 1) * PHI_LO, two products where
   the floor would take three, and decide it unless they equal PHI_HI (for
   x >= 1 a chance of 2**-64, for the caller's exact loop; x = 0, whose
   fraction is phi - 1 itself, is neither). */
static Py_ssize_t fibnim_is_lower_neon(
        const uint64_t *x, uint8_t *out, Py_ssize_t n, int upper, uint64_t limit) {
    /* B-numbers lie above: f > PHI_HI is ~f < ~PHI_HI, and 0 (f = PHI_HI) is
       neither */
    const uint64_t flip = upper ? ~(uint64_t)0 : 0, bound = FIBNIM_PHI_HI ^ flip;
    Py_ssize_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint64_t v0 = x[i], v1 = x[i + 1], low;
        if ((v0 | v1) > limit) break;
        uint64_t f0 = ((v0 + 1) * FIBNIM_PHI_HI + fibnim_mul128(v0 + 1, FIBNIM_PHI_LO, &low)) ^ flip;
        uint64_t f1 = ((v1 + 1) * FIBNIM_PHI_HI + fibnim_mul128(v1 + 1, FIBNIM_PHI_LO, &low)) ^ flip;
        if (((f0 == bound) & (v0 != 0)) | ((f1 == bound) & (v1 != 0))) break;
        out[i] = (uint8_t)(f0 < bound);
        out[i + 1] = (uint8_t)(f1 < bound);
    }
    return i;
}

/* decode: a code's digit sums as simd_avx2.h's fibnim_digit_sums4 makes them
   (A and B of each nibble by table, then chunks twice as wide: the high
   half's (A, B) moved up by w bits is (F_(w+1) A + F_w B, F_w A + F_(w-1) B)),
   with tbl for vpshufb and multiply-accumulates by a constant: each wider
   lane holds its low half's sum in its low part, so adding (F_(w+1) - 2**w)
   times the high half's A moves it and drops the high half at once
   (mod 2**w: every sum is below 2**w). Two codes to a vector. */
typedef struct { uint8x16_t low_a, low_b, high_a, high_b; } fibnim_nibble_tables_neon;

static inline uint64x2_t fibnim_decode2_neon(uint64x2_t code, const fibnim_nibble_tables_neon *t) {
    uint8x16_t bytes = vreinterpretq_u8_u64(code);
    uint8x16_t lo = vandq_u8(bytes, vdupq_n_u8(0x0f)), hi = vshrq_n_u8(bytes, 4);
    uint8x16_t a8 = vaddq_u8(vqtbl1q_u8(t->low_a, lo), vqtbl1q_u8(t->high_a, hi));
    uint8x16_t b8 = vaddq_u8(vqtbl1q_u8(t->low_b, lo), vqtbl1q_u8(t->high_b, hi));
    /* bytes to 16 bits: w = 8, F_9 = 34, F_8 = 21, F_7 = 13 */
    uint16x8_t a16 = vreinterpretq_u16_u8(a8), b16 = vreinterpretq_u16_u8(b8);
    uint16x8_t a_high = vshrq_n_u16(a16, 8), b_high = vshrq_n_u16(b16, 8);
    a16 = vmlaq_n_u16(vmlaq_n_u16(a16, a_high, (uint16_t)(34 - 256)), b_high, 21);
    b16 = vmlaq_n_u16(vmlaq_n_u16(b16, a_high, 21), b_high, (uint16_t)(13 - 256));
    /* to 32 bits: w = 16, F_17 = 1597, F_16 = 987, F_15 = 610 */
    uint32x4_t a32 = vreinterpretq_u32_u16(a16), b32 = vreinterpretq_u32_u16(b16);
    uint32x4_t a_top = vshrq_n_u32(a32, 16), b_top = vshrq_n_u32(b32, 16);
    a32 = vmlaq_n_u32(vmlaq_n_u32(a32, a_top, (uint32_t)(1597 - 65536)), b_top, 987);
    b32 = vmlaq_n_u32(vmlaq_n_u32(b32, a_top, 987), b_top, (uint32_t)(610 - 65536));
    /* to 64 bits: w = 32, F_33 = 3524578, F_32 = 2178309 (the widening products
       take the high halves narrowed) */
    uint64x2_t a64 = vreinterpretq_u64_u32(a32), b64 = vreinterpretq_u64_u32(b32);
    uint64x2_t value = vandq_u64(a64, vdupq_n_u64(0xffffffffu));
    value = vmlal_n_u32(value, vshrn_n_u64(a64, 32), 3524578);
    return vmlal_n_u32(value, vshrn_n_u64(b64, 32), 2178309);
}

/* four codes a pass; stops before a block with a code above limit or with two
   adjacent set bits */
static Py_ssize_t fibnim_decode_neon(const uint64_t *code, int64_t *out, Py_ssize_t n,
                                     uint64_t limit) {
    static const fibnim_nibble_tables_neon tables = {
        { FIBNIM_NIBBLES(1, 2, 3, 5) }, { FIBNIM_NIBBLES(1, 1, 2, 3) },
        { FIBNIM_NIBBLES(8, 13, 21, 34) }, { FIBNIM_NIBBLES(5, 8, 13, 21) } };
    const uint64x2_t most = vdupq_n_u64(limit);
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64x2_t c0 = vld1q_u64(code + i), c1 = vld1q_u64(code + i + 2);
        uint64x2_t bad = vorrq_u64(
            vorrq_u64(vcgtq_u64(c0, most), vcgtq_u64(c1, most)),
            vorrq_u64(vandq_u64(c0, vshrq_n_u64(c0, 1)), vandq_u64(c1, vshrq_n_u64(c1, 1))));
        if (vmaxvq_u32(vreinterpretq_u32_u64(bad))) break;
        vst1q_s64(out + i, vreinterpretq_s64_u64(fibnim_decode2_neon(c0, &tables)));
        vst1q_s64(out + i + 2, vreinterpretq_s64_u64(fibnim_decode2_neon(c1, &tables)));
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
    for (; i + 8 <= n; i += 8) {
        uint64x2x2_t p0 = vld2q_u64(piles + 2 * i), p1 = vld2q_u64(piles + 2 * i + 4);
        uint64x2x2_t p2 = vld2q_u64(piles + 2 * i + 8), p3 = vld2q_u64(piles + 2 * i + 12);
        uint64x2_t r0 = vld1q_u64(r + i), r1 = vld1q_u64(r + i + 2);
        uint64x2_t r2 = vld1q_u64(r + i + 4), r3 = vld1q_u64(r + i + 6);
        uint64x2_t seen = vorrq_u64(vorrq_u64(vorrq_u64(p0.val[0], p0.val[1]),
                                              vorrq_u64(p1.val[0], p1.val[1])),
                                    vorrq_u64(vorrq_u64(p2.val[0], p2.val[1]),
                                              vorrq_u64(p3.val[0], p3.val[1])));
        seen = vorrq_u64(seen, vorrq_u64(vorrq_u64(r0, r1), vorrq_u64(r2, r3)));
        if (vmaxvq_u32(vreinterpretq_u32_u64(vcgtq_u64(seen, vdupq_n_u64(limit))))) break;
        uint32x4_t low = vmovn_high_u64(vmovn_u64(fibnim_power_p_neon(p0, r0)),
                                        fibnim_power_p_neon(p1, r1));
        uint32x4_t high = vmovn_high_u64(vmovn_u64(fibnim_power_p_neon(p2, r2)),
                                         fibnim_power_p_neon(p3, r3));
        uint8x8_t answers = vmovn_u16(vmovn_high_u32(vmovn_u32(low), high));
        vst1_u8(out + i, vand_u8(answers, vdup_n_u8(1)));
    }
    return i;
}
