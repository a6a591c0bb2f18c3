# Fibonacci coding (docs/math/coding.rst): the codeword of n >= 1 is its
# Zeckendorf digits from F_2 up to its top term F_k, then a 1: k bits, ending
# in the only "11" of the codeword. A stream is codewords one after another,
# its first bit the top bit of byte 0. The twins: fibnim._pure.coding. The
# count and the decoder are C (coding.h), compiled for each implementation.


cdef extern from "coding.h":
    ctypedef struct Writer "fibnim_writer":
        uint8_t* out
        uint64_t acc
        int used
    void put "fibnim_put"(Writer* writer, uint64_t word, int length) noexcept nogil


cdef inline int codeword(uint64_t value, uint64_t* first, uint64_t* second) noexcept nogil:
    """The codeword of value >= 1, left-aligned: its first 64 bits in first[0],
    the rest in second[0]; returns its length. Below F_24 (most gaps), one
    look-up: a branch that goes alike value after value."""
    cdef uint64_t code, after = 0
    if value < F24:
        code = (<uint64_t>STREAM_CODE[value]) << 32
    else:
        code = stream_code_wide(value, &after)
    cdef int length = 129 - ctz64(after) if after else 65 - ctz64(code)  # the top digit, then 1
    if length > 64:
        after |= (<uint64_t>1) << (128 - length)
    else:
        code |= (<uint64_t>1) << (64 - length)
    first[0] = code
    second[0] = after
    return length


cdef inline void put_codeword(Writer* writer, uint64_t first, uint64_t second, int length) noexcept nogil:
    if length > 64:
        put(writer, first, 64)
        put(writer, second, length - 64)
    else:
        put(writer, first, length)


cdef inline void pack_into(const uint64_t* values, Py_ssize_t size, uint8_t* out,
                           uint64_t* position, uint64_t capacity, Py_ssize_t* done) noexcept nogil:
    """Append the codewords of values to the stream at out, from bit position[0]
    up to capacity bits (out holds whole 8-byte words past it, zero where not
    yet written); stop at a 0, or at a codeword that would pass capacity (the
    values changed since they were sized). done[0]: how many were written.

    Four values' codewords are made before any is written, so that their
    chains of dependent estimates (some 70 cycles for a large value) overlap."""
    cdef uint64_t p = position[0], v0, v1, v2, v3
    cdef uint64_t f0, f1, f2, f3, s0, s1, s2, s3
    cdef int l0, l1, l2, l3
    cdef Writer writer
    writer.out = out + (p >> 6) * 8
    writer.acc = load_be64(writer.out) if p & 63 else 0  # what the word holds already
    writer.used = p & 63
    cdef Py_ssize_t i = 0
    while i + 4 <= size:
        v0 = values[i]
        v1 = values[i + 1]
        v2 = values[i + 2]
        v3 = values[i + 3]
        if not (v0 and v1 and v2 and v3):
            break
        l0 = codeword(v0, &f0, &s0)
        l1 = codeword(v1, &f1, &s1)
        l2 = codeword(v2, &f2, &s2)
        l3 = codeword(v3, &f3, &s3)
        if p + <uint64_t>(l0 + l1 + l2 + l3) > capacity:
            break
        put_codeword(&writer, f0, s0, l0)
        put_codeword(&writer, f1, s1, l1)
        put_codeword(&writer, f2, s2, l2)
        put_codeword(&writer, f3, s3, l3)
        p += <uint64_t>(l0 + l1 + l2 + l3)
        i += 4
    while i < size:  # the last few, or where the four above stopped
        v0 = values[i]
        if v0 == 0:
            break
        l0 = codeword(v0, &f0, &s0)
        if p + <uint64_t>l0 > capacity:
            break
        put_codeword(&writer, f0, s0, l0)
        p += l0
        i += 1
    if writer.used:  # the bits past the last full word
        store_be64(writer.out, writer.acc)
    position[0] = p
    done[0] = i


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
    cdef Py_ssize_t i = 0, bad = -1, size = values.shape[0]
    cdef uint64_t v0, v1, v2, v3, total = 0
    with nogil:
        while i + 4 <= size:  # four at a time: one test for a 0, one branch
            v0 = values[i]
            v1 = values[i + 1]
            v2 = values[i + 2]
            v3 = values[i + 3]
            if (v0 == 0) | (v1 == 0) | (v2 == 0) | (v3 == 0):
                break
            total += <uint64_t>(codeword_length(v0) + codeword_length(v1)
                                + codeword_length(v2) + codeword_length(v3))
            i += 4
        while i < size:  # the last few, or the four with a 0
            v0 = values[i]
            if v0 == 0:
                bad = i
                break
            total += <uint64_t>codeword_length(v0)
            i += 1
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
    cdef const Path* path = current_path()
    with nogil:
        stop = path.unpack(stream, state[1], &state[0], target, size, &done)
    state[2] = done
    return stop
