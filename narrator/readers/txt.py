"""Plain text: chapters at "Chapter N"-style lines, paragraphs at blank lines, verse kept."""

from __future__ import annotations

import re
from pathlib import Path

from narrator.book import Book, Chapter
from narrator.readers.decode import SCENE_BREAK, clean_text, decode_text, squash

_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    "|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|first|second|third|fourth|fifth|sixth"
    "|seventh|eighth|ninth|tenth|last"
)
# "Chapter 12", "CHAPTER XIV.", "Part Two: ...", "Book the First"; not "Part of me wanted ...".
CHAPTER_LINE = re.compile(
    rf"^\s*(chapter|book|part)\s+(the\s+)?([0-9]+|[ivxlcdm]+|(?:{_NUMBER_WORDS})(?:-(?:{_NUMBER_WORDS}))?)\b"
    r"[.:]?\s*(.*)$",
    re.IGNORECASE,
)
#: Verse lines are at most this long; prose wrapped for print runs to 60-75 characters.
VERSE_LINE_CHARS = 50
_VERSE_LINE_START = re.compile(r"^[\"'\u2018\u201c(]?[A-Z]")


def _is_verse(raw_lines: list[str]) -> bool:
    """Two or more lines, all indented, or all short and capitalised as verse is printed.

    Short lines that each end a sentence read the same either way, so they stay prose.
    """
    if len(raw_lines) < 2:
        return False
    if all(line.startswith(("  ", "\t")) for line in raw_lines):
        return True
    stripped = [line.strip() for line in raw_lines]
    return all(
        len(line) <= VERSE_LINE_CHARS and _VERSE_LINE_START.match(line) for line in stripped
    ) and not all(line.endswith((".", "!", "?")) for line in stripped)


def _paragraph(raw_lines: list[str]) -> str:
    if _is_verse(raw_lines):
        return "\n".join(squash(line) for line in raw_lines)
    return squash(" ".join(raw_lines))


def parse_txt(text: str, title: str) -> Book:
    chapters: list[Chapter] = []
    chapter_title, paragraphs, section_ends = "", [], set()

    def close_chapter() -> None:
        if paragraphs or chapter_title:
            chapters.append(Chapter(chapter_title, tuple(paragraphs), frozenset(section_ends)))

    for block in re.split(r"\n\s*\n", clean_text(text)):
        raw_lines = [line.rstrip() for line in block.split("\n") if line.strip()]
        lines = [line.strip() for line in raw_lines]
        if not lines:
            continue
        if len(lines) == 1 and SCENE_BREAK.match(lines[0]):
            if paragraphs:
                section_ends.add(len(paragraphs) - 1)
            continue
        heading = CHAPTER_LINE.match(lines[0])
        if heading and len(lines[0]) <= 80:
            close_chapter()
            # Gutenberg style: "CHAPTER I." with the chapter's name on the next line.
            chapter_title, rest = squash(lines[0]), raw_lines[1:]
            if not heading.group(4) and rest and len(rest[0].strip()) <= 80:
                chapter_title, rest = f"{chapter_title} {rest[0].strip()}", rest[1:]
            paragraphs, section_ends = ([_paragraph(rest)] if rest else []), set()
        else:
            paragraphs.append(_paragraph(raw_lines))
    close_chapter()
    return Book(title, tuple(chapters))


def title_from_stem(path: Path) -> str:
    return re.sub(r"[-_]+", " ", path.stem).strip().title()


def read_txt(path: Path) -> Book:
    text, encoding = decode_text(path, path.read_bytes())
    book = parse_txt(text, title_from_stem(path))
    return Book(book.title, book.chapters, encoding=encoding)
