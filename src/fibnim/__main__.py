"""The `fibnim` command (`python -m fibnim` too).

Its signal handlers come first, before numpy, the compiled core and the
command's own modules load: Ctrl-C or SIGTERM at any moment from here on ends
the command with one line and 128 + the signal's number, never a traceback.
"""

from __future__ import annotations

import signal
import sys

from fibnim._stop import Signalled, raise_on_signals


def main() -> int:
    raise_on_signals()
    try:
        from fibnim.cli import main as command

        return command()
    except Signalled as stop:
        print(f"fibnim: stopped by {stop}", file=sys.stderr)
        return 128 + stop.number
    finally:
        # the answer is written and the exit status decided: a signal from here
        # to the exit would only turn them into a traceback
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(main())
