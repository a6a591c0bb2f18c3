/* The CSV scans of fibnim_c/text.pxi: where the next byte that a record's
   shape depends on (a quote, LF or CR) lies. Most bytes of a text are none of
   them, so they are passed over eight at a time: a byte equal to c is a zero
   byte of word ^ c, marked exactly (no borrow crosses bytes) by the test
   below; the first byte in memory is the lowest marked one on a little-endian
   machine, the highest on a big-endian one. */
#ifndef FIBNIM_TEXT_H
#define FIBNIM_TEXT_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "scalar.h"

#define FIBNIM_ONES 0x0101010101010101ULL
#define FIBNIM_LOWS 0x7f7f7f7f7f7f7f7fULL

/* the high bit of each zero byte of word, and no other bit */
FIBNIM_INLINE uint64_t fibnim_zero_bytes(uint64_t word) {
    return ~(((word & FIBNIM_LOWS) + FIBNIM_LOWS) | word | FIBNIM_LOWS);
}

FIBNIM_INLINE int fibnim_is_special(uint8_t byte) {
    return byte == 34 || byte == 10 || byte == 13;
}

/* the index of the first quote, LF or CR in data[i:size], or size */
FIBNIM_INLINE ptrdiff_t fibnim_next_special(const uint8_t* data, ptrdiff_t i, ptrdiff_t size) {
    uint64_t word, marks;
    for (; i + 8 <= size; i += 8) {
        memcpy(&word, data + i, 8);
        marks = fibnim_zero_bytes(word ^ (34 * FIBNIM_ONES))
              | fibnim_zero_bytes(word ^ (10 * FIBNIM_ONES))
              | fibnim_zero_bytes(word ^ (13 * FIBNIM_ONES));
        if (marks) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            return i + ((64 - fibnim_bit_length(marks)) >> 3);
#else
            return i + (fibnim_ctz64(marks) >> 3);
#endif
        }
    }
    while (i < size && !fibnim_is_special(data[i]))
        i++;
    return i;
}
#endif
