"""Read any supported book file into a Book, with one clear error for anything the user must fix."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from narrator.core.book import Book, Chapter
from narrator.core.errors import BookError
from narrator.core.publish import require_file
from narrator.text.chapter_level import (
    NAME_WORDS,
    at_chapter_lines,
    at_listening_level,
    titled_for_bylines,
    with_front_pieces_folded,
    without_title_pages,
)
from narrator.text.detect_language import settle_language
from narrator.text.limits import Limits, check_book_bytes, check_book_chars
from narrator.text.readers import READERS, book_suffix
from narrator.text.readers.decode import squash
from narrator.text.readers.matter import without_edge_imprints
from narrator.text.readers.titles import (
    bare_number,
    byline,
    chapter_called,
    heads_a_chapter,
    title_from_stem,
    title_key,
)


def book_id_for(path: str | Path) -> str:
    """A safe slug of the file's name without its book suffix (".fb2.zip" whole): lowercase letters,
    digits and single dashes."""
    name = Path(path).name
    name = name[: len(name) - len(book_suffix(Path(path)))]
    stem = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")
    return slug or "book"


def read_book(path: str | Path, notes: str = "drop", limits: Limits | None = None) -> Book:
    """Read a book with the reader for its suffix; drop chapters with nothing to speak.

    With ``limits``, a file too large is refused before it is read, and a text too long right after.
    """
    path = Path(path)
    require_file(path, "book file", BookError)
    reader = READERS.get(book_suffix(path))
    if reader is None:
        raise BookError(f"{path}: unsupported book format {path.suffix!r}; use one of {', '.join(READERS)}")
    if limits is not None:
        check_book_bytes(path, limits)
    try:
        book = reader(path, notes)
    except OSError as error:
        raise BookError(f"{path}: cannot read the book ({error.strerror})") from None
    if limits is not None:
        check_book_chars(path, book, limits)
    if book.title == title_from_stem(path):
        book = titled_by_title_page(book)
    edges, imprints = without_edge_imprints(book.chapters, book.title, book.authors)
    book = replace(book, chapters=tuple(edges), notes=(*book.notes, *imprints))
    lined, split = at_chapter_lines(book.chapters, book.title)
    # Divisions first, so that a cast list before them opens the first act ahead of its scene.
    levels, levelled = at_listening_level(without_title_pages(lined))
    pieces, folded = with_front_pieces_folded(levels, (book.title, *book.authors))
    pieces, bylines = titled_for_bylines(pieces, book.title, book.authors)
    log = (*book.notes, *split, *levelled, *folded, *bylines)
    book = settle_language(replace(book, chapters=tuple(pieces), notes=log))
    chapters = titled_chapters(book.chapters, book.language)
    if not chapters:
        raise BookError(f"{path}: the book has no text to speak")
    return replace(book, chapters=chapters)


#: A title page's line this long is a title; a longer one is a subtitle or a sentence.
TITLE_PAGE_CHARS = 80
#: A subtitle under a title heading is a few words ("Med Illustrationer af Vilhelm Pedersen.").
SUBTITLE_WORDS = 8
# A page title's parts: "Конституція України | від 28.06.1996", "Horace: Odes II - The Latin Library".
_PAGE_TITLE_PARTS = re.compile(r"\s+[|\u2013\u2014]\s+")
# A line that opens on a page or section number ("10 Epilogue") is a contents line, not a title.
_NUMBERED_LINE = re.compile(r"^\d+\s")
# A name has no digits: a line with a year or a number is an edition's, not an author's.
_DIGIT = re.compile(r"\d")


def titled_by_title_page(book: Book) -> Book:
    """A book whose file states no title (its reader fell back to the file's name) is titled by its
    own title page, the front page before its first chapter: the page's heading or first line, and
    its byline ("by William Shakespeare") for the author where none is stated."""
    # A book of one page, all of it taken for a title page, has no page before its first chapter.
    first_body = next((n for n, c in enumerate(book.chapters) if c.kind == "body"), 0)
    page = next((c for c in book.chapters[:first_body] if c.skipped_by == "title page"), None)
    if page is None:
        return book
    lines = [squashed for text in page.paragraphs for line in text.split("\n") if (squashed := squash(line))]
    title = squash(page.title) or (lines[0] if lines else "")
    # A page of one line (the author's name) over a heading that holds no more than a subtitle,
    # or over the one piece the book is: the heading is the book's title ("Hans Christian
    # Andersen" / "Snedronningen", "پریم چند" / "عیدگاہ").
    heading = book.chapters[first_body]
    subtitle = all(len(text.split()) <= SUBTITLE_WORDS for text in heading.paragraphs)
    # (A numbered heading, "CHAPTER I", names a chapter, not the book.)
    one_piece = sum(c.kind == "body" for c in book.chapters) == 1 and not (
        heads_a_chapter(heading.title) or bare_number(heading.title) is not None
    )
    page_author: tuple[str, ...] = ()
    if (
        len(lines) == 1
        and not squash(page.title)
        and squash(heading.title)
        and ((len(heading.paragraphs) <= 1 and subtitle) or one_piece)
    ):
        title = squash(heading.title)
        page_author = (
            (lines[0],) if len(lines[0].split()) <= NAME_WORDS and not _DIGIT.search(lines[0]) else ()
        )
    title = _PAGE_TITLE_PARTS.split(title)[0].strip(" ,;:")
    if not title or len(title) > TITLE_PAGE_CHARS or byline(title) or _NUMBERED_LINE.match(title):
        return book
    bylines = [names for line in lines if (names := byline(line))]
    authors = book.authors or tuple(bylines[:1]) or page_author
    said = f" and author {authors[0]!r}" if authors and not book.authors else ""
    note = f"title {title!r}{said} from the book's title page: the file states none"
    return replace(book, title=title, authors=authors, notes=(*book.notes, note))


#: The most titles one spoken heading joins: book, part, chapter and section are four levels; a
#: contents nested deeper (256 levels in a hostile EPUB) is not read out level by level.
MAX_HEADING_PARTS = 4


def _joined(titles: Iterable[str]) -> str:
    """Titles as one spoken heading: "Book the First: Recalled to Life. Chapter I. The Period";
    a title said twice in a row is said once, and only the innermost MAX_HEADING_PARTS are kept."""
    parts: list[str] = []
    for title in titles:
        part = title.strip().rstrip(".:")
        if part and not (parts and title_key(parts[-1]) == title_key(part)):
            parts.append(part)
    return ". ".join(parts[-MAX_HEADING_PARTS:])


def titled_chapters(chapters: Iterable[Chapter], language: str = "en") -> tuple[Chapter, ...]:
    """Chapters with text, each titled as a listener navigates by it.

    A title-only chapter (a "Book the First" page, an "ACT I" line) has nothing to read: its title
    leads the next chapter's, as do the titles of the parts a chapter is the first one in. A
    chapter titled only by a number is named after the part it is in ("Life: 12"), or "Chapter 12"
    in the book's language ("Глава 12"; the number alone where narrator knows no word for it).
    """
    kept: list[Chapter] = []
    pending: list[str] = []
    announced: tuple[str, ...] = ()
    for chapter in chapters:
        has_text = any(p.strip() for p in chapter.paragraphs)
        if chapter.kind != "body":
            kept += [chapter] if has_text else []
            pending = []  # a heading before the contents page titles nothing
            continue
        if not has_text:
            pending += [chapter.title] if chapter.title.strip() else []
            continue
        title = chapter.title
        number = bare_number(title)
        if number is not None:
            title = f"{chapter.parents[-1]}: {number}" if chapter.parents else chapter_called(title, language)
        shared = 0
        while shared < min(len(announced), len(chapter.parents)) and (
            announced[shared] == chapter.parents[shared]
        ):
            shared += 1
        said = {title_key(t) for t in pending}
        new_parents = [p for p in chapter.parents[shared:] if title_key(p) not in said]
        if number is not None and chapter.parents:
            # The part is already in "Life: 12", whether as a parent or as a title-only chapter.
            new_parents = [p for p in new_parents if p != chapter.parents[-1]]
            pending = [t for t in pending if title_key(t) != title_key(chapter.parents[-1])]
        heading = [*pending, *new_parents, title]
        kept.append(replace(chapter, title=_joined(heading)))
        pending, announced = [], chapter.parents
    return tuple(kept)


def _matches(selector: int | str, index: int, title: str) -> bool:
    if isinstance(selector, int):
        return selector == index
    return re.search(selector, title, re.IGNORECASE) is not None


def select_chapters(book: Book, include: Iterable[int | str] = (), exclude: Iterable[int | str] = ()) -> Book:
    """Body chapters, plus those ``include`` names, minus those ``exclude`` names.

    Selectors are 1-based chapter indexes in the reader's full list, or title regexes
    (case-insensitive). Front and back matter (licences, contents pages) is out by default.
    """
    include, exclude = tuple(include), tuple(exclude)
    for selector in (*include, *exclude):
        if isinstance(selector, str):
            try:
                re.compile(selector)
            except re.error as error:
                raise BookError(f"chapter pattern {selector!r} is not a valid regex ({error})") from None
    chapters = tuple(
        chapter
        for index, chapter in enumerate(book.chapters, start=1)
        if (chapter.kind == "body" or any(_matches(s, index, chapter.title) for s in include))
        and not any(_matches(s, index, chapter.title) for s in exclude)
    )
    if not chapters:
        raise BookError(f"{book.title}: no chapters left to speak after filtering front/back matter")
    return replace(book, chapters=chapters)


def load_book(
    path: str | Path,
    include: Iterable[int | str] = (),
    exclude: Iterable[int | str] = (),
    notes: str = "drop",
    limits: Limits | None = None,
) -> Book:
    """Read a book and keep the chapters to narrate."""
    return select_chapters(read_book(path, notes, limits), include, exclude)
