"""What a corpus book must come out as, checked the same way by the tests and by bench/corpus.py.

Each entry of a corpus.yaml says, from the book itself: its language, its chapter count (or every
defensible one), its first and last chapter titles, short strings that must never be spoken and
strings of its body that must be. ``failures`` plans the book as the workflow does and names
every expectation it misses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from narrator.core.errors import BookError
from narrator.core.language import primary_language
from narrator.engines.espeak import EspeakOptions
from narrator.plan.plan import PlanSettings, speaker_for
from narrator.text.ingest import load_book
from narrator.text.readers.titles import bare_number, title_key
from narrator.text.segment import segment_book

SETTINGS = PlanSettings(engine="espeak", options=EspeakOptions(), budget=400)


@dataclass(frozen=True)
class Planned:
    language: str
    titles: list[str]
    #: Every segment's text and spoken form, whitespace collapsed.
    text: str
    spoken: str


@cache
def plan(path: Path) -> Planned:
    book = load_book(path)
    segments = list(segment_book(book, SETTINGS.budget, speaker_for(SETTINGS, book.language), book.language))
    text = re.sub(r"\s+", " ", " ".join(s.text for s in segments))
    spoken = re.sub(r"\s+", " ", " ".join(s.spoken for s in segments))
    return Planned(book.language, [c.title for c in book.chapters], text, spoken)


def _loose(title: str) -> str:
    """A title's letters without a leading "chapter": "Chapter I The Period" ~ "I. The Period"."""
    return re.sub(r"^(chapter|chapitre|kapitel|capitulo|luku)", "", title_key(title))


def _found(want: str, titles: list[str]) -> bool:
    # A found title may carry its part's ("Book One. Chapter I") and may differ in case and marks;
    # a numeral is the same number in roman or arabic figures ("I" is heard as "1" is). A part
    # narrated as its chapters is found as their parent ("Eyvind of the Hills. ACT I").
    number = bare_number(want)
    ends = {_loose(want), *([str(number)] if number is not None else [])}
    parents = {
        title_key(". ".join(found.split(". ")[:n]))
        for found in titles
        for n in range(1, found.count(". ") + 1)
    }
    return title_key(want) in parents or any(
        title_key(found).endswith(end) for found in titles for end in ends
    )


def failures(entry: dict, books: Path) -> list[str]:
    """What the planned book misses of ``entry``'s expectations (empty when it passes); a book
    narrator refuses misses all of them, in the one line the user would read."""
    try:
        planned = plan(books / entry["file"])
    except BookError as error:
        return [f"refused: {error}"]
    missed = []
    if primary_language(planned.language) != primary_language(entry["language"]):
        missed.append(f"language {planned.language!r}, not {entry['language']!r}")
    counts = entry.get("acceptable_chapter_counts") or [entry["expected_chapter_count"]]
    if len(planned.titles) not in counts:
        missed.append(f"{len(planned.titles)} chapters, not {counts}")
    for want in [*entry["first_titles"], *filter(None, [entry["last_title"]])]:
        if not _found(want, planned.titles):
            missed.append(f"no chapter titled {want!r}")
    for forbidden in entry.get("must_not_contain", []):
        if forbidden in planned.text or forbidden in planned.spoken:
            missed.append(f"speaks {forbidden!r}")
    for wanted in entry.get("must_contain", []):
        if re.sub(r"\s+", " ", wanted) not in planned.text:
            missed.append(f"does not speak {wanted!r}")
    return missed
