"""Assemble the book WAV (the lossless master) from verified segments only, streaming one at a time.

Two passes over the segments: the first verifies every segment and measures the loudness of the
book as it will be laid out, and what a true-peak limiter would take from it at any gain; the second
writes it with the one book-level gain that lands the limited book on the target, through that
limiter. Only a few segments are in memory at a time in either pass.

In each pass the loudness meter runs on a thread of its own, a few pieces behind the thread that
decodes, forecasts or limits: both spend their time in scipy's filters and numpy, which release the
GIL, so a second core halves the pass (a 58-minute master: 20.0 s on one thread, 10.2 s on two,
on 2 cores). Each sees the same pieces in the same order as one thread
would, so the master is the same to the bit.
"""

from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import resource
import shutil
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
import soundfile as sf

from narrator.assemble.loudness import (
    BookGain,
    LimiterForecast,
    LoudnessMeter,
    LoudnessTarget,
    TruePeakLimiter,
    book_gain,
)
from narrator.core import interrupt
from narrator.core.audio import SUBTYPE, AudioCheckError, decode_verified, pcm_bytes
from narrator.core.catalog import Row, read_planned, wav_file
from narrator.core.errors import CatalogError, first_line
from narrator.core.lock import holding
from narrator.core.publish import publishing, replace_durably
from narrator.core.timeline import Timeline, book_rate, build_timeline

#: A plain RIFF WAV holds at most 4 GiB; a longer master is written as RF64 (EBU Tech 3306),
#: which libsndfile and ffmpeg read like any WAV.
RIFF_LIMIT = 0xFFFFFFFF - 4096
#: Silence is written and measured in pieces of this many samples, so a long pause costs no memory.
_SILENCE_CHUNK = 1 << 16
_FULL_SCALE = 32768.0
#: Bytes besides the samples that a master's headers and a little slack need.
_HEADER_ROOM = 1 << 16
#: Pieces the meter's thread may fall behind: enough to ride out a long segment, few enough that
#: memory stays a few segments' worth.
_METER_LAG = 8


def verified_pcm(catalog_path: Path, row: Row) -> np.ndarray:
    """The segment's samples, if its row is completed and its WAV is exactly what the row recorded."""
    promised = row.record
    if promised is None:
        raise AudioCheckError("is not rendered yet (queued)")
    try:
        data = wav_file(catalog_path, row).read_bytes()
    except FileNotFoundError:
        raise AudioCheckError("WAV is missing") from None
    found, pcm = decode_verified(data, segment_id=row.segment_id, text_chars=len(row.spoken))
    if found != promised:
        raise AudioCheckError("WAV differs from what the catalog recorded")
    return pcm


def _check_space(book_path: Path, frames: int) -> None:
    """Refuse before writing a master the disk cannot hold, rather than fail at the end of it."""
    needed = frames * 2 + _HEADER_ROOM
    free = shutil.disk_usage(book_path.parent).free
    if free < needed:
        raise OSError(
            errno.ENOSPC,
            f"{os.strerror(errno.ENOSPC)} (the master needs {needed / 1e6:.1f} MB,"
            f" {free / 1e6:.1f} MB are free)",
            str(book_path),
        )


#: The largest file FAT32 (and exFAT's FAT32-formatted cousins on cameras, old USB sticks) holds.
FAT32_LIMIT = (1 << 32) - 1


def _write_error(temp: Path, error: sf.LibsndfileError) -> OSError:
    """libsndfile reports a failed write as "System error" without the errno: name the likely cause
    (a full disk, a file size limit, else a failing disk)."""
    if shutil.disk_usage(temp.parent).free < _HEADER_ROOM:
        code = errno.ENOSPC
    elif _at_size_limit(temp):
        code = errno.EFBIG
    else:
        code = errno.EIO
    return OSError(code, f"{os.strerror(code)} (libsndfile: {error.error_string})", str(temp))


def _at_size_limit(path: Path) -> bool:
    """Whether a write failed because ``path`` reached this process's file size limit (ulimit -f)
    or FAT32's 4 GiB."""
    try:
        size = path.stat().st_size
    except OSError:
        return False
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    near = _HEADER_ROOM
    return (soft != resource.RLIM_INFINITY and size + near >= soft) or size + near >= FAT32_LIMIT


def wav_format(frames: int) -> str:
    """WAV for a master that fits in a RIFF file, RF64 beyond 4 GiB of 16-bit samples."""
    return "WAV" if frames * 2 <= RIFF_LIMIT else "RF64"


def _silence(frames: int) -> Iterator[np.ndarray]:
    while frames > 0:
        piece = min(frames, _SILENCE_CHUNK)
        yield np.zeros(piece, dtype=np.int16)
        frames -= piece


def _not_ready(problems: list[str], catalog_path: Path) -> CatalogError:
    shown = "; ".join(problems[:10]) + (f"; and {len(problems) - 10} more" if len(problems) > 10 else "")
    return CatalogError(
        f"{len(problems)} segment(s) not ready: {shown}. "
        f"Run `narrator verify {catalog_path}`, then snakemake again to re-render them."
    )


def _checked(catalog_path: Path, row: Row, rate: int) -> np.ndarray:
    pcm = verified_pcm(catalog_path, row)
    if row.sample_rate != rate:
        raise AudioCheckError(f"has sample rate {row.sample_rate} Hz, the book {rate} Hz")
    return pcm


def _to_float(pcm: np.ndarray) -> np.ndarray:
    return pcm.astype(np.float64) / _FULL_SCALE


def _to_pcm(samples: np.ndarray) -> np.ndarray:
    return np.clip(np.round(samples * _FULL_SCALE), -32768, 32767).astype(np.int16)


def _layout(
    rows: list[Row], timeline: Timeline, pcm_of: Callable[[Row], np.ndarray | None]
) -> Iterator[np.ndarray]:
    """The book's samples in order, piece by piece: lead pad, each segment and its pause, trail pad."""
    yield from _silence(timeline.lead)
    for row, span in zip(rows, timeline.spans, strict=True):
        interrupt.check()  # a long book assembles for minutes: Ctrl-C must not wait for the end
        pcm = pcm_of(row)
        if pcm is not None:
            if len(pcm) != span.end - span.start:  # verified against the same recorded frames
                raise RuntimeError(f"segment {row.segment_id}: length differs from its recorded frames")
            yield pcm
        yield from _silence(span.pause)
    yield from _silence(timeline.trail)


class _InOrder:
    """Calls ``consume`` on every submitted item, in order, on a thread of its own, at most
    ``_METER_LAG`` items behind the caller; its errors surface in the caller, at the latest on
    leaving the ``with`` block."""

    def __init__(self, consume: Callable[[np.ndarray], None]) -> None:
        self._consume = consume
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="loudness")
        self._pending: deque[Future[None]] = deque()

    def __enter__(self) -> _InOrder:
        return self

    def submit(self, item: np.ndarray) -> None:
        self._pending.append(self._executor.submit(self._consume, item))
        if len(self._pending) > _METER_LAG:
            self._pending.popleft().result()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        try:
            while kind is None and self._pending:
                self._pending.popleft().result()
        finally:
            self._executor.shutdown(wait=True, cancel_futures=True)


def _discard(_: np.ndarray) -> None:
    """No loudness target: nothing to measure."""


def _measure_pcm(meter: LoudnessMeter, digest: Any, pcm: np.ndarray) -> None:
    meter.add(_to_float(pcm))
    digest.update(pcm_bytes(pcm))


def _write_measured(book: sf.SoundFile, meter: _InOrder, samples: np.ndarray) -> None:
    out = _to_pcm(samples)
    book.write(out)
    meter.submit(out)


def _figures(meter: LoudnessMeter) -> dict[str, float | None]:
    def finite(value: float) -> float | None:
        return round(value, 2) if math.isfinite(value) else None

    return {"integrated_lufs": finite(meter.integrated()), "true_peak_dbtp": finite(meter.true_peak_dbtp())}


def _loudness_report(
    target: LoudnessTarget,
    before: LoudnessMeter,
    after: LoudnessMeter,
    gain: BookGain,
    limiter: TruePeakLimiter,
    frames: int,
    pcm_sha256: str,
) -> dict[str, Any]:
    settings = limiter.settings
    return {
        "standard": "ITU-R BS.1770-4 integrated loudness (EBU R128 gating); true peak by 4x oversampling",
        "target_lufs": target.target,
        "true_peak_ceiling_dbtp": target.true_peak,
        "before": _figures(before),
        "gain_db": round(gain.gain_db, 3),
        # The plain gain to the target, and what was added to make up for the limiter's loss.
        "gain_to_target_db": round(gain.to_target_db, 3),
        "limiter_correction_db": round(gain.correction_db, 3),
        "forecast_lufs": round(gain.forecast_lufs, 2) if math.isfinite(gain.forecast_lufs) else None,
        "limiter": {
            "threshold_dbtp": round(limiter.threshold_db, 3),
            "lookahead_ms": settings.lookahead_s * 1000,
            "release_ms": settings.release_s * 1000,
            "limited_share": round(limiter.limited_samples / frames, 6) if frames else 0.0,
            "limited_seconds": round(limiter.limited_samples / limiter.rate, 3),
            "max_reduction_db": round(limiter.max_reduction_db, 2),
        },
        "after": _figures(after),
        "sample_rate": before.rate,
        "frames": frames,
        # The samples "after" was measured on: `narrator check` takes the figures for a master whose
        # samples still hash to this, instead of measuring them again.
        "pcm_sha256": pcm_sha256,
    }


#: The master's loudness report, beside it.
LOUDNESS_JSON = "loudness.json"
#: What every reader of loudness.json takes from it.
LOUDNESS_KEYS = ("target_lufs", "true_peak_ceiling_dbtp", "before", "after", "sample_rate", "frames")
AGAIN = "run snakemake again: it assembles the book again"


def read_loudness_report(path: str | Path) -> dict[str, Any]:
    """loudness.json, as assembly wrote it; CatalogError in one line, with the way out, if not."""
    try:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CatalogError(f"{path} is missing; {AGAIN}") from None
    except (OSError, ValueError) as error:
        raise CatalogError(f"{path} is damaged ({first_line(error)}); {AGAIN}") from None
    missing = [key for key in LOUDNESS_KEYS if not isinstance(report, dict) or key not in report]
    if missing:
        raise CatalogError(f"{path} is damaged (no {', '.join(missing)}); {AGAIN}")
    return report


def reassemble_if_damaged(results_dir: Path, book_id: str, dry_run: Callable[[], bool]) -> str | None:
    """Make Snakemake assemble again a book whose loudness.json cannot be read; say so in one line.

    The report, the output check and ``narrator check`` read it, and Snakemake sees nothing wrong
    with a file that stands: without this every run would fail in the report, for ever. The master
    goes with it, since its report is the only record of how it was made.
    """
    path = results_dir / LOUDNESS_JSON
    if not path.exists():
        return None
    try:
        read_loudness_report(path)
        return None
    except CatalogError as error:
        problem = str(error).removesuffix(f"; {AGAIN}")
    if dry_run():
        return f"{problem}; a real run assembles the book again"
    with holding(results_dir, "a re-assembly"):
        for damaged in (path, results_dir / f"{book_id}.wav"):
            damaged.unlink(missing_ok=True)
    return f"{problem}; assembling the book again"


def assemble_book(
    catalog_path: str | Path,
    book_path: str | Path,
    pauses: Mapping[str, float],
    loudness: LoudnessTarget | None = None,
    report_path: str | Path | None = None,
) -> str:
    """Write the book WAV atomically; return a one-line summary.

    The layout (lead pad, each segment followed by the pause its row names, trail pad) is the
    timeline's (narrator.core.timeline), the same one chapter markers and subtitles use. With a loudness
    target, the whole book gets one gain to it, corrected for what the true-peak limiter that
    follows takes off the peaks above the ceiling, and the figures before and after and the
    limiter's work go to ``report_path`` (JSON). If any segment is not completed and
    verified, nothing is published and one error names them all.
    """
    catalog_path, book_path = Path(catalog_path), Path(book_path)
    rows = read_planned(catalog_path)
    rate = book_rate(rows)
    try:
        timeline = build_timeline(rows, pauses, rate)
    except CatalogError:
        timeline = None  # some row is queued; the first pass names every such row

    # Pass 1: verify every segment; measure the book as laid out, while all is well.
    problems: list[str] = []
    before = LoudnessMeter(rate) if loudness is not None else None
    forecast = LimiterForecast(rate, loudness.true_peak) if loudness is not None else None

    def first_pass(row: Row) -> np.ndarray | None:
        try:
            return _checked(catalog_path, row, rate)
        except AudioCheckError as error:
            problems.append(f"{row.segment_id} {error}")
            return None

    if timeline is None:
        for row in rows:
            first_pass(row)
    else:
        with _InOrder(before.add if before is not None else _discard) as measure:
            for piece in _layout(rows, timeline, first_pass):
                if problems:
                    before = None  # keep checking, to name every bad segment at once
                elif before is not None and forecast is not None:
                    samples = _to_float(piece)
                    measure.submit(samples)
                    forecast.add(samples)
    if problems or timeline is None:
        raise _not_ready(problems, catalog_path)

    gain, limiter = None, None
    if loudness is not None and before is not None and forecast is not None:
        forecast.finish()
        gain = book_gain(before, forecast, loudness)
        limiter = TruePeakLimiter(rate, loudness.true_peak)

    # Pass 2: write the master with the gain, through the limiter, measuring what is written.
    after = LoudnessMeter(rate) if limiter is not None else None
    after_digest = hashlib.sha256()

    def second_pass(row: Row) -> np.ndarray:
        try:
            return _checked(catalog_path, row, rate)
        except AudioCheckError as error:  # changed behind our back since the first pass
            raise _not_ready([f"{row.segment_id} {error}"], catalog_path) from None

    _check_space(book_path, timeline.frames)
    loudness_note = ""
    with publishing(book_path) as temp:
        try:
            with sf.SoundFile(temp, "w", rate, 1, SUBTYPE, format=wav_format(timeline.frames)) as book:
                if gain is None or limiter is None or after is None:
                    for piece in _layout(rows, timeline, second_pass):
                        book.write(piece)
                else:
                    factor = 10.0 ** (gain.gain_db / 20.0)
                    with _InOrder(partial(_measure_pcm, after, after_digest)) as measure:
                        for piece in _layout(rows, timeline, second_pass):
                            _write_measured(book, measure, limiter.process(_to_float(piece) * factor))
                        # The limiter answers a look-ahead late; its flush writes the last samples,
                        # so every sample lands where the timeline puts it.
                        _write_measured(book, measure, limiter.flush())
        except sf.LibsndfileError as error:
            raise _write_error(temp, error) from None

        if loudness is not None and before is not None and gain and limiter and after:
            report = _loudness_report(
                loudness, before, after, gain, limiter, timeline.frames, after_digest.hexdigest()
            )
            if report_path is not None:
                replace_durably(Path(report_path), json.dumps(report, indent=2).encode() + b"\n")
            limited = report["limiter"]
            loudness_note = (
                f"; loudness {report['before']['integrated_lufs']} -> {report['after']['integrated_lufs']}"
                f" LUFS, true peak {report['after']['true_peak_dbtp']} dBTP (gain {gain.gain_db:+.2f} dB;"
                f" limiter on {limited['limited_share']:.2%} of samples,"
                f" up to {limited['max_reduction_db']} dB)"
            )
        # The master is published last, on leaving this block: once it exists, the loudness
        # report beside it is already whole.
    frames = timeline.frames
    return (
        f"assembled {len(rows)} segments into {book_path}: {frames} frames, {frames / rate:.1f} s"
        + loudness_note
    )
