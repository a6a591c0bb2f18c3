# Quick calls: the public functions that a search, a game loop or a pandas
# apply calls millions of times, answered here for the common arguments
# without the general path's broadcasting, chunking and conversions (a
# microsecond against twenty). Each takes Python ints, or arrays of one shape
# that are C-contiguous, aligned, native int64 or uint64, and returns what the
# public function returns; for anything else, and where a kernel stops at a
# value out of range, it returns NotImplemented (as Python's binary operators
# do), and the general path answers or raises the error that names the value.
# The pure twin (fibnim._pure) answers Python ints alone.

from cpython.buffer cimport PyBUF_FORMAT, PyBUF_STRIDES, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from libc.string cimport memcpy

from numpy import bool_ as _bool, empty as _empty, int64 as _int64, ndarray as _ndarray, uint64 as _uint64

cdef uint64_t PILE_LIMIT = 0x7FFFFFFFFFFFFFFF  # 2**63 - 1: the pile bound of every game
cdef uint64_t ENCODE_LIMIT = 27777890035287  # F_66 - 1: codes above it need 65 bits

cdef enum:
    QUICK_CHUNK = 16384  # piles copied at a time where the bounds come from them


cdef bint words(object a, Py_buffer* view) except -1:
    """Hold a's buffer if a is an ndarray of native int64 or uint64, C-contiguous
    and aligned; False (nothing held) otherwise."""
    cdef Py_ssize_t i, step
    cdef const char* f
    if type(a) is not _ndarray:
        return False
    try:
        PyObject_GetBuffer(a, view, PyBUF_STRIDES | PyBUF_FORMAT)
    except (BufferError, ValueError):  # numpy exports no buffer of datetimes, say
        return False
    f = view.format
    step = 8
    if view.itemsize == 8 and f[0] in b"lqLQ" and f[1] == 0 and (<size_t>view.buf) % 8 == 0:
        for i in range(view.ndim - 1, -1, -1):
            if view.shape[i] > 1 and view.strides[i] != step:
                break
            step *= view.shape[i]
        else:
            return True
    PyBuffer_Release(view)
    return False


cdef bint like(object a, object b, Py_buffer* va, Py_buffer* vb) except -1:
    """words() of both, which must have one shape; False (nothing held) otherwise."""
    cdef int i
    if not words(a, va):
        return False
    if words(b, vb):
        if va.ndim == vb.ndim:
            for i in range(va.ndim):
                if va.shape[i] != vb.shape[i]:
                    break
            else:
                return True
        PyBuffer_Release(vb)
    PyBuffer_Release(va)
    return False


cdef object result(object shape, object dtype, Py_buffer* view):
    """A new C-contiguous array, its buffer held in view."""
    array = _empty(shape, dtype)
    PyObject_GetBuffer(array, view, PyBUF_WRITABLE)
    return array


cdef inline object finished(object array, int ndim):
    # 0-d in, a numpy scalar out, as the general path and numpy's ufuncs give
    return array if ndim else array[()]


cdef inline bint pile(object v) except -1:
    """Whether v is a Python int that a kernel takes as a pile (0 to 2**63 - 1)."""
    return type(v) is int and 0 <= v <= 0x7FFFFFFFFFFFFFFF


def wythoff_quick_is_safe(x, y):
    """wythoff.is_safe(x, y), or NotImplemented (see above)."""
    cdef uint64_t a, b
    cdef Py_buffer vx, vy, vo
    cdef Py_ssize_t size, bad
    cdef int ndim
    if pile(x) and pile(y):
        a = x
        b = y
        return safe(a if a < b else b, a if a > b else b, False) != 0
    if not like(x, y, &vx, &vy):
        return NotImplemented
    size = vx.len // 8
    ndim = vx.ndim
    try:
        out = result(x.shape, _bool, &vo)
        try:
            with nogil:
                bad = is_safe_rows(<uint64_t*>vx.buf, <uint64_t*>vy.buf, <uint8_t*>vo.buf,
                                   size, False, PILE_LIMIT)
        finally:
            PyBuffer_Release(&vo)
    finally:
        PyBuffer_Release(&vx)
        PyBuffer_Release(&vy)
    return NotImplemented if bad >= 0 else finished(out, ndim)


def wythoff_quick_winning_move(x, y):
    """wythoff.winning_move(x, y), or NotImplemented (see above)."""
    cdef uint64_t a, b
    cdef int64_t ta, tb
    cdef Py_buffer vx, vy, vo, vp
    cdef Py_ssize_t size, bad
    cdef int ndim
    if pile(x) and pile(y):
        a = x
        b = y
        moves(&a, &b, 1, &ta, &tb, NULL, 1, 1, False, PILE_LIMIT)
        return None if ta < 0 else (ta, tb)
    if not like(x, y, &vx, &vy):
        return NotImplemented
    size = vx.len // 8
    ndim = vx.ndim
    try:
        tx = result(x.shape, _int64, &vo)
        ty = result(x.shape, _int64, &vp)
        try:
            with nogil:
                bad = moves(<uint64_t*>vx.buf, <uint64_t*>vy.buf, 1, <int64_t*>vo.buf,
                            <int64_t*>vp.buf, NULL, 1, size, False, PILE_LIMIT)
        finally:
            PyBuffer_Release(&vo)
            PyBuffer_Release(&vp)
    finally:
        PyBuffer_Release(&vx)
        PyBuffer_Release(&vy)
    return NotImplemented if bad >= 0 else (finished(tx, ndim), finished(ty, ndim))


def zeckendorf_quick_encode(n):
    """zeckendorf.encode(n), or NotImplemented (see above)."""
    cdef Py_buffer vn, vo
    cdef Py_ssize_t size, bad
    cdef int ndim
    if type(n) is int and 0 <= n <= ENCODE_LIMIT:
        return encode_one(<uint64_t>n)
    if not words(n, &vn):
        return NotImplemented
    size = vn.len // 8
    ndim = vn.ndim
    try:
        out = result(n.shape, _uint64, &vo)
        try:
            with nogil:
                bad = encode_rows(<uint64_t*>vn.buf, <uint64_t*>vo.buf, size, ENCODE_LIMIT)
        finally:
            PyBuffer_Release(&vo)
    finally:
        PyBuffer_Release(&vn)
    return NotImplemented if bad >= 0 else finished(out, ndim)


def zeckendorf_quick_decode(code):
    """zeckendorf.decode(code), or NotImplemented (see above)."""
    cdef Py_buffer vc, vo
    cdef Py_ssize_t size, bad
    cdef int ndim
    cdef uint64_t c, limit
    if type(code) is int and 0 <= code <= 0xFFFFFFFFFFFFFFFF:
        c = code
        return NotImplemented if c & (c >> 1) else decode_one(c)
    if not words(code, &vc):
        return NotImplemented
    size = vc.len // 8
    ndim = vc.ndim
    # signed codes: a negative one, seen as uint64, is above 2**63 - 1
    limit = PILE_LIMIT if vc.format[0] in b"lq" else 0xFFFFFFFFFFFFFFFF
    try:
        out = result(code.shape, _int64, &vo)
        try:
            with nogil:
                bad = decode_rows(<uint64_t*>vc.buf, <int64_t*>vo.buf, size, limit)
        finally:
            PyBuffer_Release(&vo)
    finally:
        PyBuffer_Release(&vc)
    return NotImplemented if bad >= 0 else finished(out, ndim)


cdef Py_ssize_t is_p_of_copies(const uint64_t* n, uint64_t* piles, uint64_t* bounds, uint8_t* out,
                               Py_ssize_t size, bint opening, uint64_t fixed) noexcept nogil:
    # is_p_rows over private copies of n, QUICK_CHUNK at a time, each bound the
    # opening one, pile - 1, or fixed: the bound always belongs to the pile the
    # kernel checks, whatever another thread writes into n meanwhile
    cdef Py_ssize_t start = 0, count, i, bad
    while start < size:
        count = size - start if size - start < QUICK_CHUNK else QUICK_CHUNK
        memcpy(piles, n + start, count * 8)
        for i in range(count):
            bounds[i] = (piles[i] - (piles[i] > 0)) if opening else fixed
        bad = is_p_rows(piles, bounds, out + start, count, PILE_LIMIT)
        if bad >= 0:
            return start + bad
        start += count
    return -1


def fibonacci_nim_quick_is_p(n, r):
    """fibonacci_nim.is_p(n, r) (r None: the opening bound n - 1), or
    NotImplemented (see above). Arrays: r None, a Python int, or an array like n."""
    cdef uint64_t v, bound
    cdef Py_buffer vn, vr, vo
    cdef Py_ssize_t size, room, bad = 0
    cdef int ndim
    cdef uint64_t* piles = NULL
    cdef uint64_t* bounds = NULL
    cdef bint opening
    cdef uint64_t fixed
    if pile(n) and (r is None or pile(r)):
        v = n
        bound = (v - (v > 0)) if r is None else <uint64_t>r
        return v == 0 or lowest_term_of(v) > bound
    if r is None or pile(r):
        if not words(n, &vn):
            return NotImplemented
        vr.buf = NULL
    elif not like(n, r, &vn, &vr):
        return NotImplemented
    size = vn.len // 8
    ndim = vn.ndim
    try:
        out = result(n.shape, _bool, &vo)
        try:
            if vr.buf == NULL:
                room = (size if size < QUICK_CHUNK else QUICK_CHUNK) + 1  # never malloc(0)
                piles = <uint64_t*>malloc(room * 8)
                bounds = <uint64_t*>malloc(room * 8)
                if piles == NULL or bounds == NULL:
                    raise MemoryError()
                opening = r is None
                fixed = 0 if opening else r
                with nogil:
                    bad = is_p_of_copies(<uint64_t*>vn.buf, piles, bounds, <uint8_t*>vo.buf, size,
                                         opening, fixed)
            else:
                with nogil:
                    bad = is_p_rows(<uint64_t*>vn.buf, <uint64_t*>vr.buf, <uint8_t*>vo.buf, size,
                                    PILE_LIMIT)
        finally:
            PyBuffer_Release(&vo)
            free(piles)
            free(bounds)
    finally:
        PyBuffer_Release(&vn)
        if vr.buf != NULL:
            PyBuffer_Release(&vr)
    return NotImplemented if bad >= 0 else finished(out, ndim)
