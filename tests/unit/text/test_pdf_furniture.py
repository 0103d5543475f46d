"""Every page's running header, and every word hyphenated across lines, as the PDFs themselves hold
them: the header is never spoken, the word is spoken whole.

The strings come from each PDF's own text, read here with pdfminer directly (not through narrator's
reader), so a header or a hyphenated word narrator misses on any page fails the test.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest
from conftest import BOOKS, DATA
from pdfminer.high_level import extract_pages
from pdfminer.layout import LAParams, LTFigure, LTTextContainer, LTTextLine

from narrator.text.ingest import load_book
from narrator.text.readers.titles import title_key

CAROL = BOOKS / "christmas-carol-xetex.pdf"
YELLOW = BOOKS / "ethereum-yellowpaper-pdftex.pdf"
TEAL = BOOKS / "teal-user-manual-pdftex.pdf"
WORD = BOOKS / "man-without-a-body-word.pdf"
GROFF = DATA / "pdf" / "pianoforte-sonata-ch1-2-groff.pdf"
COLUMNS = DATA / "pdf" / "multicolumn.pdf"
# calibre prints its running header and page number in a Form XObject on each page.
CALIBRE = BOOKS / "die-verwandlung-pg22367-calibre.pdf"

# Each PDF's running header as it prints it; a header above the top 15% of no page counts.
HEADERS = {
    # Odd pages the book's title, even pages the stave's, each with the page number apart.
    CAROL: r"A Christmas Carol|Marley’s Ghost|The (First|Second) of the Three Spirits"
    r"|The Last of the Spirits|The End of It",
    YELLOW: r"ETHEREUM: A SECURE DECENTRALISED GENERALISED TRANSACTION LEDGER BYZANTIUM REVISION"
    r" \(b5aded7 - 2018-01-22\) ?\d+",
    GROFF: r"Shedlock - \d+ - The Pianoforte Sonata",
}
#: Pages narrator does not read (before the outline's first entry), where a hyphenated word is not
#: spoken at all.
FRONT_PAGES = {TEAL: 5}


@cache
def _pages(path: Path) -> tuple[tuple[tuple[tuple[str, float], ...], ...], ...]:
    """Each page's boxes of lines: each line's text (ligatures undone, spaces squashed) and the
    share of the page's height below its top."""
    pages = []
    for page in extract_pages(path, laparams=LAParams(char_margin=4.0)):
        boxes = []
        for box in page:
            if isinstance(box, LTTextContainer):
                lines = [
                    (" ".join(unicodedata.normalize("NFKC", line.get_text()).split()), line.y1 / page.height)
                    for line in box
                    if isinstance(line, LTTextLine)
                ]
                boxes.append(tuple((text, top) for text, top in lines if text))
        pages.append(tuple(boxes))
    return tuple(pages)


@cache
def _paragraphs(path: Path) -> tuple[str, ...]:
    """What is spoken, footnotes included: a word hyphenated in a note is a word too."""
    return tuple(p for c in load_book(path, notes="read").chapters for p in c.paragraphs)


@pytest.mark.parametrize("path", list(HEADERS), ids=lambda p: p.name)
def test_no_pages_running_header_is_spoken(path: Path) -> None:
    pages = _pages(path)
    headers = {
        number: text
        for number, boxes in enumerate(pages, 1)
        for lines in boxes
        for text, top in lines
        if top > 0.85 and re.fullmatch(HEADERS[path], text)
    }
    first = min(headers)
    # The header is on every page from its first on, bar a chapter's opening page here and there.
    assert len(headers) >= 0.9 * (len(pages) - first + 1), sorted(headers)
    paragraphs = _paragraphs(path)
    spoken = " ".join(paragraphs)
    titles = {title_key(c.title.rsplit(". ", 1)[-1]) for c in load_book(path).chapters}
    for number, header in headers.items():
        if title_key(header) in titles:  # a stave's title heads it too, and the story names the Ghost
            assert header not in paragraphs, f"page {number}: {header!r}"
        else:
            assert header not in spoken, f"page {number}: {header!r}"


@cache
def _drawn_in_forms(path: Path) -> tuple[tuple[tuple[str, float], ...], ...]:
    """Each page's lines drawn inside Form XObjects (pdfminer's figures), which pdfminer lays out
    as text only when asked to (``all_texts``): each line's text and the share of the page's
    height below its top."""
    pages = []
    for page in extract_pages(path, laparams=LAParams(char_margin=4.0, all_texts=True)):
        figures = [item for item in page if isinstance(item, LTFigure)]
        pages.append(
            tuple(
                (" ".join(box.get_text().split()), box.y1 / page.height)
                for figure in figures
                for box in figure
                if isinstance(box, LTTextContainer)
            )
        )
    return tuple(pages)


def test_a_header_and_page_numbers_drawn_in_a_form_are_never_spoken() -> None:
    forms = _drawn_in_forms(CALIBRE)
    header = "Franz Kafka · Die Verwandlung"
    headed = [n for n, lines in enumerate(forms, 1) if (header, pytest.approx(0.946, abs=0.01)) in lines]
    numbers = [int(text) for lines in forms for text, top in lines if top < 0.15 and text.isdigit()]
    # Every page but the cover has the header at its top and its number at its foot, in turn.
    assert headed == list(range(2, len(forms) + 1))
    assert numbers == list(range(1, len(forms)))
    paragraphs = _paragraphs(CALIBRE)
    spoken = " ".join(paragraphs)
    assert header not in spoken
    assert not any(p.isdigit() for p in paragraphs)
    # Where a sentence of the story (not the licence after it) runs on over a page break, nothing
    # comes between its words: no page number, no header.
    runs_on = 0
    for number, (page, following) in enumerate(pairwise(_pages(CALIBRE)), 1):
        lines = [line for box in page for line in box]
        after = [line for box in following for line in box]
        if not lines or not after:
            continue
        last = min(lines, key=lambda line: line[1])[0]
        first = max(after, key=lambda line: line[1])[0]
        if last[-1].isalpha() and first[0].islower() and last in spoken and first in spoken:
            runs_on += 1
            assert f"{last} {first}" in spoken, f"page {number}: {last} / {first}"
    assert runs_on >= 20


def _hyphenated(path: Path) -> list[tuple[int, str, str]]:
    """(page, head, tail) of every word a line ends part-way through with a hyphen, the next line
    of its box going on in lower case ("knowl-" / "edge"); not a break after a word's own hyphen.
    (Across boxes, a column's or page's last line and the next box's first, the order is the
    reader's to find, not this test's.)"""
    found = []
    skipped = FRONT_PAGES.get(path, 0)
    for number, boxes in enumerate(_pages(path)[skipped:], skipped + 1):
        for (line, _), (after, _) in (pair for lines in boxes for pair in pairwise(lines)):
            head = re.search(r"(?<![\w-])(\w+)-$", line)
            tail = re.match(r"[a-z]\w*", after)
            if head and tail:
                found.append((number, head.group(1), tail.group()))
    return found


@pytest.mark.parametrize("path", [CAROL, YELLOW, TEAL, WORD, GROFF, COLUMNS], ids=lambda p: p.name)
def test_every_word_hyphenated_across_lines_is_spoken_whole(path: Path) -> None:
    words = _hyphenated(path)
    assert words  # each of these PDFs breaks words across lines
    spoken = " ".join(_paragraphs(path))
    for page, head, tail in words:
        assert f"{head}- {tail}" not in spoken, f"page {page}: {head}-/{tail}"
        assert f"{head}{tail}" in spoken or f"{head}-{tail}" in spoken, f"page {page}: {head}-/{tail}"
