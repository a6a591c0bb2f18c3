"""`fibnim pack` and `fibnim unpack`: integers to and from a coded file
(`fibnim.coding`), whole or not at all, from and to files and pipes."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator
from typing import Any, BinaryIO, cast

import numpy as np
from numpy.typing import NDArray

from fibnim import coding
from fibnim._errors import DataError, UsageError
from fibnim._npy import read_npy_header, trailing
from fibnim._output import (
    AtomicFile,
    open_stream,
    output_is_stream,
)
from fibnim._run import progress


@contextlib.contextmanager
def _opened(path: str) -> Iterator[BinaryIO]:
    """The input, - for stdin; UsageError where there is none."""
    if path == "-":
        if sys.stdin is None:  # started with it closed (<&-)
            raise UsageError("-: standard input is closed; name a file, or give it input")
        yield sys.stdin.buffer
        return
    try:
        file = open(path, "rb")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    with file:
        yield file


@contextlib.contextmanager
def _written(path: str, force: bool, source: str) -> Iterator[BinaryIO]:
    """The output (the commands' one rule: `output_is_stream`): -, a FIFO or a
    device written in order; else a file that takes its name only when the
    block ends well. OSErrors name it."""
    if output_is_stream(path, force, (source,)):
        stream = open_stream(path)
        try:
            yield cast(BinaryIO, stream)
            stream.flush()
        except OSError as error:
            error.filename = error.filename or path
            raise
        finally:
            if path != "-":
                stream.close()
        return
    target = AtomicFile(path, replace=force)
    try:
        with target.naming():
            yield cast(BinaryIO, target.stream)
        target.commit(lambda: None)
    except BaseException:
        target.abort()
        raise


def _npy_values(file: BinaryIO, name: str) -> tuple[int, np.dtype[Any], Iterator[NDArray[Any]]]:
    """(count, dtype, the values a block at a time) of a 1-d or (N, 1) .npy of
    integers, read in order (a pipe works)."""
    try:
        shape, _, dtype = read_npy_header(file)
    except ValueError as error:
        raise DataError(f"{name}: {error}") from None
    if dtype.kind not in "iu" or len(shape) not in (1, 2) or shape[1:] not in ((), (1,)):
        raise DataError(f"{name}: holds {dtype} of shape {shape}, not integers (N,) or (N, 1)")
    count = int(shape[0])

    def blocks() -> Iterator[NDArray[Any]]:
        for start in range(0, count, coding.BLOCK):
            size = min(coding.BLOCK, count - start) * dtype.itemsize
            data = file.read(size)
            if len(data) != size:
                raise DataError(
                    f"{name}: ends at value {start + len(data) // dtype.itemsize} "
                    f"of the {count} its header gives"
                )
            yield np.frombuffer(data, dtype=dtype)
        if file.read(1):  # a stream's end, which its header could not be held to
            raise DataError(f"{name}: {trailing(None, shape, dtype)}")

    return count, dtype, blocks()


def _coding_summary(arguments: argparse.Namespace, line: str, began: float) -> None:
    if not arguments.quiet:
        seconds = time.perf_counter() - began
        target = "" if arguments.output == "-" else f"; written to {arguments.output}"
        print(f"{arguments.command}: {line} in {seconds:.3g} s{target}", file=sys.stderr)


def _not_to_a_terminal(path: str, what: str) -> None:
    """Binary output refused where it would go to a terminal (-o - unredirected)."""
    if path == "-" and sys.stdout is not None and sys.stdout.isatty():
        raise UsageError(
            f"-o -: {what} is binary, and standard output is a terminal; redirect it "
            "(> FILE, | COMMAND) or name a file"
        )


def pack(arguments: argparse.Namespace) -> int:
    """fibnim pack IN -o OUT [--delta]."""
    began = time.perf_counter()
    _not_to_a_terminal(arguments.output, "a coded file")
    with _opened(arguments.input) as source:
        count, dtype, blocks = _npy_values(source, arguments.input)
        bar = progress(count, arguments.quiet)
        try:
            with _written(arguments.output, arguments.force, arguments.input) as target:
                size = coding.write_blocks(
                    target, blocks, count, arguments.delta, arguments.input,
                    None if bar is None else bar.update, dtype,
                )  # fmt: skip
        finally:
            if bar is not None:
                bar.close()
    per_value = f", {8 * size / count:.3g} bits per value" if count else ""
    _coding_summary(arguments, f"{count:,} values into {size:,} bytes{per_value}", began)
    return 0


_UNPACKED = (".npy", ".txt", ".csv")  # the formats unpack writes, by suffix


def unpack(arguments: argparse.Namespace) -> int:
    """fibnim unpack IN -o OUT [--dtype DTYPE] [--salvage]."""
    began = time.perf_counter()
    # the output's rule first; a stream (-, a FIFO, a device) takes .npy
    # unless its name says text
    streamed = output_is_stream(arguments.output, arguments.force, (arguments.input,))
    kind = os.path.splitext(arguments.output)[1].lower()
    if streamed and kind not in _UNPACKED:
        kind = ".npy"
    if kind not in _UNPACKED:
        raise UsageError(
            f"{arguments.output}: unpack writes .npy, or text one value a line (.txt, .csv), "
            f"not {kind or 'a file without a suffix'}"
        )
    if kind == ".npy":
        _not_to_a_terminal(arguments.output, "a .npy")
    with _opened(arguments.input) as source:
        if arguments.salvage:
            head, found = coding._salvaged(source, arguments.input)
        else:
            head = coding.read_header(source, arguments.input)
        dtype = _unpacked_dtype(arguments.dtype, head.dtype)
        if arguments.salvage:
            parts: Iterator[NDArray[Any]] = iter([found.values])
            count = len(found.values)
        else:
            parts, count = (
                coding.read_blocks(
                    source, head.count, head.delta, None, arguments.input, head.version
                ),
                head.count,
            )
        bar = progress(count, arguments.quiet)
        try:
            with _written(arguments.output, arguments.force, arguments.input) as target:
                if kind == ".npy":
                    np.lib.format.write_array_header_1_0(
                        target, {"descr": dtype.str, "fortran_order": False, "shape": (count,)}
                    )
                elif kind == ".csv":
                    target.write(b"value\n")
                done = 0
                for values in parts:
                    exact = coding._as_dtype(values, dtype, arguments.input, done)
                    if kind == ".npy":
                        target.write(exact.tobytes())  # in the byte order its header says
                    elif len(exact):
                        target.write(("\n".join(map(str, exact.tolist())) + "\n").encode())
                    done += len(values)
                    if bar is not None:
                        bar.update(len(values))
        finally:
            if bar is not None:
                bar.close()
    _coding_summary(arguments, f"{count:,} values", began)
    if arguments.salvage and found.damaged:
        for damage in found.damaged:
            print(f"fibnim: unpack: {_damage(arguments.input, damage)}", file=sys.stderr)
        lost = head.count - count
        print(
            f"fibnim: unpack: {count:,} of {head.count:,} values salvaged, {lost:,} lost",
            file=sys.stderr,
        )
        return 1
    return 0


def _unpacked_dtype(given: str | None, recorded: np.dtype[Any]) -> np.dtype[Any]:
    """--dtype (an integer dtype), or the dtype the file records."""
    if given is None:
        return recorded
    try:
        dtype = np.dtype(given)
    except TypeError:
        raise UsageError(f"--dtype {given!r}: not a numpy dtype") from None
    if dtype.kind not in "iu":
        raise UsageError(f"--dtype {given!r}: not an integer dtype")
    return dtype


def _damage(name: str, damage: coding.Damage) -> str:
    """A damaged stretch of a coded file, in words."""
    where = f"{name}: block {damage.block} (bytes {damage.start} to {damage.end})"
    if damage.end <= coding.HEADER_SIZE:
        return (
            f"{name}: the header (bytes 0 to {damage.end}) is damaged; what it held (the "
            "count, whether gaps were coded) was recovered from the blocks and the file's end"
        )
    if damage.lost is None and damage.start == damage.end:
        return f"{name}: the file ends at byte {damage.start}, without its check of the whole"
    if damage.lost == 0:
        return (
            f"{where}: holds none of the values due there (bytes that are no block, bytes "
            "after the last value, or a block out of place), left out"
        )
    if damage.lost is None or damage.first is None:
        return f"{where} is damaged; its values lost are not known apart from the others'"
    last = damage.first + damage.lost - 1
    if damage.start == damage.end:
        return (
            f"{name}: the values {damage.first:,} to {last:,} are missing at byte "
            f"{damage.start} (a block dropped or moved, or the file cut short)"
        )
    return f"{where} is damaged: {damage.lost:,} values lost, values {damage.first:,} to {last:,}"
