"""A book's apparatus told by its shape in any language (narrator/text/readers/apparatus.py), and
the closing sections of a last chapter dropped by it (narrator/text/readers/matter.py)."""

from __future__ import annotations

from narrator.text.readers.apparatus import (
    is_bibliography,
    is_catalogue,
    is_corrections_table,
    keyed_to_pages,
    lists_contents,
    lists_titles,
    numbered_notes,
)
from narrator.text.readers.matter import build_chapters
from narrator.text.readers.xhtml import Block, Draft, extract, parse_html

PROSE = "The grandmother came to the valley in spring, and the children ran out to meet her at the gate."


def test_a_contents_page_is_titles_closing_on_pages_in_order() -> None:
    spis = [
        "strona.",
        "KSIĘGA PIERWSZA GOSPODARSTWO 5",
        "KSIĘGA DRUGA - ZAMEK 55",
        "KSIĘGA TRZECIA - UMIZGI 99",
    ]
    assert lists_contents([*spis, "W TYPOGRAFII A. PINARD, PRZY WYBRZEŻU VOLTAIRE, 15."])
    assert lists_contents(["Preface ....... ix", "The Storm ....... 1", "The Calm ....... 17"])
    # References closing on their years, and stanzas that happen to end on numbers, are not.
    assert not lists_contents(
        ["RFC 1034, November 1987.", "RFC 1123, October 1989.", "RFC 2119, March 1997."]
    )
    assert not lists_contents(["We counted 40", "and then 12", "and then 7", PROSE])


def test_a_contents_page_of_the_chapters_own_titles() -> None:
    drafts = [
        Draft(title, [Block(PROSE)]) for title in ("UN DIVORCE", "LA PASSION D’AMANDA MANGIN", "LE PORTRAIT")
    ]
    table = ["Un divorce", "La Passion d’Amanda Mangin 41", "LE PORTRAIT", "E. GREVIN — IMPRIMERIE DE LAGNY"]
    drafts.append(Draft("TABLE", [Block(line) for line in table]))
    chapters, _ = build_chapters(drafts, "Trois femmes")
    assert [c.kind for c in chapters] == ["body", "body", "body", "back"]
    assert chapters[-1].skipped_by == "contents page (the chapters' titles)"
    # Two titles among other lines are a passage that names them, not a contents page.
    assert not lists_titles(["Un divorce", "Le portrait", PROSE, PROSE], {"undivorce", "leportrait"})


def test_notes_keyed_to_page_and_line() -> None:
    notes = [
        "Str. 9, w. 5. Panno Swięta, co jasnéj bronisz Częstochowy.",
        "Wszyscy w Polszcze wiedzą o obrazie cudownym.",
        "Str. 14, w. 5. Nim się Pan Wojski ubierze.",
        "Wojski bywał niegdyś z urzędu opiekunem żon i dzieci szlachty.",
        "Str. 14, w. 19. Ale nie myśl wcale.",
    ]
    assert keyed_to_pages(notes)
    # A diary's dates are not locators, nor are pages out of order.
    assert not keyed_to_pages(["March 3, 1865. Rain.", "March 5, 1865. Sun.", "March 9, 1865. Rain."])
    assert not keyed_to_pages(["P. 90, l. 1. A.", "P. 12, l. 4. B.", "P. 3, l. 2. C."])


def test_a_table_of_corrections_and_a_table_of_values() -> None:
    corrections = [
        ["Paĝo", "Originalteksto", "Korektaĵo"],
        ["21", "ke al Marski", "ke al Mirski"],
        ["47", "la mabenitan tirkeston", "la malbenitan tirkeston"],
        ["57", "inter ni!", 'inter ni!"'],
    ]
    assert is_corrections_table(corrections)
    values = [[f"Строка {r}", *(f"Значение {r}.{c}" for c in range(1, 5))] for r in range(1, 6)]
    assert not is_corrections_table(values)
    # Forms alike with no place to correct: a conjugation, not errata.
    assert not is_corrections_table(
        [["amo", "amas", "amat"], ["moneo", "mones", "monet"], ["rego", "regis", "regit"]]
    )


def test_a_publishers_catalogue_of_other_volumes() -> None:
    catalogue = [
        "Volumo 1:",
        "Goethe, J. W. von: Hermano kaj Doroteo. Eposo idilia. 1922. 77 paĝoj. Kartonita.",
        "Raabe, Wilhelm: La nigra galero. Historia rakonto. 1922. 64 paĝoj. Kartonita.",
        "Chamisso, A. de: La mirinda historio de Petro Schlemihl. 1922. 84 paĝoj. Kartonita.",
    ]
    assert is_catalogue(catalogue)
    history = [f"In {1860 + n} the regiment lost {n + 3} men at the river, and {PROSE}" for n in range(4)]
    assert not is_catalogue(history)


def test_a_last_chapter_loses_the_catalogue_and_corrections_after_it() -> None:
    rows = "".join(
        f"<tr><td>{page}</td><td>{wrong}</td><td>{right}</td></tr>"
        for page, wrong, right in [
            (21, "ke al Marski", "ke al Mirski"),
            (47, "la mabenitan", "la malbenitan"),
            (53, "le ekmiron", "la ekmiron"),
        ]
    )
    html = (
        f"<body><h2>Du talentoj</h2><p>{PROSE}</p><p>{PROSE}</p><h3>Notes on sources</h3><p>{PROSE}</p>"
        "<h3>ESPERANTO-LITERATURO</h3>"
        + "".join(f"<p>Autoro {n}: Titolo. 1922. {60 + n} paĝoj. Kartonita.</p>" for n in range(4))
        + "<h4>Notoj de tekstpreparanto.</h4><p>Mi ŝanĝis ĉi-subajn detalojn:</p>"
        + f"<table>{rows}</table></body>"
    )
    root = parse_html(html)
    assert root is not None
    blocks = extract(root).blocks
    chapters, notes = build_chapters([Draft("Du talentoj", blocks[1:])], "Nuntempaj rakontoj")
    said = chapters[0].paragraphs
    # A section the shapes do not name stays, and stops the search: it is the author's.
    assert said[-2:] == ("Notes on sources", PROSE)
    assert not any("Marski" in p or "paĝoj" in p for p in said)
    assert [n.split(": ", 1)[1].split("'")[1] for n in notes] == [
        "ESPERANTO-LITERATURO",
        "Notoj de tekstpreparanto.",
    ]
    assert notes[-1].endswith("a table of corrections (errata)")


def test_only_the_closing_sections_go() -> None:
    catalogue = [Block(f"Autoro {n}: Titolo. 1922. {60 + n} paĝoj. Kartonita.") for n in range(4)]
    blocks = [
        Block(PROSE),
        Block("Volumes", heading=3),
        *catalogue,
        Block("Epilogue", heading=3),
        Block(PROSE),
    ]
    chapters, notes = build_chapters([Draft("One", blocks)], "A book")
    assert chapters[0].kind == "body" and len(chapters[0].paragraphs) == 8 and not notes


def test_a_line_naming_matter_opens_it_at_either_edge() -> None:
    note = [Block("Transcriber's Notes:"), Block(PROSE)]
    story = [Block(PROSE), Block(PROSE), Block("Transcriber's Note:"), Block("Page 5: of his manuscript Mr.")]
    chapters, notes = build_chapters(
        [Draft("The Elements of Style", note), Draft("I. INTRODUCTORY", story)], "The Elements of Style"
    )
    assert chapters[0].kind == "front" and chapters[0].skipped_by == "transcriber's notes (by its first line)"
    assert chapters[1].paragraphs == (PROSE, PROSE)
    assert list(notes) == [
        "not read: section \"Transcriber's Note:\" at the end of chapter 'I. INTRODUCTORY': "
        "transcriber's note (by title)"
    ]


def test_a_contact_address_spelt_out_against_harvesters_is_not_read() -> None:
    contact = "訳者連絡先 imchongjun2000 アット yahoo ドット co ドット jp"
    chapters, notes = build_chapters([Draft("後記", [Block(PROSE), Block(contact)])], "雲形紋章")
    assert chapters[0].paragraphs == (PROSE,) and "a contact address" in notes[0]
    # Plain "at" and "dot" are words of the story.
    line = "he stared at the dot on the map"
    chapters, notes = build_chapters([Draft("One", [Block(PROSE), Block(line)])], "A book")
    assert chapters[0].paragraphs == (PROSE, line) and not notes


def test_notes_are_told_by_their_numbered_markers_whatever_their_title() -> None:
    notes = ["[1] De scheldnaam werd gegeven.", "[2] Een lans is land.", "[3] Zie boven.", "[4] Vgl. ook."]
    assert numbered_notes(notes)
    assert not numbered_notes(["[3] Zie boven.", "[1] De scheldnaam.", "[2] Een lans.", "[1] Nog eens."])
    assert not numbered_notes(["Het jaar 1650 had zich ruw ingezet.", "[1] Een noot.", "Toen kwam de storm."])


def test_a_bibliography_is_told_by_entries_of_author_and_year_whatever_its_title() -> None:
    works = [
        'Adam, E. P. "Water Radioactivity." Phil. Mag. (6) 6, 568 (1903). -- IV',
        'v. Aubel, E. "Action des corps radioactifs." Compt. rend. 136, 929 (1903).',
        '— "Sur le rayonnement du polonium." Compt. rend. 136, 977 (1903).',
        "Ahmed, Waquar. ‘Neoliberal Utopias and Urban Realities in Delhi’, ACME 10.2 (2011): 163-188.",
    ]
    assert is_bibliography(["(bis Oktober 1903).", *works])
    prose = [
        "Curie, the chemist, worked in 1898 on pitchblende.",
        "It glowed.",
        "Then it was 1903.",
        "And so on.",
    ]
    assert not is_bibliography(prose)


def test_a_publishers_price_list_is_a_catalogue_but_a_table_of_figures_is_not() -> None:
    prices = [
        "Aeschylus: Prometheus Bound. Tr. E. B. Browning. (LLA 24) .40",
        "*Bacon: The New Organon. (LLA 97) 1.00",
        "Whitman: Democratic Vistas. (LLA 9) .50",
        "(Complete catalogue sent upon request)",
    ]
    assert is_catalogue(prices)
    assert not is_catalogue(["0.25", "0.50", "0.75", "1.00"])
    assert not is_catalogue([f"The ratio rose that year, as {PROSE} It ended at 0.25" for _ in range(4)])
