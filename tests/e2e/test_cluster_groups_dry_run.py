"""Render groups on a cluster, checked by dry-run (no Slurm needed): groups sized by expected render
time (narrator/render/groups.py), each merged into one submission, and a restart, which starts with the
catalog already planned, split like a fresh run (Snakemake alone builds one group of all pending
segments beside the others: workflow/rules/common.smk).
"""

from __future__ import annotations

import importlib.util
import math
import re
from collections import Counter

import pytest
from small_books import BOOK_IDS, write_shelf

from narrator.core.catalog import read_catalog, wav_file
from narrator.engines import engine_class
from narrator.render.groups import GroupSizing, plan_render_groups, render_seconds_per_word

pytestmark = pytest.mark.slow
needs_cluster_generic = pytest.mark.skipif(
    importlib.util.find_spec("snakemake_executor_plugin_cluster_generic") is None,
    reason="needs the cluster extra (pip install -e '.[cluster]')",
)
#: At most 25 segments a group, whatever their work (espeak renders a whole book in seconds).
CAP_25 = "render_groups={minutes: 10, max_segments: 25}"


def _groups(dry_run_output: str) -> list[int]:
    """Members of each render group job in a dry-run's listing."""
    sizes = []
    for line in dry_run_output.splitlines():
        if re.search(r"Group job render-", line):
            sizes.append(0)
        elif sizes and line.strip() == "rule render_segment:":
            sizes[-1] += 1
    return sizes


@needs_cluster_generic
@pytest.mark.parametrize("engine", ["piper", "espeak"])
def test_groups_hold_the_minutes_of_work_the_config_asks_for(workdir, engine):
    catalog = workdir.results() / "catalog.tsv"
    settings = ["--config", f"engine={engine}", "render_groups={minutes: 0.25, max_segments: 1000}"]
    workdir.snakemake("--cores", "1", str(catalog.relative_to(workdir.path)), *settings)
    rows = read_catalog(catalog)

    dry = workdir.snakemake("-n", "--profile", "profiles/cluster-generic", *settings)

    sizes = _groups(dry.stdout + dry.stderr)
    # The engine's measured real-time factor at the configured pace (158 words a minute) sizes
    # them: Piper (0.083) takes several groups of 15 s for the sample, espeak (0.003) one.
    expected = plan_render_groups(
        "sample",
        rows,
        lambda row: True,
        GroupSizing(0.25, 1000),
        render_seconds_per_word(rows, engine_class(engine).typical_rtf, 158),
    )
    assert sorted(sizes) == sorted(Counter(expected.numbers.values()).values())
    assert sum(sizes) == len(rows)
    assert (len(sizes) > 2) if engine == "piper" else (sizes == [len(rows)]), sizes


@needs_cluster_generic
def test_a_restart_groups_the_pending_segments_like_a_fresh_run(workdir):
    catalog = workdir.results() / "catalog.tsv"
    workdir.snakemake("--cores", "1", str(catalog.relative_to(workdir.path)), "--config", "engine=espeak")
    segments = len(read_catalog(catalog))
    # Some segments already rendered before the "crash".
    rendered = [str(wav_file(catalog, row).relative_to(workdir.path)) for row in read_catalog(catalog)[:10]]
    workdir.snakemake("--cores", "1", *rendered, "--config", "engine=espeak")

    dry = workdir.snakemake(
        "-n", "--profile", "profiles/cluster-generic", "--config", "engine=espeak", CAP_25
    )

    sizes = _groups(dry.stdout + dry.stderr)
    assert sum(sizes) == segments - 10, sizes
    assert sizes and max(sizes) <= 25, sizes
    assert len(sizes) == math.ceil((segments - 10) / 25), sizes


@needs_cluster_generic
def test_a_shelf_spreads_over_group_jobs_of_every_book(workdir):
    write_shelf(workdir.path / "lib")
    shelf = ["--config", "engine=espeak", "books=lib", CAP_25]
    workdir.snakemake("--cores", "1", "--until", "plan_catalog", *shelf)
    counts = {book: len(read_catalog(workdir.results(book) / "catalog.tsv")) for book in BOOK_IDS}

    dry = workdir.snakemake("-n", "--profile", "profiles/cluster-generic", *shelf)

    output = dry.stdout + dry.stderr
    # Each group job renders segments of one book, named after it; every book is covered.
    # (a group job's listing ends where the next job's, stamped "[date]", begins)
    jobs = [job.split("\n[")[0] for job in output.split("Group job render-")[1:]]
    for book, count in counts.items():
        of_book = [job for job in jobs if job.startswith(f"{book}-")]
        assert len(of_book) == math.ceil(count / 25), (book, len(of_book))
        assert all(set(re.findall(r"book=([a-z-]+)", job)) == {book} for job in of_book)
    assert len(jobs) == sum(math.ceil(count / 25) for count in counts.values())
