"""A three-chapter book made without an engine, with titles hostile to every format that carries them.

Its catalog of certified WAVs, book.json and cover (``make_book``), and how to read back what
assembly and packaging made of it. tests/conftest.py assembles it as the ``assembled`` fixture.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import zlib
from pathlib import Path

import numpy as np

from narrator.assemble.loudness import LoudnessMeter, LoudnessTarget
from narrator.core.audio import encode_wav
from narrator.core.catalog import COMPLETED, PlanRecord, Row, write_catalog
from narrator.inspect.overlays import Publication, folded, read_publication
from narrator.package.epub import span_id
from narrator.package.ffmpeg import find_ffmpeg, parse_ffmetadata, read_back
from narrator.package.m4b import AAC_FRAME

RATE = 22050
PAUSES = {"lead": 0.5, "trail": 1.0, "clause": 0.15, "sentence": 0.35, "paragraph": 0.8, "chapter": 2.0}
TARGET = LoudnessTarget(target=-18.0, true_peak=-1.5)
HOSTILE = [
    'He said "Stop" = go; #1 \\ back',
    "Zweites Kapitel: Über; die = Brücke #2\nund weiter",
    "[CHAPTER] ;FFMETADATA1 \\= 日本語 — fin \\",
]
BOOK_TITLE = 'The "Title" = A; B # C \\ D\nÉté'
AUTHORS = ["A. Author", "Bé Écrivain"]


def ffmpeg() -> str:
    return find_ffmpeg("auto")


def png(width: int = 8, height: int = 8) -> bytes:
    """A tiny valid PNG, without any imaging library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    raw = b"".join(b"\x00" + bytes([200, 120, 40]) * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def speech(chars: int, seed: int, level: float = 0.1) -> np.ndarray:
    """Voice-like sound of a plausible length for ``chars``: a few harmonics under a syllable rhythm."""
    rng = np.random.default_rng(seed)
    t = np.arange(round(chars * 0.07 * RATE)) / RATE
    pitch = 110 + 10 * seed
    voice = sum(np.sin(2 * np.pi * pitch * k * t + rng.uniform(0, 6)) / k for k in range(1, 6))
    envelope = 0.6 + 0.4 * np.sin(2 * np.pi * 4 * t + seed)
    return (level * voice * envelope / np.max(np.abs(voice))).astype(np.float32)


def peaky_speech(chars: int, seed: int, level: float = 0.1) -> np.ndarray:
    """``speech`` with three short noise bursts a second, as TTS plosives and clicks peak: its true
    peak sits 20-25 dB above its loudness (Piper's, in the sample book: 20.5 dB)."""
    rng = np.random.default_rng(1000 + seed)
    voice = speech(chars, seed, level).astype(np.float64)
    for start in rng.integers(0, len(voice) - 100, size=max(1, len(voice) // RATE * 3)):
        length = int(rng.integers(40, 100))  # 2-5 ms
        voice[start : start + length] += 1.5 * level * rng.standard_normal(length) * np.hanning(length)
    return voice.astype(np.float32)


def make_book(
    folder: Path, level: float = 0.1, titles: list[str] = HOSTILE, voice=speech
) -> tuple[Path, Path]:
    """A three-chapter catalog of certified WAVs (no engine), its book.json and a cover."""
    segments = folder / "segments"
    segments.mkdir(parents=True)
    texts = [
        [
            (titles[0], "chapter"),
            ("It was cold. <b>Tom</b> & Jerry ran.", "sentence"),
            ("They hid.", "paragraph"),
        ],
        [
            (titles[1], "chapter"),
            ("The fog --> came in.\n\nIt stayed.", "sentence"),
            ("Night fell.", "chapter"),
        ],
        [(titles[2], "chapter"), ("Morning came at last, with light.", "end")],
    ]
    rows = []
    for chapter, parts in enumerate(texts, start=1):
        for text, pause in parts:
            sequence = len(rows) + 1
            segment_id = f"{sequence:016x}"
            wav = segments / f"{segment_id}.wav"
            data = encode_wav(voice(len(text), sequence, level), RATE, segment_id)
            wav.write_bytes(data)
            row = Row(
                segment_id=segment_id,
                sequence=sequence,
                chapter=chapter,
                chapter_title=titles[chapter - 1],
                paragraph=1,
                text=text,
                spoken=text,
                pause_after=pause,
                wav_path=f"segments/{wav.name}",
                status=COMPLETED,
                frames=round(len(text) * 0.07 * RATE),
                sample_rate=RATE,
                sha256=hashlib.sha256(data).hexdigest(),
                completed_at=1.0,
            )
            rows.append(row)
    catalog = folder / "catalog.tsv"
    write_catalog(catalog, rows)
    (folder / "cover.png").write_bytes(png())
    book_json = folder / "book.json"
    book_json.write_text(
        json.dumps(
            {
                "title": BOOK_TITLE,
                "authors": AUTHORS,
                "language": "de",
                "cover": "cover.png",
                "plan": PlanRecord.of(rows, source_sha256="", settings_sha256="").as_json(),
            }
        ),
        encoding="utf-8",
    )
    return catalog, book_json


def decode(path: Path, rate: int | None = None) -> np.ndarray:
    """Decode any audio file with ffmpeg to mono float samples (at ``rate`` if given)."""
    args = [ffmpeg(), "-hide_banner", "-loglevel", "error", "-i", str(path), "-map", "0:a:0", "-ac", "1"]
    args += ["-ar", str(rate)] if rate else []
    result = subprocess.run([*args, "-f", "f32le", "-"], check=True, capture_output=True)
    return np.frombuffer(result.stdout, dtype="<f4").astype(np.float64)


def probe(path: Path) -> str:
    """ffmpeg's description of a file (streams, languages, attached pictures)."""
    result = subprocess.run([ffmpeg(), "-hide_banner", "-i", str(path)], check=False, capture_output=True)
    return result.stderr.decode("utf-8", errors="replace")


def check_m4b(
    m4b: Path, rows, timeline, *, title: str, authors: list[str], year: str, cover: bool, lang: str
):
    tags, chapters = parse_ffmetadata(read_back(ffmpeg(), m4b))
    assert tags["title"] == title and tags["album"] == title
    assert tags.get("artist", "") == ", ".join(authors)
    assert tags["genre"] == "Audiobook"
    assert tags["date"] == year
    assert tags["media_type"] == "2"
    assert [c["title"] for c in chapters] == [c.title for c in timeline.chapters]
    for found, expected in zip(chapters, timeline.chapters, strict=True):
        numerator, denominator = map(int, found["TIMEBASE"].split("/"))
        start = int(found["START"]) * numerator * timeline.rate / denominator
        end = int(found["END"]) * numerator * timeline.rate / denominator
        assert abs(start - expected.start) <= AAC_FRAME
        assert abs(end - expected.end) <= AAC_FRAME
    # Every chapter but the first starts at its first segment; the first holds the lead pad.
    starts = [c.start for c in timeline.chapters]
    assert starts[0] == 0
    assert starts[1:] == [timeline.spans[c.first_row].start for c in timeline.chapters[1:]]
    described = probe(m4b)
    assert ("(attached pic)" in described) == cover
    assert f"({lang}): Audio: aac" in described
    samples = decode(m4b)
    assert abs(len(samples) - timeline.frames) <= AAC_FRAME
    return samples


def check_overlays(epub: Path, rows, timeline) -> Publication:
    """The read-along EPUB's clips are the timeline's samples, in reading order, on their words."""
    publication = read_publication(epub)
    assert len(publication.overlays) == len(timeline.chapters)
    for overlay, chapter in zip(publication.overlays, timeline.chapters, strict=True):
        chapter_rows = range(chapter.first_row, chapter.last_row + 1)
        assert [clip.target for clip in overlay.clips] == [span_id(rows[i]) for i in chapter_rows]
        assert [clip.words for clip in overlay.clips] == [folded(rows[i].text) for i in chapter_rows]
        begins = [round(clip.begin * timeline.rate) + chapter.start for clip in overlay.clips]
        ends = [round(clip.end * timeline.rate) + chapter.start for clip in overlay.clips]
        # Each clip is its segment's speech: from its first sample to just after its last.
        assert begins == [timeline.spans[i].start for i in chapter_rows]
        assert ends == [timeline.spans[i].end for i in chapter_rows]
        assert round(overlay.duration * timeline.rate) == chapter.end - chapter.start
    assert round(publication.duration * timeline.rate) == timeline.frames
    return publication


def measured(samples: np.ndarray) -> LoudnessMeter:
    meter = LoudnessMeter(RATE)
    meter.add(samples)
    return meter
