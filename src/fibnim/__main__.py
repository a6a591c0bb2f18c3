"""The `fibnim` command (`python -m fibnim` too).

Its signal handlers come first, before numpy, the compiled core and the
command's own modules load: Ctrl-C or SIGTERM at any moment from here on ends
the command with one line and 128 + the signal's number, never a traceback.
"""

from __future__ import annotations

import os
import signal
import sys

from fibnim._stop import Signalled, held_signals, one_line, out_of_memory, raise_on_signals


def main() -> int:
    raise_on_signals()
    if sys.stderr is None:  # started with stderr closed: its one line has nowhere to go
        sys.stderr = open(os.devnull, "w")
    try:
        # a signal halfway through an import leaves a module half made, and the
        # import machinery words it as an error of its own (an ImportError, a
        # RuntimeError from __set_name__): it is held until the imports are done
        with held_signals():
            from fibnim.cli import main as command
        return command()
    except Signalled as stop:
        print(f"fibnim: stopped by {stop}", file=sys.stderr)
        return 128 + stop.number
    except Exception as error:
        if out_of_memory(error):  # at an import, say: cli.main says it for the rest
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
