"""Where every segment and chapter sits in the book, in samples: the one definition of the pauses.

The master WAV, the M4B's chapter markers, the per-chapter cuts and the subtitles are all laid out
from this, so they agree to the sample. Offsets come from the catalog's recorded ``frames`` and the
configured pauses; nothing is re-measured from audio.

The book is::

    lead pad | segment 1 | pause after 1 | segment 2 | ... | segment N | trail pad

where the pause after a row is ``pauses[row.pause_after]`` seconds (none for a kind the config
does not name, such as ``end`` after the last segment).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import soundfile as sf

from narrator.core.catalog import Row, read_catalog
from narrator.core.errors import CatalogError

#: Rate of a catalog with no rendered row yet (only used for an empty or unrendered book).
DEFAULT_RATE = 22050
#: Keys of ``pauses`` that are pads around the whole book rather than boundary kinds.
LEAD, TRAIL = "lead", "trail"


def seconds_to_frames(seconds: float, rate: int) -> int:
    """The one rounding rule from configured seconds to samples."""
    return round(float(seconds) * rate)


def pause_frames(pauses: Mapping[str, float], kind: str, rate: int) -> int:
    """Samples of silence for a pause kind (a row's ``pause_after``, or ``lead`` / ``trail``)."""
    return seconds_to_frames(pauses.get(kind, 0.0), rate)


def book_rate(rows: Sequence[Row]) -> int:
    """The book's sample rate: that of its first rendered row."""
    return next((row.sample_rate for row in rows if row.sample_rate), None) or DEFAULT_RATE


@dataclass(frozen=True)
class Span:
    """One segment's speech in the book: samples ``[start, end)``, then ``pause`` samples of silence."""

    start: int
    end: int
    pause: int


@dataclass(frozen=True)
class Chapter:
    """One chapter of the book, in samples.

    ``speech`` is the offset of the chapter's first segment. ``start`` is where the chapter begins
    for markers and cuts: the same offset, except that the first chapter starts at 0 and so holds
    the lead pad (an MP4 chapter track cannot start later than 0, and cutting from 0 lets the
    chapter files add up to the whole book). ``end`` is the next chapter's start, or the book's end.
    """

    number: int
    title: str
    start: int
    speech: int
    end: int
    first_row: int
    last_row: int


@dataclass(frozen=True)
class Timeline:
    rate: int
    lead: int
    trail: int
    spans: tuple[Span, ...]
    chapters: tuple[Chapter, ...]
    frames: int

    @property
    def seconds(self) -> float:
        return self.frames / self.rate


def chapter_title(row: Row, number: int) -> str:
    """The chapter's title from the catalog, or ``Chapter N`` when it has none."""
    return row.chapter_title.strip() or f"Chapter {number}"


def build_timeline(rows: Sequence[Row], pauses: Mapping[str, float], rate: int | None = None) -> Timeline:
    """Sample offsets of every row and chapter, from the catalog's frames and the pauses.

    Every row must be completed (its ``frames`` recorded); the rate is the book's unless given.
    """
    rate = rate or book_rate(rows)
    lead, trail = pause_frames(pauses, LEAD, rate), pause_frames(pauses, TRAIL, rate)
    spans: list[Span] = []
    position = lead
    for row in rows:
        if not row.completed or not row.frames:
            raise CatalogError(f"segment {row.segment_id} is not rendered yet: the book has no timeline")
        pause = pause_frames(pauses, row.pause_after, rate)
        end = position + row.frames
        spans.append(Span(position, end, pause))
        position = end + pause
    frames = position + trail

    firsts = [i for i, row in enumerate(rows) if i == 0 or row.chapter != rows[i - 1].chapter]
    chapters = []
    for number, first in enumerate(firsts, start=1):
        last = firsts[number] - 1 if number < len(firsts) else len(rows) - 1
        following = firsts[number] if number < len(firsts) else None
        chapters.append(
            Chapter(
                number=number,
                title=chapter_title(rows[first], number),
                start=0 if number == 1 else spans[first].start,
                speech=spans[first].start,
                end=frames if following is None else spans[following].start,
                first_row=first,
                last_row=last,
            )
        )
    return Timeline(rate, lead, trail, tuple(spans), tuple(chapters), frames)


def book_timeline(
    catalog_path: str | Path, master: str | Path, pauses: Mapping[str, float]
) -> tuple[list[Row], Timeline]:
    rows = read_catalog(catalog_path)
    timeline = build_timeline(rows, pauses)
    info = sf.info(str(master))
    if (info.frames, info.samplerate) != (timeline.frames, timeline.rate):
        raise CatalogError(
            f"{master} has {info.frames} frames at {info.samplerate} Hz, but the catalog and pauses give "
            f"{timeline.frames} at {timeline.rate} Hz; assemble the book again"
        )
    return rows, timeline
