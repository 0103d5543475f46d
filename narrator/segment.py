"""Split chapters into segments: sentences, with over-long sentences cut at clauses, then words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import pysbd

from narrator.book import Book

#: What follows a segment in the assembled book; assembly maps each to a pause length.
PAUSES = ("clause", "sentence", "paragraph", "chapter", "end")

# A clause break: after , ; : or a dash, before whitespace.
_CLAUSE_BREAK = re.compile(r"[,;:\u2013\u2014)](?=\s)")


@dataclass(frozen=True)
class Segment:
    chapter: int
    chapter_title: str
    paragraph: int
    text: str
    pause_after: str


@lru_cache(maxsize=4)
def _segmenter(language: str) -> pysbd.Segmenter:
    return pysbd.Segmenter(language=language, clean=False)


def split_sentences(paragraph: str, language: str = "en") -> list[str]:
    return [s.strip() for s in _segmenter(language).segment(paragraph) if s.strip()]


def split_to_budget(sentence: str, budget: int) -> list[str]:
    """Cut a sentence into pieces of at most ``budget`` characters, never inside a word.

    It prefers the last clause break that fits, then the last space; a single word longer than
    the budget stays whole, because cutting it would garble it.
    """
    pieces = []
    rest = sentence.strip()
    while len(rest) > budget:
        window = rest[: budget + 1]
        clause_ends = [m.end() for m in _CLAUSE_BREAK.finditer(window) if m.end() <= budget]
        # A clause break very early would leave a tiny piece; a space near the budget is better.
        cut = clause_ends[-1] if clause_ends and clause_ends[-1] >= budget // 3 else window.rfind(" ")
        if cut <= 0:
            next_space = rest.find(" ", budget)
            cut = next_space if next_space > 0 else len(rest)
        pieces.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        pieces.append(rest)
    return pieces


def segment_book(book: Book, budget: int, language: str = "en") -> Iterator[Segment]:
    """Every segment of the book in reading order, each at most ``budget`` characters."""
    for chapter_index, chapter in enumerate(book.chapters, start=1):
        units: list[tuple[int, str, str]] = []
        title_pieces = split_to_budget(chapter.title, budget)
        if title_pieces:
            units += [(0, piece, "clause") for piece in title_pieces]
            units[-1] = (0, units[-1][1], "paragraph")
        for paragraph_index, paragraph in enumerate(chapter.paragraphs, start=1):
            sentences = split_sentences(paragraph, language)
            if not sentences:
                continue  # a blank paragraph says nothing
            for sentence in sentences:
                pieces = split_to_budget(sentence, budget)
                units += [(paragraph_index, piece, "clause") for piece in pieces[:-1]]
                units.append((paragraph_index, pieces[-1], "sentence"))
            last = units[-1]
            units[-1] = (last[0], last[1], "paragraph")
        if not units:
            continue  # a chapter with nothing to speak
        last = units[-1]
        last_chapter = chapter_index == len(book.chapters)
        units[-1] = (last[0], last[1], "end" if last_chapter else "chapter")
        for paragraph_index, text, pause in units:
            yield Segment(chapter_index, chapter.title, paragraph_index, text, pause)
