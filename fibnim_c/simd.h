/* fibnim's implementations ("paths") and the one dispatcher that picks among
   them, once at import and again whenever fibnim.use_implementation asks.

   A path is a table of vector kernels. Each kernel does a leading part of its
   input (a multiple of its lane count) and returns how far it got; the
   portable scalar loop of the Cython kernel finishes the rest, and does
   everything where the table has NULL. The scalar path has portable C kernels
   where a block loop beats the general one. The x86-64
   paths are compiled with per-function target attributes into every build
   (GCC or Clang on x86-64), so one binary carries them all and runs the best
   its processor has; every AArch64 build (GCC or Clang) has the neon path
   (simd_neon.h). FIBNIM_NO_SIMD leaves them out. */
#ifndef FIBNIM_SIMD_H
#define FIBNIM_SIMD_H

#include "scalar.h"
#include "coding.h"

/* what a path needs of the processor */
enum { FIBNIM_NEEDS_AVX2 = 1, FIBNIM_NEEDS_AVX512 = 2, FIBNIM_NEEDS_IFMA = 4 };

typedef struct {
    const char *name;
    int needs;
    Py_ssize_t (*is_safe)(const uint64_t *x, const uint64_t *y, uint8_t *out, Py_ssize_t n,
                          uint64_t limit);
    Py_ssize_t (*pair)(const uint64_t *n, int64_t *a, int64_t *b, Py_ssize_t count,
                       uint64_t limit);
    Py_ssize_t (*is_lower)(const uint64_t *x, uint8_t *out, Py_ssize_t n, int upper,
                           uint64_t limit);
    Py_ssize_t (*winning_move)(const uint64_t *x, const uint64_t *y, int64_t *tx, int64_t *ty,
                               Py_ssize_t n, uint64_t limit);
    /* piles (n, 2) in, out (n, 3) = (1 for P or 0, the target, -1 -1 where none) */
    Py_ssize_t (*classify_wythoff)(const uint64_t *piles, int64_t *out, Py_ssize_t n,
                                   uint64_t limit);
    Py_ssize_t (*power_pairs)(const uint64_t *piles, const uint64_t *r, uint8_t *out,
                              Py_ssize_t n, uint64_t limit);
    Py_ssize_t (*decode)(const uint64_t *code, int64_t *out, Py_ssize_t n, uint64_t limit);
    Py_ssize_t (*encode)(const uint64_t *n, uint64_t *out, Py_ssize_t count, uint64_t limit);
    /* rows: the tables of SIMD_ROWS in fibonacci_nim.pxi; *any_unsure set
       where an answer is unsure, and where a value above limit was met (the
       caller's second pass settles both) */
    Py_ssize_t (*fib_is_p)(const uint64_t *n, const uint64_t *r, uint8_t *out, Py_ssize_t count,
                           uint64_t limit, const uint64_t *rows, int *any_unsure);
    Py_ssize_t (*fib_two_pile)(const uint64_t *piles, const uint64_t *r, uint8_t *out,
                               Py_ssize_t count, uint64_t limit, const uint64_t *rows,
                               int *any_unsure);
    /* Fibonacci coding: the codewords that end in a stream's first `bits` bits,
       and their values (fibnim_unpack_body of coding.h) */
    uint64_t (*count_codewords)(const uint8_t *data, uint64_t bits);
    int (*unpack)(const uint8_t *data, uint64_t bits, uint64_t *position, uint64_t *out,
                  Py_ssize_t size, Py_ssize_t *done);
} fibnim_path;

enum { FIBNIM_ARC_MARGIN = 8 };  /* see fibonacci_nim.pxi */

/* how far below the truth the vector paths' fast golden split's estimate of
   the carry may be (simd_avx2.h's fibnim_golden4, simd_neon.h's
   fibnim_golden2_neon) */
#define FIBNIM_CARRY_WINDOW (1LL << 33)

/* Where SIMD_ROWS (fibonacci_nim.pxi) keeps the tables of the one-lane arc
   test: by the leading zeros z <= 64 of a bound (its bit length b = 64 - z),
   top_index(2**(b-1)) + 1 and the two Fibonacci numbers after that top side
   by side, in rows of four (a row's address is one shift of z); then by j <
   96 the arc's start and length side by side (each pair in one cache line). */
enum { FIBNIM_ROWS_BY_ZEROS = 5 * 64, FIBNIM_ROWS_BY_ARC = 5 * 64 + 4 * 65,
       FIBNIM_ROWS = 5 * 64 + 4 * 65 + 2 * 96 };

/* Fibonacci Nim's P-positions by the arc test of fibonacci_nim.pxi, in the
   general registers: each look-up of a bound indexed by its leading zeros
   alone, not waiting for another, and one flag for the block (the values
   or'ed together, the nearest any answer came to an arc's end) instead of a
   check and a mark per position. Four positions a step, each step done for
   all four before the next, so that their chains of dependent loads (bound,
   row, arc) overlap: on an Intel Xeon, avx2 (lzcnt), 10**7 positions, 3.4 to
   3.6 ns a position where one at a time took 6.7 (and numba's loop, compiled
   by LLVM, about 3.9), 33 instructions a position where it took 40. Does all
   `count` (1 or 0 in out, whatever the flag); a value above limit sets
   *any_unsure, and the caller's second pass finds it. */
#define FIBNIM_ARC_STEP 4
/* the arc's index j of a bound from its row (by its leading zeros) */
static inline uint64_t fibnim_arc_index(const uint64_t *by_zeros, uint64_t bound, int zeros) {
    const uint64_t *row = by_zeros + 4 * zeros;
    return row[0] + (bound >= row[1]) + (bound >= row[2]);
}
#define FIBNIM_ARC_INDEX(bound, leading_zeros_of) \
    fibnim_arc_index(by_zeros, bound, (int)(leading_zeros_of(bound)))
/* the answer of position `at` from its x and its arc's index j */
#define FIBNIM_ARC_ANSWER(x, j, at) do { \
        uint64_t u = (x) - arcs[2 * (j)], length = arcs[2 * (j) + 1]; \
        uint64_t start = u + FIBNIM_ARC_MARGIN, end = u - length + FIBNIM_ARC_MARGIN; \
        nearest = nearest < start ? nearest : start; \
        nearest = nearest < end ? nearest : end; \
        out[at] = (uint8_t)(u < length); \
    } while (0)
#define FIBNIM_FIB_IS_P_LANES(leading_zeros_of) \
    const uint64_t *by_zeros = rows + FIBNIM_ROWS_BY_ZEROS, *arcs = rows + FIBNIM_ROWS_BY_ARC; \
    uint64_t seen = 0, nearest = UINT64_MAX, low; \
    Py_ssize_t i = 0; \
    for (; i + FIBNIM_ARC_STEP <= count; i += FIBNIM_ARC_STEP) { \
        uint64_t v[FIBNIM_ARC_STEP], bound[FIBNIM_ARC_STEP], j[FIBNIM_ARC_STEP], x[FIBNIM_ARC_STEP]; \
        for (int k = 0; k < FIBNIM_ARC_STEP; k++) { \
            v[k] = n[i + k]; \
            bound[k] = r[i + k]; \
            seen |= v[k] | bound[k]; \
        } \
        for (int k = 0; k < FIBNIM_ARC_STEP; k++) j[k] = FIBNIM_ARC_INDEX(bound[k], leading_zeros_of); \
        for (int k = 0; k < FIBNIM_ARC_STEP; k++) \
            x[k] = v[k] * FIBNIM_PHI_HI + fibnim_mul128(v[k], FIBNIM_PHI_LO, &low); \
        for (int k = 0; k < FIBNIM_ARC_STEP; k++) FIBNIM_ARC_ANSWER(x[k], j[k], i + k); \
    } \
    for (; i < count; i++) { \
        uint64_t v = n[i], bound = r[i]; \
        seen |= v | bound; \
        FIBNIM_ARC_ANSWER(v * FIBNIM_PHI_HI + fibnim_mul128(v, FIBNIM_PHI_LO, &low), \
                          FIBNIM_ARC_INDEX(bound, leading_zeros_of), i); \
    } \
    *any_unsure |= (nearest < 2 * FIBNIM_ARC_MARGIN) | (seen > limit); \
    return count;

static Py_ssize_t fibnim_fib_is_p_lanes(const uint64_t *n, const uint64_t *r, uint8_t *out,
        Py_ssize_t count, uint64_t limit, const uint64_t *rows, int *any_unsure) {
    FIBNIM_FIB_IS_P_LANES(64 - fibnim_bit_length)
}

/* decode's nibble tables (vpshufb's and tbl's): the sum of f_j over the set bits j of
   each nibble 0..15 */
#define FIBNIM_NIBBLE(n, f0, f1, f2, f3) \
    ((char)(((n) & 1) * (f0) + ((n) >> 1 & 1) * (f1) + ((n) >> 2 & 1) * (f2) + ((n) >> 3 & 1) * (f3)))
/* the sixteen of a table */
#define FIBNIM_NIBBLES(f0, f1, f2, f3) \
    FIBNIM_NIBBLE(0, f0, f1, f2, f3), FIBNIM_NIBBLE(1, f0, f1, f2, f3), \
    FIBNIM_NIBBLE(2, f0, f1, f2, f3), FIBNIM_NIBBLE(3, f0, f1, f2, f3), \
    FIBNIM_NIBBLE(4, f0, f1, f2, f3), FIBNIM_NIBBLE(5, f0, f1, f2, f3), \
    FIBNIM_NIBBLE(6, f0, f1, f2, f3), FIBNIM_NIBBLE(7, f0, f1, f2, f3), \
    FIBNIM_NIBBLE(8, f0, f1, f2, f3), FIBNIM_NIBBLE(9, f0, f1, f2, f3), \
    FIBNIM_NIBBLE(10, f0, f1, f2, f3), FIBNIM_NIBBLE(11, f0, f1, f2, f3), \
    FIBNIM_NIBBLE(12, f0, f1, f2, f3), FIBNIM_NIBBLE(13, f0, f1, f2, f3), \
    FIBNIM_NIBBLE(14, f0, f1, f2, f3), FIBNIM_NIBBLE(15, f0, f1, f2, f3)

#if defined(__GNUC__) && defined(__x86_64__) && !defined(FIBNIM_NO_SIMD)
#define FIBNIM_X86_PATHS 1
#include <immintrin.h>
#include <string.h>

/* shared by the kernels of every vector path */
/* The narrow path: for m < 2**32, floor(m (phi - 1)) and its fraction's top
   64 bits (at most 2 below them) are exact from three 32 x 32-bit products,
   m times the top 96 bits C of phi - 1 (PHI_HI and the high limb of PHI_LO),
   where the full range takes five and may be left unsure. m C / 2**96 lies
   below m (phi - 1) by less than m 2**-96 < 2**-64, while m (phi - 1) is at
   least 0.38 / m > 2**-34 from an integer, and frac((x + 1)(phi - 1)) as far
   from phi - 1 (the golden ratio is the worst approximable number: m ||m phi||
   > 0.38 for all m >= 1): so the floor is exact, and x is an A-number iff the
   fraction is below PHI_HI (x >= 1). With IFMA's 52-bit products the same
   argument holds below 2**50 (simd_avx512.h). The Wythoff kernels take it
   for a block whose multiplicands (x + 1 for the A-number test, a difference
   of piles) are all below the path's width, by one test of the block, as
   game-sized piles are. tools/narrow_check.c checks every m below 2**32 and
   2**32 more below 2**50; tests/test_parity.py the kernels at the widths'
   edges (F_k - 1, F_k, F_k + 1, each lane of a block over the width), every
   value below 2**24, and random blocks. */
#define FIBNIM_NARROW (1LL << 32)
#define FIBNIM_NARROW_IFMA (1LL << 50)  /* with IFMA's 52-bit products: simd_avx512.h */
/* the three limbs of C, high first */
#define FIBNIM_C2 ((long long)(FIBNIM_PHI_HI >> 32))
#define FIBNIM_C1 ((long long)(FIBNIM_PHI_HI & 0xffffffffULL))
#define FIBNIM_C0 ((long long)(FIBNIM_PHI_LO >> 32))

/* Whether a kernel writes `bytes` to out past the caches (non-temporal
   stores, aligned to 64 bytes): for an output too large for them, so that
   writing it does not first read it (np.add's floor does: 24 bytes a position
   moved as 32). classify of Wythoff on 10**7 game-sized rows, Intel Xeon
   (avx512ifma): 2.2 to 1.95 times np.add. */
#define FIBNIM_STREAM_BYTES (1 << 20)
static inline int fibnim_streams(const void *out, Py_ssize_t bytes) {
    return bytes >= FIBNIM_STREAM_BYTES && (uintptr_t)out % 64 == 0;
}

/* decode's nibble tables for vpshufb */
#define FIBNIM_NIBBLE_TABLE(f0, f1, f2, f3) _mm_setr_epi8(FIBNIM_NIBBLES(f0, f1, f2, f3))

typedef struct { __m512i top[8], next[8], after[8], start[8], length[8]; } fibnim_arc_tables;
/* the constant registers of digit_sums8 (simd_avx512.h), made once by a kernel */
typedef struct {
    __m512i nibble, low_a, low_b, high_a, high_b, a8, ab8, b8, a16, ab16, b16;
} fibnim_digit_tables8;

#define FIBNIM_PATH(name) fibnim_##name##_avx512ifma
#define FIBNIM_TARGET __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx512cd,avx512ifma")))
#define FIBNIM_IFMA 1
#include "simd_avx512.h"
#undef FIBNIM_PATH
#undef FIBNIM_TARGET
#undef FIBNIM_IFMA
#undef FIBNIM_PATH_NARROW

#define FIBNIM_PATH(name) fibnim_##name##_avx512
#define FIBNIM_TARGET __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx512cd")))
#define FIBNIM_IFMA 0
#include "simd_avx512.h"
#undef FIBNIM_PATH
#undef FIBNIM_TARGET
#undef FIBNIM_IFMA
#undef FIBNIM_PATH_NARROW

#include "simd_avx2.h"
#include "coding_lanes.h"

/* coding.h's unpack where its bit scans and masks are single instructions
   (every processor with AVX2 has BMI2 and LZCNT, and popcnt), with the
   path's lane (coding_lanes.h) */
#define FIBNIM_UNPACK(suffix, lane) \
    __attribute__((target("bmi,bmi2,lzcnt,popcnt"))) static int fibnim_unpack_##suffix( \
            const uint8_t *data, uint64_t bits, uint64_t *position, uint64_t *out, \
            Py_ssize_t size, Py_ssize_t *done) { \
        return fibnim_unpack_lanes(data, bits, position, out, size, done, fibnim_long_values4, \
                                   lane); \
    }
FIBNIM_UNPACK(vbmi2, fibnim_unpack_lane_vbmi2)
FIBNIM_UNPACK(avx2, fibnim_unpack_lane_avx2)
FIBNIM_UNPACK(avx512, fibnim_unpack_lane_avx512)
/* VBMI2 came after IFMA (Cannon Lake has IFMA only) */
static int fibnim_unpack_avx512ifma(const uint8_t *data, uint64_t bits, uint64_t *position,
                                    uint64_t *out, Py_ssize_t size, Py_ssize_t *done) {
    return (__builtin_cpu_supports("avx512vbmi2") ? fibnim_unpack_vbmi2 : fibnim_unpack_avx512)(
        data, bits, position, out, size, done);
}

/* coding.h's count for the scalar path where the processor has popcnt (nearly
   every x86-64 one; the baseline of the build may not assume it): the count
   is mostly popcounts, and the portable one took twice as long */
__attribute__((target("popcnt"))) static uint64_t fibnim_count_codewords_popcnt(
        const uint8_t *data, uint64_t bits) {
    return fibnim_count_from(data, bits, 0, 0);
}

/* every processor with AVX2 has lzcnt: no branch for a zero, no wait for
   bsr's old destination */
#define FIBNIM_LZCNT(x) _lzcnt_u64(x)
__attribute__((target("lzcnt,bmi2"))) static Py_ssize_t fibnim_fib_is_p_lanes_lzcnt(
        const uint64_t *n, const uint64_t *r, uint8_t *out, Py_ssize_t count, uint64_t limit,
        const uint64_t *rows, int *any_unsure) {
    FIBNIM_FIB_IS_P_LANES(FIBNIM_LZCNT)
}

#define FIBNIM_PATH_TABLE(suffix, needs, encode) { #suffix, needs, \
    fibnim_is_safe8_##suffix, fibnim_pair8_##suffix, fibnim_is_lower8_##suffix, \
    fibnim_winning_move8_##suffix, fibnim_classify_wythoff8_##suffix, \
    fibnim_power_pairs8_##suffix, fibnim_decode8_##suffix, encode, fibnim_fib_is_p8_##suffix, \
    fibnim_fib_two_pile8_##suffix, fibnim_count_codewords4, fibnim_unpack_##suffix }
#endif

#if defined(__GNUC__) && defined(__aarch64__) && !defined(FIBNIM_NO_SIMD)
#define FIBNIM_ARM_PATHS 1
#include "simd_neon.h"
#include "coding_lanes.h"

/* coding.h's unpack with the neon lane (long codewords summed in the walk) */
static int fibnim_unpack_neon(const uint8_t *data, uint64_t bits, uint64_t *position,
                              uint64_t *out, Py_ssize_t size, Py_ssize_t *done) {
    return fibnim_unpack_lanes(data, bits, position, out, size, done, NULL,
                               fibnim_unpack_lane_neon);
}
#endif

/* Two-pile power-of-two Nim in portable C, a row at a time, each value read
   once and checked before it is used: the scalar path's kernel, for every
   processor (where the general loop of piles_loop, for k piles of any
   stride, took 2.0 ns a row against 1.4 on an AMD EPYC). */
static Py_ssize_t fibnim_power_pairs_portable(
        const uint64_t *piles, const uint64_t *r, uint8_t *out, Py_ssize_t n, uint64_t limit) {
    Py_ssize_t i = 0;
    for (; i < n; i++) {
        uint64_t first = piles[2 * i], second = piles[2 * i + 1], bound = r[i];
        if ((first > limit) | (second > limit) | (bound > limit)) break;
        uint64_t x = first ^ second;
        out[i] = (uint8_t)((x == 0) | ((x & (0 - x)) > bound));
    }
    return i;
}

static uint64_t fibnim_count_codewords_scalar(const uint8_t *data, uint64_t bits) {
#ifdef FIBNIM_X86_PATHS
    if (__builtin_cpu_supports("popcnt")) return fibnim_count_codewords_popcnt(data, bits);
#endif
    return fibnim_count_codewords_portable(data, bits);
}

/* best first; the last, scalar, runs anywhere */
static const fibnim_path fibnim_paths[] = {
#ifdef FIBNIM_X86_PATHS
    FIBNIM_PATH_TABLE(avx512ifma, FIBNIM_NEEDS_AVX2 | FIBNIM_NEEDS_AVX512 | FIBNIM_NEEDS_IFMA,
                      fibnim_encode8_avx512ifma),
    FIBNIM_PATH_TABLE(avx512, FIBNIM_NEEDS_AVX2 | FIBNIM_NEEDS_AVX512, NULL),
    { "avx2", FIBNIM_NEEDS_AVX2, fibnim_is_safe4, fibnim_pair4, fibnim_is_lower4,
      fibnim_winning_move4, fibnim_classify_wythoff4, fibnim_power_pairs4, fibnim_decode4, NULL,
      fibnim_fib_is_p_lanes_lzcnt, fibnim_fib_two_pile4, fibnim_count_codewords4,
      fibnim_unpack_avx2 },
#endif
#ifdef FIBNIM_ARM_PATHS
    { "neon", 0, fibnim_is_safe_neon, fibnim_pair_neon, fibnim_is_lower_neon,
      fibnim_winning_move_neon, fibnim_classify_wythoff_neon, fibnim_power_pairs_neon,
      fibnim_decode_neon, NULL, fibnim_fib_is_p_neon, NULL,
      fibnim_count_codewords_neon, fibnim_unpack_neon },
#endif
    { "scalar", 0, NULL, NULL, NULL, NULL, NULL, fibnim_power_pairs_portable, NULL, NULL,
      fibnim_fib_is_p_lanes, NULL, fibnim_count_codewords_scalar, fibnim_unpack_portable },
};
enum { FIBNIM_PATH_COUNT = sizeof(fibnim_paths) / sizeof(fibnim_paths[0]) };

/* What this processor has of what the paths need (the operating system must
   save the wider registers too, which __builtin_cpu_supports checks). */
static int fibnim_processor(void) {
    int has = 0;
#ifdef FIBNIM_X86_PATHS
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")
            && __builtin_cpu_supports("fma"))
        has |= FIBNIM_NEEDS_AVX2;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
            && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
            && __builtin_cpu_supports("avx512cd"))
        has |= FIBNIM_NEEDS_AVX512;
    if (__builtin_cpu_supports("avx512ifma"))
        has |= FIBNIM_NEEDS_IFMA;
#endif
    return has;
}

static int fibnim_path_supported(int i) {
    return (fibnim_paths[i].needs & ~fibnim_processor()) == 0;
}

/* the path in use; a kernel reads it once per call */
static const fibnim_path *fibnim_current = &fibnim_paths[FIBNIM_PATH_COUNT - 1];

#if defined(__GNUC__)
/* one pointer, read and replaced whole while other threads run kernels */
static const fibnim_path *fibnim_current_path(void) {
    return __atomic_load_n(&fibnim_current, __ATOMIC_RELAXED);
}
static void fibnim_use_path(int i) {
    __atomic_store_n(&fibnim_current, &fibnim_paths[i], __ATOMIC_RELAXED);
}
#else  /* MSVC: aligned pointer loads and stores are whole on x86-64 and ARM64 */
static const fibnim_path *fibnim_current_path(void) { return *(const fibnim_path *volatile *)&fibnim_current; }
static void fibnim_use_path(int i) { *(const fibnim_path *volatile *)&fibnim_current = &fibnim_paths[i]; }
#endif

#endif
