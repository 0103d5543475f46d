"""Assembly from verified segments only (narrator/assemble/assemble.py): the master is the segments and
their pauses, sample for sample, and a segment not ready, or a disk too small, stops it with
nothing left behind.
"""

from __future__ import annotations

import errno
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from tiny_book import PAUSES, RATE, delete_wav, expected_book, queue_row, replace_wav, tone, truncate_wav

from narrator.assemble.assemble import assemble_book
from narrator.core import catalog
from narrator.core.audio import check_wav_file, encode_wav, to_pcm16
from narrator.core.catalog import read_catalog, wav_file
from narrator.core.errors import CatalogError
from narrator.inspect.verify import verify_catalog


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if ".tmp-" in p.name)


def test_plan_has_every_pause_kind(planned: Path) -> None:
    kinds = [row.pause_after for row in read_catalog(planned)]
    assert set(kinds) == {"clause", "sentence", "paragraph", "chapter", "end"}
    assert kinds[-1] == "end" and kinds.count("end") == 1


def test_assembly_is_segments_plus_pauses(rendered: Path) -> None:
    rows = read_catalog(rendered)
    book_path = rendered.parent / "tiny-book.wav"
    summary = assemble_book(rendered, book_path, PAUSES)
    pcm, rate = sf.read(book_path, dtype="int16")
    assert rate == RATE and pcm.ndim == 1
    segment_frames = sum(int(row.frames) for row in rows)
    pause_frames = sum(round(PAUSES.get(row.pause_after, 0.0) * RATE) for row in rows)
    assert len(pcm) == segment_frames + pause_frames
    assert f"{len(pcm)} frames" in summary
    assert np.array_equal(pcm, expected_book(rendered, rows))
    # Nothing after the last segment ('end'): the book ends with its last sample of speech.
    last = to_pcm16(tone(len(rows[-1].text)))
    assert np.array_equal(pcm[-len(last) :], last)
    assert leftovers(rendered.parent) == []


def test_assembly_replaces_an_older_book(rendered: Path) -> None:
    book_path = rendered.parent / "tiny-book.wav"
    book_path.write_bytes(b"old")
    assemble_book(rendered, book_path, PAUSES)
    assert sf.info(book_path).frames > 0


def _other_rate(catalog_path: Path, row: dict[str, str]) -> None:
    wav = wav_file(catalog_path, row)
    wav.write_bytes(encode_wav(tone(len(row.text)), 16000, row.segment_id))
    catalog.mark_completed(
        catalog_path, row.segment_id, check_wav_file(wav, text_chars=1, segment_id=row.segment_id), 0.1
    )


DAMAGE = {
    "queued": (queue_row, "queued"),
    "missing": (delete_wav, "missing"),
    "truncated": (truncate_wav, "truncated or altered"),
    "replaced": (replace_wav, "differs"),
    "other_rate": (_other_rate, "sample rate"),
}


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_assembly_refuses_and_leaves_nothing(rendered: Path, kind: str) -> None:
    damage, reason = DAMAGE[kind]
    rows = read_catalog(rendered)
    victim = rows[3]
    damage(rendered, victim)
    book_path = rendered.parent / "tiny-book.wav"
    with pytest.raises(CatalogError) as info:
        assemble_book(rendered, book_path, PAUSES)
    message = str(info.value)
    assert "\n" not in message
    assert f"{victim.segment_id} " in message and reason in message
    assert "1 segment(s) not ready" in message
    assert not any(row.segment_id in message for row in rows if row is not victim)
    assert not book_path.exists()
    assert leftovers(rendered.parent) == []


def test_assembly_names_every_bad_segment(rendered: Path) -> None:
    rows = read_catalog(rendered)
    queue_row(rendered, rows[0])
    delete_wav(rendered, rows[2])
    truncate_wav(rendered, rows[-1])
    with pytest.raises(CatalogError) as info:
        assemble_book(rendered, rendered.parent / "b.wav", PAUSES)
    assert "3 segment(s) not ready" in str(info.value)
    for row in (rows[0], rows[2], rows[-1]):
        assert row.segment_id in str(info.value)
    assert not (rendered.parent / "b.wav").exists()
    assert leftovers(rendered.parent) == []


def test_assembly_refusal_keeps_an_older_book(rendered: Path) -> None:
    book_path = rendered.parent / "tiny-book.wav"
    book_path.write_bytes(b"previous book")
    delete_wav(rendered, read_catalog(rendered)[1])
    with pytest.raises(CatalogError):
        assemble_book(rendered, book_path, PAUSES)
    assert book_path.read_bytes() == b"previous book"


def test_freshly_planned_book_refuses(planned: Path) -> None:
    rows = read_catalog(planned)
    with pytest.raises(CatalogError, match=f"{len(rows)} segment\\(s\\) not ready"):
        assemble_book(planned, planned.parent / "b.wav", PAUSES)


def test_a_master_that_cannot_fit_is_refused_naming_the_disk(rendered: Path, tiny_disk: Path) -> None:
    master = tiny_disk / "tiny-book.wav"
    (tiny_disk / "filler").write_bytes(b"\0" * (1024 * 1024 - 64 * 1024))
    with pytest.raises(OSError, match="No space left on device") as caught:
        assemble_book(rendered, master, PAUSES)
    assert caught.value.errno == errno.ENOSPC
    assert caught.value.filename == str(master)
    assert sorted(path.name for path in tiny_disk.iterdir()) == ["filler"]  # no temp left behind
    assert verify_catalog(rendered).requeued == []  # the segments are untouched


def test_a_write_stopped_by_the_file_size_limit_is_named_efbig(tmp_path, monkeypatch):
    """libsndfile says only "System error": a master that reached ulimit -f must not read as a
    failing disk (EIO)."""
    import resource

    from narrator.assemble import assemble

    temp = tmp_path / ".book.wav.tmp"
    temp.write_bytes(b"\0" * 4096)
    failed = sf.LibsndfileError(2, "System error")
    assert assemble._write_error(temp, failed).errno == errno.EIO
    monkeypatch.setattr(resource, "getrlimit", lambda which: (4096, resource.RLIM_INFINITY))
    error = assemble._write_error(temp, failed)
    assert error.errno == errno.EFBIG and error.filename == str(temp)
