"""narrator verify (narrator/inspect/verify.py): truncated, missing, replaced and swapped WAVs re-queued,
a surviving WAV adopted, temps of killed writers removed, and a moved results folder still whole.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import soundfile as sf
from tiny_book import (
    PAUSES,
    delete_wav,
    expected_book,
    master_of,
    queue_row,
    render,
    replace_wav,
    rows_by_id,
    truncate_wav,
)

from narrator.assemble.assemble import assemble_book
from narrator.core import catalog
from narrator.core.catalog import COMPLETED, QUEUED, read_catalog, wav_file
from narrator.inspect.verify import verify_catalog


def test_verify_heals_and_assembly_then_works(rendered: Path) -> None:
    catalog_path = rendered
    rows = read_catalog(rendered)
    segments = rendered.parent / "segments"
    truncated, missing, adoptable, replaced, junk = rows[1], rows[2], rows[3], rows[4], rows[5]
    truncate_wav(rendered, truncated)
    delete_wav(rendered, missing)
    replace_wav(rendered, replaced)
    adoptable_sha = hashlib.sha256(wav_file(rendered, adoptable).read_bytes()).hexdigest()
    queue_row(rendered, adoptable)  # e.g. the catalog was re-planned, the WAV survived
    queue_row(rendered, junk)
    wav_file(rendered, junk).write_bytes(b"RIFF garbage")  # queued and not valid: removed, not adopted
    strays = [
        segments / f".{rows[0].segment_id}.wav.tmp-123-456",
        segments / f".{rows[6].segment_id}.wav.tmp-99-1",
    ]
    for stray in strays:
        stray.write_bytes(b"partial")

    report = verify_catalog(rendered)

    assert report.checked == len(rows)
    assert sorted(report.requeued) == sorted(r.segment_id for r in (truncated, missing, replaced))
    assert report.adopted == [adoptable.segment_id]
    assert report.strays_removed == 2
    assert "3 re-queued, 1 adopted, 2 stray temp files removed" in report.summary()
    after = rows_by_id(rendered)
    for row in (truncated, missing, replaced, junk):
        assert after[row.segment_id].status == QUEUED
        assert after[row.segment_id].sha256 == ""
        assert not wav_file(catalog_path, row).exists()
    adopted = after[adoptable.segment_id]
    assert adopted.status == COMPLETED and adopted.sha256 == adoptable_sha
    assert not any(stray.exists() for stray in strays)
    untouched = rows[0]
    assert after[untouched.segment_id] == untouched

    # The next run re-renders exactly the queued rows; then the book assembles.
    for row in read_catalog(rendered):
        if row.status == QUEUED:
            render(rendered, row, seed=1)
    book_path = rendered.parent / "tiny-book.wav"
    assemble_book(rendered, book_path, PAUSES)
    final_rows = read_catalog(rendered)
    assert np.array_equal(sf.read(book_path, dtype="int16")[0], expected_book(rendered, final_rows))
    assert verify_catalog(rendered).requeued == []


def test_verify_of_a_healthy_catalog_changes_nothing(rendered: Path) -> None:
    before = rendered.read_bytes()
    report = verify_catalog(rendered)
    assert (report.requeued, report.adopted, report.strays_removed) == ([], [], 0)
    assert report.checked == len(read_catalog(rendered))
    assert rendered.read_bytes() == before


def test_verify_re_queues_a_swapped_wav(rendered: Path) -> None:
    rows = read_catalog(rendered)
    shutil.copyfile(wav_file(rendered, rows[0]), wav_file(rendered, rows[3]))
    report = verify_catalog(rendered)
    assert report.requeued == [rows[3].segment_id]


def test_a_moved_results_folder_verifies_and_assembles(rendered: Path, tmp_path: Path) -> None:
    assemble_book(rendered, master_of(rendered), PAUSES)
    whole = master_of(rendered).read_bytes()
    moved = tmp_path / "elsewhere" / "tiny-book"
    moved.parent.mkdir()
    rendered.parent.rename(moved)
    catalog_path = moved / "catalog.tsv"
    assert verify_catalog(catalog_path).requeued == []
    assemble_book(catalog_path, moved / "tiny-book.wav", PAUSES)
    assert (moved / "tiny-book.wav").read_bytes() == whole


def test_catalog_temps_are_removed_by_verify_and_by_the_next_whole_write(rendered: Path) -> None:
    # Only whole writes (the plan, verify, a mark after a hand edit) make temps; marks write in place.
    stale = [rendered.with_name(f".catalog.tsv.tmp-{pid}-1") for pid in (11, 12)]
    for path in stale:
        path.write_bytes(b"half a catalog")
    assert verify_catalog(rendered).strays_removed == 2
    assert not any(path.exists() for path in stale)

    stale[0].write_bytes(b"half a catalog")
    catalog.mark_queued(rendered, [read_catalog(rendered)[0].segment_id])
    assert stale[0].exists()
    catalog.write_catalog(rendered, read_catalog(rendered))
    assert not stale[0].exists()
