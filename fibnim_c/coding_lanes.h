/* Fibonacci coding's fast lanes (fibnim_unpack_lane_fn of coding.h), one for
   each x86-64 vector path and one for neon (its block, cut and values in
   simd_neon.h; the lane body below is the same). The walk of coding.h
   spends some 20 instructions a codeword finding it and summing its digits
   from tables; a lane cuts the codewords of a 64-bit word out as codes,
   several to a vector, and the path's decode sums their digits, without its
   test of each code (the lane made them) and two codes to a 64-bit lane
   where a batch's codes all have 32 digits or fewer.

   The stream is read 512 bits at a time, its bytes' bits reversed so that
   each 64-bit word has its first bit at bit 0, and the words' closing bits
   found at once (fibnim_closing_bits of coding.h). Word by word, in order:
   the closing bits say where its codewords end, which gives the byte offsets
   of their ends (VBMI2's compress, where there is one, or a tzcnt each),
   each codeword starting a bit past the one before, and a variable shift
   and mask cut each codeword's digits out. The first codeword of a word
   goes on from the word before (that word's bits past its last closing bit,
   `tail`), as does a run of ones across the words' edge (`carry`).

   Measured on an AMD EPYC (Zen 4), unpack into out= of 4 * 10**6 geometric
   values at means 1 to 10**8: with VBMI2, 2.1 to 4.0 times as fast as the
   walk (the scalar path); with a tzcnt a place, 1.6 to 2.7 times. Keeping
   no digits pending from word to word (fibnim_lane_body), one compress in
   VBMI2's cut, and a tzcnt lane's words of 17 to 32 codewords cut out of
   line instead of left to the walk took 11 to 23 % off at mean 100 (the
   most with VBMI2), 5 to 18 % at 10**8 and 6 to 28 % at means 1 to 3. The
   weak spot is a mean near 30, some 8 codewords a word, where the count of
   groups of 8 to cut is a coin toss. The decode without its test, then two
   codes to a lane, took another 16 to 21 % off at mean 100 on each path (a
   batch with a longer code pays some 0.1 ns a code for the look: 3 % at
   mean 10**8 on avx512ifma). */
#ifndef FIBNIM_CODING_LANES_H
#define FIBNIM_CODING_LANES_H

enum { FIBNIM_LANE_CODES = 512,     /* codes summed at once */
       FIBNIM_WORD_ENDS = 32 };     /* the most codewords that end in a word */

/* the lane's bit scans: single instructions on both (64 for a zero, where
   a count runs off the word) */
#ifdef FIBNIM_X86_PATHS
#define FIBNIM_LANE_BITS_TARGET "bmi,bmi2,lzcnt,popcnt,"
#define FIBNIM_LANE_AVX2 __attribute__((target(FIBNIM_LANE_BITS_TARGET "avx2,fma")))
#define FIBNIM_LANE_AVX512 __attribute__((target(FIBNIM_LANE_BITS_TARGET \
    "avx2,fma,avx512f,avx512vl,avx512bw,avx512dq,avx512cd")))
#define FIBNIM_LANE_VBMI2 __attribute__((target(FIBNIM_LANE_BITS_TARGET \
    "avx2,fma,avx512f,avx512vl,avx512bw,avx512dq,avx512cd,avx512ifma,avx512vbmi,avx512vbmi2")))
#define FIBNIM_LANE_BODY_TARGET FIBNIM_LANE_AVX2
#define FIBNIM_LANE_POPCOUNT(x) _mm_popcnt_u64(x)
#define FIBNIM_LANE_TZCNT(x) _tzcnt_u64(x)
#define FIBNIM_LANE_LZCNT(x) _lzcnt_u64(x)
#define FIBNIM_LANE_BZHI(x, n) _bzhi_u64(x, n)
#else  /* FIBNIM_ARM_PATHS (ACLE's __clzll of 0 is 64) */
#define FIBNIM_LANE_BODY_TARGET
#define FIBNIM_LANE_POPCOUNT(x) __builtin_popcountll(x)
#define FIBNIM_LANE_TZCNT(x) __clzll(__rbitll(x))
#define FIBNIM_LANE_LZCNT(x) __clzll(x)
#define FIBNIM_LANE_BZHI(x, n) ((n) >= 64 ? (x) : (x) & ~(~(uint64_t)0 << (n)))
#endif

/* 8 words of the stream from 64 bytes, each with its first bit at bit 0,
   and their closing bits */
typedef void (*fibnim_lane_block_fn)(const uint8_t *bytes, uint64_t *word, uint64_t *closing);
/* the codes of the codewords that end in w (closing: their last bits), each
   starting a bit past the one before: code[1 .. ends), then (the x86-64
   cuts) whatever up to the next multiple of 8 (code[0], whose codeword began
   before the word, is the lane body's to write) */
typedef void (*fibnim_lane_cut_fn)(uint64_t w, uint64_t closing, int ends, uint64_t *code);
/* codes of at most 64 digits to values */
typedef void (*fibnim_lane_values_fn)(const uint64_t *code, uint64_t *out, Py_ssize_t n);

#ifdef FIBNIM_X86_PATHS
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

/* VBMI2: the offsets just past the ends from one compress, which are where
   the next codewords start; the mask may take in a codeword's closing bit,
   cleared from the word */
FIBNIM_LANE_VBMI2 static inline void fibnim_lane_cut_vbmi2(uint64_t w, uint64_t closing, int ends,
                                                           uint64_t *code) {
    const __m512i after_offsets = _mm512_set_epi64(
        0x403f3e3d3c3b3a39LL, 0x3837363534333231LL, 0x302f2e2d2c2b2a29LL, 0x2827262524232221LL,
        0x201f1e1d1c1b1a19LL, 0x1817161514131211LL, 0x100f0e0d0c0b0a09LL, 0x0807060504030201LL);
    const __m512i ones = _mm512_set1_epi64(-1);
    __m512i after = _mm512_maskz_compress_epi8(closing, after_offsets);
    __m512i digits = _mm512_set1_epi64((long long)(w & ~closing));
    __m512i before = _mm512_setzero_si512();  /* code[0]: the body's to write */
    for (int g = 0; g < ends; g += 8) {
        __m512i past = _mm512_cvtepu8_epi64(_mm512_castsi512_si128(after));
        __m512i shift = _mm512_alignr_epi64(past, before, 7);
        _mm512_storeu_si512((void *)(code + g),
                            _mm512_andnot_si512(_mm512_sllv_epi64(ones, _mm512_sub_epi64(past, shift)),
                                                _mm512_srlv_epi64(digits, shift)));
        before = past;
        after = _mm512_alignr_epi64(after, after, 1);
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

FIBNIM_ALWAYS_INLINE FIBNIM_LANE_AVX2 void fibnim_lane_cut_groups(uint64_t w, uint64_t closing,
                                                                 int ends, uint64_t *code) {
    int start = 0;  /* code[0]: the body's to write */
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
__attribute__((noinline)) FIBNIM_LANE_AVX2 static void fibnim_lane_cut_many(
        uint64_t w, uint64_t closing, int ends, uint64_t *code) {
    fibnim_lane_cut_groups(w, closing, ends, code);
}
/* A word of more than 16 codewords (streams of small values) is cut out of
   line: the common case's two groups then unroll (7 % at mean 100, against
   one loop for up to 32) */
FIBNIM_LANE_AVX2 static inline void fibnim_lane_cut_avx2(uint64_t w, uint64_t closing, int ends,
                                                         uint64_t *code) {
    if (ends > 16)
        fibnim_lane_cut_many(w, closing, ends, code);
    else
        fibnim_lane_cut_groups(w, closing, ends, code);
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
#endif  /* FIBNIM_X86_PATHS */

/* the lane, for the functions of a path (inlined: each path's own copy).

   Every word but the first must close a codeword (else one is longer than a
   window): its first code is then the previous word's bits past its last
   closing bit (`tail`, `head` of them) and its own bits below its first
   closing bit. So the lane stops at word k + j with the stream read to bit
   64 (k + j) - head. The first word's codeword starts at bit `start`; there
   head is -start. */
FIBNIM_ALWAYS_INLINE FIBNIM_LANE_BODY_TARGET Py_ssize_t fibnim_lane_body(
        const uint8_t *data, uint64_t bits, uint64_t *position, uint64_t *out, Py_ssize_t size,
        fibnim_lane_block_fn block, fibnim_lane_cut_fn cut, fibnim_lane_values_fn values) {
    uint64_t code[FIBNIM_LANE_CODES + 2 * FIBNIM_WORD_ENDS];
    uint64_t word[8], closing_of[8];
    uint64_t k = *position >> 6, tail = 0, carry = 0;
    int start = (int)(*position & 63), head = -start, j = 0;
    Py_ssize_t i = 0, n = 0;  /* values in out; codes waiting */
    for (; k + 8 <= bits >> 6; k += 8) {
        block(data + 8 * k, word, closing_of);
        for (j = 0; j < 8; j++) {
            uint64_t w = word[j], closing = closing_of[j];
            if (start) {  /* the lane's first word: its bits before *position are not ours */
                w &= ~(uint64_t)0 << start;
                closing = fibnim_closing_bits(w);
            }
            /* A 1 carried pairs with bit 0 where that is a 1: the word's first
               run of ones then closes at its even places, not its odd ones. */
            closing ^= (0 - (carry & w & 1)) & w & ~(w + 1);
            int ends = (int)FIBNIM_LANE_POPCOUNT(closing);
            int first = (int)FIBNIM_LANE_TZCNT(closing);  /* 64 if none */
            if (head + first > FIBNIM_WINDOW || i + n + ends > size)  /* a long one; no room */
                goto stop;
            cut(w, closing, ends, code + n);
            if (start) {  /* a codeword longer than the rest of the word may start there */
                code[n] = FIBNIM_LANE_BZHI(w, (unsigned)first) >> start;
                head = ends ? (int)FIBNIM_LANE_LZCNT(closing) : 64 - start;
                start = 0;
            } else {
                code[n] = tail | (FIBNIM_LANE_BZHI(w, (unsigned)first) << head);
                head = (int)FIBNIM_LANE_LZCNT(closing);
            }
            tail = (w >> 1) >> (63 - head);  /* w >> (64 - head), for head = 0 too */
            carry = (w & ~closing) >> 63;  /* a 1 at the top that no pair closed */
            n += ends;
            if (n >= FIBNIM_LANE_CODES) {
                values(code, out + i, n);
                i += n;
                n = 0;
            }
        }
        j = 0;  /* word k + 8 is next */
    }
stop:
    values(code, out + i, n);
    *position = 64 * (k + (uint64_t)j) - (uint64_t)(int64_t)head;
    return i + n;
}

#ifdef FIBNIM_X86_PATHS
FIBNIM_LANE_VBMI2 static Py_ssize_t fibnim_unpack_lane_vbmi2(
        const uint8_t *data, uint64_t bits, uint64_t *position, uint64_t *out, Py_ssize_t size) {
    return fibnim_lane_body(data, bits, position, out, size, fibnim_lane_block,
                            fibnim_lane_cut_vbmi2, fibnim_lane_values_ifma);
}
/* the avx512 path's: AVX2's cut (as fast, on Zen 4, as one in 512-bit
   registers, and faster than AVX-512F's dword compress of each 16 closing
   bits joined by permutes: that took 16 to 23 % longer at mean 100),
   AVX-512's decode */
FIBNIM_LANE_AVX2 static Py_ssize_t fibnim_unpack_lane_avx512(
        const uint8_t *data, uint64_t bits, uint64_t *position, uint64_t *out, Py_ssize_t size) {
    return fibnim_lane_body(data, bits, position, out, size, fibnim_lane_block,
                            fibnim_lane_cut_avx2, fibnim_lane_values_avx512);
}
FIBNIM_LANE_AVX2 static Py_ssize_t fibnim_unpack_lane_avx2(
        const uint8_t *data, uint64_t bits, uint64_t *position, uint64_t *out, Py_ssize_t size) {
    return fibnim_lane_body(data, bits, position, out, size, fibnim_lane_block,
                            fibnim_lane_cut_avx2, fibnim_lane_values_avx2);
}
#endif

#ifdef FIBNIM_ARM_PATHS
/* the neon path's: simd_neon.h's block, cut and values */
static Py_ssize_t fibnim_unpack_lane_neon(
        const uint8_t *data, uint64_t bits, uint64_t *position, uint64_t *out, Py_ssize_t size) {
    return fibnim_lane_body(data, bits, position, out, size, fibnim_lane_block_neon,
                            fibnim_lane_cut_neon, fibnim_lane_values_neon);
}
#endif

#endif
