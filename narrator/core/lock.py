"""One run at a time per book: an exclusive lock on ``<results>/<book_id>/.narrator.lock``.

Two runs on one results folder (say from two checkouts) would each render every segment, and
each one's removal of stale temps (narrator.core.publish) would delete the other's in-flight temps.
So every run, and ``narrator verify``, holds a flock on the book's lock file while it works,
and a second one is refused with one line naming the first.

The kernel drops a flock when the last descriptor of its open file closes, which happens when
the holder exits however it exits (SIGKILL, power loss aside): a lock file left by a crash is
never waited on. The file itself stays, holding the last holder's details, and is overwritten
by the next holder.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shlex
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from narrator.core.errors import UserError

LOCK_NAME = ".narrator.lock"


class ResultsLock:
    """The lock on one book's results folder, held from acquire() until release() or exit."""

    def __init__(self, folder: Path, what: str) -> None:
        self.path = folder / LOCK_NAME
        self.what = what
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock now, or raise UserError naming the run that holds it.

        OSError (a full disk, a read-only folder) is left to the caller, which knows what to say
        (narrator.workflow.jobs.describe_os_error).
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = open_lock_file(self.path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe_holder(fd)
            os.close(fd)
            raise UserError(
                f"{self.path.parent} is in use by {holder}; wait for it to finish or stop it, then run again"
            ) from None
        record = {
            "what": self.what,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": time.strftime("%Y-%m-%d %H:%M:%S %z"),
            "cwd": os.getcwd(),
            "command": shlex.join(sys.argv),
        }
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(record, indent=1) + "\n").encode(), 0)
        except OSError as error:
            os.close(fd)
            raise OSError(error.errno, error.strerror, str(self.path)) from None
        self._fd = fd
        _HELD.add(self)

    def release(self) -> None:
        """Let the next run in; the lock file stays, as a crash would leave it."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
            _HELD.discard(self)


#: Locks held by this process, whose descriptors a forked child must not keep open: a child
#: outliving a killed holder would otherwise keep the lock taken.
_HELD: set[ResultsLock] = set()


def open_lock_file(path: Path) -> int:
    """A descriptor of the lock file ``path``, made if missing; one line for something else there."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except IsADirectoryError:
        raise UserError(
            f"{path} is a folder, where narrator keeps a lock file; remove it (rmdir) and run again"
        ) from None


def _release_held_in_child() -> None:
    for lock in list(_HELD):
        lock.release()


os.register_at_fork(after_in_child=_release_held_in_child)


def _describe_holder(fd: int) -> str:
    """'snakemake (pid 12, host node1, since 2025-01-02 03:04:05 +0000, in /home/me/narrator)'."""
    try:
        record = json.loads(os.pread(fd, 65536, 0))
        return (
            f"{record['what']} (pid {record['pid']}, host {record['host']}, since {record['since']}, "
            f"in {record['cwd']})"
        )
    except (ValueError, KeyError, TypeError):
        # The holder took the lock a moment ago and is still writing its details.
        return "another run that is just starting"


def holder(folder: Path) -> str | None:
    """Who holds the book's lock now (as the refusal names them), or None; takes and writes nothing.

    A shared flock is refused exactly while someone holds the exclusive one, and is dropped at once.
    """
    path = folder / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _describe_holder(fd)
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


@contextlib.contextmanager
def holding(folder: Path, what: str) -> Iterator[None]:
    """Hold the lock on a book's results folder for the block; UserError if another run holds it."""
    lock = ResultsLock(folder, what)
    lock.acquire()
    try:
        yield
    finally:
        lock.release()
