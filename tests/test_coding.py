"""Fibonacci coding (fibnim.coding), on both backends, against codewords made
here from the definition: the Zeckendorf digits from F_2 up, then a 1."""

from __future__ import annotations

import io
import itertools
import os
import re
import signal
import struct
import subprocess
import sys
import time
import zlib

import numpy as np
import pytest
from _support import run_fibnim, subprocess_env, tier
from hypothesis import given
from hypothesis import strategies as st

from fibnim import coding, fib
from fibnim._exact import zeckendorf as ints

UINT64_MAX = 2**64 - 1


def codeword(n: int) -> str:
    """The codeword of n >= 1, from its terms: digit i for F_{i+2}, then "1"."""
    digits = ["0"] * (ints.top_index(n) - 1)
    for term in ints.terms(n):
        digits[ints.top_index(term) - 2] = "1"
    return "".join(digits) + "1"


def stream(values: list[int]) -> bytes:
    bits = "".join(codeword(v) for v in values)
    bits += "0" * (-len(bits) % 8)
    return int(bits, 2).to_bytes(len(bits) // 8, "big") if bits else b""


def edges() -> list[int]:
    """1, F_k - 1, F_k, F_k + 1 for every k, 2**k - 1, 2**k, 2**k + 1, and the
    largest uint64 (a 93-bit codeword)."""
    values = {1, UINT64_MAX, UINT64_MAX - 1}
    for k in range(2, 94):
        values |= {fib(k) - 1, fib(k), fib(k) + 1}
    for k in range(65):
        values |= {2**k - 1, 2**k, 2**k + 1}
    return sorted(v for v in values if 1 <= v <= UINT64_MAX)


@pytest.mark.exhaustive
def test_every_value_up_to_10_5_is_its_codeword():
    values = list(range(1, 10**5 + 1))
    packed = coding.pack(values)
    assert packed.tobytes() == stream(values)
    assert coding.unpack(packed).tolist() == values


def test_random_streams_of_every_length_from_0_to_200_and_their_tails():
    rng = np.random.default_rng(11)
    for length in range(201):
        bits = rng.integers(0, 64, size=length).astype(np.uint64)
        values = (rng.integers(0, 2**63, size=length, dtype=np.uint64) >> bits) + np.uint64(1)
        packed = coding.pack(values)
        assert packed.tobytes() == stream(values.tolist()), length
        assert np.array_equal(coding.unpack(packed), values), length


def test_sizes_and_a_zero_at_every_place_of_short_arrays():
    # the size pass takes four values at a time, then the last few one by one
    rng = np.random.default_rng(12)
    for length in range(1, 14):
        shifts = rng.integers(0, 64, size=length).astype(np.uint64)
        values = (rng.integers(0, 2**63, size=length, dtype=np.uint64) >> shifts) + np.uint64(1)
        assert coding.packed_size(values) == (int(coding.lengths(values).sum()) + 7) // 8
        for at in range(length):
            zeroed = values.copy()
            zeroed[at] = 0
            with pytest.raises(ValueError, match=rf"packed_size: values\[{at}\] = 0 is below 1"):
                coding.packed_size(zeroed)


def test_every_implementation_writes_and_reads_the_pure_twins_bits():
    from fibnim import _backend

    compiled, pure = _backend.twins("coding")
    if compiled is None:
        pytest.skip("no compiled core in this installation: the pure twin is all there is")
    values = np.array(edges() * 3, dtype=np.uint64)
    np.random.default_rng(4).shuffle(values)
    before = _backend._CORE.implementation()  # the core's, whichever backend is active
    try:
        for name in _backend.implementations():
            _backend.use_implementation(name)
            streams = []
            for twin in (compiled, pure):
                lengths = np.empty(len(values), dtype=np.uint8)
                assert twin.lengths(values, lengths) == -1
                total = int(lengths.sum(dtype=np.uint64))
                out = np.zeros((total + 63) // 64 * 8, dtype=np.uint8)
                state = np.array([3, total + 3], dtype=np.uint64)  # from bit 3 on
                assert twin.pack(values, out, state) == -1 and int(state[0]) == total + 3
                decoded = np.empty(len(values), dtype=np.uint64)
                state = np.array([3, total + 3, 0], dtype=np.uint64)
                assert twin.unpack(out, decoded, state) == 0
                assert np.array_equal(decoded, values)
                streams.append(out.tobytes())
            assert streams[0] == streams[1], name
    finally:
        _backend.use_implementation(before)


def greedy_pairs(bits: str) -> int:
    """The codewords that end in bits: each "11" found walking from the start."""
    count = i = 0
    while i < len(bits) - 1:
        if bits[i] == bits[i + 1] == "1":
            count, i = count + 1, i + 2
        else:
            i += 1
    return count


# long runs of ones (words of ones, runs across words) and every other byte
_RUNS = st.sampled_from([0x00, 0xFF, 0x7F, 0xFE, 0x80, 0x01, 0xAA, 0x55, 0xDB, 0xB6])


def count_in_every_implementation(data: list[int], cut: int) -> None:
    """The compiled count under every implementation and the twin's, each
    held to the walk over the bits."""
    from fibnim import _backend

    array = np.array(data, dtype=np.uint8)
    bits = max(0, 8 * len(data) - cut)
    expected = greedy_pairs("".join(format(byte, "08b") for byte in data)[:bits])
    compiled, pure = _backend.twins("coding")
    assert pure.count(array, bits) == expected
    if compiled is None:
        return
    before = _backend._CORE.implementation()
    try:
        for name in _backend.implementations():
            _backend.use_implementation(name)
            assert compiled.count(array, bits) == expected, name
    finally:
        _backend.use_implementation(before)


# up to five blocks of the vector count's four words, with the words between
@given(st.lists(_RUNS | st.integers(0, 255), max_size=168), st.integers(0, 7))
def test_every_implementation_counts_the_codewords_that_end_in_a_stream(data, cut):
    count_in_every_implementation(data, cut)


@pytest.mark.parametrize("seed", range(4))
def test_every_implementation_counts_long_streams(seed):
    # past the vector count's 60 rounds of byte sums (1,920 bytes), twice;
    # words of ones (which pass their carry on) among the others
    rng = np.random.default_rng(seed)
    runs = [0x00, 0xFF, 0x7F, 0xFE, 0x80, 0x01, 0xAA, 0x55, 0xDB, 0xB6]
    picks = rng.integers(14, size=4500)
    data = [runs[i] if i < len(runs) else int(rng.integers(256)) for i in picks]
    for word in rng.integers(0, 550, size=6):  # whole words of ones, one to three
        length = 8 * int(rng.integers(1, 4))
        data[8 * word : 8 * word + length] = [0xFF] * length
    count_in_every_implementation(data, int(rng.integers(8)))


def test_the_codewords_of_the_issue_table():
    for n, word in [(1, "11"), (2, "011"), (3, "0011"), (4, "1011"), (11, "001011")]:
        assert codeword(n) == word
        bits = "".join(format(b, "08b") for b in coding.pack([n]))
        assert bits == word + "0" * (-len(word) % 8)


def test_every_edge_value_packs_to_its_codeword_and_back():
    values = edges()
    packed = coding.pack(values)
    assert packed.dtype == np.uint8 and packed.tobytes() == stream(values)
    assert coding.unpack(packed).tolist() == values
    assert coding.lengths(values).tolist() == [len(codeword(v)) for v in values]
    assert coding.lengths([fib(93), UINT64_MAX]).tolist() == [coding.CODEWORD_MAX] * 2


@given(st.lists(st.integers(1, UINT64_MAX), max_size=60))
def test_pack_is_the_concatenated_codewords(values):
    packed = coding.pack(values)
    assert packed.tobytes() == stream(values)
    assert coding.packed_size(values) == packed.size
    assert coding.unpack(packed).tolist() == values
    assert (
        coding.unpack(packed.tobytes(), count=len(values) // 2).tolist()
        == values[: len(values) // 2]
    )


@given(st.lists(st.integers(0, 2**40), max_size=60).map(sorted))
def test_delta_round_trips_sorted_values_with_repeats(values):
    packed = coding.pack(values, delta=True)
    gaps = [b - a + 1 for a, b in zip([0, *values], values, strict=False)]
    gaps[:1] = [values[0] + 1] if values else []
    assert packed.tobytes() == stream(gaps)
    assert coding.unpack(packed, delta=True).tolist() == values


def test_chunks_of_the_stream_join_at_any_bit():
    # more values than a chunk, with codewords of every length across chunk ends
    rng = np.random.default_rng(3)
    size = tier(200_000, 70_000)  # a chunk is 65,536 values
    values = (
        rng.integers(1, 2**63, size=size, dtype=np.uint64)
        >> rng.integers(0, 63, size=size).astype(np.uint64)
    ) | np.uint64(1)
    packed = coding.pack(values)
    assert packed.size == coding.packed_size(values)
    assert np.array_equal(coding.unpack(packed), values)
    assert np.array_equal(
        coding.unpack(coding.pack(np.sort(values), delta=True), delta=True), np.sort(values)
    )


@pytest.mark.parametrize(
    ("values", "error", "message"),
    [
        ([3, 0], ValueError, r"pack: values\[1\] = 0 is below 1: Fibonacci coding starts at 1"),
        ([3, -2], ValueError, r"values\[1\] = -2 is below 1"),
        (np.array([5, -1]), ValueError, r"values\[1\] = -1 is below 1"),
        ([1, 2**64], ValueError, r"values\[1\] = 18446744073709551616 is above 2\*\*64 - 1"),
        ([1.5], TypeError, "values"),
        ([[1, 2]], ValueError, "1-d"),
    ],
)
def test_bad_values_are_named(values, error, message):
    with pytest.raises(error, match=message):
        coding.pack(values)


def test_delta_errors_name_the_index():
    with pytest.raises(ValueError, match=r"values\[2\] = 4 is below values\[1\] = 7: delta=True"):
        coding.pack([1, 7, 4], delta=True)
    with pytest.raises(ValueError, match=r"values\[0\] = -1 is negative"):
        coding.pack([-1, 3], delta=True)
    with pytest.raises(ValueError, match=r"values\[0\] \+ 1 is 2\*\*64"):
        coding.pack([UINT64_MAX], delta=True)
    with pytest.raises(ValueError, match=r"values\[1\] - values\[0\] \+ 1 is 2\*\*64"):
        coding.pack(np.array([0, UINT64_MAX], dtype=np.uint64), delta=True)


def test_pack_leaves_its_input_as_it_was():
    values = np.array([9, 1, 2**62], dtype=np.uint64)
    before = values.copy()
    coding.pack(values)
    coding.pack(np.sort(values), delta=True)
    assert np.array_equal(values, before)


def bits_to_bytes(bits: str) -> bytes:
    bits += "0" * (-len(bits) % 8)
    return int(bits, 2).to_bytes(len(bits) // 8, "big") if bits else b""


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (bits_to_bytes("11" + "0101"), "at bit offset 2 .*padding bits are not all zero"),
        (bits_to_bytes("11" + "01010101" + "0"), "at bit offset 2 .*ends inside a codeword"),
        (bytes([0b11000000, 0]), "at bit offset 2 .*ends inside a codeword"),
        # F_93 + F_91 + F_89: a 93-bit codeword past 2**64 - 1
        (
            bits_to_bytes("0" * 87 + "10101" + "1"),
            "at bit offset 0 .*worth more than 2\\*\\*64 - 1",
        ),
        # a codeword of 94 bits and more
        (bits_to_bytes("0" * 100 + "11"), "at bit offset 0 .*worth more than 2"),
    ],
)
def test_bad_streams_name_the_bit_offset(data, message):
    with pytest.raises(ValueError, match=message):
        coding.unpack(data)


def in_every_implementation(check) -> None:
    """check() under each implementation of the active backend's kernels."""
    from fibnim import _backend

    before = _backend._CORE.implementation() if _backend._CORE else None
    try:
        for name in _backend.implementations() if _backend.name() == "cython" else [None]:
            if name is not None:
                _backend.use_implementation(name)
            check()
    finally:
        if before is not None:
            _backend.use_implementation(before)


def long_and_short(seed: int, size: int) -> list[int]:
    """Values of 93-bit codewords mostly, a short one every seventh."""
    rng = np.random.default_rng(seed)
    values = rng.integers(2**63, UINT64_MAX, size=size, dtype=np.uint64, endpoint=True)
    values[::7] = rng.integers(1, 1000, size=len(values[::7]), dtype=np.uint64)
    return values.tolist()


# where the vector implementations decode long codewords in batches of 16
@pytest.mark.parametrize("at", [0, 1, 14, 15, 16, 17, 33, 60])
def test_the_first_codeword_past_2_64_is_named_wherever_it_falls(at):
    values = long_and_short(at, 60)
    before = "".join(codeword(v) for v in values[:at])
    too_large = "0" * 87 + "10101" + "1"  # F_93 + F_91 + F_89
    # then more codewords, and a stretch too long for any codeword: a later error
    data = bits_to_bytes(before + too_large + "".join(map(codeword, values[at:])) + "0" * 100)
    message = f"at bit offset {len(before)} .*worth more than 2\\*\\*64 - 1"

    def check() -> None:
        with pytest.raises(ValueError, match=message):
            coding.unpack(data)
        # the values before it decode, as many as are asked for
        assert coding.unpack(data, count=at).tolist() == values[:at]

    in_every_implementation(check)


def test_every_implementation_decodes_long_codewords_among_short_ones():
    values = long_and_short(5, 1000) + edges()
    data = np.frombuffer(stream(values), dtype=np.uint8)

    def check() -> None:
        assert coding.unpack(data).tolist() == values
        # and in chunks that end anywhere in a batch
        state = np.array([0, 8 * data.size, 0], dtype=np.uint64)
        decoded: list[int] = []
        for size in [1, 15, 17, 3, 16, 40] * 100:
            out = np.empty(min(size, len(values) - len(decoded)), dtype=np.uint64)
            if not out.size:
                break
            assert coding._kernels().unpack(data, out, state) == 0
            decoded += out.tolist()
        assert decoded == values

    in_every_implementation(check)


def decode_in_chunks(kernels, data: np.ndarray, sizes: list[int]) -> tuple[list[int], int, int]:
    """Unpack all of data with kernels, into outs of the given sizes in turn:
    (the values, why it stopped, the bit offset where it stopped)."""
    state = np.array([0, 8 * data.size, 0], dtype=np.uint64)
    values: list[int] = []
    for size in itertools.cycle(sizes):
        out = np.empty(size, dtype=np.uint64)
        stop = kernels.unpack(data, out, state)
        values += out[: int(state[2])].tolist()
        if stop or int(state[2]) < size:
            return values, stop, int(state[0])


def lane_streams() -> list[np.ndarray]:
    """Streams long enough for a vector path's fast lane, which reads 512 bits at
    a time and leaves long codewords, the stream's last bits and its errors to
    the walk: codewords of every length, runs of ones across words, long
    codewords among short ones, and random bits (dense and sparse)."""
    rng = np.random.default_rng(30)
    values = [rng.geometric(1 / m, 4000) for m in (1.5, 3, 100, 10**4, 10**8, 10**11)]
    values.append(np.ones(5000))  # words of ones: 32 codewords each
    values.append(rng.integers(1, 3, 5000))  # 11 and 011: runs of ones of every length
    for every in (2, 9, 50, 300):  # a 93-bit codeword now and then
        mixed = rng.geometric(0.01, 4000)
        mixed[::every] = rng.integers(2**63, UINT64_MAX, len(mixed[::every]), np.uint64)
        values.append(mixed)
    packed = [coding.pack(np.asarray(v, dtype=np.uint64)) for v in values]
    packed += [rng.integers(0, 256, 3000, dtype=np.uint8) for _ in range(3)]
    for density in (0.01, 0.03, 0.2, 0.9):  # long codewords, past 2**64, ones
        packed.append(np.packbits(rng.random(8 * 3000) < density))
    return packed


def test_every_implementation_decodes_long_streams_as_the_twin_does():
    from fibnim import _backend

    compiled, pure = _backend.twins("coding")
    if compiled is None:
        pytest.skip("no compiled core in this installation: the pure twin is all there is")
    rng = np.random.default_rng(31)
    before = _backend._CORE.implementation()
    try:
        for data in lane_streams():
            whole = decode_in_chunks(pure, data, [8 * data.size])
            # outs that end anywhere in a word, and one that holds it all
            sizes = rng.integers(1, 700, 20).tolist()
            for name in _backend.implementations():
                _backend.use_implementation(name)
                assert decode_in_chunks(compiled, data, [8 * data.size]) == whole, name
                assert decode_in_chunks(compiled, data, sizes) == whole, name
    finally:
        _backend.use_implementation(before)


def test_counts_and_delta_sums_past_the_stream_are_errors():
    packed = coding.pack([1, 2, 3])
    with pytest.raises(ValueError, match=r"count = 4, but the stream holds 3 codewords"):
        coding.unpack(packed, count=4)
    with pytest.raises(ValueError, match=r"at bit offset 93 .*delta sum passes 2\*\*64 - 1"):
        coding.unpack(coding.pack([UINT64_MAX, UINT64_MAX]), delta=True)
    assert coding.unpack(b"").tolist() == [] and coding.unpack(b"\x00", count=0).tolist() == []
    with pytest.raises(TypeError, match="count must be an int"):
        coding.unpack(packed, count=1.0)


def test_every_kind_of_buffer_is_read_in_place():
    packed = coding.pack([5, 8, 13])
    for data in (packed, packed.tobytes(), bytearray(packed), memoryview(packed.tobytes())):
        assert coding.unpack(data).tolist() == [5, 8, 13]
    strided = np.zeros(2 * packed.size, dtype=np.uint8)
    strided[::2] = packed
    assert coding.unpack(strided[::2]).tolist() == [5, 8, 13]
    with pytest.raises(TypeError, match="1-d uint8 array"):
        coding.unpack(packed.astype(np.int16))


@pytest.mark.parametrize("delta", [False, True])
@pytest.mark.parametrize("step", [1, 3])
def test_unpack_into_out_over_several_chunks(delta, step):
    from fibnim._apply import CHUNK

    rng = np.random.default_rng(8)
    values = rng.geometric(0.01, size=2 * CHUNK + 5).astype(np.uint64)
    if delta:
        values = np.cumsum(values)
    packed = coding.pack(values, delta=delta)
    room = np.full(step * values.size, 7, dtype=np.uint64)
    out = room[::step]
    assert coding.unpack(packed, delta=delta, out=out) is out
    assert np.array_equal(out, values)
    between = np.ones(room.size, dtype=bool)
    between[::step] = False
    assert (room[between] == 7).all()  # what lies between out's elements is left alone
    again = np.zeros(CHUNK + 1, dtype=np.uint64)
    assert np.array_equal(
        coding.unpack(packed, CHUNK + 1, delta=delta, out=again), values[: CHUNK + 1]
    )


@given(st.lists(st.integers(1, UINT64_MAX), max_size=60), st.integers(1, 4))
def test_unpack_into_any_out_is_unpack(values, step):
    packed = coding.pack(values)
    out = np.zeros(step * len(values), dtype=np.uint64)[::step]
    assert coding.unpack(packed, out=out).tolist() == coding.unpack(packed).tolist() == values


def test_unpack_into_the_memory_that_holds_the_stream():
    values = np.arange(1, 3000, dtype=np.uint64)
    packed = coding.pack(values)
    memory = np.zeros(values.size, dtype=np.uint64)
    memory.view(np.uint8)[: packed.size] = packed
    assert np.array_equal(coding.unpack(memory.view(np.uint8)[: packed.size], out=memory), values)


def test_an_out_that_does_not_fit_is_refused():
    packed = coding.pack([1, 2, 3])
    with pytest.raises(
        ValueError, match=r"out holds 2 values, but the stream holds more .*bit offset 5"
    ):
        coding.unpack(packed, out=np.empty(2, dtype=np.uint64))
    with pytest.raises(ValueError, match=r"out holds 4 values, but the stream holds 3 codewords"):
        coding.unpack(packed, out=np.empty(4, dtype=np.uint64))
    with pytest.raises(ValueError, match=r"out holds 0 values, but the stream holds more"):
        coding.unpack(packed, out=np.empty(0, dtype=np.uint64))
    assert coding.unpack(packed, 2, out=np.empty(2, dtype=np.uint64)).tolist() == [1, 2]
    with pytest.raises(
        ValueError, match=r"out must have shape \(2,\) and dtype uint64, not shape \(3,\)"
    ):
        coding.unpack(packed, 2, out=np.empty(3, dtype=np.uint64))
    with pytest.raises(ValueError, match=r"dtype uint64, not shape \(3,\) and dtype int64"):
        coding.unpack(packed, out=np.empty(3, dtype=np.int64))
    with pytest.raises(ValueError, match=r"out must be 1-d, not of shape \(3, 1\)"):
        coding.unpack(packed, out=np.empty((3, 1), dtype=np.uint64))
    with pytest.raises(TypeError, match="out must be a numpy array, not list"):
        coding.unpack(packed, out=[0, 0, 0])
    locked = np.empty(3, dtype=np.uint64)
    locked.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        coding.unpack(packed, out=locked)
    # the errors of the stream itself are as without out
    with pytest.raises(ValueError, match=r"at bit offset 93 .*delta sum passes 2\*\*64 - 1"):
        coding.unpack(
            coding.pack([UINT64_MAX, UINT64_MAX]), delta=True, out=np.empty(2, np.uint64)
        )


@given(st.binary(max_size=40))
def test_any_bytes_decode_or_raise_a_clear_error(data):
    try:
        values = coding.unpack(data)
    except ValueError as error:
        assert "bit offset" in str(error)
    else:
        # what decodes is those codewords, then fewer than 8 zero bits
        assert coding.pack(values).tobytes() == data


def test_files_round_trip_in_blocks(monkeypatch):
    monkeypatch.setattr(coding, "BLOCK", 1000)
    values = np.cumsum(np.random.default_rng(1).geometric(0.01, size=4321)).astype(np.uint64)
    for delta in (False, True):
        file = io.BytesIO()
        size = coding.write(file, values, delta=delta)
        assert size == len(file.getvalue())
        assert np.array_equal(coding.read(io.BytesIO(file.getvalue())), values)
    # delta blocks are smaller: gaps of about 100 against values up to 4 * 10**5
    assert size < len(coding.pack(values)) * 0.7


def test_files_by_path_are_written_whole_or_not_at_all(monkeypatch, tmp_path):
    monkeypatch.setattr(coding, "BLOCK", 100)
    values = np.arange(1, 1001, dtype=np.uint64)
    for path in (str(tmp_path / "ids.fnc"), tmp_path / "ids.fnc"):  # a str or a PathLike
        size = coding.write(path, values, delta=True)
        assert os.path.getsize(path) == size
        assert np.array_equal(coding.read(path), values)
    first = (tmp_path / "ids.fnc").read_bytes()
    # a bad value in the last block: the file there stays as it was, and no other appears
    refused = values.copy()
    refused[-1] = 0
    with pytest.raises(ValueError, match=r"write: values\[999\] = 0"):
        coding.write(tmp_path / "ids.fnc", refused)
    with pytest.raises(ValueError, match="non-decreasing"):
        coding.write(tmp_path / "new.fnc", values[::-1], delta=True)
    assert (tmp_path / "ids.fnc").read_bytes() == first
    assert sorted(os.listdir(tmp_path)) == ["ids.fnc"]
    coding.write(tmp_path / "ids.fnc", values[:5])  # replaced, as numpy.save replaces
    assert coding.read(tmp_path / "ids.fnc").tolist() == [1, 2, 3, 4, 5]
    with pytest.raises(FileNotFoundError, match="write: no directory"):
        coding.write(tmp_path / "missing" / "ids.fnc", values)
    with pytest.raises(FileNotFoundError):
        coding.read(tmp_path / "missing.fnc")


def test_a_file_damaged_in_any_field_or_cut_at_any_block_is_named(monkeypatch):
    monkeypatch.setattr(coding, "BLOCK", 50)
    file = io.BytesIO()
    coding.write(file, np.arange(1, 201), delta=True)
    data = file.getvalue()
    # the header: magic, version, flags, CRC-32, count; a block: its mark, its
    # header's CRC-32, its stream's, count, bits, first, and a byte of its
    # stream; the end: the count of blocks, the check of the whole, its mark
    fields = {0: "not a fibnim coding file", 8: "format version", 10: "header", 12: "header"}
    fields |= {16: "header", **{at: "block 0" for at in (24, 28, 32, 36, 40, 48, 60)}}
    fields |= {len(data) - at: "check of the whole" for at in (16, 8, 4)}
    for offset, named in fields.items():
        damaged = bytearray(data)
        damaged[offset] ^= 0x04
        with pytest.raises(ValueError, match=named):
            coding.read(io.BytesIO(bytes(damaged)))
    # cut at every block's start and inside every header, and in the end
    starts = _block_starts(data)
    assert len(starts) == 4
    for cut in [*range(24), *starts, *(s + 5 for s in starts), len(data) - 16, len(data) - 1]:
        with pytest.raises(ValueError, match="is cut short"):
            coding.read(io.BytesIO(data[:cut]))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("swap", "block 0 .* holds the values from index 100, where those from 0 were due"),
        ("repeat", "block 1 .* holds the values from index 0, where those from 100 were due"),
        ("drop", "block 1 .* holds the values from index 200, where those from 100 were due"),
        ("foreign", "the check of the whole file .* does not match"),
    ],
)
def test_a_block_moved_repeated_dropped_or_taken_from_another_file_is_found(
    monkeypatch, change, message
):
    # version 2 read such files to the end with wrong values, exit 0
    monkeypatch.setattr(coding, "BLOCK", 100)
    values = np.arange(1, 351, dtype=np.int64)
    data = _coded(values)
    other = _coded(values[[*range(150), 151, 150, *range(152, 350)]])  # the same layout
    cut = [*_block_starts(data), len(data) - 16]
    block = [data[cut[i] : cut[i + 1]] for i in range(4)]
    changed = (
        data[:24]
        + {
            "swap": block[1] + block[0] + block[2] + block[3],
            "repeat": block[0] + block[0] + block[2] + block[3],
            "drop": block[0] + block[2] + block[3],
            "foreign": block[0] + other[cut[1] : cut[2]] + block[2] + block[3],
        }[change]
        + data[-16:]
    )
    with pytest.raises(ValueError, match=message):
        coding.read(io.BytesIO(changed))
    found = coding.read(io.BytesIO(changed), salvage=True)
    assert found.damaged, change
    if change != "foreign":  # what salvage keeps is each value in its place, or named lost
        lost = [range(d.first, d.first + d.lost) for d in found.damaged if d.lost]
        gone = set().union(*lost)
        assert found.values.tolist() == [v for i, v in enumerate(values.tolist()) if i not in gone]


def _coded(values: np.ndarray, delta: bool = False) -> bytes:
    file = io.BytesIO()
    coding.write(file, values, delta=delta)
    return file.getvalue()


def test_damaged_files_name_the_block_and_the_byte(monkeypatch):
    monkeypatch.setattr(coding, "BLOCK", 100)
    file = io.BytesIO()
    coding.write(file, range(1, 301))
    data = bytearray(file.getvalue())
    damaged = data.copy()
    damaged[-16 - 5] ^= 0x10  # in block 2, before the file's end
    with pytest.raises(ValueError, match=r"block 2 \(bytes \d+ to \d+\) is damaged"):
        coding.read(io.BytesIO(bytes(damaged)))
    with pytest.raises(ValueError, match="the file is cut short") as cut:
        coding.read(io.BytesIO(bytes(data[: -16 - 3])))
    claims = re.search(
        r"block 2 claims (\d+) bytes from byte \d+, and the file holds (\d+)", str(cut.value)
    )
    assert claims is not None and int(claims[1]) - int(claims[2]) == 3
    with pytest.raises(ValueError, match="bytes after the last block"):
        coding.read(io.BytesIO(bytes(data) + b"\x00"))
    with pytest.raises(ValueError, match="not a fibnim coding file"):
        coding.read(io.BytesIO(b"PK\x03\x04" + bytes(data[4:])))


def test_a_block_that_claims_more_values_than_its_bits_hold_is_refused():
    # a well-formed block (its CRC-32 matches) whose count no stream of its
    # length can hold: refused before room is made for the values
    stream = coding.pack([1, 2])  # 5 bits: at most 2 codewords
    rest = struct.pack("<IQ", 10**9, 5)
    crc = zlib.crc32(stream.tobytes(), zlib.crc32(rest))
    data = coding.header(10**9, False) + struct.pack("<I", crc) + rest + stream.tobytes()
    with pytest.raises(ValueError, match=r"the header's count .* is more values than"):
        coding.read(io.BytesIO(data))


def test_unpack_takes_blocks_larger_than_its_own(monkeypatch, tmp_path):
    from fibnim import cli

    monkeypatch.setattr(coding, "BLOCK", 1000)  # the writer's blocks
    values = np.random.default_rng(3).geometric(0.05, size=2500).astype(np.uint64)
    with open(tmp_path / "big-blocks.fnc", "wb") as file:
        coding.write(file, values)
    monkeypatch.setattr(coding, "BLOCK", 64)  # unpack's, four times over in the first block
    output = tmp_path / "back.npy"
    assert cli.main(["unpack", str(tmp_path / "big-blocks.fnc"), "-o", str(output), "-q"]) == 0
    assert np.array_equal(np.load(output), values)


def test_the_commands_round_trip_files_and_pipes(tmp_path):
    from _support import run_fibnim

    values = np.cumsum(np.random.default_rng(2).geometric(0.02, size=300_001)).astype(np.int64)
    np.save(tmp_path / "ids.npy", values)
    packed = run_fibnim("pack", "ids.npy", "-o", "ids.fnc", "--delta", cwd=tmp_path)
    assert packed.returncode == 0, packed.stderr
    assert (
        packed.stderr.startswith("pack: 300,001 values into ")
        and "bits per value" in packed.stderr
    )
    unpacked = run_fibnim("unpack", "ids.fnc", "-o", "back.npy", cwd=tmp_path)
    assert unpacked.returncode == 0, unpacked.stderr
    back = np.load(tmp_path / "back.npy")
    assert back.dtype == np.int64 and np.array_equal(back, values)  # the dtype packed from
    with open(tmp_path / "ids.fnc", "rb") as file:
        assert np.array_equal(coding.read(file), values)  # the file is write()'s format
    # - is stdin and stdout, through a pipe
    piped = subprocess.run(
        f"{sys.executable} -m fibnim pack - -o - -q < ids.npy | "
        f"{sys.executable} -m fibnim unpack - -o - -q > piped.npy",
        shell=True, cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True,
    )  # fmt: skip
    assert piped.returncode == 0, piped.stderr
    piped_back = np.load(tmp_path / "piped.npy")
    assert piped_back.dtype == np.int64 and np.array_equal(piped_back, values)


def test_the_commands_refuse_and_leave_nothing_behind(tmp_path):
    from _support import run_fibnim

    np.save(tmp_path / "down.npy", np.array([5, 3, 8]))
    np.save(tmp_path / "floats.npy", np.array([1.5]))
    with open(tmp_path / "good.fnc", "wb") as file:
        coding.write(file, range(1, 1000))
    damaged = bytearray((tmp_path / "good.fnc").read_bytes())
    damaged[-16 - 2] ^= 4  # in the last block's stream
    (tmp_path / "damaged.fnc").write_bytes(bytes(damaged))
    cases = [
        (
            1,
            ["pack", "down.npy", "-o", "never.fnc", "--delta"],
            "values[1] = 3 is below values[0] = 5",
        ),
        (1, ["pack", "down.npy", "-o", "never.fnc"], None),  # fine without --delta
        (1, ["pack", "floats.npy", "-o", "never.fnc"], "not integers"),
        (1, ["unpack", "damaged.fnc", "-o", "never.npy"], "block 0 (bytes 24 to"),
        (2, ["unpack", "missing.fnc", "-o", "never.npy"], "no such file"),
        (2, ["unpack", "good.fnc", "-o", "good.fnc"], "is the input"),
    ]
    for status, arguments, message in cases:
        result = run_fibnim(*arguments, cwd=tmp_path)
        if message is None:
            assert result.returncode == 0, result.stderr
            (tmp_path / "never.fnc").unlink()
            continue
        assert result.returncode == status, (arguments, result.stderr)
        assert message in result.stderr, result.stderr
    assert not any(path.name.startswith("never") for path in tmp_path.iterdir())


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_an_interrupted_pack_leaves_the_old_output(tmp_path, name):
    # the input: a pipe whose .npy header promises more values than ever come
    # (a read waiting on it is interrupted too); the old output stays
    number = getattr(signal, name)
    (tmp_path / "out.fnc").write_bytes(b"old")
    process = subprocess.Popen(
        [sys.executable, "-m", "fibnim", "pack", "-", "-o", "out.fnc", "--force", "-q"],
        cwd=tmp_path, env=subprocess_env(), stdin=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdin is not None
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<u8", "fortran_order": False, "shape": (10**9,)}
    )
    process.stdin.write(header.getvalue() + np.arange(1, 2**19, dtype="<u8").tobytes())
    process.stdin.flush()
    time.sleep(2)
    process.send_signal(number)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + number, err
    assert f"stopped by {name}" in err.decode()
    assert [p.name for p in tmp_path.iterdir()] == ["out.fnc"]
    assert (tmp_path / "out.fnc").read_bytes() == b"old"


# --- coded files a user can live with -------------------------------------------------


@pytest.mark.parametrize("dtype", ["int64", "uint64", "int32", "uint16", ">i8"])
def test_a_file_gives_back_the_dtype_it_was_packed_from(tmp_path, dtype):
    # unpack always gave uint64: int64 ids came back uint64
    values = np.array([3, 5, 9, 600], dtype=dtype)
    coding.write(tmp_path / "v.fnc", values, delta=True)
    back = coding.read(tmp_path / "v.fnc")
    assert back.dtype == np.dtype(dtype).newbyteorder("=") and (back == values).all()
    with pytest.raises(OverflowError, match=r"values\[3\] = 600 does not fit uint8"):
        coding.read(tmp_path / "v.fnc", dtype=np.uint8)
    assert coding.read(tmp_path / "v.fnc", dtype="int16").dtype == np.int16


def _older_file(values: np.ndarray, version: int, block: int, delta: bool = False) -> bytes:
    """A coded file of format version 1 or 2, as those versions wrote it:
    blocks of a CRC-32 (of the rest and the stream), count and bits, no end."""
    flags = int(delta) | (coding.DTYPES.index(values.dtype) << 8 if version == 2 else 0)
    crc = coding._header_crc(version, flags, len(values))
    data = struct.pack("<8sHHIQ", coding.MAGIC, version, flags, crc, len(values))
    for start in range(0, len(values), block):
        part = values[start : start + block]
        stream = coding.pack(part - np.r_[0, part[:-1]] + 1 if delta else part).tobytes()
        bits = int(coding.lengths(part - np.r_[0, part[:-1]] + 1 if delta else part).sum())
        rest = struct.pack("<IQ", len(part), bits)
        data += struct.pack("<I", zlib.crc32(stream, zlib.crc32(rest))) + rest + stream
    return data


@pytest.mark.parametrize("version", [1, 2])
def test_files_of_format_versions_1_and_2_still_read(version):
    values = np.cumsum(np.arange(1, 251, dtype=np.int64))
    data = _older_file(values, version, block=100, delta=True)
    back = coding.read(io.BytesIO(data))
    assert back.dtype == (np.uint64 if version == 1 else np.int64) and (back == values).all()
    head = coding.read_header(io.BytesIO(data))
    assert head.version == version and head.count == 250 and head.delta
    damaged = bytearray(data)
    damaged[24 + 16 + 10] ^= 1  # in block 0's stream
    with pytest.raises(ValueError, match=r"block 0 \(bytes 24 to \d+\) is damaged"):
        coding.read(io.BytesIO(bytes(damaged)))
    found = coding.read(io.BytesIO(bytes(damaged)), salvage=True)
    assert found.values.tolist() == values[100:].tolist()
    assert [(d.block, d.lost, d.first) for d in found.damaged] == [(0, 100, 0)]


def test_read_blocks_is_public_and_reads_a_block_at_a_time(monkeypatch):
    monkeypatch.setattr(coding, "BLOCK", 1000)  # blocks of any size read alike
    file = io.BytesIO()
    coding.write(file, np.arange(1, coding.BLOCK + 11))
    file.seek(0)
    head = coding.read_header(file)
    assert "read_blocks" in coding.__all__ and "read_header" in coding.__all__
    blocks = list(coding.read_blocks(file, head.count, head.delta))
    assert [len(b) for b in blocks] == [coding.BLOCK, 10]
    assert np.concatenate(blocks).tolist() == list(range(1, coding.BLOCK + 11))


def _damaged_file(flips: list[int]) -> tuple[bytes, np.ndarray]:
    """Three whole blocks and 1000 values, with bits flipped at `flips` (the
    callers make blocks small: a block decodes alike whatever its size)."""
    values = np.arange(1, 3 * coding.BLOCK + 1001, dtype=np.int64)
    file = io.BytesIO()
    coding.write(file, values)
    data = bytearray(file.getvalue())
    for at in flips:
        data[at] ^= 0x10
    return bytes(data), values


def _block_starts(data: bytes) -> list[int]:
    """Where each block of a version 3 file starts."""
    starts, at = [], 24
    while at < len(data) - 16:
        starts.append(at)
        bits = struct.unpack_from("<Q", data, at + 16)[0]
        at += 32 + (bits + 7) // 8
    return starts


def test_salvage_decodes_every_undamaged_block_and_names_the_damaged_ones(monkeypatch):
    # one damaged block lost the whole file, though blocks decode alone
    monkeypatch.setattr(coding, "BLOCK", 2000)
    clean, values = _damaged_file([])
    starts = _block_starts(clean)
    data, _ = _damaged_file([starts[1] + 100, starts[3] + 50])
    with pytest.raises(ValueError, match=r"block 1 .* is damaged"):
        coding.read(io.BytesIO(data))
    found = coding.read(io.BytesIO(data), salvage=True)
    kept = np.r_[values[: coding.BLOCK], values[2 * coding.BLOCK : 3 * coding.BLOCK]]
    assert found.values.dtype == np.int64 and (found.values == kept).all()
    assert found.damaged == [
        coding.Damage(1, starts[1], starts[2], coding.BLOCK, coding.BLOCK),
        coding.Damage(3, starts[3], len(data) - 16, 1000, 3 * coding.BLOCK),
    ]
    # a block whose own header is damaged: found again from the next whole block
    data, _ = _damaged_file([starts[1] + 9])
    found = coding.read(io.BytesIO(data), salvage=True)
    assert len(found.values) == len(values) - coding.BLOCK
    assert [(d.block, d.start, d.end, d.lost) for d in found.damaged] == [
        (1, starts[1], starts[2], coding.BLOCK)
    ]
    # cut short
    found = coding.read(io.BytesIO(clean[:-40]), salvage=True)
    assert len(found.values) == 3 * coding.BLOCK
    assert found.damaged == [coding.Damage(3, starts[3], len(clean) - 40, 1000, 3 * coding.BLOCK)]


@pytest.mark.parametrize("headers", ["marks", "checked"])
def test_salvage_checks_each_byte_about_once_on_a_crafted_file(monkeypatch, headers):
    # version 2's salvage tried a block at every byte: a crafted 1 MB file with
    # a plausible block header every 16 bytes took 9 to 27 s, 2 MB 81 s.
    # Counted here in bytes given to CRC-32, not in seconds.
    rng = np.random.default_rng(5)
    body = bytearray(rng.integers(0, 256, size=1 << 20, dtype=np.uint8).tobytes())
    for at in range(0, len(body) - 32, 16 if headers == "marks" else 48):
        body[at : at + 4] = coding.BLOCK_MARK
        if headers == "checked":  # a block header whose own CRC-32 holds, claiming far
            fields = (0, 1000, 93_000, 0)
            body[at : at + 32] = coding._BLOCK.pack(
                coding.BLOCK_MARK, coding._block_check(fields), *fields
            )
    data = coding.header(10**6, False) + bytes(body)
    checked, original = [], zlib.crc32

    def crc32(data: bytes, value: int = 0) -> int:
        checked.append(len(data))
        return original(data, value)

    monkeypatch.setattr(coding.zlib, "crc32", crc32)
    found = coding.read(io.BytesIO(data), salvage=True)
    assert len(found.values) == 0 and sum(d.lost or 0 for d in found.damaged) == 10**6
    assert sum(checked) <= 2 * len(data), sum(checked)


def test_unpack_salvage_writes_what_is_left_and_names_the_loss(tmp_path, monkeypatch):
    from _support import run_fibnim

    monkeypatch.setattr(coding, "BLOCK", 2000)  # the file's blocks; the command reads any
    clean, values = _damaged_file([])
    data, _ = _damaged_file([_block_starts(clean)[2] + 100])
    (tmp_path / "bad.fnc").write_bytes(data)
    refused = run_fibnim("unpack", "bad.fnc", "-o", "all.npy", cwd=tmp_path)
    assert refused.returncode == 1 and "block 2" in refused.stderr
    assert not (tmp_path / "all.npy").exists()
    done = run_fibnim("unpack", "bad.fnc", "-o", "kept.npy", "--salvage", "-q", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "block 2 (bytes" in done.stderr and f"{coding.BLOCK:,} values lost" in done.stderr
    kept = np.load(tmp_path / "kept.npy")
    assert kept.dtype == np.int64
    assert (kept == np.r_[values[: 2 * coding.BLOCK], values[3 * coding.BLOCK :]]).all()


def _big_then_ones(monkeypatch) -> tuple[bytes, np.ndarray, list[int]]:
    """A file of a block of 2**64 - 1 (the longest codewords) and 60 blocks of
    1s (the shortest), and where its blocks start."""
    monkeypatch.setattr(coding, "BLOCK", 500)
    values = np.r_[np.full(500, 2**64 - 1, np.uint64), np.ones(60 * 500, np.uint64)]
    file = io.BytesIO()
    coding.write(file, values)
    return file.getvalue(), values, _block_starts(file.getvalue())


def test_salvage_of_a_file_cut_short_keeps_its_whole_blocks(monkeypatch, tmp_path):
    # the header's count, held to the bytes left, refused the file: a
    # ValueError and 0 values, though block 0 is whole
    data, values, starts = _big_then_ones(monkeypatch)
    cut = data[: starts[1] + 100]
    with pytest.raises(ValueError, match="cut short"):
        coding.read(io.BytesIO(cut))
    found = coding.read(io.BytesIO(cut), salvage=True)
    assert (found.values == values[:500]).all()
    assert found.damaged[0] == coding.Damage(1, starts[1], starts[1] + 100, 500, 500)
    assert sum(d.lost or 0 for d in found.damaged) == len(values) - 500
    (tmp_path / "cut.fnc").write_bytes(cut)
    done = run_fibnim("unpack", "cut.fnc", "-o", "kept.npy", "--salvage", "-q", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert f"500 of {len(values):,} values salvaged" in done.stderr
    assert (np.load(tmp_path / "kept.npy") == values[:500]).all()


@pytest.mark.parametrize("before", [0, 1, 7])
def test_salvage_names_every_stretch_of_junk_it_steps_over(monkeypatch, tmp_path, before):
    # 1000 junk bytes before block 0 or between blocks: exit 0, nothing named
    data, values, starts = _big_then_ones(monkeypatch)
    at = starts[before]
    junk = bytes(np.random.default_rng(before).integers(0, 256, 1000, dtype=np.uint8))
    damaged = data[:at] + junk + data[at:]
    with pytest.raises(ValueError):
        coding.read(io.BytesIO(damaged))
    found = coding.read(io.BytesIO(damaged), salvage=True)
    assert (found.values == values).all()
    assert found.damaged == [coding.Damage(before, at, at + 1000, 0, None)]
    (tmp_path / "junk.fnc").write_bytes(damaged)
    done = run_fibnim("unpack", "junk.fnc", "-o", "all.npy", "--salvage", "-q", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert f"block {before} (bytes {at} to {at + 1000}): holds none of the values" in done.stderr
    assert (np.load(tmp_path / "all.npy") == values).all()


@pytest.mark.parametrize("delta", [False, True])
@pytest.mark.parametrize("byte", [12, 16, 19, 23])  # the CRC-32, then the count
def test_salvage_recovers_a_damaged_header_from_the_blocks(monkeypatch, tmp_path, delta, byte):
    # the header's CRC-32 failed: a ValueError and no value, though every block is whole
    monkeypatch.setattr(coding, "BLOCK", 500)
    values = np.cumsum(np.arange(1, 3001)) if delta else np.arange(3000, 0, -1)
    file = io.BytesIO()
    coding.write(file, values.astype(np.int32), delta=delta)
    data = bytearray(file.getvalue())
    data[byte] ^= 0x24
    with pytest.raises(ValueError, match=r"the header \(bytes 0 to 24\) is damaged"):
        coding.read(io.BytesIO(bytes(data)))
    found = coding.read(io.BytesIO(bytes(data)), salvage=True)
    assert found.values.dtype == np.int32 and (found.values == values).all()
    assert found.damaged == [coding.Damage(0, 0, 24, 0, None)]
    # cut short as well: the file's end can no longer say whether gaps were coded
    with pytest.raises(ValueError, match="cannot tell what it held"):
        coding.read(io.BytesIO(bytes(data[:-50])), salvage=True)
    (tmp_path / "bad.fnc").write_bytes(bytes(data))
    done = run_fibnim("unpack", "bad.fnc", "-o", "all.npy", "--salvage", "-q", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "the header (bytes 0 to 24) is damaged; what it held" in done.stderr
    assert (np.load(tmp_path / "all.npy") == values).all()


def test_unpack_writes_npy_or_one_value_a_line_and_refuses_other_suffixes(tmp_path):
    from _support import run_fibnim

    np.save(tmp_path / "ids.npy", np.array([3, 5, 9], dtype=np.int32))
    assert run_fibnim("pack", "ids.npy", "-o", "ids.fnc", "-q", cwd=tmp_path).returncode == 0
    for name in ("out.csv", "out.parquet", "out"):  # .npy bytes went into out.csv
        refused = run_fibnim("unpack", "ids.fnc", "-o", name, cwd=tmp_path)
        if name == "out.csv":
            assert refused.returncode == 0, refused.stderr
            assert (tmp_path / name).read_text() == "value\n3\n5\n9\n"
        else:
            assert refused.returncode == 2 and "unpack writes .npy" in refused.stderr
            assert not (tmp_path / name).exists()
    assert run_fibnim("unpack", "ids.fnc", "-o", "out.txt", cwd=tmp_path).returncode == 0
    assert (tmp_path / "out.txt").read_text() == "3\n5\n9\n"
    assert run_fibnim("unpack", "ids.fnc", "-o", "back.npy", cwd=tmp_path).returncode == 0
    assert np.load(tmp_path / "back.npy").dtype == np.int32
    wide = run_fibnim("unpack", "ids.fnc", "-o", "wide.npy", "--dtype", "uint64", cwd=tmp_path)
    assert wide.returncode == 0 and np.load(tmp_path / "wide.npy").dtype == np.uint64
    narrow = run_fibnim("unpack", "ids.fnc", "-o", "n.npy", "--dtype", "int8", cwd=tmp_path)
    assert narrow.returncode == 0
    bad = run_fibnim("unpack", "ids.fnc", "-o", "f.npy", "--dtype", "float64", cwd=tmp_path)
    assert bad.returncode == 2 and "not an integer dtype" in bad.stderr


@pytest.mark.parametrize("order", ["<", ">", "="])
@pytest.mark.parametrize("kind", ["u8", "i8", "u4", "i4", "u2", "u1"])
def test_every_dtype_in_either_byte_order_gives_the_values(tmp_path, order, kind):
    # '>u8' came back byte-swapped, and unpack --dtype '>i4' wrote a big-endian
    # header over little-endian bytes (1 read back as 16777216)
    from fibnim import coding

    dtype = np.dtype(order + kind)
    values = np.array([1, 2, 3, 100, 255], dtype=np.uint64)
    coding.write(tmp_path / "a.fnc", values)
    got = coding.read(tmp_path / "a.fnc", dtype=dtype)
    assert got.dtype == dtype and got.tolist() == values.tolist()
    result = run_fibnim("unpack", "a.fnc", "-o", "o.npy", "--dtype", dtype.str, "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    back = np.load(tmp_path / "o.npy")
    assert back.tolist() == values.tolist()
