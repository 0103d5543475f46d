"""Kindle books through calibre's ebook-convert: real MOBI and AZW3, DRM, no calibre, damage."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from conftest import BOOKS, refused_in_one_line

from narrator.text.ingest import load_book
from narrator.text.readers import READERS
from narrator.text.readers.kindle import read_kindle

# Made by calibre from the corpus EPUBs (tests/data/SOURCES.md).
AZW3 = BOOKS / "die-verwandlung-pg22367-calibre.azw3"
MOBI = BOOKS / "alice-in-wonderland-pg11-calibre.mobi"
# scripts/test.sh installs calibre; without it only the tests that need no conversion run.
needs_calibre = pytest.mark.skipif(
    shutil.which("ebook-convert") is None,
    reason="calibre's ebook-convert is not installed (apt install calibre)",
)


def _with_encryption(tmp_path: Path, kind: int) -> Path:
    """The MOBI with its first record's encryption field set, as a DRM-protected book has it."""
    data = bytearray(MOBI.read_bytes())
    (record0,) = struct.unpack(">I", data[78:82])
    data[record0 + 12 : record0 + 14] = struct.pack(">H", kind)
    path = tmp_path / "locked.mobi"
    path.write_bytes(bytes(data))
    return path


def test_kindle_suffixes_are_registered() -> None:
    assert READERS[".mobi"] is READERS[".azw3"] is READERS[".azw"] is read_kindle


@needs_calibre
def test_a_real_azw3_plans_its_chapters_title_and_language() -> None:
    book = load_book(AZW3)
    assert (book.title, book.authors, book.language) == ("Die Verwandlung", ("Franz Kafka",), "de")
    assert [c.title for c in book.chapters] == ["Kapitel I", "Kapitel II", "Kapitel III"]
    assert book.chapters[0].paragraphs[0].startswith("Als Gregor Samsa eines Morgens aus unruhigen Träumen")
    assert book.notes[0] == f"{AZW3.name}: converted to EPUB by calibre's ebook-convert"


@needs_calibre
def test_a_real_mobi_named_like_an_option_and_a_shell_command_plans(tmp_path: Path) -> None:
    hostile = tmp_path / "-rf $(touch pwned); book.mobi"
    shutil.copy(MOBI, hostile)
    book = load_book(hostile)
    titles = [c.title for c in book.chapters]
    assert len(titles) == 12 and titles[0] == "CHAPTER I. Down the Rabbit-Hole"
    assert book.cover is not None and not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("kind", [1, 2])
def test_a_drm_protected_kindle_book_is_one_line_without_calibre(tmp_path: Path, kind: int) -> None:
    assert "DRM-protected" in refused_in_one_line(_with_encryption(tmp_path, kind))


def test_without_calibre_one_line_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert "install calibre" in refused_in_one_line(MOBI)


def test_a_file_that_is_no_kindle_book_is_one_line(tmp_path: Path) -> None:
    fake = tmp_path / "fake.azw3"
    fake.write_text("Just some text pretending to be a Kindle book." * 10)
    assert "not a Kindle book" in refused_in_one_line(fake)


@needs_calibre
def test_a_damaged_kindle_book_is_one_line(tmp_path: Path) -> None:
    cut = tmp_path / "cut.mobi"
    cut.write_bytes(MOBI.read_bytes()[:2000])
    # calibre salvages nothing from it: an EPUB without text, or a failed conversion.
    reason = refused_in_one_line(cut).removeprefix(f"{cut}: ")
    assert reason == "the book has no text to speak" or reason.startswith("calibre's ebook-convert could not")
