"""Render groups on a cluster, checked by dry-run (no Slurm needed): a restart, which starts with
the catalog already planned, must split the pending segments into groups of 25 like a fresh run
(Snakemake alone builds one group of all of them beside the others: workflow/rules/common.smk).
"""

from __future__ import annotations

import importlib.util
import math
import re

import pytest

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
