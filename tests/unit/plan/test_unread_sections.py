"""The sections the plan skips that a read-along book shows unread (book.json's ``unread``): the
author's notes and word about the author and the user's chapters.exclude, not the producer's pages."""

from __future__ import annotations

import json
from pathlib import Path

from tiny_book import SETTINGS

from narrator.core.book import Book, Chapter
from narrator.plan.plan import unread_sections, write_plan
from narrator.text.credits import with_credits
from narrator.text.ingest import select_chapters


def _book() -> Book:
    return Book(
        "A Book",
        (
            Chapter("Contents", ("One", "Two"), kind="front", skipped_by="contents page (by title)"),
            Chapter(
                "About the Author", ("She wrote it.",), kind="front", skipped_by="about the author (by title)"
            ),
            Chapter("One", ("It began.",)),
            Chapter("Two", ("It went on.\nAnd on.",)),
            Chapter("Three", ("It ended.",)),
            Chapter("Notes", ("1. A note.",), kind="back", skipped_by="epub:type endnotes"),
            Chapter(
                "",
                ("End of the Project Gutenberg eBook",),
                kind="back",
                skipped_by="Project Gutenberg header or licence",
            ),
        ),
    )


def test_the_authors_skipped_sections_are_kept_where_they_stand_and_the_producers_are_not() -> None:
    whole = _book()
    narrated = select_chapters(whole, exclude=["^Two$"])
    assert [chapter.title for chapter in narrated.chapters] == ["One", "Three"]
    assert unread_sections(whole, narrated, credits=False) == [
        {
            "before": 1,
            "kind": "front",
            "title": "About the Author",
            "paragraphs": ["She wrote it."],
            "notes": (),
        },
        {"before": 2, "kind": "body", "title": "Two", "paragraphs": ["It went on.\nAnd on."], "notes": ()},
        {"before": 3, "kind": "back", "title": "Notes", "paragraphs": ["1. A note."], "notes": ()},
    ]


def test_with_credits_the_places_count_the_opening_credits() -> None:
    whole = _book()
    narrated = select_chapters(whole)
    credited, _ = with_credits(narrated, "en", "a voice")
    titles = [chapter.title for chapter in credited.chapters]
    places = {
        section["title"]: section["before"] for section in unread_sections(whole, narrated, credits=True)
    }
    # Before the first chapter, after the opening credits; the notes before the closing credits.
    assert titles[places["About the Author"] - 1] == "One"
    assert titles[places["Notes"] - 1] == titles[-1] != "Three"


def test_the_plan_writes_the_notes_and_sections_it_leaves_unread_to_book_json(tmp_path: Path) -> None:
    book = tmp_path / "noted.html"
    book.write_text(
        '<html><head><title>Noted</title></head><body><h2>One</h2><p>It began.<span epub:type="footnote">'
        "A note.</span></p><h2>Two</h2><p>It ended.</p>"
        "<h2>About the Author</h2><p>She wrote.</p></body></html>",
        encoding="utf-8",
    )
    write_plan(book, tmp_path / "catalog.tsv", tmp_path / "book.json", SETTINGS)
    written = json.loads((tmp_path / "book.json").read_text(encoding="utf-8"))
    assert written["notes"] == {"1": [[1, "A note."]]}
    assert written["unread"] == [
        {"before": 3, "kind": "back", "title": "About the Author", "paragraphs": ["She wrote."], "notes": []}
    ]
