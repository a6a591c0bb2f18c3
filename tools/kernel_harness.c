/* fibnim's C kernels with no Python: fibnim_c's headers, as the build
   includes them, checked against cases written by the pure twin
   (tools/kernel_harness.py writes them and runs this on each C model:
   native, Windows' LLP64 under wine, big-endian s390x under qemu).

   The cases come on standard input as sections, "name count" and then count
   decimal integers, in the order the script writes them. Every path the
   processor has runs every kernel it has; a vector kernel does a leading part
   of its input and returns how far it got, so each is called again past that
   point until the input ends, and every answer it gave is checked (the
   outputs start filled with a mark, so an answer left unwritten shows).
   Exit 1 on any wrong answer. */
#define __USE_MINGW_ANSI_STDIO 1
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef ptrdiff_t Py_ssize_t;  /* what Python.h would give: 64 bits on LLP64 too */
#include "simd.h"
#include "text.h"

#define MARK 0xA5  /* each byte of an output before a kernel writes it */

typedef struct { uint64_t *v; size_t n; } column;

static long long wrong, checked;

/* the next section, which must be `name` */
static column take(const char *name) {
    char seen[64];
    size_t n;
    if (scanf("%63s %zu", seen, &n) != 2 || strcmp(seen, name) != 0) {
        fprintf(stderr, "cases: expected section %s\n", name);
        exit(2);
    }
    column c = { malloc((n ? n : 1) * sizeof(uint64_t)), n };
    for (size_t i = 0; i < n; i++)
        if (scanf("%" SCNu64, &c.v[i]) != 1) {
            fprintf(stderr, "cases: %s is short\n", name);
            exit(2);
        }
    return c;
}

static void *marked(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    memset(p, MARK, bytes);
    return p;
}

static void expect(const char *kernel, const char *path, size_t i, uint64_t got, uint64_t want) {
    checked++;
    if (got == want) return;
    if (wrong++ < 20)
        printf("WRONG %s on %s at %zu: %" PRIu64 ", want %" PRIu64 "\n", kernel, path, i, got,
               want);
}

/* A kernel over rows [start, n) answered `done` of them: check those, then
   go on one past them (a row it stopped at is the scalar loop's); how many it
   answered is reported under `kernel` */
#define EACH_CALL(kernel, n, call, check_row) do { \
        long long covered = 0; \
        for (Py_ssize_t start = 0, done; start < (Py_ssize_t)(n); start += done + 1) { \
            done = (call); \
            if (done < 0 || done > (Py_ssize_t)(n) - start) { \
                printf("WRONG: a kernel answered %td rows of %td\n", done, \
                       (Py_ssize_t)(n) - start); \
                wrong++; \
                break; \
            } \
            for (Py_ssize_t i = start; i < start + done; i++) { check_row; } \
            covered += done; \
        } \
        report(kernel, name, covered, n); \
    } while (0)

static void report(const char *kernel, const char *path, long long covered, size_t n) {
    printf("  %-16s %-11s %lld of %zu rows answered\n", kernel, path, covered, n);
}

int main(void) {
    fibnim_fill_tables();
    column fib = take("fib"), code = take("code");
    for (size_t k = 0; k < fib.n; k++) expect("fibnim_fib", "tables", k, fibnim_fib[k], fib.v[k]);
    for (size_t m = 0; m < code.n; m++)
        expect("fibnim_code", "tables", m, fibnim_code[m], code.v[m]);

    column x = take("wythoff.x"), y = take("wythoff.y"), safe = take("wythoff.safe");
    column target_x = take("wythoff.target_x"), target_y = take("wythoff.target_y");
    column single = take("single.x"), lower = take("single.lower"), upper = take("single.upper");
    column pair_n = take("pair.n"), pair_a = take("pair.a"), pair_b = take("pair.b");
    column first = take("power.first"), second = take("power.second");
    column bound = take("power.bound"), power_safe = take("power.safe");
    column numbers = take("encode.n"), codes = take("encode.code");
    column values = take("coding.values"), stream = take("coding.stream");
    column ends = take("coding.ends");
    column text = take("text.bytes"), text_next = take("text.next");

    const uint64_t int64_max = INT64_MAX, pair_limit = UINT64_C(3523014627193176565);
    const uint64_t code_limit = fibnim_fib[66] - 1;
    size_t n = x.n;
    uint64_t *piles = malloc(2 * n * sizeof(uint64_t)), *rows = malloc(2 * first.n * 8);
    for (size_t i = 0; i < n; i++) piles[2 * i] = x.v[i], piles[2 * i + 1] = y.v[i];
    for (size_t i = 0; i < first.n; i++) rows[2 * i] = first.v[i], rows[2 * i + 1] = second.v[i];
    uint8_t *data = malloc(stream.n ? stream.n : 1);  /* exactly the stream's bytes */
    for (size_t i = 0; i < stream.n; i++) data[i] = (uint8_t)stream.v[i];
    uint64_t bits = ends.n ? ends.v[ends.n - 1] : 0;

    const uint16_t one = 1;
    printf("C model: %zu-bit long, %zu-bit pointers, %s-endian\n", 8 * sizeof(long),
           8 * sizeof(void *), *(const uint8_t *)&one ? "little" : "big");
    for (int p = 0; p < FIBNIM_PATH_COUNT; p++) {
        const fibnim_path *path = &fibnim_paths[p];
        const char *name = path->name;
        if (!fibnim_path_supported(p)) {
            printf("path %s: not on this processor\n", name);
            continue;
        }
        printf("path %s:\n", name);
        if (path->is_safe) {
            uint8_t *out = marked(n);
            EACH_CALL("is_safe", n,
                      path->is_safe(x.v + start, y.v + start, out + start, n - start, int64_max),
                      expect("is_safe", name, i, out[i], safe.v[i]));
            free(out);
        }
        if (path->winning_move) {
            int64_t *tx = marked(8 * n), *ty = marked(8 * n);
            EACH_CALL("winning_move", n,
                      path->winning_move(x.v + start, y.v + start, tx + start, ty + start,
                                         n - start, int64_max),
                      expect("winning_move x", name, i, (uint64_t)tx[i], target_x.v[i]);
                      expect("winning_move y", name, i, (uint64_t)ty[i], target_y.v[i]));
            free(tx), free(ty);
        }
        if (path->classify_wythoff) {
            int64_t *out = marked(24 * n);
            EACH_CALL("classify", n,
                      path->classify_wythoff(piles + 2 * start, out + 3 * start, n - start,
                                             int64_max),
                      expect("classify P", name, i, (uint64_t)out[3 * i], safe.v[i]);
                      expect("classify x", name, i, (uint64_t)out[3 * i + 1], target_x.v[i]);
                      expect("classify y", name, i, (uint64_t)out[3 * i + 2], target_y.v[i]));
            free(out);
        }
        if (path->is_lower) {
            for (int is_upper = 0; is_upper < 2; is_upper++) {
                uint8_t *out = marked(single.n);
                const column *want = is_upper ? &upper : &lower;
                const char *kernel = is_upper ? "is_upper" : "is_lower";
                EACH_CALL(kernel, single.n,
                          path->is_lower(single.v + start, out + start, single.n - start,
                                         is_upper, int64_max),
                          expect(kernel, name, i, out[i], want->v[i]));
                free(out);
            }
        }
        if (path->pair) {
            int64_t *a = marked(8 * pair_n.n), *b = marked(8 * pair_n.n);
            EACH_CALL("pair", pair_n.n,
                      path->pair(pair_n.v + start, a + start, b + start, pair_n.n - start,
                                 pair_limit),
                      expect("pair a", name, i, (uint64_t)a[i], pair_a.v[i]);
                      expect("pair b", name, i, (uint64_t)b[i], pair_b.v[i]));
            free(a), free(b);
        }
        if (path->power_pairs) {
            uint8_t *out = marked(first.n);
            EACH_CALL("power_pairs", first.n,
                      path->power_pairs(rows + 2 * start, bound.v + start, out + start,
                                        first.n - start, int64_max),
                      expect("power_pairs", name, i, out[i], power_safe.v[i]));
            free(out);
        }
        if (path->encode) {
            uint64_t *out = marked(8 * numbers.n);
            EACH_CALL("encode", numbers.n,
                      path->encode(numbers.v + start, out + start, numbers.n - start, code_limit),
                      expect("encode", name, i, out[i], codes.v[i]));
            free(out);
        }
        if (path->decode) {
            int64_t *out = marked(8 * codes.n);
            EACH_CALL("decode", codes.n,
                      path->decode(codes.v + start, out + start, codes.n - start, UINT64_MAX),
                      expect("decode", name, i, (uint64_t)out[i], numbers.v[i]));
            free(out);
        }
        /* coding: the count of codewords ending within each codeword's end
           and one bit before it, and the stream decoded whole and from the
           end of each of a sample of codewords */
        for (size_t k = 0; k < ends.n; k++) {
            expect("count_codewords", name, k, path->count_codewords(data, ends.v[k]), k + 1);
            expect("count_codewords", name, k, path->count_codewords(data, ends.v[k] - 1), k);
        }
        uint64_t *out = marked(8 * values.n);
        for (size_t from = 0; from < values.n; from += 1 + from / 4) {
            uint64_t position = from ? ends.v[from - 1] : 0;
            Py_ssize_t done = 0;
            int stop = path->unpack(data, bits, &position, out, values.n - from, &done);
            expect("unpack stop", name, from, (uint64_t)stop, 0);
            expect("unpack done", name, from, (uint64_t)done, values.n - from);
            expect("unpack position", name, from, position, bits);
            for (Py_ssize_t i = 0; i < done && (size_t)i < values.n - from; i++)
                expect("unpack", name, from + i, out[i], values.v[from + i]);
        }
        printf("  %-16s %-11s %zu codewords counted and unpacked\n", "coding", name, values.n);
        free(out);
    }
    uint8_t *bytes = malloc(text.n ? text.n : 1);
    for (size_t i = 0; i < text.n; i++) bytes[i] = (uint8_t)text.v[i];
    for (size_t i = 0; i < text.n; i++)
        expect("next_special", "text.h", i,
               (uint64_t)fibnim_next_special(bytes, (ptrdiff_t)i, (ptrdiff_t)text.n),
               text_next.v[i]);
    printf("%lld answers checked, %lld wrong\n", checked, wrong);
    return wrong ? 1 : 0;
}
