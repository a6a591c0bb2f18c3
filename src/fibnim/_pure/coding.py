"""Pure twin of the coding kernels of fibnim._core (fibnim_c/coding.pxi).

The same names, signatures, stops and results: a stream of codewords, each
the Zeckendorf digits of a value from F_2 up, then a 1, the first bit of the
stream the top bit of its first byte. Bits are handled as Python strings of
"0" and "1"; fibnim._exact does the arithmetic.
"""

from __future__ import annotations

import numpy as np

from fibnim._exact import zeckendorf as ints

CODEWORD_MAX = 93  # F_93 < 2**64 <= F_94: no codeword of a uint64 is longer
UINT64_MAX = 2**64 - 1
STREAM_DONE, STREAM_CUT, STREAM_TOO_LARGE = 0, 1, 2


def _codeword(value: int) -> str:
    return format(ints.code(value), "b")[::-1] + "1"


def lengths(values: np.ndarray, out: np.ndarray) -> int:
    """out[i] = the length in bits of values[i]'s codeword; the first i with
    values[i] = 0 (no codeword), or -1."""
    for i, value in enumerate(values.tolist()):
        if value == 0:
            return i
        out[i] = ints.code(value).bit_length() + 1
    return -1


def bits(values: np.ndarray, state: np.ndarray) -> int:
    """state[0] += the length in bits of values' codewords (lengths without
    writing them); the first i with values[i] = 0 (no codeword), or -1."""
    out = np.empty(values.size, dtype=np.uint8)
    bad = lengths(values, out)
    state[0] += int(out[: bad if bad >= 0 else values.size].sum(dtype=np.uint64))
    return bad


def pack(values: np.ndarray, out: np.ndarray, state: np.ndarray) -> int:
    """Append values' codewords to the stream in out from bit state[0], up to
    state[1] bits; state[0] ends after the last one. Returns the first i not
    written (a 0, or a codeword past state[1]), or -1."""
    if values.size == 0:
        return -1
    if out.size % 8 or int(state[1]) > out.size * 8 or int(state[0]) > int(state[1]):
        raise ValueError("coding_pack: out must be whole 8-byte words holding state[1] bits")
    start, capacity = int(state[0]), int(state[1])
    position, words, stopped = start, [], -1
    for i, value in enumerate(values.tolist()):
        word = _codeword(value) if value else ""
        if not word or position + len(word) > capacity:
            stopped = i
            break
        words.append(word)
        position += len(word)
    if words:
        offset = start % 8
        text = "0" * offset + "".join(words)
        text += "0" * (-len(text) % 8)
        first = start // 8
        written = np.frombuffer(int(text, 2).to_bytes(len(text) // 8, "big"), dtype=np.uint8)
        out[first : first + written.size] |= written
    state[0] = position
    return stopped


def _stream(data: np.ndarray, bits: int) -> str:
    return "".join(format(byte, "08b") for byte in data.tobytes())[:bits]


def count(data: np.ndarray, bits: int) -> int:
    """The number of codewords that end within the first `bits` bits of data:
    its "11" pairs, taken one after another from the first bit."""
    if bits > data.size * 8:
        raise ValueError("coding_count: bits is past the data")
    return _stream(data, bits).count("11")  # str.count takes them so: left to right, no overlap


def unpack(data: np.ndarray, out: np.ndarray, state: np.ndarray) -> int:
    """Decode the stream in data (state[1] bits of it) from bit state[0] into
    out, at most out.shape[0] values (an empty out: count them only, up to
    state[2]); state[0] ends after the last whole codeword, state[2] gets how
    many. Returns why it stopped: 0 done, 1 bits left but no whole codeword in
    them, 2 a codeword worth more than 2**64 - 1 (at state[0])."""
    position, bits = int(state[0]), int(state[1])
    if bits > data.size * 8:
        raise ValueError("coding_unpack: state[1] is past the data")
    size = out.size if out.size else int(state[2])
    stream = _stream(data, bits)
    done, stop = 0, STREAM_DONE
    while done < size and position < bits:
        pair = stream.find("11", position)
        length = pair + 2 - position if pair >= 0 else CODEWORD_MAX + 1
        if length > CODEWORD_MAX:
            stop = STREAM_CUT if bits - position <= CODEWORD_MAX else STREAM_TOO_LARGE
            break
        value = ints.value(int(stream[position : pair + 1][::-1], 2))
        if value > UINT64_MAX:
            stop = STREAM_TOO_LARGE
            break
        if out.size:
            out[done] = value
        position += length
        done += 1
    state[0], state[2] = position, done
    return stop
