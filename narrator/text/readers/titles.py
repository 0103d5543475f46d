"""Titles and headings: chapter lines, numbered-only titles, comparing titles, titles from file names."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from narrator.text.normalize import roman_value

_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    "|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|first|second|third|fourth|fifth|sixth"
    "|seventh|eighth|ninth|tenth|last"
)
#: A number said in words, alone: "One", "Twenty-one", "First" (a chapter's number in some books).
NUMBER_WORD = re.compile(rf"(?:{_NUMBER_WORDS})(?:-(?:{_NUMBER_WORDS}))?\.?", re.IGNORECASE)
_DIVISIONS = "chapter|book|part|volume|act|scene|canto|stave|letter"
# "Chapter 12", "CHAPTER XIV.", "Part Two: ...", "Book the First", "ACT I", "SCENE II. A room";
# not "Part of me wanted ...".
CHAPTER_LINE = re.compile(
    rf"^\s*({_DIVISIONS})\s+(the\s+)?([0-9]+|[ivxlcdm]+|(?:{_NUMBER_WORDS})(?:-(?:{_NUMBER_WORDS}))?)\b"
    r"[.:]?\s*(.*)$",
    re.IGNORECASE,
)
#: Divisions above chapters: their headings title the chapter that follows.
PART_WORDS = frozenset({"book", "part", "volume", "act"})


def title_key(text: str) -> str:
    """Compare titles by their letters and digits only: "CHAPTER I. Down" == "Chapter I: down"."""
    text = unicodedata.normalize("NFKD", text).casefold()
    return "".join(c for c in text if c.isalnum())


def bare_number(title: str) -> int | None:
    """The value of a title that is only a number, arabic or roman ("VIII.", "12"); else None."""
    match = re.fullmatch(r"\s*([0-9]{1,4}|[IVXLCDM]+|[ivxlcdm]+)\s*[.:]?\s*", title)
    if match is None:
        return None
    numeral = match.group(1)
    return int(numeral) if numeral.isdigit() else roman_value(numeral)


def title_from_stem(path: Path) -> str:
    return re.sub(r"[-_]+", " ", path.stem).strip().title()
