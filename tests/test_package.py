"""Audiobook out: timeline, streaming loudness, master gain, M4B, chapter files, subtitles, crashes."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

import numpy as np
import pyloudnorm
import pytest
import soundfile as sf
import yaml
from conftest import Workdir, kill_group
from scipy.signal import resample_poly

from narrator.assemble import assemble as assemble_module
from narrator.assemble.assemble import assemble_book, wav_format
from narrator.assemble.loudness import (
    LimiterForecast,
    LoudnessMeter,
    LoudnessTarget,
    TruePeakLimiter,
    book_gain,
)
from narrator.core.audio import encode_wav
from narrator.core.catalog import COMPLETED, PlanRecord, Row, read_catalog, write_catalog
from narrator.core.language import iso639_2
from narrator.core.timeline import build_timeline
from narrator.package import m4b
from narrator.package.chapters import chapter_filenames, package_chapters, safe_filename
from narrator.package.ffmpeg import (
    FfmpegError,
    MetaChapter,
    Metadata,
    escape,
    ffmetadata_args,
    find_ffmpeg,
    format_ffmetadata,
    parse_ffmetadata,
    read_back,
)
from narrator.package.m4b import AAC_FRAME, CUT_MARGIN, encoding_cuts, package_m4b
from narrator.package.metadata import PackageSettings
from narrator.package.subtitles import timestamp, write_subtitles

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


def stream_tags(path: Path) -> dict[str, str]:
    """The first audio stream's tags (where Ogg keeps them), as ffmetadata."""
    args = [ffmpeg(), "-hide_banner", "-loglevel", "error", "-i", str(path), "-map_metadata", "0:s:a:0"]
    result = subprocess.run([*args, "-f", "ffmetadata", "-"], check=True, capture_output=True)
    return parse_ffmetadata(result.stdout.decode("utf-8"))[0]


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


# --- timeline -----------------------------------------------------------------------------------


def test_timeline_lays_out_pads_pauses_and_chapters(tmp_path: Path) -> None:
    catalog, _ = make_book(tmp_path)
    rows = read_catalog(catalog)
    timeline = build_timeline(rows, PAUSES)
    assert timeline.rate == RATE and timeline.lead == round(0.5 * RATE) and timeline.trail == RATE
    position = timeline.lead
    for row, span in zip(rows, timeline.spans, strict=True):
        assert span.start == position and span.end - span.start == int(row.frames)
        assert span.pause == round(PAUSES.get(row.pause_after, 0) * RATE)
        position = span.end + span.pause
    assert timeline.spans[-1].pause == 0  # 'end' names no pause
    assert timeline.frames == position + timeline.trail
    assert [c.title for c in timeline.chapters] == [t.strip() for t in HOSTILE]
    assert [(c.first_row, c.last_row) for c in timeline.chapters] == [(0, 2), (3, 5), (6, 7)]
    assert [c.speech for c in timeline.chapters] == [timeline.spans[i].start for i in (0, 3, 6)]
    assert [c.start for c in timeline.chapters] == [0, timeline.spans[3].start, timeline.spans[6].start]
    assert [c.end for c in timeline.chapters] == [
        timeline.spans[3].start,
        timeline.spans[6].start,
        timeline.frames,
    ]


# --- loudness -----------------------------------------------------------------------------------


@pytest.mark.parametrize("rate", [8000, 22050, 44100, 48000])
def test_streaming_loudness_equals_pyloudnorm(rate: int) -> None:
    rng = np.random.default_rng(rate)
    n = rate * 6 + 777
    t = np.arange(n) / rate
    signal = 0.3 * np.sin(2 * np.pi * 220 * t) * (0.5 + 0.5 * np.sin(2 * np.pi * 0.8 * t))
    signal += 0.05 * rng.standard_normal(n)
    signal[rate : 2 * rate] = 0.0  # silence, gated out
    signal[3 * rate : 4 * rate] *= 0.003  # very quiet, under the relative gate
    meter = LoudnessMeter(rate)
    position = 0
    while position < n:  # ragged chunks, down to one sample
        size = int(rng.integers(1, rate // 2))
        meter.add(signal[position : position + size])
        position += size
    expected = pyloudnorm.Meter(rate).integrated_loudness(signal)
    assert abs(meter.integrated() - expected) < 0.1
    true_peak = 20 * np.log10(np.max(np.abs(resample_poly(signal, 4, 1))))
    assert meter.true_peak_dbtp() == pytest.approx(true_peak, abs=1e-6)


def limited(samples: np.ndarray, ceiling: float, chunk: int) -> tuple[np.ndarray, TruePeakLimiter]:
    limiter = TruePeakLimiter(RATE, ceiling)
    pieces = [limiter.process(samples[start : start + chunk]) for start in range(0, len(samples), chunk)]
    return np.concatenate([*pieces, limiter.flush()]), limiter


def measured(samples: np.ndarray) -> LoudnessMeter:
    meter = LoudnessMeter(RATE)
    meter.add(samples)
    return meter


def test_limiter_keeps_16_bit_true_peak_under_the_ceiling_in_any_chunks() -> None:
    rng = np.random.default_rng(7)
    hard = np.concatenate(
        [
            np.zeros(1000),
            0.4 * rng.standard_normal(RATE // 2),  # dense peaks, 6 dB over
            0.9 * np.sin(2 * np.pi * 0.45 * np.arange(RATE // 4) + 0.3),  # intersample peaks near Nyquist
            np.zeros(3000),
            0.02 * rng.standard_normal(RATE // 2),  # quiet: far from any peak, untouched
        ]
    )
    hard[1000] = 0.99  # a peak in the first look-ahead of sound
    hard[1000 + RATE // 2 + RATE // 4 + 3000 - 1] = -0.99  # the last sample before the silence
    whole, limiter = limited(hard, -1.5, len(hard))
    for chunk in (1, 777, 1 << 14 | 5):
        assert np.array_equal(limited(hard, -1.5, chunk)[0], whole), chunk
    assert len(whole) == len(hard)
    pcm = np.round(whole * 32768) / 32768
    assert measured(pcm).true_peak_dbtp() <= -1.5
    assert measured(hard).true_peak_dbtp() > 0.5 and limiter.max_reduction_db > 2
    # Aligned: each output sample is its input sample times a gain in (0, 1].
    sound = hard != 0
    ratio = whole[sound] / hard[sound]
    assert np.all(ratio > 0) and np.all(ratio <= 1)
    assert not np.any(whole[~sound]), "silence must stay digital zero"
    quiet = slice(len(hard) - RATE // 4, len(hard))
    assert np.array_equal(whole[quiet], hard[quiet])


def test_limiter_passes_a_signal_under_the_ceiling_bit_for_bit() -> None:
    signal = peaky_speech(40, 3, level=0.01).astype(np.float64)
    assert measured(signal).true_peak_dbtp() < -1.7
    out, limiter = limited(signal, -1.5, 1000)
    assert np.array_equal(out, signal) and limiter.limited_samples == 0 and limiter.max_reduction_db == 0


def test_forecast_predicts_the_limited_loudness_at_any_gain() -> None:
    signal = np.concatenate([peaky_speech(60, seed, 0.02) for seed in range(1, 5)]).astype(np.float64)
    before = measured(signal)
    forecast = LimiterForecast(RATE, -1.5)
    for start in range(0, len(signal), 5000):
        forecast.add(signal[start : start + 5000])
    forecast.finish()
    losses = []
    for gain_db in (0.0, 22.0, 28.0):  # peaks 20 dB under the ceiling: none, 2 and 8 dB over
        out = limited(signal * 10 ** (gain_db / 20), -1.5, 1 << 16)[0]
        expected = before.integrated() + gain_db + forecast.loss_db(gain_db, before.gated_energy())
        assert abs(measured(out).integrated() - expected) < 0.2, gain_db
        losses.append(forecast.loss_db(gain_db, before.gated_energy()))
    assert losses[0] == 0 and losses[2] < losses[1] < 0
    silent = book_gain(measured(np.zeros(RATE)), LimiterForecast(RATE, -1.5), TARGET)
    assert (silent.gain_db, silent.correction_db) == (0.0, 0.0)


def test_master_is_gained_to_the_target_and_reported(tmp_path: Path) -> None:
    catalog, _ = make_book(tmp_path, level=0.02)
    master, report = tmp_path / "book.wav", tmp_path / "loudness.json"
    summary = assemble_book(catalog, master, PAUSES, TARGET, report)
    timeline = build_timeline(read_catalog(catalog), PAUSES)
    pcm, rate = sf.read(master, dtype="float64")
    assert rate == RATE and len(pcm) == timeline.frames
    assert abs(pyloudnorm.Meter(rate).integrated_loudness(pcm) - TARGET.target) < 0.1
    figures = json.loads(report.read_text())
    assert figures["target_lufs"] == TARGET.target
    assert figures["before"]["integrated_lufs"] < -30
    assert abs(figures["after"]["integrated_lufs"] - TARGET.target) < 0.05
    assert figures["gain_db"] == pytest.approx(TARGET.target - figures["before"]["integrated_lufs"], abs=0.01)
    # Peaks stay under the ceiling at this gain: the limiter does nothing and nothing is corrected.
    assert figures["limiter_correction_db"] == 0 and figures["gain_db"] == figures["gain_to_target_db"]
    assert figures["limiter"]["limited_share"] == 0 and figures["limiter"]["max_reduction_db"] == 0
    assert "LUFS" in summary and "limiter on 0.00% of samples" in summary
    # The pads and pauses stay digital silence; the speech sits exactly where the timeline says.
    assert not np.any(pcm[: timeline.lead]) and not np.any(pcm[timeline.frames - timeline.trail :])
    first = timeline.spans[0]
    assert np.any(pcm[first.start : first.start + 100]) and not np.any(
        pcm[first.end : first.end + first.pause]
    )


def test_limiter_lands_a_peaky_book_on_the_target_under_the_ceiling(tmp_path: Path) -> None:
    catalog, _ = make_book(tmp_path, voice=peaky_speech)
    plain, master, report = tmp_path / "plain.wav", tmp_path / "book.wav", tmp_path / "loudness.json"
    assemble_book(catalog, plain, PAUSES)  # no loudness: the book as laid out
    summary = assemble_book(catalog, master, PAUSES, TARGET, report)
    figures = json.loads(report.read_text())
    before = figures["before"]
    # One gain under the ceiling, as before the limiter, would have left the book 3 LU or more short.
    assert before["true_peak_dbtp"] + TARGET.target - before["integrated_lufs"] - TARGET.true_peak > 3
    pcm = sf.read(master, dtype="float64")[0]
    assert abs(pyloudnorm.Meter(RATE).integrated_loudness(pcm) - TARGET.target) < 0.5
    assert abs(figures["after"]["integrated_lufs"] - TARGET.target) < 0.2
    assert measured(pcm).true_peak_dbtp() <= TARGET.true_peak
    assert figures["after"]["true_peak_dbtp"] <= TARGET.true_peak
    limiter = figures["limiter"]
    assert 0 < limiter["limited_share"] < 0.2 and limiter["max_reduction_db"] > 3
    assert limiter["limited_seconds"] == pytest.approx(limiter["limited_share"] * len(pcm) / RATE, abs=0.01)
    assert figures["limiter_correction_db"] > 0
    assert f"up to {limiter['max_reduction_db']} dB" in summary
    # Sample-aligned with the book as laid out: same length, silence where it is silent, and each
    # sample the laid-out one times the gain and a limiter gain in (0, 1].
    raw = sf.read(plain, dtype="float64")[0]
    assert len(pcm) == len(raw)
    assert not np.any(pcm[raw == 0])
    sound = raw != 0
    ratio = pcm[sound] / (raw[sound] * 10 ** (figures["gain_db"] / 20))
    assert np.all(ratio >= 0) and np.all(ratio <= 1 + 1 / np.abs(raw[sound] * 32768))


class _Synchronous:
    """assemble's ``_InOrder`` as one thread runs it: each item measured as it is submitted."""

    def __init__(self, consume) -> None:
        self.submit = consume

    def __enter__(self) -> _Synchronous:
        return self

    def __exit__(self, *_: object) -> None:
        return None


def test_measuring_on_a_second_thread_changes_no_bit(tmp_path: Path, monkeypatch) -> None:
    catalog, _ = make_book(tmp_path, voice=peaky_speech)
    outputs = {}
    for name in ("threaded", "one thread"):
        if name == "one thread":
            monkeypatch.setattr(assemble_module, "_InOrder", _Synchronous)
        master, report = tmp_path / f"{name}.wav", tmp_path / f"{name}.json"
        assemble_book(catalog, master, PAUSES, TARGET, report)
        outputs[name] = (master.read_bytes(), report.read_text())
    assert outputs["threaded"] == outputs["one thread"]
    assert json.loads(outputs["threaded"][1])["limiter"]["limited_share"] > 0  # the limiter was at work


def test_the_meter_thread_takes_every_piece_in_order_and_never_falls_far_behind() -> None:
    seen: list[int] = []

    def slow(item: np.ndarray) -> None:
        time.sleep(0.002 * (int(item[0]) % 3))
        seen.append(int(item[0]))

    with assemble_module._InOrder(slow) as meter:
        for index in range(40):
            meter.submit(np.array([index]))
            assert index + 1 - len(seen) <= assemble_module._METER_LAG
    assert seen == list(range(40))


def test_a_meter_error_reaches_the_assembly_and_a_failed_assembly_stops_the_meter() -> None:
    def failing(item: np.ndarray) -> None:
        if item[0] == 3:
            raise ValueError("bad block")

    with pytest.raises(ValueError, match="bad block"), assemble_module._InOrder(failing) as meter:
        for index in range(5):
            meter.submit(np.array([index]))
    seen: list[int] = []

    def slow(item: np.ndarray) -> None:
        time.sleep(0.05)
        seen.append(int(item[0]))

    with pytest.raises(RuntimeError, match="disk gone"), assemble_module._InOrder(slow) as meter:
        for index in range(6):
            meter.submit(np.array([index]))
        raise RuntimeError("disk gone")
    assert len(seen) < 6  # what was still queued is dropped, not measured for nothing
    assert not [thread for thread in threading.enumerate() if thread.name.startswith("loudness")]


def test_a_master_over_4_gib_is_written_as_rf64_and_still_packages(tmp_path: Path, monkeypatch) -> None:
    assert wav_format(2**31 - 4096) == "WAV"  # just under 4 GiB of 16-bit samples
    assert wav_format(2**31) == "RF64"
    monkeypatch.setattr(assemble_module, "RIFF_LIMIT", 1000)  # pretend this tiny book is huge
    catalog, book_json = make_book(tmp_path)
    master = tmp_path / "book.wav"
    assemble_book(catalog, master, PAUSES, TARGET, tmp_path / "loudness.json")
    assert master.read_bytes()[:4] == b"RF64"
    m4b = tmp_path / "book.m4b"
    package_m4b(master, catalog, book_json, m4b, PAUSES, PackageSettings(year="2001"))
    samples = decode(m4b)
    assert abs(len(samples) - build_timeline(read_catalog(catalog), PAUSES).frames) <= AAC_FRAME


# --- ffmpeg and metadata ------------------------------------------------------------------------


def test_ffmetadata_escaping_round_trips_through_ffmpeg(tmp_path: Path) -> None:
    hostile = [*HOSTILE, BOOK_TITLE, "=;#\\", " leading and trailing ", "tab\there", "line\r\nbreak", "end\\"]
    assert escape("a=b;c#d\\e\nf") == "a\\=b\\;c\\#d\\\\e\\\nf"
    metadata = Metadata(
        tags={f"key{i}": value for i, value in enumerate(hostile)},
        chapters=[MetaChapter(0, 10, {"title": hostile[0]}), MetaChapter(10, 20, {"title": "ends in \\"})],
    )
    text = format_ffmetadata(metadata)
    # Values ending in a backslash travel as arguments: ffmpeg's reader would misread them.
    extra = ffmetadata_args(metadata)
    ends = [f"key{i}={v}" for i, v in enumerate(hostile) if v.endswith("\\")]
    assert extra == [
        *(arg for tag in ends for arg in ("-metadata", tag)),
        "-metadata:c:1",
        "title=ends in \\",
    ]
    expected = {f"key{i}": value.replace("\r\n", "\n") for i, value in enumerate(hostile)}
    assert parse_ffmetadata(text)[0] == {k: v for k, v in expected.items() if not v.endswith("\\")}
    source = tmp_path / "in.txt"
    source.write_text(text, encoding="utf-8")
    args = [ffmpeg(), "-loglevel", "error", "-i", str(source), *extra, "-f", "ffmetadata", "-"]
    tags, chapters = parse_ffmetadata(subprocess.run(args, check=True, capture_output=True).stdout.decode())
    assert {key: tags[key] for key in expected} == expected
    assert [c["title"] for c in chapters] == [hostile[0], "ends in \\"]


def test_find_ffmpeg() -> None:
    assert Path(find_ffmpeg("auto")).is_file()
    assert find_ffmpeg(sys.executable) == sys.executable  # any path is taken as given
    with pytest.raises(FfmpegError, match="not an executable ffmpeg"):
        find_ffmpeg("/nonexistent/ffmpeg")


def test_safe_chapter_file_names() -> None:
    names = chapter_filenames([*HOSTILE, "../../etc/passwd", "  ...  ", "CON: a*b?c|d<e>f"], "opus")
    assert names[0] == "01 - He said Stop = go; #1 back.opus"
    assert names[1] == "02 - Zweites Kapitel Über; die = Brücke #2 und weiter.opus"
    assert names[3] == "04 - etc passwd.opus"
    assert names[4] == "05 - Chapter 5.opus"
    assert names[5] == "06 - CON a b c d e f.opus"
    assert all("/" not in name and "\n" not in name for name in names)
    assert chapter_filenames(["x"] * 100, "mp3")[99] == "100 - x.mp3"
    assert len(safe_filename("ü" * 500, "x").encode()) <= 120


def test_language_codes() -> None:
    assert [iso639_2(tag) for tag in ("en", "en-GB", "de", "fra", "pt_BR", "", "xx")] == [
        "eng",
        "eng",
        "deu",
        "fra",
        "por",
        "und",
        "und",
    ]


# --- packaging ----------------------------------------------------------------------------------


@pytest.fixture
def assembled(tmp_path: Path):
    catalog, book_json = make_book(tmp_path / "book")
    master = tmp_path / "book" / "book.wav"
    assemble_book(catalog, master, PAUSES, TARGET, tmp_path / "book" / "loudness.json")
    return catalog, book_json, master


def test_m4b_has_exact_chapters_hostile_titles_tags_cover_and_loudness(assembled) -> None:
    catalog, book_json, master = assembled
    m4b = master.with_suffix(".m4b")
    summary = package_m4b(master, catalog, book_json, m4b, PAUSES, PackageSettings(year="1999"))
    assert "3 chapters" in summary
    rows = read_catalog(catalog)
    timeline = build_timeline(rows, PAUSES)
    samples = check_m4b(
        m4b, rows, timeline, title=BOOK_TITLE, authors=AUTHORS, year="1999", cover=True, lang="deu"
    )
    assert abs(pyloudnorm.Meter(RATE).integrated_loudness(samples) - TARGET.target) < 0.5
    assert not [p for p in m4b.parent.iterdir() if ".tmp-" in p.name]


def test_m4b_is_encoded_in_parts_cut_in_silence_and_joined_to_the_sample(assembled, monkeypatch) -> None:
    catalog, book_json, master = assembled
    rows = read_catalog(catalog)
    timeline = build_timeline(rows, PAUSES)
    pcm = sf.read(master, dtype="int16")[0]
    assert encoding_cuts(timeline, 1) == []
    cuts = encoding_cuts(timeline, 4)
    assert 1 <= len(cuts) <= 3
    for cut in cuts:
        assert cut % AAC_FRAME == 0 and not np.any(pcm[cut - CUT_MARGIN : cut + CUT_MARGIN])
    whole, parted = master.with_name("whole.m4b"), master.with_name("parted.m4b")
    assert "in 1 part(s)" in package_m4b(master, catalog, book_json, whole, PAUSES, PackageSettings(), 1)
    # Four CPUs to share, whatever this machine has.
    monkeypatch.setattr(m4b, "usable_cpus", lambda: 4)
    summary = package_m4b(master, catalog, book_json, parted, PAUSES, PackageSettings(year="1999"), 4)
    assert f"in {len(cuts) + 1} part(s)" in summary
    samples = check_m4b(
        parted, rows, timeline, title=BOOK_TITLE, authors=AUTHORS, year="1999", cover=True, lang="deu"
    )
    assert len(samples) == timeline.frames  # each part decodes to exactly its share: no frame added
    one_piece = decode(whole)
    assert len(one_piece) == timeline.frames
    # Up to the first cut, the same encoder saw the same samples; after it, the parts' audio is as
    # close to the master as the one-piece encode's, and silent at every cut.
    first = cuts[0]
    assert np.array_equal(samples[:first], one_piece[:first])
    reference = pcm / 32768.0
    parted_error = np.sqrt(np.mean((samples[first:] - reference[first:]) ** 2))
    whole_error = np.sqrt(np.mean((one_piece[first:] - reference[first:]) ** 2))
    assert parted_error < 1.2 * whole_error
    for cut in cuts:
        assert np.max(np.abs(samples[cut - CUT_MARGIN : cut + CUT_MARGIN])) < 1e-3
    assert not [p for p in master.parent.iterdir() if ".tmp-" in p.name]


def test_m4b_with_config_cover_and_no_cover(assembled, tmp_path: Path) -> None:
    catalog, book_json, master = assembled
    data = json.loads(book_json.read_text())
    book_json.write_text(json.dumps({**data, "cover": None}))
    m4b = master.with_suffix(".m4b")
    package_m4b(master, catalog, book_json, m4b, PAUSES, PackageSettings())
    assert "(attached pic)" not in probe(m4b)
    tags = parse_ffmetadata(read_back(ffmpeg(), m4b))[0]
    assert "date" not in tags  # the book has no date, and none is invented
    cover = tmp_path / "other cover.jpg"
    subprocess.run(
        [
            ffmpeg(),
            "-loglevel",
            "error",
            "-f",
            "lavfi",
            "-i",
            "color=c=blue:s=16x16",
            "-frames:v",
            "1",
            str(cover),
        ],
        check=True,
    )
    package_m4b(master, catalog, book_json, m4b, PAUSES, PackageSettings(cover=str(cover)))
    assert "mjpeg" in probe(m4b) and "(attached pic)" in probe(m4b)


def top_level_boxes(path: Path) -> list[str]:
    """The types of an MP4 file's top-level boxes, in order."""
    data, position, boxes = path.read_bytes(), 0, []
    while position + 8 <= len(data):
        size = int.from_bytes(data[position : position + 4], "big")
        if size == 1:  # a 64-bit size follows the type
            size = int.from_bytes(data[position + 8 : position + 16], "big")
        boxes.append(data[position + 4 : position + 8].decode("latin-1"))
        position += size if size else len(data)
    return boxes


def test_faststart_puts_the_index_first(assembled) -> None:
    catalog, book_json, master = assembled
    m4b = master.with_suffix(".m4b")
    for faststart in (False, True):
        package_m4b(master, catalog, book_json, m4b, PAUSES, PackageSettings(faststart=faststart))
        boxes = top_level_boxes(m4b)
        assert (boxes.index("moov") < boxes.index("mdat")) == faststart
    assert len(parse_ffmetadata(read_back(ffmpeg(), m4b))[1]) == 3


@pytest.mark.parametrize(("kind", "frame"), [("opus", 960), ("mp3", 1152)])
def test_chapter_files_are_cut_at_the_timeline_and_tagged(assembled, kind: str, frame: int) -> None:
    catalog, book_json, master = assembled
    out = master.parent / "chapters"
    (out / "stale.txt").parent.mkdir()
    (out / "stale.txt").write_text("an older run")
    package_chapters(
        master, catalog, book_json, out, PAUSES, PackageSettings(chapter_format=kind, year="2000")
    )
    timeline = build_timeline(read_catalog(catalog), PAUSES)
    names = chapter_filenames([c.title for c in timeline.chapters], kind)
    assert sorted(p.name for p in out.iterdir()) == sorted(names)
    rate = 48000 if kind == "opus" else RATE
    master_pcm = sf.read(master, dtype="float64")[0]
    for chapter, name in zip(timeline.chapters, names, strict=True):
        path = out / name
        tags = stream_tags(path) if kind == "opus" else parse_ffmetadata(read_back(ffmpeg(), path))[0]
        assert tags["title"] == chapter.title
        assert tags["album"] == BOOK_TITLE and tags["artist"] == ", ".join(AUTHORS)
        if kind == "mp3":
            assert tags["track"] == f"{chapter.number}/3"
        else:
            assert (tags["track"], tags["TRACKTOTAL"]) == (str(chapter.number), "3")
        decoded = decode(path, rate)
        expected = (chapter.end - chapter.start) * rate / RATE
        assert abs(len(decoded) - expected) <= frame
        if kind == "mp3":  # same rate: the cut itself can be checked against the master
            offset = chapter.speech - chapter.start + 2000  # inside the first segment's sound
            piece = master_pcm[chapter.start + offset : chapter.start + offset + 3000]
            # Lags within a third of a pitch period, so the periodic test voice cannot alias.
            window = decoded[offset - 40 : offset + 3040]
            lag = int(np.argmax(np.correlate(window, piece, mode="valid"))) - 40
            assert abs(lag) <= 2
    assert not [p for p in master.parent.iterdir() if ".tmp-" in p.name]


def test_subtitles_are_timed_from_the_catalog(assembled) -> None:
    catalog, _, master = assembled
    rows = read_catalog(catalog)
    timeline = build_timeline(rows, PAUSES)
    for kind, separator in (("srt", ","), ("vtt", ".")):
        out = master.with_suffix(f".{kind}")
        write_subtitles(catalog, master, out, PAUSES, kind)
        text = out.read_text(encoding="utf-8")
        if kind == "vtt":
            assert text.startswith("WEBVTT\n\n")
            text = text[len("WEBVTT\n\n") :]
        cues = text.rstrip("\n").split("\n\n")
        assert len(cues) == len(rows)
        for number, (cue, row, span) in enumerate(zip(cues, rows, timeline.spans, strict=True), start=1):
            index, timing, *body = cue.split("\n")
            assert index == str(number)
            start_ms = round(span.start * 1000 / RATE)
            end_ms = round(span.end * 1000 / RATE)
            expected = f"{timestamp(span.start, RATE, separator)} --> {timestamp(span.end, RATE, separator)}"
            assert timing == expected
            h, m, s, ms = map(int, re.split(r"[:,.]", timing.split(" --> ")[0]))
            assert ((h * 60 + m) * 60 + s) * 1000 + ms == start_ms
            h, m, s, ms = map(int, re.split(r"[:,.]", timing.split(" --> ")[1]))
            assert ((h * 60 + m) * 60 + s) * 1000 + ms == end_ms
            raw = "\n".join(line.strip() for line in row.text.split("\n") if line.strip())
            if kind == "vtt":
                raw = raw.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            assert "\n".join(body) == raw
    assert "&lt;b&gt;Tom&lt;/b&gt; &amp; Jerry" in master.with_suffix(".vtt").read_text()
    assert "--&gt;" in master.with_suffix(".vtt").read_text()


def test_packaging_refuses_a_master_that_does_not_match_the_timeline(assembled) -> None:
    catalog, book_json, master = assembled
    from narrator.core.errors import CatalogError

    with pytest.raises(CatalogError, match="assemble the book again"):
        package_m4b(
            master,
            catalog,
            book_json,
            master.with_suffix(".m4b"),
            {**PAUSES, "trail": 3.0},
            PackageSettings(),
        )
    assert not master.with_suffix(".m4b").exists()


# --- end to end ---------------------------------------------------------------------------------

BOOK = """# The "Quoted" = Book; #1

## First: "Quotes" = signs; #hash

The lamp was lit at six. Nobody saw it.

## Zweites Kapitel — Über die Brücke

The fog came in. It stayed all night.

## Third; and last = end

Morning came.
"""


def configure(work: Workdir, **changes) -> dict:
    path = work.path / "config.yaml"
    config = yaml.safe_load(path.read_text())
    for key, value in changes.items():
        if isinstance(value, dict):
            config[key].update(value)
        else:
            config[key] = value
    path.write_text(yaml.safe_dump(config, allow_unicode=True))
    return config


def check_workflow_outputs(work: Workdir, config: dict) -> None:
    """Every configured output is complete and agrees with the catalog and the config."""
    results = work.results("book")
    rows = read_catalog(results / "catalog.tsv")
    timeline = build_timeline(rows, config["pauses"])
    master = sf.read(results / "book.wav", dtype="float64")[0]
    assert len(master) == timeline.frames
    report = json.loads((results / "loudness.json").read_text())
    target = config["loudness"]["target"]
    assert report["target_lufs"] == target
    # The configs below pick targets that espeak's peaks allow, so the limiter has nothing to do.
    assert report["limiter"]["limited_share"] == 0, report
    assert abs(pyloudnorm.Meter(RATE).integrated_loudness(master) - target) < 0.5
    assert report["after"]["true_peak_dbtp"] <= config["loudness"]["true_peak"] + 0.05
    titles = [row.chapter_title for row in rows]
    assert any('"' in t for t in titles) and any("=" in t and ";" in t and "#" in t for t in titles)
    book = json.loads((results / "book.json").read_text())
    if "m4b" in config["outputs"]:
        samples = check_m4b(
            results / "book.m4b",
            rows,
            timeline,
            title=book["title"],
            authors=book["authors"],
            year=str(config["year"]),
            cover=bool(config["cover"]),
            lang="eng",
        )
        assert abs(pyloudnorm.Meter(RATE).integrated_loudness(samples) - target) < 0.5
    for kind in ("srt", "vtt"):
        if kind in config["outputs"]:
            cues = (
                (results / f"book.{kind}").read_text().removeprefix("WEBVTT\n\n").rstrip("\n").split("\n\n")
            )
            separator = "," if kind == "srt" else "."
            assert [c.split("\n")[1] for c in cues] == [
                f"{timestamp(s.start, RATE, separator)} --> {timestamp(s.end, RATE, separator)}"
                for s in timeline.spans
            ]
    if "chapters" in config["outputs"]:
        extension = config["encode"]["chapter_format"]
        names = chapter_filenames([c.title for c in timeline.chapters], extension)
        # Snakemake keeps a hidden .snakemake_timestamp in a directory output.
        assert sorted(
            p.name for p in (results / "chapters").iterdir() if not p.name.startswith(".")
        ) == sorted(names)
        for name in names:
            assert len(decode(results / "chapters" / name)) > 0
    assert not [p.name for p in results.iterdir() if ".tmp-" in p.name]


@pytest.fixture(scope="module")
def packaged(tmp_path_factory: pytest.TempPathFactory):
    """A small book with hostile chapter titles, rendered once with every output."""
    work = Workdir(tmp_path_factory.mktemp("package") / "work")
    (work.path / "book.md").write_text(BOOK, encoding="utf-8")
    (work.path / "cover.png").write_bytes(png())
    config = configure(
        work,
        book="book.md",
        engine="espeak",
        outputs=["m4b", "chapters", "srt", "vtt"],
        cover="cover.png",
        year=2001,
        # espeak peaks about 21 dB above its loudness: -18 LUFS would be capped by the -1.5 dBTP ceiling.
        loudness={"target": -24.0},
    )
    work.run_book()
    return work, config


@pytest.mark.slow
def test_workflow_makes_every_output_from_the_catalog(packaged) -> None:
    work, config = packaged
    check_workflow_outputs(work, config)
    rows = read_catalog(work.results("book") / "catalog.tsv")
    assert sorted(work.rendered_jobs()) == sorted(row.segment_id for row in rows)
    for rule in ("assemble_book", "package_m4b", "package_chapters", "package_subtitles"):
        assert list((work.path / "logs" / rule).glob("*.log")), rule


@pytest.mark.slow
def test_changing_pauses_loudness_and_outputs_reassembles_without_rendering(packaged) -> None:
    work, config = packaged
    rendered = len(work.rendered_jobs())
    before = sf.info(str(work.results("book") / "book.wav")).frames
    config = configure(
        work,
        pauses={"lead": 1.25, "sentence": 0.7, "chapter": 3.0},
        loudness={"target": -26.0},
        outputs=["m4b", "vtt"],
        encode={"m4b_bitrate": "48k"},
    )
    result = work.run_book()
    assert len(work.rendered_jobs()) == rendered, "a render job ran"
    assert "plan_catalog" not in result.stderr
    assert sf.info(str(work.results("book") / "book.wav")).frames != before
    check_workflow_outputs(work, config)
    dry = work.snakemake("-n")
    assert "Nothing to be done" in dry.stdout + dry.stderr


SLOW_FFMPEG = """#!{python}
# Test stand-in for ffmpeg: the first call writes half a file where ffmpeg would write its output
# and hangs (to be killed mid-packaging); later calls run the real ffmpeg.
import os, sys, time
marker = {marker!r}
if not os.path.exists(marker):
    open(marker, "w").close()
    with open(sys.argv[-1], "wb") as handle:
        handle.write(b"\\x00\\x00\\x00\\x18ftypM4B partial output")
    time.sleep(120)
os.execv({real!r}, [{real!r}, *sys.argv[1:]])
"""


def _kill_when(process: subprocess.Popen, ready, deadline: float = 60.0) -> bool:
    start = time.monotonic()
    while process.poll() is None and time.monotonic() - start < deadline:
        if ready():
            break
        time.sleep(0.001)
    hit = process.poll() is None
    kill_group(process)
    return hit


@pytest.mark.slow
def test_sigkill_during_assembly_or_packaging_then_restart(packaged) -> None:
    work, config = packaged
    results = work.results("book")
    rendered = len(work.rendered_jobs())

    # 1. Kill as soon as assembly starts writing (a long trailing pad keeps it busy for a while).
    config = configure(
        work, loudness={"target": -25.0}, outputs=["m4b", "srt", "chapters"], pauses={"trail": 30.0}
    )
    process = work.start_book()
    assert _kill_when(process, lambda: any(".tmp-" in p.name for p in results.iterdir()))
    work.snakemake("--unlock")
    work.run_book()
    check_workflow_outputs(work, config)

    # 2. Kill mid-packaging, while a partial output sits under its temp name.
    marker = work.path / "ffmpeg-called"
    wrapper = work.path / "slow-ffmpeg"
    wrapper.write_text(SLOW_FFMPEG.format(python=sys.executable, marker=str(marker), real=ffmpeg()))
    wrapper.chmod(0o755)
    config = configure(work, loudness={"target": -27.0}, ffmpeg=str(wrapper))
    process = work.start_book()
    assert _kill_when(process, lambda: marker.exists() and any(".tmp-" in p.name for p in results.iterdir()))
    assert [p for p in results.iterdir() if ".tmp-" in p.name], "no partial output at the kill"
    work.snakemake("--unlock")
    work.run_book()  # the same command and config as the killed run
    check_workflow_outputs(work, config)
    assert len(work.rendered_jobs()) == rendered, "a render job ran"
