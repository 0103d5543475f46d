"""Faults of the disk in real runs: one that fills up mid-render fails in one line per failed job with
no empty log, and a rerun finishes the identical book; a read-only results folder is one line, also
where a re-plan must first remove an unproven plan.

The tests mount a real tmpfs (root only, as in CI) and fill it, so every write fails the way it
fails on a real disk: ENOSPC from whichever write comes first.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import RERUN, Workdir, read_audio

from narrator.core.catalog import COMPLETED, read_catalog

pytestmark = pytest.mark.slow


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


def test_a_read_only_results_folder_is_one_line(disk, workdir):
    disk.remount("ro")
    result = workdir.run_book(f"results={disk.path}", check=False)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last == (
        f"narrator: {disk.path}/sample: Read-only file system; make the filesystem writable, {RERUN}"
    )


def test_a_re_plan_on_a_read_only_results_folder_is_one_line(workdir, tiny_disk: Path) -> None:
    # book.json without its catalog is an unproven plan: the run must take the lock and remove it.
    (tiny_disk / "sample").mkdir()
    (tiny_disk / "sample" / "book.json").write_text("{}")
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_disk)], check=True)
    result = workdir.run_book(f"results={tiny_disk}", check=False)
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.startswith("narrator: ")]
    assert len(lines) == 1 and "Read-only file system" in lines[0], result.stderr
    assert "Traceback" not in result.stderr
