"""One run per results folder: a second run on a book that another run holds is refused in one line
naming the holder, and the first run finishes the identical book.
"""

from __future__ import annotations

import json
import os
import signal
import time

import numpy as np
import pytest
from conftest import RUN_ARGS, Workdir, kill_group, read_audio

from narrator.core.catalog import COMPLETED, read_catalog
from narrator.core.lock import LOCK_NAME

pytestmark = pytest.mark.slow


def _wait_for(condition, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_a_second_run_on_the_same_results_folder_is_refused_and_the_first_finishes(tmp_path, reference_book):
    """The old workflow let both runs render everything, each deleting the other's temps."""
    first, second = Workdir(tmp_path / "first"), Workdir(tmp_path / "second")
    results = tmp_path / "results"
    book = results / "sample"
    run = first.start_book(f"results={results}")
    try:
        _wait_for(lambda: len(list((book / "segments").glob("*.wav"))) >= 5, "the first run's renders")
        # Paused mid-render, the first run still holds the folder, however long the second takes.
        os.killpg(run.pid, signal.SIGSTOP)
        # Let in, it would render beside the first (or wait for ever on the catalog the first holds).
        refused = second.snakemake(
            *RUN_ARGS, "--config", "engine=espeak", f"results={results}", check=False, timeout=180
        )
        dry = second.snakemake("-n", "--config", "engine=espeak", f"results={results}")
        os.killpg(run.pid, signal.SIGCONT)
        assert run.wait(timeout=600) == 0
    finally:
        kill_group(run)
    assert refused.returncode != 0, "the second run was let in"
    assert "Traceback" not in refused.stderr
    holder = json.loads((book / LOCK_NAME).read_text())  # the lock file stays after the run
    assert (holder["pid"], holder["cwd"]) == (run.pid, str(first.path))
    assert refused.stderr.strip().splitlines()[-1] == (
        f"narrator: {book} is in use by snakemake (pid {run.pid}, host {holder['host']}, "
        f"since {holder['since']}, in {first.path}); wait for it to finish or stop it, then run again"
    )
    assert second.rendered_jobs() == []
    # A dry run writes nothing, so it does not need the folder to itself.
    assert "render_segment" in dry.stdout + dry.stderr
    assert np.array_equal(read_audio(book / "sample.wav")[0], reference_book[0])
    assert all(row.status == COMPLETED for row in read_catalog(book / "catalog.tsv"))
