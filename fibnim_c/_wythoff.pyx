# Compiled twin of fibnim._pure.wythoff: the same kernel names and signatures.
# Inputs are checked, native-endian, C-contiguous uint64 arrays with every
# value <= 2**63 - 1 (pair: n <= 3523014627193176565, so that b_n fits int64).

from libc.stdint cimport int64_t, uint8_t, uint64_t

from _scalar cimport (
    beatty, ctz64, decode_wide, encode_wide, fill_tables, lower_index, normal_safe,
)

fill_tables()


cdef inline bint safe(uint64_t small, uint64_t large, bint misere) noexcept nogil:
    if misere and large <= 2:
        # misere play trades (0, 0) and (1, 2) for (0, 1) and (2, 2)
        return (small == 0 and large == 1) or (small == 2 and large == 2)
    return normal_safe(small, large)


def pair(const uint64_t[::1] n, int64_t[::1] a, int64_t[::1] b):
    """(a[i], b[i]) = (a_n, b_n) for n = n[i]."""
    cdef Py_ssize_t i
    cdef uint64_t lower
    with nogil:
        for i in range(n.shape[0]):
            lower = beatty(n[i])
            a[i] = <int64_t>lower
            b[i] = <int64_t>(lower + n[i])


def is_safe(const uint64_t[::1] x, const uint64_t[::1] y, uint8_t[::1] out, bint misere):
    """out[i] = 1 where (x[i], y[i]) is a P-position."""
    cdef Py_ssize_t i
    cdef uint64_t small, large
    with nogil:
        for i in range(x.shape[0]):
            small = x[i] if x[i] < y[i] else y[i]
            large = x[i] ^ y[i] ^ small
            out[i] = safe(small, large, misere)


def is_lower(const uint64_t[::1] x, uint8_t[::1] out):
    """out[i] = 1 where x[i] is an A-number."""
    cdef Py_ssize_t i
    cdef uint64_t n
    with nogil:
        for i in range(x.shape[0]):
            out[i] = x[i] != 0 and lower_index(x[i], &n)


def is_upper(const uint64_t[::1] x, uint8_t[::1] out):
    """out[i] = 1 where x[i] is a B-number."""
    cdef Py_ssize_t i
    cdef uint64_t n
    with nogil:
        for i in range(x.shape[0]):
            out[i] = x[i] != 0 and not lower_index(x[i], &n)


def index(const uint64_t[::1] x, int64_t[::1] out):
    """out[i] = the n of the safe pair holding x[i]; 0 for 0."""
    cdef Py_ssize_t i
    cdef uint64_t n
    with nogil:
        for i in range(x.shape[0]):
            n = 0
            if x[i] != 0:
                lower_index(x[i], &n)
            out[i] = <int64_t>n


def partner(const uint64_t[::1] x, int64_t[::1] out):
    """out[i] = the other member of x[i]'s safe pair. Returns the first i whose
    partner exceeds 2**63 - 1 (a large A-number), or -1."""
    cdef Py_ssize_t i
    cdef Py_ssize_t first_too_large = -1
    cdef uint64_t n, other
    with nogil:
        for i in range(x.shape[0]):
            other = 0
            if x[i] != 0:
                # x < 2**63 and n < x, so x + n does not wrap
                other = x[i] + n if lower_index(x[i], &n) else x[i] - n
            if other >> 63 and first_too_large < 0:
                first_too_large = i
            out[i] = <int64_t>other
    return first_too_large


cdef inline void misere_endgame(uint64_t s, uint64_t l, uint64_t* ts, uint64_t* tl) noexcept nogil:
    # Where the normal move ends on (0, 0) or (1, 2), which misere play does not
    # count as P: the same choices as fibnim._exact.wythoff._misere_endgame.
    if s == 0 or (s == 1 and l == 1):
        ts[0], tl[0] = 0, 1
    elif s == l or s == 2:
        ts[0], tl[0] = 2, 2
    elif s == 1:
        if l == 2:
            ts[0], tl[0] = 0, 1
        else:
            ts[0], tl[0] = 1, 0
    else:
        ts[0], tl[0] = 0, 1


def winning_move(const uint64_t[::1] x, const uint64_t[::1] y, int64_t[::1] tx, int64_t[::1] ty, bint misere):
    """(tx[i], ty[i]) = Silber's winning move from (x[i], y[i]) (spec/math.md
    section 4), in pile order; -1 where there is none."""
    cdef Py_ssize_t i
    cdef uint64_t s, l, n, other, d, ts, tl
    with nogil:
        for i in range(x.shape[0]):
            s = x[i] if x[i] < y[i] else y[i]
            l = x[i] ^ y[i] ^ s
            if safe(s, l, misere) or (misere and l == 0):
                tx[i] = -1
                ty[i] = -1
                continue
            if s == l or s == 0:
                ts, tl = 0, 0
            elif not lower_index(s, &n):
                ts, tl = s, s - n  # s = b_n: the large pile goes to a_n
            elif l > s + n:
                ts, tl = s, s + n  # s = a_n, l > b_n: the large pile goes to b_n
            else:
                d = l - s  # a_n < l < b_n: to (a_d, b_d), the same amount from both
                ts = beatty(d)
                tl = ts + d
            if misere and tl <= 2 and ts <= 2:
                misere_endgame(s, l, &ts, &tl)
            if x[i] <= y[i]:
                tx[i], ty[i] = <int64_t>ts, <int64_t>tl
            else:
                tx[i], ty[i] = <int64_t>tl, <int64_t>ts


def array_position(const uint64_t[::1] x, int64_t[::1] row, int64_t[::1] column):
    """(row[i], column[i]) = the 1-based place of x[i] >= 1 in the Wythoff array."""
    cdef Py_ssize_t i
    cdef uint64_t lo, hi, first, n
    cdef int shift
    with nogil:
        for i in range(x.shape[0]):
            # Each row is a chain of left shifts of its first entry, a_{a_r}.
            lo = encode_wide(x[i], &hi)
            shift = ctz64(lo) if lo else 64 + ctz64(hi)
            if shift >= 64:
                lo = hi >> (shift - 64)
                hi = 0
            elif shift > 0:
                lo = (lo >> shift) | (hi << (64 - shift))
                hi >>= shift
            first = decode_wide(lo, hi)
            lower_index(first, &n)  # first = a_n with n = a_r
            lower_index(n, &first)
            row[i] = <int64_t>first
            column[i] = shift + 1
