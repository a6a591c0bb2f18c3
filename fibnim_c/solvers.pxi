# Compiled twin of fibnim._pure.solvers: exhaustive solvers over the rules of
# the games, the same kernel names and signatures. Pieces are bit masks:
# ROOK 1, BISHOP 2, KING 4, KNIGHT 8. The searches release the GIL a row (or a
# block of states) at a time and look for Ctrl-C in between.


cdef enum:
    ROOK = 1
    BISHOP = 2
    KING = 4
    KNIGHT = 8


cdef inline bint has_move(int piece, Py_ssize_t x, Py_ssize_t y) noexcept nogil:
    if piece & (ROOK | KING) and (x > 0 or y > 0):
        return True
    if piece & BISHOP and x > 0 and y > 0:
        return True
    return piece & KNIGHT and ((x >= 1 and y >= 2) or (x >= 2 and y >= 1))


cdef void board_row(int piece, Py_ssize_t x, Py_ssize_t size, bint misere, uint8_t[:, ::1] out,
                    uint8_t* row_has, uint8_t* diagonal_has) noexcept nogil:
    cdef Py_ssize_t y, diagonal
    cdef bint reach, p
    cdef bint column_has = False
    for y in range(size):
        diagonal = x - y + size
        reach = False
        if piece & ROOK:
            reach = row_has[y] or column_has
        if piece & BISHOP:
            reach = reach or diagonal_has[diagonal]
        if piece & KING:
            reach = reach or (x >= 1 and out[x - 1, y]) or (y >= 1 and out[x, y - 1]) \
                or (x >= 1 and y >= 1 and out[x - 1, y - 1])
        if piece & KNIGHT:
            reach = reach or (x >= 1 and y >= 2 and out[x - 1, y - 2]) \
                or (x >= 2 and y >= 1 and out[x - 2, y - 1])
        p = not reach and not (misere and not has_move(piece, x, y))
        out[x, y] = p
        if p:
            row_has[y] = 1
            column_has = True
            diagonal_has[diagonal] = 1


def solvers_board(int piece, Py_ssize_t size, bint misere, uint8_t[:, ::1] out):
    """out[x, y] = 1 where (x, y) is a P-position: no move reaches one. In misere
    play a cell with no move at all is an N-position (its player wins). Ctrl-C
    (any signal whose handler raises) stops it between rows."""
    cdef Py_ssize_t x
    # Sliding pieces reach a whole row, column or diagonal: one flag each says
    # whether it already holds a P-position, so every cell costs O(1).
    cdef uint8_t* row_has = <uint8_t*>calloc(size + 1, 1)
    cdef uint8_t* diagonal_has = <uint8_t*>calloc(2 * size + 1, 1)
    try:
        if row_has == NULL or diagonal_has == NULL:
            raise MemoryError()
        for x in range(size):
            with nogil:
                board_row(piece, x, size, misere, out, row_has, diagonal_has)
            PyErr_CheckSignals()
    finally:
        free(row_has)
        free(diagonal_has)


cdef inline void add_value(uint64_t* seen, int64_t value) noexcept nogil:
    seen[value >> 6] |= (<uint64_t>1) << (value & 63)


cdef void grundy_row(int piece, Py_ssize_t x, Py_ssize_t size, Py_ssize_t words,
                     int64_t[:, ::1] out, uint64_t* rows, uint64_t* column,
                     uint64_t* diagonals, uint64_t* seen) noexcept nogil:
    cdef Py_ssize_t y, w, diagonal
    cdef int64_t value
    for w in range(words):
        column[w] = 0
    for y in range(size):
        diagonal = x - y + size
        for w in range(words):
            seen[w] = 0
        if piece & ROOK:
            for w in range(words):
                seen[w] = rows[y * words + w] | column[w]
        if piece & BISHOP:
            for w in range(words):
                seen[w] |= diagonals[diagonal * words + w]
        if piece & KING:
            if x >= 1:
                add_value(seen, out[x - 1, y])
            if y >= 1:
                add_value(seen, out[x, y - 1])
            if x >= 1 and y >= 1:
                add_value(seen, out[x - 1, y - 1])
        if piece & KNIGHT:
            if x >= 1 and y >= 2:
                add_value(seen, out[x - 1, y - 2])
            if x >= 2 and y >= 1:
                add_value(seen, out[x - 2, y - 1])
        w = 0
        while seen[w] == ~(<uint64_t>0):
            w += 1
        value = w * 64 + ctz64(~seen[w])  # the mex: the first value not seen
        out[x, y] = value
        add_value(rows + y * words, value)
        add_value(column, value)
        add_value(diagonals + diagonal * words, value)


def solvers_grundy(int piece, Py_ssize_t size, int64_t[:, ::1] out):
    """out[x, y] = the Grundy value of (x, y) in normal play: the mex of its options'.
    Ctrl-C stops it between rows."""
    # A Grundy value is at most the number of options, < 3 size + 3. Rows,
    # columns and diagonals keep a bitset of the values they hold so far; a
    # cell's options are the union of its lines' sets and its steps' values.
    cdef Py_ssize_t words = (3 * size + 3) // 64 + 1
    cdef Py_ssize_t x
    cdef uint64_t* rows = <uint64_t*>calloc((size + 1) * words, 8)
    cdef uint64_t* column = <uint64_t*>calloc(words, 8)
    cdef uint64_t* diagonals = <uint64_t*>calloc((2 * size + 1) * words, 8)
    cdef uint64_t* seen = <uint64_t*>calloc(words, 8)
    try:
        if rows == NULL or column == NULL or diagonals == NULL or seen == NULL:
            raise MemoryError()
        for x in range(size):
            with nogil:
                grundy_row(piece, x, size, words, out, rows, column, diagonals, seen)
            PyErr_CheckSignals()
    finally:
        free(rows)
        free(column)
        free(diagonals)
        free(seen)


cdef void threshold_states(const int64_t[::1] dims, bint power, uint32_t[::1] out,
                           int64_t* piles, int64_t* strides, Py_ssize_t first,
                           Py_ssize_t stop) noexcept nogil:
    # States first .. stop - 1; piles holds the piles of state `first` and is
    # left holding those of `stop`.
    cdef Py_ssize_t k = dims.shape[0]
    cdef Py_ssize_t i, state
    cdef int64_t s, top, bound
    cdef uint32_t after, best
    for state in range(first, stop):
        top = 0
        for i in range(k):
            if piles[i] > top:
                top = piles[i]
        best = 0
        s = 1
        while s <= top and best == 0:
            bound = s if power else 2 * s
            for i in range(k):
                if piles[i] >= s:
                    after = out[state - s * strides[i]]
                    if after == 0 or after > bound:
                        best = <uint32_t>s
                        break
            s += 1
        out[state] = best
        # the next state in C order: count up the last pile, carrying
        i = k - 1
        while i >= 0:
            piles[i] += 1
            if piles[i] <= dims[i]:
                break
            piles[i] = 0
            i -= 1


cdef enum:
    STATES_PER_CHECK = 1 << 16  # states between two looks for Ctrl-C


def solvers_thresholds(const int64_t[::1] dims, bint power, uint32_t[::1] out, check):
    """out[state] = T(state) for every state of the box [0, dims[0]] x ... (C order).

    T is the least s with a move taking s from one pile to a state whose T
    exceeds the next bound (2 s, or s in power-of-two Nim); 0 stands for
    none (infinite). (piles; r) is a P-position exactly when r < T: raising r
    only adds moves. Between blocks of states, Ctrl-C stops it, and check()
    is called: it raises to stop the search (from another thread).
    """
    cdef Py_ssize_t k = dims.shape[0]
    cdef Py_ssize_t i, first, total = out.shape[0]
    cdef int64_t* piles = <int64_t*>calloc(k + 1, 8)
    cdef int64_t* strides = <int64_t*>calloc(k + 1, 8)
    try:
        if piles == NULL or strides == NULL:
            raise MemoryError()
        if k > 0:
            strides[k - 1] = 1
        for i in range(k - 2, -1, -1):
            strides[i] = strides[i + 1] * (dims[i + 1] + 1)
        for first in range(0, total, STATES_PER_CHECK):
            with nogil:
                threshold_states(dims, power, out, piles, strides, first,
                                 min(first + STATES_PER_CHECK, total))
            PyErr_CheckSignals()
            check()
    finally:
        free(piles)
        free(strides)
