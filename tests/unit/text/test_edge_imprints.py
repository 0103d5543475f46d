"""The edition's title page and colophon at a book's edges are not read (matter.without_edge_imprints)."""

from __future__ import annotations

from narrator.core.book import Chapter
from narrator.text.readers.matter import without_edge_imprints

PROSE = "The grandmother came to the valley in spring, and the children ran out to meet her at the gate."


def test_title_page_and_colophon_lines_go_and_the_story_stays() -> None:
    chapters = [
        Chapter("", ("Babička", "Obrazy venkovského života", "Božena Němcová")),
        Chapter("I", ("Chapter heading", PROSE, PROSE)),
        Chapter("II", (PROSE, "„Šťastná to žena!“", "Božena Němcová", "Babička", "ISBN 978-80-274-0043-0")),
    ]
    kept, notes = without_edge_imprints(chapters, "Babička", ["Němcová, Božena"])
    said = [p for c in kept for p in c.paragraphs]
    # The heading right above the first prose stays; so does the book's last line before the colophon.
    assert said == ["Chapter heading", PROSE, PROSE, PROSE, "„Šťastná to žena!“"]
    assert [c.title for c in kept] == ["I", "II"]
    assert sum("title page or colophon" in n for n in notes) == 6


def test_without_the_title_or_author_nothing_goes() -> None:
    # Short lines before the prose that name neither title nor author (a poem's opening, a motto)
    # and an author's name alone at the end (a letter's signature) are the book's.
    chapters = [
        Chapter("", ("Sing, goddess", "of the anger")),
        Chapter("I", (PROSE, "Your friend,", "Božena Němcová")),
    ]
    kept, notes = without_edge_imprints(chapters, "Babička", ["Božena Němcová"])
    assert kept == chapters and not notes


def test_the_lines_above_a_paper_s_abstract_are_its_title_block() -> None:
    # Neither the metadata's title nor its author is on the page: the abstract is the evidence,
    # heading its paragraph as a run-in or as a line of its own.
    title_block = ("A SECURE LEDGER", "REVISION 2018-01-22")
    for opening in ((f"Abstract. {PROSE}",), ("Abstract", PROSE)):
        chapters = [Chapter("", (*title_block, *opening)), Chapter("1. Introduction", (PROSE,))]
        kept, notes = without_edge_imprints(chapters, "Yellow Paper", ["Gavin Wood"])
        assert kept[0].paragraphs == opening
        assert len(notes) == 2


def test_the_editions_lines_run_on_through_its_rights_line() -> None:
    # A limitation statement is a sentence, but the rights and copyright lines after it say whose
    # lines these are; the dialogue's first short line is the story's.
    imprint = (
        "PIERRE MILLE",
        "PARIS CALMANN-LÉVY, ÉDITEURS 3, RUE AUBER, 3",
        "Il a été tiré de cet ouvrage CINQ CENTS EXEMPLAIRES SUR PAPIER VÉLIN DU MARAIS tous numérotés.",
        "Droits de traduction et de reproduction réservés pour tous les pays.",
        "Copyright, 1920, by Calmann-Lévy.",
    )
    chapters = [Chapter("UN DIVORCE", (*imprint, "— Mon père est là ?", PROSE))]
    kept, notes = without_edge_imprints(chapters, "Trois femmes", ["Pierre Mille"])
    assert kept[0].paragraphs == ("— Mon père est là ?", PROSE)
    assert len(notes) == 5
