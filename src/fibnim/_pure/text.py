"""Pure twin of the CSV text kernels of fibnim._core (fibnim_c/text.pxi).

The same names, signatures and results: the fields that need quotes put
between the fields of lines that need none, line by line in Python; the
fields of a pile column read as integers, one regular expression each; and
records found, and passed through with their answers after them.
"""

from __future__ import annotations

import re

import numpy as np

_QUOTE = b'"'


def csv_interleave(
    written: np.ndarray,
    rows: int,
    plain: int,
    before: np.ndarray,
    bounds: np.ndarray,
    data: np.ndarray,
    present: np.ndarray,
    delimiter: int,
    out: np.ndarray,
) -> int:
    """Lines of CSV: `written` holds `rows` lines of `plain` fields that need
    no quotes (each line ending in LF); quoted column t goes before plain field
    before[t] (before non-decreasing, at most plain), its field in row i the
    bytes data[bounds[t, i]:bounds[t, i + 1]]. Into out, each such field
    between quotes with its quotes doubled where it holds the delimiter, a
    quote, CR or LF, and an empty one as "" where present[t, i] is not 0
    (the empty text; else it is missing, and stays empty). Returns the bytes
    written to out, or -1 where the input is not as described or out holds
    less than len(written) + 3 * rows * len(before) + 2 * (the bytes of the
    quoted fields)."""
    places = [int(place) for place in before]
    quoted = len(places)
    if plain < 1 or rows < 0 or bounds.shape != (quoted, rows + 1):
        return -1
    if present.shape != (quoted, rows):
        return -1
    if rows == 0:
        return 0 if len(written) == 0 else -1
    if places != sorted(places) or (places and not 0 <= places[0] <= places[-1] <= plain):
        return -1
    spans = sum(int(bounds[t, rows]) - int(bounds[t, 0]) for t in range(quoted))
    if len(written) == 0 or out.size < len(written) + 3 * rows * quoted + 2 * spans:
        return -1
    text, separator = bytes(data), bytes([delimiter])
    lines = bytes(written).split(b"\n")
    if lines.pop() != b"" or len(lines) != rows:
        return -1
    made = []
    for i, line in enumerate(lines):
        fields = line.split(separator)
        if len(fields) != plain:
            return -1
        for t in reversed(range(quoted)):  # from the last, so that places stay right
            first, last = int(bounds[t, i]), int(bounds[t, i + 1])
            if not 0 <= first <= last <= len(text):
                return -1
            field = text[first:last]
            if not field and present[t, i]:
                field = _QUOTE * 2
            elif any(special in field for special in (separator, _QUOTE, b"\r", b"\n")):
                field = _QUOTE + field.replace(_QUOTE, _QUOTE * 2) + _QUOTE
            fields.insert(places[t], field)
        made.append(separator.join(fields) + b"\n")
    result = b"".join(made)
    out[: len(result)] = np.frombuffer(result, dtype=np.uint8)
    return len(result)


_INTEGER = re.compile(rb"[ \t]*([+-]?)([0-9]+)[ \t]*")


def parse_integers(offsets: np.ndarray, data: np.ndarray, out: np.ndarray) -> int:
    """The fields data[offsets[i]:offsets[i + 1]] as integers into out: a
    decimal integer, its sign optional, spaces and tabs around it allowed,
    from 0 to 2**63 - 1 ("-0" is 0). Returns len(out) where every field is
    one, else the index of the first that is not (or whose offsets are not
    within data); out is written up to it."""
    count = len(out)
    if len(offsets) != count + 1:
        return 0
    text = bytes(data)
    for i in range(count):
        first, last = int(offsets[i]), int(offsets[i + 1])
        if not 0 <= first <= last <= len(text):
            return i
        found = _INTEGER.fullmatch(text, first, last)
        if found is None:
            return i
        digits = found.group(2).lstrip(b"0")
        if len(digits) > 19:  # past int64, and int() refuses 4,300 digits
            return i
        value = int(digits or b"0")
        if value > 2**63 - 1 or (found.group(1) == b"-" and value):
            return i
        out[i] = value
    return count


_RECORD = re.compile(rb'(?:[^"\r\n]|"[^"]*")*')  # up to a line break outside quotes


def records(data: np.ndarray, skip: int, starts: np.ndarray, ends: np.ndarray) -> int:
    """Where each record of data (CSV or TSV whose quotes are as RFC 4180
    has them) lies: record i is data[starts[i]:ends[i]], its line break left
    out; blank lines and the first `skip` records are passed over. Returns the
    number of records, or -1 where starts or ends cannot hold them all."""
    text, room, count, position = bytes(data), min(len(starts), len(ends)), 0, 0
    while position < len(text):
        found = _RECORD.match(text, position)
        assert found is not None  # any text matches (a record may be empty)
        if found.end() > position:
            if skip:
                skip -= 1
            else:
                if count == room:
                    return -1
                starts[count], ends[count] = position, found.end()
                count += 1
        position = found.end()
        position += 2 if text[position : position + 2] == b"\r\n" else 1
    return count


def records_answers(
    data: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    result: np.ndarray,
    delimiter: int,
    out: np.ndarray,
) -> int:
    """Lines of CSV or TSV: each record data[starts[i]:ends[i]] as it is, then
    its answers from result[i] (1 for P, else N; then each move, an empty
    field where it is negative), each after the delimiter, then LF. Returns
    the bytes written to out, or -1 where the bounds are not within data or
    out holds less than the records' bytes and 3 + 20 * (result.shape[1] - 1)
    a row."""
    rows, width = result.shape
    if len(starts) != rows or len(ends) != rows or width < 1:
        return -1
    text, separator, lines, need = bytes(data), bytes([delimiter]), [], 0
    for i in range(rows):
        first, last = int(starts[i]), int(ends[i])
        if not 0 <= first <= last <= len(text):
            return -1
        need += last - first + 3 + 20 * (width - 1)
        answers = [b"P" if result[i, 0] == 1 else b"N"]
        answers += [b"%d" % t if t >= 0 else b"" for t in result[i, 1:].tolist()]
        lines.append(separator.join([text[first:last], *answers]) + b"\n")
    if out.size < need:
        return -1
    made = b"".join(lines)
    out[: len(made)] = np.frombuffer(made, dtype=np.uint8)
    return len(made)


_TOKEN = re.compile(rb'"|\r\n|\r|\n')  # what a scan looks at: quotes and line breaks


def scan(data: np.ndarray, delimiter: int, last: bool) -> tuple[int, int, int, int]:
    """One pass over text read so far (CSV or TSV): (cut, records, lines, bad).
    cut: where its whole records end, after its last LF outside quotes (0:
    none), or its end where it is `last` (the end of the text); records: the
    records before the cut, blank lines not counted; lines: the line breaks
    before it (LF, CR LF, a lone CR); bad: the first quote before it that
    RFC 4180 does not allow (an opening quote starts a field or doubles a
    quote, a closing one ends a field or is doubled), the text's length where
    it is last and a quote is never closed, else -1."""
    text = bytes(data)
    allowed = (delimiter, 10, 13, 34)  # what may stand beside a quote
    quoted, start, records_found, lines, bad = False, 0, 0, 0, -1
    cut = (0, 0, 0)  # where, records, lines
    for token in _TOKEN.finditer(text):
        place = token.start()
        if token.group() == _QUOTE:
            beside = place + 1 if quoted else place - 1
            if bad < 0 and 0 <= beside < len(text) and text[beside] not in allowed:
                bad = place
            quoted = not quoted
            continue
        lines += 1
        if quoted:
            continue
        records_found += place > start  # else a blank line
        start = token.end()
        if token.group().endswith(b"\n"):
            cut = (start, records_found, lines)
    if last:
        records_found += len(text) > start
        if quoted and bad < 0:
            bad = len(text)
        cut = (len(text), records_found, lines)
    if not (bad < cut[0] or (last and bad >= 0)):
        bad = -1
    return (*cut, bad)
