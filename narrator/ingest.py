"""Read any supported book file into a Book, with one clear error for anything the user must fix."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from narrator.book import Book
from narrator.errors import BookError
from narrator.readers import READERS


def book_id_for(path: str | Path) -> str:
    """A safe slug of the file stem: lowercase letters, digits and single dashes."""
    stem = unicodedata.normalize("NFKD", Path(path).stem).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")
    return slug or "book"


def read_book(path: str | Path) -> Book:
    """Read a book with the reader for its suffix; drop chapters with nothing to speak."""
    path = Path(path)
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise BookError(f"{path}: unsupported book format {path.suffix!r}; use one of {', '.join(READERS)}")
    if not path.is_file():
        raise BookError(f"{path}: no such book file")
    try:
        book = reader(path)
    except OSError as error:
        raise BookError(f"{path}: cannot read the book ({error.strerror})") from None
    chapters = tuple(c for c in book.chapters if any(p.strip() for p in c.paragraphs))
    if not chapters:
        raise BookError(f"{path}: the book has no text to speak")
    return replace(book, chapters=chapters)


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


def load_book(path: str | Path, include: Iterable[int | str] = (), exclude: Iterable[int | str] = ()) -> Book:
    """Read a book and keep the chapters to narrate."""
    return select_chapters(read_book(path), include, exclude)
