/* Fibonacci coding's bit streams (fibnim_c/coding.pxi): reading 56 bits at
   any position, and appending codewords a 64-bit word at a time. */
#ifndef FIBNIM_CODING_H
#define FIBNIM_CODING_H
#include "scalar.h"

/* The 56 bits of data at stream positions p .. p + 55 in the top bits of a
   word (the first at bit 63), zero past the end (bits = the stream's
   length in bits); never a read past the buffer. */
FIBNIM_INLINE uint64_t fibnim_stream_window(const uint8_t *data, uint64_t bits, uint64_t p) {
    uint64_t byte = p >> 3, bytes = (bits + 7) >> 3, word = 0;
    if (p >= bits) return 0;
    if (byte + 8 <= bytes) {
        word = fibnim_load_be64(data + byte);
    } else {
        for (int i = 0; i < 8; i++)
            word = (word << 8) | (byte + i < bytes ? data[byte + i] : 0);
    }
    word = (word << (p & 7)) & ~(uint64_t)0xFF;
    if (bits - p < 56) word &= ~(~(uint64_t)0 >> (bits - p));
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

#endif
