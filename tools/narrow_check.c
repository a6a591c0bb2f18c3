/* The narrow paths of the Wythoff kernels (fibnim_c/simd.h, FIBNIM_NARROW and
   FIBNIM_NARROW_IFMA) against 128-bit integer arithmetic: floor(m (phi - 1))
   and the A-number test (the fraction below PHI_HI) for every m < 2**32 on
   each path this processor runs (avx2, avx512, avx512ifma), and on IFMA's
   path for 2**32 m below its width of 2**50 (every bit length, and the F_k
   +- 2**16 around each Fibonacci number, the m nearest a multiple of phi).
   simd.h proves the arithmetic exact there; the parity tests check the
   kernels at the widths' edges, and this the arithmetic itself over every m
   of the first width and a sample of the second.

   cc -O2 -I fibnim_c $(python3 -c 'import sysconfig; print("-I" +
       sysconfig.get_paths()["include"])') tools/narrow_check.c -o narrow_check
   About 90 s on one core of an Intel Xeon with AVX-512 IFMA (.ci/run runs
   it); exit 1 on any wrong answer. */
#include <Python.h>
#include <stdio.h>
#include "simd.h"

typedef struct { uint64_t floor, fraction; } golden;

static golden exact(uint64_t m) {
    unsigned __int128 sum = (unsigned __int128)m * FIBNIM_PHI_HI
        + (((unsigned __int128)m * FIBNIM_PHI_LO) >> 64);
    return (golden){ (uint64_t)(sum >> 64), (uint64_t)sum };
}

/* m = x + 1 = 1 (x = 0) is left out of the A-number test: its fraction is
   phi - 1 itself, and every kernel masks x = 0 */
static int wrong(uint64_t m, uint64_t floor, uint64_t fraction) {
    golden want = exact(m);
    return floor != want.floor
        || (m > 1 && (fraction < FIBNIM_PHI_HI) != (want.fraction < FIBNIM_PHI_HI));
}

__attribute__((target("avx2,bmi2,fma"))) static uint64_t check4(uint64_t first, uint64_t count) {
    uint64_t m[4], floor[4], fraction[4], bad = 0;
    for (uint64_t base = first; base < first + count; base += 4) {
        for (int j = 0; j < 4; j++) m[j] = base + j;
        __m256i f;
        _mm256_storeu_si256((__m256i *)floor,
                            fibnim_golden4_narrow(_mm256_loadu_si256((const __m256i *)m), &f));
        _mm256_storeu_si256((__m256i *)fraction, f);
        for (int j = 0; j < 4; j++) bad += wrong(m[j], floor[j], fraction[j]);
    }
    return bad;
}

#define CHECK8(name, path) \
    __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx512cd,avx512ifma"))) \
    static uint64_t name(const uint64_t *(*next)(uint64_t, uint64_t *), uint64_t rounds) { \
        uint64_t m[8], floor[8], fraction[8], bad = 0; \
        for (uint64_t round = 0; round < rounds; round++) { \
            next(round, m); \
            __m512i f; \
            _mm512_storeu_si512(floor, path(_mm512_loadu_si512(m), &f)); \
            _mm512_storeu_si512(fraction, f); \
            for (int j = 0; j < 8; j++) bad += wrong(m[j], floor[j], fraction[j]); \
        } \
        return bad; \
    }
CHECK8(check8, fibnim_golden8_narrow_avx512)
CHECK8(check8_ifma, fibnim_golden8_narrow_avx512ifma)

/* m = 8 round .. 8 round + 7 */
static const uint64_t *in_turn(uint64_t round, uint64_t *m) {
    for (int j = 0; j < 8; j++) m[j] = 8 * round + j;
    return m;
}

/* 2**29 rounds of random m of every bit length below 51, then F_k - 2**16 ..
   F_k + 2**16 for each F_k below 2**50 */
enum { RANDOM_ROUNDS = 1 << 29, AROUND = 1 << 14, FIBONACCIS = 74 };
static const uint64_t *wide(uint64_t round, uint64_t *m) {
    static uint64_t state = 88172645463325252ULL, fib[FIBONACCIS];
    if (!fib[1]) {
        fib[1] = 1;
        for (int k = 2; k < FIBONACCIS; k++) fib[k] = fib[k - 1] + fib[k - 2];
    }
    for (int j = 0; j < 8; j++) {
        if (round < RANDOM_ROUNDS) {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            m[j] = state >> (14 + (state & 31));
        } else {
            uint64_t r = round - RANDOM_ROUNDS, k = r / AROUND;
            m[j] = fib[k] + 8 * (r % AROUND) + j - (fib[k] > 4 * AROUND ? 4 * AROUND : fib[k]);
        }
        while (m[j] >= (1ULL << 50)) m[j] >>= 1;
    }
    return m;
}

int main(void) {
    uint64_t bad = 0;
    int has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
    int has_avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
        && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
    int has_ifma = has_avx512 && __builtin_cpu_supports("avx512ifma");
    if (has_avx2) {
        uint64_t wrong4 = check4(0, 1ULL << 32);
        printf("avx2, every m < 2**32: %llu wrong\n", (unsigned long long)wrong4);
        bad += wrong4;
    }
    if (has_avx512) {
        uint64_t wrong8 = check8(in_turn, 1ULL << 29);
        printf("avx512, every m < 2**32: %llu wrong\n", (unsigned long long)wrong8);
        bad += wrong8;
    }
    if (has_ifma) {
        uint64_t below = check8_ifma(in_turn, 1ULL << 29);
        uint64_t rounds = RANDOM_ROUNDS + (uint64_t)FIBONACCIS * AROUND;
        uint64_t above = check8_ifma(wide, rounds);
        printf("avx512ifma, every m < 2**32: %llu wrong; %llu m below 2**50: %llu wrong\n",
               (unsigned long long)below, (unsigned long long)(8 * rounds),
               (unsigned long long)above);
        bad += below + above;
    }
    if (!has_avx2)
        printf("this processor runs none of the narrow paths: nothing checked\n");
    return bad != 0;
}
