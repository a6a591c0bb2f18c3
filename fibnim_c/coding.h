/* Fibonacci coding's bit streams (fibnim_c/coding.pxi): reading a window of
   them at any position, appending codewords a 64-bit word at a time, and
   counting the codewords of a stream without decoding them. */
#ifndef FIBNIM_CODING_H
#define FIBNIM_CODING_H
#include "scalar.h"

/* The stream's bits from position p on, the first at bit 63: at least 57 of
   them (64 less p's place in its byte), zero past the stream's end (bits);
   never a read past the buffer. fibnim_reverse64 of it has the first at bit
   0, where a codeword's digits read as a Zeckendorf code (F_2's at bit 0). */
FIBNIM_INLINE uint64_t fibnim_stream_window(const uint8_t *data, uint64_t bits, uint64_t p) {
    uint64_t byte = p >> 3, bytes = (bits + 7) >> 3, word = 0;
    if (p >= bits) return 0;
    if (byte + 8 <= bytes) {
        word = fibnim_load_be64(data + byte);
    } else {
        for (int i = 0; i < 8; i++)
            word = (word << 8) | (byte + i < bytes ? data[byte + i] : 0);
    }
    word <<= p & 7;
    if (bits - p < 64) word &= ~(~(uint64_t)0 >> (bits - p));
    return word;
}

/* Appends bits to a stream a 64-bit word at a time: `out` is the word being
   filled (its bits so far in `acc`, `used` of them). put stores that word
   every time, and moves on when it is full, with the bits that passed its
   end in acc (the caller stores those last): no branch on where a
   codeword ends. The stream's buffer holds whole words past its last bit. */
typedef struct { uint8_t *out; uint64_t acc; int used; } fibnim_writer;
FIBNIM_INLINE void fibnim_put(fibnim_writer *w, uint64_t word, int length) {
    /* word: `length` bits (1 .. 64), left-aligned, zero below them */
    uint64_t full = (uint64_t)((w->used + length) >> 6);
    uint64_t rest = (word << 1) << (63 - w->used);  /* what passes the word's end */
    w->acc |= word >> w->used;
    fibnim_store_be64(w->out, w->acc);
    w->out += full * 8;
    w->acc = full ? rest : w->acc;
    w->used = (w->used + length) & 63;
}

/* The codewords of a stream are its "11" pairs taken greedily from the first
   bit: a codeword ends at the first "11" after its start, and a run of L
   ones holds L / 2 (rounded down) of them, wherever the codewords fall in it.

   fibnim_closing_bits: the second bit of each pair of w, the pairs taken in
   each run of ones from its lowest bit b up: b + 1, b + 3, ... Adding each
   run's lowest bit carries through the run and clears it, so adding only the
   lowest bits at even positions clears exactly the runs whose b is even:
   their pairs close at odd positions, the other runs' at even ones. No walk
   over the bits, no table. */
#define FIBNIM_EVEN_POSITIONS UINT64_C(0x5555555555555555)

FIBNIM_INLINE uint64_t fibnim_closing_bits(uint64_t w) {
    uint64_t lows = w & ~(w << 1);
    uint64_t even_low = w & ~(w + (lows & FIBNIM_EVEN_POSITIONS));  /* runs with b even */
    return w & (even_low ^ FIBNIM_EVEN_POSITIONS);
}

/* Counting: a 64-bit word of the stream (its first bit at bit 63) is counted
   as runs of its own, the run at its top lengthened by one where the word
   before ended in a 1 left over from its pairs (`carry`). How many pairs a
   run holds does not depend on the end they are taken from. */
FIBNIM_INLINE uint64_t fibnim_word_pairs(uint64_t w, uint64_t *carry) {
    uint64_t closing = fibnim_closing_bits(w);
    uint64_t pairs = (uint64_t)fibnim_popcount64(closing);
    pairs += *carry & ((w & ~closing) >> 63);  /* the top run is odd: the carry pairs */
    /* the bottom run (bit 0 set) of odd length L: w + 1 has its lowest new bit at L */
    uint64_t left_over = ((w + 1) & ~w & ~FIBNIM_EVEN_POSITIONS) != 0;
    *carry = w == ~(uint64_t)0 ? *carry : left_over;  /* a word of ones pairs up whole */
    return pairs;
}

/* The number of codewords that end within the first `bits` bits of data. */
FIBNIM_INLINE uint64_t fibnim_count_body(const uint8_t *data, uint64_t bits) {
    uint64_t count = 0, carry = 0, words = bits >> 6, k;
    for (k = 0; k < words; k++)
        count += fibnim_word_pairs(fibnim_load_be64(data + 8 * k), &carry);
    if (bits & 63) {
        uint64_t last = 0, tail = bits & 63;
        for (uint64_t i = 0; i < (tail + 7) >> 3; i++)
            last |= (uint64_t)data[8 * words + i] << (56 - 8 * i);
        count += fibnim_word_pairs(last & ~(~(uint64_t)0 >> tail), &carry);
    }
    return count;
}

/* the scalar path's; the x86-64 paths have it with popcnt (simd.h) */
static uint64_t fibnim_count_codewords_portable(const uint8_t *data, uint64_t bits) {
    return fibnim_count_body(data, bits);
}

#endif
