"""A shelf of books (narrator/workflow/shelf.py): which books a folder, glob or list names, each book's
own folder and voice, and a bad book refused alone in one line. Real runs of a shelf:
tests/e2e/test_shelf_runs.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import REPO, validated_config
from small_books import BAD_BOOK, write_shelf

from narrator.core.errors import UserError
from narrator.engines import engine_class
from narrator.workflow.shelf import prepare_shelf, shelf_paths


def _prepare(tmp_path: Path, *entries: str):
    os.chdir(tmp_path)  # results/ and logs/ are relative, as in a run
    return prepare_shelf(
        validated_config("engine=espeak", *entries), engine_class("espeak"), tmp_path / "logs"
    )


def test_a_folder_glob_or_list_names_each_book_once_in_order(tmp_path: Path) -> None:
    shelf = write_shelf(tmp_path / "lib")
    (shelf / "notes.odt").write_bytes(b"PK")
    (shelf / "sub").mkdir()
    assert [p.name for p in shelf_paths(str(shelf))] == ["the-crow.md", "the-fox.md", "the-hare.txt"]
    assert [p.name for p in shelf_paths(str(shelf / "*.md"))] == ["the-crow.md", "the-fox.md"]
    both = shelf_paths([str(shelf / "the-hare.txt"), str(shelf / "*.md"), str(shelf / "the-fox.md")])
    assert [p.name for p in both] == ["the-hare.txt", "the-crow.md", "the-fox.md"]


@pytest.mark.parametrize("entry", ["empty", "empty/*.epub"])
def test_a_folder_or_glob_without_books_is_one_line(tmp_path: Path, entry: str) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match=r"^books: .* (holds|matches) no book") as error:
        shelf_paths(str(tmp_path / entry))
    assert "\n" not in str(error.value)


def test_the_command_line_takes_a_list_of_books(tmp_path: Path) -> None:
    config = validated_config("engine=espeak", "books=[lib/a.md, 'lib/*.txt']")
    assert config["books"] == ["lib/a.md", "lib/*.txt"]


def test_each_book_gets_its_own_folder_name_and_voice(tmp_path: Path) -> None:
    write_shelf(tmp_path / "lib")
    # Gutenberg's header names the language.
    (tmp_path / "lib" / "der-fuchs.txt").write_text(
        "Title: Der Fuchs\nLanguage: German\n\n*** START OF THE PROJECT GUTENBERG EBOOK DER FUCHS ***\n\n"
        "Der Fuchs\n\n\nKAPITEL I.\n\nDer Fuchs sah die Trauben. Sie waren ihm zu sauer.\n\n"
        "*** END OF THE PROJECT GUTENBERG EBOOK DER FUCHS ***\n"
    )
    shelf = _prepare(tmp_path, "books=lib")
    assert list(shelf.books) == ["der-fuchs", "the-crow", "the-fox", "the-hare"]
    assert shelf.refused == []
    # espeak's voice follows each book's language, and so does its render key and ASR check.
    assert shelf["der-fuchs"].options.voice == "de"
    assert shelf["the-fox"].options.voice != "de"
    assert shelf["der-fuchs"].plan.options == shelf["der-fuchs"].options
    assert shelf["der-fuchs"].plan.digest() != shelf["the-fox"].plan.digest()


def test_a_bad_book_is_refused_alone_in_one_line(tmp_path: Path) -> None:
    write_shelf(tmp_path / "lib", bad=True)
    (tmp_path / "lib" / "broken.epub").write_bytes(b"not a zip")
    shelf = _prepare(tmp_path, "books=lib")
    assert list(shelf.books) == ["the-crow", "the-fox", "the-hare"]
    assert len(shelf.refused) == 2
    assert all("\n" not in line and line.endswith("; refused") for line in shelf.refused)
    assert "broken.epub: not an EPUB" in shelf.refused[0] and "the-ant.txt" in shelf.refused[1]


def test_two_files_with_one_name_do_not_share_a_folder(tmp_path: Path) -> None:
    write_shelf(tmp_path / "a")
    write_shelf(tmp_path / "b")
    shelf = _prepare(tmp_path, "books=[a, b/the-fox.md]")
    assert shelf["the-fox"].path == str(Path("a/the-fox.md"))
    assert shelf.refused == [
        "b/the-fox.md: refused: its results folder would be the-fox/, which is a/the-fox.md's; "
        "rename one of the two files"
    ]


def test_a_shelf_with_no_good_book_or_with_one_books_settings_is_refused(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / BAD_BOOK[0]).write_text("")
    with pytest.raises(UserError, match=r"no book of books: lib can be narrated: .*the-ant\.txt: .*refused$"):
        _prepare(tmp_path, "books=lib")  # one book, so no "others go on"
    with pytest.raises(UserError, match=r"^books: librar: no such folder \(\.txt, "):
        _prepare(tmp_path, "books=librar")  # a typo is one line, not "no such book file"
    write_shelf(tmp_path / "more")
    with pytest.raises(UserError, match=r"^book_id and cover name one book's"):
        _prepare(tmp_path, "books=more", "book_id=mine")


def test_without_books_the_one_book_stops_the_run(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(UserError, match="the book has no text to speak"):
        _prepare(tmp_path, "book=empty.txt")
    shelf = _prepare(tmp_path, f"book={REPO / 'workflow/resources/sample.md'}", "book_id=mine")
    assert list(shelf.books) == ["mine"]
