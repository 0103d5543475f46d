"""Bad input stops a real run before any job, in one line and with nothing written: a missing, empty,
binary or unsupported book, an unknown engine, a bad cover, lexicon, limit or book_id, and a second
book whose results folder another book holds. The checks themselves:
tests/unit/workflow/test_config_checks.py.
"""

from __future__ import annotations

import os
import zipfile
import zlib

import pytest
from conftest import DATA, Workdir, one_page_pdf
from small_books import NOVEL

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("book=empty.txt", "has no text to speak"),
        ("book=binary.txt", "binary file"),
        ("book=nowhere.txt", "no such book file"),
        ("engine=festival", "is not one of"),
        ("book=notes.rtf", "unsupported book format"),
    ],
)
def test_bad_input_is_one_clear_line_and_writes_nothing(workdir, config, message):
    (workdir.path / "empty.txt").write_text("  \n\n")
    (workdir.path / "binary.txt").write_bytes(bytes(range(256)) * 4)
    (workdir.path / "notes.rtf").write_bytes(b"{\\rtf1 Notes.}")
    result = workdir.snakemake(*["--cores", "1", "--config", config], check=False)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("narrator: ") and message in last
    assert "Traceback" not in result.stderr
    assert not (workdir.path / "results").exists()


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("book=folder", "folder: is a directory, not a book file"),
        ("book=pipe.txt", "pipe.txt: is not a regular file"),
        ("cover=cover.png", "cover.png: the cover is not an image"),
        ("lexicon=lexicon.yaml", "lexicon.yaml: not valid YAML (line 2)"),
        ("lexicon=folder", "folder: is a directory, not a lexicon file"),
        ("limits={book_bytes: 100}", "bytes, over the limit of 100 (limits.book_bytes)"),
        ("book_id=My_Book", "config book_id: 'My_Book' does not match"),
    ],
)
def test_bad_inputs_stop_before_any_job(workdir: Workdir, config: str, message: str) -> None:
    (workdir.path / "folder").mkdir()
    os.mkfifo(workdir.path / "pipe.txt")
    (workdir.path / "cover.png").write_text("not a picture")
    (workdir.path / "lexicon.yaml").write_text("Alice: Ah-lees\nCheshire: CHESH: er\nDodo: DOH-doh\n")
    result = workdir.run_book(config, check=False)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("narrator: ") and message in last
    assert "Traceback" not in result.stderr
    assert not (workdir.path / "results").exists()


def test_two_books_with_one_file_name_keep_apart(workdir: Workdir) -> None:
    for folder, text in (("a", NOVEL), ("b", NOVEL.replace("six", "seven"))):
        (workdir.path / folder).mkdir()
        (workdir.path / folder / "novel.md").write_text(text)
    workdir.run_book("book=a/novel.md")
    first = workdir.results("novel")
    before = {path: path.read_bytes() for path in first.rglob("*") if path.is_file()}
    refused = workdir.run_book("book=b/novel.md", check=False)
    assert refused.returncode != 0
    last = refused.stderr.strip().splitlines()[-1]
    assert last.startswith(f"narrator: results/novel holds another book, {workdir.path / 'a' / 'novel.md'}")
    assert "book_id" in last
    assert {path: path.read_bytes() for path in first.rglob("*") if path.is_file()} == before
    workdir.run_book("book=b/novel.md", "book_id=other")
    assert (workdir.results("other") / "other.m4b").is_file()
    assert {path: path.read_bytes() for path in first.rglob("*") if path.is_file()} == before


def _hostile_books(folder) -> None:
    """A zip-bomb FB2 (300 MiB of zeros), a PDF whose one content stream inflates to 1 GiB (about
    1 MiB on disk, packed a MiB at a time), a PDF whose two forms draw each other without end (pdfminer
    refuses the loop, so the page has no text), and
    a DOCX whose document declares an external entity."""
    with zipfile.ZipFile(folder / "bomb.fb2.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bomb.fb2", bytes(300 * 1024 * 1024))
    packer, zeros = zlib.compressobj(9), bytes(1024 * 1024)
    chunks = [packer.compress(b"BT ET "), *(packer.compress(zeros) for _ in range(1024)), packer.flush()]
    (folder / "bomb.pdf").write_bytes(one_page_pdf(b"".join(chunks)))

    def form(other: int) -> bytes:
        content = b"/X Do"
        return (
            b"<< /Type /XObject /Subtype /Form /BBox [0 0 9 9] /Resources << /XObject << /X %d 0 R >> >>"
            b" /Length %d >>\nstream\n%s\nendstream" % (other, len(content), content)
        )

    resources = b" /Resources << /XObject << /X 5 0 R >> >>"
    (folder / "loop.pdf").write_bytes(one_page_pdf(zlib.compress(b"/X Do"), resources, form(6), form(5)))
    source, target = DATA / "docx" / "mammoth-footnotes.docx", folder / "xxe.docx"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename == "word/document.xml":
                doctype = b'?><!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
                data = data.replace(b"?>", doctype, 1).replace(b"Ouch", b"&xxe;")
            new.writestr(info, data)


@pytest.mark.parametrize(
    ("book", "message"),
    [
        ("bomb.fb2.zip", "zip bomb"),
        ("bomb.pdf", "decompresses to too much data"),
        ("loop.pdf", "no text layer"),
        ("xxe.docx", "declares a DTD"),
    ],
)
def test_a_hostile_book_stops_the_run_in_one_line(workdir: Workdir, book: str, message: str) -> None:
    _hostile_books(workdir.path)
    result = workdir.run_book(f"book={book}", check=False)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("narrator: ") and message in last
    assert "Traceback" not in result.stderr and "root:" not in result.stderr
    assert not (workdir.path / "results").exists()
