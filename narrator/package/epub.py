"""The read-along EPUB: an EPUB 3 whose text is highlighted, segment by segment, as its audio plays.

From a source EPUB, the text is the book's own pages, each segment's words wrapped in place
(narrator/package/source_text.py); otherwise, and for a chapter not found there, each chapter is one
XHTML document of the book's words (the catalog's ``text``, one ``<span>`` per segment inside its
paragraph; the title segments in the heading). Each document holding segments has one SMIL media
overlay that points each segment to its clip, and its audio: AAC in MP4 (a core media type of
EPUB 3), cut from the master at the timeline's sample offsets and encoded as the M4B is. Nothing is
aligned or measured: every clip is the timeline's own samples, written to the microsecond (under
half a sample at any rate the engines make, so ``round(seconds * rate)`` gives the sample back).

Each clip is its segment's speech alone: it begins on the segment's first sample and ends after its
last (``clipEnd`` is exclusive), in reading order, so the gaps between clips are the pauses. The
audio is cut where the document changes (book_parts): each file still holds everything from its
start to the next one's (pauses and, in the first, the lead pad), so the files add up to the master."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import tempfile
import time
import uuid
import zipfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote
from xml.sax.saxutils import escape, quoteattr

from narrator.core.catalog import Row, read_plan_record
from narrator.core.cpus import usable_cpus
from narrator.core.language import well_formed_tag
from narrator.core.publish import TEMP_MARK, publishing
from narrator.core.timeline import Timeline, book_timeline
from narrator.package.ffmpeg import feed_master, find_ffmpeg, pcm_input, run_ffmpeg
from narrator.package.m4b import aac_args
from narrator.package.metadata import BookInfo, PackageSettings, book_info
from narrator.package.source_text import ChapterText, SourceText, source_text
from narrator.text.readers.epub import source_package

#: The class a reading system gives the element whose audio is playing (the package's
#: media:active-class); the stylesheet highlights it.
ACTIVE_CLASS = "-epub-media-overlay-active"
#: The folder of the publication inside the zip, and where the OPF sits in it.
ROOT = "EPUB"
OPF = f"{ROOT}/package.opf"
AUDIO_TYPE = "audio/mp4"
#: The cover image types of EPUB 3's core media types, kept as they are; any other becomes a PNG.
COVER_TYPES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".gif": "image/gif"}
#: Characters XML 1.0 cannot hold at all.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_XHTML_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n'
    '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" '
    'xml:lang={lang} lang={lang}>\n<head>\n<meta charset="utf-8"/>\n<title>{title}</title>\n'
    '<link rel="stylesheet" type="text/css" href="style.css"/>\n</head>\n'
)
_STYLE = f"""p {{ text-indent: 1.5em; margin: 0; }}
h1 {{ margin: 2em 0 1em; text-align: center; }}
.note {{ font-size: smaller; margin: 0.5em 1.5em; }}
.{ACTIVE_CLASS} {{ background-color: #ffe58a; color: #000; }}
"""
_CONTAINER = f"""<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="{OPF}" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
"""


def clock(frames: int, rate: int) -> str:
    """``frames`` at ``rate`` as a SMIL clock value in seconds, to the microsecond (exact integers)."""
    micros = (frames * 2_000_000 + rate) // (2 * rate)
    return f"{micros // 1_000_000}.{micros % 1_000_000:06d}s"


@dataclass(frozen=True)
class Clip:
    """One ``<par>``: the row's span and its samples ``[begin, end)`` in its chapter's audio."""

    row: int
    begin: int
    end: int


@dataclass
class Part:
    """A stretch of the book with one document, one overlay and one audio file: a chapter, or, in a
    source EPUB's documents, the segments one document holds (a chapter spread over documents
    gives several; several short chapters in one document, one). Its audio is samples
    ``[start, end)`` of the master, from its first segment (its chapter's start, for a chapter's
    first) to the next part's start, so the parts add up to the master."""

    #: Its overlay's and audio's name: its first chapter's, then -2, -3 for more in that chapter.
    name: str
    #: Its document's href inside the publication's folder.
    document: str
    first_row: int
    last_row: int
    start: int
    end: int


def book_parts(timeline: Timeline, documents: Sequence[str]) -> list[Part]:
    """The book cut where each row's document (``documents``, by row) changes."""
    parts: list[Part] = []
    for chapter in timeline.chapters:
        within = 0
        for row in range(chapter.first_row, chapter.last_row + 1):
            if parts and parts[-1].document == documents[row]:
                parts[-1].last_row = row
                continue
            start = chapter.start if row == chapter.first_row else timeline.spans[row].start
            if parts:
                parts[-1].end = start
            within += 1
            name = f"c{chapter.number:03d}" + (f"-{within}" if within > 1 else "")
            parts.append(Part(name, documents[row], row, row, start, start))
    if parts:
        parts[-1].end = timeline.chapters[-1].end
    return parts


def part_clips(timeline: Timeline, part: Part) -> list[Clip]:
    """The part's clips: each segment's samples, counted from the part's start."""
    return [
        Clip(row, timeline.spans[row].start - part.start, timeline.spans[row].end - part.start)
        for row in range(part.first_row, part.last_row + 1)
    ]


def span_id(row: Row) -> str:
    return f"s{row.sequence}"


def _clean(value: str) -> str:
    """What XML can hold of ``value``, whitespace runs as one space."""
    return " ".join(_NOT_XML.sub("", value).split())


def _text(value: str) -> str:
    return escape(_clean(value))


def _attr(value: str) -> str:
    return quoteattr(_clean(value))


def _span(row: Row) -> str:
    # A line break inside a segment (a verse title) stays one.
    lines = (_text(line) for line in row.text.split("\n"))
    return f'<span id="{span_id(row)}">{"<br/>".join(line for line in lines if line)}</span>'


#: A note narrator did not read, where it stood (the ``notes`` of book.json and of its unread sections).
Note = tuple[int, str]


def _lines(text: str) -> str:
    return "<br/>".join(_text(line) for line in text.split("\n") if line.strip())


def _with_notes(body: Sequence[tuple[int, str]], notes: Sequence[Note]) -> list[str]:
    """The body's elements, each keyed by its paragraph, with each note after the paragraph it follows."""
    keyed = [(key, 0, n, element) for n, (key, element) in enumerate(body)]
    keyed += [
        (after, 1, n, f'<div class="note">{_lines(text)}</div>') for n, (after, text) in enumerate(notes)
    ]
    return [element for *_, element in sorted(keyed)]


def chapter_xhtml(rows: Sequence[Row], title: str, language: str, notes: Sequence[Note] = ()) -> str:
    """One chapter's document: the title segments (paragraph 0) in its heading, a ``<p>`` per
    paragraph, a ``<br/>`` after a verse line, an ``<hr/>`` at a scene break, and the notes left
    unread, each after its paragraph."""
    body: list[tuple[int, str]] = []
    for paragraph, group in itertools.groupby(rows, key=lambda row: row.paragraph):
        members = list(group)
        inline = "".join(
            _span(row) + ("<br/>" if row.pause_after == "line" else " " if row is not members[-1] else "")
            for row in members
        )
        body.append((paragraph, f"<h1>{inline}</h1>" if paragraph == 0 else f"<p>{inline}</p>"))
        if members[-1].pause_after == "section":
            body.append((paragraph, "<hr/>"))
    elements = _with_notes(body, notes)
    if not rows or rows[0].paragraph != 0:
        elements.insert(0, f"<h1>{_text(title)}</h1>")  # credits: their title is not read, only shown
    return _document(elements, title, language, "chapter")


def unread_xhtml(section: Unread, language: str) -> str:
    """A section narrator does not read, shown as the book has it: no spans, no overlay."""
    body = [(number, f"<p>{_lines(text)}</p>") for number, text in enumerate(section.paragraphs, start=1)]
    heading = [f"<h1>{_text(section.title)}</h1>"] if section.title.strip() else []
    return _document(
        [*heading, *_with_notes(body, section.notes)], section.title, language, section.structure
    )


def _document(body: Sequence[str], title: str, language: str, kind: str) -> str:
    head = _XHTML_HEAD.format(lang=_attr(language), title=_text(title))
    return (
        f'{head}<body>\n<section epub:type="{kind}">\n' + "\n".join(body) + "\n</section>\n</body>\n</html>\n"
    )


@dataclass(frozen=True)
class Unread:
    """A section the plan skipped but a reader of the book wants to see (book.json's ``unread``)."""

    title: str
    paragraphs: tuple[str, ...]
    #: The catalog's chapter it comes before (one past the last: after them all).
    before: int
    #: Its structure's epub:type: frontmatter, backmatter, or bodymatter (a chapters.exclude).
    structure: str
    notes: tuple[Note, ...] = ()


def _notes(listed: Any) -> tuple[Note, ...]:
    return tuple((int(after), str(text)) for after, text in listed or ())


def unread_text(book_json: str | Path) -> tuple[list[Unread], dict[int, tuple[Note, ...]]]:
    """What book.json says the plan left unread: the sections, and each chapter's notes (by the
    catalog's chapter number); none from a plan older than them."""
    data = json.loads(Path(book_json).read_text(encoding="utf-8"))
    sections = [
        Unread(
            str(section["title"]),
            tuple(str(paragraph) for paragraph in section["paragraphs"]),
            int(section["before"]),
            f"{section['kind']}matter",
            _notes(section.get("notes")),
        )
        for section in data.get("unread", ())
    ]
    return sections, {int(number): _notes(notes) for number, notes in (data.get("notes") or {}).items()}


def chapter_smil(clips: Sequence[Clip], rows: Sequence[Row], document: str, audio: str, rate: int) -> str:
    """One chapter's media overlay: a ``<par>`` per clip, its text the span, its audio the clip."""
    pars = "".join(
        f'<par id="p-{span_id(rows[clip.row])}"><text src="{document}#{span_id(rows[clip.row])}"/>'
        f'<audio src="{audio}" clipBegin="{clock(clip.begin, rate)}" '
        f'clipEnd="{clock(clip.end, rate)}"/></par>\n'
        for clip in clips
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<smil xmlns="http://www.w3.org/ns/SMIL" xmlns:epub="http://www.idpf.org/2007/ops" version="3.0">\n'
        f"<body>\n{pars}</body>\n</smil>\n"
    )


def nav_xhtml(entries: Sequence[tuple[str, str]], language: str) -> str:
    """The navigation document: every spine document's title, in order."""
    items = "".join(f'<li><a href="{document}">{_text(title)}</a></li>\n' for title, document in entries)
    head = _XHTML_HEAD.format(lang=_attr(language), title="Contents")
    nav = f'<nav epub:type="toc" id="toc">\n<h1>Contents</h1>\n<ol>\n{items}</ol>\n</nav>'
    return f"{head}<body>\n{nav}\n</body>\n</html>\n"


@dataclass(frozen=True)
class _Item:
    id: str
    href: str
    media_type: str
    properties: str = ""
    overlay: str = ""

    def xml(self) -> str:
        extra = f' properties="{self.properties}"' if self.properties else ""
        extra += f' media-overlay="{self.overlay}"' if self.overlay else ""
        return f'<item id="{self.id}" href="{self.href}" media-type="{self.media_type}"{extra}/>'


def package_opf(
    info: BookInfo,
    identifier: str,
    language: str,
    items: Sequence[_Item],
    spine: Sequence[str],
    durations: Mapping[str, str],
    total: str,
    nonlinear: frozenset[str] = frozenset(),
) -> str:
    """The package document: the book's metadata, every overlay's duration and the total, the
    highlight's class, the manifest and the spine (``nonlinear``: its items outside the reading order)."""
    metadata = [
        f'<dc:identifier id="book-id">{identifier}</dc:identifier>',
        f"<dc:title>{_text(info.title)}</dc:title>",
        *(f"<dc:creator>{_text(author)}</dc:creator>" for author in info.authors),
        f"<dc:language>{escape(language)}</dc:language>",
        *([f"<dc:date>{_text(info.date)}</dc:date>"] if info.date else []),
        f'<meta property="dcterms:modified">{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}</meta>',
        *(
            f'<meta property="media:duration" refines="#{ref}">{value}</meta>'
            for ref, value in durations.items()
        ),
        f'<meta property="media:duration">{total}</meta>',
        f'<meta property="media:active-class">{ACTIVE_CLASS}</meta>',
    ]
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" '
        f"xml:lang={_attr(language)}>\n"
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">\n'
        + "\n".join(metadata)
        + "\n</metadata>\n<manifest>\n"
        + "\n".join(item.xml() for item in items)
        + "\n</manifest>\n<spine>\n"
        + "\n".join(
            f'<itemref idref="{idref}" linear="no"/>' if idref in nonlinear else f'<itemref idref="{idref}"/>'
            for idref in spine
        )
        + "\n</spine>\n</package>\n"
    )


def _cover(ffmpeg: str, cover: Path, work: Path) -> tuple[Path, str]:
    """The cover as a core image type: as it is, or converted to PNG."""
    suffix = cover.suffix.lower()
    if suffix in COVER_TYPES:
        return cover, suffix
    converted = work / "cover.png"
    run_ffmpeg(ffmpeg, ["-i", cover, "-frames:v", "1", "-c:v", "png", "-f", "image2", converted])
    return converted, ".png"


def _stored(name: str, compress: int) -> zipfile.ZipInfo:
    """A zip entry of a fixed date, so that an unchanged book packages to the same bytes but the date."""
    entry = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
    entry.compress_type = compress
    return entry


def _write_zip(path: Path, texts: Mapping[str, str | bytes], files: Mapping[str, Path]) -> None:
    """The EPUB's zip: ``mimetype`` first and stored, as OCF requires; the texts (and the source's
    files) deflated; the files (audio, cover: compressed already) stored, streamed from disk."""
    with zipfile.ZipFile(path, "w") as epub:
        epub.writestr(_stored("mimetype", zipfile.ZIP_STORED), "application/epub+zip")
        for name, text in texts.items():
            encoded = text.encode("utf-8") if isinstance(text, str) else text
            epub.writestr(_stored(name, zipfile.ZIP_DEFLATED), encoded)
        for name, source in files.items():
            # An entry streamed in must be declared ZIP64 before it is written, if it will need it.
            large = source.stat().st_size >= zipfile.ZIP64_LIMIT
            with (
                open(source, "rb") as data,
                epub.open(_stored(name, zipfile.ZIP_STORED), "w", force_zip64=large) as out,
            ):
                shutil.copyfileobj(data, out)


def _identifier(catalog_path: str | Path) -> str:
    """A UUID of the book's source (the plan's record of it), the same on every rebuild."""
    source = read_plan_record(catalog_path).source_sha256
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'narrator:source:{source}')}"


def _part_audio(
    ffmpeg: str, master: Path, part: Part, rate: int, settings: PackageSettings, out: Path
) -> None:
    feed = partial(feed_master, master=master, start=part.start, end=part.end)
    run_ffmpeg(ffmpeg, [*pcm_input(rate), "-i", "pipe:0", *aac_args(settings), "-f", "mp4", out], feed)


def _unread_item(
    section: Unread,
    number: int,
    language: str,
    texts: dict[str, str | bytes],
    items: list[_Item],
    spine: list[str],
) -> tuple[str, str]:
    """Add an unread section's document to the package; its navigation entry."""
    document = f"u{number:03d}.xhtml"
    texts[f"{ROOT}/{document}"] = unread_xhtml(section, language)
    items.append(_Item(f"u{number:03d}", document, "application/xhtml+xml"))
    spine.append(f"u{number:03d}")
    return section.title.strip() or "(untitled)", document


def _source_text(
    book: Path | None, book_json: str | Path, rows: Sequence[Row], timeline: Timeline
) -> SourceText | None:
    """The source EPUB's own text with the segments wrapped in place, where the plan recorded where
    its paragraphs stand (book.json's ``sources``); None for any other book."""
    listed = json.loads(Path(book_json).read_text(encoding="utf-8")).get("sources") or {}
    if book is None or not listed:
        return None
    chapters = []
    for chapter in timeline.chapters:
        members = rows[chapter.first_row : chapter.last_row + 1]
        chapters.append(
            ChapterText(
                chapter.number,
                tuple(row.paragraph for row in members),
                tuple(row.text for row in members),
                tuple(span_id(row) for row in members),
                tuple(listed.get(str(chapter.number), ())),
            )
        )
    return source_text(source_package(book), chapters, "style.css")


def _source_items(
    source: SourceText, overlays: Mapping[str, str], texts: dict[str, str | bytes], items: list[_Item]
) -> dict[str, str]:
    """Add the source's documents and files to the package; each document's manifest id."""
    ids = {}
    for number, document in enumerate(source.documents, start=1):
        ids[document.path] = f"d{number:03d}"
        texts[f"{ROOT}/{document.path}"] = document.xhtml
        overlay = overlays.get(document.path, "")
        properties = " ".join(sorted(document.properties))
        items.append(
            _Item(ids[document.path], quote(document.path), "application/xhtml+xml", properties, overlay)
        )
    for number, (path, media_type, data) in enumerate(source.files, start=1):
        texts[f"{ROOT}/{path}"] = data
        items.append(_Item(f"f{number:03d}", quote(path), media_type))
    return ids


def _source_spine(
    source: SourceText, ids: Mapping[str, str], generated: Sequence[tuple[int, str]]
) -> list[str]:
    """The source's reading order, each generated chapter (the credits, a chapter not found in the
    source) before the first source document of a later chapter."""
    pending = list(generated)
    spine = []
    for document in source.documents:
        if document.chapter is not None:
            spine += [idref for number, idref in pending if number < document.chapter]
            pending = [(number, idref) for number, idref in pending if number > document.chapter]
        spine.append(ids[document.path])
    return spine + [idref for _, idref in pending]


def package_epub(
    master: str | Path,
    catalog_path: str | Path,
    book_json: str | Path,
    output: str | Path,
    pauses: Mapping[str, float],
    settings: PackageSettings,
    threads: int = 1,
    book: str | Path | None = None,
) -> str:
    """The read-along EPUB 3: a media overlay and an AAC file per chapter, a navigation document, a
    stylesheet for the highlight and the book's cover, title, authors, language and date. From a
    source EPUB (``book``), its own documents, styles and images, each segment's words wrapped in
    place; otherwise, or for a chapter not found there, a document made of the catalog's text."""
    master, output = Path(master), Path(output)
    rows, timeline = book_timeline(catalog_path, master, pauses)
    source = _source_text(Path(book) if book else None, book_json, rows, timeline)
    info = book_info(book_json, settings)
    language = well_formed_tag(info.language) or "und"
    ffmpeg = find_ffmpeg(settings.ffmpeg)
    rate = timeline.rate
    texts: dict[str, str | bytes] = {"META-INF/container.xml": _CONTAINER, f"{ROOT}/style.css": _STYLE}
    items = [_Item("nav", "nav.xhtml", "application/xhtml+xml", "nav"), _Item("css", "style.css", "text/css")]
    files: dict[str, Path] = {}
    spine: list[str] = []
    durations: dict[str, str] = {}
    # Made after publishing() has removed what killed jobs left; a temp's name, so the next one will.
    with (
        publishing(output) as temp,
        tempfile.TemporaryDirectory(dir=output.parent, prefix=f".{output.name}{TEMP_MARK}") as work_dir,
    ):
        work = Path(work_dir)
        if info.cover is not None:
            cover, suffix = _cover(ffmpeg, info.cover, work)
            files[f"{ROOT}/cover{suffix}"] = cover
            items.append(_Item("cover", f"cover{suffix}", COVER_TYPES[suffix], "cover-image"))
        # The source's own documents show what narrator does not read: no generated sections then.
        unread, notes = unread_text(book_json) if source is None else ([], {})
        placed = source.placed if source is not None else {}
        documents = [placed.get(span_id(row), f"c{row.chapter:03d}.xhtml") for row in rows]
        parts = book_parts(timeline, documents)
        overlays = {part.document: f"mo-{part.name}" for part in parts}
        for part in parts:
            smil, audio = f"{part.name}.smil", f"audio/{part.name}.m4a"
            clips = part_clips(timeline, part)
            texts[f"{ROOT}/{smil}"] = chapter_smil(clips, rows, quote(part.document), audio, rate)
            files[f"{ROOT}/{audio}"] = work / f"{part.name}.m4a"
            items += [
                _Item(f"mo-{part.name}", smil, "application/smil+xml"),
                _Item(f"a-{part.name}", audio, AUDIO_TYPE),
            ]
            durations[f"mo-{part.name}"] = clock(part.end - part.start, rate)
        navigation: list[tuple[str, str]] = []
        generated: list[tuple[int, str]] = []
        for chapter in timeline.chapters:
            for number, section in enumerate(unread, start=1):
                if section.before == chapter.number:
                    navigation.append(_unread_item(section, number, language, texts, items, spine))
            document = documents[chapter.first_row]
            if span_id(rows[chapter.first_row]) not in placed:
                chapter_rows = rows[chapter.first_row : chapter.last_row + 1]
                chapter_notes = notes.get(chapter.number, ())
                texts[f"{ROOT}/{document}"] = chapter_xhtml(
                    chapter_rows, chapter.title, language, chapter_notes
                )
                idref = f"c{chapter.number:03d}"
                items.append(_Item(idref, document, "application/xhtml+xml", overlay=overlays[document]))
                spine.append(idref)
                generated.append((chapter.number, idref))
                navigation.append((chapter.title, document))
            else:
                navigation.append((chapter.title, f"{quote(document)}#{span_id(rows[chapter.first_row])}"))
        for number, section in enumerate(unread, start=1):
            if section.before > len(timeline.chapters):
                navigation.append(_unread_item(section, number, language, texts, items, spine))
        nonlinear: frozenset[str] = frozenset()
        if source is not None:
            document_ids = _source_items(source, overlays, texts, items)
            spine = _source_spine(source, document_ids, generated)
            nonlinear = frozenset(document_ids[d.path] for d in source.documents if not d.linear)
        # ffmpeg's AAC encoder uses one CPU: up to ``threads`` chapters are encoded at once.
        with ThreadPoolExecutor(max_workers=max(1, min(threads, usable_cpus()))) as encoders:
            encoded = [
                encoders.submit(_part_audio, ffmpeg, master, part, rate, settings, work / f"{part.name}.m4a")
                for part in parts
            ]
            for done in encoded:
                done.result()
        texts[f"{ROOT}/nav.xhtml"] = nav_xhtml(navigation, language)
        total = clock(timeline.frames, rate)
        texts[OPF] = package_opf(
            info, _identifier(catalog_path), language, items, spine, durations, total, nonlinear
        )
        _write_zip(temp, texts, files)
    return (
        f"packaged {output}: EPUB 3, {len(timeline.chapters)} chapters, {len(rows)} segments in sync, "
        f"{timeline.seconds:.1f} s of AAC {settings.m4b_bitrate}, cover {'yes' if info.cover else 'none'}"
        + ("" if source is None else f"\n{_source_summary(source, timeline)}")
    )


def _source_summary(source: SourceText, timeline: Timeline) -> str:
    titles = {chapter.number: chapter.title for chapter in timeline.chapters}
    kept = sum(document.chapter is not None for document in source.documents)
    line = (
        f"the source EPUB's own text: {len(source.documents)} documents kept, {kept} of them holding "
        f"segments; {source.found} of {source.paragraphs} paragraphs found, {source.added} titles "
        "narrator made shown before them"
    )
    if source.generated:
        shown = ", ".join(repr(titles[number]) for number in source.generated)
        line += f"; shown generated (not every segment found in place): {shown}"
    return line
