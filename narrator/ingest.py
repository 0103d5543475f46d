"""Read any supported book file into a Book, with one clear error for anything the user must fix."""

from __future__ import annotations

import re
import unicodedata
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
    return Book(book.title, chapters, book.authors, book.language, book.cover, book.encoding)
