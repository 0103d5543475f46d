"""One audio file per chapter, cut from the master's exact sample range."""

from __future__ import annotations

import os
import re
import shutil
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import IO

from narrator.core.errors import UserError
from narrator.core.lock import holding
from narrator.core.publish import folder_is_whole, publish_dir, remove_stale, temp_path
from narrator.core.timeline import Chapter, Timeline, book_timeline
from narrator.package.ffmpeg import (
    Metadata,
    feed_master,
    ffmetadata_args,
    find_ffmpeg,
    pcm_input,
    run_ffmpeg,
    write_ffmetadata,
)
from narrator.package.metadata import BookInfo, PackageSettings, book_info, book_tags, cover_args

CHAPTER_FORMATS = {"opus": ("libopus", "opus"), "mp3": ("libmp3lame", "mp3")}


_UNSAFE = re.compile(r'[\x00-\x1f\x7f-\x9f/\\:*?"<>|]+')


NAME_BYTES = 120


def safe_filename(title: str, fallback: str) -> str:
    """A file name part that is valid on Linux, macOS and Windows: no separators, reserved or control
    characters, no leading or trailing dots or spaces, at most NAME_BYTES bytes of UTF-8."""
    name = unicodedata.normalize("NFC", title)
    name = re.sub(r"\s+", " ", _UNSAFE.sub(" ", name)).strip(" .")
    encoded = name.encode("utf-8")[:NAME_BYTES]
    name = encoded.decode("utf-8", errors="ignore").strip(" .")
    return name or fallback


def chapter_filenames(titles: Sequence[str], extension: str) -> list[str]:
    """``NN - Title.ext``, numbered from 1 with at least two digits."""
    width = max(2, len(str(len(titles))))
    return [
        f"{number:0{width}d} - {safe_filename(title, f'Chapter {number}')}.{extension}"
        for number, title in enumerate(titles, start=1)
    ]


def write_chapter_files(
    output_dir: Path,
    timeline: Timeline,
    info: BookInfo,
    settings: PackageSettings,
    encoding: tuple[str, str],
    input_args: Sequence[str],
    output_args: Sequence[str],
    feed_for: Callable[[Chapter], Callable[[IO[bytes]], None]],
) -> None:
    """One tagged file per chapter, ``NN - Title.<extension>``, the folder published whole.

    ``encoding`` is (extension, muxer); ffmpeg reads the raw PCM that ``feed_for(chapter)`` writes
    (``input_args`` give its format) and encodes it with ``output_args`` (codec, bitrate, filters).
    """
    extension, muxer = encoding
    ffmpeg = find_ffmpeg(settings.ffmpeg)
    chapters = timeline.chapters
    names = chapter_filenames([c.title for c in chapters], extension)
    total = len(chapters)

    remove_stale(output_dir)
    temp_dir = temp_path(output_dir, "")
    temp_dir.mkdir(parents=True)
    try:
        for chapter, name in zip(chapters, names, strict=True):
            tags = {**book_tags(info), "title": chapter.title}
            if muxer == "mp3":
                tags["track"] = f"{chapter.number}/{total}"  # ID3 TRCK "n/N"
            else:
                tags.update(track=str(chapter.number), TRACKTOTAL=str(total))  # Vorbis comments
            metadata = Metadata(tags=tags)
            meta = write_ffmetadata(temp_dir.with_name(f"{temp_dir.name}.ffmetadata"), metadata)
            args: list[str | os.PathLike[str]] = [*input_args, "-i", "pipe:0", "-i", meta]
            cover = info.cover if muxer == "mp3" else None  # ffmpeg's Ogg muxer takes no picture stream
            if cover is not None:
                args += ["-i", cover]
            args += [
                "-map",
                "0:a:0",
                "-map_metadata",
                "1",
                *ffmetadata_args(metadata),
                *cover_args(cover, 2),
            ]
            args += [*output_args, "-f", muxer, temp_dir / name]
            try:
                run_ffmpeg(ffmpeg, args, feed=feed_for(chapter))
            finally:
                meta.unlink()
        publish_dir(temp_dir, output_dir)
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)


#: The chapter files' folder in a book's results folder (the package_chapters rule's output).
CHAPTERS_DIR = "chapters"


def repackage_if_cut(results_dir: Path, dry_run: Callable[[], bool]) -> str | None:
    """Remove a chapter folder that a kill cut short, so that Snakemake packages it again; say so.

    Snakemake empties a directory output before its job runs; a kill then leaves some files gone
    and a folder newer than its inputs, which it would call up to date for ever.
    """
    folder = results_dir / CHAPTERS_DIR
    if not folder.is_dir() or folder_is_whole(folder):
        return None
    problem = f"{folder} is not whole (a run was stopped while it was being made again)"
    if dry_run():
        return f"{problem}; a real run packages the chapter files again"
    with holding(results_dir, "packaging the chapters again"):
        shutil.rmtree(folder)
    return f"{problem}; packaging the chapter files again"


def package_chapters(
    master: str | Path,
    catalog_path: str | Path,
    book_json: str | Path,
    output_dir: str | Path,
    pauses: Mapping[str, float],
    settings: PackageSettings,
) -> str:
    """One file per chapter, cut from the master at the timeline's exact sample offsets."""
    master, output_dir = Path(master), Path(output_dir)
    if settings.chapter_format not in CHAPTER_FORMATS:
        known = sorted(CHAPTER_FORMATS)
        raise UserError(f"config encode.chapter_format: {settings.chapter_format!r} is not one of {known}")
    encoder, muxer = CHAPTER_FORMATS[settings.chapter_format]
    _, timeline = book_timeline(catalog_path, master, pauses)
    write_chapter_files(
        output_dir,
        timeline,
        book_info(book_json, settings),
        settings,
        (settings.chapter_format, muxer),
        pcm_input(timeline.rate),
        ["-c:a", encoder, "-b:a", settings.chapter_bitrate],
        lambda chapter: partial(feed_master, master=master, start=chapter.start, end=chapter.end),
    )
    return f"packaged {len(timeline.chapters)} chapter files ({settings.chapter_format}) into {output_dir}"
