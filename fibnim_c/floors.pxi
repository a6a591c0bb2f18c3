# The benchmark's bytes floors (fibnim.bench): the data a kernel moves, moved
# and nothing more; see floors.h.

cdef extern from "floors.h":
    int fibnim_bytes_floor(const uint64_t* source, int words, uint8_t* target, int size,
                           Py_ssize_t n) noexcept nogil


def bytes_floor(const uint64_t[::1] source, uint8_t[::1] target, int words, int size):
    """Read `words` words an element from source (`words` arrays of n words, one
    after the other) and write `size` bytes an element to target (size // 8 arrays
    of n words, or n bytes), for n = len(source) // words elements; False for a
    shape it has no loop for (words 1 to 3; size 1, 8, 16, 24, or 32 from 3 words)."""
    cdef Py_ssize_t n = source.shape[0] // words if words > 0 else 0
    cdef int done = -1
    if words < 1 or size < 1 or target.shape[0] < n * size:
        raise ValueError("bytes_floor: target holds fewer bytes than the elements need")
    if n == 0:
        return True
    with nogil:
        done = fibnim_bytes_floor(&source[0], words, &target[0], size, n)
    return done == 0
