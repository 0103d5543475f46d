"""Verse by its shape: lines set short and capitalised as poems are printed, told apart from prose
wrapped to a width. Plain text and Markdown keep a paragraph's line breaks only where this says
verse, so that a wrapped paragraph is read as one and a poem pauses at its lines."""

from __future__ import annotations

import re

#: Verse lines are at most this long; prose wrapped for print runs to 60-75 characters.
VERSE_LINE_CHARS = 50
_VERSE_LINE_START = re.compile(r"^[\"'\u2018\u201c(]?[A-Z]")
# A line wholly in brackets, an aside, may open in lower case: "(or is it myopic trachoma)".
_ASIDE_LINE = re.compile(r"^\(.*\)\W*$")


def _is_wrapped(raw_lines: list[str]) -> bool:
    """Prose wrapped to a width: every line but the last long, most running on without a stop,
    and not every line capitalised as verse is."""
    full = [line.strip() for line in raw_lines[:-1]]
    stops = sum(line.endswith((",", ".", ";", ":", "!", "?")) for line in full)
    capitals = all(_VERSE_LINE_START.match(line.strip()) for line in raw_lines[1:])
    return all(len(line) > VERSE_LINE_CHARS for line in full) and stops * 2 <= len(full) and not capitals


def is_verse(raw_lines: list[str]) -> bool:
    """Two or more lines, all indented and not prose wrapped to a width (an RFC's paragraphs), or
    all short and capitalised as verse is printed.

    Short lines that each end a sentence read the same either way, so they stay prose.
    """
    if len(raw_lines) < 2:
        return False
    if all(line.startswith(("  ", "\t")) for line in raw_lines):
        return not _is_wrapped(raw_lines)
    stripped = [line.strip() for line in raw_lines]
    return all(
        len(line) <= VERSE_LINE_CHARS and (_VERSE_LINE_START.match(line) or _ASIDE_LINE.match(line))
        for line in stripped
    ) and not all(line.endswith((".", "!", "?")) for line in stripped)
