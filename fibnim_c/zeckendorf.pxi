# Compiled twin of fibnim._pure.zeckendorf: the same kernel names and
# signatures. Inputs are native-endian, C-contiguous uint64 arrays that others
# may write while a kernel runs, so every kernel checks each value as it reads
# it (against `limit`, and its own rule) and computes nothing from a bad one:
# it returns that value's index, or -1, and fibnim._apply raises the error.


cdef inline void write_digits(uint8_t* row, Py_ssize_t width, uint64_t lo, uint64_t hi) noexcept nogil:
    # Most significant first: row[width - 1] is bit 0 of the 128-bit code (lo, hi).
    cdef Py_ssize_t bit
    for bit in range(width):
        if bit < 64:
            row[width - 1 - bit] = (lo >> bit) & 1
        elif bit < 128:
            row[width - 1 - bit] = (hi >> (bit - 64)) & 1
        else:
            row[width - 1 - bit] = 0

# The (j, a_j, c_j, k) of each block estimate of _scalar.pxd, for n < F_k, so
# the tests can recompute the error bound the proof there relies on.
zeckendorf_ENCODE_LEVELS = ((44, 23, C44, 66), (22, 8, C22, 46))
# The (j, c_j, k) of the vector encode's estimates (scalar.h), for n < F_k, and its RHO.
zeckendorf_VECTOR_ENCODE_LEVELS = ((48, ENCODE_C48, 66), (32, ENCODE_C32, 50), (16, ENCODE_C16, 34))
zeckendorf_VECTOR_ENCODE_RHO = ENCODE_RHO


cdef Py_ssize_t fib_rows(const uint64_t* k, uint64_t* out, Py_ssize_t size, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t v
    for i in range(size):
        v = k[i]  # read once: the value checked is the value used
        if v > limit:
            return i
        out[i] = FIB[v]
    return -1


def zeckendorf_fib(const uint64_t[::1] k, uint64_t[::1] out, uint64_t limit):
    """out[i] = F_{k[i]}; returns the first i with k[i] above limit (<= 93), or -1."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = fib_rows(&k[0], &out[0], k.shape[0], limit) if k.shape[0] else -1
    return first_bad


cdef Py_ssize_t encode_span(const uint64_t* n, uint64_t* out, Py_ssize_t start, Py_ssize_t stop,
                            uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t a0, a1, a2, a3
    # Four at a time, loaded before anything is stored: the four chains of
    # dependent look-ups then overlap (out may alias n, which would
    # otherwise keep the compiler from reordering them). Each value is
    # checked as it is loaded, never before: the tables end at F_66.
    for i in range(start, stop - 3, 4):
        a0 = n[i]
        a1 = n[i + 1]
        a2 = n[i + 2]
        a3 = n[i + 3]
        if (a0 > limit) | (a1 > limit) | (a2 > limit) | (a3 > limit):
            return first_above(n, limit, i, stop)
        a0 = encode_one(a0)
        a1 = encode_one(a1)
        a2 = encode_one(a2)
        a3 = encode_one(a3)
        out[i] = a0
        out[i + 1] = a1
        out[i + 2] = a2
        out[i + 3] = a3
    for i in range(stop - (stop - start) % 4, stop):
        a0 = n[i]
        if a0 > limit:
            return i
        out[i] = encode_one(a0)
    return -1


cdef Py_ssize_t encode_rows(const uint64_t* n, uint64_t* out, Py_ssize_t size,
                            uint64_t limit) noexcept nogil:
    cdef Py_ssize_t start = 0, stop, first_bad
    cdef const Path* path = current_path()
    cdef bint vector = path.encode != NULL
    while start < size:
        if vector:
            start += path.encode(n + start, out + start, size - start, limit)
        stop = resume_at(start, size, vector)
        first_bad = encode_span(n, out, start, stop, limit)
        if first_bad >= 0:
            return first_bad
        start = stop
    return -1


def zeckendorf_encode(const uint64_t[::1] n, uint64_t[::1] out, uint64_t limit):
    """out[i] = the Zeckendorf code of n[i]; returns the first i with n[i] above
    limit (< F_66), or -1."""
    cdef Py_ssize_t first_bad = -1
    if n.shape[0]:
        with nogil:
            first_bad = encode_rows(&n[0], &out[0], n.shape[0], limit)
    return first_bad


cdef Py_ssize_t first_above(const uint64_t* n, uint64_t limit, Py_ssize_t start,
                            Py_ssize_t stop) noexcept nogil:
    # Where a block of four held a value above limit: the first such one now.
    # If another thread has changed it since, the block's start stands for it.
    cdef Py_ssize_t i
    for i in range(start, stop):
        if n[i] > limit:
            return i
    return start


cdef Py_ssize_t decode_rows(const uint64_t* code, int64_t* out, Py_ssize_t size,
                            uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i, start = 0, stop
    cdef uint64_t c
    cdef const Path* path = current_path()
    cdef bint vector = path.decode != NULL
    while start < size:
        if vector:
            start += path.decode(code + start, out + start, size - start, limit)
        stop = resume_at(start, size, vector)
        for i in range(start, stop):
            c = code[i]
            if (c > limit) | ((c & (c >> 1)) != 0):
                return i
            out[i] = <int64_t>decode_one(c)
        start = stop
    return -1


def zeckendorf_decode(const uint64_t[::1] code, int64_t[::1] out, uint64_t limit):
    """out[i] = the value of code[i]; returns the first i where code[i] is above
    limit or has two adjacent set bits, or -1."""
    cdef Py_ssize_t first_bad = -1
    if code.shape[0]:
        with nogil:
            first_bad = decode_rows(&code[0], &out[0], code.shape[0], limit)
    return first_bad


cdef Py_ssize_t lowest_term_rows(const uint64_t* n, uint64_t* out, Py_ssize_t size, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t v
    for i in range(size):
        v = n[i]
        if v > limit:
            return i
        out[i] = lowest_term_of(v)
    return -1


def zeckendorf_lowest_term(const uint64_t[::1] n, uint64_t[::1] out, uint64_t limit):
    """out[i] = z_1(n[i]), the smallest Zeckendorf term; 0 for 0. Returns the
    first i with n[i] above limit, or -1."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = lowest_term_rows(&n[0], &out[0], n.shape[0], limit) if n.shape[0] else -1
    return first_bad


cdef Py_ssize_t is_fibonacci_rows(const uint64_t* n, uint8_t* out, Py_ssize_t size, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t v, lo, hi
    for i in range(size):
        v = n[i]
        if v > limit:
            return i
        lo = encode_wide(v, &hi)
        # one term at most: clearing the lowest bit leaves nothing
        out[i] = ((lo & (lo - 1)) | hi) == 0 if lo else (hi & (hi - 1)) == 0
    return -1


def zeckendorf_is_fibonacci(const uint64_t[::1] n, uint8_t[::1] out, uint64_t limit):
    """out[i] = 1 if n[i] is a Fibonacci number (0 = F_0 included). Returns the
    first i with n[i] above limit, or -1."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = is_fibonacci_rows(&n[0], &out[0], n.shape[0], limit) if n.shape[0] else -1
    return first_bad


cdef inline uint64_t bit_count(uint64_t x) noexcept nogil:
    # the SWAR count, which compilers turn into popcnt where the target has it
    x = x - ((x >> 1) & 0x5555555555555555ULL)
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL
    return (x * 0x0101010101010101ULL) >> 56


cdef Py_ssize_t term_count_rows(const uint64_t* n, uint8_t* out, Py_ssize_t size, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t v, lo, hi
    for i in range(size):
        v = n[i]
        if v > limit:
            return i
        lo = encode_wide(v, &hi)
        out[i] = <uint8_t>(bit_count(lo) + bit_count(hi))
    return -1


def zeckendorf_term_count(const uint64_t[::1] n, uint8_t[::1] out, uint64_t limit):
    """out[i] = the number of terms of n[i]'s Zeckendorf representation. Returns
    the first i with n[i] above limit, or -1."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = term_count_rows(&n[0], &out[0], n.shape[0], limit) if n.shape[0] else -1
    return first_bad


cdef Py_ssize_t digits_rows(const uint64_t[::1] n, uint8_t[:, ::1] out, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef Py_ssize_t width = out.shape[1]
    cdef uint64_t v, lo, hi
    for i in range(n.shape[0]):
        v = n[i]
        if v > limit:
            return i
        lo = encode_wide(v, &hi)
        write_digits(&out[i, 0], width, lo, hi)
    return -1


def zeckendorf_digits(const uint64_t[::1] n, uint8_t[:, ::1] out, uint64_t limit):
    """out[i] = the digits of n[i] for F_{w+1} .. F_2, w = out.shape[1]. Returns the
    first i with n[i] above limit (F_{w+2} - 1 at most, so that the digits fit), or -1."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = digits_rows(n, out, limit)
    return first_bad


cdef Py_ssize_t second_canonical_digits_rows(const uint64_t[::1] n, uint8_t[:, ::1] out, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef Py_ssize_t width = out.shape[1]
    cdef uint64_t v, lo, hi
    cdef int low
    for i in range(n.shape[0]):
        v = n[i]
        if (v == 0) | (v > limit):
            return i
        lo = encode_wide(v, &hi)
        low = lowest_index(lo, hi)
        # Silber positions: bit p - 1 stands for F_p, so the code moves up one.
        hi = (hi << 1) | (lo >> 63)
        lo <<= 1
        if low % 2 == 0:
            # F_{2j} -> F_{2j-1} + F_{2j-3} + ... + F_1 (docs/math/zeckendorf.rst)
            if low <= 64:
                lo ^= (<uint64_t>1) << (low - 1)
                lo |= EVEN_BITS & ((<uint64_t>2 << (low - 2)) - 1)
            else:
                hi ^= (<uint64_t>1) << (low - 65)
                lo |= EVEN_BITS
                hi |= EVEN_BITS & ((<uint64_t>2 << (low - 66)) - 1)
        write_digits(&out[i, 0], width, lo, hi)
    return -1


def zeckendorf_second_canonical_digits(const uint64_t[::1] n, uint8_t[:, ::1] out, uint64_t limit):
    """out[i] = the second canonical digits of n[i] for F_w .. F_1, w = out.shape[1].
    Returns the first i with n[i] = 0 (which has no such form) or above limit, or -1."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = second_canonical_digits_rows(n, out, limit)
    return first_bad

