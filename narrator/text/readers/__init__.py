"""One reader per book format; each turns a file into a Book."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from narrator.core.book import Book
from narrator.text.readers.docx import read_docx
from narrator.text.readers.epub import read_epub
from narrator.text.readers.fb2 import read_fb2
from narrator.text.readers.html import read_html
from narrator.text.readers.kindle import read_kindle
from narrator.text.readers.markdown import read_markdown
from narrator.text.readers.pdf import read_pdf
from narrator.text.readers.rst import read_rst
from narrator.text.readers.txt import read_txt


class Reader(Protocol):
    """Reads one format; ``notes`` ("drop" or "read") says what to do with footnotes and captions."""

    def __call__(self, path: Path, notes: str = "drop") -> Book: ...


READERS: dict[str, Reader] = {
    ".txt": read_txt,
    ".md": read_markdown,
    ".markdown": read_markdown,
    ".rst": read_rst,
    ".epub": read_epub,
    ".html": read_html,
    ".htm": read_html,
    ".xhtml": read_html,
    ".fb2": read_fb2,
    ".fb2.zip": read_fb2,
    ".docx": read_docx,
    ".pdf": read_pdf,
    ".mobi": read_kindle,
    ".azw3": read_kindle,
    ".azw": read_kindle,
}


def book_suffix(path: Path) -> str:
    """The suffix that picks a book's reader: the last one, or both of a zipped FB2's (".fb2.zip")."""
    suffixes = "".join(path.suffixes[-2:]).lower()
    return suffixes if suffixes in READERS else path.suffix.lower()
