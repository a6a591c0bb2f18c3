"""Where results go: the one rule for what an output may be, checked before any
work (`output_is_stream`: every command that writes comes here), and the
file that appears under its name only when a run succeeds (`AtomicFile`).

An output is written to a temporary file in its directory and takes its name
at the commit; on Linux the temporary file has no name at all until then
(O_TMPFILE), so even a killed run leaves nothing behind. A stream (-, a FIFO,
a character device, an open descriptor) is written through, in order.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import re
import secrets
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from fibnim._errors import UsageError

KINDS = (".npy", ".csv", ".tsv", ".parquet")


def output_is_stream(
    path: str,
    force: bool,
    inputs: tuple[str | None, ...] = (),
    option: str = "",
    written: tuple[str | None, ...] = (),
) -> bool:
    """The one rule for what an output may be, checked before any work (every
    command that writes, and fibnim.coding.write, come here): True where it is
    written as a stream (-, a FIFO, a character device such as /dev/null, an
    open descriptor: /dev/stdout, /dev/fd/N, /proc/self/fd/N or a link to one
    of them), False where a new regular file takes its name at the end
    (AtomicFile; through a link, the file it leads to).

    Refused (UsageError, naming the user's path): an input or another path
    the run writes (`written`) under any name, inside it or containing it
    (`refuse_overlap`); a link that leads
    nowhere; a directory, a socket or a block device (--force replaces only
    regular files); a regular file without --force; a directory that is
    missing or not writable."""
    label = f"{option} {path}" if option else path
    if path == "-":
        if sys.stdout is None:
            raise UsageError(f"{label}: standard output is closed")
        return True
    if _descriptor(path):
        return True  # written through, in order, as a shell's > writes it
    refuse_overlap(label, path, inputs)
    refuse_overlap(label, path, written, "output")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
        if os.path.islink(path):
            raise UsageError(
                f"{label}: is a link to {os.readlink(path)}, which does not exist; name the "
                "file itself",
                errno.ENOENT,
            ) from None
    except OSError as error:
        raise UsageError(f"{label}: {error.strerror}") from None
    if mode is not None:
        if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
            return True  # nothing is replaced: written in order, as a shell's > writes
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
            raise UsageError(
                f"{label}: is {kind}; fibnim writes a file there only in place of a regular "
                "file (--force replaces nothing else)",
                errno.EISDIR if stat.S_ISDIR(mode) else errno.EEXIST,
            )
        if not force:
            raise UsageError(f"{label}: exists; --force overwrites it", errno.EEXIST)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"{label}: no directory {directory}", errno.ENOENT)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(
            f"{label}: the directory {directory} is not writable (permission denied)",
            errno.EACCES,
        )
    return False


#: the file fibnim writes into every dataset it writes, naming the files it
#: wrote there: how --force knows a directory as fibnim's own (pyarrow's and
#: dask's readers skip names that start with "_" or ".")
MARKER = "_fibnim.json"


def check_directory_output(target: str, where: str, force: bool) -> None:
    """The rule for a dataset's output, before any work: a directory, never the
    input, inside it or containing it (`refuse_overlap`), new or, with
    --force, one that fibnim wrote (its MARKER lists every file in it) or an
    empty one; UsageError naming what else it holds otherwise."""
    label = f"-o {target}"
    if target == "-":
        raise UsageError("a dataset goes to a directory: -o DIRECTORY")
    suffix = os.path.splitext(target)[1].lower()
    if suffix in KINDS and suffix != ".parquet":
        raise UsageError(
            f"{target}: a dataset goes to a directory of parquet files, not {suffix}; "
            "name a directory (no suffix, or .parquet)"
        )
    refuse_overlap(label, target, (where,))
    if not os.path.lexists(target):
        parent = os.path.dirname(os.path.abspath(target))
        if not os.path.isdir(parent):
            raise UsageError(f"{label}: no directory {parent}")
        return
    if not os.path.isdir(target):
        raise UsageError(f"{label}: is not a directory; a dataset goes to a directory")
    if not force:
        raise UsageError(f"{label}: exists; --force replaces it if fibnim wrote it")
    held = sorted(
        os.path.relpath(os.path.join(folder, name), target)
        for folder, _, names in os.walk(target)
        for name in names
    )
    if not held:
        return
    try:
        with open(os.path.join(target, MARKER), encoding="utf-8") as file:
            written = set(json.load(file)["files"])
    except (OSError, ValueError, KeyError, TypeError):
        raise UsageError(
            f"{label}: holds {_listed(held)} and was not written by fibnim (it has no "
            f"{MARKER}); --force replaces only a directory that fibnim wrote, or an empty "
            "one: move what it holds, or name another directory"
        ) from None
    if others := [name for name in held if name != MARKER and name not in written]:
        raise UsageError(
            f"{label}: holds {_listed(others)}, which fibnim did not write there; --force "
            "replaces only what fibnim wrote: move them, or name another directory"
        )


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:3])
    return shown + (f" and {len(names) - 3:,} more" if len(names) > 3 else "")


_DESCRIPTOR = re.compile(r"/(?:proc/(?:self|thread-self|[0-9]+)|dev)/fd/[0-9]+")


def _descriptor(path: str) -> bool:
    """Whether path is an open descriptor's name (/dev/fd/1, /proc/self/fd/1),
    or a chain of links leads to one (/dev/stdout)."""
    here = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on a chain of links
        if _DESCRIPTOR.fullmatch(here):
            return True
        if not os.path.islink(here):
            return False
        here = os.path.normpath(os.path.join(os.path.dirname(here), os.readlink(here)))
    return False


def refuse_overlap(
    label: str, path: str, others: Iterable[str | None], what: str = "input"
) -> None:
    """The one rule between a path a run writes and every path it reads (or
    writes besides): UsageError, before any work and with --force or
    without, where the written path is one of them under any name (a
    symbolic or a hard link), lies inside one (a dataset's directory), or
    contains one (a directory the run would replace). Links are followed to
    where they lead: a path that does not exist yet is compared by the
    place it would take."""
    written = os.path.realpath(path)
    for other in others:
        if other in (None, "-") or _descriptor(other):
            continue
        read = os.path.realpath(other)
        if read == written or _same_file(other, path):
            relation = "is"
        elif _within(written, read):
            relation = "is inside"
        elif _within(read, written):
            relation = "contains"
        else:
            continue
        itself = " itself (by its name, a link to it or another name for it)"
        why = (
            "fibnim never writes over its input, even with --force"
            if what == "input"
            else "each path a run writes must be a place of its own"
        )
        raise UsageError(
            f"{label}: {relation} the {what} {other}{itself if relation == 'is' else ''}; {why}"
        )


def _within(path: str, directory: str) -> bool:
    """Whether path lies inside directory (both resolved, absolute)."""
    return os.path.commonpath([path, directory]) == directory and path != directory


def _same_file(source: str, target: str) -> bool:
    """Whether target is source under any name (the same device and inode)."""
    try:
        return os.path.samefile(source, target)
    except OSError:  # one of them does not exist
        return False


def _stream_node(path: str) -> bool:
    """Whether path is a character device or a FIFO (through any links)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def open_stream(path: str) -> IO[bytes]:
    """An output that output_is_stream took as a stream, open for writing in order."""
    if path == "-":
        assert sys.stdout is not None
        return sys.stdout.buffer
    return open(path, "wb")


def kind_of(path: str) -> str:
    """The format of a path by its suffix; "-", and a stream named without one
    (a descriptor such as /dev/stdout, a character device such as /dev/null,
    a FIFO), is CSV."""
    if path == "-":
        return ".csv"
    suffix = Path(path).suffix.lower()
    if not suffix and (_descriptor(path) or _stream_node(path)):
        return ".csv"
    if suffix not in KINDS:
        raise UsageError(
            f"{path}: unknown format {suffix or '(no suffix)'}; use {', '.join(KINDS)}"
        )
    return suffix


class AtomicFile:
    """A file in the target's directory that takes the target's name on commit.

    The target's name is resolved once, here (through any links: --force
    replaces the file a link leads to, as a shell's > writes it), and its
    directory held open until the commit, which names the file relative to
    it: a link re-pointed during the run cannot redirect the commit. On
    Linux the file is opened with O_TMPFILE: it has no name until commit
    links it, so a run killed by any signal leaves nothing. Elsewhere it is a
    hidden temporary file, removed on abort. Without `replace` the commit is
    a link onto the target's name, which fails if that name appeared
    meanwhile (another run, say): the file found there is left as it is.
    Either way the file gets the mode a new file would get (0666 less the
    umask)."""

    def __init__(self, path: str, replace: bool) -> None:
        self.name = path  # as the user gave it: every error names it, never a temporary
        folder, self.base = os.path.split(os.path.realpath(path))
        self.replace = replace
        self.temporary: str | None = None  # a name in the directory, until commit or abort
        try:
            self.directory = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except FileNotFoundError:
            raise UsageError(f"{path}: no directory {folder}") from None
        try:
            with self.naming():
                try:
                    descriptor = os.open(
                        ".", os.O_TMPFILE | os.O_RDWR, 0o666, dir_fd=self.directory
                    )
                except (AttributeError, OSError, NotImplementedError):
                    descriptor, made = tempfile.mkstemp(
                        dir=folder, prefix=f".{self.base}.", suffix=".part"
                    )
                    self.temporary = os.path.basename(made)
                    os.chmod(descriptor, 0o666 & ~_umask())  # mkstemp's files are 0600
        except BaseException:
            os.close(self.directory)
            raise
        self.stream = io.BufferedWriter(io.FileIO(descriptor, "w"), buffer_size=1 << 20)

    @contextlib.contextmanager
    def naming(self) -> Iterator[None]:
        """OSErrors within name the target as the user gave it (a full disk's
        names no file; a failed rename names the temporary)."""
        try:
            yield
        except OSError as error:
            if error.errno is None:
                raise
            raise type(error)(error.errno, error.strerror, self.name) from None

    def commit(self, check: Callable[[], None]) -> None:
        with self.naming():
            self._commit(check)

    def _commit(self, check: Callable[[], None]) -> None:
        self.stream.flush()
        os.fsync(self.stream.fileno())
        here = self.directory
        if self.temporary is None:
            # an unnamed file (O_TMPFILE) is linked through /proc's link to it,
            # which os.link follows (linkat with AT_SYMLINK_FOLLOW)
            source = f"/proc/self/fd/{self.stream.fileno()}"
            if self.replace:
                named = f".{self.base}.{secrets.token_hex(8)}"
                os.link(source, named, dst_dir_fd=self.directory)
                self.temporary = named
        check()  # the last moment to back out: abort() removes a temporary name
        if self.replace:
            assert self.temporary is not None
            os.replace(self.temporary, self.base, src_dir_fd=here, dst_dir_fd=here)
            self.temporary = None
        else:
            try:
                if self.temporary is None:
                    os.link(source, self.base, dst_dir_fd=self.directory)
                else:
                    os.link(self.temporary, self.base, src_dir_fd=here, dst_dir_fd=here)
            except FileExistsError:
                raise FileExistsError(
                    errno.EEXIST,
                    "appeared while this run wrote it (another run?); it is left as it is "
                    "and this run's output is dropped (--force replaces it)",
                    self.name,
                ) from None
        self.abort()  # the temporary name (if any) goes; the file keeps its new one

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self.stream.close()
        if self.temporary is not None:
            with contextlib.suppress(OSError):
                os.remove(self.temporary, dir_fd=self.directory)
            self.temporary = None
        if self.directory >= 0:
            os.close(self.directory)
            self.directory = -1  # closed once: its number may be another file's next


def _umask() -> int:
    mask = os.umask(0o22)  # the one way to read it is to set it
    os.umask(mask)
    return mask


def figure_format(
    path: str,
    force: bool,
    option: str,
    inputs: tuple[str | None, ...] = (),
    written: tuple[str | None, ...] = (),
) -> str:
    """The format a picture at `path` is saved in, from its extension, once it is
    known that matplotlib is there and that `path` may be written (checked
    before a run, so that a long one does not end in a usage error)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError(
            f'{option} needs matplotlib: pip install "fibnim[plot]" (or matplotlib)'
        ) from None
    kind = os.path.splitext(path)[1][1:].lower()
    formats = Figure().canvas.get_supported_filetypes()
    if kind not in formats:
        raise UsageError(
            f"{option} {path}: name a picture file, one of " + ", ".join(f".{f}" for f in formats)
        )
    if path == "-" or output_is_stream(path, force, inputs, option, written):
        raise UsageError(f"{option} {path}: a picture goes to a file")
    return kind


def save_figure(figure: Any, path: str, kind: str, replace: bool) -> None:
    """figure saved at path as a whole or not at all (see AtomicFile)."""
    target = AtomicFile(path, replace)
    try:
        figure.savefig(target.stream, format=kind)
        target.commit(lambda: None)
    except BaseException:
        target.abort()
        raise


def answer_names(piles: int) -> Iterator[str]:
    """The answers' column names, is_p and a move per pile, as they are asked
    for (a .npy's header may promise millions of piles)."""
    yield "is_p"
    yield from (f"move_{j + 1}" for j in range(piles))


@dataclass
class Output:
    """What a format's writer writes into and by: the stream, the output's path
    and the input's name (for errors), the input's columns, `pick` where the
    piles are among them (None: all of them)."""

    stream: IO[bytes]
    path: str
    source: str
    columns: Sequence[str]
    pick: list[int] | None

    @property
    def piles(self) -> int:
        return len(self.columns) if self.pick is None else len(self.pick)

    def answers(self) -> Iterator[str]:
        return answer_names(self.piles)

    def names(self) -> Iterator[str]:
        """The output's column names: the input's, then the answers'."""
        yield from self.columns
        yield from self.answers()
