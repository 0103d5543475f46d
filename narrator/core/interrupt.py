"""Ctrl-C and SIGTERM for stages that run as threads of Snakemake's own process.

With force-use-threads (profiles/default), a `run:` job is a thread of the snakemake process.
On Ctrl-C Snakemake shuts its thread pool down and waits for the running jobs, and nothing can
stop a thread from outside: a long plan or assembly went on for minutes after the first Ctrl-C.
So the signal handlers also raise a flag, and the long loops (planning segment by segment,
assembly segment by segment) check it and stop within one segment.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

from narrator.core.errors import UserError

_requested = threading.Event()


class Interrupted(UserError):
    """The user asked the run to stop."""


def requested() -> bool:
    """Whether the user asked the run to stop."""
    return _requested.is_set()


def check() -> None:
    """Stop here if the user asked the run to stop."""
    if _requested.is_set():
        raise Interrupted("interrupted by the user (Ctrl-C or SIGTERM); run snakemake again to go on")


def watch(*signals: signal.Signals) -> None:
    """Raise the flag on these signals, then do what their handlers did before.

    Call it from the main thread, after whoever else handles these signals has set its handler
    (Snakemake sets its SIGTERM handler when its scheduler starts, so onstart is the place).
    """
    for number in signals:
        previous = signal.getsignal(number)

        def handler(signum: int, frame: FrameType | None, previous: object = previous) -> None:
            _requested.set()
            if callable(previous):
                previous(signum, frame)
            elif previous == signal.SIG_DFL:
                signal.signal(signum, signal.SIG_DFL)
                signal.raise_signal(signum)

        signal.signal(number, handler)
