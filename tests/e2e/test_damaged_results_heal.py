"""Results damaged behind the catalog's back, then a real run: a queued row beside its published WAV,
a deleted or truncated WAV, stray temps, a cut or deleted catalog. Each is named or healed, only what
was lost is rendered again, and the book comes out sample-identical to an undamaged run.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import read_audio

from narrator.core.catalog import read_catalog, wav_file, write_catalog

pytestmark = pytest.mark.slow


def _book(work):
    return read_audio(work.results() / "sample.wav")[0]


def _as_if_killed_before_assembly(work):
    """A crash mid-run happens before the book exists; the forced states below assume that."""
    (work.results() / "sample.wav").unlink()


def test_published_wav_with_queued_row_is_named_then_healed_by_verify(workdir, reference_book):
    workdir.run_book()
    catalog = workdir.results() / "catalog.tsv"
    rows = read_catalog(catalog)
    victim = rows[5].segment_id
    from narrator.core.catalog import mark_queued

    mark_queued(catalog, [victim])
    failed = workdir.run_book(check=False)
    assert failed.returncode != 0
    assert victim in failed.stderr + failed.stdout
    assert "narrator verify" in failed.stderr + failed.stdout
    healed = workdir.narrator("verify")
    assert "1 adopted" in healed.stdout, healed.stdout + healed.stderr
    workdir.run_book()
    assert np.array_equal(_book(workdir), reference_book[0])


def test_completed_row_with_missing_wav_is_rerendered(workdir, reference_book):
    workdir.run_book()
    rows = read_catalog(workdir.results() / "catalog.tsv")
    missing = [rows[3], rows[20]]
    for row in missing:
        wav_file(workdir.results() / "catalog.tsv", row).unlink()
    _as_if_killed_before_assembly(workdir)
    started = len(workdir.rendered_jobs())
    workdir.run_book()
    assert sorted(workdir.rendered_jobs()[started:]) == sorted(r.segment_id for r in missing)
    assert np.array_equal(_book(workdir), reference_book[0])


def test_stray_temp_files_are_ignored_and_cleaned(workdir, reference_book):
    workdir.run_book()
    rows = read_catalog(workdir.results() / "catalog.tsv")
    segments = workdir.results() / "segments"
    victim = wav_file(workdir.results() / "catalog.tsv", rows[7])
    victim.unlink()
    stray_of_victim = segments / f".{victim.name}.tmp-999-1"
    stray_of_victim.write_bytes(b"RIFF partial")
    stray_other = segments / f".{rows[9].segment_id}.wav.tmp-999-2"
    stray_other.write_bytes(b"RIFF partial")
    _as_if_killed_before_assembly(workdir)
    workdir.run_book()
    assert not stray_of_victim.exists()
    assert np.array_equal(_book(workdir), reference_book[0])
    result = workdir.narrator("verify")
    assert "1 stray temp files removed" in result.stdout
    assert not stray_other.exists()


def test_wav_truncated_behind_the_catalogs_back_is_named_then_rerendered(workdir, reference_book):
    workdir.run_book()
    rows = read_catalog(workdir.results() / "catalog.tsv")
    victim = rows[11]
    wav = wav_file(workdir.results() / "catalog.tsv", victim)
    wav.write_bytes(wav.read_bytes()[:1000])
    failed = workdir.run_book(check=False)
    assert failed.returncode != 0
    assert victim.segment_id in failed.stderr + failed.stdout
    result = workdir.narrator("verify")
    assert "1 re-queued" in result.stdout
    started = len(workdir.rendered_jobs())
    workdir.run_book()
    assert workdir.rendered_jobs()[started:] == [victim.segment_id]
    assert np.array_equal(_book(workdir), reference_book[0])


def test_a_run_re_plans_a_cut_or_deleted_catalog_and_the_book_is_whole(workdir, reference_book) -> None:
    samples, _, rows, _ = reference_book
    workdir.run_book()
    results = workdir.results()
    catalog_path, master = results / "catalog.tsv", results / "sample.wav"
    assert len(workdir.rendered_jobs()) == len(rows)

    write_catalog(catalog_path, read_catalog(catalog_path)[:-9])  # lost at a row boundary
    cut = catalog_path.read_bytes()
    dry = workdir.snakemake("-n", "--cores", "1", "--config", "engine=espeak")
    assert "rows were lost" in dry.stderr and "a real run re-plans" in dry.stderr
    assert catalog_path.read_bytes() == cut and master.exists()  # a dry run changes nothing

    rerun = workdir.run_book()
    assert "rows were lost; re-planning" in rerun.stderr
    assert np.array_equal(read_audio(master)[0], samples)
    assert len(read_catalog(catalog_path)) == len(rows)

    catalog_path.unlink()
    rerun = workdir.run_book()
    assert "is missing" in rerun.stderr and "re-planning" in rerun.stderr
    assert np.array_equal(read_audio(master)[0], samples)
    assert len(workdir.rendered_jobs()) == len(rows)  # every WAV was adopted: nothing rendered again
