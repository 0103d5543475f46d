"""Aozora Bunko's plain-text notation (青空文庫の注記): 17,000 Japanese books are written in it.

A file opens with its title and author lines, then, between two dashed lines, a legend of the
notation; it ends with a colophon from "底本：" (the print edition) on. Headings are editor notes
after the line they name, ``［＃「第一夜」は中見出し］``; ruby readings are ``《…》``, and ``｜``
marks where a ruby's base text starts; other ``［＃…］`` notes place text or describe characters.
What is read: the base text of every line, chaptered at the most used heading level. The ruby
readings are dropped: the engine reads the base text, as a reader of the page would.
"""

from __future__ import annotations

import re

from narrator.core.book import Book
from narrator.text.readers.decode import squash
from narrator.text.readers.matter import build_chapters
from narrator.text.readers.xhtml import Block, Draft

_LEGEND = "【テキスト中に現れる記号について】"
_DASHES = re.compile(r"^-{10,}\s*$")
_HEADING = re.compile(r"［＃「(?P<title>[^」]+)」は(?P<level>大|中|小)見出し］")
_LEVELS = {"大": 1, "中": 2, "小": 3}
_NOTE = re.compile(r"［＃[^］]*］")
_RUBY = re.compile(r"《[^》]*》")
_COLOPHON = re.compile(r"^底本[：:]")


def is_aozora(text: str) -> bool:
    """Whether a text is in Aozora notation: its legend, or its editor notes and colophon."""
    return _LEGEND in text[:5000] or (
        "［＃" in text and re.search(r"^底本[：:]", text, re.MULTILINE) is not None
    )


def _plain(line: str) -> str:
    return squash(_RUBY.sub("", _NOTE.sub("", line)).replace("｜", "").replace("※", ""))


def parse_aozora(text: str) -> Book:
    lines = text.split("\n")
    title, author = (_plain(line) for line in [*lines, "", ""][:2])
    start = 2
    dashes = [n for n, line in enumerate(lines[:200]) if _DASHES.match(line)]
    if len(dashes) >= 2 and any(_LEGEND in line for line in lines[dashes[0] : dashes[1]]):
        start = dashes[1] + 1
    end = next((n for n, line in enumerate(lines) if _COLOPHON.match(line)), len(lines))
    levels = [_LEVELS[m["level"]] for line in lines[start:end] for m in _HEADING.finditer(line)]
    repeated = sorted({level for level in levels if levels.count(level) > 1})
    chapter_level = repeated[0] if repeated else (min(levels) if levels else 0)
    drafts = [Draft("")]
    for line in lines[start:end]:
        heading = _HEADING.search(line)
        if heading and _LEVELS[heading["level"]] == chapter_level:
            drafts.append(Draft(_plain(heading["title"])))
        elif plain := _plain(line):
            drafts[-1].blocks.append(Block(plain))
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
