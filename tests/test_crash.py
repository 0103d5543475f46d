"""Kill the whole run with SIGKILL at random moments, restart as the README says, and compare."""

from __future__ import annotations

import random
import time
from collections import Counter

import numpy as np
import pytest
from conftest import kill_group, read_audio

from narrator.catalog import COMPLETED, read_catalog

pytestmark = pytest.mark.slow

KILLS = 6


def _published(work) -> set[str]:
    return {path.stem for path in (work.results() / "segments").glob("*.wav")}


def _kill_when(work, process, published_at_least: int, deadline: float = 120.0) -> set[str]:
    """Kill the process group once that many WAVs are published (0: as soon as the plan exists)."""
    catalog = work.results() / "catalog.tsv"
    start = time.monotonic()
    while process.poll() is None and time.monotonic() - start < deadline:
        planned = catalog.exists() and (work.results() / "segments").exists()
        if planned and len(_published(work)) >= published_at_least:
            break
        time.sleep(0.002)
    kill_group(process)
    return _published(work)


def test_sigkill_at_random_moments_then_restart_gives_the_identical_book(workdir, reference_book):
    reference, _, reference_rows, _ = reference_book
    total = len(reference_rows)
    rng = random.Random()
    seed = rng.randrange(1 << 30)
    rng.seed(seed)
    targets = sorted(rng.sample(range(1, total - 1), KILLS - 1))
    published_at_kill: list[set[str]] = []
    started_per_run: list[Counter] = []
    in_flight = 0
    for target in [0, *targets]:
        started_before = Counter(workdir.rendered_jobs())
        process = workdir.start_book()
        published = _kill_when(workdir, process, target)
        started = Counter(workdir.rendered_jobs()) - started_before
        # Jobs started in this run that did not publish were in flight when the kill landed.
        in_flight += sum(1 for segment in started if segment not in published)
        published_at_kill.append(published)
        started_per_run.append(started)
        workdir.snakemake("--unlock")
    assert sum(0 < len(p) < total for p in published_at_kill) >= KILLS - 1, f"kills missed (seed {seed})"

    started_before = Counter(workdir.rendered_jobs())
    workdir.run_book()
    started_per_run.append(Counter(workdir.rendered_jobs()) - started_before)

    data, _ = read_audio(workdir.results() / "sample.wav")
    assert np.array_equal(data, reference), f"book differs from the uninterrupted run (seed {seed})"
    rows = read_catalog(workdir.results() / "catalog.tsv")
    assert all(row["status"] == COMPLETED for row in rows)
    # No segment is truncated: each matches the uninterrupted run's record exactly.
    by_id = {row["segment_id"]: row for row in reference_rows}
    assert [(r["segment_id"], r["sha256"]) for r in rows] == [
        (r["segment_id"], by_id[r["segment_id"]]["sha256"]) for r in rows
    ]
    renders = Counter(workdir.rendered_jobs())
    assert set(renders) == set(by_id)
    resynthesized = sum(renders.values()) - total
    assert resynthesized <= in_flight, f"re-rendered {resynthesized} > {in_flight} in flight (seed {seed})"
    # Nothing published before a kill was ever rendered again.
    for index, published in enumerate(published_at_kill):
        for later in started_per_run[index + 1 :]:
            assert not published & set(later), f"published segments re-rendered (seed {seed})"
