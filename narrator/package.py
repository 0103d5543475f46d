"""Package the master WAV: an M4B with chapters, tags and cover; per-chapter files; SRT and VTT subtitles.

Every position comes from the timeline (narrator.timeline): the catalog's recorded frames and the
configured pauses, the same layout the master was assembled with. Nothing is re-measured.

Every output is written under a temp name that matches no output pattern (``.<name>.tmp-<pid>.<ext>``,
the real extension last) and published by rename, so a crash leaves either the old output or none.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import shutil
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import IO

import numpy as np
import soundfile as sf

from narrator.audio import pcm_bytes
from narrator.catalog import Row, read_catalog
from narrator.engines.base import usable_cpus
from narrator.errors import CatalogError, UserError
from narrator.ffmpeg import (
    MetaChapter,
    Metadata,
    ffmetadata_args,
    find_ffmpeg,
    parse_ffmetadata,
    read_back,
    run_ffmpeg,
    write_ffmetadata,
)
from narrator.publish import publish_dir, publishing, remove_stale, temp_path
from narrator.timeline import Chapter, Timeline, build_timeline

GENRE = "Audiobook"
#: iTunes media kind (the MP4 'stik' atom) that marks a file as an audiobook.
STIK_AUDIOBOOK = "2"
CHAPTER_FORMATS = {"opus": ("libopus", "opus"), "mp3": ("libmp3lame", "mp3")}
#: Cover images an MP4 or ID3 tag can hold as they are; anything else is converted to PNG.
COPYABLE_COVERS = {".jpg", ".jpeg", ".png"}
_READ_CHUNK = 1 << 18


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


# ISO 639-1 -> ISO 639-2/T, for the MP4 track language (which must be three letters).
_ISO639_PAIRS = (
    "af:afr am:amh ar:ara az:aze be:bel bg:bul bn:ben bs:bos ca:cat cs:ces cy:cym da:dan de:deu "
    "el:ell en:eng eo:epo es:spa et:est eu:eus fa:fas fi:fin fo:fao fr:fra ga:gle gd:gla gl:glg "
    "gu:guj he:heb hi:hin hr:hrv hu:hun hy:hye id:ind is:isl it:ita ja:jpn ka:kat kk:kaz km:khm "
    "kn:kan ko:kor ky:kir la:lat lb:ltz lo:lao lt:lit lv:lav mk:mkd ml:mal mn:mon mr:mar ms:msa "
    "mt:mlt my:mya nb:nob ne:nep nl:nld nn:nno no:nor oc:oci pa:pan pl:pol pt:por ro:ron ru:rus "
    "si:sin sk:slk sl:slv sq:sqi sr:srp sv:swe sw:swa ta:tam te:tel th:tha tl:tgl tr:tur uk:ukr "
    "ur:urd uz:uzb vi:vie yi:yid zh:zho zu:zul"
)
_ISO639 = dict(pair.split(":") for pair in _ISO639_PAIRS.split())


def iso639_2(language: str) -> str:
    """The three-letter code of a BCP 47 tag ('en-GB' -> 'eng'), or 'und' when unknown."""
    primary = language.split("-")[0].split("_")[0].lower()
    if len(primary) == 3 and primary.isalpha():
        return primary
    return _ISO639.get(primary, "und")


def book_timeline(
    catalog_path: str | Path, master: str | Path, pauses: Mapping[str, float]
) -> tuple[list[Row], Timeline]:
    rows = read_catalog(catalog_path)
    timeline = build_timeline(rows, pauses)
    info = sf.info(str(master))
    if (info.frames, info.samplerate) != (timeline.frames, timeline.rate):
        raise CatalogError(
            f"{master} has {info.frames} frames at {info.samplerate} Hz, but the catalog and pauses give "
            f"{timeline.frames} at {timeline.rate} Hz; assemble the book again"
        )
    return rows, timeline


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


# --- M4B ----------------------------------------------------------------------------------------


#: Samples in an AAC frame. Every part but the last holds whole frames: the joined file keeps each
#: part's last frame whole, so a part ending mid-frame would add the rest of that frame as silence.
AAC_FRAME = 1024
#: Digital silence the master must hold on both sides of a cut: an AAC frame and the frame it
#: overlaps, so that whatever an encoder does at a part's edge is silent anyway.
CUT_MARGIN = 2 * AAC_FRAME


def encoding_cuts(timeline: Timeline, parts: int) -> list[int]:
    """Where to cut the master so that ``parts`` encoders can share it: on a frame boundary in a
    pause (digital silence in the master) at least CUT_MARGIN from speech on both sides, each
    nearest to an equal share; fewer cuts where the book has fewer such pauses."""
    candidates = []
    for span in timeline.spans:
        cut = round((span.end + span.pause / 2) / AAC_FRAME) * AAC_FRAME
        if cut - span.end >= CUT_MARGIN and span.end + span.pause - cut >= CUT_MARGIN:
            candidates.append(cut)
    if not candidates:
        return []
    cuts: set[int] = set()
    for share in range(1, parts):
        ideal = timeline.frames * share // parts
        index = bisect.bisect_left(candidates, ideal)
        nearby = candidates[max(0, index - 1) : index + 1]
        cuts.add(min(nearby, key=lambda cut: abs(cut - ideal)))
    return sorted(cuts)


def _concat_list(parts: Sequence[Path]) -> str:
    """An ffmpeg concat script of the parts (beside it). ``inpoint 0`` makes the demuxer drop each
    part's encoder delay (its priming samples), so a part of whole frames decodes to exactly the
    samples it was given; the muxer trims the last part's padding as in any one-part file."""
    quoted = (part.name.replace("'", "'\\''") for part in parts)
    return "ffconcat version 1.0\n" + "".join(f"file '{name}'\ninpoint 0\n" for name in quoted)


def package_m4b(
    master: str | Path,
    catalog_path: str | Path,
    book_json: str | Path,
    output: str | Path,
    pauses: Mapping[str, float],
    settings: PackageSettings,
    threads: int = 1,
) -> str:
    """Encode the master to AAC in an MP4 (iPod/M4B flavour) with chapters, tags and cover.

    ffmpeg's AAC encoder runs on one CPU, so the master is cut inside pauses (``encoding_cuts``)
    into up to ``threads`` parts (no more than this process has CPUs), encoded at once, and the
    parts are joined without re-encoding: as long as the master to the sample, each part's audio
    as a one-piece encode would have it but for the encoder starting afresh in silence at a cut.
    """
    master, output = Path(master), Path(output)
    _, timeline = book_timeline(catalog_path, master, pauses)
    info = book_info(book_json, settings)
    ffmpeg = find_ffmpeg(settings.ffmpeg)
    metadata = Metadata(
        tags={**book_tags(info), "media_type": STIK_AUDIOBOOK},
        chapters=[MetaChapter(c.start, c.end, {"title": c.title}) for c in timeline.chapters],
        timebase=Fraction(1, timeline.rate),
    )
    cuts = encoding_cuts(timeline, min(threads, usable_cpus()))
    spans = list(zip([0, *cuts], [*cuts, timeline.frames], strict=True))
    pcm = ["-f", "s16le", "-ar", str(timeline.rate), "-ac", "1", "-i", "pipe:0"]
    aac = ["-c:a", "aac", "-aac_coder", settings.m4b_aac_coder, "-b:a", settings.m4b_bitrate, "-f", "mp4"]
    with publishing(output) as temp:
        part_files = [temp_path(output, f".part{number}.m4a") for number in range(len(spans))]
        concat = temp_path(output, ".ffconcat")
        meta = write_ffmetadata(temp_path(output, ".ffmetadata"), metadata)
        try:
            with ThreadPoolExecutor(max_workers=len(spans)) as encoders:
                encoded = [
                    encoders.submit(
                        run_ffmpeg, ffmpeg, [*pcm, *aac, part], partial(_feed, master=master, start=a, end=b)
                    )
                    for part, (a, b) in zip(part_files, spans, strict=True)
                ]
                for done in encoded:
                    done.result()
            concat.write_text(_concat_list(part_files), encoding="utf-8")
            args: list[str | os.PathLike[str]] = ["-f", "concat", "-safe", "0", "-i", concat, "-i", meta]
            if info.cover is not None:
                args += ["-i", info.cover]
            args += ["-map", "0:a:0", "-map_metadata", "1", "-map_chapters", "1", *ffmetadata_args(metadata)]
            args += cover_args(info.cover, 2)
            args += ["-c:a", "copy", "-metadata:s:a:0", f"language={iso639_2(info.language)}"]
            if settings.faststart:
                args += ["-movflags", "+faststart"]
            # The ipod muxer is the MP4 muxer in iTunes mode; the brand tells players it is an audiobook.
            args += ["-brand", "M4B ", "-f", "ipod"]
            run_ffmpeg(ffmpeg, [*args, temp])
        finally:
            for leftover in (meta, concat, *part_files):
                leftover.unlink(missing_ok=True)
        _, chapters = parse_ffmetadata(read_back(ffmpeg, temp))
        if len(chapters) != len(timeline.chapters):
            expected = len(timeline.chapters)
            raise UserError(f"{output}: ffmpeg wrote {len(chapters)} chapters, expected {expected}")
    return (
        f"packaged {output}: {len(timeline.chapters)} chapters, {timeline.seconds:.1f} s, "
        f"AAC {settings.m4b_bitrate} in {len(spans)} part(s) at once, cover {'yes' if info.cover else 'none'}"
    )


# --- per-chapter files --------------------------------------------------------------------------

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


def master_blocks(master: Path, start: int, end: int, dtype: str = "int16") -> Iterator[np.ndarray]:
    """Samples [start, end) of the master, a block at a time (a chapter can be hours long)."""
    with sf.SoundFile(str(master)) as wav:
        wav.seek(start)
        remaining = end - start
        while remaining > 0:
            block = wav.read(min(remaining, _READ_CHUNK), dtype=dtype)
            if len(block) == 0:
                raise CatalogError(f"{master} ended before sample {end}")
            yield block
            remaining -= len(block)


def _feed(stdin: IO[bytes], *, master: Path, start: int, end: int) -> None:
    """Stream samples [start, end) of the master into ffmpeg's stdin as raw 16-bit PCM."""
    for block in master_blocks(master, start, end):
        stdin.write(pcm_bytes(block))


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
        ["-f", "s16le", "-ar", str(timeline.rate), "-ac", "1"],
        ["-c:a", encoder, "-b:a", settings.chapter_bitrate],
        lambda chapter: partial(_feed, master=master, start=chapter.start, end=chapter.end),
    )
    return f"packaged {len(timeline.chapters)} chapter files ({settings.chapter_format}) into {output_dir}"


# --- subtitles ----------------------------------------------------------------------------------


def _milliseconds(frames: int, rate: int) -> int:
    return (frames * 1000 + rate // 2) // rate


def timestamp(frames: int, rate: int, separator: str) -> str:
    ms = _milliseconds(frames, rate)
    hours, ms = divmod(ms, 3_600_000)
    minutes, ms = divmod(ms, 60_000)
    seconds, ms = divmod(ms, 1000)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}{separator}{ms:03d}"


def cue_text(text: str, kind: str) -> str:
    """A segment's text as one cue: no blank lines (they end a cue); VTT's &, < and > escaped."""
    lines = [line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    text = "\n".join(line for line in lines if line)
    if kind == "vtt":
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text or "…"


def subtitle_cues(rows: Sequence[Row], timeline: Timeline, kind: str) -> Iterator[str]:
    separator = "," if kind == "srt" else "."
    if kind == "vtt":
        yield "WEBVTT\n\n"
    for number, (row, span) in enumerate(zip(rows, timeline.spans, strict=True), start=1):
        start = timestamp(span.start, timeline.rate, separator)
        end = timestamp(span.end, timeline.rate, separator)
        yield f"{number}\n{start} --> {end}\n{cue_text(row.text, kind)}\n\n"


def write_subtitles(
    catalog_path: str | Path, master: str | Path, output: str | Path, pauses: Mapping[str, float], kind: str
) -> str:
    """One cue per segment, timed from the catalog's frames and the pauses; text is the raw ``text``."""
    if kind not in ("srt", "vtt"):
        raise ValueError(f"unknown subtitle kind {kind!r}")
    output = Path(output)
    rows, timeline = book_timeline(catalog_path, master, pauses)
    with publishing(output) as temp, open(temp, "w", encoding="utf-8", newline="\n") as handle:
        for cue in subtitle_cues(rows, timeline, kind):
            handle.write(cue)
    return f"wrote {len(rows)} {kind.upper()} cues to {output}"
