"""The sample book on a real Slurm (tests/cluster/slurm-up.sh): grouped renders, one engine load
per group job, the same book as a local run, and crash recovery after scancel + SIGKILL.

Without a running Slurm these tests skip, except where the CI variable is set: there they fail,
because CI must run them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import SNAKEMAKE, kill_group, published_segments, read_audio

from narrator.core.catalog import COMPLETED, read_catalog
from narrator.engines import engine_class
from narrator.render.groups import GroupSizing, plan_render_groups, render_seconds_per_word

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

#: Render jobs per submission: espeak renders the whole sample in far less than a group's 10
#: minutes, so the groups are capped at this many segments to make several of them.
GROUP_SIZE = 25
#: Test-only overrides of the profiles, for a one-node test cluster with 2 CPUs:
#: --cores 1: one CPU per group job (the profiles ask for 4), so two groups share the node;
#: the first status query after 1 s instead of 20 s; espeak, the fast engine.
OVERRIDES = [
    "--cores",
    "1",
    "--config",
    "engine=espeak",
    f"render_groups={{minutes: 10, max_segments: {GROUP_SIZE}}}",
]
SLURM_OVERRIDES = ["--slurm-init-seconds-before-status-checks", "1", "--slurm-no-account"]
#: A run of the sample book takes about a minute here; anything past this is a hang.
RUN_TIMEOUT = 600
SUBMITTED = {
    "slurm": re.compile(r"has been submitted with SLURM jobid (\d+) \(log: .*/group_render-"),
    "cluster-generic": re.compile(r"Submitted group job \S+ with external jobid '(\d+)'"),
}


def _slurm(*command: str) -> str:
    """Run a Slurm client command (bounded: a controller that does not answer is a failure)."""
    return subprocess.run(command, check=False, capture_output=True, text=True, timeout=30).stdout


def _slurm_state() -> str:
    """Why Slurm cannot run the tests, or '' when it can."""
    for tool in ("sinfo", "squeue", "sbatch", "scancel"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    for plugin in ("snakemake_executor_plugin_slurm", "snakemake_executor_plugin_cluster_generic"):
        if importlib.util.find_spec(plugin) is None:
            return f"{plugin} is not installed (pip install -e '.[cluster]')"
    try:
        states = _slurm("sinfo", "--noheader", "--format", "%T").split()
    except subprocess.TimeoutExpired:
        return "sinfo did not answer in 30 s"
    if not {"idle", "mixed", "allocated", "completing"} & set(states):
        return f"no Slurm node takes jobs (sinfo: {' '.join(states) or 'nothing'})"
    return ""


@pytest.fixture(scope="module")
def slurm() -> None:
    problem = _slurm_state()
    if problem and os.environ.get("CI"):
        pytest.fail(f"Slurm is not usable: {problem}; CI runs these tests (tests/cluster/slurm-up.sh)")
    if problem:
        pytest.skip(f"Slurm is not usable: {problem}; start it with tests/cluster/slurm-up.sh")


def _jobs_of(work) -> list[str]:
    """Slurm job ids (pending or running) whose working directory is this workdir."""
    listing = _slurm("squeue", "--noheader", "--format", "%i %Z")
    return [line.split()[0] for line in listing.splitlines() if line.split()[1:] == [str(work.path)]]


def _cancel_jobs(work) -> list[str]:
    jobs = _jobs_of(work)
    if jobs:
        # KILL the batch shells and their steps at once (plain scancel would TERM first and wait).
        _slurm("scancel", "--full", "--signal=KILL", *jobs)
        _slurm("scancel", *jobs)
    return jobs


class ClusterRun:
    """One `snakemake --profile profiles/<profile>` in its own process group, with output captured."""

    def __init__(self, work, profile: str, *args: str) -> None:
        self.work = work
        self.profile = profile
        self.output = work.path / f"cluster-{time.monotonic_ns()}.out"
        extra = SLURM_OVERRIDES if profile == "slurm" else []
        command = [*SNAKEMAKE, "--profile", f"profiles/{profile}", *extra, *args, *OVERRIDES]
        self.started = time.monotonic()
        with self.output.open("w") as sink:
            self.process = subprocess.Popen(
                command, cwd=work.path, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
            )

    def text(self) -> str:
        return self.output.read_text(errors="replace")

    def wait(self, timeout: float = RUN_TIMEOUT) -> float:
        """Wall seconds of a run that must succeed; a hang is killed (SIGKILL), cleaned up, failed."""
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.crash()
            raise AssertionError(f"cluster run hung for {timeout} s:\n{self.text()[-5000:]}") from None
        seconds = time.monotonic() - self.started
        assert self.process.returncode == 0, f"cluster run failed:\n{self.text()[-5000:]}"
        return seconds

    def crash(self) -> list[str]:
        """Cancel this run's Slurm jobs and SIGKILL the submitting Snakemake; then unlock."""
        cancelled = _cancel_jobs(self.work)
        kill_group(self.process)
        self.work.snakemake("--unlock", timeout=120)
        return cancelled

    def group_jobs(self) -> int:
        return len(self.group_job_ids())

    def group_job_ids(self) -> list[str]:
        return SUBMITTED[self.profile].findall(self.text())


def _time_limit_minutes(job_id: str) -> int:
    """The wall time Slurm gave a job (scontrol remembers a finished job for MinJobAge, 300 s)."""
    limit = re.search(r"TimeLimit=(\d+):(\d\d):00\b", _slurm("scontrol", "show", "job", job_id))
    assert limit, f"no time limit for Slurm job {job_id}"
    return 60 * int(limit[1]) + int(limit[2])


def _render_pids(work) -> list[str]:
    """The process id in each render log; every log must also report one engine load."""
    pids = []
    for log in sorted((work.path / "logs" / "render_segment" / "sample").glob("*.log")):
        line = log.read_text().strip()
        assert line.endswith("engines loaded in this process: 1"), f"{log.name}: {line}"
        pids.append(re.search(r"; pid (\d+), ", line).group(1))
    return pids


def _assert_same_book(work, reference_book) -> None:
    reference, rate, reference_rows, _ = reference_book
    data, book_rate = read_audio(work.results() / "sample.wav")
    assert book_rate == rate
    assert np.array_equal(data, reference), "the cluster's book differs from the local run's"
    rows = read_catalog(work.results() / "catalog.tsv")
    assert all(row.status == COMPLETED for row in rows)
    assert [(r.segment_id, r.sha256) for r in rows] == [(r.segment_id, r.sha256) for r in reference_rows]


@pytest.fixture
def cluster_work(workdir, slurm):
    yield workdir
    # Whatever happened, leave no job of this test queued or running.
    with contextlib.suppress(subprocess.SubprocessError, OSError):
        _cancel_jobs(workdir)


@pytest.mark.parametrize("profile", ["slurm", "cluster-generic"])
def test_sample_book_through_slurm_loads_the_engine_once_per_group_job(
    cluster_work, reference_book, profile, capsys
):
    run = ClusterRun(cluster_work, profile)
    seconds = run.wait()

    _assert_same_book(cluster_work, reference_book)
    segments = len(reference_book[2])
    pids = _render_pids(cluster_work)
    assert len(pids) == segments
    groups = run.group_jobs()
    # Groups really formed (25 segments a submission), and each loaded the engine once.
    assert groups == math.ceil(segments / GROUP_SIZE), run.text()[-3000:]
    assert len(set(pids)) == groups
    # Each group asked Slurm for its own expected render time (narrator/render/groups.py), not for the
    # members' runtimes summed over its rounds.
    rows = reference_book[2]
    expected = plan_render_groups(
        "sample",
        rows,
        lambda row: True,
        GroupSizing(10, GROUP_SIZE),
        render_seconds_per_word([], engine_class("espeak").typical_rtf, 158),
    )
    asked = sorted(minutes for minutes in expected.minutes.values() if minutes)
    assert sorted(_time_limit_minutes(job) for job in run.group_job_ids()) == asked
    with capsys.disabled():
        print(
            f"\n[{profile}] {segments} segments in {groups} group jobs, {len(set(pids))} engine loads; "
            f"{seconds:.1f} s wall, {seconds / segments:.2f} s per segment"
        )


def test_scancel_and_sigkill_mid_run_then_the_same_command_gives_the_identical_book(
    cluster_work, reference_book
):
    total = len(reference_book[2])
    # One group job at a time, so that the crash lands before the book is whole on any machine
    # (espeak renders a group's 25 segments in about a second).
    command = ("slurm", "--jobs", "1")
    run = ClusterRun(cluster_work, *command)
    deadline = time.monotonic() + RUN_TIMEOUT
    # Crash as soon as the first group job publishes.
    while run.process.poll() is None and time.monotonic() < deadline and not published_segments(cluster_work):
        time.sleep(0.02)
    assert run.process.poll() is None, f"the run ended before the crash:\n{run.text()[-3000:]}"
    cancelled = run.crash()
    assert cancelled, "no Slurm job to cancel at the crash"
    settle = time.monotonic() + 60
    while _jobs_of(cluster_work) and time.monotonic() < settle:
        time.sleep(0.5)
    assert not _jobs_of(cluster_work), "cancelled jobs still queued or running after 60 s"
    published = {path.stem: _identity(path) for path in (cluster_work.results() / "segments").glob("*.wav")}
    assert 0 < len(published) < total, f"crash missed: {len(published)} of {total} published"

    # The restart may run its group jobs side by side: the crash is over.
    restart = ClusterRun(cluster_work, "slurm")
    restart.wait()

    _assert_same_book(cluster_work, reference_book)
    pids = _render_pids(cluster_work)
    assert len(pids) == total
    assert restart.group_jobs() == math.ceil((total - len(published)) / GROUP_SIZE)
    # What was published before the crash was kept, not rendered again (same file, same inode).
    segments = cluster_work.results() / "segments"
    assert {stem: _identity(segments / f"{stem}.wav") for stem in published} == published


def _identity(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_ino, stat.st_mtime_ns
