# CSV text (fibnim._files): the fields that need quotes put between the
# fields that need none. pyarrow's CSV writer quotes every text field or
# none, so it writes the plain columns of a chunk, and this pass puts the
# others among them, each quoted (RFC 4180) where it holds the delimiter, a
# quote or a line break. The twin: fibnim._pure.text.

from libc.string cimport memchr, memcpy


cdef extern from "text.h":
    Py_ssize_t fibnim_next_special(const uint8_t* data, Py_ssize_t i, Py_ssize_t size) noexcept nogil


cdef inline Py_ssize_t put_field(const uint8_t* field, Py_ssize_t size, const uint8_t* special,
                                 uint8_t* out) noexcept nogil:
    """field at out, between quotes with its quotes doubled where it holds a
    byte that special marks; returns the bytes written."""
    cdef Py_ssize_t i, w = 0
    cdef uint8_t found = 0
    for i in range(size):
        found |= special[field[i]]
    if not found:
        memcpy(out, field, size)
        return size
    out[w] = 34
    w += 1
    if memchr(field, 34, size) == NULL:  # most often: no quote to double
        memcpy(out + w, field, size)
        w += size
    else:
        for i in range(size):
            out[w] = field[i]
            w += 1
            if field[i] == 34:
                out[w] = 34
                w += 1
    out[w] = 34
    return w + 1


cdef inline Py_ssize_t count_byte(const uint8_t* data, Py_ssize_t size, uint8_t byte) noexcept nogil:
    cdef Py_ssize_t i, count = 0
    for i in range(size):
        count += data[i] == byte
    return count


cdef Py_ssize_t interleave(const uint8_t* written, Py_ssize_t size, Py_ssize_t rows,
                           Py_ssize_t plain, const int64_t* before, Py_ssize_t quoted,
                           const int64_t* bounds, const uint8_t* data, Py_ssize_t data_size,
                           const uint8_t* present, uint8_t delimiter, uint8_t* out,
                           Py_ssize_t capacity) noexcept nogil:
    """The lines with the quoted fields in place (see text_csv_interleave);
    the bytes written, or -1 at the first line that is not as described.
    The plain fields between two quoted places go over in one copy."""
    cdef uint8_t special[256]
    cdef Py_ssize_t i, t, f, g, r = 0, w = 0, start, length, separators
    cdef int64_t first, last
    cdef const uint8_t* end
    for i in range(256):
        special[i] = i == delimiter or i == 34 or i == 10 or i == 13
    for i in range(rows):
        t = 0
        f = 0  # the plain fields of this line placed so far
        while True:
            while t < quoted and before[t] == f:
                first = bounds[t * (rows + 1) + i]
                last = bounds[t * (rows + 1) + i + 1]
                # checked as it goes: bounds inside data, and room for the
                # field quoted with every byte doubled, its separator after
                if first < 0 or last < first or last > data_size:
                    return -1
                if capacity - w < 2 * (last - first) + 3:
                    return -1
                if last == first and present[t * rows + i]:  # "": the empty text, not null
                    out[w] = 34
                    out[w + 1] = 34
                    w += 2
                else:
                    w += put_field(data + first, last - first, special, out + w)
                t += 1
                out[w] = delimiter if f < plain or t < quoted else 10
                w += 1
            if f == plain:
                if t < quoted:
                    return -1  # before[] out of order
                break
            g = before[t] if t < quoted else plain  # plain fields f to g - 1 go next
            if g <= f or g > plain:
                return -1  # before[] out of order, or past the plain fields
            start = r
            if g == plain:  # to the line's end, past g - f - 1 delimiters
                end = <const uint8_t*>memchr(written + r, 10, size - r)
                if end == NULL:
                    return -1
                r = end - written
                separators = count_byte(written + start, r - start, delimiter) + 1
            else:  # to the (g - f)-th delimiter, within the line
                separators = 0
                while r < size and written[r] != 10:
                    if written[r] == delimiter:
                        separators += 1
                        if separators == g - f:
                            break
                    r += 1
                if r == size or written[r] != delimiter:
                    return -1
            if separators != g - f:
                return -1  # a line of another number of fields
            length = r - start
            if capacity - w < length + 1:
                return -1
            memcpy(out + w, written + start, length)
            w += length
            # the line ends here unless quoted fields come after the last plain one
            out[w] = delimiter if g < plain or t < quoted else 10
            w += 1
            r += 1
            f = g
    return w if r == size else -1


def text_csv_interleave(const uint8_t[::1] written, Py_ssize_t rows, Py_ssize_t plain,
                        const int64_t[::1] before, const int64_t[:, ::1] bounds,
                        const uint8_t[::1] data, const uint8_t[:, ::1] present,
                        uint8_t delimiter, uint8_t[::1] out):
    """Lines of CSV: `written` holds `rows` lines of `plain` fields that need
    no quotes (each line ending in LF); quoted column t goes before plain field
    before[t] (before non-decreasing, at most plain), its field in row i the
    bytes data[bounds[t, i]:bounds[t, i + 1]]. Into out, each such field
    between quotes with its quotes doubled where it holds the delimiter, a
    quote, CR or LF, and an empty one as "" where present[t, i] is not 0
    (the empty text; else it is missing, and stays empty). Returns the bytes written to out, or -1 where the input is
    not as described or out holds less than len(written) + 3 * rows *
    len(before) + 2 * (the bytes of the quoted fields)."""
    cdef Py_ssize_t quoted = before.shape[0], written_size
    if plain < 1 or rows < 0 or bounds.shape[0] != quoted or bounds.shape[1] != rows + 1:
        return -1
    if present.shape[0] != quoted or present.shape[1] != rows:
        return -1
    if rows == 0:
        return 0 if written.shape[0] == 0 else -1
    cdef const uint8_t* text = &data[0] if data.shape[0] else <const uint8_t*>&delimiter
    cdef const int64_t* starts = &bounds[0, 0] if quoted else NULL
    cdef const int64_t* places = &before[0] if quoted else NULL
    cdef const uint8_t* given = &present[0, 0] if quoted else NULL
    # room for every field quoted with every byte doubled: the rule the twin
    # keeps too (the kernel checks its room again as it goes)
    cdef Py_ssize_t t, need = written.shape[0] + 3 * rows * quoted
    for t in range(quoted):
        need += 2 * <Py_ssize_t>(bounds[t, rows] - bounds[t, 0])
    if written.shape[0] == 0 or out.shape[0] < need:
        return -1
    cdef Py_ssize_t done
    with nogil:
        done = interleave(&written[0], written.shape[0], rows, plain, places, quoted, starts,
                          text, data.shape[0], given, delimiter, &out[0], out.shape[0])
    return done


# the largest value that ten times gives at most 2**63 - 1, with 7 to add
cdef uint64_t TENTH = 922337203685477580ULL


cdef inline bint is_space(uint8_t byte) noexcept nogil:
    return byte == 32 or byte == 9


cdef Py_ssize_t parse_integers(const int64_t* offsets, Py_ssize_t count, const uint8_t* data,
                               Py_ssize_t size, int64_t* out) noexcept nogil:
    """Each field as its value (see text_parse_integers); the index of the
    first field that is not a non-negative int64, or count."""
    cdef Py_ssize_t i, first, last
    cdef uint64_t value, digit
    cdef bint negative
    for i in range(count):
        first = offsets[i]
        last = offsets[i + 1]
        if first < 0 or last < first or last > size:  # checked as it goes
            return i
        while first < last and is_space(data[first]):
            first += 1
        while last > first and is_space(data[last - 1]):
            last -= 1
        negative = False
        if first < last and (data[first] == 43 or data[first] == 45):  # + or -
            negative = data[first] == 45
            first += 1
        if first == last:
            return i
        value = 0
        while first < last:
            digit = <uint64_t>data[first] - 48
            # 2**63 - 1 = TENTH * 10 + 7: no step can wrap
            if digit > 9 or value > TENTH or (value == TENTH and digit > 7):
                return i
            value = value * 10 + digit
            first += 1
        if negative and value:
            return i
        out[i] = <int64_t>value
    return count


def text_parse_integers(const int64_t[::1] offsets, const uint8_t[::1] data, int64_t[::1] out):
    """The fields data[offsets[i]:offsets[i + 1]] as integers into out: a
    decimal integer, its sign optional, spaces and tabs around it allowed,
    from 0 to 2**63 - 1 ("-0" is 0). Returns len(out) where every field is
    one, else the index of the first that is not (or whose offsets are not
    within data); out is written up to it."""
    cdef Py_ssize_t count = out.shape[0], done
    if offsets.shape[0] != count + 1:
        return 0
    if count == 0:
        return 0
    cdef const uint8_t* text = &data[0] if data.shape[0] else <const uint8_t*>&count
    with nogil:
        done = parse_integers(&offsets[0], count, text, data.shape[0], &out[0])
    return done


cdef Py_ssize_t record_bounds(const uint8_t* data, Py_ssize_t size, Py_ssize_t skip,
                              int64_t* starts, int64_t* ends, Py_ssize_t room) noexcept nogil:
    """The records of a checked text (see text_records); their count, or -1
    where there are more than room."""
    cdef Py_ssize_t i = 0, start, count = 0
    cdef bint quoted
    while i < size:
        start = i
        quoted = False
        # a record ends at LF, CR LF or a lone CR outside quotes; a quote
        # toggles (a doubled one toggles twice: still inside)
        while True:
            i = fibnim_next_special(data, i, size)
            if i == size:
                break
            if data[i] == 34:
                quoted = not quoted
            elif not quoted:
                break
            i += 1
        if i > start:  # not a blank line
            if skip:
                skip -= 1
            else:
                if count == room:
                    return -1
                starts[count] = start
                ends[count] = i
                count += 1
        if i < size and data[i] == 13 and i + 1 < size and data[i + 1] == 10:
            i += 1
        i += 1
    return count


def text_records(const uint8_t[::1] data, Py_ssize_t skip, int64_t[::1] starts,
                 int64_t[::1] ends):
    """Where each record of data (CSV or TSV whose quotes are as RFC 4180
    has them) lies: record i is data[starts[i]:ends[i]], its line break left
    out; blank lines and the first `skip` records are passed over. Returns the
    number of records, or -1 where starts or ends cannot hold them all."""
    cdef Py_ssize_t room = min(starts.shape[0], ends.shape[0]), count
    if data.shape[0] == 0:
        return 0
    cdef int64_t spare
    cdef int64_t* first = &starts[0] if room else &spare
    cdef int64_t* last = &ends[0] if room else &spare
    with nogil:
        count = record_bounds(&data[0], data.shape[0], skip, first, last, room)
    return count


cdef const char* DIGIT_PAIRS = (b"00010203040506070809101112131415161718192021222324"
                                b"25262728293031323334353637383940414243444546474849"
                                b"50515253545556575859606162636465666768697071727374"
                                b"75767778798081828384858687888990919293949596979899")


cdef inline Py_ssize_t put_integer(uint64_t value, uint8_t* out) noexcept nogil:
    """value in decimal at out, two digits a division; the bytes written (at most 20)."""
    cdef uint8_t digits[20]
    cdef Py_ssize_t n = 20
    cdef uint64_t pair
    while value >= 100:
        pair = 2 * (value % 100)
        value //= 100
        n -= 2
        digits[n] = DIGIT_PAIRS[pair]
        digits[n + 1] = DIGIT_PAIRS[pair + 1]
    if value >= 10:
        n -= 2
        digits[n] = DIGIT_PAIRS[2 * value]
        digits[n + 1] = DIGIT_PAIRS[2 * value + 1]
    else:
        n -= 1
        digits[n] = <uint8_t>(48 + value)
    memcpy(out, digits + n, 20 - n)
    return 20 - n


cdef Py_ssize_t records_answers(const uint8_t* data, Py_ssize_t size, const int64_t* starts,
                                const int64_t* ends, Py_ssize_t rows, const int64_t* result,
                                Py_ssize_t width, uint8_t delimiter, uint8_t* out,
                                Py_ssize_t capacity) noexcept nogil:
    """The lines of text_records_answers; the bytes written, or -1."""
    cdef Py_ssize_t i, j, w = 0, length
    cdef int64_t first, last, target
    cdef const int64_t* row
    for i in range(rows):
        first = starts[i]
        last = ends[i]
        # checked as it goes: the record inside data, and room for it and
        # the answers (a delimiter, P or N, then up to 20 bytes a move, LF)
        if first < 0 or last < first or last > size:
            return -1
        length = last - first
        if capacity - w < length + 3 + 20 * (width - 1):
            return -1
        memcpy(out + w, data + first, length)
        w += length
        row = result + i * width
        out[w] = delimiter
        out[w + 1] = 80 if row[0] == 1 else 78  # P or N
        w += 2
        for j in range(1, width):
            out[w] = delimiter
            w += 1
            target = row[j]
            if target >= 0:  # -1: no move, an empty field
                w += put_integer(<uint64_t>target, out + w)
        out[w] = 10
        w += 1
    return w


def text_records_answers(const uint8_t[::1] data, const int64_t[::1] starts,
                         const int64_t[::1] ends, const int64_t[:, ::1] result,
                         uint8_t delimiter, uint8_t[::1] out):
    """Lines of CSV or TSV: each record data[starts[i]:ends[i]] as it is, then
    its answers from result[i] (1 for P, else N; then each move, an empty
    field where it is negative), each after the delimiter, then LF. Returns
    the bytes written to out, or -1 where the bounds are not within data or
    out holds less than the records' bytes and 3 + 20 * (result.shape[1] - 1)
    a row."""
    cdef Py_ssize_t rows = result.shape[0], width = result.shape[1], done
    if starts.shape[0] != rows or ends.shape[0] != rows or width < 1:
        return -1
    if rows == 0:
        return 0
    # room for every record and its longest answers: the rule the twin keeps
    # too (the kernel checks its room again as it goes)
    cdef Py_ssize_t i, need = rows * (3 + 20 * (width - 1))
    for i in range(rows):
        need += ends[i] - starts[i]
    if out.shape[0] < need:
        return -1
    cdef uint8_t spare = 0
    cdef const uint8_t* text = &data[0] if data.shape[0] else &spare
    with nogil:
        done = records_answers(text, data.shape[0], &starts[0], &ends[0], rows, &result[0, 0],
                               width, delimiter, &out[0], out.shape[0])
    return done


cdef inline bint ends_field(uint8_t byte, uint8_t delimiter) noexcept nogil:
    return byte == delimiter or byte == 10 or byte == 13


cdef void scan(const uint8_t* data, Py_ssize_t size, uint8_t delimiter, bint last,
               int64_t* found) noexcept nogil:
    """See text_scan: found[0..3] = cut, records, line breaks, first bad quote."""
    cdef Py_ssize_t i = 0, special, length = 0, records = 0, lines = 0, bad = -1
    cdef Py_ssize_t cut = 0, cut_records = 0, cut_lines = 0
    cdef bint quoted = False
    cdef uint8_t byte
    while True:
        special = fibnim_next_special(data, i, size)
        length += special - i
        if special == size:
            break
        i = special
        byte = data[i]
        if byte == 34:
            # an opening quote starts a field or doubles a closing one; a
            # closing quote ends a field or is doubled (the next is opening)
            if bad < 0:
                if not quoted and i > 0 and not ends_field(data[i - 1], delimiter) \
                        and data[i - 1] != 34:
                    bad = i
                elif quoted and i + 1 < size and not ends_field(data[i + 1], delimiter) \
                        and data[i + 1] != 34:
                    bad = i
            quoted = not quoted
            length += 1
        else:  # LF or CR
            if byte == 10 or i + 1 == size or data[i + 1] != 10:
                lines += 1  # LF, CR LF or a lone CR
            if quoted:
                length += 1
            else:
                if length:  # else a blank line
                    records += 1
                    length = 0
                if byte == 10:  # a block may be cut after it
                    cut, cut_records, cut_lines = i + 1, records, lines
        i += 1
    if last:
        if length:
            records += 1
        if quoted and bad < 0:
            bad = size  # a quote never closed
        cut, cut_records, cut_lines = size, records, lines
    found[0] = cut
    found[1] = cut_records
    found[2] = cut_lines
    found[3] = bad if bad < cut or (last and bad >= 0) else -1


def text_scan(const uint8_t[::1] data, uint8_t delimiter, bint last):
    """One pass over text read so far (CSV or TSV): (cut, records, lines, bad).
    cut: where its whole records end, after its last LF outside quotes (0:
    none), or its end where it is `last` (the end of the text); records: the
    records before the cut, blank lines not counted; lines: the line breaks
    before it (LF, CR LF, a lone CR); bad: the first quote before it that
    RFC 4180 does not allow (an opening quote starts a field or doubles a
    quote, a closing one ends a field or is doubled), the text's length where
    it is last and a quote is never closed, else -1."""
    cdef int64_t found[4]
    if data.shape[0] == 0:
        return (0, 0, 0, -1)
    with nogil:
        scan(&data[0], data.shape[0], delimiter, last, found)
    return (found[0], found[1], found[2], found[3])
