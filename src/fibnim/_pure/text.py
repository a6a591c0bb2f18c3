"""Pure twin of the CSV text kernels of fibnim._core (fibnim_c/text.pxi).

The same names, signatures and results: the fields that need quotes put
between the fields of lines that need none, line by line in Python; and
the fields of a pile column read as integers, one regular expression each.
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
