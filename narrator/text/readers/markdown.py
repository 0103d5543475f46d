"""Markdown: chapters at headings, paragraphs as blocks, hard line breaks kept as verse lines."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from narrator.core.book import Book, Chapter
from narrator.text.readers.decode import clean_text, decode_text, squash
from narrator.text.readers.titles import title_from_stem


def _inline_text(children: Iterable[Token]) -> str:
    parts: list[str] = []
    for token in children:
        if token.type in ("text", "code_inline"):
            parts.append(token.content)
        elif token.type == "softbreak":
            parts.append(" ")
        elif token.type == "hardbreak":
            parts.append("\n")
    return "\n".join(squash(line) for line in "".join(parts).split("\n")).strip()


def parse_markdown(text: str, title: str) -> Book:
    """Chapters at the shallowest heading level used more than once; a lone top heading is the title."""
    tokens = MarkdownIt("commonmark").parse(clean_text(text))
    levels = [int(t.tag[1]) for t in tokens if t.type == "heading_open"]
    repeated = sorted({lvl for lvl in levels if levels.count(lvl) > 1})
    chapter_level = repeated[0] if repeated else (min(levels) if levels else 0)
    chapters: list[Chapter] = []
    chapter_title = ""
    paragraphs: list[str] = []
    section_ends: set[int] = set()
    heading_level = 0
    for token in tokens:
        if token.type == "heading_open":
            heading_level = int(token.tag[1])
        elif token.type == "heading_close":
            heading_level = 0
        elif token.type == "hr" and paragraphs:
            section_ends.add(len(paragraphs) - 1)
        elif token.type == "inline":
            content = _inline_text(token.children or [])
            if not content:
                continue
            if heading_level and heading_level < chapter_level:
                title = content
            elif heading_level and heading_level == chapter_level:
                if paragraphs or chapter_title:
                    chapters.append(Chapter(chapter_title, tuple(paragraphs), frozenset(section_ends)))
                chapter_title, paragraphs, section_ends = content, [], set()
            else:
                paragraphs.append(content)
    if paragraphs or chapter_title:
        chapters.append(Chapter(chapter_title, tuple(paragraphs), frozenset(section_ends)))
    return Book(title, tuple(chapters))


def read_markdown(path: Path, notes: str = "drop") -> Book:
    """A Markdown book; ``notes`` is accepted like every reader's, as CommonMark has no footnotes."""
    text, encoding = decode_text(path, path.read_bytes())
    book = parse_markdown(text, title_from_stem(path))
    return Book(book.title, book.chapters, encoding=encoding)
