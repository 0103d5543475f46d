"""Aozora Bunko's plain-text notation (青空文庫の注記): 17,000 Japanese books are written in it.

A file opens with its title and author lines, then, between two dashed lines, a legend of the
notation; it ends with a colophon from "底本：" (the print edition) on. Headings are editor notes
after the line they name, ``［＃「第一夜」は中見出し］``; ruby readings are ``《…》``, and ``｜``
marks where a ruby's base text starts; other ``［＃…］`` notes place text or describe characters.
What is read: the base text of every line, chaptered at the most used heading level; short
lines in a row inside an indented block are a stanza of verse. The ruby
readings are dropped: the engine reads the base text, as a reader of the page would.
"""

from __future__ import annotations

import re

from narrator.core.book import Book
from narrator.text.readers.decode import squash
from narrator.text.readers.matter import AOZORA_COLOPHON, build_chapters
from narrator.text.readers.titles import bare_number
from narrator.text.readers.xhtml import Block, Draft

_LEGEND = "【テキスト中に現れる記号について】"
_DASHES = re.compile(r"^-{10,}\s*$")
_HEADING = re.compile(r"［＃「(?P<title>[^」]+)」は(?P<level>大|中|小)見出し］")
_LEVELS = {"大": 1, "中": 2, "小": 3}
_NOTE = re.compile(r"［＃[^］]*］")
_RUBY = re.compile(r"《[^》]*》")
# A heading set between two notes, 小見出し … 小見出し終わり, rather than named after its line.
_ENCLOSED_HEADING = re.compile(r"［＃(?P<level>大|中|小)見出し］(?P<title>.*?)［＃(?P=level)見出し終わり］")
# A Roman numeral the character set lacks, as a note naming its number (ローマ数字2).
_ROMAN_GAIJI = re.compile(r"※［＃ローマ数字(?P<n>\d{1,2})、[^］]*］")
_ROMAN = ("", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")
# Verse is set off in an indented block, from ここから２字下げ to ここで字下げ終わり.
_BLOCK_START = re.compile(r"［＃ここから[^］]*字下げ")
_BLOCK_END = "［＃ここで字下げ終わり］"
#: A line of verse runs at most this many characters; ...
VERSE_LINE_CHARS = 30
# ... a paragraph of prose opens with one ideographic space, or with a quotation.
_PROSE_LINE = re.compile(r"^(\u3000(?!\u3000)|[「『（(])")


def is_aozora(text: str) -> bool:
    """Whether a text is in Aozora notation: its legend, or its editor notes and colophon."""
    return _LEGEND in text[:5000] or ("［＃" in text and AOZORA_COLOPHON.search(text) is not None)


def _plain(line: str) -> str:
    return squash(_RUBY.sub("", _NOTE.sub("", line)).replace("｜", "").replace("※", ""))


def _is_verse_line(line: str, plain: str) -> bool:
    """A short line, neither a paragraph of prose nor a line of dialogue: in an indented block,
    lines in a row that are all verse lines are one stanza, read with a pause at each line."""
    text = _NOTE.sub("", line)
    return bool(plain) and len(plain) <= VERSE_LINE_CHARS and not _PROSE_LINE.match(text)


def _notation(line: str) -> str:
    """A line with its Roman numerals written out and an enclosed heading as a named one."""
    line = _ROMAN_GAIJI.sub(lambda m: _ROMAN[int(m["n"])] if int(m["n"]) < len(_ROMAN) else "", line)
    return _ENCLOSED_HEADING.sub(
        lambda m: f"{m['title']}［＃「{_plain(m['title'])}」は{m['level']}見出し］", line
    )


def _verse_lines(lines: list[str], plains: list[str]) -> list[bool]:
    """Which lines are verse: short lines in an indented block, neither prose nor headings."""
    flags = []
    indented = False
    for line, plain in zip(lines, plains, strict=True):
        indented = indented or _BLOCK_START.search(line) is not None
        flags.append(indented and not _HEADING.search(line) and _is_verse_line(line, plain))
        indented = indented and _BLOCK_END not in line
    return flags


#: A book whose lines are this share verse at least is a book of poems: ...
VERSE_BOOK_SHARE = 0.6


def _chapter_level(lines: list[str], plains: list[str], verse: list[bool]) -> int:
    """The highest heading level used more than once; in a book of poems, the level below it
    where headings name poems rather than number a poem's parts (中見出し under 大見出し), since
    poetry is listened to poem by poem."""
    headings = [(_LEVELS[m["level"]], _plain(m["title"])) for line in lines if (m := _HEADING.search(line))]
    levels = [level for level, _ in headings]
    repeated = sorted({level for level in levels if levels.count(level) > 1})
    if not repeated:
        return min(levels) if levels else 0
    body = sum(bool(plain) for plain in plains) - len(headings)
    if body <= 0 or sum(verse) < VERSE_BOOK_SHARE * body:
        return repeated[0]
    named = [
        level
        for level in repeated[1:]
        if 2 * sum(bare_number(title) is None for at, title in headings if at == level) > levels.count(level)
    ]
    return named[0] if named else repeated[0]


def parse_aozora(text: str) -> Book:
    lines = [_notation(line) for line in text.split("\n")]
    title, author = (_plain(line) for line in [*lines, "", ""][:2])
    start = 2
    dashes = [n for n, line in enumerate(lines[:200]) if _DASHES.match(line)]
    if len(dashes) >= 2 and any(_LEGEND in line for line in lines[dashes[0] : dashes[1]]):
        start = dashes[1] + 1
    end = next((n for n, line in enumerate(lines) if AOZORA_COLOPHON.match(line)), len(lines))
    body = lines[start:end]
    plains = [_plain(line) for line in body]
    verse = _verse_lines(body, plains)
    chapter_level = _chapter_level(body, plains, verse)
    drafts = [Draft("")]
    above: dict[int, str] = {}  # the titles of the headings above the chapters, by level
    stanza: list[str] = []

    def end_stanza() -> None:
        drafts[-1].blocks.extend([Block("\n".join(stanza))] if len(stanza) > 1 else map(Block, stanza))
        stanza.clear()

    for line, plain, is_verse in zip(body, plains, verse, strict=True):
        heading = _HEADING.search(line)
        if not is_verse:
            end_stanza()
        level = _LEVELS[heading["level"]] if heading else 0
        if heading and level <= chapter_level:
            above = {at: name for at, name in above.items() if at < level}
            parents = tuple(above[at] for at in sorted(above))
            drafts.append(Draft(_plain(heading["title"]), parents=parents))
            if level < chapter_level:
                above[level] = _plain(heading["title"])
        elif is_verse:
            stanza.append(plain)
        elif plain:
            drafts[-1].blocks.append(Block(plain))
    end_stanza()
    if not drafts[0].blocks:
        drafts.pop(0)
    chapters, producers = build_chapters(drafts, title)
    return Book(
        title,
        chapters,
        authors=(author,) if author else (),
        language="ja",
        language_source="Aozora Bunko notation",
        notes=(
            "Aozora Bunko notation: title and author lines, legend, ruby readings, editor notes "
            f"and the colophon (from line {end + 1}) not read",
            *producers,
        ),
    )
