"""Kill the whole run with SIGKILL at random moments or while it plans, or stop a long plan with
Ctrl-C; restart as the README says, and compare with an uninterrupted run."""

from __future__ import annotations

import base64
import os
import random
import signal
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import Workdir, kill_group, kill_when, published_segments, read_audio
from tiny_html import BOOK, CATALOG, with_tiny_book

from narrator.core.catalog import COMPLETED, read_catalog

pytestmark = pytest.mark.slow

KILLS = 6
#: The kill targets come from this seed: a new one each run, unless set to replay a failure.
SEED_VARIABLE = "NARRATOR_CRASH_SEED"


def _kill_when_published(work, process, published_at_least: int) -> set[str]:
    """Kill the process group once that many WAVs are published (0: as soon as the plan exists)."""
    catalog = work.results() / "catalog.tsv"

    def ready() -> bool:
        planned = catalog.exists() and (work.results() / "segments").exists()
        return planned and len(published_segments(work)) >= published_at_least

    kill_when(process, ready)
    return published_segments(work)


def test_sigkill_at_random_moments_then_restart_gives_the_identical_book(workdir, reference_book):
    reference, _, reference_rows, _ = reference_book
    total = len(reference_rows)
    seed = int(os.environ.get(SEED_VARIABLE) or random.SystemRandom().randrange(1 << 30))
    replay = f"(replay with {SEED_VARIABLE}={seed})"
    # Targets stop a quarter before the end: a kill is seen only at the next poll, and by then a
    # target just short of the last segment has often been passed (measured: one run in several).
    targets = sorted(random.Random(seed).sample(range(1, total - total // 4), KILLS - 1))
    published_at_kill: list[set[str]] = []
    started_per_run: list[Counter] = []
    in_flight = 0
    for target in [0, *targets]:
        started_before = Counter(workdir.rendered_jobs())
        process = workdir.start_book()
        published = _kill_when_published(workdir, process, target)
        started = Counter(workdir.rendered_jobs()) - started_before
        # Jobs started in this run that did not publish were in flight when the kill landed.
        in_flight += sum(1 for segment in started if segment not in published)
        published_at_kill.append(published)
        started_per_run.append(started)
        workdir.snakemake("--unlock")
    assert sum(0 < len(p) < total for p in published_at_kill) >= KILLS - 1, f"kills missed {replay}"

    started_before = Counter(workdir.rendered_jobs())
    workdir.run_book()
    started_per_run.append(Counter(workdir.rendered_jobs()) - started_before)

    data, _ = read_audio(workdir.results() / "sample.wav")
    assert np.array_equal(data, reference), f"book differs from the uninterrupted run {replay}"
    rows = read_catalog(workdir.results() / "catalog.tsv")
    assert all(row.status == COMPLETED for row in rows), replay
    # No segment is truncated: each matches the uninterrupted run's record exactly.
    by_id = {row.segment_id: row for row in reference_rows}
    assert [(r.segment_id, r.sha256) for r in rows] == [
        (r.segment_id, by_id[r.segment_id].sha256) for r in rows
    ], replay
    renders = Counter(workdir.rendered_jobs())
    assert set(renders) == set(by_id), replay
    resynthesized = sum(renders.values()) - total
    assert resynthesized <= in_flight, f"re-rendered {resynthesized} > {in_flight} in flight {replay}"
    # Nothing published before a kill was ever rendered again.
    for index, published in enumerate(published_at_kill):
        for later in started_per_run[index + 1 :]:
            assert not published & set(later), f"published segments re-rendered {replay}"


#: Entries the book never uses: they change no spoken word, but take the plan a second or more to load.
INERT_LEXICON = {f"Zqv{number:05d}": "never said" for number in range(10000)}


def test_a_kill_while_planning_then_restart_gives_the_identical_book(tmp_path):
    config = (BOOK, "lexicon=inert.yaml")
    runs = {}
    for name in ("uninterrupted", "killed"):
        runs[name] = with_tiny_book(Workdir(tmp_path / name))
        (runs[name].path / "inert.yaml").write_text(yaml.safe_dump(INERT_LEXICON))
    runs["uninterrupted"].run_book(*config)

    work = runs["killed"]
    # Snakemake marks a job's outputs incomplete when it starts it, and unmarks them when it ends.
    marker = work.path / ".snakemake" / "incomplete" / base64.urlsafe_b64encode(CATALOG.encode()).decode()
    kill_when(work.start_book(*config), marker.exists)
    assert marker.exists() and not (work.path / CATALOG).exists(), "the kill did not land in plan_catalog"
    work.snakemake("--unlock")
    work.run_book(*config)

    master = Path("results/tiny/tiny.wav")
    books = [read_audio(run.path / master)[0] for run in runs.values()]
    assert np.array_equal(books[0], books[1])
    assert not marker.exists()


def test_ctrl_c_stops_a_long_plan(workdir) -> None:
    # About 8 MB of text plans for tens of seconds; before the stop flag, Snakemake waited for the
    # plan to finish after the first Ctrl-C, and the catalog appeared anyway.
    paragraph = "It was a bright cold day in April, and the clocks were striking thirteen. " * 8
    chapters = [f"## Chapter {n}\n\n" + "\n\n".join([paragraph] * 100) for n in range(1, 141)]
    book = workdir.path / "long-book.md"
    book.write_text("# A Long Book\n\n" + "\n\n".join(chapters))
    log = workdir.path / "logs" / "plan_catalog" / "long-book.log"
    process = workdir.start_book(f"book={book}")
    try:
        while process.poll() is None and not log.exists():
            time.sleep(0.05)
        time.sleep(0.5)
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=120)
    finally:
        kill_group(process)
    assert process.returncode != 0
    assert not (workdir.results("long-book") / "catalog.tsv").exists()
    assert "interrupted by the user" in log.read_text()
