"""Size limits on a book, so a wrong file (a data dump, a whole corpus) fails in seconds, not hours in.

Each is a ``limits.*`` config key; the defaults pass a very long novel with room to spare.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from narrator.core.book import Book
from narrator.core.errors import UserError


class LimitError(UserError):
    """The book is larger than a configured limit."""


@dataclass(frozen=True)
class Limits:
    #: Bytes of the book file, checked before it is read.
    book_bytes: int
    #: Characters of text the book's reader produced.
    book_chars: int
    #: Segments in the plan.
    segments: int

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Limits:
        """The limits of the validated workflow config."""
        limits = config["limits"]
        return cls(limits["book_bytes"], limits["book_chars"], limits["segments"])


def _over(what: str, figure: int, unit: str, limit: int, key: str) -> LimitError:
    return LimitError(
        f"{what} has {figure:,} {unit}, over the limit of {limit:,} (limits.{key}); if the book is "
        f'right, raise it: --config limits="{{{key}: {figure}}}"'
    )


def check_book_bytes(path: Path, limits: Limits) -> None:
    size = path.stat().st_size
    if size > limits.book_bytes:
        raise _over(str(path), size, "bytes", limits.book_bytes, "book_bytes")


def check_book_chars(path: Path, book: Book, limits: Limits) -> None:
    chars = sum(
        len(chapter.title) + sum(len(paragraph) for paragraph in chapter.paragraphs)
        for chapter in book.chapters
    )
    if chars > limits.book_chars:
        raise _over(str(path), chars, "characters", limits.book_chars, "book_chars")


def check_segment_count(count: int, limits: Limits) -> None:
    if count > limits.segments:
        raise _over("the plan", count, "segments", limits.segments, "segments")
