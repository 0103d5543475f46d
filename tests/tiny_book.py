"""The tiny book that assembly, verify and the commands are tested on.

Planned with espeak's settings and rendered with test tones in place of a voice: a render job's WAV,
certified and marked in the catalog, without an engine. tests/conftest.py makes it a fixture
(``planned``, ``rendered``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import soundfile as sf

from narrator.core import catalog
from narrator.core.audio import check_wav_file, encode_wav
from narrator.core.catalog import read_catalog, wav_file
from narrator.engines.espeak import EspeakOptions
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
#: The file the book is written to, beside the results folder.
SOURCE = "tiny-book.md"
#: How the book is planned: espeak, and a budget small enough to cut its long sentence.
SETTINGS = PlanSettings(engine="espeak", options=EspeakOptions(voice="en-us"), budget=60)


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
    catalog.note_render_seconds(catalog_path, row.segment_id, 0.25)


def plan_tiny_book(folder: Path) -> Path:
    """Write the book into ``folder`` and plan it; the catalog's path (results/tiny-book/catalog.tsv)."""
    book = folder / SOURCE
    book.write_text(BOOK)
    catalog_path = folder / "results" / "tiny-book" / "catalog.tsv"
    catalog_path.parent.mkdir(parents=True)
    write_plan(book, catalog_path, catalog_path.with_name("book.json"), SETTINGS)
    return catalog_path


def master_of(catalog_path: Path) -> Path:
    """The master WAV assembly writes beside the catalog."""
    return catalog_path.with_name("tiny-book.wav")


def rows_by_id(catalog_path: Path) -> dict[str, dict[str, str]]:
    return {row.segment_id: row for row in read_catalog(catalog_path)}


def expected_book(catalog_path: Path, rows: list[dict[str, str]]) -> np.ndarray:
    parts = []
    for row in rows:
        parts.append(sf.read(wav_file(catalog_path, row), dtype="int16")[0])
        parts.append(np.zeros(round(PAUSES.get(row.pause_after, 0.0) * RATE), dtype=np.int16))
    return np.concatenate(parts)


def queue_row(catalog_path: Path, row: dict[str, str]) -> None:
    catalog.mark_queued(catalog_path, [row.segment_id])


def delete_wav(catalog_path: Path, row: dict[str, str]) -> None:
    wav_file(catalog_path, row).unlink()


def truncate_wav(catalog_path: Path, row: dict[str, str]) -> None:
    wav = wav_file(catalog_path, row)
    wav.write_bytes(wav.read_bytes()[:-300])


def replace_wav(catalog_path: Path, row: dict[str, str]) -> None:
    # Another valid, certified WAV of the same length: only the recorded checksum tells.
    other = encode_wav(tone(len(row.text), seed=5), RATE, row.segment_id)
    assert check_wav_file(
        wav_file(catalog_path, row), text_chars=len(row.text), segment_id=row.segment_id
    ).sha256 != (hashlib.sha256(other).hexdigest())
    wav_file(catalog_path, row).write_bytes(other)
