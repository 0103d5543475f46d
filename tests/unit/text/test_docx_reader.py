"""Word documents: heading styles as chapters, core properties, notes by `notes:`, hostile files."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from conftest import BOOKS, DATA, refused_in_one_line

from narrator.text.ingest import load_book, read_book
from narrator.text.readers import READERS
from narrator.text.readers.docx import read_docx

ALICE = BOOKS / "alice-in-wonderland-pg11-pandoc.docx"
# Written in Word: numbered headings, appendices in styles based on Heading 1/2, a contents page.
ADDA = BOOKS / "adda-user-manual-word.docx"
# Real Word files from mammoth's tests: one paragraph with two footnotes, and one with a comment.
FOOTNOTES = DATA / "docx" / "mammoth-footnotes.docx"
COMMENTS = DATA / "docx" / "mammoth-comments.docx"
# Exported by Fidus Writer: the book's Title paragraph, then the chapter's, over two Heading 1s.
FIDUS = BOOKS / "fidus-writer-manual-fiduswriter.docx"


def _rewritten(tmp_path: Path, source: Path, name: str, member: str, data: bytes | None) -> Path:
    """A copy of ``source`` with one member replaced (or left out, for None)."""
    path = tmp_path / name
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            if info.filename != member:
                new.writestr(info, old.read(info))
        if data is not None:
            new.writestr(member, data)
    return path


def test_docx_is_registered() -> None:
    assert READERS[".docx"] is read_docx


def test_a_real_docx_plans_its_heading_chapters_and_core_properties() -> None:
    whole = read_book(ALICE)
    assert (whole.title, whole.authors) == ("Alice's Adventures in Wonderland", ("Lewis Carroll",))
    assert (whole.language, whole.language_source) == ("en-US", "DOCX default paragraph style")
    book = load_book(ALICE)
    titles = [c.title for c in book.chapters]
    assert len(titles) == 12
    assert titles[:2] == ["CHAPTER I. Down the Rabbit-Hole", "CHAPTER II. The Pool of Tears"]
    assert titles[-1] == "CHAPTER XII. Alice’s Evidence"
    assert book.chapters[0].paragraphs[0].startswith("Alice was beginning to get very tired")
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "Gutenberg" not in spoken and "Contents" not in spoken


def test_a_title_paragraph_after_the_book_s_own_heads_a_chapter_over_its_headings() -> None:
    book = load_book(FIDUS)
    assert book.title == "Fidus Writer 4.0 Manual"
    assert [c.title for c in book.chapters] == ["Exporting to ODT/DOCX"]
    paragraphs = book.chapters[0].paragraphs
    assert paragraphs[0] == "Abstract"
    assert "Creating a template file for books" in paragraphs


def test_headings_carry_words_list_numbers_and_styles_based_on_headings_are_headings() -> None:
    book = load_book(ADDA)
    titles = [c.title for c in book.chapters]
    assert titles[:3] == ["1 Introduction", "2 Using the Manual", "3 Running ADDA"]
    # The appendices' own heading style, lettered by its own list, and "Heading 2_app" under it.
    assert titles[-4:] == ["A Command Line Options", "B Input Files", "C Output Files", "D Auxiliary Files"]
    assert book.chapters[2].paragraphs[0] == "3.1 Sequential mode"
    assert "C.1 stderr, logerr" in book.chapters[-2].paragraphs
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "Sequential mode5" not in spoken and "Sequential mode 5" not in spoken  # the contents page
    # The title page names the authors that the core properties give with initials, joined by "and".
    assert book.authors == ("M. A. Yurkin", "A. G. Hoekstra")
    assert "Univ Rouen Normandie" not in spoken


@pytest.mark.parametrize(
    ("notes", "paragraphs", "unread"),
    [
        # Dropped notes stay with the chapter, after their paragraph, for the read-along EPUB to show.
        ("drop", ("Ouch.",), [(1, "A tachyon walks into a bar."), (1, "Fin.")]),
        ("read", ("Ouch.", "A tachyon walks into a bar.", "Fin."), []),
    ],
)
def test_footnotes_follow_the_notes_choice(notes: str, paragraphs: tuple[str, ...], unread) -> None:
    book = read_book(FOOTNOTES, notes=notes)
    assert [p for c in book.chapters for p in c.paragraphs] == list(paragraphs)
    assert [note for c in book.chapters for note in c.notes] == unread
    assert book.authors == ("Michael Williamson",)


def test_comments_are_never_read() -> None:
    spoken = [p for c in read_book(COMMENTS, notes="read").chapters for p in c.paragraphs]
    assert spoken == ["Ouch."]
    with zipfile.ZipFile(COMMENTS) as archive:  # the comment is really there, and not read
        assert b"<w:comment " in archive.read("word/comments.xml")


def test_a_damaged_docx_is_one_line(tmp_path: Path) -> None:
    truncated = tmp_path / "truncated.docx"
    truncated.write_bytes(ALICE.read_bytes()[:5000])
    assert "not a DOCX: the file is not a readable zip" in refused_in_one_line(truncated)
    no_body = _rewritten(tmp_path, FOOTNOTES, "nobody.docx", "word/document.xml", None)
    assert "no word/document.xml" in refused_in_one_line(no_body)
    garbled = _rewritten(tmp_path, FOOTNOTES, "garbled.docx", "word/document.xml", b"<w:document><w:body>")
    assert "word/document.xml is not well-formed XML" in refused_in_one_line(garbled)
    encrypted = tmp_path / "locked.docx"
    encrypted.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600))
    assert "password-protected" in refused_in_one_line(encrypted)


def test_an_xxe_docx_is_refused_before_anything_is_parsed(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    with zipfile.ZipFile(FOOTNOTES) as archive:
        document = archive.read("word/document.xml")
    hostile = document.replace(
        b"?>", f'?><!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file://{secret}">]>'.encode(), 1
    ).replace(b"Ouch", b"&xxe;")
    path = _rewritten(tmp_path, FOOTNOTES, "xxe.docx", "word/document.xml", hostile)
    message = refused_in_one_line(path)
    assert "declares a DTD" in message and "TOP-SECRET" not in message
