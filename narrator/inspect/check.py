"""`narrator check`: measure a book's outputs against their rules, as a table of PASS and FAIL rows.

Every file is measured as a listener's player would get it: MP3, M4B and chapter files are decoded
by ffmpeg and streamed through in blocks, so a ten-hour book needs no more memory than a short one.
The rules:

* ``acx/*.mp3``: ACX's format (through mutagen: 44.1 kHz, mono, 192 kbps CBR) and audio rules
  (RMS, peak, noise floor, head and tail room tone; the limits are narrator.package.acx's);
* the master WAV: integrated loudness within LOUDNESS_TOLERANCE_LU of loudness.json's target, true
  peak at or under its ceiling (the figures assembly measured, where the samples still hash to the
  checksum it recorded beside them; measured here otherwise);
* the M4B: decodable, as long as the master within DURATION_TOLERANCE_S; chapter files: decodable,
  together as long as the master.
* the read-along EPUB: EPUBCheck's verdict where it is installed (no message at all), and its
  overlays against the catalog and the audio (``check_epub``).

Nothing is written: ``check_book`` returns the rows, ``format_results`` lays them out, and the
report can show the same table.
"""

from __future__ import annotations

import hashlib
import math
import os
import subprocess
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, cast

import numpy as np
import soundfile as sf
from mutagen import MutagenError
from mutagen.mp3 import MP3, BitrateMode

from narrator.assemble.assemble import LOUDNESS_JSON, read_loudness_report
from narrator.assemble.loudness import LoudnessMeter, to_dbfs
from narrator.core.audio import master_blocks, pcm_bytes
from narrator.core.catalog import Row, read_catalog
from narrator.core.errors import CatalogError, UserError
from narrator.inspect.overlays import Publication, read_publication, run_epubcheck
from narrator.package import acx
from narrator.package.epub import span_id
from narrator.package.ffmpeg import FfmpegError, find_ffmpeg
from narrator.package.source_text import word_key

LOUDNESS_TOLERANCE_LU = 0.5
DURATION_TOLERANCE_S = 0.1
#: Bytes of decoded 32-bit float samples read at a time.
_DECODE_CHUNK = 1 << 20
#: The noise floor's 500 ms window slides in steps of this many seconds.
_NOISE_STEP_S = 0.05


@dataclass(frozen=True)
class CheckResult:
    """One rule measured on one file (``file`` relative to the book's folder)."""

    file: str
    rule: str
    measured: str
    limit: str
    passed: bool


def _within(file: str, rule: str, value: float, low: float, high: float, unit: str) -> CheckResult:
    """A rule ``low <= value <= high``, judged on the value as printed (two decimals)."""
    shown = round(value, 2) if math.isfinite(value) else value
    limit = f"{round(low, 2):g} to {round(high, 2):g} {unit}"
    return CheckResult(file, rule, f"{value:.2f} {unit}", limit, low <= shown <= high)


def _at_most(file: str, rule: str, value: float, high: float, unit: str) -> CheckResult:
    shown = round(value, 2) if math.isfinite(value) else value
    return CheckResult(file, rule, f"{value:.2f} {unit}", f"<= {high:g} {unit}", shown <= high)


def _equal(file: str, rule: str, value: object, expected: object) -> CheckResult:
    return CheckResult(file, rule, str(value), str(expected), value == expected)


def decoded_blocks(ffmpeg: str, path: Path, rate: int) -> Iterator[np.ndarray]:
    """The file's first audio stream as mono float samples at ``rate``, a block at a time."""
    command = [ffmpeg, "-hide_banner", "-nostats", "-loglevel", "error", "-i", os.fspath(path)]
    command += ["-map", "0:a:0", "-ac", "1", "-ar", str(rate), "-f", "f32le", "-"]
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log)
        assert process.stdout is not None
        try:
            while chunk := process.stdout.read(_DECODE_CHUNK):
                yield np.frombuffer(chunk, dtype="<f4").astype(np.float64)
        finally:
            process.stdout.close()
            if process.poll() is None:
                process.kill()  # the caller stopped reading: the rest of the file is not needed
            code = process.wait()
        if code != 0:
            log.seek(0)
            message = " | ".join(log.read().decode("utf-8", errors="replace").split("\n")[-5:]).strip(" |")
            raise FfmpegError(f"ffmpeg could not decode {path}: {message or f'exit {code}'}")


def decoded_seconds(ffmpeg: str, path: Path, rate: int) -> float:
    return sum(len(block) for block in decoded_blocks(ffmpeg, path, rate)) / rate


# --- ACX ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AcxAudio:
    """What ACX measures of a decoded file (levels in dB, times in seconds)."""

    rms_db: float
    peak_db: float
    noise_floor_db: float
    head_s: float
    tail_s: float


def measure_acx(blocks: Iterator[np.ndarray], rate: int) -> AcxAudio:
    """RMS and peak of the whole file, the quietest 500 ms window's RMS, and the room tone before
    the first and after the last sample above the speech threshold, in one pass."""
    threshold = acx.db_to_amplitude(acx.SPEECH_THRESHOLD_DBFS)
    step = max(1, round(_NOISE_STEP_S * rate))
    steps_per_window = max(1, round(acx.NOISE_WINDOW_S / _NOISE_STEP_S))
    step_energies: list[np.ndarray] = []  # one float per 50 ms: 5.8 MB for ten hours
    carry = np.zeros(0)
    energy, peak, count = 0.0, 0.0, 0
    first_loud: int | None = None
    last_loud = -1
    for block in blocks:
        if len(block) == 0:
            continue
        energy += float(np.dot(block, block))
        peak = max(peak, float(np.max(np.abs(block))))
        loud = np.flatnonzero(np.abs(block) > threshold)
        if len(loud):
            first_loud = count + int(loud[0]) if first_loud is None else first_loud
            last_loud = count + int(loud[-1])
        count += len(block)
        samples = np.concatenate([carry, block])
        whole = len(samples) // step * step
        step_energies.append(np.sum(samples[:whole].reshape(-1, step) ** 2, axis=1))
        carry = samples[whole:]
    if count == 0:
        raise FfmpegError("no audio")
    steps = np.concatenate(step_energies)
    if len(steps) >= steps_per_window:
        windows = np.convolve(steps, np.ones(steps_per_window), mode="valid") / (steps_per_window * step)
        floor = float(np.min(windows))
    else:  # shorter than one window: the whole file is its quietest stretch
        floor = energy / count
    return AcxAudio(
        rms_db=to_dbfs(math.sqrt(energy / count)),
        peak_db=to_dbfs(peak),
        noise_floor_db=to_dbfs(math.sqrt(floor)),
        head_s=(count if first_loud is None else first_loud) / rate,
        tail_s=(count - 1 - last_loud) / rate,
    )


def _mode_name(mode: int) -> str:
    """A BitrateMode's name; mutagen's modes are int constants (an int subclass), not an Enum."""
    return str(mode).removeprefix("BitrateMode.")


class _Mp3Stream(Protocol):
    """What ``MP3(path).info`` (an MPEGInfo) holds, as mutagen documents it.

    mutagen declares ``FileType.info = None`` and copies most of these onto the MPEGInfo through
    ``__dict__``, so its own types do not know them.
    """

    sample_rate: int
    channels: int
    bitrate: int
    #: A BitrateMode: an int subclass.
    bitrate_mode: int


def _mp3_stream(path: Path) -> _Mp3Stream:
    """The MP3's stream info; raises MutagenError for a file mutagen cannot read."""
    return cast(_Mp3Stream, MP3(path).info)


def check_acx_file(ffmpeg: str, path: Path, name: str) -> list[CheckResult]:
    try:
        info = _mp3_stream(path)
    except MutagenError as error:
        return [CheckResult(name, "MP3 format", f"unreadable: {error}", "an MP3", False)]
    results = [
        _equal(name, "sample rate (Hz)", info.sample_rate, acx.SAMPLE_RATE),
        _equal(name, "channels", info.channels, acx.CHANNELS),
        _equal(name, "bitrate (kbps)", round(info.bitrate / 1000), acx.BITRATE_KBPS),
        _equal(name, "bitrate mode", _mode_name(info.bitrate_mode), _mode_name(BitrateMode.CBR)),
    ]
    try:
        audio = measure_acx(decoded_blocks(ffmpeg, path, info.sample_rate), info.sample_rate)
    except FfmpegError as error:
        return [*results, CheckResult(name, "decodable", str(error), "decodes", False)]
    return [
        *results,
        _within(name, "RMS", audio.rms_db, acx.RMS_MIN, acx.RMS_MAX, "dB"),
        _at_most(name, "peak", audio.peak_db, acx.PEAK_MAX, "dBFS"),
        _at_most(name, "noise floor", audio.noise_floor_db, acx.NOISE_FLOOR_MAX, "dB"),
        _within(name, "head room tone", audio.head_s, acx.HEAD_MIN, acx.HEAD_MAX, "s"),
        _within(name, "tail room tone", audio.tail_s, acx.TAIL_MIN, acx.TAIL_MAX, "s"),
    ]


# --- master, M4B, chapter files -----------------------------------------------------------------


def pcm_sha256(master: Path) -> str:
    """SHA-256 of the master's samples as 16-bit little-endian PCM (what assembly records)."""
    digest = hashlib.sha256()
    for block in master_blocks(master, 0, sf.info(str(master)).frames):
        digest.update(pcm_bytes(block))
    return digest.hexdigest()


def _recorded_figure(value: float | None) -> float:
    return -math.inf if value is None else float(value)


def check_master(master: Path, loudness_json: Path) -> list[CheckResult]:
    """The master's loudness and true peak against loudness.json's target and ceiling.

    Assembly measured the samples it wrote and recorded their checksum; a master whose samples still
    hash to it has those figures (hashing a 58-minute master takes 0.3 s, measuring it 5 s). Any
    other master is measured here.
    """
    name = master.name
    if not loudness_json.is_file():
        return [CheckResult(loudness_json.name, "present", "missing", "beside the master", False)]
    try:
        report = read_loudness_report(loudness_json)
    except CatalogError as error:
        return [CheckResult(loudness_json.name, "readable", str(error), "as assembly wrote it", False)]
    target, ceiling = float(report["target_lufs"]), float(report["true_peak_ceiling_dbtp"])
    if report.get("pcm_sha256") and report["pcm_sha256"] == pcm_sha256(master):
        integrated = _recorded_figure(report["after"]["integrated_lufs"])
        true_peak = _recorded_figure(report["after"]["true_peak_dbtp"])
    else:
        info = sf.info(str(master))
        meter = LoudnessMeter(info.samplerate)
        for block in master_blocks(master, 0, info.frames, "float64"):
            meter.add(block)
        integrated, true_peak = meter.integrated(), meter.true_peak_dbtp()
    low, high = target - LOUDNESS_TOLERANCE_LU, target + LOUDNESS_TOLERANCE_LU
    return [
        _within(name, "integrated loudness", integrated, low, high, "LUFS"),
        _at_most(name, "true peak", true_peak, ceiling, "dBTP"),
    ]


def _check_duration(
    ffmpeg: str, path: Path, name: str, rate: int, expected: float | None
) -> tuple[float | None, CheckResult]:
    """Decode the whole file; its length against ``expected`` seconds (None: any length over 0)."""
    try:
        seconds = decoded_seconds(ffmpeg, path, rate)
    except FfmpegError as error:
        return None, CheckResult(name, "decodable", str(error), "decodes", False)
    if expected is None:
        return seconds, CheckResult(name, "decodable", f"{seconds:.2f} s", "> 0 s", seconds > 0)
    low, high = expected - DURATION_TOLERANCE_S, expected + DURATION_TOLERANCE_S
    return seconds, _within(name, "duration", seconds, low, high, "s")


def check_book(folder: str | Path) -> list[CheckResult]:
    """Measure every output present in results/<book_id>/ against its rules; writes nothing."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(f"{folder}: no such results folder")
    ffmpeg = find_ffmpeg()
    master = folder / f"{folder.name}.wav"
    results: list[CheckResult] = []
    master_seconds: float | None = None
    rate = 0
    if master.is_file():
        info = sf.info(str(master))
        rate, master_seconds = info.samplerate, info.frames / info.samplerate
        results += check_master(master, folder / LOUDNESS_JSON)
    m4b = folder / f"{folder.name}.m4b"
    if m4b.is_file() and master_seconds is not None:
        results.append(_check_duration(ffmpeg, m4b, m4b.name, rate, master_seconds)[1])
    chapter_files = _audio_files(folder / "chapters")
    if chapter_files and master_seconds is not None:
        total = 0.0
        for path in chapter_files:
            seconds, result = _check_duration(ffmpeg, path, f"chapters/{path.name}", rate, None)
            results.append(result)
            total += seconds or 0.0
        low, high = master_seconds - DURATION_TOLERANCE_S, master_seconds + DURATION_TOLERANCE_S
        results.append(_within("chapters/", "total duration", total, low, high, "s"))
    for path in _audio_files(folder / "acx"):
        results += check_acx_file(ffmpeg, path, f"acx/{path.name}")
    epub = folder / f"{folder.name}.epub"
    if epub.is_file() and master_seconds is not None:
        rows = read_catalog(folder / "catalog.tsv")
        results += check_epub(ffmpeg, epub, rows, round(master_seconds * rate), rate)
    if not results:
        raise UserError(f"{folder}: no master WAV and no ACX files to check; run snakemake first")
    return results


# --- the read-along EPUB ----------------------------------------------------------------------


def check_epub(
    ffmpeg: str, path: Path, rows: Sequence[Row], master_frames: int, rate: int
) -> list[CheckResult]:
    """EPUBCheck's verdict (where it is installed), and the overlays against the catalog: one clip
    per segment in reading order, its target there and holding that segment's words; each clip its
    segment's samples, from the first to the last, none overlapping the next; the gaps between them
    the pauses; each chapter's audio decoding to its duration, and the chapters adding up to the master.
    """
    name = path.name
    results = []
    verdict = run_epubcheck(path)
    if verdict is not None:
        results.append(CheckResult(name, "EPUBCheck", str(verdict), "no message", verdict.clean))
    publication = read_publication(path)
    clips = [clip for overlay in publication.overlays for clip in overlay.clips]
    targets = [clip.target for clip in clips]
    results.append(_equal(name, "a clip per segment, in order", len(targets), len(rows)))
    if targets != [span_id(row) for row in rows]:
        results[-1] = CheckResult(
            name, "a clip per segment, in order", "out of order", "reading order", False
        )
    pairs = list(zip(clips, rows, strict=False))
    missing = sum(clip.words is None for clip in clips)
    results.append(_equal(name, "clip targets exist", f"{missing} missing", "0 missing"))
    # By letters and digits: a source EPUB's own text may quote and space the words otherwise.
    wrong_words = sum(
        clip.words is not None and word_key(clip.words) != word_key(row.text) for clip, row in pairs
    )
    results.append(_equal(name, "clip texts hold their words", f"{wrong_words} wrong", "0 wrong"))
    results += _clip_timing(name, publication, rows, rate)
    with tempfile.TemporaryDirectory() as work, zipfile.ZipFile(path) as archive:
        for overlay in publication.overlays:
            audio = Path(archive.extract(overlay.audio, work))
            try:
                frames = round(decoded_seconds(ffmpeg, audio, rate) * rate)
            except FfmpegError as error:
                results.append(CheckResult(overlay.audio, "decodable", str(error), "decodes", False))
                continue
            results.append(_equal(overlay.audio, "samples", frames, round(overlay.duration * rate)))
    total = sum(overlay.duration for overlay in publication.overlays)
    results.append(_equal(name, "overlays' samples", round(total * rate), master_frames))
    results.append(_equal(name, "total samples", round(publication.duration * rate), master_frames))
    return results


def _clip_timing(name: str, publication: Publication, rows: Sequence[Row], rate: int) -> list[CheckResult]:
    """Each clip is its segment's samples and the gaps are the pauses, read from the overlays alone.

    The check does not know the configured pauses, so it holds the clips to what the timeline
    implies: a clip as long as its segment's recorded frames, ordered with no overlap; every gap
    after a segment of one pause kind (to the next clip, or to its chapter's end) one same length;
    every chapter's first clip on its audio's first sample but the book's first (the lead pad).
    Clock values are written to the microsecond, which gives each sample back by rounding.
    """
    wrong_length = overlapping = 0
    gaps: dict[str, set[int]] = {}
    late_starts = 0
    row_index = 0
    for number, overlay in enumerate(publication.overlays):
        spans = [(round(clip.begin * rate), round(clip.end * rate)) for clip in overlay.clips]
        chapter_rows = rows[row_index : row_index + len(spans)]
        row_index += len(spans)
        if spans and number > 0 and spans[0][0] != 0:
            late_starts += 1
        ends = [*(begin for begin, _ in spans[1:]), round(overlay.duration * rate)]
        last_of_book = row_index >= len(rows)
        for (begin, end), next_begin, row in zip(spans, ends, chapter_rows, strict=False):
            wrong_length += end - begin != (row.frames or 0)
            overlapping += begin < 0 or next_begin < end
            if not (last_of_book and row is chapter_rows[-1]):  # the book's end holds the trail pad too
                gaps.setdefault(row.pause_after, set()).add(next_begin - end)
    uneven = sorted(kind for kind, lengths in gaps.items() if len(lengths) > 1)
    return [
        _equal(name, "clips are their segments' samples", f"{wrong_length} not", "0 not"),
        _equal(name, "clips in order, none overlapping", f"{overlapping} overlap", "0 overlap"),
        _equal(name, "gaps are the pauses", ", ".join(uneven) or "one length a kind", "one length a kind"),
        _equal(name, "chapters' first clips on their start", f"{late_starts} late", "0 late"),
    ]


def _audio_files(folder: Path) -> list[Path]:
    """The files of an output folder, without Snakemake's hidden timestamp or temps."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


def format_results(results: list[CheckResult]) -> str:
    """A plain-text table, one row per rule, and a last line counting the failures."""
    header = ("file", "rule", "measured", "limit", "result")
    rows = [(r.file, r.rule, r.measured, r.limit, "PASS" if r.passed else "FAIL") for r in results]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    failed = sum(not r.passed for r in results)
    lines.append(f"{len(results)} rules, {failed} failed" if failed else f"{len(results)} rules, all passed")
    return "\n".join(lines)
