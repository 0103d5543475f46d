"""What the packaged files say about the book: settings, tags, the cover."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from narrator.core.errors import UserError
from narrator.core.language import iso639_2

GENRE = "Audiobook"


#: iTunes media kind (the MP4 'stik' atom) that marks a file as an audiobook.
STIK_AUDIOBOOK = "2"


#: Cover images an MP4 or ID3 tag can hold as they are; anything else is converted to PNG.
COPYABLE_COVERS = {".jpg", ".jpeg", ".png"}


@dataclass(frozen=True)
class PackageSettings:
    """The config's packaging keys."""

    ffmpeg: str = "auto"
    m4b_bitrate: str = "64k"
    m4b_aac_coder: str = "twoloop"
    faststart: bool = False
    chapter_format: str = "opus"
    chapter_bitrate: str = "48k"
    #: Release date for the tags, overriding the book's own; empty for the book's own, if any.
    year: str = ""
    #: A cover image overriding the book's own; empty for the book's own, if any.
    cover: str = ""

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> PackageSettings:
        """The packaging keys of the validated workflow config."""
        encode = config["encode"]
        return cls(
            ffmpeg=config["ffmpeg"],
            m4b_bitrate=encode["m4b_bitrate"],
            m4b_aac_coder=encode["m4b_aac_coder"],
            faststart=encode["faststart"],
            chapter_format=encode["chapter_format"],
            chapter_bitrate=encode["chapter_bitrate"],
            year=str(config["year"] or ""),
            cover=config["cover"] or "",
        )


@dataclass(frozen=True)
class BookInfo:
    title: str
    authors: tuple[str, ...]
    language: str
    cover: Path | None
    #: Publication date for the tags; empty when neither the book nor the config gives one.
    date: str = ""

    @property
    def artist(self) -> str:
        return ", ".join(self.authors)


def book_info(book_json: str | Path, settings: PackageSettings) -> BookInfo:
    """Title, authors, language, date and cover from the plan's book.json; the config's cover and
    year win over the book's."""
    book_json = Path(book_json)
    data = json.loads(book_json.read_text(encoding="utf-8"))
    cover = None
    if settings.cover:
        cover = Path(settings.cover)
        if not cover.is_file():
            raise UserError(f"config cover: {settings.cover}: no such image file")
    elif data.get("cover"):
        cover = book_json.parent / data["cover"]
        if not cover.is_file():
            cover = None
    return BookInfo(
        title=str(data.get("title") or book_json.parent.name),
        authors=tuple(str(a) for a in data.get("authors") or ()),
        language=str(data.get("language") or ""),
        cover=cover,
        date=str(settings.year).strip() or str(data.get("date") or ""),
    )


def cover_args(cover: Path | None, input_index: int) -> list[str]:
    if cover is None:
        return []
    codec = "copy" if cover.suffix.lower() in COPYABLE_COVERS else "png"
    # No -frames:v here: a frame limit on the picture ends the whole output early in the MP4 muxer.
    return ["-map", f"{input_index}:v:0", "-c:v", codec, "-disposition:v:0", "attached_pic"]


def book_tags(info: BookInfo) -> dict[str, str]:
    """File-level tags from the book alone: no date where it has none, its language where known."""
    tags = {
        "title": info.title,
        "album": info.title,
        "artist": info.artist,
        "album_artist": info.artist,
        "genre": GENRE,
    }
    if info.date:
        tags["date"] = info.date
    if iso639_2(info.language) != "und":
        tags["language"] = iso639_2(info.language)
    return tags
