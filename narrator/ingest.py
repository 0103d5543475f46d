"""Read a book file into chapters and paragraphs; one reader per format."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

from narrator.errors import BookError


@dataclass(frozen=True)
class Chapter:
    title: str
    paragraphs: tuple[str, ...]


@dataclass(frozen=True)
class Book:
    title: str
    chapters: tuple[Chapter, ...]


# Format controls and zero-width characters are invisible and only confuse engines.
_INVISIBLE = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\u00ad]")
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    "|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|first|second|third|fourth|fifth|sixth"
    "|seventh|eighth|ninth|tenth|last"
)
# "Chapter 12", "CHAPTER XIV.", "Part Two: ...", "Book the First"; not "Part of me wanted ...".
_TXT_CHAPTER = re.compile(
    rf"^\s*(chapter|book|part)\s+(the\s+)?([0-9]+|[ivxlcdm]+|(?:{_NUMBER_WORDS})(?:-(?:{_NUMBER_WORDS}))?)\b"
    r"[.:]?\s*(.*)$",
    re.IGNORECASE,
)


def book_id_for(path: str | Path) -> str:
    """A safe slug of the file stem: lowercase letters, digits and single dashes."""
    stem = unicodedata.normalize("NFKD", Path(path).stem).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")
    return slug or "book"


def clean_text(text: str) -> str:
    """Normalise line ends, drop invisible and control characters, keep everything speakable."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _INVISIBLE.sub("", text)
    return "".join(c for c in text if c in "\n\t" or unicodedata.category(c) != "Cc")


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def decode_text(path: Path, data: bytes) -> str:
    """Decode UTF-8 text, refusing binary files and other encodings with a clear reason."""
    if b"\x00" in data[:65536]:
        raise BookError(f"{path}: looks like a binary file, not a text book")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BookError(
            f"{path}: is not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start}); "
            "save it as UTF-8 and run again"
        ) from None


def _title_from_stem(path: Path) -> str:
    return re.sub(r"[-_]+", " ", path.stem).strip().title()


def read_txt(path: Path, text: str) -> Book:
    """Chapters start at "Chapter N"-style lines; paragraphs are separated by blank lines."""
    chapters: list[Chapter] = []
    title, paragraphs = "", []
    for block in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in block.strip().split("\n") if line.strip()]
        if not lines:
            continue
        heading = _TXT_CHAPTER.match(lines[0])
        if heading and len(lines[0]) <= 80:
            if paragraphs or title:
                chapters.append(Chapter(title, tuple(paragraphs)))
            # Gutenberg style: "CHAPTER I." with the chapter's name on the next line.
            title, rest = _squash(lines[0]), lines[1:]
            if not heading.group(4) and rest and len(rest[0]) <= 80:
                title, rest = f"{title} {rest[0]}", rest[1:]
            paragraphs = [_squash(" ".join(rest))] if rest else []
        else:
            paragraphs.append(_squash(" ".join(lines)))
    if paragraphs or title:
        chapters.append(Chapter(title, tuple(paragraphs)))
    return Book(_title_from_stem(path), tuple(chapters))


def _inline_text(children: Iterable) -> str:
    parts = []
    for token in children:
        if token.type in ("text", "code_inline"):
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return _squash("".join(parts))


def read_markdown(path: Path, text: str) -> Book:
    """Chapters at the shallowest heading level used more than once; a lone top heading is the title."""
    tokens = MarkdownIt("commonmark").parse(text)
    levels = [int(t.tag[1]) for t in tokens if t.type == "heading_open"]
    repeated = sorted({lvl for lvl in levels if levels.count(lvl) > 1})
    chapter_level = repeated[0] if repeated else (min(levels) if levels else 0)
    book_title = _title_from_stem(path)
    chapters: list[Chapter] = []
    title, paragraphs = "", []
    heading_level = 0
    for token in tokens:
        if token.type == "heading_open":
            heading_level = int(token.tag[1])
        elif token.type == "inline":
            content = _inline_text(token.children or [])
            if not content:
                continue
            if heading_level and heading_level < chapter_level:
                book_title = content
            elif heading_level and heading_level == chapter_level:
                if paragraphs or title:
                    chapters.append(Chapter(title, tuple(paragraphs)))
                title, paragraphs = content, []
            else:
                paragraphs.append(content)
        elif token.type == "heading_close":
            heading_level = 0
    if paragraphs or title:
        chapters.append(Chapter(title, tuple(paragraphs)))
    return Book(book_title, tuple(chapters))


READERS: dict[str, Callable[[Path, str], Book]] = {
    ".txt": read_txt,
    ".md": read_markdown,
    ".markdown": read_markdown,
}


def read_book(path: str | Path) -> Book:
    """Read any supported book file; BookError with one line for anything the user must fix."""
    path = Path(path)
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise BookError(f"{path}: unsupported book format {path.suffix!r}; use one of {', '.join(READERS)}")
    if not path.is_file():
        raise BookError(f"{path}: no such book file")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise BookError(f"{path}: cannot read the book ({error.strerror})") from None
    book = reader(path, clean_text(decode_text(path, data)))
    chapters = tuple(c for c in book.chapters if c.paragraphs)
    if not chapters:
        raise BookError(f"{path}: the book has no text to speak")
    return Book(book.title, chapters)
