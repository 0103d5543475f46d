"""Shared fixtures: a throwaway copy of the workflow and a way to run real Snakemake in it."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import pytest
import soundfile as sf

REPO = Path(__file__).resolve().parent.parent
WORKFLOW_FILES = ("Snakefile", "config.yaml", "workflow", "profiles")
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
#: Real books from public repositories; tests/data/SOURCES.md says where each came from.
BOOKS = REPO / "tests" / "data" / "books"
#: The README's run command; tests add --config engine=espeak for speed.
RUN_ARGS = ["--cores", "8", "--resources", "gpu=1"]
#: How a render log ends (narrator.render.render): the process that rendered the segment and its engine count.
RENDER_LOG_END = re.compile(r"; pid (\d+), engines loaded in this process: (\d+)$")
#: A dry run's line for a job's resources, e.g. "resources: tmpdir=/tmp, gpu=0".
GPU_RESOURCE = re.compile(r"^\s*resources: .*\bgpu=(\d+)", re.MULTILINE)
#: Seconds between two looks at a run under test: often enough to land a kill, rare enough not to slow it.
POLL_S = 0.05


class Workdir:
    """A copy of the workflow in a temp dir, where real snakemake runs happen."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True)
        for name in WORKFLOW_FILES:
            source = REPO / name
            if source.is_dir():
                shutil.copytree(source, path / name)
            else:
                shutil.copy2(source, path / name)
        # The fast AAC coder: the default twoloop took 13 of a sample run's 32 s to encode the M4B,
        # in every end-to-end test; tests/test_package.py encodes with the default.
        config = path / "config.yaml"
        text = config.read_text()
        assert "m4b_aac_coder: twoloop" in text, "config.yaml no longer sets m4b_aac_coder: twoloop"
        config.write_text(text.replace("m4b_aac_coder: twoloop", "m4b_aac_coder: fast"))

    def snakemake(
        self, *args: str, check: bool = True, timeout: float = 600, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess:
        result = subprocess.run(
            [*SNAKEMAKE, *args],
            check=False,
            cwd=self.path,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"snakemake {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
        return result

    def run_book(
        self, *config: str, check: bool = True, target: str = "all", configfile: str = ""
    ) -> subprocess.CompletedProcess:
        """The README's run (or one target of it) with espeak, the config's overrides, a config file."""
        files = ["--configfile", configfile] if configfile else []
        return self.snakemake(target, *RUN_ARGS, *files, "--config", "engine=espeak", *config, check=check)

    def render_job_gpus(self, *args: str, env: Mapping[str, str] | None = None) -> list[int]:
        """Plan the book, then list the gpu resource of each render job a dry run of the rest shows."""
        self.snakemake("--cores", "1", "--until", "plan_catalog", *args, env=env)
        dry = self.snakemake("-n", *RUN_ARGS, *args, env=env).stdout
        jobs = dry.split("rule render_segment:")[1:]
        # Each job's block ends at the next rule; its resources line is inside it.
        return [int(GPU_RESOURCE.search(job.split("rule ")[0]).group(1)) for job in jobs]

    def start_book(self, *config: str) -> subprocess.Popen:
        """Start a run in its own process group, so the whole group can be killed at once."""
        return subprocess.Popen(
            [*SNAKEMAKE, *RUN_ARGS, "--config", "engine=espeak", *config],
            cwd=self.path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def narrator(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "narrator", *args],
            check=False,
            cwd=self.path,
            capture_output=True,
            text=True,
        )

    def results(self, book_id: str = "sample") -> Path:
        return self.path / "results" / book_id

    def render_pid(self, segment_ids: Iterable[str], book_id: str = "sample") -> str:
        """The one process that rendered these segments, by the pid their render logs name.

        Each log must also say that this process had loaded one engine, no more.
        """
        pids = set()
        for segment_id in segment_ids:
            line = (self.path / "logs" / "render_segment" / book_id / f"{segment_id}.log").read_text().strip()
            match = RENDER_LOG_END.search(line)
            assert match and match.group(2) == "1", f"{segment_id}: {line}"
            pids.add(match.group(1))
        assert len(pids) == 1, f"rendered in {len(pids)} processes: {sorted(pids)}"
        return pids.pop()

    def rendered_jobs(self) -> list[str]:
        """Segment ids of every render job Snakemake started in this workdir, from its own logs."""
        started = []
        for log in sorted((self.path / ".snakemake" / "log").glob("*.snakemake.log")):
            rule = None
            for line in log.read_text(errors="replace").splitlines():
                if line.lstrip().startswith(("rule ", "localrule ")):
                    rule = line.split()[-1].rstrip(":")
                elif rule == "render_segment" and line.strip().startswith("wildcards:"):
                    started.append(line.split("segment=")[1].split(",")[0].strip())
                    rule = None
        return started


def kill_group(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def kill_when(process: subprocess.Popen, ready: Callable[[], bool], deadline: float = 120.0) -> None:
    """SIGKILL the run's process group once ``ready()`` holds, looked at every POLL_S (or when it ends)."""
    start = time.monotonic()
    while process.poll() is None and time.monotonic() - start < deadline and not ready():
        time.sleep(POLL_S)
    kill_group(process)


def read_audio(path: Path):
    data, rate = sf.read(path, dtype="int16")
    return data, rate


def alice_path() -> Path:
    """Project Gutenberg #11, an EPUB 2 with an NCX, a cover and Gutenberg's header and licence."""
    return BOOKS / "alice-in-wonderland-pg11.epub"


@pytest.fixture
def workdir(tmp_path: Path) -> Workdir:
    return Workdir(tmp_path / "work")


@pytest.fixture(scope="session")
def reference_book(tmp_path_factory: pytest.TempPathFactory):
    """The sample book rendered once, uninterrupted, with espeak: (samples, rate, catalog rows)."""
    from narrator.core.catalog import read_catalog

    work = Workdir(tmp_path_factory.mktemp("reference") / "work")
    work.run_book()
    data, rate = read_audio(work.results() / "sample.wav")
    return data, rate, read_catalog(work.results() / "catalog.tsv"), work


@pytest.fixture
def tiny_disk(tmp_path: Path):
    """A real 1 MiB file system (tmpfs), so writes fail with ENOSPC as on a full disk."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
        check=False,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {result.stderr.strip()}")
    yield mount
    with contextlib.suppress(subprocess.CalledProcessError):
        subprocess.run(["umount", str(mount)], check=True)
