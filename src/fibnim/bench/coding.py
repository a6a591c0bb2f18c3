"""The Fibonacci coding benchmark of `fibnim bench`: fibnim.coding's pack and
unpack on two data sets, beside what users otherwise reach for, on the same
values in the same run.

- gaps: the gaps of a sorted id list, geometric with mean 100 (what
  `pack(delta=True)` codes for a posting list);
- uniform: uniform 64-bit values (codewords of about 90 bits).

Each is timed (ns per value, the median of repeats) for pack and unpack (a new
array each call, and into one array made once, as decode is given), its size
given in bits per value, and set against fibnim.encode and fibnim.decode
of the same values' codes (where codes hold them: below F_66), zlib and lzma
on the same values' int64 bytes, and StreamVByte (the PyPI package
libstreamvbyte, in the `bench` extra), a byte-aligned codec of uint32 values:
the uniform values go to it as two uint32 halves each.
"""

from __future__ import annotations

import lzma
import statistics
import time
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

import fibnim
from fibnim import coding


def data_sets(size: int, seed: int = 2026) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "gaps": rng.geometric(0.01, size=size).astype(np.uint64),
        "uniform": rng.integers(1, 2**64 - 1, size=size, dtype=np.uint64, endpoint=True),
    }


def _ns(function: Callable[[], Any], size: int, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        began = time.perf_counter()
        function()
        samples.append(time.perf_counter() - began)
    return statistics.median(samples) / size * 1e9


def _codec(
    name: str,
    squeeze: Callable[[], Any],
    expand: Callable[[Any], Any],
    size: int,
    repeats: int,
) -> dict[str, Any]:
    packed = squeeze()
    return {
        "name": name,
        "pack_ns": _ns(squeeze, size, repeats),
        "unpack_ns": _ns(lambda: expand(packed), size, repeats),
        "bits_per_value": 8 * len(packed) / size,
    }


def _streamvbyte(values: np.ndarray, size: int, repeats: int) -> dict[str, Any] | None:
    try:
        import libstreamvbyte
    except ImportError:
        return None
    words = values.astype(np.uint32) if values.max() < 2**32 else values.view(np.uint32)
    return _codec(
        "StreamVByte" + ("" if words.size == size else " (two uint32 halves)"),
        lambda: libstreamvbyte.encode(words),
        lambda packed: libstreamvbyte.decode(packed, words.size),
        size,
        repeats,
    )


def _data_set(name: str, values: np.ndarray, repeats: int) -> dict[str, Any]:
    size = len(values)
    packed = coding.pack(values)
    assert np.array_equal(coding.unpack(packed), values)
    row: dict[str, Any] = {
        "name": name,
        "size": size,
        "fibnim": _codec(
            "fibnim.coding", lambda: coding.pack(values), coding.unpack, size, repeats
        ),
    }
    into = np.empty(size, dtype=np.uint64)  # as encode and decode below are given theirs
    row["unpack_into_ns"] = _ns(lambda: coding.unpack(packed, out=into), size, repeats)
    if values.max() < fibnim.CODE_LIMIT:  # the same values as codes, where codes hold them
        codes = fibnim.encode(values)
        out_codes, out_values = np.empty_like(codes), np.empty(size, dtype=np.int64)
        row["encode_ns"] = _ns(lambda: fibnim.encode(values, out=out_codes), size, repeats)
        row["decode_ns"] = _ns(lambda: fibnim.decode(codes, out=out_values), size, repeats)
    raw = values.astype(np.int64, copy=False).tobytes()
    few = min(repeats, 3)  # zlib and lzma take seconds a run at 10**7
    row["peers"] = [
        _codec("zlib", lambda: zlib.compress(raw), zlib.decompress, size, few),
        _codec("lzma", lambda: lzma.compress(raw, preset=1), lzma.decompress, size, 1),
    ]
    if (vbyte := _streamvbyte(values, size, repeats)) is not None:
        row["peers"].append(vbyte)
    return row


def measure(size: int, repeats: int) -> list[dict[str, Any]]:
    """Each data set's figures: fibnim's pack and unpack and the peers'."""
    return [_data_set(name, values, repeats) for name, values in data_sets(size).items()]
