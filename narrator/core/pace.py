"""Speaking pace: words per minute of speech, counted from the book's own words and measured audio.

Words are the book's (the catalog's ``text``), not the spoken form, so "1865" is one word as a
reader counts it. Time is speech only: the segments' own audio, without the pauses assembly adds
between them; so the figure compares across pause settings and with narrators' published rates.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import regex

from narrator.core.catalog import Row, rows_by_chapter

#: Audiobooks are narrated at about 150-160 words per minute; the default sits there.
DEFAULT_WPM = 160
#: A word: letters or digits, joined by inner apostrophes, hyphens or dots ("don't", "well-known",
#: "3.30", "p.m").
_WORD = regex.compile(r"[\p{L}\p{N}]+(?:['\u2019\-.][\p{L}\p{N}]+)*")


def count_words(text: str) -> int:
    return len(_WORD.findall(text))


@dataclass(frozen=True)
class Pace:
    words: int
    speech_seconds: float

    @property
    def wpm(self) -> float | None:
        """Words per minute of speech; None before any speech is measured."""
        return 60.0 * self.words / self.speech_seconds if self.speech_seconds > 0 else None


def pace_of(rows: Iterable[Row]) -> Pace:
    """The pace of the completed rows among these."""
    done = [row for row in rows if row.completed and row.seconds]
    return Pace(sum(count_words(row.text) for row in done), sum(row.seconds or 0.0 for row in done))


def pace_by_chapter(rows: Sequence[Row]) -> dict[int, Pace]:
    """Pace per chapter number, chapters in reading order."""
    return {number: pace_of(chapter) for number, chapter in rows_by_chapter(rows).items()}
