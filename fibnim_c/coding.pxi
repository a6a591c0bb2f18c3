# Fibonacci coding (docs/math/coding.rst): the codeword of n >= 1 is its
# Zeckendorf digits from F_2 up to its top term F_k, then a 1: k bits, ending
# in the only "11" of the codeword. A stream is codewords one after another,
# its first bit the top bit of byte 0. The twins: fibnim._pure.coding.


cdef extern from "coding.h":
    uint64_t stream_window "fibnim_stream_window"(const uint8_t* data, uint64_t bits,
                                                 uint64_t p) noexcept nogil
    uint64_t closing_bits "fibnim_closing_bits"(uint64_t w) noexcept nogil
    ctypedef struct Writer "fibnim_writer":
        uint8_t* out
        uint64_t acc
        int used
    void put "fibnim_put"(Writer* writer, uint64_t word, int length) noexcept nogil


cdef enum:
    CODEWORD_MAX = 93  # F_93 < 2**64 <= F_94: no codeword of a uint64 is longer
    WINDOW = 56  # codeword bits per window: 7 bytes of a codeword's digits
    # unpack's stops
    STREAM_DONE = 0  # out is full, or no codeword begins before the end
    STREAM_CUT = 1  # bits left at the end but no whole codeword in them
    STREAM_TOO_LARGE = 2  # a codeword worth more than 2**64 - 1


cdef inline uint64_t short_value(uint64_t code, int digits) noexcept nogil:
    """The value of a code of at most 56 digits (F_2's at bit 0); most
    codewords have 16 or fewer, and two bytes' values make theirs."""
    if digits <= 16:
        return BYTE_VALUE[0][code & 0xFF] + BYTE_VALUE[1][code >> 8]
    return decode_one(code)


cdef inline uint64_t window_value(uint64_t window, int first_byte, int digits) noexcept nogil:
    """The value of the first `digits` bits (at most 56) of a window that holds
    the codeword's bytes from first_byte on; the digits have no two adjacent
    ones, so no byte's value, nor a first window's sum (below F_58), wraps."""
    cdef uint64_t kept = window & ~(~(<uint64_t>0) >> digits) if digits else 0
    cdef uint64_t value = (STREAM_VALUE[first_byte][kept >> 56]
                           + STREAM_VALUE[first_byte + 1][(kept >> 48) & 0xFF])
    cdef int b
    if digits > 16:  # a branch that the data decide alike, value after value
        for b in range(2, 7):
            value += STREAM_VALUE[first_byte + b][(kept >> (56 - 8 * b)) & 0xFF]
    return value


cdef inline bint add_window(uint64_t* value, uint64_t window, int digits) noexcept nogil:
    """Add the value of a second window's first `digits` bits (F_58 on) to
    value[0]; whether the sum passed 2**64 - 1 (those digits alone may)."""
    cdef uint64_t kept = window & ~(~(<uint64_t>0) >> digits) if digits else 0
    cdef uint64_t term
    cdef bint carry = False
    cdef int b
    for b in range(7):
        term = STREAM_VALUE[WINDOW // 8 + b][(kept >> (56 - 8 * b)) & 0xFF]
        value[0] += term
        carry |= value[0] < term
    return carry


cdef inline void pack_into(const uint64_t* values, Py_ssize_t size, uint8_t* out,
                           uint64_t* position, uint64_t capacity, Py_ssize_t* done) noexcept nogil:
    """Append the codewords of values to the stream at out, from bit position[0]
    up to capacity bits (out holds whole 8-byte words past it, zero where not
    yet written); stop at a 0, or at a codeword that would pass capacity (the
    values changed since they were sized). done[0]: how many were written."""
    cdef uint64_t p = position[0], value, first, second
    cdef Writer writer
    writer.out = out + (p >> 6) * 8
    writer.acc = load_be64(writer.out) if p & 63 else 0  # what the word holds already
    writer.used = p & 63
    cdef int length
    cdef Py_ssize_t i = 0
    while i < size:
        value = values[i]
        if value == 0:
            break
        # the digits in stream order (F_2's first), then the closing 1; below
        # F_24 (most gaps), one look-up: a branch that goes alike value after value
        if value < F24:
            first = (<uint64_t>STREAM_CODE[value]) << 32
            second = 0
        else:
            first = stream_code_wide(value, &second)
        length = 129 - ctz64(second) if second else 65 - ctz64(first)  # the top digit, then 1
        if p + <uint64_t>length > capacity:
            break
        if length > 64:
            put(&writer, first, 64)
            put(&writer, second | (<uint64_t>1) << (128 - length), length - 64)
        else:
            put(&writer, first | (<uint64_t>1) << (64 - length), length)
        p += length
        i += 1
    if writer.used:  # the bits past the last full word
        store_be64(writer.out, writer.acc)
    position[0] = p
    done[0] = i


cdef inline int unpack_from(const uint8_t* data, uint64_t bits, uint64_t* position,
                            uint64_t* out, Py_ssize_t size, Py_ssize_t* done) noexcept nogil:
    """Decode codewords of the stream from bit position[0] into out (or only
    count them where out is NULL), at most size; position[0] ends after the last
    whole one, done[0] counts them. Returns why it stopped (STREAM_*).

    The stream is read WINDOW bits at a time from where a codeword starts,
    and the window's closing bits all found at once (closing_bits), so that
    each codeword's place waits on clearing a bit, not on the one before; a
    codeword longer than a window takes two."""
    cdef uint64_t p = position[0], first, window, closing, second, pairs, value
    cdef int start, end, whole, length
    cdef Py_ssize_t i = 0
    cdef int stop = STREAM_DONE
    while i < size and p < bits:
        first = stream_window(data, bits, p)
        if first & (first << 1) & ~(~(<uint64_t>0) >> (WINDOW - 1)):  # a "11" in the window
            window = reverse64(first) & ((<uint64_t>1 << WINDOW) - 1)
            closing = closing_bits(window)
            whole = bit_length(closing)  # the window's codewords' bits, known early
            start = 0
            while True:
                end = ctz64(closing)  # the codeword's closing 1
                if out != NULL:
                    out[i] = short_value((window >> start) & ((<uint64_t>1 << (end - start)) - 1),
                                         end - start)
                i += 1
                start = end + 1
                closing &= closing - 1
                if not closing or i == size:
                    break
            p += whole if not closing else start  # the next window waits on no value
            continue
        # no "11" in a whole window: a codeword of 57 bits or more
        second = stream_window(data, bits, p + WINDOW)
        pairs = second & (second << 1) & ~(~(<uint64_t>0) >> (WINDOW - 1))
        if (first >> 8) & (second >> 63) & 1:  # the pair across the windows
            length = WINDOW + 1
        elif pairs:
            length = WINDOW + 66 - bit_length(pairs)
        else:
            length = CODEWORD_MAX + 1  # no "11" in 112 bits
        if length > CODEWORD_MAX:
            stop = STREAM_CUT if bits - p <= CODEWORD_MAX else STREAM_TOO_LARGE
            break
        if out != NULL:
            value = window_value(first, 0, WINDOW)
            if add_window(&value, second, length - 1 - WINDOW):
                stop = STREAM_TOO_LARGE
                break
            out[i] = value
        p += length
        i += 1
    position[0] = p
    done[0] = i
    return stop

def coding_lengths(const uint64_t[::1] values, uint8_t[::1] out):
    """out[i] = the length in bits of values[i]'s codeword; the first i with
    values[i] = 0 (no codeword), or -1."""
    cdef Py_ssize_t i, bad = -1, size = values.shape[0]
    cdef uint64_t value
    with nogil:
        for i in range(size):
            value = values[i]
            if value == 0:
                bad = i
                break
            out[i] = <uint8_t>codeword_length(value)
    return bad


def coding_bits(const uint64_t[::1] values, uint64_t[::1] state):
    """state[0] += the length in bits of values' codewords (lengths without
    writing them); the first i with values[i] = 0 (no codeword), or -1."""
    cdef Py_ssize_t i, bad = -1, size = values.shape[0]
    cdef uint64_t value, total = 0
    with nogil:
        for i in range(size):
            value = values[i]
            if value == 0:
                bad = i
                break
            total += codeword_length(value)
    state[0] += total
    return bad


def coding_pack(const uint64_t[::1] values, uint8_t[::1] out, uint64_t[::1] state):
    """Append values' codewords to the stream in out from bit state[0], up to
    state[1] bits (out: whole 8-byte words, zero past what is written); state[0]
    ends after the last one. Returns the first i not written (a 0, or a
    codeword past state[1]: the values changed since they were sized), or -1."""
    cdef Py_ssize_t done = 0, size = values.shape[0]
    if size == 0:
        return -1
    if out.shape[0] % 8 or state[1] > <uint64_t>out.shape[0] * 8 or state[0] > state[1]:
        raise ValueError("coding_pack: out must be whole 8-byte words holding state[1] bits")
    with nogil:
        pack_into(&values[0], size, &out[0], &state[0], state[1], &done)
    return -1 if done == size else done


def coding_count(const uint8_t[::1] data, uint64_t bits):
    """The number of codewords that end within the first `bits` bits of data:
    its "11" pairs, taken one after another from the first bit."""
    if bits > <uint64_t>data.shape[0] * 8:
        raise ValueError("coding_count: bits is past the data")
    if bits == 0:
        return 0
    cdef const Path* path = current_path()
    cdef uint64_t count
    with nogil:
        count = path.count_codewords(&data[0], bits)
    return count


def coding_unpack(const uint8_t[::1] data, uint64_t[::1] out, uint64_t[::1] state):
    """Decode the stream in data (state[1] bits of it) from bit state[0] into
    out, at most out.shape[0] values (an empty out: count them only, up to
    state[2]); state[0] ends after the last whole codeword, state[2] gets how
    many. Returns why it stopped: 0 done, 1 bits left but no whole codeword
    in them, 2 a codeword worth more than 2**64 - 1 (at state[0])."""
    cdef Py_ssize_t done = 0, size = out.shape[0]
    cdef uint64_t* target = &out[0] if size else NULL
    cdef const uint8_t* stream = &data[0] if data.shape[0] else NULL
    if state[1] > <uint64_t>data.shape[0] * 8:
        raise ValueError("coding_unpack: state[1] is past the data")
    if not size:
        size = <Py_ssize_t>min(state[2], <uint64_t>(2**63 - 1))
    cdef int stop
    with nogil:
        stop = unpack_from(stream, state[1], &state[0], target, size, &done)
    state[2] = done
    return stop
