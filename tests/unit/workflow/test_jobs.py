"""Rule bodies' logs and one-line failures (narrator/workflow/jobs.py): a machine fault is one line with
its path, meaning and advice, a bug is still called a bug, and a job whose disk fills up still logs
why it failed.

The full-disk test mounts a real tmpfs (root only, as in CI) and fills it, so every write fails the
way it fails on a real disk: ENOSPC from whichever write comes first.
"""

from __future__ import annotations

import errno
import os
import re

import pytest
from conftest import RERUN
from snakemake.exceptions import WorkflowError

from narrator.workflow.jobs import (
    DISK_FULL_LOG,
    describe_os_error,
    failure_message,
    run_logged,
    write_disk_full_log,
)


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


@pytest.mark.parametrize(
    "error",
    [
        MemoryError(),
        RuntimeError("can't start new thread"),
        # What a job's import gave under prlimit --as=600M here: before, "a bug in narrator".
        ImportError("/v/matplotlib/backends/_backend_agg.so: failed to map segment from shared object"),
        OSError(12, "Cannot allocate memory"),
    ],
    ids=["MemoryError", "no thread", "no room to map a library", "ENOMEM"],
)
def test_out_of_memory_is_named_as_such_not_as_a_bug(tmp_path, error):
    message = failure_message("render_segment sample", error, tmp_path / "job.log")
    assert "out of memory" in message and "ulimit -v" in message and message.endswith(RERUN.split("then ")[1])
    assert "bug" not in message and "\n" not in message
