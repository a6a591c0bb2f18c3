/* Scalar helpers of fibnim's compiled core: bit tricks, the 64 x 64 -> 128-bit
   multiply, fixed-point constants and the tables every kernel reads (filled
   once, at import, by fill_tables in _scalar.pxd). */
#ifndef FIBNIM_SCALAR_H
#define FIBNIM_SCALAR_H
#include <stdint.h>
#include <string.h>
#if defined(_MSC_VER)
#include <intrin.h>
static __inline int fibnim_ctz64(uint64_t x) {
    unsigned long i; _BitScanForward64(&i, x); return (int)i;
}
static __inline int fibnim_bit_length(uint64_t x) {
    unsigned long i; return _BitScanReverse64(&i, x) ? (int)i + 1 : 0;
}
#elif defined(__x86_64__) && !defined(__LZCNT__)
#define fibnim_ctz64(x) __builtin_ctzll(x)
/* bsr, which __builtin_clzll becomes, keeps its destination for a zero input,
   so it waits for that register's last writer: in a loop, often the previous
   iteration's end, which made is_p's loop one chain (7.5 ns against 3.1 ns
   per element). Zeroing the register first cuts the chain. */
static inline int fibnim_bit_length(uint64_t x) {
    uint64_t i;
    __asm__("xorl %k0, %k0\n\tbsrq %1, %0" : "=&r"(i) : "rm"(x) : "cc");
    return x ? (int)i + 1 : 0;
}
#else
#define fibnim_ctz64(x) __builtin_ctzll(x)
#define fibnim_bit_length(x) ((x) ? 64 - __builtin_clzll(x) : 0)
#endif

#if defined(_MSC_VER)
#define FIBNIM_INLINE static __inline
#define FIBNIM_ALWAYS_INLINE static __forceinline
#else
#define FIBNIM_INLINE static inline
/* for a body that each implementation compiles with its own target: called,
   it would run its generic copy */
#define FIBNIM_ALWAYS_INLINE static inline __attribute__((always_inline))
#endif

/* The 128-bit product a * b: the high half returned, the low one in *low.
   FIBNIM_PORTABLE_MUL forces the 32-bit-limb version that every C compiler
   takes (the tests build with it too). */
#if !defined(FIBNIM_PORTABLE_MUL) && defined(__SIZEOF_INT128__)
FIBNIM_INLINE uint64_t fibnim_mul128(uint64_t a, uint64_t b, uint64_t *low) {
    unsigned __int128 p = (unsigned __int128)a * b;
    *low = (uint64_t)p;
    return (uint64_t)(p >> 64);
}
#elif !defined(FIBNIM_PORTABLE_MUL) && defined(_MSC_VER) && defined(_M_X64)
FIBNIM_INLINE uint64_t fibnim_mul128(uint64_t a, uint64_t b, uint64_t *low) {
    uint64_t high;
    *low = _umul128(a, b, &high);
    return high;
}
#elif !defined(FIBNIM_PORTABLE_MUL) && defined(_MSC_VER) && defined(_M_ARM64)
FIBNIM_INLINE uint64_t fibnim_mul128(uint64_t a, uint64_t b, uint64_t *low) {
    *low = a * b;
    return __umulh(a, b);
}
#else
FIBNIM_INLINE uint64_t fibnim_mul128(uint64_t a, uint64_t b, uint64_t *low) {
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t middle = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;  /* < 3 * 2**32 */
    *low = (middle << 32) | (uint32_t)p00;
    return p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
}
#endif

/* Fibonacci coding's bit streams are big-endian (the first bit is bit 7 of
   byte 0): 8 bytes as one big-endian word, a word stored so, and a word's bits
   in reverse order (a code's bit 0, F_2, is the stream's first). */
#if defined(_MSC_VER)
#define fibnim_bswap64(x) _byteswap_uint64(x)
/* __popcnt64 is an instruction that older processors lack: count by halves */
FIBNIM_INLINE int fibnim_popcount64(uint64_t x) {
    x -= (x >> 1) & UINT64_C(0x5555555555555555);
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
}
#else
#define fibnim_bswap64(x) __builtin_bswap64(x)
#define fibnim_popcount64(x) __builtin_popcountll(x)
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define FIBNIM_TO_BE64(x) (x)
#else
#define FIBNIM_TO_BE64(x) fibnim_bswap64(x)
#endif
FIBNIM_INLINE uint64_t fibnim_load_be64(const uint8_t *p) {
    uint64_t x;
    memcpy(&x, p, 8);
    return FIBNIM_TO_BE64(x);
}
FIBNIM_INLINE void fibnim_store_be64(uint8_t *p, uint64_t x) {
    x = FIBNIM_TO_BE64(x);
    memcpy(p, &x, 8);
}
FIBNIM_INLINE uint64_t fibnim_reverse64(uint64_t x) {
    x = fibnim_bswap64(x);
    x = ((x >> 4) & UINT64_C(0x0F0F0F0F0F0F0F0F)) | ((x & UINT64_C(0x0F0F0F0F0F0F0F0F)) << 4);
    x = ((x >> 2) & UINT64_C(0x3333333333333333)) | ((x & UINT64_C(0x3333333333333333)) << 2);
    return ((x >> 1) & UINT64_C(0x5555555555555555)) | ((x & UINT64_C(0x5555555555555555)) << 1);
}

/* phi - 1 = 1/phi in 128-bit fixed point: floor((phi - 1) * 2**128). */
#define FIBNIM_PHI_HI UINT64_C(0x9e3779b97f4a7c15)
#define FIBNIM_PHI_LO UINT64_C(0xf39cc0605cedc834)

/* Fixed-point constants of encode: c_j = floor(2**(40 + a_j) / phi**j) for
   (j, a_j) = (44, 23), (22, 8), and rho = floor(0.45 * 2**40). */
#define FIBNIM_C44 UINT64_C(5880761355)
#define FIBNIM_C22 UINT64_C(7107415521)
#define FIBNIM_RHO UINT64_C(494780232499)
/* encode_wide's top block: floor(2**96 / phi**48) and floor(0.45 * 2**32). */
#define FIBNIM_C48_WIDE UINT64_C(7370091025956032422)
#define FIBNIM_RHO_WIDE UINT64_C(1932735283)
#define FIBNIM_EVEN_BITS UINT64_C(0x5555555555555555)
/* The vector encode's block estimates (simd_avx512.h, with IFMA): the code
   bits from j up of n < F_{j+18} are those of m = t or t - 1, where
   t = (FIBNIM_ENCODE_RHO + (n c_j >> 52)) >> 11 with c_j = floor(2**63 / phi**j)
   (below 2**52: one IFMA multiply) and FIBNIM_ENCODE_RHO = floor(0.45 * 2**11).
   t grows with n, so m <= t <= m + 1 holds for every n once it holds at both
   ends of each m's range of n: tests/test_zeckendorf.py checks those ends. */
#define FIBNIM_ENCODE_C48 UINT64_C(857991518)
#define FIBNIM_ENCODE_C32 UINT64_C(1893586892968)
#define FIBNIM_ENCODE_C16 UINT64_C(4179145414790062)
#define FIBNIM_ENCODE_RHO 921

/* F_0 .. F_93; F_93 is the largest Fibonacci number below 2**64. */
static uint64_t fibnim_fib[94];
/* The Zeckendorf code of m = 0 .. F_24 (the last one is 1 << 22), and the
   same bit-reversed in 32 bits (a stream's order: F_2's digit first). */
static uint32_t fibnim_code[46369];
static uint32_t fibnim_stream_code[46369];
/* S_j(m) for the block starts j = 44, m = 0 .. F_22, and j = 22,
   m = 0 .. F_24 (see encode). S_22(m) <= F_46 < 2**32. */
static uint64_t fibnim_s44[17712];
static uint32_t fibnim_s22[46369];
/* The vector encode's one table, 20 kB (the first-level cache holds it):
   entry(m) = code(m) | p(m) << 16 for m = 0 .. F_18, with p(m) the sum of
   F_{i+1} over m's code bits i, and fibnim_encode_pairs[t] = entry(t - 1) |
   entry(t) << 32 (entry(-1) = 0): one look-up gives both candidates of a
   block, S_j(m) = F_{j+1} m + F_j p(m) and the code of each. */
static uint64_t fibnim_encode_pairs[2585];
/* fibnim_byte_value[b][v]: the value of the code byte v at byte b; a code's
   value is its bytes' sum (the sum is linear in the digits). */
static uint64_t fibnim_byte_value[8][256];
/* the value of a code's bytes start .. stop - 1 */
FIBNIM_INLINE uint64_t fibnim_bytes_value(uint64_t code, int start, int stop) {
    uint64_t value = 0;
    for (int b = start; b < stop; b++) value += fibnim_byte_value[b][(code >> (8 * b)) & 0xff];
    return value;
}
/* A codeword's length, the top index k of its value (F_k <= v < F_{k+1}),
   from v's bit length b: fibnim_top_below[b] is the largest k with
   F_k <= 2**(b - 1), and v has at most two more (phi**2 > 2); the steps
   compare with fibnim_next_minus_one[k] = F_{k+1} - 1 (2**64 - 1 for k = 93,
   which no uint64 passes). */
static uint8_t fibnim_top_below[65];
static uint64_t fibnim_next_minus_one[94];
/* fibnim_stream_value[b][v]: the value of the stream byte v at byte b of a
   codeword (its bit 7 first: F_{8b+2} .. F_{8b+9}); digits past F_93 count 0. */
static uint64_t fibnim_stream_value[12][256];

/* Fills the tables above, once, before any kernel runs (fibnim's import, or
   a C program of the kernels: tools/kernel_harness.c). */
static void fibnim_fill_tables(void) {
    int k, b, v, bit;
    uint32_t i;
    fibnim_fib[0] = 0;
    fibnim_fib[1] = 1;
    for (k = 2; k < 94; k++) fibnim_fib[k] = fibnim_fib[k - 1] + fibnim_fib[k - 2];
    for (i = 0; i <= 46368; i++) {
        uint64_t rest = i, code = 0, p = 0;  /* p(m): the sum of F_{i+1} over m's code bits i */
        k = 25;
        while (rest) {  /* greedy: the largest Fibonacci number that fits, repeatedly */
            while (fibnim_fib[k] > rest) k--;
            code |= (uint64_t)1 << (k - 2);
            p += fibnim_fib[k - 1];
            rest -= fibnim_fib[k];
            k -= 2;
        }
        fibnim_code[i] = (uint32_t)code;
        fibnim_stream_code[i] = (uint32_t)(fibnim_reverse64(code) >> 32);
        /* S_j(m) = F_{j+1} m + F_j p(m), from F_{i+2+j} = F_{j+1} F_{i+2} + F_j F_{i+1} */
        if (i <= 17711) fibnim_s44[i] = fibnim_fib[45] * i + fibnim_fib[44] * p;
        fibnim_s22[i] = (uint32_t)(fibnim_fib[23] * i + fibnim_fib[22] * p);
        if (i <= 2584) {
            fibnim_encode_pairs[i] = (code | p << 16) << 32;
            if (i) fibnim_encode_pairs[i] |= fibnim_encode_pairs[i - 1] >> 32;
        }
    }
    for (b = 0; b < 8; b++)
        for (v = 0; v < 256; v++) {
            uint64_t value = 0;
            for (bit = 0; bit < 8; bit++)
                if ((v >> bit) & 1) value += fibnim_fib[8 * b + bit + 2];
            fibnim_byte_value[b][v] = value;
        }
    for (k = 2; k < 94; k++)
        fibnim_next_minus_one[k] = k < 93 ? fibnim_fib[k + 1] - 1 : ~(uint64_t)0;
    k = 2;
    for (b = 1; b < 65; b++) {
        while (k < 93 && fibnim_fib[k + 1] <= (uint64_t)1 << (b - 1)) k++;
        fibnim_top_below[b] = (uint8_t)k;
    }
    for (b = 0; b < 12; b++)
        for (v = 0; v < 256; v++) {
            uint64_t value = 0;
            for (bit = 0; bit < 8; bit++)
                if (((v >> (7 - bit)) & 1) && 8 * b + bit + 2 <= 93)
                    value += fibnim_fib[8 * b + bit + 2];
            fibnim_stream_value[b][v] = value;
        }
}

#endif
