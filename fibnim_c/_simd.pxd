# The dispatcher of fibnim_c/simd.h: the table of vector kernels of each
# implementation ("path"), and the one in use.

from libc.stdint cimport int64_t, uint8_t, uint64_t

cdef extern from "simd.h":
    ctypedef struct Path "fibnim_path":
        const char* name
        Py_ssize_t (*is_safe)(const uint64_t* x, const uint64_t* y, uint8_t* out, Py_ssize_t n,
                              uint64_t limit) noexcept nogil
        Py_ssize_t (*pair)(const uint64_t* n, int64_t* a, int64_t* b, Py_ssize_t count,
                           uint64_t limit) noexcept nogil
        Py_ssize_t (*is_lower)(const uint64_t* x, uint8_t* out, Py_ssize_t n, int upper,
                               uint64_t limit) noexcept nogil
        Py_ssize_t (*winning_move)(const uint64_t* x, const uint64_t* y, int64_t* tx, int64_t* ty,
                                   Py_ssize_t n, uint64_t limit) noexcept nogil
        Py_ssize_t (*classify_wythoff)(const uint64_t* piles, int64_t* out, Py_ssize_t n,
                                       uint64_t limit) noexcept nogil
        Py_ssize_t (*power_pairs)(const uint64_t* piles, const uint64_t* r, uint8_t* out,
                                  Py_ssize_t n, uint64_t limit) noexcept nogil
        Py_ssize_t (*decode)(const uint64_t* code, int64_t* out, Py_ssize_t n,
                             uint64_t limit) noexcept nogil
        Py_ssize_t (*encode)(const uint64_t* n, uint64_t* out, Py_ssize_t count,
                             uint64_t limit) noexcept nogil
        Py_ssize_t (*fib_is_p)(const uint64_t* n, const uint64_t* r, uint8_t* out,
                               Py_ssize_t count, uint64_t limit, const uint64_t* rows,
                               int* any_unsure) noexcept nogil
        Py_ssize_t (*fib_two_pile)(const uint64_t* piles, const uint64_t* r, uint8_t* out,
                                   Py_ssize_t count, uint64_t limit, const uint64_t* rows,
                                   int* any_unsure) noexcept nogil
        uint64_t (*count_codewords)(const uint8_t* data, uint64_t bits) noexcept nogil
        int (*unpack)(const uint8_t* data, uint64_t bits, uint64_t* position, uint64_t* out,
                      Py_ssize_t size, Py_ssize_t* done) noexcept nogil

    Py_ssize_t fib_is_p_lanes "fibnim_fib_is_p_lanes"(
        const uint64_t* n, const uint64_t* r, uint8_t* out, Py_ssize_t count, uint64_t limit,
        const uint64_t* rows, int* any_unsure) noexcept nogil
    const int ROWS_BY_ZEROS "FIBNIM_ROWS_BY_ZEROS"
    const int ROWS_BY_ARC "FIBNIM_ROWS_BY_ARC"
    const int ROWS "FIBNIM_ROWS"

    const Path PATHS "fibnim_paths"[]
    const int PATH_COUNT "FIBNIM_PATH_COUNT"
    bint path_supported "fibnim_path_supported"(int i) noexcept nogil
    const Path* current_path "fibnim_current_path"() noexcept nogil
    void use_path "fibnim_use_path"(int i) noexcept nogil


cdef inline Py_ssize_t resume_at(Py_ssize_t start, Py_ssize_t size, bint vector) noexcept nogil:
    # Where the scalar loop hands back to a vector kernel: a vector kernel stops
    # before a block it cannot do (a value above the limit, or one its fast path
    # left unsure), the scalar loop does that block exactly (at most 8 values),
    # and the kernel goes on from there. Without a kernel, the scalar loop does all.
    if vector and size - start > 8:
        return start + 8
    return size
