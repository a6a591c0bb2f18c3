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

/* The number of codewords that end within the first `bits` bits of data,
   from its 64-bit word k on, given the carry into that word. */
FIBNIM_INLINE uint64_t fibnim_count_from(const uint8_t *data, uint64_t bits, uint64_t k,
                                         uint64_t carry) {
    uint64_t count = 0, words = bits >> 6;
    for (; k < words; k++)
        count += fibnim_word_pairs(fibnim_load_be64(data + 8 * k), &carry);
    if (bits & 63) {
        uint64_t last = 0, tail = bits & 63;
        for (uint64_t i = 0; i < (tail + 7) >> 3; i++)
            last |= (uint64_t)data[8 * words + i] << (56 - 8 * i);
        count += fibnim_word_pairs(last & ~(~(uint64_t)0 >> tail), &carry);
    }
    return count;
}

/* the scalar path's (with popcnt where there is one, simd.h); the x86-64
   vector paths count four words at a time (simd_avx2.h) */
static uint64_t fibnim_count_codewords_portable(const uint8_t *data, uint64_t bits) {
    return fibnim_count_from(data, bits, 0, 0);
}

/* Decoding (unpack). A codeword of n >= 1 is its Zeckendorf digits from F_2 up
   to its top term, then a 1: the digits never hold "11", so a codeword ends
   at its first "11". */
enum { FIBNIM_CODEWORD_MAX = 93,  /* F_93 < 2**64 <= F_94: no codeword of a uint64 is longer */
       FIBNIM_WINDOW = 56 };      /* codeword bits per window: 7 bytes of digits */
/* why unpack stopped */
enum { FIBNIM_STREAM_DONE = 0,       /* out is full, or no codeword begins before the end */
       FIBNIM_STREAM_CUT = 1,        /* bits left at the end but no whole codeword in them */
       FIBNIM_STREAM_TOO_LARGE = 2 };  /* a codeword worth more than 2**64 - 1 */

/* The value of a code of at most 56 digits; most codewords have 16 or fewer,
   and two bytes' values make theirs. */
FIBNIM_INLINE uint64_t fibnim_short_value(uint64_t code, int digits) {
    uint64_t value = fibnim_bytes_value(code, 0, 2);
    if (digits > 16)  /* a branch that the data decide alike, value after value */
        value += fibnim_bytes_value(code, 2, 7);
    return value;
}

/* A codeword longer than a window, as two words of its digits in stream
   order (the first digit at bit 63 of head, digits 64 on in tail): the top
   56 bits of window `first`, then window `second` (read 56 bits on), kept to
   `digits` (56 .. 92) in all. */
FIBNIM_INLINE void fibnim_long_digits(uint64_t first, uint64_t second, int digits,
                                      uint64_t *head, uint64_t *tail) {
    int in_head = digits < 64 ? digits : 64;
    *head = ((first & ~(uint64_t)0xff) | (second >> 56)) & ~((~(uint64_t)0 >> 1) >> (in_head - 1));
    *tail = (second << 8) & ~(~(uint64_t)0 >> (digits - in_head));
}

/* The value of a long codeword's digits (fibnim_long_digits): byte values
   add up, as the sum is linear in the digits. Only a 92-digit codeword (its
   last digit, F_93's, at bit 36 of tail) can be worth 2**64 or more. Its
   sum is F_93 > 2**63 or more where it does not wrap, and below
   F_94 - 2**64 < 2**61 where it does: fibnim_wrapped tells by the top bit
   (a comparison became a branch, a coin toss on uniform values). */
FIBNIM_INLINE uint64_t fibnim_long_value(uint64_t head, uint64_t tail) {
    uint64_t value = 0;
    for (int b = 0; b < 8; b++) value += fibnim_stream_value[b][(head >> (56 - 8 * b)) & 0xff];
    for (int b = 0; b < 4; b++) value += fibnim_stream_value[8 + b][(tail >> (56 - 8 * b)) & 0xff];
    return value;
}
FIBNIM_INLINE int fibnim_wrapped(uint64_t tail, uint64_t value) {
    return (int)((tail >> 36) & ~(value >> 63) & 1);
}

/* Where the implementation has vectors, long codewords are decoded a batch
   at a time (their sums by fibnim_long_values4 of simd_avx2.h, which writes
   value[k] for k < n rounded up to 4), apart from the walk along the stream.
   (The scalar implementation's batch of table sums took 30 % longer than
   its sums in the walk.) */
enum { FIBNIM_BATCH = 16 };
typedef void (*fibnim_long_values_fn)(const uint64_t *head, const uint64_t *tail, uint64_t *value,
                                      int n);
typedef struct {
    uint64_t head[FIBNIM_BATCH], tail[FIBNIM_BATCH];  /* whole: the vectors read every lane */
    uint64_t start[FIBNIM_BATCH];                     /* each codeword's bit offset */
    Py_ssize_t slot[FIBNIM_BATCH];                    /* and its index in out */
    int n, bad;                                       /* bad: the first too large, or -1 */
} fibnim_long_batch;

/* The batch's values into out, up to the first too large (then batch->bad
   names it, and 1 is returned); the batch is empty after. */
FIBNIM_ALWAYS_INLINE int fibnim_flush_long(fibnim_long_batch *batch, fibnim_long_values_fn values,
                                           uint64_t *out) {
    uint64_t value[FIBNIM_BATCH];
    int n = batch->n;
    batch->n = 0;
    uint64_t too_large = 0;  /* by a bit each */
    values(batch->head, batch->tail, value, n);
    for (int k = 0; k < n; k++)
        too_large |= (uint64_t)fibnim_wrapped(batch->tail[k], value[k]) << k;
    if (too_large) n = fibnim_ctz64(too_large);
    for (int k = 0; k < n; k++) out[batch->slot[k]] = value[k];
    if (too_large) batch->bad = n;
    return too_large != 0;
}

/* Decode codewords of the stream (its first `bits` bits) from bit *position
   into out (or only count them where out is NULL), at most size; *position
   ends after the last whole one, *done counts them. Returns why it stopped.

   The stream is read a window of 56 bits at a time from where a codeword
   starts, and the window's closing bits found at once (fibnim_closing_bits):
   each codeword's place waits on clearing a bit, not on the codeword
   before, and the next window on the highest closing bit, not on values. A
   codeword longer than a window takes two, and its value is made in a
   batch (fibnim_long_batch). */
FIBNIM_ALWAYS_INLINE int fibnim_unpack_body(const uint8_t *data, uint64_t bits, uint64_t *position,
                                            uint64_t *out, Py_ssize_t size, Py_ssize_t *done,
                                            fibnim_long_values_fn long_values) {
    const uint64_t top_bits = ~(~(uint64_t)0 >> (FIBNIM_WINDOW - 1));
    uint64_t p = *position;
    Py_ssize_t i = 0;
    int stop = FIBNIM_STREAM_DONE;
    fibnim_long_batch batch = {{0}, {0}, {0}, {0}, 0, -1};
    while (i < size && p < bits) {
        uint64_t first = fibnim_stream_window(data, bits, p);
        if (first & (first << 1) & top_bits) {  /* a "11" in the window */
            uint64_t window = fibnim_reverse64(first) & ((UINT64_C(1) << FIBNIM_WINDOW) - 1);
            uint64_t closing = fibnim_closing_bits(window);
            int whole = fibnim_bit_length(closing), start = 0;  /* known early */
            for (;;) {
                int end = fibnim_ctz64(closing);  /* the codeword's closing 1 */
                if (out)
                    out[i] = fibnim_short_value((window >> start) & ((UINT64_C(1) << (end - start)) - 1),
                                                end - start);
                i++;
                start = end + 1;
                closing &= closing - 1;
                if (!closing || i == size) break;
            }
            p += closing ? (uint64_t)start : (uint64_t)whole;
            continue;
        }
        /* no "11" in a whole window: a codeword of 57 bits or more. The next
           window, far from the end, is 8 bytes on from this one's 7th. */
        uint64_t second = p + 2 * 64 <= bits
                              ? fibnim_load_be64(data + (p >> 3) + FIBNIM_WINDOW / 8) << (p & 7)
                              : fibnim_stream_window(data, bits, p + FIBNIM_WINDOW);
        uint64_t pairs = second & (second << 1) & top_bits;
        int length;
        if ((first >> 8) & (second >> 63) & 1)  /* the pair across the windows */
            length = FIBNIM_WINDOW + 1;
        else if (pairs)
            length = FIBNIM_WINDOW + 66 - fibnim_bit_length(pairs);
        else
            length = FIBNIM_CODEWORD_MAX + 1;  /* no "11" in 112 bits */
        if (length > FIBNIM_CODEWORD_MAX) {
            stop = bits - p <= FIBNIM_CODEWORD_MAX ? FIBNIM_STREAM_CUT : FIBNIM_STREAM_TOO_LARGE;
            break;
        }
        if (out && long_values) {
            int k = batch.n++;
            fibnim_long_digits(first, second, length - 1, &batch.head[k], &batch.tail[k]);
            batch.start[k] = p;
            batch.slot[k] = i;
            if (batch.n == FIBNIM_BATCH && fibnim_flush_long(&batch, long_values, out)) break;
        } else if (out) {
            uint64_t head, tail;
            fibnim_long_digits(first, second, length - 1, &head, &tail);
            uint64_t value = fibnim_long_value(head, tail);
            if (fibnim_wrapped(tail, value)) {
                stop = FIBNIM_STREAM_TOO_LARGE;
                break;
            }
            out[i] = value;
        }
        p += (uint64_t)length;
        i++;
    }
    if (batch.n) fibnim_flush_long(&batch, long_values, out);
    if (batch.bad >= 0) {  /* before where the walk stopped */
        stop = FIBNIM_STREAM_TOO_LARGE;
        p = batch.start[batch.bad];
        i = batch.slot[batch.bad];
    }
    *position = p;
    *done = i;
    return stop;
}

/* A fast lane that a path may have (coding_lanes.h): it decodes from bit
   *position, a codeword's start, as far as it can into out (at most size
   values), stops at a codeword's start, and returns how many it decoded. It
   leaves the rest to the walk above: long codewords, the stream's end (the
   lane reads whole blocks of 512 bits) and its errors. */
typedef Py_ssize_t (*fibnim_unpack_lane_fn)(const uint8_t *data, uint64_t bits,
                                           uint64_t *position, uint64_t *out, Py_ssize_t size);
enum { FIBNIM_LANE_BITS = 512,      /* what the lane reads at a time */
       FIBNIM_LANE_FEW = 64,        /* a lane's run this short was not worth its start: */
       FIBNIM_LANE_WAIT = 4096 };   /* the walk goes on for 64 values, twice as many after
                                       each such run in a row, at most this many */

/* fibnim_unpack_body with a lane: the lane as far as it goes, the walk for a
   while where it stops (the walk's own loop is left as it is: the lane inside
   it cost the long codewords' decoding 7 %) */
FIBNIM_ALWAYS_INLINE int fibnim_unpack_lanes(const uint8_t *data, uint64_t bits, uint64_t *position,
                                             uint64_t *out, Py_ssize_t size, Py_ssize_t *done,
                                             fibnim_long_values_fn long_values,
                                             fibnim_unpack_lane_fn lane) {
    uint64_t p = *position;
    Py_ssize_t i = 0, wait = FIBNIM_LANE_FEW;
    for (;;) {
        Py_ssize_t stint = size - i, walked = 0;  /* what the walk may do this time */
        if (out && i < size && p + 2 * FIBNIM_LANE_BITS <= bits) {
            Py_ssize_t got = lane(data, bits, &p, out + i, size - i);
            i += got;
            if (got >= FIBNIM_LANE_FEW) {
                wait = FIBNIM_LANE_FEW;
                continue;
            }
            stint = size - i < wait ? size - i : wait;
            wait = wait < FIBNIM_LANE_WAIT ? 2 * wait : wait;
        }
        int stop = fibnim_unpack_body(data, bits, &p, out ? out + i : NULL, stint, &walked,
                                      long_values);
        i += walked;
        if (stop != FIBNIM_STREAM_DONE || walked < stint || i == size) {
            *position = p;
            *done = i;
            return stop;
        }
    }
}

/* the scalar path's; the x86-64 paths have them with BMI2, LZCNT and
   POPCNT (simd.h) */
static int fibnim_unpack_portable(const uint8_t *data, uint64_t bits, uint64_t *position,
                                  uint64_t *out, Py_ssize_t size, Py_ssize_t *done) {
    return fibnim_unpack_body(data, bits, position, out, size, done, NULL);
}

#endif
