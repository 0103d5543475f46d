"""Render groups on a cluster, checked by dry-run (no Slurm needed): a restart, which starts with
the catalog already planned, must split the pending segments into groups of 25 like a fresh run
(Snakemake alone builds one group of all of them beside the others: workflow/rules/common.smk).
"""

from __future__ import annotations

import importlib.util
import math
import re

import pytest
from test_shelf import BOOK_IDS, write_shelf

from narrator.catalog import read_catalog, wav_file

pytestmark = pytest.mark.slow


def _groups(dry_run_output: str) -> list[int]:
    """Members of each render group job in a dry-run's listing."""
    sizes = []
    for line in dry_run_output.splitlines():
        if re.search(r"Group job render\b", line):
            sizes.append(0)
        elif sizes and line.strip() == "rule render_segment:":
            sizes[-1] += 1
    return sizes


@pytest.mark.skipif(
    importlib.util.find_spec("snakemake_executor_plugin_cluster_generic") is None,
    reason="needs the cluster extra (pip install -e '.[cluster]')",
)
def test_a_restart_groups_the_pending_segments_25_to_a_job(workdir):
    catalog = workdir.results() / "catalog.tsv"
    workdir.snakemake("--cores", "1", str(catalog.relative_to(workdir.path)), "--config", "engine=espeak")
    segments = len(read_catalog(catalog))
    # Some segments already rendered before the "crash".
    rendered = [str(wav_file(catalog, row).relative_to(workdir.path)) for row in read_catalog(catalog)[:10]]
    workdir.snakemake("--cores", "1", *rendered, "--config", "engine=espeak")

    dry = workdir.snakemake("-n", "--profile", "profiles/cluster-generic", "--config", "engine=espeak")

    sizes = _groups(dry.stdout + dry.stderr)
    assert sum(sizes) == segments - 10, sizes
    assert sizes and max(sizes) <= 25, sizes
    assert len(sizes) == math.ceil((segments - 10) / 25), sizes


@pytest.mark.skipif(
    importlib.util.find_spec("snakemake_executor_plugin_cluster_generic") is None,
    reason="needs the cluster extra (pip install -e '.[cluster]')",
)
def test_a_shelf_spreads_over_group_jobs_that_take_segments_of_any_book(workdir):
    write_shelf(workdir.path / "lib")
    shelf = ["--config", "engine=espeak", "books=lib"]
    workdir.snakemake("--cores", "1", "--until", "plan_catalog", *shelf)
    segments = sum(len(read_catalog(workdir.results(book) / "catalog.tsv")) for book in BOOK_IDS)

    dry = workdir.snakemake("-n", "--profile", "profiles/cluster-generic", *shelf)

    output = dry.stdout + dry.stderr
    sizes = _groups(output)
    assert sum(sizes) == segments and len(sizes) == math.ceil(segments / 25), sizes
    # Each group job's members, by book: one submission renders the end of one book and the start of
    # the next, so no node waits for a book of its own.
    books_per_group = [
        set(re.findall(r"book=([a-z-]+)", job)) for job in output.split("Group job render")[1:]
    ]
    assert set().union(*books_per_group) == set(BOOK_IDS)
    assert any(len(books) > 1 for books in books_per_group), books_per_group
