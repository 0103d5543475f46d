"""Progress of a book from its catalog: counts, speech so far, pace, an ETA and chapter bars.

Everything but the book's length is computed from the catalog's rows, so it works while a run is
going, after it finished, and after a crash (when nothing else is left to ask). Speech time is the
segments' own audio; the book's length adds the pauses assembly lays out between them, so it is
read from the master's loudness.json once the master stands.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from narrator.assemble.assemble import LOUDNESS_JSON
from narrator.core.catalog import Row, rows_by_chapter
from narrator.core.pace import pace_of
from narrator.core.timeline import chapter_title

#: How many recent completions estimate the current throughput.
RECENT = 50
#: Characters of a progress bar.
BAR_WIDTH = 20


@dataclass(frozen=True)
class Progress:
    total: int
    completed: int
    audio_seconds: float
    eta_seconds: float | None

    @property
    def queued(self) -> int:
        return self.total - self.completed

    @property
    def percent(self) -> float:
        return 100.0 * self.completed / self.total if self.total else 100.0


@dataclass(frozen=True)
class ChapterProgress:
    number: int
    title: str
    total: int
    completed: int
    audio_seconds: float


@dataclass(frozen=True)
class Throughput:
    """The pace of the latest completions (wall clock, so parallel jobs count)."""

    window: int  # completions in the window
    segments_per_minute: float
    audio_per_second: float  # seconds of audio per wall-clock second
    last_completed_at: float


def _done(rows: Sequence[Row]) -> list[Row]:
    return [row for row in rows if row.completed]


def progress(rows: Sequence[Row]) -> Progress:
    done = _done(rows)
    remaining = len(rows) - len(done)
    return Progress(len(rows), len(done), sum(row.seconds for row in done), _eta(done, remaining))


def _recent(done: Sequence[Row]) -> list[Row]:
    """The latest completions, oldest first."""
    stamped = [row for row in done if row.completed_at is not None]
    return sorted(stamped, key=lambda row: row.completed_at or 0.0)[-RECENT:]


def _eta(done: list[Row], remaining: int) -> float | None:
    """Seconds left at the pace of the latest completions (wall clock, so parallelism counts)."""
    if remaining == 0:
        return 0.0
    stamps = [row.completed_at or 0.0 for row in _recent(done)]
    if len(stamps) >= 2 and stamps[-1] > stamps[0]:
        return remaining * (stamps[-1] - stamps[0]) / (len(stamps) - 1)
    renders = [row.render_seconds for row in done if row.render_seconds]
    return remaining * sum(renders) / len(renders) if renders else None


def throughput(rows: Sequence[Row]) -> Throughput | None:
    """Segments per minute and audio seconds per wall second over the latest completions.

    The first completion of the window only opens it: the rates count what finished after it.
    """
    recent = _recent(_done(rows))
    if len(recent) < 2:
        return None
    first, last = recent[0].completed_at or 0.0, recent[-1].completed_at or 0.0
    span = last - first
    if span <= 0:
        return None
    audio = sum(row.seconds for row in recent[1:])
    return Throughput(len(recent), 60.0 * (len(recent) - 1) / span, audio / span, last)


def chapters(rows: Sequence[Row]) -> list[ChapterProgress]:
    """Per-chapter counts in book order (the catalog's rows are in reading order)."""
    groups = rows_by_chapter(rows)
    result = []
    for index, (key, members) in enumerate(groups.items(), start=1):
        number = key or index
        done = _done(members)
        title = chapter_title(members[0], number)
        audio = sum(row.seconds for row in done)
        result.append(ChapterProgress(number, title, len(members), len(done), audio))
    return result


def master_seconds(report: Mapping[str, Any]) -> float | None:
    """The master WAV's length in seconds, from the frames and rate its loudness.json records."""
    frames, rate = report.get("frames"), report.get("sample_rate")
    return frames / rate if isinstance(frames, int) and isinstance(rate, int) and rate > 0 else None


def book_seconds(folder: Path, rows: Sequence[Row]) -> float | None:
    """The assembled book's length (speech and pauses); None until the master matches the catalog.

    A master older than the latest completion, or made while rows were queued, is another
    version of the book: its length would be a wrong answer, so there is none.
    """
    report_path = folder / LOUDNESS_JSON
    if not rows or len(_done(rows)) < len(rows) or not report_path.is_file():
        return None
    latest = max(row.completed_at or 0.0 for row in rows)
    try:
        if report_path.stat().st_mtime < latest:
            return None
        return master_seconds(json.loads(report_path.read_text(encoding="utf-8")))
    except (OSError, ValueError):  # mid-assembly or damaged: the length is not known yet
        return None


def clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def format_progress(catalog_path: str | Path, progress: Progress) -> str:
    eta = "unknown" if progress.eta_seconds is None else clock(progress.eta_seconds)
    return (
        f"{catalog_path}: {progress.completed}/{progress.total} completed ({progress.percent:.1f}%), "
        f"{progress.queued} queued; audio so far {progress.audio_seconds / 3600:.2f} h "
        f"({clock(progress.audio_seconds)}); ETA {eta}"
    )


@dataclass(frozen=True)
class Glyphs:
    full: str
    empty: str
    ellipsis: str


UNICODE = Glyphs("█", "░", "…")
ASCII = Glyphs("#", "-", "...")


def bar(done: int, total: int, width: int = BAR_WIDTH, glyphs: Glyphs = UNICODE) -> str:
    """A bar that is full only when everything is done (rounded down, like the percentages)."""
    filled = width if total == 0 or done >= total else math.floor(width * done / total)
    return glyphs.full * filled + glyphs.empty * (width - filled)


def _floor_percent(done: int, total: int) -> int:
    """Whole percent, rounded down: 99 % until the last segment is in."""
    return 100 if total == 0 or done >= total else math.floor(100 * done / total)


def _fit(text: str, room: int, glyphs: Glyphs) -> str:
    if len(text) <= room:
        return text
    return text[: max(room - len(glyphs.ellipsis), 0)] + glyphs.ellipsis


def format_times(rows: Sequence[Row], book: float | None) -> str:
    """Speech time and its words per minute, and the book's length with pauses, labelled apart."""
    overall = progress(rows)
    speech = "speech" if overall.completed == overall.total else "speech so far"
    wpm = pace_of(rows).wpm
    said = f"{speech} {clock(overall.audio_seconds)}" + ("" if wpm is None else f" at {wpm:.0f} words/min")
    length = "book length with pauses once assembled" if book is None else f"book {clock(book)} with pauses"
    return f"  time  {said}; {length}"


#: A run counts as stalled once no segment has finished for this many of its usual gaps between
#: completions, and for at least STALL_MIN_S: a slow segment is not a stall, an hour of nothing is.
STALL_GAPS = 10
STALL_MIN_S = 60.0


def _stalled(pace: Throughput, since: float, queued: int) -> str:
    """ ", stalled: …" when segments are queued and none has finished for far longer than usual."""
    gap = 60.0 / pace.segments_per_minute
    if queued == 0 or since < max(STALL_MIN_S, STALL_GAPS * gap):
        return ""
    return (
        f"; stalled: nothing finished for {since / gap:.0f} times the usual {clock(gap)} between "
        "segments (is the run stopped, or an engine stuck?), so the ETA does not hold"
    )


def format_status(
    catalog_path: str | Path,
    rows: Sequence[Row],
    now: float,
    columns: int = 80,
    glyphs: Glyphs = UNICODE,
    book: float | None = None,
) -> str:
    """The summary line (kept stable for scripts), then pace, speech and book time (``book``: the
    master's seconds, None when not known), an overall bar and one bar per chapter."""
    overall = progress(rows)
    lines = [format_progress(catalog_path, overall)]
    pace = throughput(rows)
    if pace is not None:
        since = max(now - pace.last_completed_at, 0.0)
        lines.append(
            f"  pace  {pace.segments_per_minute:.1f} segments/min, "
            f"{pace.audio_per_second:.1f} audio-s per wall-s (latest {pace.window}); "
            f"last {clock(since)} ago" + _stalled(pace, since, overall.queued)
        )
    lines.append(format_times(rows, book))
    parts = chapters(rows)
    digits = max((len(str(part.total)) for part in parts), default=1)
    number_width = max((len(str(part.number)) for part in parts), default=1)
    number_width = max(number_width, 2)
    label_width = 3 + number_width  # "ch " + number
    lines.append(
        f"  {'all':<{label_width}} {bar(overall.completed, overall.total, glyphs=glyphs)} "
        f"{_floor_percent(overall.completed, overall.total):>3}%  "
        f"{overall.completed:>{digits}}/{overall.total:<{digits}}  "
        f"{clock(overall.audio_seconds)} of speech"
    )
    for part in parts:
        head = (
            f"  ch {part.number:>{number_width}} {bar(part.completed, part.total, glyphs=glyphs)} "
            f"{_floor_percent(part.completed, part.total):>3}%  "
            f"{part.completed:>{digits}}/{part.total:<{digits}}  "
        )
        lines.append(head + _fit(part.title, max(columns - len(head) - 1, 12), glyphs))
    return "\n".join(lines)


def glyphs_for(encoding: str | None) -> Glyphs:
    """Block characters where the output can encode them, ASCII elsewhere (e.g. LANG=C pipes)."""
    try:
        (UNICODE.full + UNICODE.empty + UNICODE.ellipsis).encode(encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return ASCII
    return UNICODE
