"""Faults of the machine, not of narrator: a full disk, a read-only folder, a second run on one book.

The full-disk tests mount a real tmpfs (root only, as in CI) and fill it, so every write fails the
way it fails on a real disk: ENOSPC from whichever write comes first.
"""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import RUN_ARGS, Workdir, kill_group, read_audio
from snakemake.exceptions import WorkflowError

from narrator.core.catalog import COMPLETED, read_catalog
from narrator.core.errors import UserError
from narrator.core.lock import LOCK_NAME, ResultsLock, holding
from narrator.workflow.jobs import DISK_FULL_LOG, describe_os_error, run_logged, write_disk_full_log

RERUN = "then run snakemake again: finished segments are kept"


class Disk:
    """A small real filesystem (tmpfs) that a test can fill up and free again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.ballast = path / "ballast"

    def fill(self, leave_kib: int = 0) -> None:
        """Take all free space but ``leave_kib``."""
        stat = os.statvfs(self.path)
        free = stat.f_bavail * stat.f_frsize - leave_kib * 1024
        with open(self.ballast, "ab") as handle:
            os.posix_fallocate(handle.fileno(), self.ballast.stat().st_size, free)

    def free(self) -> None:
        self.ballast.unlink()

    def remount(self, option: str) -> None:
        subprocess.run(["mount", "-o", f"remount,{option}", str(self.path)], check=True)


@pytest.fixture
def disk(request: pytest.FixtureRequest) -> Disk:
    """A real tmpfs, skipped where it cannot be mounted, grown to hold the sample book's run."""
    disk = Disk(request.getfixturevalue("tiny_disk"))
    disk.remount("size=64m")
    return disk


# --- one line for a machine fault -----------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "advice"),
    [
        (errno.ENOSPC, "free some space"),
        (errno.EDQUOT, "raise the disk quota"),
        (errno.EFBIG, "ulimit -f"),
        (errno.EACCES, "fix the permissions"),
        (errno.EPERM, "fix the permissions"),
        (errno.EROFS, "make the filesystem writable"),
        (errno.EIO, "check the disk"),
    ],
)
def test_machine_faults_are_described_with_path_meaning_and_advice(number, advice):
    line = describe_os_error(OSError(number, "ignored", "results/alice/catalog.tsv"))
    assert line.startswith(f"results/alice/catalog.tsv: {os.strerror(number)}; ")
    assert advice in line and line.endswith(RERUN)
    assert "\n" not in line


def test_other_errors_are_not_machine_faults():
    assert describe_os_error(OSError(errno.ENOENT, "No such file", "x")) is None
    assert describe_os_error(ValueError("x")) is None
    # A failed write to an open file names no path: the line says what it can.
    assert describe_os_error(OSError(errno.ENOSPC, "No space left on device")) == (
        f"No space left on device; free some space, {RERUN}"
    )
    assert describe_os_error(
        PermissionError(errno.EACCES, "x", "c.tsv"), then="run narrator verify again"
    ) == ("c.tsv: Permission denied; fix the permissions, then run narrator verify again")


def _raise(error: BaseException):
    def stage() -> str:
        raise error

    return stage


def test_a_permission_error_in_a_job_is_one_line_and_its_traceback_goes_to_the_log(tmp_path, monkeypatch):
    """The old run_logged called this a bug in narrator; a read-only catalog gave tracebacks."""
    monkeypatch.chdir(tmp_path)
    denied = PermissionError(errno.EACCES, "Permission denied", "results/alice/catalog.tsv")
    with pytest.raises(WorkflowError) as raised:
        run_logged("logs/plan_catalog/alice.log", _raise(denied))
    assert str(raised.value) == (
        f"plan_catalog alice: results/alice/catalog.tsv: Permission denied; fix the permissions, {RERUN}"
    )
    log = (tmp_path / "logs" / "plan_catalog" / "alice.log").read_text()
    assert log.startswith("plan_catalog alice: started ")
    assert log.splitlines()[1] == f"error: {raised.value}"
    assert "Traceback (most recent call last)" in log and "PermissionError" in log


def test_a_bug_is_still_called_a_bug_and_names_rule_and_target(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(WorkflowError) as raised:
        run_logged("logs/render_segment/alice/0a1b2c3d4e5f6a7b.log", _raise(KeyError("frames")))
    assert str(raised.value).startswith("render_segment alice/0a1b2c3d4e5f6a7b failed: KeyError: 'frames'; ")
    assert "this is a bug in narrator" in str(raised.value)


def test_a_finished_job_logs_its_first_line_and_summary_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_logged("logs/package_subtitles/alice.srt.log", lambda: "wrote 12 cues")
    lines = (tmp_path / "logs" / "package_subtitles" / "alice.srt.log").read_text().splitlines()
    assert re.fullmatch(r"package_subtitles alice\.srt: started [-\d]+ [:\d]+, pid \d+", lines[0])
    assert lines[1:] == ["wrote 12 cues"]


def test_a_job_whose_disk_fills_up_still_logs_why_it_failed(disk, monkeypatch):
    """The old run_logged wrote the log only at the end: on a full disk it stayed 0 bytes."""
    monkeypatch.chdir(disk.path)
    write_disk_full_log()
    output = disk.path / "results" / "alice" / "segments" / "0a1b.wav"

    def render() -> str:
        output.parent.mkdir(parents=True)
        disk.fill()
        output.write_bytes(b"RIFF" * 4096)
        return "not reached"

    with pytest.raises(WorkflowError) as raised:
        run_logged("logs/render_segment/alice/0a1b.log", render)
    assert (
        str(raised.value) == f"render_segment alice/0a1b: No space left on device; free some space, {RERUN}"
    )
    log = (disk.path / "logs" / "render_segment" / "alice" / "0a1b.log").read_text()
    assert log.splitlines()[1] == f"error: {raised.value}"
    assert "OSError: [Errno 28]" in log  # the traceback, or as much of it as the reserve held

    # The next job starts on the full disk (the failed job's log gave back what it did not use):
    # not a byte of its own log fits, so it gets the shared note.
    disk.fill()
    with pytest.raises(WorkflowError) as raised:
        run_logged("logs/render_segment/alice/2c3d.log", lambda: "not reached")
    assert str(raised.value) == (
        f"render_segment alice/2c3d: logs/render_segment/alice/2c3d.log: No space left on device; "
        f"free some space, {RERUN}"
    )
    late = disk.path / "logs" / "render_segment" / "alice" / "2c3d.log"
    assert late.read_text() == (disk.path / DISK_FULL_LOG).read_text() != ""

    # Once there is room, the job's own log replaces the note, which stays intact for others.
    disk.free()
    run_logged("logs/render_segment/alice/2c3d.log", lambda: "rendered")
    assert late.read_text().splitlines()[1] == "rendered"
    assert (disk.path / DISK_FULL_LOG).read_text().startswith("error: the disk was full")


# --- real runs on a disk that fills up ------------------------------------------------------


def _check_full_disk_failure(result: subprocess.CompletedProcess, logs: Path) -> None:
    """Failed, one line per failed job and no traceback on stderr, no empty log."""
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    failed_jobs = re.findall(r"^Error in rule (\w+):$", result.stderr, re.MULTILINE)
    lines = [line for line in result.stderr.splitlines() if "No space left on device; " in line]
    assert len(lines) == len(failed_jobs), result.stderr
    pattern = rf"(\w+) (\S+): (\S+: )?No space left on device; free some space, {RERUN}"
    jobs = [re.fullmatch(pattern, line).group(1, 2) for line in lines]
    assert len(set(jobs)) == len(jobs)
    assert sorted(rule for rule, _ in jobs) == sorted(failed_jobs)
    assert "Errno" not in "".join(lines)
    empty = [str(log) for log in logs.rglob("*") if log.is_file() and log.stat().st_size == 0]
    assert not empty


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["results and logs", "whole workdir"])
def test_a_disk_that_fills_up_mid_render_fails_in_one_line_per_job_and_a_rerun_finishes(
    disk, tmp_path, reference_book, layout
):
    if layout == "whole workdir":
        # Snakemake's own metadata and log are on the full disk too.
        work = Workdir(disk.path / "work")
        results = work.path / "results"
    else:
        work = Workdir(tmp_path / "work")
        (disk.path / "logs").mkdir()
        (work.path / "logs").symlink_to(disk.path / "logs")
        results = disk.path / "results"
    # The plan fits; the segments (about 18 MB for the sample book) do not.
    disk.fill(leave_kib=8 * 1024)
    failed = work.run_book(f"results={results}", check=False)
    _check_full_disk_failure(failed, work.path / "logs")
    if layout == "results and logs":
        # With its own files on the full disk, Snakemake may stop first, at a job whose metadata
        # it cannot record (one line of its own); here every pending render fails.
        assert "Error in rule render_segment:" in failed.stderr
    rows = read_catalog(results / "sample" / "catalog.tsv")
    finished = sum(row.status == COMPLETED for row in rows)
    assert 0 < finished < len(rows)

    disk.free()
    work.run_book(f"results={results}")
    data, _ = read_audio(results / "sample" / "sample.wav")
    assert np.array_equal(data, reference_book[0])
    assert not [log for log in (work.path / "logs").rglob("*") if log.is_file() and log.stat().st_size == 0]


@pytest.mark.slow
def test_a_read_only_results_folder_is_one_line(disk, workdir):
    disk.remount("ro")
    result = workdir.run_book(f"results={disk.path}", check=False)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last == (
        f"narrator: {disk.path}/sample: Read-only file system; make the filesystem writable, {RERUN}"
    )


# --- one run per results folder -------------------------------------------------------------

HOLDER = """
import os, sys, time
from pathlib import Path
from narrator.core.lock import ResultsLock
ResultsLock(Path(sys.argv[1]), "holder").acquire()
if len(sys.argv) > 2 and os.fork() == 0:
    time.sleep(60)  # a forked child outliving its parent
    os._exit(0)
print(os.getpid(), flush=True)
time.sleep(60)
"""


def _start_holder(folder: Path, *fork: str) -> tuple[subprocess.Popen, int]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder), *fork],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    return holder, int(holder.stdout.readline())


def test_a_second_holder_is_refused_with_one_line_naming_the_first(tmp_path):
    holder, pid = _start_holder(tmp_path)
    try:
        with pytest.raises(UserError) as refused, holding(tmp_path, "narrator verify"):
            pass
    finally:
        kill_group(holder)
    record = json.loads((tmp_path / LOCK_NAME).read_text())
    assert record["pid"] == pid and record["cwd"] == os.getcwd() and "-c" in record["command"]
    assert str(refused.value) == (
        f"{tmp_path} is in use by holder (pid {pid}, host {record['host']}, since {record['since']}, "
        f"in {os.getcwd()}); wait for it to finish or stop it, then run again"
    )
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("fork", [(), ("fork",)], ids=["holder", "holder with a forked child"])
def test_a_sigkilled_holder_leaves_no_lock_to_wait_for(tmp_path, fork):
    holder, pid = _start_holder(tmp_path, *fork)
    os.kill(pid, signal.SIGKILL)
    holder.wait()
    try:
        # The file stays, naming the dead holder, but the kernel dropped its lock.
        assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == pid
        with holding(tmp_path, "narrator verify"):
            assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == os.getpid()
    finally:
        kill_group(holder)  # the forked child, if any
    with holding(tmp_path, "again"):
        pass


def test_a_lock_is_held_until_released(tmp_path):
    first = ResultsLock(tmp_path, "first")
    first.acquire()
    with pytest.raises(UserError, match=r"in use by first \(pid"):
        ResultsLock(tmp_path, "second").acquire()
    first.release()
    with holding(tmp_path, "second"):
        pass


def _wait_for(condition, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.mark.slow
def test_a_second_run_on_the_same_results_folder_is_refused_and_the_first_finishes(tmp_path, reference_book):
    """The old workflow let both runs render everything, each deleting the other's temps."""
    first, second = Workdir(tmp_path / "first"), Workdir(tmp_path / "second")
    results = tmp_path / "results"
    book = results / "sample"
    run = first.start_book(f"results={results}")
    try:
        _wait_for(lambda: len(list((book / "segments").glob("*.wav"))) >= 5, "the first run's renders")
        # Paused mid-render, the first run still holds the folder, however long the second takes.
        os.killpg(run.pid, signal.SIGSTOP)
        # Let in, it would render beside the first (or wait for ever on the catalog the first holds).
        refused = second.snakemake(
            *RUN_ARGS, "--config", "engine=espeak", f"results={results}", check=False, timeout=180
        )
        dry = second.snakemake("-n", "--config", "engine=espeak", f"results={results}")
        os.killpg(run.pid, signal.SIGCONT)
        assert run.wait(timeout=600) == 0
    finally:
        kill_group(run)
    assert refused.returncode != 0, "the second run was let in"
    assert "Traceback" not in refused.stderr
    holder = json.loads((book / LOCK_NAME).read_text())  # the lock file stays after the run
    assert (holder["pid"], holder["cwd"]) == (run.pid, str(first.path))
    assert refused.stderr.strip().splitlines()[-1] == (
        f"narrator: {book} is in use by snakemake (pid {run.pid}, host {holder['host']}, "
        f"since {holder['since']}, in {first.path}); wait for it to finish or stop it, then run again"
    )
    assert second.rendered_jobs() == []
    # A dry run writes nothing, so it does not need the folder to itself.
    assert "render_segment" in dry.stdout + dry.stderr
    assert np.array_equal(read_audio(book / "sample.wav")[0], reference_book[0])
    assert all(row.status == COMPLETED for row in read_catalog(book / "catalog.tsv"))
