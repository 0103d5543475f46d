"""A shelf of books in one real run: each into its own folder, a bad book refused alone while the
others finish, and kill -9 at random points survived as for one book.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest
from conftest import Workdir, kill_when, read_audio
from small_books import BOOK_IDS, write_shelf

from narrator.core.catalog import COMPLETED, read_catalog

pytestmark = pytest.mark.slow


def _published(work: Workdir) -> int:
    return sum(len(list(work.results(book).glob("segments/*.wav"))) for book in BOOK_IDS)


def test_a_shelf_renders_in_one_run_and_a_bad_book_fails_alone(tmp_path: Path) -> None:
    # Uninterrupted: the shelf, with a bad book, in one run.
    reference = Workdir(tmp_path / "reference")
    write_shelf(reference.path / "lib", bad=True)
    run = reference.run_book("books=lib", check=False)
    assert run.returncode == 1, run.stderr
    refused = "narrator: lib/the-ant.txt: the book has no text to speak; refused, the other books go on"
    assert refused in run.stderr
    assert "1 book(s) of the shelf refused, the others done" in run.stderr
    assert not reference.results("the-ant").exists()
    masters = {book: read_audio(reference.results(book) / f"{book}.wav")[0] for book in BOOK_IDS}
    assert all((reference.results(book) / f"{book}.m4b").stat().st_size > 0 for book in masters)
    status = reference.narrator("status", "--brief").stdout.splitlines()
    assert status[-1].startswith("shelf of 3 books: ") and " completed (100.0%)" in status[-1]

    # A book of the shelf comes out as it does on its own.
    alone = Workdir(tmp_path / "alone")
    write_shelf(alone.path / "lib")
    alone.run_book("book=lib/the-hare.txt")
    assert np.array_equal(read_audio(alone.results("the-hare") / "the-hare.wav")[0], masters["the-hare"])


def test_a_shelf_survives_kill_9_like_one_book(tmp_path: Path) -> None:
    reference = Workdir(tmp_path / "reference")
    write_shelf(reference.path / "lib")
    reference.run_book("books=lib")
    masters = {book: read_audio(reference.results(book) / f"{book}.wav")[0] for book in BOOK_IDS}
    # Killed with SIGKILL at random points across the shelf, then run again as the README says.
    crashed = Workdir(tmp_path / "crashed")
    write_shelf(crashed.path / "lib")
    total = sum(len(read_catalog(reference.results(book) / "catalog.tsv")) for book in masters)
    seed = int(os.environ.get("NARRATOR_CRASH_SEED") or random.SystemRandom().randrange(1 << 30))
    targets = sorted(random.Random(seed).sample(range(1, total - total // 4), 3))
    planned = crashed.path / "results"
    for target in [0, *targets]:
        process = crashed.start_book("books=lib")
        kill_when(process, lambda target=target: planned.exists() and _published(crashed) >= target)
        crashed.snakemake("--unlock")
    assert 0 < _published(crashed) < total, f"the kills missed (seed {seed})"
    crashed.run_book("books=lib")
    for book, master in masters.items():
        rows = read_catalog(crashed.results(book) / "catalog.tsv")
        assert all(row.status == COMPLETED for row in rows), f"{book} (seed {seed})"
        data = read_audio(crashed.results(book) / f"{book}.wav")[0]
        assert np.array_equal(data, master), f"{book} differs from the uninterrupted shelf (seed {seed})"
