# Compiled twin of fibnim._pure.wythoff: the same kernel names and signatures.
# Inputs are native-endian, C-contiguous uint64 arrays; every value they take
# is <= `limit` <= 2**63 - 1 (pair: n <= 3523014627193176565, so that b_n fits
# int64).
#
# Every kernel checks that bound itself, as it reads each value, so that int64
# input needs no separate pass of checks (a negative int64 seen as uint64 is
# above any limit <= 2**63 - 1) and a value another thread writes meanwhile is
# never trusted: a kernel computes nothing from a value above the limit and
# returns its index (or -1), and fibnim._apply then reports the offending value.


cdef inline bint safe(uint64_t small, uint64_t large, bint misere) noexcept nogil:
    if misere and large <= 2:
        # misere play trades (0, 0) and (1, 2) for (0, 1) and (2, 2)
        return (small == 0 and large == 1) or (small == 2 and large == 2)
    return normal_safe(small, large)


cdef Py_ssize_t pair_rows(const uint64_t* n, int64_t* a, int64_t* b, Py_ssize_t size,
                          uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i, start = 0, stop
    cdef uint64_t v, lower
    cdef const Path* path = current_path()
    cdef bint vector = path.pair != NULL
    while start < size:
        if vector:
            start += path.pair(n + start, a + start, b + start, size - start, limit)
        stop = resume_at(start, size, vector)
        for i in range(start, stop):
            v = n[i]  # read once: the value checked is the value used
            if v > limit:
                return i
            lower = beatty(v)
            a[i] = <int64_t>lower
            b[i] = <int64_t>(lower + v)
        start = stop
    return -1


def wythoff_pair(const uint64_t[::1] n, int64_t[::1] a, int64_t[::1] b, uint64_t limit):
    """(a[i], b[i]) = (a_n, b_n) for n = n[i]; the index of the first n above limit, or -1."""
    cdef Py_ssize_t above = -1
    if n.shape[0]:
        with nogil:
            above = pair_rows(&n[0], &a[0], &b[0], n.shape[0], limit)
    return above


cdef Py_ssize_t is_safe_rows(const uint64_t* x, const uint64_t* y, uint8_t* out, Py_ssize_t size,
                             bint misere, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i, start = 0, stop
    cdef uint64_t xi, yi, small, large
    cdef const Path* path = current_path()
    cdef bint vector = not misere and path.is_safe != NULL
    while start < size:
        if vector:
            start += path.is_safe(x + start, y + start, out + start, size - start, limit)
        stop = resume_at(start, size, vector)
        for i in range(start, stop):
            xi = x[i]
            yi = y[i]
            small = xi if xi < yi else yi
            large = xi ^ yi ^ small
            if large > limit:
                return i
            out[i] = safe(small, large, misere)
        start = stop
    return -1


def wythoff_is_safe(const uint64_t[::1] x, const uint64_t[::1] y, uint8_t[::1] out, bint misere,
            uint64_t limit):
    """out[i] = 1 where (x[i], y[i]) is a P-position; the index of the first pile
    above limit, or -1."""
    cdef Py_ssize_t above = -1
    if x.shape[0]:
        with nogil:
            above = is_safe_rows(&x[0], &y[0], &out[0], x.shape[0], misere, limit)
    return above


cdef Py_ssize_t lower_or_upper(const uint64_t* x, uint8_t* out, Py_ssize_t size, uint64_t limit,
                               bint upper) noexcept nogil:
    # is_lower and is_upper: out[i] = 1 where x[i] >= 1 is an A-number (B-number, upper)
    cdef Py_ssize_t i, start = 0, stop
    cdef uint64_t v, below
    cdef const Path* path = current_path()
    cdef bint vector = path.is_lower != NULL
    while start < size:
        if vector:
            start += path.is_lower(x + start, out + start, size - start, upper, limit)
        stop = resume_at(start, size, vector)
        for i in range(start, stop):
            v = x[i]
            if v > limit:
                return i
            out[i] = (v != 0) & (lower_count(v, &below) != upper)
        start = stop
    return -1


def wythoff_is_lower(const uint64_t[::1] x, uint8_t[::1] out, uint64_t limit):
    """out[i] = 1 where x[i] is an A-number; the index of the first x above limit, or -1."""
    cdef Py_ssize_t above = -1
    if x.shape[0]:
        with nogil:
            above = lower_or_upper(&x[0], &out[0], x.shape[0], limit, False)
    return above


def wythoff_is_upper(const uint64_t[::1] x, uint8_t[::1] out, uint64_t limit):
    """out[i] = 1 where x[i] is a B-number; the index of the first x above limit, or -1."""
    cdef Py_ssize_t above = -1
    if x.shape[0]:
        with nogil:
            above = lower_or_upper(&x[0], &out[0], x.shape[0], limit, True)
    return above


cdef Py_ssize_t index_rows(const uint64_t* x, int64_t* out, Py_ssize_t size, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t v, below
    cdef bint lower
    for i in range(size):
        v = x[i]
        if v > limit:
            return i
        lower = lower_count(v, &below)  # 0: not lower, and below = 0
        out[i] = <int64_t>select(lower, below, v - below)
    return -1


def wythoff_index(const uint64_t[::1] x, int64_t[::1] out, uint64_t limit):
    """out[i] = the n of the safe pair holding x[i]; 0 for 0. Returns the index of
    the first x above limit, or -1."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = index_rows(&x[0], &out[0], x.shape[0], limit) if x.shape[0] else -1
    return first_bad


cdef Py_ssize_t partner_rows(const uint64_t* x, int64_t* out, Py_ssize_t size, uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t v, below, other
    cdef bint lower
    for i in range(size):
        v = x[i]
        if v > limit:
            return i
        # b_n = a_n + n for a_n; a_n = below for b_n; 0 for 0 (below = 0).
        # v < 2**63 and below <= v, so v + below does not wrap.
        lower = lower_count(v, &below)  # before below is read
        other = select(lower, v + below, below)
        if other >> 63:
            return i
        out[i] = <int64_t>other
    return -1


def wythoff_partner(const uint64_t[::1] x, int64_t[::1] out, uint64_t limit):
    """out[i] = the other member of x[i]'s safe pair. Returns the first i with x[i]
    above limit or a partner above 2**63 - 1 (a large A-number), or -1."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = partner_rows(&x[0], &out[0], x.shape[0], limit) if x.shape[0] else -1
    return first_bad


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


cdef enum:
    MOVE_BLOCK = 512  # positions per pass of winning_move


cdef Py_ssize_t moves(const uint64_t* x, const uint64_t* y, Py_ssize_t step, int64_t* tx,
                      int64_t* ty, int64_t* outcome, Py_ssize_t out_step, Py_ssize_t size,
                      bint misere, uint64_t limit) noexcept nogil:
    # winning_move over `size` positions, x[i * step] and y[i * step], into
    # tx[i * out_step] and ty[i * out_step], and where outcome is not NULL the
    # outcome too (1 for a P-position); the index of the first pile above
    # limit, or -1
    cdef Py_ssize_t i, j, stop, diagonals, at
    cdef Py_ssize_t start = 0
    cdef Py_ssize_t diagonal_at[MOVE_BLOCK]
    cdef uint64_t diagonal_d[MOVE_BLOCK]
    cdef uint64_t piles_x[MOVE_BLOCK]  # for the misere pass: tx and ty may be x and y
    cdef uint64_t piles_y[MOVE_BLOCK]
    cdef uint64_t xi, yi, s, l, n, other, d, ts, tl, empty, none, swapped
    cdef bint lower, diagonal
    cdef const Path* path = current_path()
    cdef bint vector = (step == 1 and out_step == 1 and outcome == NULL and not misere
                        and path.winning_move != NULL)
    while start < size:
        if vector:
            start += path.winning_move(x + start, y + start, tx + start, ty + start,
                                       size - start, limit)
        stop = resume_at(start, size, vector)
        if stop - start > MOVE_BLOCK:
            stop = start + MOVE_BLOCK
        diagonals = 0
        # Pass 1: every case but the diagonal one, with masks rather than
        # branches (which case applies is a coin toss on most data).
        for i in range(start, stop):
            xi = x[i * step]
            yi = y[i * step]
            s = xi if xi < yi else yi
            l = xi ^ yi ^ s
            if l > limit:
                return i
            piles_x[i - start] = xi
            piles_y[i - start] = yi
            lower = lower_count(s, &n)
            other = s + n if lower else n  # the partner: b_n = a_n + n, or a_n (0 for 0)
            # s = b_n, or s = a_n and l > b_n: the large pile goes to the partner;
            # equal piles, or one empty: take everything
            empty = 0 - <uint64_t>((s == l) | (s == 0))
            ts = s & ~empty
            tl = other & ~empty
            # a P-position, (a_n, b_n) or (0, 0): no winning move
            none = 0 - <uint64_t>((lower & (l == other) & (s != 0)) | (l == 0))
            ts |= none
            tl |= none
            swapped = 0 - <uint64_t>(xi > yi)
            at = i * out_step
            tx[at] = <int64_t>((ts & ~swapped) | (tl & swapped))
            ty[at] = <int64_t>((tl & ~swapped) | (ts & swapped))
            if outcome != NULL:
                outcome[at] = <int64_t>(none & 1)
            # a_n < l < b_n: the diagonal move, left to pass 2 (rare on most data)
            diagonal = lower & (l < other) & (s != 0) & (s != l)
            diagonal_at[diagonals] = at
            diagonal_d[diagonals] = l - s  # kept: x and y may change under us
            diagonals += diagonal
        # Pass 2: to (a_d, b_d), d = l - s: the same amount from both piles.
        for j in range(diagonals):
            at = diagonal_at[j]
            d = diagonal_d[j]
            ts = beatty(d)
            tl = ts + d
            # pass 1 wrote tx = s, ty = the partner when x <= y, or else the
            # other way round; the partner exceeds s
            swapped = 0 - <uint64_t>(<uint64_t>tx[at] > <uint64_t>ty[at])  # the partner may pass 2**63 - 1
            tx[at] = <int64_t>((ts & ~swapped) | (tl & swapped))
            ty[at] = <int64_t>((tl & ~swapped) | (ts & swapped))
        if misere:
            # misere play differs only here (see misere_fix); elsewhere its
            # P-positions and moves are normal play's
            for i in range(start, stop):
                xi = piles_x[i - start]
                yi = piles_y[i - start]
                at = i * out_step
                if xi <= 2 or yi <= 2 or (<uint64_t>tx[at] <= 2 and <uint64_t>ty[at] <= 2):
                    misere_fix(xi, yi, &tx[at], &ty[at])
                    if outcome != NULL:
                        # no move wins: P, but for (0, 0), where the last mover lost
                        outcome[at] = (tx[at] == -1) & ((xi | yi) != 0)
        start = stop
    return -1


def wythoff_winning_move(const uint64_t[::1] x, const uint64_t[::1] y, int64_t[::1] tx, int64_t[::1] ty,
                 bint misere, uint64_t limit):
    """(tx[i], ty[i]) = Silber's winning move from (x[i], y[i]) (docs/math/wythoff.rst),
    in pile order; -1 where there is none. Returns the index of the first pile
    above limit, or -1."""
    cdef Py_ssize_t above = -1
    if x.shape[0]:
        with nogil:
            above = moves(&x[0], &y[0], 1, &tx[0], &ty[0], NULL, 1, x.shape[0], misere, limit)
    return above


cdef Py_ssize_t classify_block_rows(const char* row, Py_ssize_t in_row, Py_ssize_t in_column,
                                    char* target, Py_ssize_t out_row, Py_ssize_t out_column,
                                    Py_ssize_t size, bint misere, uint64_t limit) noexcept nogil:
    # classify over any (aligned) strides, a block of rows at a time through a
    # private buffer, whose values are the ones checked and used
    cdef Py_ssize_t i, count, bad, start = 0
    # the four rows of the block, 8 elements (64 bytes) apart modulo 4 KB: at
    # equal offsets the processor takes loads for stores (4K aliasing)
    cdef uint64_t block[4 * MOVE_BLOCK + 3 * 8]
    cdef uint64_t* xs = block
    cdef uint64_t* ys = block + MOVE_BLOCK + 8
    cdef int64_t* txs = <int64_t*>(block + 2 * MOVE_BLOCK + 16)
    cdef int64_t* tys = <int64_t*>(block + 3 * MOVE_BLOCK + 24)
    while start < size:
        count = MOVE_BLOCK if size - start > MOVE_BLOCK else size - start
        for i in range(count):
            xs[i] = (<const uint64_t*>(row + i * in_row))[0]
            ys[i] = (<const uint64_t*>(row + i * in_row + in_column))[0]
        bad = moves(xs, ys, 1, txs, tys, NULL, 1, count, misere, limit)
        if bad >= 0:
            return start + bad
        for i in range(count):
            # P exactly where no move wins, but for misere play's (0, 0): the
            # previous player took the last counter and lost
            (<int64_t*>(target + i * out_row))[0] = (
                (txs[i] == -1) & ((not misere) | ((xs[i] | ys[i]) != 0)))
            (<int64_t*>(target + i * out_row + out_column))[0] = txs[i]
            (<int64_t*>(target + i * out_row + 2 * out_column))[0] = tys[i]
        start += count
        row += count * in_row
        target += count * out_row
    return -1


cdef Py_ssize_t contiguous_rows(const char* row, char* target, Py_ssize_t size,
                                uint64_t limit, const Path* path) noexcept nogil:
    # classify of C-contiguous rows, normal play, by the vector kernel from the
    # first row whose out is 64-byte aligned (one of the first eight, out being
    # 8-byte aligned), so that no store of 8 rows (3 cache lines) is split
    cdef Py_ssize_t head = 0, done = 0, stop, bad
    while (<size_t>(target + head * 24)) % 64 and head < 8 and head < size:
        head += 1
    stop = head
    while True:
        bad = classify_block_rows(row + done * 16, 16, 8, target + done * 24, 24, 8, stop - done,
                                  False, limit)
        if bad >= 0:
            return done + bad
        done = stop
        if done == size:
            return -1
        done += path.classify_wythoff(<const uint64_t*>(row + done * 16),
                                      <int64_t*>(target + done * 24), size - done, limit)
        stop = resume_at(done, size, True)


def wythoff_classify(const uint64_t[:, :] piles, int64_t[:, :] out, bint misere, uint64_t limit):
    """Row i of out = (1 for a P-position or 0, the winning move's target (x, y),
    -1 -1 where there is none) for the position (x, y) in row i of piles, read
    with any strides. Returns the first row with a pile above limit, or -1."""
    cdef Py_ssize_t size = piles.shape[0], bad
    cdef const char* row
    cdef char* target
    cdef Py_ssize_t in_row = piles.strides[0], in_column = piles.strides[1]
    cdef Py_ssize_t out_row = out.strides[0], out_column = out.strides[1]
    cdef const Path* path = current_path()
    if size == 0:
        return -1
    row = <const char*>&piles[0, 0]
    target = <char*>&out[0, 0]
    with nogil:
        if (not misere and path.classify_wythoff != NULL and in_row == 16 and in_column == 8
                and out_row == 24 and out_column == 8):
            bad = contiguous_rows(row, target, size, limit, path)
        elif misere or path.winning_move == NULL:
            # the scalar kernel reads and writes in place (fibnim.classify hands
            # over aligned arrays only: strides of whole elements)
            bad = moves(<const uint64_t*>row, <const uint64_t*>(row + in_column), in_row // 8,
                        <int64_t*>(target + out_column), <int64_t*>(target + 2 * out_column),
                        <int64_t*>target, out_row // 8, size, misere, limit)
        else:  # the vector kernel, through a block of private rows at a time
            bad = classify_block_rows(row, in_row, in_column, target, out_row, out_column, size,
                                      misere, limit)
    return bad


cdef inline void misere_fix(uint64_t x, uint64_t y, int64_t* tx, int64_t* ty) noexcept nogil:
    # Misere play differs from normal play only where a pile is at most 2 or the
    # normal move ends on (0, 0) or (1, 2): the rules of _exact.wythoff.winning_move.
    cdef uint64_t s = x if x < y else y
    cdef uint64_t l = x ^ y ^ s
    cdef uint64_t ts, tl
    if safe(s, l, True) or l == 0:
        tx[0] = -1
        ty[0] = -1
        return
    if tx[0] == -1:
        # a normal P-position that misere play does not count: (1, 2)
        ts, tl = 1, 2
    elif x <= y:
        ts, tl = <uint64_t>tx[0], <uint64_t>ty[0]
    else:
        ts, tl = <uint64_t>ty[0], <uint64_t>tx[0]
    if tl > 2 or ts > 2:
        return
    misere_endgame(s, l, &ts, &tl)
    if x <= y:
        tx[0], ty[0] = <int64_t>ts, <int64_t>tl
    else:
        tx[0], ty[0] = <int64_t>tl, <int64_t>ts


cdef Py_ssize_t array_position_rows(const uint64_t* x, int64_t* row, int64_t* column, Py_ssize_t size,
                                     uint64_t limit) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t v, lo, hi, first, n
    cdef int shift
    for i in range(size):
        v = x[i]
        if (v == 0) | (v > limit):
            return i
        # Each row is a chain of left shifts of its first entry, a_{a_r}.
        lo = encode_wide(v, &hi)
        shift = ctz64(lo) if lo else 64 + ctz64(hi)
        if shift >= 64:
            lo = hi >> (shift - 64)
            hi = 0
        elif shift > 0:
            lo = (lo >> shift) | (hi << (64 - shift))
            hi >>= shift
        first = decode_wide(lo, hi)
        lower_count(first, &n)  # first = a_n with n = a_r, an A-number too
        lower_count(n, &first)
        row[i] = <int64_t>first
        column[i] = shift + 1
    return -1


def wythoff_array_position(const uint64_t[::1] x, int64_t[::1] row, int64_t[::1] column,
                   uint64_t limit):
    """(row[i], column[i]) = the 1-based place of x[i] >= 1 in the Wythoff array.
    Returns the first i with x[i] = 0 (not in the array) or above limit, or -1."""
    cdef Py_ssize_t first_bad
    with nogil:
        first_bad = array_position_rows(&x[0], &row[0], &column[0], x.shape[0], limit) if x.shape[0] else -1
    return first_bad

