/* Fibonacci coding's fast lanes (fibnim_unpack_lane_fn of coding.h), one for
   each x86-64 vector path. The walk of coding.h spends some 20 instructions
   a codeword finding it and summing its digits from tables; a lane cuts the
   codewords of a 64-bit word out as codes, several to a vector, and the
   path's decode sums their digits, without its test of each code (the lane
   made them) and two codes to a 64-bit lane where a batch's codes all have
   32 digits or fewer.

   The stream is read 512 bits at a time, its bytes' bits reversed so that
   each 64-bit word has its first bit at bit 0, and the words' closing bits
   found at once (fibnim_closing_bits of coding.h). Word by word, in order:
   the closing bits say where its codewords end, which gives the byte offsets
   of their ends and starts (VBMI2's compress, where there is one, or a
   tzcnt each), and a variable shift and mask cut each codeword's digits out.
   The first codeword of a word goes on from the word before (its digits
   there are `pending`), as does a run of ones across the words' edge
   (`carry`).

   Measured on an AMD EPYC (Zen 4), unpack into out= of 10**7 geometric
   values: with VBMI2, 1.3 to 2.4 times as fast as the walk at every mean
   from 1 to 10**8; with a tzcnt a place, 1.2 to 1.8 times from mean 100 up,
   and as fast as the walk below 10 (it leaves a word of more than 16
   codewords to the walk, which was faster there). The decode without its
   test, then two codes to a lane, took another 16 to 21 % off at mean 100
   on each path (a batch with a longer code pays some 0.1 ns a code for the
   look: 3 % at mean 10**8 on avx512ifma). */
#ifndef FIBNIM_CODING_LANES_H
#define FIBNIM_CODING_LANES_H

#define FIBNIM_LANE_BITS_TARGET "bmi,bmi2,lzcnt,popcnt,"
#define FIBNIM_LANE_AVX2 __attribute__((target(FIBNIM_LANE_BITS_TARGET "avx2,fma")))
#define FIBNIM_LANE_AVX512 __attribute__((target(FIBNIM_LANE_BITS_TARGET \
    "avx2,fma,avx512f,avx512vl,avx512bw,avx512dq,avx512cd")))
#define FIBNIM_LANE_VBMI2 __attribute__((target(FIBNIM_LANE_BITS_TARGET \
    "avx2,fma,avx512f,avx512vl,avx512bw,avx512dq,avx512cd,avx512ifma,avx512vbmi,avx512vbmi2")))
enum { FIBNIM_LANE_CODES = 512,     /* codes summed at once */
       FIBNIM_WORD_ENDS = 32,       /* the most codewords that end in a word */
       FIBNIM_TZCNT_ENDS = 16 };    /* the most a tzcnt lane takes in a word */

/* the codes of the codewords that end in w (closing: their last bits; the
   first starts at bit `start`): code[0 .. ends), then whatever up to the next
   multiple of 8 */
typedef void (*fibnim_lane_cut_fn)(uint64_t w, uint64_t closing, int start, int ends,
                                   uint64_t *code);
/* codes of at most 64 digits to values */
typedef void (*fibnim_lane_values_fn)(const uint64_t *code, uint64_t *out, Py_ssize_t n);

/* 8 words of the stream from bytes, and their closing bits */
FIBNIM_LANE_AVX2 static inline void fibnim_lane_block(const uint8_t *bytes, uint64_t *word,
                                                      uint64_t *closing) {
    const __m256i reversed = _mm256_broadcastsi128_si256(_mm_setr_epi8(
        0x0, 0x8, 0x4, 0xc, 0x2, 0xa, 0x6, 0xe, 0x1, 0x9, 0x5, 0xd, 0x3, 0xb, 0x7, 0xf));
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    for (int half = 0; half < 2; half++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(bytes + 32 * half));
        __m256i low = _mm256_shuffle_epi8(reversed, _mm256_and_si256(x, nibble));
        __m256i high = _mm256_shuffle_epi8(reversed, _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble));
        __m256i w = _mm256_or_si256(_mm256_slli_epi16(low, 4), high);
        _mm256_storeu_si256((__m256i *)(word + 4 * half), w);
        _mm256_storeu_si256((__m256i *)(closing + 4 * half), fibnim_closing_bits4(w));
    }
}

/* VBMI2: the ends' and starts' offsets from two compresses */
FIBNIM_LANE_VBMI2 static inline void fibnim_lane_cut_vbmi2(uint64_t w, uint64_t closing, int start,
                                                           int ends, uint64_t *code) {
    const __m512i offsets = _mm512_set_epi64(
        0x3f3e3d3c3b3a3938LL, 0x3736353433323130LL, 0x2f2e2d2c2b2a2928LL, 0x2726252423222120LL,
        0x1f1e1d1c1b1a1918LL, 0x1716151413121110LL, 0x0f0e0d0c0b0a0908LL, 0x0706050403020100LL);
    const __m512i ones = _mm512_set1_epi64(-1);
    __m512i end = _mm512_maskz_compress_epi8(closing, offsets);
    __m512i begin = _mm512_maskz_compress_epi8((closing << 1) | (UINT64_C(1) << start), offsets);
    __m512i length = _mm512_sub_epi8(end, begin);
    __m512i word = _mm512_set1_epi64((long long)w);
    for (int g = 0; g < ends; g += 8) {
        __m512i shift = _mm512_cvtepu8_epi64(_mm512_castsi512_si128(begin));
        __m512i digits = _mm512_cvtepu8_epi64(_mm512_castsi512_si128(length));
        _mm512_storeu_si512((void *)(code + g), _mm512_andnot_si512(_mm512_sllv_epi64(ones, digits),
                                                                    _mm512_srlv_epi64(word, shift)));
        begin = _mm512_alignr_epi64(begin, begin, 1);
        length = _mm512_alignr_epi64(length, length, 1);
    }
}

/* Without a byte compress: the offsets of eight ends at a time, a tzcnt each
   into a byte of a 64-bit word (64 past the last end), and the starts from
   them (each end's next bit, the first start before them). */
FIBNIM_LANE_AVX2 static inline uint64_t fibnim_lane_ends8(uint64_t *closing, uint64_t *begin,
                                                          int *start) {
    uint64_t at = 0;
    for (int t = 0; t < 8; t++) {
        at |= _tzcnt_u64(*closing) << (8 * t);
        *closing = _blsr_u64(*closing);
    }
    *begin = ((at << 8) + UINT64_C(0x0101010101010100)) | (uint64_t)*start;
    *start = (int)(at >> 56) + 1;
    return at;
}

FIBNIM_LANE_AVX2 static inline void fibnim_lane_cut_avx2(uint64_t w, uint64_t closing, int start,
                                                         int ends, uint64_t *code) {
    const __m256i ones = _mm256_set1_epi64x(-1);
    __m256i word = _mm256_set1_epi64x((long long)w);
    for (int g = 0; g < ends; g += 8) {
        uint64_t begin, end = fibnim_lane_ends8(&closing, &begin, &start);
        for (int half = 0; half < 2; half++) {
            __m256i shift = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128((int)(begin >> (32 * half))));
            __m256i digits = _mm256_sub_epi64(
                _mm256_cvtepu8_epi64(_mm_cvtsi32_si128((int)(end >> (32 * half)))), shift);
            _mm256_storeu_si256((__m256i *)(code + g + 4 * half),
                                _mm256_andnot_si256(_mm256_sllv_epi64(ones, digits),
                                                    _mm256_srlv_epi64(word, shift)));
        }
    }
}

/* codes to values: two to each 64-bit lane where all of a batch have 32
   digits or fewer (most streams), else one */
FIBNIM_ALWAYS_INLINE FIBNIM_LANE_AVX2 int fibnim_lane_short(const uint64_t *code, Py_ssize_t n) {
    __m256i any = _mm256_setzero_si256();  /* n: a multiple of 4 */
    for (Py_ssize_t k = 0; k < n; k += 4)
        any = _mm256_or_si256(any, _mm256_loadu_si256((const __m256i *)(code + k)));
    return _mm256_testz_si256(any, _mm256_set1_epi64x((long long)0xffffffff00000000LL));
}
#define FIBNIM_LANE_VALUES(name, target, decode, decode_short, step) \
    target static inline void name(const uint64_t *code, uint64_t *out, Py_ssize_t n) { \
        Py_ssize_t whole = n - n % (step), k = whole; \
        if (fibnim_lane_short(code, whole)) \
            decode_short(code, out, whole); \
        else \
            k = decode(code, (int64_t *)out, n, ~(uint64_t)0, 0); \
        for (; k < n; k++) out[k] = fibnim_bytes_value(code[k], 0, 8);  /* the last few */ \
    }
FIBNIM_LANE_VALUES(fibnim_lane_values_ifma, FIBNIM_LANE_VBMI2, fibnim_decode8_body_avx512ifma,
                   fibnim_decode_short16_avx512ifma, 16)
FIBNIM_LANE_VALUES(fibnim_lane_values_avx512, FIBNIM_LANE_AVX512, fibnim_decode8_body_avx512,
                   fibnim_decode_short16_avx512, 16)
FIBNIM_LANE_VALUES(fibnim_lane_values_avx2, FIBNIM_LANE_AVX2, fibnim_decode4_body,
                   fibnim_decode_short8, 8)

/* the lane, for the functions of a path (inlined: each path's own copy) */
FIBNIM_ALWAYS_INLINE FIBNIM_LANE_AVX2 Py_ssize_t fibnim_lane_body(
        const uint8_t *data, uint64_t bits, uint64_t *position, uint64_t *out, Py_ssize_t size,
        fibnim_lane_cut_fn cut, fibnim_lane_values_fn values, int most_ends) {
    uint64_t code[FIBNIM_LANE_CODES + 2 * FIBNIM_WORD_ENDS];
    uint64_t word[8], closing_of[8];
    uint64_t p = *position, pending = 0, carry = 0;
    int held = 0, start = (int)(p & 63);  /* pending's digits; where the codeword goes on */
    Py_ssize_t i = 0, n = 0;              /* values in out; codes waiting */
    for (uint64_t k = p >> 6; k + 8 <= bits >> 6; k += 8) {
        fibnim_lane_block(data + 8 * k, word, closing_of);
        for (int j = 0; j < 8; j++) {
            uint64_t w = word[j], closing = closing_of[j];
            if (start) {  /* the lane's first word: its bits before p are not ours */
                w &= ~(uint64_t)0 << start;
                closing = fibnim_closing_bits(w);
            }
            /* A 1 carried pairs with bit 0 where that is a 1: the word's first
               run of ones then closes at its even places, not its odd ones. */
            closing ^= (0 - (carry & w & 1)) & w & ~(w + 1);
            int ends = (int)_mm_popcnt_u64(closing), first = (int)_tzcnt_u64(closing);  /* 64 if none */
            if (held + first - start > FIBNIM_WINDOW || i + n + ends > size  /* a long one; no room */
                    || ends > most_ends)  /* where the walk is as fast */
                goto stop;
            if (ends) {
                cut(w, closing, start, ends, code + n);
                code[n] = pending | (_bzhi_u64(w >> start, (unsigned)(first - start)) << held);
                start = 64 - (int)_lzcnt_u64(closing);
                n += ends;
                pending = 0;
                held = 0;
                p = 64 * (k + (uint64_t)j) + (uint64_t)start;
            }
            pending |= start < 64 ? (w >> start) << held : 0;
            held += 64 - start;
            carry = (w >> 63) & (start != 64);  /* a 1 at the top that no pair closed */
            start = 0;
            if (n >= FIBNIM_LANE_CODES) {
                values(code, out + i, n);
                i += n;
                n = 0;
            }
        }
    }
stop:
    values(code, out + i, n);
    *position = p;
    return i + n;
}

FIBNIM_LANE_VBMI2 static Py_ssize_t fibnim_unpack_lane_vbmi2(
        const uint8_t *data, uint64_t bits, uint64_t *position, uint64_t *out, Py_ssize_t size) {
    return fibnim_lane_body(data, bits, position, out, size,
                            fibnim_lane_cut_vbmi2, fibnim_lane_values_ifma, FIBNIM_WORD_ENDS);
}
/* the avx512 path's: AVX2's cut (as fast, on Zen 4, as one in 512-bit
   registers), AVX-512's decode */
FIBNIM_LANE_AVX2 static Py_ssize_t fibnim_unpack_lane_avx512(
        const uint8_t *data, uint64_t bits, uint64_t *position, uint64_t *out, Py_ssize_t size) {
    return fibnim_lane_body(data, bits, position, out, size,
                            fibnim_lane_cut_avx2, fibnim_lane_values_avx512,
                            FIBNIM_TZCNT_ENDS);
}
FIBNIM_LANE_AVX2 static Py_ssize_t fibnim_unpack_lane_avx2(
        const uint8_t *data, uint64_t bits, uint64_t *position, uint64_t *out, Py_ssize_t size) {
    return fibnim_lane_body(data, bits, position, out, size,
                            fibnim_lane_cut_avx2, fibnim_lane_values_avx2,
                            FIBNIM_TZCNT_ENDS);
}

#endif
