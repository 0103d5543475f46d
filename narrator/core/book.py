"""The book's data model: chapters of paragraphs with their metadata, and the planned segments."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

#: The kind of a credits chapter (narrator.text.credits): its title marks it in the audiobook but is not
#: spoken, since its first words already say what it is.
CREDITS = "credits"
#: Characters of text in about one minute of speech (158 words a minute, 5.7 characters a word):
#: how long a chapter is heard, judged from its text before any audio exists.
CHARS_PER_MINUTE = 900
#: A chapter a listener navigates by runs at most about this long; a part of several hours holds
#: chapters.
LONGEST_CHAPTER_CHARS = 90 * CHARS_PER_MINUTE

_COVER_EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp"}


@dataclass(frozen=True)
class Chapter:
    title: str
    #: Raw text of each paragraph; a "\n" inside one separates the lines of verse.
    paragraphs: tuple[str, ...]
    #: Indexes (0-based) of paragraphs after which a section ends (a scene break).
    section_ends: frozenset[int] = field(default_factory=frozenset)
    #: "body", or "front"/"back" for matter skipped by default (licence, contents, adverts), or
    #: CREDITS.
    kind: str = "body"
    #: Titles of the parts this chapter sits in, outermost first ("Book the First", ...).
    parents: tuple[str, ...] = ()
    #: For front/back matter, the rule that skips it, named in the plan log.
    skipped_by: str = ""
    #: The notes and captions ``notes: drop`` left unread: (the paragraph, 1-based, they follow; 0
    #: before the first), text. Shown, not read, in the read-along EPUB.
    notes: tuple[tuple[int, str], ...] = ()
    #: Where each paragraph stands in a source EPUB, (spine document, element path) or None, for
    #: the read-along EPUB to wrap its words in place; empty for other formats.
    sources: tuple[tuple[str, str] | None, ...] = ()


def joined(parts: Sequence[Chapter], headed: bool) -> Chapter:
    """The parts as one chapter (the last part's, or the first's when ``headed``), a section break
    between parts; with ``headed`` each part's title is said as a heading before its text.
    Section ends and unread notes move with their paragraphs."""
    paragraphs: list[str] = []
    sources: list[tuple[str, str] | None] = []
    ends: set[int] = set()
    notes: list[tuple[int, str]] = []
    for part in parts:
        if paragraphs:
            ends.add(len(paragraphs) - 1)
        if headed and part.title:
            paragraphs.append(part.title)
            sources.append(None)
        ends |= {len(paragraphs) + n for n in part.section_ends}
        notes += [(len(paragraphs) + after, text) for after, text in part.notes]
        paragraphs += part.paragraphs
        sources += part.sources or [None] * len(part.paragraphs)
    return replace(
        parts[0] if headed else parts[-1],
        paragraphs=tuple(paragraphs),
        section_ends=frozenset(ends),
        notes=tuple(notes),
        sources=tuple(sources) if any(sources) else (),
    )


def trimmed(chapter: Chapter, start: int, end: int) -> Chapter:
    """The chapter's paragraphs ``start`` to ``end``, its section ends, notes and sources with them."""
    if (start, end) == (0, len(chapter.paragraphs)):
        return chapter
    return replace(
        chapter,
        paragraphs=chapter.paragraphs[start:end],
        section_ends=frozenset(n - start for n in chapter.section_ends if start <= n < end - 1),
        notes=tuple((min(max(after - start, 0), end - start), text) for after, text in chapter.notes),
        sources=chapter.sources[start:end],
    )


_IMAGE_MAGIC = (
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_type(data: bytes) -> str | None:
    """The media type of a cover image by its magic bytes; None when it is no image a cover may be."""
    for magic, media_type in _IMAGE_MAGIC:
        if data.startswith(magic):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


@dataclass(frozen=True)
class Cover:
    data: bytes
    media_type: str

    @property
    def extension(self) -> str:
        return _COVER_EXTENSIONS.get(self.media_type, "img")


@dataclass(frozen=True)
class Book:
    title: str
    chapters: tuple[Chapter, ...]
    authors: tuple[str, ...] = ()
    #: BCP 47 language tag, e.g. "en" or "en-GB"; decides text normalization.
    language: str = "en"
    #: Where the book states ``language`` ("OPF dc:language", "Gutenberg 'Language:' line", ...);
    #: empty when it states none and ``language`` is only the default.
    language_source: str = ""
    cover: Cover | None = None
    #: How the source was decoded, reported to the user (txt may be in a legacy encoding).
    encoding: str = "utf-8"
    #: What the reader recovered from or decided, one line each, for the plan log.
    notes: tuple[str, ...] = ()
    #: When the book was published, as its metadata gives it (YYYY, YYYY-MM or YYYY-MM-DD);
    #: empty when it says nothing, and then no date is invented for the tags.
    date: str = ""


#: What follows a segment in the assembled book; assembly maps each to a pause length.
PAUSES = ("clause", "sentence", "line", "paragraph", "section", "chapter", "end")


@dataclass(frozen=True)
class Segment:
    chapter: int
    chapter_title: str
    paragraph: int
    #: The book's own words, for subtitles and for people reading the catalog.
    text: str
    #: What the engine says: normalized, with the lexicon applied; ids and budgets use this.
    spoken: str
    pause_after: str
