"""PDF: the text layer, laid out by pdfminer.six, made back into paragraphs and chapters.

A PDF is a picture of pages, so what a listener never wants is taken out by its shape: a line that
repeats on many of the pages it spans (running header or footer, digits ignored so page numbers
count as one), a box that is only a page number, a footnote marker set small, a table (short
cells sharing baselines), a listing (a typewriter font), a contents line (dot leaders). Footnotes
(small type at a page's foot) follow ``notes:``. Words hyphenated at a line's end are re-joined (a
hyphen the document also writes inside a line is kept), ligatures are undone, and a paragraph cut
by a page or column break is joined again. Chapters come from the outline's top level (bookmarks)
when it has one, else from lines set larger than the body text, read as HTML headings are. A
chapter's own list of works cited (a section titled "References", "Βιβλιογραφία" ... of short,
dated entries) is not read.
"""

from __future__ import annotations

import re
import statistics
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree
from pdfminer.converter import PDFPageAggregator
from pdfminer.layout import LAParams, LTChar, LTPage, LTTextBox, LTTextLine
from pdfminer.pdfdocument import PDFDocument, PDFNoOutlines, PDFPasswordIncorrect
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import LITERALS_FLATE_DECODE, PDFObjRef, PDFStream, resolve1
from pdfminer.psexceptions import PSException
from pdfminer.psparser import PSLiteral
from pdfminer.utils import decode_text

from narrator.core.book import Book
from narrator.core.errors import BookError, first_line
from narrator.core.language import well_formed_tag
from narrator.text.readers.decode import squash
from narrator.text.readers.html import drafts_at_headings
from narrator.text.readers.matter import build_chapters
from narrator.text.readers.titles import byline, title_from_stem, title_key
from narrator.text.readers.xhtml import Block, Draft, parse_xhtml, tag_of, take_title, text_of

# What pdfminer raises on a damaged file, beyond its own exceptions: it indexes and unpacks freely.
_DAMAGED = (
    PSException,
    ValueError,
    KeyError,
    TypeError,
    IndexError,
    AttributeError,
    AssertionError,
    RecursionError,  # forms nested without end (pdfminer stops only at a form that holds itself)
)
_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})
_DC = "http://purl.org/dc/elements/1.1/"
_HYPHENS = "-\u2010\u00ad"
_BROKEN_WORD = re.compile(rf"(\w+)[{_HYPHENS}]$")
_PAGE_NUMBER = re.compile(r"^[\W_]*(page\s*)?(\d{1,4}|[ivxlcdm]{1,7})(\s*(of|/)\s*\d{1,4})?[\W_]*$", re.I)
# Typewriter fonts by name: Courier, Nimbus Mono (NimbusMonL), TeX's cmtt/sftt, DejaVu Sans Mono,
# Consolas, Menlo ...
_MONOSPACE = re.compile(r"mono|nimbusmon|courier|typewriter|cmtt|sftt|consol|menlo|inconsolata|code", re.I)
# A footnote's own marker, set at its start: "1Notably ...", "* See ..."
_NOTE_MARK = re.compile(r"^[\d*†‡§]+\s*")
# A table cell that names something: two letters in a row ("Gzero", "Name"), not "1." or "•".
_NAME = re.compile(r"[^\W\d_]{2}")
_SPACED = re.compile(r"\b\w(?: \w\b){2,}")
# A figure's or table's caption: "Table 1: EU Countries", "Figure 3. The rotunda", "Fig. 2."
_CAPTION = re.compile(r"^(Table|Figure|Fig\.|Plate|Illustration)\s+[\dIVXLC]+[.:]\s")
# A section listing works cited, in the book's language, as title_key writes it (letters and digits,
# no accents or spaces): "Bibliography", "7.5 References", "Βιβλιογραφία", "Список литературы".
_REFERENCES_TITLE = re.compile(
    r"^\d*(selected|annotated)?(bibliograph(y|ie)|bibliografi(a|e|ja)?|библиография"
    r"|бібліографія|βιβλιογραφια|(βιβλιογραφικεσ)?αναφορεσ|references?(bibliographiques)?"
    r"|referencias(bibliograficas)?|riferimenti(bibliografici)?|literatur(verzeichnis)?|literatuur"
    r"|literatura|literature(cited)?|workscited|citedworks|furtherreading|литература|списоклитературы"
    r"|література|参考文献|參考文獻|kaynakca)$"
)
# What nearly every entry of a reference list holds: a year ("2018", "1999a") or "n.d.".
_CITED_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)[a-z]?\b|\bn\. ?d\.", re.I)
#: A reference list's entries are at most this long, and at least this share of them hold a year:
#: prose under such a title (a history's "Literature") is not a list.
CITATION_CHARS = 500
CITATION_SHARE = 0.6
# Markup printed as text, where a document's HTML was not rendered ('il link a n ame="adrotate-img">'):
# the end of a tag, its attributes quoted.
_TAG_END = re.compile(r"(?:<\w+)?(?:\s*[\w-]+=\"[^\"<>]*\")+\s*/?>")
# A contents line: a title, dot leaders, a page number ("2.1 XML Input . . . . . . 9").
_LEADERS = re.compile(r"(?:\.\s*){5,}\S{0,8}$")
# A document info title that only names the file it was made from ("Microsoft Word - story.docx").
_FILE_TITLE = re.compile(r"^microsoft \w+ - |\.(docx?|odt|rtf|tex|dvi|txt|indd|pages)$", re.I)
# A web address cut at a line's end after a separator ("https:" / "//github.com", "github." / "io/"),
# going on in lower case or after a slash: a sentence after an address starts in capitals.
_URL_BROKEN = re.compile(r"(https?:|www\.)\S*(?<=[:/.\-_?=&#%])$", re.I)
_URL_GOES_ON = re.compile(r"[a-z0-9/]")
_SENTENCE_END = re.compile(r"[.!?:;\u2026\"'\u201d\u2019»)\]]$")
#: An edge line on at least this share of the pages it spans (and on 3 or more) is a running header
#: or footer.
RUNNING_SHARE = 0.4
#: A line this much larger than the body text is a heading; this much smaller, a note or caption.
HEADING_RATIO = 1.15
SMALL_RATIO = 0.85
#: A page is in two columns when each half holds this share of its text in boxes of its own.
COLUMN_SHARE = 0.3
#: Letters in another type than typewriter that make a mostly typewriter line prose, not a listing.
LISTING_WORD_LETTERS = 4
#: The most characters a table cell's line holds.
TABLE_CELL_CHARS = 30
#: A table has at least this many rows, and a row at least this many cells of short text.
TABLE_ROWS = 3
#: Average characters of text per page below which the PDF is taken for a scan.
MIN_CHARS_PER_PAGE = 20
MiB = 1024 * 1024
#: Most bytes one compressed stream, and all of them, may inflate to: pdfminer inflates a stream
#: whole, so a small file could otherwise fill the memory (a zip bomb in a PDF).
MAX_STREAM_BYTES = 256 * MiB
MAX_TOTAL_BYTES = 1024 * MiB


@dataclass
class _Line:
    page: int
    #: The top of the line, in PDF units from the page's foot.
    top: float
    size: float
    text: str
    #: The box (pdfminer's paragraph) the line is in, numbered across the book.
    box: int
    #: The share of the page's height below the line's top: 1.0 at the top edge.
    height: float
    #: Left and right ends of the line, and of its box.
    x0: float
    x1: float
    box_x0: float
    box_x1: float
    #: How many footnote markers (small raised digits) the line had.
    markers: int = 0


def _typewriter(line: LTTextLine) -> bool:
    """Set in a typewriter font, with no word in another type: a line of code. A prose line holding
    a web address or a tag in typewriter ("... at https://ethereum.github.", "the <Global> block.")
    is not."""
    chars = [c for c in line if isinstance(c, LTChar)]
    other = [c for c in chars if not _MONOSPACE.search(c.fontname)]
    return len(other) < len(chars) / 2 and sum(c.get_text().isalpha() for c in other) < LISTING_WORD_LETTERS


def _text(line: LTTextLine) -> tuple[str, float, int]:
    """The line's text without small raised footnote markers, and its median character size."""
    chars = [c for c in line if isinstance(c, LTChar)]
    if not chars:
        return squash(line.get_text()), 0.0, 0
    size = statistics.median(c.size for c in chars)
    kept = []
    markers = 0
    marker = False  # the previous character was a marker's: "12" is one marker
    for item in line:
        text = item.get_text()
        # A footnote marker: a digit or dagger set much smaller than the line, raised above it.
        small = isinstance(item, LTChar) and item.size < 0.9 * size and item.y0 > line.y0 + 0.2 * size
        if small and (text.isdigit() or text in "*†‡§"):
            markers += not marker
            marker = True
            continue
        marker = False
        kept.append(text)
    # Letter-spaced words ("K U R T   W O L F F") come out a letter at a time; words stay apart.
    text = _SPACED.sub(lambda m: m.group().replace(" ", ""), "".join(kept))
    return squash(text.translate(_LIGATURES)), size, markers


def _pages(document: PDFDocument) -> Iterator[tuple[int, LTPage]]:
    manager = PDFResourceManager()
    device = PDFPageAggregator(manager, laparams=LAParams(char_margin=4.0))
    interpreter = PDFPageInterpreter(manager, device)
    for number, page in enumerate(PDFPage.create_pages(document)):
        interpreter.process_page(page)
        yield number, device.get_result()


def _in_columns(boxes: list[LTTextBox], width: float) -> list[LTTextBox]:
    """A two-column page's boxes in reading order: between two boxes that span the page (a header,
    a title, a wide table), the left column top to bottom, then the right. pdfminer orders boxes by
    a score that mixes columns where a column holds short boxes (equation numbers, a heading), so
    that on the Yellow Paper's page 7 section 6 began before section 5's heading. A page not in two
    columns keeps pdfminer's order."""
    middle = width / 2
    left = [b for b in boxes if b.x1 <= middle]
    right = [b for b in boxes if b.x0 >= middle]
    chars = sum(len(b.get_text()) for b in boxes)
    if min(sum(len(b.get_text()) for b in side) for side in (left, right)) < COLUMN_SHARE * chars:
        return boxes
    spanning = sorted((b for b in boxes if b.x0 < middle < b.x1), key=lambda b: -b.y1)

    def place(box: LTTextBox) -> tuple[int, int, float]:
        if box.x0 < middle < box.x1:
            return spanning.index(box) + 1, 0, 0.0
        band = sum(s.y0 >= box.y1 - 1 for s in spanning)  # the spanning boxes above it
        return band, 1 if box.x1 <= middle else 2, -box.y1

    return sorted(boxes, key=place)


def _lines(document: PDFDocument) -> tuple[list[_Line], int, list[object]]:
    """Every text line in reading order, the page count, and the pages' object ids."""
    lines: list[_Line] = []
    box = 0
    count = 0
    for number, layout in _pages(document):
        count = number + 1
        height = max(layout.height, 1.0)
        for element in _in_columns([e for e in layout if isinstance(e, LTTextBox)], layout.width):
            box += 1
            in_box = [line for line in element if isinstance(line, LTTextLine)]
            # A box of typewriter lines is a listing, never read; a web address's last piece alone
            # on a line of a paragraph ("io/yellowpaper/paper.pdf.") is the paragraph's.
            code = {id(line) for line in in_box if _typewriter(line)}
            if len(code) * 2 < len(in_box):
                code = set()
            for line in in_box:
                if id(line) not in code:
                    text, size, markers = _text(line)
                    if text:
                        lines.append(
                            _Line(
                                number,
                                line.y1,
                                size,
                                text,
                                box,
                                line.y1 / height,
                                line.x0,
                                line.x1,
                                element.x0,
                                element.x1,
                                markers,
                            )
                        )
    page_ids = [page.pageid for page in PDFPage.create_pages(document)]
    return lines, count, page_ids


def _edges(lines: list[_Line]) -> list[_Line]:
    """The two top and two bottom lines of each page, where headers, footers and page numbers are."""
    pages: dict[int, list[_Line]] = {}
    for line in lines:
        pages.setdefault(line.page, []).append(line)
    edges = []
    for on_page in pages.values():
        ordered = sorted(on_page, key=lambda line: -line.top)
        edges += ordered[:2] + ordered[2:][-2:]
    return edges


def _furniture(lines: list[_Line]) -> set[int]:
    """ids of the page furniture: running headers and footers (an edge line repeated on many pages,
    digits ignored) and page numbers.

    Many is counted over the pages from the line's first to its last: a chapter's title heading
    its pages (every other one, facing the book's title) runs only as long as the chapter."""
    edges = _edges(lines)
    # Its shape and its size: the chapter's title set large on its first page is no header.
    on_pages: dict[tuple[str, int], set[int]] = {}
    for line in edges:
        on_pages.setdefault((_shape(line.text), round(line.size)), set()).add(line.page)
    running = {
        key
        for key, pages in on_pages.items()
        if len(pages) >= 3 and len(pages) >= RUNNING_SHARE * (max(pages) - min(pages) + 1)
    }
    return {
        id(line)
        for line in edges
        if (_shape(line.text), round(line.size)) in running or _PAGE_NUMBER.match(line.text)
    }


def _described_rows(on_page: list[_Line]) -> list[int]:
    """The baselines of a table whose last column is prose (a name, then a value and a description
    that pdfminer joins into one long line): a short cell that names something, at one left edge
    on each row, with a line beside it that starts in the page's left half. Two columns of prose
    share baselines too, but the right one starts past the middle; a list's markers ("1.", "(iv)")
    are not names."""
    middle = (min(line.box_x0 for line in on_page) + max(line.box_x1 for line in on_page)) / 2
    by_top: dict[int, list[_Line]] = {}
    for line in on_page:
        by_top.setdefault(round(line.top), []).append(line)
    labelled: dict[int, list[int]] = {}  # a label column's left edge: its rows
    for top, row in by_top.items():
        row.sort(key=lambda line: line.x0)
        label, rest = row[0], row[1:]
        if (
            len(label.text) <= TABLE_CELL_CHARS
            and _NAME.search(label.text)
            and not _PAGE_NUMBER.match(label.text)
            and any(label.x1 < line.x0 < middle for line in rest)
        ):
            labelled.setdefault(round(label.x0), []).append(top)
    return max(labelled.values(), key=len, default=[])


def _tables(lines: list[_Line]) -> tuple[set[int], list[str]]:
    """ids of the lines of tables, and a plan-log line for each: a table is read as a grid of
    cells, which no listener can follow, so it is skipped.

    A table row is a baseline that three or more boxes of short text share (pdfminer boxes each
    cell apart), or a row of a table whose last column is prose (``_described_rows``); three
    such rows on a page make a table of the boxes that lie between them and hold only short lines
    (a spanning header cell may sit a line or two above), and of the boxes of its rows. Two
    columns of prose share baselines too, but in two long lines."""
    pages: dict[int, list[_Line]] = {}
    for line in lines:
        pages.setdefault(line.page, []).append(line)
    skipped: set[int] = set()
    log = []
    for page, on_page in sorted(pages.items()):
        rows: dict[int, set[int]] = {}
        for line in on_page:
            if len(line.text) <= TABLE_CELL_CHARS:
                rows.setdefault(round(line.top), set()).add(line.box)
        tops = sorted(top for top, boxes in rows.items() if len(boxes) >= TABLE_ROWS)
        described = _described_rows(on_page)
        if len(described) > len(tops):
            tops = sorted(described)
        if len(tops) < TABLE_ROWS:
            continue
        low, high = tops[0] - 1, tops[-1] + 1
        boxes: dict[int, list[_Line]] = {}
        for line in on_page:
            boxes.setdefault(line.box, []).append(line)
        in_rows = {line.box for line in on_page if round(line.top) in tops}
        cells = [
            box
            for number, box in boxes.items()
            if all(low - 2 * line.size <= line.top <= high + 2 * line.size for line in box)
            and (all(len(line.text) <= TABLE_CELL_CHARS for line in box) or (number in in_rows and described))
        ]
        skipped |= {id(line) for box in cells for line in box}
        log.append(f"page {page + 1}: a table of {len(tops)} rows is skipped (tables are not read)")
    return skipped, log


def _shape(text: str) -> str:
    # Spaces too: a header's page number may sit closer when it has two digits ("2018)11").
    return re.sub(r"\d+", "#", re.sub(r"\s+", "", text.lower()))


def _words(lines: list[_Line]) -> Counter[str]:
    return Counter(word.lower() for line in lines for word in re.findall(r"\w+(?:-\w+)*", line.text))


def _join(first: str, second: str, words: Counter[str]) -> str:
    """Two lines as one: a word hyphenated at the end re-joined, unless the book writes it hyphened."""
    broken = _BROKEN_WORD.search(first)
    if broken and second[:1].islower():
        head = broken.group(1)
        tail = re.match(r"\w+", second)
        rest = tail.group() if tail else ""
        hyphened = f"{head}-{rest}".lower()
        compound = first[: broken.start(1)].endswith(tuple(_HYPHENS))  # "two-hundred-" / "cup"
        if first.endswith("-") and (compound or words[hyphened] > words[(head + rest).lower()]):
            return f"{first}{second}"
        return f"{first[: broken.end(1)]}{second}"
    if _URL_BROKEN.search(first) and _URL_GOES_ON.match(second):
        return f"{first}{second}"  # a web address broken at a line's end, with no hyphen
    return f"{first} {second}"


def _indented(line: _Line) -> bool:
    """A line set in from its box's left edge, as a paragraph's first is; a centred line is not."""
    left, right = line.x0 - line.box_x0, line.box_x1 - line.x1
    return left >= line.size and left - right > line.size


@dataclass
class _Paragraph:
    text: str
    size: float
    page: int
    top: float
    #: The pages of the footnote markers in the paragraph, one entry a marker.
    markers: list[int] = field(default_factory=list)


def _paragraphs(lines: list[_Line], words: Counter[str]) -> list[_Paragraph]:
    """Each box's lines as paragraphs: a line set in another size, indented, or after a line that
    ends short of the margin with a sentence, starts a new one."""
    paragraphs: list[_Paragraph] = []
    previous: _Line | None = None
    for line in lines:
        same = (
            previous is not None
            and previous.box == line.box
            and abs(previous.size - line.size) < 0.5
            and not _indented(line)
            and not (
                previous.x1 < previous.box_x1 - 2 * previous.size and _SENTENCE_END.search(previous.text)
            )
        )
        if same and paragraphs:
            paragraphs[-1].text = _join(paragraphs[-1].text, line.text, words)
        else:
            paragraphs.append(_Paragraph(line.text, line.size, line.page, line.top))
        paragraphs[-1].markers += [line.page] * line.markers
        previous = line
    return paragraphs


def _rejoined(paragraphs: list[_Paragraph], body: float, words: Counter[str]) -> list[_Paragraph]:
    """A body paragraph cut by a page or column break (no sentence end, the next one in lower case)
    joined again."""
    joined: list[_Paragraph] = []
    for paragraph in paragraphs:
        last = joined[-1] if joined else None
        if last is not None and len(last.text) == 1 and last.text.isupper() and paragraph.text[:1].isupper():
            last.text, last.size = last.text + paragraph.text, paragraph.size  # a drop capital
            last.markers += paragraph.markers
        elif (
            last is not None
            and abs(last.size - body) < 0.5
            and abs(paragraph.size - body) < 0.5
            and not _SENTENCE_END.search(last.text)
            and paragraph.text[:1].islower()
        ):
            last.text = _join(last.text, paragraph.text, words)
            last.markers += paragraph.markers
        else:
            joined.append(paragraph)
    return joined


def _with_notes(paragraphs: list[_Paragraph], notes: list[_Paragraph]) -> list[_Paragraph]:
    """The page's footnotes each read after the paragraph that holds its marker: a page's notes
    go to its markers in order, a note without a marker after the last paragraph begun by then."""
    holders: dict[int, list[int]] = {}  # page -> the paragraph of each of its markers, in order
    for index, paragraph in enumerate(paragraphs):
        for page in paragraph.markers:
            holders.setdefault(page, []).append(index)
    after: dict[int, list[_Paragraph]] = {}
    for page in sorted({note.page for note in notes}):
        on_page = [note for note in notes if note.page == page]
        begun = [n for n, paragraph in enumerate(paragraphs) if paragraph.page <= page] or [0]
        marked = holders.get(page) or [begun[-1]]
        for number, note in enumerate(on_page):
            note.text = _NOTE_MARK.sub("", note.text)
            after.setdefault(marked[min(number, len(marked) - 1)], []).append(note)
    return [item for n, paragraph in enumerate(paragraphs) for item in (paragraph, *after.get(n, []))]


def _info(document: PDFDocument, name: str) -> str:
    for info in document.info:
        value = resolve1(info.get(name))
        if isinstance(value, bytes):
            return squash(decode_text(value))
        if isinstance(value, str):
            return squash(value)
    return ""


@dataclass(frozen=True)
class _Metadata:
    title: str = ""
    authors: tuple[str, ...] = ()
    language: str = ""
    language_source: str = ""
    date: str = ""


def _xmp(document: PDFDocument) -> dict[str, list[str]]:
    """The Dublin Core values of the XMP packet (title, creator, language, date), each in order."""
    stream = resolve1(document.catalog.get("Metadata"))
    if not isinstance(stream, PDFStream):
        return {}
    try:
        root = parse_xhtml(stream.get_data())
    except (etree.XMLSyntaxError, ValueError, PSException, zlib.error):
        return {}  # a damaged packet costs the metadata, not the book
    values: dict[str, list[str]] = {}
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.startswith(f"{{{_DC}}}"):
            items = [text_of(li) for li in element.iter() if tag_of(li) == "li"] or [text_of(element)]
            values.setdefault(tag_of(element), []).extend(item for item in items if item)
    return values


def _metadata(document: PDFDocument) -> _Metadata:
    """Title, authors, language and date: XMP's first, then the document info's and /Lang."""
    xmp = _xmp(document)
    authors = xmp.get("creator") or re.split(r"\s*[;&]\s*|\s+and\s+", _info(document, "Author"))
    value = resolve1(document.catalog.get("Lang"))
    lang = decode_text(value) if isinstance(value, bytes) else ""
    lang = str(value.name) if isinstance(value, PSLiteral) else lang
    language, source = well_formed_tag(str(lang)), "PDF catalog Lang"
    if not language:
        language = next((tag for item in xmp.get("language", []) if (tag := well_formed_tag(item))), "")
        source = "PDF XMP dc:language"
    date = next((m.group() for d in xmp.get("date", []) if (m := re.match(r"\d{4}(-\d\d(-\d\d)?)?", d))), "")
    title = next(iter(xmp.get("title", [])), "") or _info(document, "Title")
    return _Metadata(
        title="" if _FILE_TITLE.search(title) else title,
        authors=tuple(a for a in authors if a),
        language=language,
        language_source=source if language else "",
        date=date,
    )


def _outline(document: PDFDocument, page_ids: list[object]) -> list[tuple[int, str, int, float | None]]:
    """(level, title, page index, top) of each bookmark that points at a page of this PDF."""
    index = {page_id: n for n, page_id in enumerate(page_ids)}
    entries = []
    try:
        for level, title, dest, action, _ in document.get_outlines():
            target: Any = dest
            if target is None and isinstance(resolve1(action), dict):
                target = resolve1(action).get("D")
            target = resolve1(target)
            if isinstance(target, (bytes, str)):
                target = resolve1(document.get_dest(target))
            if isinstance(target, dict):
                target = resolve1(target.get("D"))
            if not isinstance(target, list) or not target or not isinstance(target[0], PDFObjRef):
                continue
            page = index.get(target[0].objid)
            if page is None:
                continue
            top = target[3] if len(target) > 3 and isinstance(target[3], (int, float)) else None
            entries.append((level, squash(str(title)), page, float(top) if top is not None else None))
    except PDFNoOutlines:
        return []
    return entries


def _outline_level(outline: list[tuple[int, str, int, float | None]]) -> tuple[int, str]:
    """The outline's level of chapters, its top level but where one bookmark stands over the rest
    (a page a browser printed, its <h1> over its <h2>s): that one is the document's title, also
    returned ("" if none), and the chapters are a level down."""
    levels = Counter(level for level, *_ in outline)
    level, title = min(levels), ""
    while levels[level] == 1 and any(levels[deeper] > 1 for deeper in levels if deeper > level):
        title = title or next(entry for at, entry, *_ in outline if at == level)
        level = min(deeper for deeper in levels if deeper > level)
    return level, title


def _outline_drafts(
    paragraphs: list[_Paragraph],
    outline: list[tuple[int, str, int, float | None]],
    top_level: int,
    body: float,
) -> list[Draft]:
    """Paragraphs cut at each bookmark's place at ``top_level``; a bookmark's title names its chapter.

    Deeper bookmarks are a chapter's sections, whose headings the text already holds."""
    # In the outline's order, which is the reading order (on a page of two columns, a height is not).
    starts = [
        (page, -(top + 2 if top is not None else 1e9), title)
        for level, title, page, top in outline
        if level == top_level
    ]
    # Each bookmark cuts at its heading, found by its text from the last cut on; else at its place.
    cuts = []
    found = 0
    for page, top, title in starts:
        key = title_key(title)
        later = range(found, len(paragraphs))
        found = next(
            (
                n
                for n in later
                if paragraphs[n].page in (page, page + 1) and title_key(paragraphs[n].text).startswith(key)
            ),
            next(
                (n for n in later if (paragraphs[n].page, -paragraphs[n].top) >= (page, top)), len(paragraphs)
            ),
        )
        cuts.append((found, title))
    drafts = [Draft("")]
    for n, paragraph in enumerate(paragraphs):
        while cuts and cuts[0][0] <= n:
            drafts.append(Draft(cuts.pop(0)[1]))
        heading = 1 if paragraph.size >= HEADING_RATIO * body else 0
        drafts[-1].blocks.append(Block(paragraph.text, heading=heading))
    drafts += [Draft(title) for _, title in cuts]  # bookmarks past the text's end
    for draft in drafts:
        first = draft.blocks[0] if draft.blocks else None
        if first is not None and first.heading and title_key(first.text).endswith(title_key(draft.title)):
            draft.title, draft.blocks = first.text, draft.blocks[1:]  # "1 Foo" says more than "Foo"
        elif draft.title:
            _, draft.blocks = take_title(draft.blocks, draft.title)
    return drafts


def _without_reference_lists(drafts: list[Draft], bookmarks: set[str]) -> list[str]:
    """Drops each chapter's own list of works cited, and says so: a section titled as one
    ("Bibliography", "Βιβλιογραφία") whose entries are short and dated, up to the next heading of
    its rank or above (or a bookmark's heading), else to the chapter's end. A chapter titled so is
    left to the matter rules."""
    dropped: Counter[str] = Counter()
    paragraphs: Counter[str] = Counter()
    for draft in drafts:
        blocks = draft.blocks
        starts = [n for n, b in enumerate(blocks) if b.text and _REFERENCES_TITLE.match(title_key(b.text))]
        for start in reversed(starts):
            rank = blocks[start].heading or 6
            end = next(
                (
                    n
                    for n in range(start + 1, len(blocks))
                    if 0 < blocks[n].heading <= rank or title_key(blocks[n].text) in bookmarks
                ),
                len(blocks),
            )
            entries = [b.text for b in blocks[start + 1 : end] if b.text]
            cited = [e for e in entries if len(e) <= CITATION_CHARS and _CITED_YEAR.search(e)]
            if not entries or len(cited) < CITATION_SHARE * len(entries):
                continue
            dropped[blocks[start].text] += 1
            paragraphs[blocks[start].text] += len(entries)
            del blocks[start:end]
    return [
        f"not read: {title!r}, a list of works cited, in {count} chapter(s): {paragraphs[title]} paragraph(s)"
        for title, count in dropped.items()
    ]


def _heading_drafts(paragraphs: list[_Paragraph], body: float) -> tuple[str, list[Draft]]:
    """(title, chapters) at the lines set larger than the body text, largest first, as HTML's are.

    The large lines before the first body paragraph are a title page (title, authors, date), not
    headings: the largest of them is the title."""
    first = next((n for n, p in enumerate(paragraphs) if p.size < HEADING_RATIO * body), len(paragraphs))
    front, rest = paragraphs[:first], paragraphs[first:]
    title = max(front, key=lambda p: p.size).text if front else ""
    sizes = sorted({round(p.size) for p in rest if p.size >= HEADING_RATIO * body}, reverse=True)
    levels = {size: min(n + 1, 6) for n, size in enumerate(sizes)}
    blocks = [Block(p.text, heading=levels.get(round(p.size), 0) if len(p.text) <= 200 else 0) for p in rest]
    _, drafts = drafts_at_headings(blocks, title)
    if front:
        drafts.insert(0, Draft("", [Block(p.text) for p in front]))
    return title, drafts


def _typed_title(lines: list[_Line], body: float) -> tuple[list[_Line], str]:
    """(the title page's lines, the title) of a first page whose title is set in the text's own
    type (a Word document's, bold like the text): the lines above its first box of three lines or
    more, the title the first of them in capitals; none if it has no such line, or a larger one."""
    first = [line for line in lines if line.page == lines[0].page] if lines else []
    boxes = Counter(line.box for line in first)
    start = next((n for n, line in enumerate(first) if boxes[line.box] >= 3), 0)
    opening = first[:start]
    if any(abs(line.size - body) >= 0.5 for line in opening):
        return [], ""
    capitals = (line.text for line in opening if line.text.isupper() and len(line.text.split()) <= 12)
    title = next(capitals, "")
    return (opening, title) if title else ([], "")


def _inflated_size(data: bytes, limit: int) -> int:
    """How many bytes a Flate stream inflates to, counting no further than just past ``limit``."""
    inflater = zlib.decompressobj()
    size = 0
    try:
        while data and size <= limit:
            size += len(inflater.decompress(data, MiB))
            data = inflater.unconsumed_tail
    except zlib.error:
        pass  # pdfminer reads what it can of a corrupt stream; so much is all it can inflate
    return size


def _check_streams(path: Path, document: PDFDocument) -> None:
    """Refuse a PDF whose compressed streams inflate to too much, before pdfminer inflates them."""
    total = 0
    for xref in document.xrefs:
        for objid in xref.get_objids():
            try:
                stream = document.getobj(objid)
            except _DAMAGED:
                continue  # a damaged object costs its own text only, as pdfminer reads it
            if not isinstance(stream, PDFStream) or not any(
                name in LITERALS_FLATE_DECODE for name, _ in stream.get_filters()
            ):
                continue
            size = _inflated_size(stream.get_rawdata() or b"", MAX_STREAM_BYTES)
            total += size
            if size > MAX_STREAM_BYTES or total > MAX_TOTAL_BYTES:
                raise BookError(f"{path}: the PDF decompresses to too much data (a zip bomb?); refusing it")


def _open(path: Path, stream: Any) -> PDFDocument:
    try:
        return PDFDocument(PDFParser(stream))
    except PDFPasswordIncorrect:
        raise BookError(
            f"{path}: the PDF is encrypted (password-protected); narrator cannot read it"
        ) from None
    except _DAMAGED as error:
        raise BookError(f"{path}: not a readable PDF ({first_line(error)})") from None


def read_pdf(path: Path, notes: str = "drop") -> Book:
    with path.open("rb") as stream:
        document = _open(path, stream)
        try:
            _check_streams(path, document)
            lines, pages, page_ids = _lines(document)
            outline = _outline(document, page_ids)
            metadata = _metadata(document)
        except _DAMAGED as error:
            raise BookError(f"{path}: the PDF is damaged ({first_line(error)})") from None
    title = metadata.title or title_from_stem(path)
    authors = metadata.authors
    if sum(len(line.text) for line in lines) < MIN_CHARS_PER_PAGE * max(pages, 1):
        raise BookError(
            f"{path}: the PDF has no text layer (a scan?); run OCR on it first (e.g. ocrmypdf) and try again"
        )
    furniture = _furniture(lines)
    tables, log = _tables(lines)
    lines = [
        line
        for line in lines
        if id(line) not in furniture and id(line) not in tables and not _LEADERS.search(line.text)
    ]
    body = Counter(round(line.size, 1) for line in lines for _ in line.text).most_common(1)[0][0]
    # Small type at a page's foot: footnotes, out of the text's flow whichever ``notes`` says.
    foot = [line for line in lines if line.size <= SMALL_RATIO * body and line.height < 0.3]
    notes_ids = {id(line) for line in foot}
    lines = [line for line in lines if id(line) not in notes_ids]
    words = _words(lines + foot)
    # No title described, none set large: a title page in the text's own type is not read as text.
    opening, typed = _typed_title(lines, body) if not (outline or metadata.title) else ([], "")
    lines = lines[len(opening) :]
    paragraphs = _rejoined(_paragraphs(lines, words), body, words)
    if notes == "read" and foot:
        size = statistics.median(line.size for line in foot)
        paragraphs = _with_notes(paragraphs, _rejoined(_paragraphs(foot, words), size, words))
    if notes == "drop":
        paragraphs = [p for p in paragraphs if not _CAPTION.match(p.text)]
    if tags := [tag for p in paragraphs for tag in _TAG_END.findall(p.text)]:
        log.append(f"not read: {tags[0].strip()!r} and {len(tags) - 1} more like it: markup printed as text")
        for paragraph in paragraphs:
            paragraph.text = squash(_TAG_END.sub(" ", paragraph.text))
    if outline:
        # Pages before the outline's first entry (a title page, a notice, the contents) are front
        # matter that the outline leaves out; the first entry's own page is read whole.
        first_page = min(page for _, _, page, _ in outline)
        if first_page:
            pages_before = f"pages 1-{first_page}" if first_page > 1 else "page 1"
            log.append(f"{pages_before}: before the outline's first entry (front matter), not read")
        paragraphs = [paragraph for paragraph in paragraphs if paragraph.page >= first_page]
        level, outline_title = _outline_level(outline)
        title = metadata.title or outline_title or title
        drafts = _outline_drafts(paragraphs, outline, level, body)
    else:
        found, drafts = _heading_drafts(paragraphs, body)
        title = metadata.title or found or typed or title
        if not any(draft.title for draft in drafts):
            drafts = [Draft(title, [block for draft in drafts for block in draft.blocks])]  # one story
        if typed:
            drafts.insert(0, Draft("", [Block(line.text) for line in opening], skipped_by="title page"))
            # The document info's author of an undescribed document is whoever saved it; a byline
            # on its title page names the author.
            bylines = [names for line in opening if (names := byline(line.text))]
            authors = tuple(bylines) or authors
    log += _without_reference_lists(drafts, {title_key(entry_title) for _, entry_title, _, _ in outline})
    chapters, dropped = build_chapters(drafts, title)
    return Book(
        squash(title),
        chapters,
        authors=authors,
        language=metadata.language or "en",
        language_source=metadata.language_source,
        date=metadata.date,
        notes=(*log, *dropped),
    )
