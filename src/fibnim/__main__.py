"""The `fibnim` command (`python -m fibnim` too).

Its signal handlers come first, before numpy, the compiled core and the
command's own modules load: Ctrl-C or SIGTERM at any moment from here on ends
the command with one line and 128 + the signal's number, never a traceback.
"""

from __future__ import annotations

import os
import signal
import sys

from fibnim._stop import (
    Signalled,
    address_space_limit,
    held_signals,
    one_line,
    out_of_memory,
    raise_on_signals,
)


def main() -> int:
    raise_on_signals()
    # fibnim does no linear algebra: numpy's BLAS need not start a thread per
    # core at import, which under a low ulimit -v failed and printed its own lines
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if sys.stderr is None:  # started with stderr closed: its one line has nowhere to go
        sys.stderr = open(os.devnull, "w")
    starting = True
    try:
        # a signal halfway through an import leaves a module half made, and the
        # import machinery words it as an error of its own (an ImportError, a
        # RuntimeError from __set_name__): it is held until the imports are done
        with held_signals():
            from fibnim.cli import main as command
        starting = False
        return command()
    except Signalled as stop:
        print(f"fibnim: stopped by {stop}", file=sys.stderr)
        return 128 + stop.number
    except Exception as error:
        # an allocation that fails inside an import may surface as any error of
        # a module half made (numpy's AttributeError, CPython's SystemError)
        half_made = starting and address_space_limit() is not None
        if out_of_memory(error) or (half_made and not isinstance(error, ImportError)):
            detail = one_line(error)
            print(
                f"fibnim: out of memory while starting ({detail}): free memory, or raise "
                "the process's limit (ulimit -v)",
                file=sys.stderr,
            )
            return 1
        if isinstance(error, ImportError):  # FIBNIM_IMPLEMENTATION, FIBNIM_REQUIRE_EXTENSION
            print(f"fibnim: {error}", file=sys.stderr)
            return 2
        raise
    finally:
        # the answer is written and the exit status decided: a signal from here
        # to the exit would only turn them into a traceback
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(main())
