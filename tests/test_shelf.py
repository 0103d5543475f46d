"""A shelf of books in one run: each into its own folder, a bad book refused alone, kill -9 survived."""

from __future__ import annotations

import copy
import os
import random
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import REPO, Workdir, kill_when, read_audio
from snakemake.cli import parse_config
from snakemake.utils import update_config

from narrator.core.catalog import COMPLETED, read_catalog
from narrator.core.errors import UserError
from narrator.engines import engine_class
from narrator.workflow.config import validate_config
from narrator.workflow.shelf import prepare_shelf, shelf_paths

SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"

#: Three of Aesop's fables (public domain, after Townsend's 1867 translation), one book each, in
#: two formats; long enough (about 20 segments each) for kills to land mid-book.
FABLES = {
    "the-fox.md": (
        "# The Fox and the Grapes\n\n## The Vine\n\n"
        "A Fox one day spied a beautiful bunch of ripe grapes hanging from a vine trained along the "
        "branches of a tree. The grapes seemed ready to burst with juice. His mouth watered as he "
        "gazed longingly at them.\n\nThe bunch hung from a high branch. The Fox had to jump for it. "
        "The first time he jumped he missed it by a long way. So he walked off a short distance and "
        "took a running leap at it, only to fall short once more.\n\n## The Moral\n\n"
        "Again and again he tried, but in vain. Now he sat down and looked at the grapes in disgust. "
        "What a fool I am, he said. Here I am wearing myself out to get a bunch of sour grapes that "
        "are not worth gaping for. And off he walked very, very scornfully.\n\n"
        "There are many who pretend to despise and belittle that which is beyond their reach.\n"
    ),
    "the-hare.txt": (
        "The Hare and the Tortoise\n\n\nCHAPTER I.\n\n"
        "A Hare was making fun of the Tortoise one day for being so slow. Do you ever get anywhere? "
        "he asked with a mocking laugh. Yes, replied the Tortoise, and I get there sooner than you "
        "think. I will run you a race and prove it.\n\nThe Hare was much amused at the idea of "
        "running a race with the Tortoise. But for the fun of the thing he agreed. So the Fox, who "
        "had consented to act as judge, marked the distance and started the runners off.\n\n\n"
        "CHAPTER II.\n\nThe Hare was soon far out of sight. To make the Tortoise feel very deeply how "
        "ridiculous it was for him to try a race with a Hare, he lay down beside the course to take "
        "a nap until the Tortoise should catch up.\n\nThe Tortoise meanwhile kept going slowly but "
        "steadily. After a time he passed the place where the Hare was sleeping. The Hare slept on "
        "very peacefully. When at last he did wake up, the Tortoise was near the goal.\n\n"
        "The Hare now ran his swiftest, but he could not overtake the Tortoise in time. The race is "
        "not always to the swift.\n"
    ),
    "the-crow.md": (
        "# The Crow and the Pitcher\n\n## Thirst\n\n"
        "In a spell of dry weather, when the Birds could find very little to drink, a thirsty Crow "
        "found a pitcher with a little water in it. But the pitcher was high and had a narrow neck. "
        "No matter how he tried, the Crow could not reach the water.\n\nThe poor thing felt as if he "
        "must die of thirst. Then an idea came to him. Picking up some small pebbles, he dropped "
        "them into the pitcher one by one.\n\n## The Pebbles\n\nWith each pebble the water rose a "
        "little higher. At last it was near enough so he could drink. In a pinch a good use of our "
        "wits may help us out.\n\nLittle by little does the trick. The Crow drank his fill and flew "
        "away over the dry fields, and the pitcher stood empty in the sun.\n"
    ),
}
BOOK_IDS = ("the-crow", "the-fox", "the-hare")
#: Refused alone: the others must finish.
BAD_BOOK = ("the-ant.txt", "")


def _config(*entries: str) -> dict:
    """The config Snakemake 9 hands the workflow for ``--config entries``, validated by narrator."""
    overrides = parse_config(["engine=espeak", *entries])
    config = copy.deepcopy(overrides)
    update_config(config, yaml.safe_load((REPO / "config.yaml").read_text()))
    update_config(config, overrides)
    validate_config(config, SCHEMA, overrides)
    return config


def write_shelf(folder: Path, *, bad: bool = False) -> Path:
    folder.mkdir(parents=True)
    for name, text in [*FABLES.items(), *([BAD_BOOK] if bad else [])]:
        (folder / name).write_text(text)
    return folder


def _prepare(tmp_path: Path, *entries: str):
    os.chdir(tmp_path)  # results/ and logs/ are relative, as in a run
    return prepare_shelf(_config(*entries), engine_class("espeak"), tmp_path / "logs")


# --- which books a shelf holds --------------------------------------------------------------------


def test_a_folder_glob_or_list_names_each_book_once_in_order(tmp_path: Path) -> None:
    shelf = write_shelf(tmp_path / "lib")
    (shelf / "notes.pdf").write_bytes(b"%PDF")
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
    config = _config("books=[lib/a.md, 'lib/*.txt']")
    assert config["books"] == ["lib/a.md", "lib/*.txt"]


# --- preparing a shelf ---------------------------------------------------------------------------------


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
    assert shelf["der-fuchs"].options["voice"] == "de"
    assert shelf["the-fox"].options["voice"] != "de"
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


# --- a shelf in one run -------------------------------------------------------------------------------


def _published(work: Workdir) -> int:
    return sum(len(list(work.results(book).glob("segments/*.wav"))) for book in BOOK_IDS)


@pytest.mark.slow
def test_a_shelf_renders_in_one_run_and_a_bad_book_fails_alone(tmp_path: Path) -> None:
    # Uninterrupted: the shelf, with a bad book, in one run.
    reference = Workdir(tmp_path / "reference")
    write_shelf(reference.path / "lib", bad=True)
    run = reference.run_book("books=lib", check=False)
    assert run.returncode == 1, run.stderr
    refused = "narrator: lib/the-ant.txt: the book has no text to speak; refused, the other books go on"
    assert refused in run.stderr
    assert "1 book(s) of the shelf refused, the others done" in run.stderr
    assert not reference.results("the-ant").exists()
    masters = {book: read_audio(reference.results(book) / f"{book}.wav")[0] for book in BOOK_IDS}
    assert all((reference.results(book) / f"{book}.m4b").stat().st_size > 0 for book in masters)
    status = reference.narrator("status", "--brief").stdout.splitlines()
    assert status[-1].startswith("shelf of 3 books: ") and " completed (100.0%)" in status[-1]

    # A book of the shelf comes out as it does on its own.
    alone = Workdir(tmp_path / "alone")
    write_shelf(alone.path / "lib")
    alone.run_book("book=lib/the-hare.txt")
    assert np.array_equal(read_audio(alone.results("the-hare") / "the-hare.wav")[0], masters["the-hare"])


@pytest.mark.slow
def test_a_shelf_survives_kill_9_like_one_book(tmp_path: Path) -> None:
    reference = Workdir(tmp_path / "reference")
    write_shelf(reference.path / "lib")
    reference.run_book("books=lib")
    masters = {book: read_audio(reference.results(book) / f"{book}.wav")[0] for book in BOOK_IDS}
    # Killed with SIGKILL at random points across the shelf, then run again as the README says.
    crashed = Workdir(tmp_path / "crashed")
    write_shelf(crashed.path / "lib")
    total = sum(len(read_catalog(reference.results(book) / "catalog.tsv")) for book in masters)
    seed = int(os.environ.get("NARRATOR_CRASH_SEED") or random.SystemRandom().randrange(1 << 30))
    targets = sorted(random.Random(seed).sample(range(1, total - total // 4), 3))
    planned = crashed.path / "results"
    for target in [0, *targets]:
        process = crashed.start_book("books=lib")
        kill_when(process, lambda target=target: planned.exists() and _published(crashed) >= target)
        crashed.snakemake("--unlock")
    assert 0 < _published(crashed) < total, f"the kills missed (seed {seed})"
    crashed.run_book("books=lib")
    for book, master in masters.items():
        rows = read_catalog(crashed.results(book) / "catalog.tsv")
        assert all(row.status == COMPLETED for row in rows), f"{book} (seed {seed})"
        data = read_audio(crashed.results(book) / f"{book}.wav")[0]
        assert np.array_equal(data, master), f"{book} differs from the uninterrupted shelf (seed {seed})"
