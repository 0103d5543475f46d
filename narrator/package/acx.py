"""ACX-ready chapter files: one 44.1 kHz mono 192 kbps CBR MP3 per chapter, within ACX's audio rules.

ACX (the Audiobook Creation Exchange) rejects a file unless its RMS is -23 to -18 dB, its peaks are
at or under -3 dBFS, its noise floor (the quietest 500 ms) is at or under -60 dB, it opens with
0.5-1 s and closes with 1-5 s of room tone, and that room tone is not pure digital silence. The
limits live here, so ``narrator check`` measures against the same numbers the packaging aims for.

Each chapter is cut from the master at the timeline's sample offsets; the pauses around its speech
are trimmed or padded to HEAD_S and TAIL_S, one gain per file brings the whole file's RMS to
RMS_TARGET, the limiter holds the true peak under LIMITER_CEILING, and a seeded noise at
ROOM_TONE_DBFS fills the silence, so a rebuild gives the same samples.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import IO

import numpy as np

from narrator.assemble.loudness import TruePeakLimiter, to_dbfs
from narrator.core.audio import master_blocks
from narrator.core.errors import UserError
from narrator.core.timeline import Chapter, book_timeline
from narrator.package.chapters import write_chapter_files
from narrator.package.metadata import PackageSettings, book_info

SAMPLE_RATE = 44100
CHANNELS = 1
BITRATE_KBPS = 192
RMS_MIN, RMS_MAX = -23.0, -18.0
RMS_TARGET = -20.0
#: How close to RMS_TARGET the limited file must land, and the most passes spent getting there.
RMS_SETTLE_DB = 0.5
LIMITER_PASSES = 4
PEAK_MAX = -3.0
#: MP3 encoding overshoots the source's peaks by up to about 1 dB, so the limiter aims lower.
LIMITER_CEILING = -4.0
NOISE_FLOOR_MAX = -60.0
NOISE_WINDOW_S = 0.5
HEAD_MIN, HEAD_MAX = 0.5, 1.0
TAIL_MIN, TAIL_MAX = 1.0, 5.0
HEAD_S, TAIL_S = 0.75, 2.5
#: Room tone: real (ACX rejects digital silence between words) yet far under the -60 dB floor.
ROOM_TONE_DBFS = -75.0
ROOM_TONE_SEED = 0xAC5
#: A sample above this is speech: 15 dB over the room tone's highest peaks, far under any voice.
SPEECH_THRESHOLD_DBFS = -45.0
#: Speech is found to this resolution (seconds); the head and tail are then exact in samples.
WINDOW_S = 0.01
#: Rounds of (speech bounds, gain) in chapter_layout; two settle it unless the gain is extreme.
_LAYOUT_ROUNDS = 5
#: soxr resamples the master's rate to 44.1 kHz; libmp3lame's -b:a alone is constant bitrate.
ENCODE_ARGS = (
    *("-af", f"aresample={SAMPLE_RATE}:resampler=soxr", "-ar", str(SAMPLE_RATE), "-ac", str(CHANNELS)),
    *("-c:a", "libmp3lame", "-b:a", f"{BITRATE_KBPS}k"),
)


def db_to_amplitude(db: float) -> float:
    return 10.0 ** (db / 20.0)


@dataclass(frozen=True)
class ChapterLayout:
    """One ACX file: ``head_pad`` zeros, master samples [source_start, source_end), ``tail_pad`` zeros,
    all times ``gain``. Offsets are the master's, in samples."""

    source_start: int
    source_end: int
    head_pad: int
    tail_pad: int
    gain: float

    @property
    def frames(self) -> int:
        return self.head_pad + self.source_end - self.source_start + self.tail_pad


@dataclass(frozen=True)
class _Windows:
    """Peak and summed squares of each WINDOW_S window of a chapter, in order."""

    size: int
    peaks: np.ndarray
    energies: np.ndarray
    frames: int


def _windows(master: Path, chapter: Chapter, rate: int) -> _Windows:
    """One pass over the chapter keeping two floats per window: a few MB for a ten-hour chapter."""
    size = max(1, round(WINDOW_S * rate))
    peaks: list[np.ndarray] = []
    energies: list[np.ndarray] = []
    carry = np.zeros(0, dtype=np.float64)
    for block in master_blocks(master, chapter.start, chapter.end, "float64"):
        samples = np.concatenate([carry, block])
        whole = len(samples) // size * size
        shaped = samples[:whole].reshape(-1, size)
        peaks.append(np.max(np.abs(shaped), axis=1))
        energies.append(np.sum(shaped * shaped, axis=1))
        carry = samples[whole:]
    if len(carry):
        peaks.append(np.array([np.max(np.abs(carry))]))
        energies.append(np.array([np.sum(carry * carry)]))
    return _Windows(size, np.concatenate(peaks), np.concatenate(energies), chapter.end - chapter.start)


def chapter_layout(windows: _Windows, chapter: Chapter, rate: int) -> ChapterLayout:
    """Trim or pad the chapter's pauses to HEAD_S and TAIL_S around its speech, and the one gain that
    brings the file's RMS to RMS_TARGET.

    Speech is what lies above SPEECH_THRESHOLD_DBFS *after* the gain, which depends on where speech
    starts and ends: a few rounds settle both (the bounds move only if the gain changes by tens of dB).
    """
    head, tail = round(HEAD_S * rate), round(TAIL_S * rate)
    gain = 1.0
    bounds: tuple[int, int] | None = None
    for _ in range(_LAYOUT_ROUNDS):
        loud = np.flatnonzero(windows.peaks * gain > db_to_amplitude(SPEECH_THRESHOLD_DBFS))
        if len(loud) == 0:
            raise UserError(f"chapter {chapter.number} ({chapter.title!r}) has no speech for an ACX file")
        if bounds == (int(loud[0]), int(loud[-1])):
            break
        bounds = int(loud[0]), int(loud[-1])
        speech_frames = min((bounds[1] + 1) * windows.size, windows.frames) - bounds[0] * windows.size
        # The pauses kept around the speech are (near) silence: their energy does not move the RMS.
        energy = float(np.sum(windows.energies[bounds[0] : bounds[1] + 1]))
        gain = db_to_amplitude(RMS_TARGET) / math.sqrt(energy / (head + speech_frames + tail))
    assert bounds is not None
    speech_start = chapter.start + bounds[0] * windows.size
    speech_end = chapter.start + min((bounds[1] + 1) * windows.size, windows.frames)
    source_start = max(chapter.start, speech_start - head)
    source_end = min(chapter.end, speech_end + tail)
    return ChapterLayout(
        source_start=source_start,
        source_end=source_end,
        head_pad=head - (speech_start - source_start),
        tail_pad=tail - (source_end - speech_end),
        gain=gain,
    )


def _limited(blocks: Iterable[np.ndarray], rate: int) -> Iterator[np.ndarray]:
    """The one place the true-peak limiter runs: hold the gained signal under LIMITER_CEILING."""
    limiter = TruePeakLimiter(rate, LIMITER_CEILING)
    for block in blocks:
        yield limiter.process(block)
    yield limiter.flush()


def _settled_gain(master: Path, layout: ChapterLayout, rate: int) -> ChapterLayout:
    """The limiter takes energy from the peaks it lowers (several dB for a peaky voice such as
    espeak's), more the higher the gain. Dry passes measure the RMS it leaves and correct the gain by
    secant steps until the file lands within RMS_SETTLE_DB of RMS_TARGET (one pass when it does not
    limit much), instead of at the bottom of ACX's range."""
    previous: tuple[float, float] | None = None  # (gain, RMS out) of the last pass, in dB
    for _ in range(LIMITER_PASSES):
        energy = sum(float(np.dot(block, block)) for block in _limited(_gained(master, layout), rate))
        gain_db, rms_db = to_dbfs(layout.gain), to_dbfs(math.sqrt(energy / layout.frames))
        if abs(RMS_TARGET - rms_db) <= RMS_SETTLE_DB:
            break
        slope = 1.0  # dB of RMS per dB of gain: 1 when nothing is limited, less the more is
        if previous is not None and gain_db != previous[0]:
            slope = min(1.0, max(0.1, (rms_db - previous[1]) / (gain_db - previous[0])))
        previous = gain_db, rms_db
        layout = replace(layout, gain=db_to_amplitude(gain_db + (RMS_TARGET - rms_db) / slope))
    return layout


def _gained(master: Path, layout: ChapterLayout) -> Iterator[np.ndarray]:
    yield np.zeros(layout.head_pad)
    for block in master_blocks(master, layout.source_start, layout.source_end, "float64"):
        yield block * layout.gain
    yield np.zeros(layout.tail_pad)


def _feed_acx(stdin: IO[bytes], *, master: Path, layout: ChapterLayout, rate: int, seed: int) -> None:
    """Write the chapter's ACX samples to ffmpeg as 32-bit float: gained, limited, room tone added."""
    noise = np.random.default_rng([ROOM_TONE_SEED, seed])
    room_tone = db_to_amplitude(ROOM_TONE_DBFS)
    for block in _limited(_gained(master, layout), rate):
        samples = block + noise.standard_normal(len(block)) * room_tone
        stdin.write(samples.astype("<f4").tobytes())


def package_acx(
    master: str | Path,
    catalog_path: str | Path,
    book_json: str | Path,
    output_dir: str | Path,
    pauses: Mapping[str, float],
    settings: PackageSettings,
) -> str:
    """One ACX-ready MP3 per chapter in ``output_dir``, named and tagged as the chapter files are."""
    master, output_dir = Path(master), Path(output_dir)
    _, timeline = book_timeline(catalog_path, master, pauses)
    rate = timeline.rate
    layouts = {
        c.number: _settled_gain(master, chapter_layout(_windows(master, c, rate), c, rate), rate)
        for c in timeline.chapters
    }

    def feed_for(chapter: Chapter) -> partial[None]:
        layout = layouts[chapter.number]
        return partial(_feed_acx, master=master, layout=layout, rate=rate, seed=chapter.number)

    write_chapter_files(
        output_dir,
        timeline,
        book_info(book_json, settings),
        settings,
        ("mp3", "mp3"),
        ["-f", "f32le", "-ar", str(rate), "-ac", str(CHANNELS)],
        [*ENCODE_ARGS],
        feed_for,
    )
    gains = ", ".join(f"{n}: {to_dbfs(layouts[n].gain):+.1f} dB" for n in layouts)
    return (
        f"packaged {len(layouts)} ACX files ({SAMPLE_RATE} Hz mono MP3 {BITRATE_KBPS}k CBR, RMS "
        f"{RMS_TARGET:g} dB, true peak under {LIMITER_CEILING:g} dBTP) into {output_dir}; "
        f"gain per chapter {gains}"
    )
