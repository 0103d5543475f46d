"""Assembly from verified segments only, healing with verify, and the status/verify commands."""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from planned import write_planned

from narrator.assemble.assemble import assemble_book
from narrator.cli import main
from narrator.core import catalog
from narrator.core.audio import WavRecord, check_wav_file, encode_wav, to_pcm16
from narrator.core.catalog import COMPLETED, QUEUED, Row, read_catalog, wav_file
from narrator.core.errors import CatalogError
from narrator.inspect.verify import verify_catalog
from narrator.plan.plan import PlanSettings, write_plan

RATE = 8000
SECONDS_PER_CHAR = 0.07
PAUSES = {"clause": 0.15, "sentence": 0.35, "paragraph": 0.8, "chapter": 2.0}  # as in config.yaml

BOOK = """# Tiny Book

## One

Hello there, friend. How are you today?

It was a long and winding road, which went on and on through the hills, past the river.

## Two

The end.
"""


def tone(chars: int, seed: int = 0) -> np.ndarray:
    """A speech-like signal of a plausible length for ``chars`` characters."""
    rng = np.random.default_rng(seed)
    t = np.arange(round(chars * SECONDS_PER_CHAR * RATE)) / RATE
    signal = 0.3 * np.sin(2 * np.pi * (150 + 10 * seed) * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))
    return (signal + 0.01 * rng.standard_normal(len(t))).astype(np.float32)


def render(catalog_path: Path, row: dict[str, str], seed: int = 0) -> None:
    """What a render job does: write a certified WAV and record it in the catalog."""
    wav = wav_file(catalog_path, row)
    wav.write_bytes(encode_wav(tone(len(row.text), seed), RATE, row.segment_id))
    record = check_wav_file(wav, text_chars=len(row.text), sample_rate=RATE, segment_id=row.segment_id)
    catalog.mark_completed(catalog_path, row.segment_id, record, 0.25)


@pytest.fixture
def planned(tmp_path: Path) -> Path:
    book = tmp_path / "tiny-book.md"
    book.write_text(BOOK)
    catalog_path = tmp_path / "results" / "tiny-book" / "catalog.tsv"
    catalog_path.parent.mkdir(parents=True)
    settings = PlanSettings(engine="espeak", options={"voice": "en-us"}, budget=60)
    write_plan(book, catalog_path, catalog_path.with_name("book.json"), settings)
    return catalog_path


@pytest.fixture
def rendered(planned: Path) -> Path:
    for row in read_catalog(planned):
        render(planned, row)
    return planned


def rows_by_id(catalog_path: Path) -> dict[str, dict[str, str]]:
    return {row.segment_id: row for row in read_catalog(catalog_path)}


def expected_book(catalog_path: Path, rows: list[dict[str, str]]) -> np.ndarray:
    parts = []
    for row in rows:
        parts.append(sf.read(wav_file(catalog_path, row), dtype="int16")[0])
        parts.append(np.zeros(round(PAUSES.get(row.pause_after, 0.0) * RATE), dtype=np.int16))
    return np.concatenate(parts)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if ".tmp-" in p.name)


# --- assembly --------------------------------------------------------------------------------


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


def _queue(catalog_path: Path, row: dict[str, str]) -> None:
    catalog.mark_queued(catalog_path, [row.segment_id])


def _delete(catalog_path: Path, row: dict[str, str]) -> None:
    wav_file(catalog_path, row).unlink()


def _truncate(catalog_path: Path, row: dict[str, str]) -> None:
    wav = wav_file(catalog_path, row)
    wav.write_bytes(wav.read_bytes()[:-300])


def _replace(catalog_path: Path, row: dict[str, str]) -> None:
    # Another valid, certified WAV of the same length: only the recorded checksum tells.
    other = encode_wav(tone(len(row.text), seed=5), RATE, row.segment_id)
    assert check_wav_file(
        wav_file(catalog_path, row), text_chars=len(row.text), segment_id=row.segment_id
    ).sha256 != (hashlib.sha256(other).hexdigest())
    wav_file(catalog_path, row).write_bytes(other)


def _other_rate(catalog_path: Path, row: dict[str, str]) -> None:
    wav = wav_file(catalog_path, row)
    wav.write_bytes(encode_wav(tone(len(row.text)), 16000, row.segment_id))
    catalog.mark_completed(
        catalog_path, row.segment_id, check_wav_file(wav, text_chars=1, segment_id=row.segment_id), 0.1
    )


DAMAGE = {
    "queued": (_queue, "queued"),
    "missing": (_delete, "missing"),
    "truncated": (_truncate, "truncated or altered"),
    "replaced": (_replace, "differs"),
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
    _queue(rendered, rows[0])
    _delete(rendered, rows[2])
    _truncate(rendered, rows[-1])
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
    _delete(rendered, read_catalog(rendered)[1])
    with pytest.raises(CatalogError):
        assemble_book(rendered, book_path, PAUSES)
    assert book_path.read_bytes() == b"previous book"


def test_freshly_planned_book_refuses(planned: Path) -> None:
    rows = read_catalog(planned)
    with pytest.raises(CatalogError, match=f"{len(rows)} segment\\(s\\) not ready"):
        assemble_book(planned, planned.parent / "b.wav", PAUSES)


# --- verify ----------------------------------------------------------------------------------


def test_verify_heals_and_assembly_then_works(rendered: Path) -> None:
    catalog_path = rendered
    rows = read_catalog(rendered)
    segments = rendered.parent / "segments"
    truncated, missing, adoptable, replaced, junk = rows[1], rows[2], rows[3], rows[4], rows[5]
    _truncate(rendered, truncated)
    _delete(rendered, missing)
    _replace(rendered, replaced)
    adoptable_sha = hashlib.sha256(wav_file(rendered, adoptable).read_bytes()).hexdigest()
    _queue(rendered, adoptable)  # e.g. the catalog was re-planned, the WAV survived
    _queue(rendered, junk)
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


# --- command line ----------------------------------------------------------------------------


def _status_row(index: int, done: bool, completed_at: float) -> Row:
    row = Row(
        segment_id=f"s{index}",
        sequence=index + 1,
        chapter=1,
        chapter_title="",
        paragraph=1,
        text="Some text.",
        spoken="Some text.",
        pause_after="sentence",
        wav_path=f"segments/s{index}.wav",
    )
    if done:
        record = WavRecord(frames=22050 * 30, sample_rate=22050, sha256="0" * 64)
        row = replace(row.marked_completed(record, 2.0), completed_at=completed_at)
    return row


def test_status_prints_counts_percent_and_eta(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "catalog.tsv"
    stamps = [1000.0, 1010.0, 1020.0]
    rows = [_status_row(i, i < 3, stamps[i] if i < 3 else 0.0) for i in range(10)]
    write_planned(path, rows)
    assert main(["status", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    # 7 left at one completion per 10 s of wall clock; 3 x 30 s of audio so far.
    summary = f"{path}: 3/10 completed (30.0%), 7 queued; audio so far 0.03 h (0:01:30); ETA 0:01:10"
    assert out.splitlines()[0] == summary  # then pace and bars (tests/test_status.py)
    assert main(["status", "--brief", str(path)]) == 0
    assert capsys.readouterr().out == summary + "\n"


def test_status_of_a_folder_and_of_a_real_plan(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog.mark_queued(rendered, [read_catalog(rendered)[0].segment_id])
    total = len(read_catalog(rendered))
    assert main(["status", str(rendered.parent)]) == 0
    out = capsys.readouterr().out
    match = re.search(r"(\d+)/(\d+) completed \((\d+\.\d)%\), (\d+) queued", out)
    assert match and match.groups() == (
        str(total - 1),
        str(total),
        f"{100 * (total - 1) / total:.1f}",
        "1",
    )
    assert re.search(r"ETA (\d+:\d\d:\d\d|unknown)$", out.splitlines()[0])


def test_status_of_a_missing_catalog_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "nonexistent/catalog.tsv"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("narrator: ") and "nonexistent/catalog.tsv" in err
    assert "Traceback" not in err


def test_status_with_no_catalogs_at_all(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "--results", str(tmp_path / "results")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no catalogs" in err


def test_verify_command_reports_and_heals(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    victim = read_catalog(rendered)[2]
    _truncate(rendered, victim)
    assert main(["verify", str(rendered)]) == 0
    assert "1 re-queued" in capsys.readouterr().out
    assert rows_by_id(rendered)[victim.segment_id].status == QUEUED
