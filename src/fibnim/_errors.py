"""The two errors of fibnim's commands: bad data in an input (exit status 1)
and a bad command line (exit status 2)."""

from __future__ import annotations

import errno
import importlib.util

from fibnim import _stop


class DataError(Exception):
    """Bad data in an input file (exit status 1)."""


class UsageError(Exception):
    """A bad command line: a missing or unknown file, an output in the way (exit status 2).
    `errno`, where one fits, is the OSError that the Python API raises instead."""

    def __init__(self, text: str, code: int | None = None) -> None:
        super().__init__(text)
        self.errno = code

    def as_os_error(self, where: str, path: str) -> OSError:
        """This refusal as the Python API raises it (FileNotFoundError, ...)."""
        text = str(self).removeprefix(f"{path}: ")  # the OSError names the path itself
        return OSError(self.errno or errno.EINVAL, f"{where}: {text}", path)


def missing_package(error: ImportError, package: str, need: str, extra: str) -> Exception:
    """The error of an optional package that did not import: "needs it" only where
    it is not installed; where it is, why it did not load (out of memory, say)."""
    if importlib.util.find_spec(package) is None:
        return UsageError(f"{need} {package}: pip install 'fibnim[{extra}]'")
    if _stop.out_of_memory(error):
        return MemoryError(f"{package} did not load: {error}")
    return UsageError(f"{package} is installed but did not load ({error})")


def in_one_line(error: BaseException) -> str:
    """A library's error in one line (pyarrow's may hold line breaks, and bytes
    of the file it read that print as them)."""
    return " ".join(str(error).split())
