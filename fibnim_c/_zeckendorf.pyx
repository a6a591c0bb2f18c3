# Compiled twin of fibnim._pure.zeckendorf: the same kernel names and
# signatures. Inputs are checked, native-endian, C-contiguous uint64 arrays.

from libc.stdint cimport uint8_t, uint64_t, int64_t

from _scalar cimport (
    C22, C44, EVEN_BITS, FIB, decode as decode_one, encode as encode_one, encode_wide,
    fill_tables, lowest_index, lowest_term_of,
)

fill_tables()


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

# The (j, a_j, c_j) of each block estimate in _scalar.encode_level, so the
# tests can recompute the error bound the proof there relies on.
ENCODE_LEVELS = ((44, 23, C44), (22, 8, C22))


def fib(const uint64_t[::1] k, uint64_t[::1] out):
    """out[i] = F_{k[i]}, k[i] <= 93."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(k.shape[0]):
            out[i] = FIB[k[i]]


def encode(const uint64_t[::1] n, uint64_t[::1] out):
    """out[i] = the Zeckendorf code of n[i] < F_66."""
    cdef Py_ssize_t i, size = n.shape[0]
    cdef uint64_t a0, a1, a2, a3
    with nogil:
        # Four at a time, loaded before anything is stored: the four chains of
        # dependent look-ups then overlap (out may alias n, which would
        # otherwise keep the compiler from reordering them).
        for i in range(0, size - 3, 4):
            a0 = n[i]
            a1 = n[i + 1]
            a2 = n[i + 2]
            a3 = n[i + 3]
            a0 = encode_one(a0)
            a1 = encode_one(a1)
            a2 = encode_one(a2)
            a3 = encode_one(a3)
            out[i] = a0
            out[i + 1] = a1
            out[i + 2] = a2
            out[i + 3] = a3
        for i in range(size - size % 4, size):
            out[i] = encode_one(n[i])


def decode(const uint64_t[::1] code, int64_t[::1] out):
    """out[i] = the value of code[i], a code with no two adjacent bits."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(code.shape[0]):
            out[i] = <int64_t>decode_one(code[i])


def lowest_term(const uint64_t[::1] n, uint64_t[::1] out):
    """out[i] = z_1(n[i]), the smallest Zeckendorf term; 0 for 0."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(n.shape[0]):
            out[i] = lowest_term_of(n[i])


def is_fibonacci(const uint64_t[::1] n, uint8_t[::1] out):
    """out[i] = 1 if n[i] is a Fibonacci number (0 = F_0 included)."""
    cdef Py_ssize_t i
    cdef uint64_t lo, hi
    with nogil:
        for i in range(n.shape[0]):
            lo = encode_wide(n[i], &hi)
            # one term at most: clearing the lowest bit leaves nothing
            out[i] = ((lo & (lo - 1)) | hi) == 0 if lo else (hi & (hi - 1)) == 0


def digits(const uint64_t[::1] n, uint8_t[:, ::1] out):
    """out[i] = the digits of n[i] for F_{w+1} .. F_2, w = out.shape[1] >= its digit count."""
    cdef Py_ssize_t i
    cdef Py_ssize_t width = out.shape[1]
    cdef uint64_t lo, hi
    with nogil:
        for i in range(n.shape[0]):
            lo = encode_wide(n[i], &hi)
            write_digits(&out[i, 0], width, lo, hi)


def second_canonical_digits(const uint64_t[::1] n, uint8_t[:, ::1] out):
    """out[i] = the second canonical digits of n[i] >= 1 for F_w .. F_1, w = out.shape[1]."""
    cdef Py_ssize_t i
    cdef Py_ssize_t width = out.shape[1]
    cdef uint64_t lo, hi
    cdef int low
    with nogil:
        for i in range(n.shape[0]):
            lo = encode_wide(n[i], &hi)
            low = lowest_index(lo, hi)
            # Silber positions: bit p - 1 stands for F_p, so the code moves up one.
            hi = (hi << 1) | (lo >> 63)
            lo <<= 1
            if low % 2 == 0:
                # F_{2j} -> F_{2j-1} + F_{2j-3} + ... + F_1 (spec/math.md section 3)
                if low <= 64:
                    lo ^= (<uint64_t>1) << (low - 1)
                    lo |= EVEN_BITS & ((<uint64_t>2 << (low - 2)) - 1)
                else:
                    hi ^= (<uint64_t>1) << (low - 65)
                    lo |= EVEN_BITS
                    hi |= EVEN_BITS & ((<uint64_t>2 << (low - 66)) - 1)
            write_digits(&out[i, 0], width, lo, hi)
