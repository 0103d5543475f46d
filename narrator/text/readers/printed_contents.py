"""A plain text's printed contents page: never read, and read as the map of the book's chapters.

A printed contents lists a title a line, often with a page number at its end ("AFSCHEID   17."),
sub-entries indented under their entry, and group headings alone between blank lines ("OP ZEE.",
"Book the First"). Where the body's headings answer to most of its entries, in order, the entries
are the chapters a listener navigates by, as the author laid them out:

- a heading the contents does not list ("Hoofdstuk I" inside a story, a play's "SCENE II") is a
  section heading inside its chapter, not a chapter of its own;
- an indented entry is a section of the entry above it, unless that entry runs longer than a
  chapter does (a part of several hours), when its entries are the chapters;
- what stands before the first entry (a dedication, a prefatory note) opens the first chapter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from narrator.core.book import LONGEST_CHAPTER_CHARS
from narrator.text.readers.titles import chapter_line, division_key, title_key

# "CONTENTS", "Table of Contents", and the word in the languages Gutenberg texts are written in.
CONTENTS_LINE = re.compile(
    r"^\s*((table of )?contents( and illustrations)?|inhoud|inhalt(sverzeichnis)?"
    r"|table( des mati[eè]res)?|[íi]ndex|sommaire|[íi]ndice|содержание|оглавление|innehåll|indhold"
    r"|sisällys(luettelo)?|spis treści|obsah"
    r"|tartalom|πίνακας περιεχομένων|περιεχόμενα)\.?\s*$",
    re.IGNORECASE,
)
# A list bullet before an entry ("     * Getting Started": a contents made by lynx or Markdown).
_BULLET = re.compile(r"^[*\u2022-]\s+")
# A page number closing an entry: "  17.", "_Page_ 4", ".......3", "  ix".
_PAGE_NUMBER = re.compile(r"([\s._]*(_?page_?)?[\s.]*\d+|(\s{2,}|\.{2,})[ivxlc]+)\.?\s*$", re.IGNORECASE)
#: Entries start this far from the margin at most; a word further right heads the page column.
COLUMN_LABEL_INDENT = 20
#: The contents is the map only when the body's headings answer to this share of its entries ...
LOCATED_SHARE = 0.6
#: ... and to this many at least.
LOCATED_ENTRIES = 3
#: Lines a heading that answers to an entry may take (a title set on two lines).
HEADING_LINES = 2
#: Longest line that can be a heading.
HEADING_CHARS = 80
#: Title keys shorter than this must equal a heading's; longer ones may be its beginning ("The Furry
#: Day Song (Supplement)" lists the heading "THE FURRY DAY SONG").
PREFIX_KEY_CHARS = 8


@dataclass(frozen=True)
class Entry:
    """One line (or a title set on two) of a printed contents."""

    title: str
    #: Spaces before it: entries further in are sections of the one above.
    indent: int
    #: No page number and alone between blank lines: the title over the entries after it.
    group: bool = False


@dataclass(frozen=True)
class Listed:
    """An entry the body's headings answer to: at which block, and how many of its lines it takes."""

    entry: Entry
    lines: int
    #: A chapter (True), or a section heading inside the chapter above it.
    chapter: bool


def entry_key(line: str) -> str:
    """What a contents line and the heading it lists share: "chapter 1", or the title's letters."""
    if division := division_key(line):
        return division
    key = title_key(_PAGE_NUMBER.sub("", line))
    return "" if key == "page" else key


# An entry that numbers its chapter before the title: "I.--Sa Cubierta", "12. The Storm" (not
# "2.1. Conformance", a section numbered within its chapter).
_NUMBERED_ENTRY = re.compile(r"^\s*([0-9]{1,3}|[IVXLCDM]+)\s*(\.|--|\u2014|\u2013|:|\))(?!\d)")
_ROMAN_ENTRY = re.compile(r"^([IVXLCDM]+)\s*(\.|--|\u2014|\u2013|:|\))(?!\d)")


def _entry_keys(line: str) -> set[str]:
    """The keys a heading may answer an entry with: its title's, and its number's alone where the
    entry numbers the chapter (the heading may be "I", its title a line below)."""
    numbered = _NUMBERED_ENTRY.match(line.strip())
    return {entry_key(line), *([title_key(numbered.group(1))] if numbered else [])} - {""}


def _is_prose(block: list[str]) -> bool:
    """Lines of running text: long on average, and not ending in page numbers as contents lines do."""
    lines = [line.strip() for line in block if line.strip()]
    numbered = sum(1 for line in lines if line[-1:].isdigit())
    return len(lines) >= 2 and sum(map(len, lines)) / len(lines) >= 50 and numbered * 2 < len(lines)


def _heads_prose(lines: list[str], start: int) -> bool:
    """A block of a line or two at ``start`` with running text as the next block."""
    block = _block_at(lines, start)
    after = start + len(block)
    while after < len(lines) and not lines[after].strip():
        after += 1
    return len(block) <= HEADING_LINES and _is_prose(_block_at(lines, after))


def _block_at(lines: list[str], start: int) -> list[str]:
    """The lines of the block that starts at ``start`` (up to the next blank line)."""
    block = []
    for line in lines[start:]:
        if not line.strip():
            break
        block.append(line)
    return block


def without_contents(lines: list[str]) -> tuple[list[str], list[Entry]]:
    """The text without its contents page, and the page's entries.

    The page runs from "CONTENTS" to where its first entry comes again (or, without the page
    number it had there, any entry), or to the first paragraph of running text or the heading
    above it, whichever comes first.
    """
    start = next((n for n, line in enumerate(lines) if CONTENTS_LINE.match(line)), None)
    if start is None:
        unlabelled = _unlabelled_contents(lines)
        if unlabelled is None:
            return lines, []
        start, end = unlabelled
        return lines[:start] + lines[end:], _entries(lines[start:end])
    first = next((n for n in range(start + 1, len(lines)) if entry_key(lines[n].strip())), None)
    if first is None:
        return lines, []
    key = entry_key(lines[first].strip())
    paged: set[str] = set()  # the keys of entries listed with a page number
    end = first + 1
    while end < len(lines) and entry_key(lines[end].strip()) != key:
        line = lines[end].strip()
        if not line and _is_prose(_block_at(lines, end + 1)):
            break
        if line and not lines[end - 1].strip() and _heads_prose(lines, end):
            break  # a heading right above running text: the text has begun
        if _PAGE_NUMBER.search(line):
            paged |= _entry_keys(line)
        elif entry_key(line) in paged or _number_key(line) in paged:
            # An entry's heading in the text, where the contents gave its page ("CAPITOLO I." for
            # "I. GIÙ NELLA CONIGLIERA  1").
            break
        end += 1
    if end >= len(lines) and not all(len(line.strip()) <= HEADING_CHARS for line in lines[start:]):
        return lines, []
    # Short lines to the end of the text are a contents printed at the end, as French and Catalan
    # books print their "TABLE" or "INDEX".
    return lines[:start] + lines[end:], _entries(lines[start + 1 : end])


def _unlabelled_contents(lines: list[str]) -> tuple[int, int] | None:
    """Where a contents with no "CONTENTS" over it starts and ends: the first run of lines, blank
    lines apart, that number one division from one ("ACT I.  Algernon Moncrieff's Flat", "ACT II.
    The Garden", ...), at least three of them, every one of whose divisions heads the text later
    ("FIRST ACT")."""
    keys = [division_key(line.strip()) if len(line.strip()) <= HEADING_CHARS else "" for line in lines]
    run: list[tuple[int, str]] = []  # each line of the run, with its division key
    for n, line in enumerate([*lines, "-"]):
        if not line.strip():
            continue
        key = keys[n] if n < len(lines) else ""
        if key and run and key == _next_key(run[-1][1]):
            run.append((n, key))
            continue
        if len(run) >= LOCATED_ENTRIES:
            after = run[-1][0] + 1
            if {key for _, key in run} <= set(keys[after:]):
                return _with_label(lines, run[0][0]), after
        run = [(n, key)] if key.endswith(" 1") else []
    return None


def _with_label(lines: list[str], start: int) -> int:
    """Where a contents that starts at ``start`` starts with its label: a short line alone right
    above it ("THE SCENES OF THE PLAY") is the page's own name for "CONTENTS"."""
    above = start - 1
    while above >= 0 and not lines[above].strip():
        above -= 1
    alone = above >= 0 and above < start - 1 and (above == 0 or not lines[above - 1].strip())
    if alone and len(lines[above].strip()) <= HEADING_CHARS and not lines[above].rstrip().endswith("."):
        return above
    return start


def _next_key(key: str) -> str:
    """The key of the division after ``key``'s: "act 2" after "act 1"."""
    division, _, number = key.rpartition(" ")
    return f"{division} {int(number) + 1}" if number.isdigit() else ""


def _entries(lines: list[str]) -> list[Entry]:
    """The entries of a contents page's lines: page numbers off, a title set on two lines joined,
    group headings marked, column labels ("Page.", "Bladz.") and bracketed lines ("[Index]") left out."""
    rows: list[tuple[int, str, bool, bool]] = []  # indent, title, paged, after a blank line
    blank = True
    # Where the page numbers end: a first row of a few words ending there too, with no number, is
    # the columns' labels ("CAP.                PAGE.").
    page_ends = sorted(len(line.rstrip()) for line in lines if _PAGE_NUMBER.search(line.strip()))
    page_end = page_ends[len(page_ends) // 2] if page_ends else None
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if not stripped or (indent >= COLUMN_LABEL_INDENT and len(stripped.split()) == 1):
            blank = blank or not stripped
            continue
        labels = (
            page_end is not None and abs(len(line.rstrip()) - page_end) <= 1 and len(stripped.split()) <= 3
        )
        if not rows and labels and not _PAGE_NUMBER.search(stripped):
            continue
        if stripped.startswith("["):
            continue
        stripped = _BULLET.sub("", stripped)
        if roman := _ROMAN_ENTRY.match(stripped):
            # Roman numbers set flush right ("   I.--", " VIII.--") align their ends, not their starts.
            indent += len(roman.group(1))
        title = _PAGE_NUMBER.sub("", stripped)
        paged_line = title != stripped
        title = " ".join(title.replace("_", "").split()).rstrip(".-\u2013\u2014: ")
        rows.append((indent, title, paged_line, blank))
        blank = False
    indents = {row[0] for row in rows}
    rows = [(_level_indent(indent, indents), title, paged, blank) for indent, title, paged, blank in rows]
    paged = any(row[2] for row in rows)
    # A contents set with a blank line between all its entries has no group headings.
    spaced = all(row[3] for row in rows)
    entries: list[Entry] = []
    n = 0
    while n < len(rows):
        indent, title, has_page, after_blank = rows[n]
        following = rows[n + 1] if n + 1 < len(rows) else None
        if paged and not has_page and following and following[2] and not following[3]:
            entries.append(Entry(f"{title} {following[1]}", indent))
            n += 2
            continue
        alone = after_blank and (following is None or following[3])
        group = alone and not has_page and following is not None and not spaced
        entries.append(Entry(title, indent, group=group))
        n += 1
    return [e for e in entries if entry_key(e.title)]


def _level_indent(indent: int, indents: set[int]) -> int:
    """The indent of ``indent``'s level: indents in adjacent columns are one level (the ends of
    "I.", "II.", "VIII." set flush left), the smallest of them standing for it."""
    while indent - 1 in indents:
        indent -= 1
    return indent


def _number_key(line: str) -> str:
    """The number of a chapter line ("CAPITOLO I." is "i"), which a numbered entry ("I. GIÙ NELLA
    CONIGLIERA") answers to; "" for any other line."""
    heading = chapter_line(line.strip())
    return title_key(heading.group(3)) if heading else ""


def _heading_keys(block: str) -> list[str]:
    """The keys a short block could answer an entry with: its first line's, its first two lines',
    and its first line's number alone where that line is a chapter line."""
    lines = [line.strip() for line in block.strip("\n").split("\n")]
    if len(lines) > HEADING_LINES + 1 or lines[0].startswith("["):
        return []
    if any(len(line) > HEADING_CHARS for line in lines):
        return []
    keys = [entry_key(" ".join(lines[:count])) for count in range(1, min(HEADING_LINES, len(lines)) + 1)]
    return [*keys, *filter(None, [_number_key(lines[0])])]


def _answers(key: str, heading: str) -> bool:
    if not key or not heading:
        return False
    if key == heading:
        return True
    long_enough = min(len(key), len(heading)) >= PREFIX_KEY_CHARS
    return long_enough and (key.startswith(heading) or heading.startswith(key))


def located(entries: list[Entry], blocks: list[str]) -> dict[int, Listed]:
    """The blocks that are the contents' entries, each with its entry, when the body's headings
    answer to enough of them in order; else nothing (the contents is no map of this text)."""
    found: dict[int, tuple[Entry, int]] = {}
    position = 0
    for entry in entries:
        wanted = _entry_keys(entry.title)
        for number in range(position, len(blocks)):
            keys = _heading_keys(blocks[number])
            lines = next(
                (n + 1 for n, heading in enumerate(keys) if any(_answers(key, heading) for key in wanted)), 0
            )
            if lines:
                found[number] = (entry, lines)
                position = number + 1
                break
    listed = [e for e in entries if not e.group]
    hits = [entry for entry, _ in found.values() if not entry.group]
    if len(hits) < LOCATED_ENTRIES or len(hits) < LOCATED_SHARE * len(listed):
        return {}
    return _with_levels(found, blocks)


def _with_levels(found: dict[int, tuple[Entry, int]], blocks: list[str]) -> dict[int, Listed]:
    """Which found entries are chapters: group headings and the outermost entries, and the entries
    one level in wherever an entry of the level above runs longer than a chapter does (then that
    level is parts: a short part's entries are chapters too, as its long siblings' are)."""
    starts = sorted(found)
    indents = {n: -1 if entry.group else entry.indent for n, (entry, _) in found.items()}
    outermost = min(indent for indent in indents.values() if indent >= 0)
    sizes = [len(block) for block in blocks]
    outers = {
        number: next((n for n in reversed(starts[:place]) if 0 <= indents[n] < indents[number]), None)
        for place, number in enumerate(starts)
    }
    parts: set[int] = set()  # the indents whose entries are parts, not chapters
    for part in {n for n in outers.values() if n is not None}:
        # The outer entry runs to the next entry no further in than it.
        end = next((n for n in starts if n > part and indents[n] <= indents[part]), len(blocks))
        if sum(sizes[part:end]) > LONGEST_CHAPTER_CHARS:
            parts.add(indents[part])
    chapters: dict[int, Listed] = {}
    for number in starts:
        entry, lines = found[number]
        outer = outers[number]
        chapter = indents[number] <= outermost or outer is None or indents[outer] in parts
        chapters[number] = Listed(entry, lines, chapter=chapter)
    return chapters
