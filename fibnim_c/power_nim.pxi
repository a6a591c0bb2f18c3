# Compiled twin of fibnim._pure.power_nim: the same kernel names and signatures.
# piles is a C-contiguous uint64 array of shape (positions, k). Each kernel
# checks every value as it reads it (see fibnim_c/wythoff.pxi) and returns
# the first row with a pile or r above limit, or -1.


cdef inline uint64_t xor_of_row(const uint64_t[:, ::1] piles, Py_ssize_t i,
                                uint64_t* top) noexcept nogil:
    # The xor X of row i's piles, each read once; *top becomes the largest of
    # them and its old value, for the caller's one check against the limit.
    cdef Py_ssize_t j
    cdef uint64_t x = 0, n
    for j in range(piles.shape[1]):
        n = piles[i, j]
        x ^= n
        top[0] = top[0] if top[0] > n else n
    return x


def power_nim_is_p(const uint64_t[:, ::1] piles, const uint64_t[::1] r, uint8_t[::1] out, uint64_t limit):
    """out[i] = 1 where (piles[i]; r[i]) is a P-position of power-of-two Nim:
    sb(X) > r, X the xor of the piles (a bound no smaller than the piles is infinite).
    Returns the first i with a pile or r above limit, or -1."""
    cdef Py_ssize_t i, start = 0
    cdef Py_ssize_t above = -1
    cdef uint64_t x, bound, top
    cdef const Path* path = current_path()
    with nogil:
        if piles.shape[1] == 2 and piles.shape[0] and path.power_pairs != NULL:
            start = path.power_pairs(&piles[0, 0], &r[0], &out[0], piles.shape[0], limit)
        for i in range(start, piles.shape[0]):
            bound = r[i]
            top = bound
            x = xor_of_row(piles, i, &top)
            if top > limit:
                above = i
                break
            out[i] = (x == 0) | ((x & (0 - x)) > bound)
    return above


cdef Py_ssize_t winning_move_rows(const uint64_t[:, ::1] piles, const uint64_t[::1] r,
                 int64_t[::1] pile, int64_t[::1] take, bint bouton, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i, j, k = piles.shape[1]
    cdef uint64_t x, n, bound, top
    for i in range(piles.shape[0]):
        bound = r[i]
        top = bound
        x = xor_of_row(piles, i, &top)
        if top > limit:
            return i
        pile[i] = -1
        take[i] = -1
        if x == 0 or (not bouton and (x & (0 - x)) > bound):
            continue
        for j in range(k):
            n = piles[i, j]  # read again, so checked again
            if n > limit:
                return i
            if (n ^ x) < n:
                pile[i] = j
                take[i] = <int64_t>(n - (n ^ x) if bouton else x & (0 - x))
                break
    return -1


def power_nim_winning_move(const uint64_t[:, ::1] piles, const uint64_t[::1] r,
                 int64_t[::1] pile, int64_t[::1] take, bint bouton, uint64_t limit):
    """(pile[i], take[i]) = the move of docs/math/power_nim.rst from the first pile
    with n xor X < n: to n xor X (bouton), or sb(X) counters; -1 where none.
    Returns the first i with a pile or r above limit, or -1."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = winning_move_rows(piles, r, pile, take, bouton, limit)
    return first_bad


cdef Py_ssize_t classify_rows(const uint64_t[:, :] piles, int64_t[:, :] out, uint64_t bound,
                              bint bouton, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i, j, chosen, k = piles.shape[1]
    cdef uint64_t x, n, top, take
    for i in range(piles.shape[0]):
        x = 0
        top = 0
        for j in range(k):
            n = piles[i, j]
            x ^= n
            top = top if top > n else n
        if top > limit:
            return i
        if x == 0 or (not bouton and (x & (0 - x)) > bound):
            out[i, 0] = 1
            for j in range(k):
                out[i, 1 + j] = -1
            continue
        out[i, 0] = 0
        chosen = -1
        # read again, so checked again (a row changed meanwhile gets a target
        # of what is read now, never of unchecked memory)
        for j in range(k):
            n = piles[i, j]
            if n > limit:
                return i
            if chosen < 0 and (n ^ x) < n:
                chosen = j
                n = n ^ x if bouton else n - (x & (0 - x))
            out[i, 1 + j] = <int64_t>n
    return -1


def power_nim_classify(const uint64_t[:, :] piles, int64_t[:, :] out, uint64_t bound, bint bouton,
             uint64_t limit):
    """Fused kernel of fibnim.classify: row i of out is (1 for a P-position or 0,
    the position after winning_move's move, -1 throughout where there is none),
    for the position in row i of piles, read with any strides. Returns the
    first row with a pile above limit, or -1."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = classify_rows(piles, out, bound, bouton, limit)
    return first_bad
