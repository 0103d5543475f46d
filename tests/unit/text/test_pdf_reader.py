"""PDF: outline chapters, page furniture removed, words re-joined, two columns, scans and damage."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from conftest import BOOKS, DATA, one_page_pdf, refused_in_one_line

from narrator.text.ingest import load_book, read_book
from narrator.text.readers import READERS, pdf
from narrator.text.readers.pdf import _outline_level, read_pdf
from narrator.text.readers.xhtml import Block, Draft

# A novel made by calibre (Chromium) with a running header "Franz Kafka · Die Verwandlung", a page
# number on every page and the EPUB's contents as its outline.
NOVEL = BOOKS / "die-verwandlung-pg22367-calibre.pdf"
# pdfTeX files from py-pdf/sample-files: sections with bookmarks after a contents page; a two-column
# article with words hyphenated at line ends; an image-only PDF; a password-protected one.
OUTLINE = DATA / "pdf" / "pdflatex-outline.pdf"
COLUMNS = DATA / "pdf" / "multicolumn.pdf"
SCAN = DATA / "pdf" / "imagemagick-images.pdf"
# groff -ms made it from two chapters of a Gutenberg book (its source beside it): a running header
# "Shedlock - 2 - The Pianoforte Sonata", 97 words hyphenated at line ends, footnotes at the feet.
GROFF = DATA / "pdf" / "pianoforte-sonata-ch1-2-groff.pdf"
LOCKED = DATA / "pdf" / "libreoffice-writer-password.pdf"


def _spoken(path: Path) -> str:
    return " ".join(p for c in load_book(path).chapters for p in c.paragraphs)


def test_pdf_is_registered() -> None:
    assert READERS[".pdf"] is read_pdf


def test_a_novel_plans_its_outline_chapters_without_headers_or_page_numbers() -> None:
    book = load_book(NOVEL)
    assert (book.title, book.authors, book.language) == ("Die Verwandlung", ("Franz Kafka",), "de")
    assert (book.language_source, book.date) == ("PDF XMP dc:language", "2007-08-21")  # calibre's XMP
    assert [c.title for c in book.chapters] == ["Kapitel I", "Kapitel II", "Kapitel III"]
    first = book.chapters[0].paragraphs
    # The drop capital joins its word; a paragraph runs on across the page break after it.
    assert first[0].startswith("ALS Gregor Samsa eines Morgens aus unruhigen Träumen erwachte, fand er")
    assert first[0].endswith("Beine flimmerten ihm hilflos vor den Augen.")
    spoken = _spoken(NOVEL)
    assert "Kafka · Die Verwandlung" not in spoken and "Gutenberg" not in spoken
    assert not any(p.strip().isdigit() for c in book.chapters for p in c.paragraphs)
    last = book.chapters[-1].paragraphs[-1]
    assert last.endswith("die Tochter als erste sich erhob und ihren jungen Körper dehnte.")


def test_outline_entries_are_chapters_and_their_numbered_headings_name_them() -> None:
    whole = read_book(OUTLINE)
    assert "page 1: before the outline's first entry (front matter), not read" in whole.notes
    assert not [c for c in whole.chapters if "Contents" in c.title]
    chapters = load_book(OUTLINE).chapters
    expected = [f"{n} {name}" for n, name in enumerate(["Foo", "Bar", "Baz"] * 3, 1)]
    assert [c.title for c in chapters] == expected
    assert chapters[1].paragraphs[0].startswith("Hello, here is some text without a meaning.")


def test_two_columns_read_in_order_with_hyphenated_words_rejoined_and_ligatures_undone() -> None:
    book = load_book(COLUMNS)
    paragraphs = [p for c in book.chapters for p in c.paragraphs]
    spoken = " ".join(paragraphs)
    # Each was hyphenated across a line in the PDF ("adip-" / "iscing").
    for word in ("adipiscing", "consectetuer", "tristique", "rhoncus", "ultrices", "sollicitudin"):
        assert word in spoken
    assert "adip- " not in spoken and "adip-iscing" not in spoken
    assert "ﬁ" not in spoken and "filled with Lorem" in spoken
    assert "Table 1: EU Countries Information" not in spoken  # a caption, read only with notes: read
    assert "Table 1: EU Countries Information" in " ".join(
        p for c in read_book(COLUMNS, notes="read").chapters for p in c.paragraphs
    )
    # The left column's first paragraph ends before the next one starts, in the order printed.
    lorem = next(n for n, p in enumerate(paragraphs) if p.startswith("Lorem ipsum dolor sit amet"))
    assert paragraphs[lorem].endswith("Duis eget orci sit amet orci dignissim rutrum.")
    assert paragraphs[lorem + 1].startswith("Nam dui ligula, fringilla a, euismod sodales")


@pytest.mark.parametrize(("notes", "read"), [("drop", False), ("read", True)])
def test_footnotes_at_the_page_foot_follow_notes_and_headers_and_hyphens_go(notes: str, read: bool) -> None:
    book = read_book(GROFF, notes=notes)
    body = [c for c in book.chapters if c.kind == "body"]
    assert [c.title for c in body] == ["CHAPTER I. INTRODUCTORY", "CHAPTER II. JOHANN KUHNAU"]
    spoken = " ".join(p for c in body for p in c.paragraphs)
    # The first footnote's text, and its raised marker "1" after "music,", in the body.
    assert ("Musikalisches Lexicon oder musikalische Bibliothek." in spoken) is read
    # (The PDF itself has no space there: its source lost words after the marker.)
    assert "dictionary of music,1" not in spoken and "dictionary of music,Plain and Easy" in spoken
    assert "Shedlock" not in spoken and "- 2 -" not in spoken
    for word in ("his famous Theses", "the father of the quartet", "Sarabande", "considerably"):
        assert word in spoken
    assert "fa- mous" not in spoken and "quar- tet" not in spoken
    paragraphs = [p for c in body for p in c.paragraphs]
    if read:  # each note after the paragraph of its marker, its own marker gone, its lines joined
        note = paragraphs.index("Musikalisches Lexicon oder musikalische Bibliothek.")
        assert paragraphs[note - 1].endswith("the latter in triple time.")
        assert paragraphs[note + 1].startswith("With regard to the grouping of movements")
        assert [p for p in paragraphs if p.endswith("peculiar order: Grave, Largo, Adagio, Allegro.")]
    else:
        assert not [p for p in paragraphs if "Grave, Largo" in p]


def test_a_manuals_table_listings_and_front_pages_are_not_read_and_the_plan_log_says_so() -> None:
    book = read_book(BOOKS / "teal-user-manual-pdftex.pdf")
    assert "page 7: a table of 41 rows is skipped (tables are not read)" in book.notes
    assert "pages 1-5: before the outline's first entry (front matter), not read" in book.notes
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "Compo 1" not in spoken and "CF comp1" not in spoken  # the table's cells
    assert "<ExternalModel" not in spoken and "subType=" not in spoken  # a listing, in Nimbus Mono
    assert "INL/EXT-00-00000" not in spoken and ". . . ." not in spoken  # title and contents pages
    assert "Initial investment is the Total Net Cash flow at year zero" in spoken


def test_running_headers_that_change_with_the_chapter_go_and_the_chapters_title_stays() -> None:
    chapters = read_book(BOOKS / "christmas-carol-xetex.pdf").chapters
    body = [c for c in chapters if c.kind == "body"]
    # Each stave opens on a page of its own: a number word over its title, both set large.
    assert [c.title for c in body][-1] == "Five. The End of It"
    # The even pages' header is the stave's title, in body type: never read.
    assert not [p for c in body for p in c.paragraphs if p in ("Marley’s Ghost", "The End of It")]
    assert body[0].paragraphs[0].startswith("Marley was dead: to begin with.")
    # The typesetter's note (licensed under ..., public domain) is a copyright page.
    front = [("front", "title page"), ("front", "copyright page")]
    assert [(c.kind, c.skipped_by) for c in chapters[:2]] == front


def test_a_word_pdfs_title_in_the_texts_own_type_titles_it_and_its_byline_names_the_author() -> None:
    """No title in the document info, no outline, every line in the same bold type: the title is
    the first line in capitals above the text, the info's Author (the Word account) gives way to
    the byline, and the title page is not read."""
    book = read_book(BOOKS / "man-without-a-body-word.pdf")
    assert (book.title, book.authors) == ("THE MAN WITHOUT A BODY", ("Edward Page Mitchell",))
    page, story = book.chapters
    assert (page.kind, page.skipped_by) == ("front", "title page")
    assert page.paragraphs[1:] == ("THE MAN WITHOUT A BODY", "{by Edward Page Mitchell}")
    assert story.title == "THE MAN WITHOUT A BODY"
    assert story.paragraphs[0].startswith("On a shelf in the old Arsenal museum, in the Central Park")


@pytest.mark.parametrize(
    ("title", "named"),
    [
        ("Microsoft Word - The-Man-Without-A-Body.docx", False),
        ("chapter1.doc", False),
        ("Tool for Economic AnaLysis (Teal) User Manual", True),
        ("Word Power Made Easy", True),
    ],
)
def test_a_document_info_title_that_names_a_file_is_no_title(title: str, named: bool) -> None:
    assert (pdf._FILE_TITLE.search(title) is None) == named


def test_a_two_column_papers_bookmarks_cut_at_their_headings_in_the_outlines_order() -> None:
    chapters = read_book(BOOKS / "ethereum-yellowpaper-pdftex.pdf").chapters
    titles = [c.title for c in chapters]
    # Cut by their heights, 13 ran into 15 and References into 16: the right column is higher.
    assert titles[12:15] == ["13. Future Directions", "14. Conclusion", "15. Acknowledgements"]
    assert titles[15:18] == ["16. Availability", "References", "Appendix A. Terminology"]
    # On page 7 pdfminer laid section 6's opening (right column) before section 5's heading (left
    # column, lower), and the two were one chapter; the page is read column by column.
    assert titles[4:6] == ["5. Gas and Payment", "6. Transaction Execution"]
    gas = chapters[4].paragraphs
    assert gas[1].startswith("In order to avoid issues of network abuse")
    assert gas[-1].endswith("the chance that their transaction will be mined in a timely manner.")


def test_a_scan_and_a_locked_pdf_are_refused_in_one_line() -> None:
    message = refused_in_one_line(SCAN)
    assert "no text layer" in message and "OCR" in message
    assert "encrypted (password-protected)" in refused_in_one_line(LOCKED)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"%PDF-1.7\n1 0 obj << /Type /Catalog", "not a readable PDF"),
        (b"this is not a PDF at all" * 40, "not a readable PDF"),
    ],
    ids=["truncated", "not-pdf"],
)
def test_a_damaged_pdf_is_one_line(tmp_path: Path, data: bytes, expected: str) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(data)
    assert expected in refused_in_one_line(path)


def test_a_pdf_cut_short_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "cut.pdf"
    path.write_bytes(OUTLINE.read_bytes()[: len(OUTLINE.read_bytes()) // 2])
    assert "not a readable PDF" in refused_in_one_line(path)


def test_a_pdf_whose_stream_inflates_to_too_much_is_refused_before_it_is_inflated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pdf, "MAX_STREAM_BYTES", 1024 * 1024)
    bomb = tmp_path / "bomb.pdf"
    bomb.write_bytes(one_page_pdf(zlib.compress(b"BT ET " + bytes(8 * 1024 * 1024), 9)))
    assert bomb.stat().st_size < 64 * 1024
    assert "decompresses to too much data" in refused_in_one_line(bomb)


def _line(top: float, x0: float, text: str, box: int) -> pdf._Line:
    x1 = x0 + 4.5 * len(text)
    return pdf._Line(0, top, 9.0, text, box, top / 800, x0, x1, x0, x1)


def test_a_table_whose_last_column_is_prose_is_skipped_and_two_columns_and_lists_are_read() -> None:
    # Names at one left edge, each with its value and description joined into one long line.
    described = [_line(700.0, 57.0, "Name", 1), _line(700.0, 140.0, "Value Description", 2)]
    for n, name in enumerate(("Gzero", "Gbase", "Gverylow", "Gsload")):
        top = 689.0 - 11 * n
        described += [
            _line(top, 57.0, name, 3),
            _line(top, 150.0, f"{n} Amount of gas to pay for the set.", 4 + n),
        ]
    described.append(_line(300.0, 57.0, "Below the table the text goes on in a long line of prose.", 9))
    skipped, log = pdf._tables(described)
    assert {line.text for line in described if id(line) in skipped} == {line.text for line in described[:-1]}
    assert log == ["page 1: a table of 5 rows is skipped (tables are not read)"]
    # Two columns whose left paragraphs end in short lines beside the right column's prose.
    columns = [_line(700.0 - 11 * n, 57.0, "ends here.", 20 + n) for n in range(4)]
    columns += [_line(700.0 - 11 * n, 310.0, "the right column runs on in prose", 30) for n in range(4)]
    # A numbered list: its markers name nothing.
    listed = [_line(500.0 - 11 * n, 57.0, f"{n + 1}.", 40 + n) for n in range(4)]
    listed += [
        _line(500.0 - 11 * n, 70.0, "an item of the list, told in a sentence.", 50 + n) for n in range(4)
    ]
    assert pdf._tables(columns + listed) == (set(), [])


def test_the_yellow_papers_fee_and_opcode_tables_are_not_read_cell_by_cell() -> None:
    book = load_book(BOOKS / "ethereum-yellowpaper-pdftex.pdf")
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "Paid for a JUMPDEST operation" not in spoken and "Refund given (added into" not in spoken
    assert "Halts execution." not in spoken
    assert "page 24: a table of 36 rows is skipped (tables are not read)" in book.notes
    # The text around the tables is read.
    assert "The fee schedule G is a tuple" in spoken


def test_a_chapters_list_of_works_cited_is_not_read_and_the_plan_log_says_so() -> None:
    prose = "Η διάδραση του ανθρώπου με υπολογιστές έχει καθιερωθεί στις περισσότερες δραστηριότητες."
    cited = [
        "Borsuk, Amaranth. 2018. The Book. MIT Press.",
        "Kay, Alan C. 1993. The early history of Smalltalk.",
    ]
    drafts = [
        # A bibliography set as a heading, up to the next heading of its rank.
        Draft(
            "2 Ορισμός",
            [Block(prose), Block("Βιβλιογραφία", heading=2)] + [Block(c) for c in cited],
        ),
        Draft(
            "3 Method",
            [
                Block("7.5 References", heading=2),
                Block(cited[1]),
                Block("7.6 Summary", heading=2),
                Block(prose),
                # A bookmark's title in body type, not a heading, ends the list too.
                Block("References"),
                Block(cited[0]),
                Block("Coda"),
                Block(prose),
            ],
        ),
        # Prose under such a title is no list: it stays.
        Draft("4 History", [Block("Literature", heading=2), Block(prose + " " + prose * 6 + " 1850.")]),
    ]
    log = pdf._without_reference_lists(drafts, {"coda"})
    assert [[b.text for b in d.blocks] for d in drafts] == [
        [prose],
        ["7.6 Summary", prose, "Coda", prose],
        ["Literature", prose + " " + prose * 6 + " 1850."],
    ]
    assert log == [
        "not read: 'Βιβλιογραφία', a list of works cited, in 1 chapter(s): 2 paragraph(s)",
        "not read: 'References', a list of works cited, in 1 chapter(s): 1 paragraph(s)",
        "not read: '7.5 References', a list of works cited, in 1 chapter(s): 1 paragraph(s)",
    ]


def test_markup_printed_as_text_and_a_contents_with_its_sections_run_in_are_not_read() -> None:
    # ReText printed a Markdown guide whose raw HTML was not rendered; its "Indice" runs each
    # chapter's sections into one line, and its text layer splits words ("Pagin e").
    book = load_book(BOOKS / "wordpress-per-il-cliente-it-retext.pdf")
    assert [c.title for c in book.chapters][:3] == ["Primo uso", "Articoli", "Pagine"]
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert 'adrotate-img">' not in spoken and "Indice" not in spoken
    assert "cliccare sull'esempio 2" in spoken
    # The first chapter's opening lines are its own: a contents page stands between it and the title page.
    assert book.chapters[0].paragraphs[:2] == ("Come accedere al tuo nuovo sito", "Il tuo accoun t è:")
    assert "not read: 'ame=\"adrotate-img\">' and 0 more like it: markup printed as text" in book.notes


def test_one_bookmark_over_the_rest_titles_the_document_and_the_chapters_are_a_level_down() -> None:
    printed = [
        (1, "Terma Perkhidmatan MDN Plus", 0, 700.0),
        *((2, f"Bahagian {n}", n // 3, None) for n in range(7)),
    ]
    assert _outline_level(printed) == (2, "Terma Perkhidmatan MDN Plus")
    # Two top bookmarks (two parts) are the chapters; so is one bookmark alone.
    parts = [(1, "Part One", 0, None), (2, "A", 0, None), (1, "Part Two", 1, None), (2, "B", 1, None)]
    assert _outline_level(parts) == (1, "")
    assert _outline_level([(1, "The Story", 0, None)]) == (1, "")
