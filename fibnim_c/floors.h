/* The bytes floor of a kernel, for the benchmark: one pass that reads as many
 * words per element as the kernel reads and writes as many bytes per element as
 * it writes, with plain stores and nothing computed but an xor. A kernel's time
 * over this one's says what its arithmetic costs beyond moving its data.
 *
 * The words are read from W arrays of n words (in[k * n + i]) and written to M
 * arrays of n words (or one of n bytes, M = 0): the same bytes as a kernel
 * that reads or writes rows, in streams that every compiler vectorizes. Each
 * (W, M) is its own loop of constant shape. */
#ifndef FIBNIM_FLOORS_H
#define FIBNIM_FLOORS_H

#include <stddef.h>
#include <stdint.h>

#define FIBNIM_FLOOR(W, M)                                                      \
    static void fibnim_floor_##W##_##M(const uint64_t *in, uint8_t *out,       \
                                       ptrdiff_t n) {                           \
        uint64_t *words = (uint64_t *)out;                                      \
        for (ptrdiff_t i = 0; i < n; i++) {                                     \
            uint64_t s = in[i];                                                 \
            for (int k = 1; k < W; k++) s ^= in[k * n + i];                     \
            if (M == 0) out[i] = (uint8_t)s;                                    \
            for (int j = 0; j < M; j++) words[j * n + i] = s + (uint64_t)j;     \
        }                                                                       \
    }

FIBNIM_FLOOR(1, 0) FIBNIM_FLOOR(1, 1) FIBNIM_FLOOR(1, 2) FIBNIM_FLOOR(1, 3)
FIBNIM_FLOOR(2, 0) FIBNIM_FLOOR(2, 1) FIBNIM_FLOOR(2, 2) FIBNIM_FLOOR(2, 3)
FIBNIM_FLOOR(3, 0) FIBNIM_FLOOR(3, 1) FIBNIM_FLOOR(3, 2) FIBNIM_FLOOR(3, 4)

/* words in (1 to 3) and bytes out (1, or 8 a word) an element: 0 when the
 * pass ran, -1 for a shape it has no loop for */
static int fibnim_bytes_floor(const uint64_t *in, int words, uint8_t *out, int bytes,
                              ptrdiff_t n) {
    int out_words = bytes == 1 ? 0 : bytes % 8 == 0 ? bytes / 8 : -1;
#define FIBNIM_CASE(W, M) \
    if (words == W && out_words == M) { fibnim_floor_##W##_##M(in, out, n); return 0; }
    FIBNIM_CASE(1, 0) FIBNIM_CASE(1, 1) FIBNIM_CASE(1, 2) FIBNIM_CASE(1, 3)
    FIBNIM_CASE(2, 0) FIBNIM_CASE(2, 1) FIBNIM_CASE(2, 2) FIBNIM_CASE(2, 3)
    FIBNIM_CASE(3, 0) FIBNIM_CASE(3, 1) FIBNIM_CASE(3, 2) FIBNIM_CASE(3, 4)
#undef FIBNIM_CASE
    return -1;
}

#endif
