"""The bridge from Snakemake rules to the stage functions: logs and user-facing failures."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from snakemake.exceptions import WorkflowError

from narrator.core import interrupt
from narrator.core.errors import UserError, out_of_memory
from narrator.core.lock import ResultsLock

#: What the user does about a failure of the machine rather than of narrator.
MACHINE_FAULTS: dict[int, str] = {
    errno.ENOSPC: "free some space",
    errno.EDQUOT: "free some space or raise the disk quota",
    errno.EFBIG: "raise the file size limit (ulimit -f) or write to a filesystem that allows larger files",
    errno.EACCES: "fix the permissions",
    errno.EPERM: "fix the permissions",
    errno.EROFS: "make the filesystem writable",
    errno.EIO: "check the disk (dmesg, fsck)",
}
#: What to run once the fault is fixed, for a failure inside a Snakemake run.
RUN_AGAIN = "run snakemake again: finished segments are kept"
#: Bytes a job's log claims when the job starts: room for its failure line and most of a traceback,
#: so a disk that fills up during the job still gets told why the job failed.
LOG_RESERVE = 8192
#: Written when a run starts. A job that starts on a disk already full cannot write a byte of its
#: own log, and Snakemake would leave it empty; it gets a hard link to this one, which needs no
#: free blocks.
DISK_FULL_LOG = Path("logs") / ".disk-full.log"


def describe_os_error(error: BaseException, then: str = RUN_AGAIN) -> str | None:
    """One line for a full disk, a permission or a disk fault: the path, what it means, what to do.

    ``then`` says what to run after the fix. None for any other error.
    """
    if not isinstance(error, OSError) or error.errno not in MACHINE_FAULTS:
        return None
    path = error.filename  # None, or a descriptor, for a failed write to an open file
    where = "" if path is None or isinstance(path, int) else f"{os.fsdecode(path)}: "
    return f"{where}{os.strerror(error.errno)}; {MACHINE_FAULTS[error.errno]}, then {then}"


@contextlib.contextmanager
def faults_in_one_line(then: str = RUN_AGAIN) -> Iterator[None]:
    """Turn a machine fault (full disk, permission, read-only or failing disk) into a UserError of
    one line; any other error goes on as it is."""
    try:
        yield
    except OSError as error:
        fault = describe_os_error(error, then)
        if fault is None:
            raise
        raise UserError(fault) from None


def failure_message(what: str, error: BaseException, log: Path) -> str:
    """One line for a failure that is not a UserError: a machine fault, else a bug in narrator."""
    fault = describe_os_error(error)
    if fault is not None:
        return f"{what}: {fault}"
    if out_of_memory(error):
        return (
            f"{what}: out of memory ({type(error).__name__}: {error}); raise the memory limit (ulimit -v, "
            f"the cluster job's mem_mb) or run fewer jobs at once (--cores), then {RUN_AGAIN}"
        )
    detail = (str(error).strip().splitlines() or [""])[0]
    return (
        f"{what} failed: {type(error).__name__}: {detail}; this is a bug in narrator, please report it "
        f"with the traceback in {log}"
    )


def log_bug(what: str, error: BaseException, log: Path) -> str:
    """Write an unexpected failure's traceback to the log; return one line saying what failed."""
    message = failure_message(what, error, log)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)  # it may be a link to DISK_FULL_LOG (see JobLog)
    log.write_text(f"error: {message}\n\n{traceback.format_exc()}")
    return message


def write_disk_full_log() -> None:
    """Write DISK_FULL_LOG unless it is there, while the disk has room: when a run starts."""
    if DISK_FULL_LOG.is_file():
        return
    DISK_FULL_LOG.parent.mkdir(parents=True, exist_ok=True)
    temp = DISK_FULL_LOG.with_suffix(".tmp")
    try:
        temp.write_text(
            f"error: the disk was full when this job started, so it wrote nothing, not even this log; "
            f"free some space, then {RUN_AGAIN}\n"
        )
        os.replace(temp, DISK_FULL_LOG)
    finally:
        temp.unlink(missing_ok=True)


def start_run(book_results: Iterable[Path]) -> None:
    """Before a run's first job, in its main process: hold each book's results folder (narrator.core.lock)
    until the process exits, write DISK_FULL_LOG, and let Ctrl-C and SIGTERM reach the stages that
    run as threads of this process (narrator.core.interrupt; Snakemake has set its SIGTERM handler by
    now). UserError, one line, if the lock or the log fails."""
    interrupt.watch(signal.SIGINT, signal.SIGTERM)
    with faults_in_one_line():
        for folder in book_results:
            ResultsLock(folder, "snakemake").acquire()
        write_disk_full_log()


def job_name(log: Path) -> str:
    """The rule and target a log belongs to: logs/render_segment/alice/0a1b.log is
    "render_segment alice/0a1b"; a log kept elsewhere is named by its path."""
    parts = log.with_suffix("").parts
    if len(parts) >= 3 and parts[0] == "logs":
        return f"{parts[1]} {'/'.join(parts[2:])}"
    return str(log)


class JobLog:
    """A rule's log, started before the job's work with room reserved for how the job ends.

    The first line (job, start time, pid) and the reserve are written while there is still
    room; the outcome is written over them from the start and the file cut to its length, so it
    needs no new blocks on a disk that filled up meanwhile. A killed job's log keeps its first
    line, padded with spaces: text, not NUL bytes.
    """

    def __init__(self, path: Path, job: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # An earlier run may have left this log as a link to DISK_FULL_LOG: never write through it.
        path.unlink(missing_ok=True)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        self._started = f"{job}: started {time.strftime('%Y-%m-%d %H:%M:%S')}, pid {os.getpid()}\n"
        try:
            os.write(self._fd, self._started.encode().ljust(LOG_RESERVE - 1) + b"\n")
        except OSError as error:
            os.close(self._fd)
            path.unlink()
            if error.errno in (errno.ENOSPC, errno.EDQUOT):
                with contextlib.suppress(OSError):
                    os.link(DISK_FULL_LOG, path)
            raise OSError(error.errno, error.strerror, str(path)) from None

    def finish(self, text: str) -> None:
        """Replace the reserve with the first line and ``text``; keep what fits if the disk is full."""
        data = (self._started + text).encode()
        written = 0
        try:
            os.lseek(self._fd, 0, os.SEEK_SET)
            while written < len(data):
                written += os.write(self._fd, data[written:])
        except OSError as error:
            if error.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
        finally:
            os.ftruncate(self._fd, written)
            os.close(self._fd)


def run_logged(log_path: str, stage: Callable[..., str], *args: Any, **kwargs: Any) -> None:
    """Run a stage and write its summary, or its error, to the rule's log; the log is never empty.

    A UserError fails the job with its own message only. A full disk, a permission or a disk
    fault fails it with one line naming the rule, its target, the path and what to do. Anything
    else is a bug: one line naming the rule and target ("plan_catalog alice"). The traceback of
    either goes to the log, where a bug report needs it.
    """
    path = Path(log_path)
    what = job_name(path)
    try:
        log = JobLog(path, what)
    except OSError as error:
        raise WorkflowError(f"{what}: {describe_os_error(error) or error}") from None
    try:
        summary = stage(*args, **kwargs)
    except UserError as error:
        log.finish(f"error: {error}\n")
        raise WorkflowError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - a machine fault or a bug: one line, traceback in the log
        message = failure_message(what, error, path)
        log.finish(f"error: {message}\n\n{traceback.format_exc()}")
        raise WorkflowError(message) from None
    log.finish(f"{summary}\n")
