"""Opening and closing credits: planned like the book's own segments, in the book's language."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO

from narrator.core.book import Book, Chapter
from narrator.core.catalog import read_catalog
from narrator.engines import engine_class
from narrator.engines.espeak import EspeakOptions
from narrator.engines.piper import PiperOptions
from narrator.plan.plan import PlanSettings, plan_rows, wants_credits, write_plan
from narrator.text.credits import with_credits

BOOK = Book(
    "The Lighthouse",
    (Chapter("One", ("It was dark.",)), Chapter("Two", ("It was light.",))),
    authors=("A. Keeper", "B. Lamp"),
)


def test_credits_open_and_close_the_book_and_their_titles_are_not_spoken() -> None:
    credited, note = with_credits(BOOK, "en-GB", "Joe")
    assert "Opening credits" in note
    rows = plan_rows(credited, PlanSettings("espeak", EspeakOptions(), 400))
    titles = [row.chapter_title for row in rows]
    assert titles == ["Opening credits"] * 3 + ["One", "One", "Two", "Two"] + ["End credits"] * 4
    opening = ["The Lighthouse.", "By A. Keeper, B. Lamp.", "Read by Joe, a synthetic voice."]
    assert [row.text for row in rows[:3]] == opening  # "Opening credits" itself is never said
    assert [row.text for row in rows[-4:]] == ["The end.", *opening]
    assert rows[-1].pause_after == "end"
    assert rows[-5].pause_after == "chapter"  # the book's last chapter is no longer the end


def test_credits_speak_the_books_language_or_are_left_out() -> None:
    german, _ = with_credits(BOOK, "de", "Thorsten")
    assert german.chapters[0].paragraphs == (
        "The Lighthouse. Von A. Keeper, B. Lamp. Gelesen von Thorsten, einer synthetischen Stimme.",
    )
    assert german.chapters[-1].title == "Abspann"
    assert german.chapters[-1].paragraphs[0].startswith("Ende. The Lighthouse. Von A. Keeper")
    finnish, note = with_credits(BOOK, "fi", "Harri")
    assert finnish is BOOK and "no wording for language 'fi'" in note


@pytest.mark.parametrize(
    ("credits", "outputs", "preset", "expected"),
    [
        ("auto", ["m4b", "srt"], "", True),
        ("auto", ["srt"], "", False),
        ("auto", ["chapters"], "acx", True),
        ("on", [], "", True),
        ("off", ["m4b"], "", False),
    ],
)
def test_credits_auto_follows_the_outputs_a_listener_plays(credits, outputs, preset, expected) -> None:
    assert wants_credits({"credits": credits, "outputs": outputs, "preset": preset}) is expected


def test_the_plan_lists_the_credits_in_the_catalog_with_the_voices_name(tmp_path: Path) -> None:
    catalog = tmp_path / "sample" / "catalog.tsv"
    settings = PlanSettings("piper", PiperOptions(), 400, credits=True)
    log = write_plan(REPO / "workflow/resources/sample.md", catalog, catalog.with_name("book.json"), settings)
    rows = read_catalog(catalog)
    assert rows[0].chapter_title == "Opening credits" and rows[-1].chapter_title == "End credits"
    opening = " ".join(row.text for row in rows if row.chapter == 1)
    assert opening == "The Lamplighter of Harrow Quay. Read by Joe, a synthetic voice."  # no author given
    assert engine_class("piper").voice_name(PiperOptions()) == "Joe"  # from the voice's own config
    assert "credits: 'Opening credits' and 'End credits'" in log
    untouched = PlanSettings("piper", PiperOptions(), 400)
    assert untouched.digest() != settings.digest()  # turning credits on or off re-plans the book
