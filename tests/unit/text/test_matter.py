"""Front and back matter found by evidence (narrator/text/readers/matter.py) and titles as heard."""

from __future__ import annotations

import pytest

from narrator.core.book import Chapter
from narrator.text.readers.matter import build_chapters, is_matter_title, without_edge_imprints
from narrator.text.readers.titles import chapter_line, chapter_run, without_note_references
from narrator.text.readers.xhtml import Block, Draft, Source

PROSE = "The grandmother came to the valley in spring, and the children ran out to meet her at the gate."


@pytest.mark.parametrize(
    ("title", "matter"),
    [
        ("The GNU General Public License", True),
        ("About this digital edition", True),
        ("About this document", True),
        ("GLOSSARY", True),
        ("Further reading", True),
        ("See also", True),
        ("The Marriage License", False),
        ("About Us", False),
    ],
)
def test_matter_titles(title: str, matter: bool) -> None:
    assert is_matter_title(title) is matter


def test_the_sections_under_a_notes_part_are_notes() -> None:
    drafts = [
        Draft("Compensation", [Block(PROSE)]),
        Draft("NOTES", []),
        Draft("Compensation", [Block("1. Page 3. The reference is to an earlier essay.")], ("NOTES",)),
    ]
    chapters, _ = build_chapters(drafts, "Essays")
    assert [(c.kind, c.skipped_by) for c in chapters] == [
        ("body", ""),
        ("back", "notes (by title)"),
        ("back", "notes (by part title)"),
    ]


def test_a_copyright_page_among_the_opening_pages_is_not_read() -> None:
    def page(name: str, *texts: str) -> list[Block]:
        return [Block(text, source=Source(name, f"/html/body/p[{n}]")) for n, text in enumerate(texts, 1)]

    notice = "Vydání podléhá licenci Creative Commons Uveďte autora 3.0 Česko. ISBN 978-80-274-0043-0."
    opening = Draft(
        "", [*page("title.xhtml", "Babička"), *page("notice.xhtml", notice), *page("motto.xhtml", PROSE)]
    )
    chapters, notes = build_chapters([opening, Draft("I", [Block(PROSE)])], "Babička")
    assert chapters[0].paragraphs == ("Babička", PROSE)
    assert notes == (f"not read: {notice[:100]!r}: a copyright page",)
    # A page with a heading is a chapter's, even where it cites a licence: it is read.
    headed = Draft("Preface", [Block("Using Code Examples", heading=2), Block(notice), Block(PROSE)])
    for n, block in enumerate(headed.blocks):
        block.source = Source("preface.xhtml" if n < 2 else "more.xhtml", f"/p[{n}]")
    assert build_chapters([headed], "Book")[0][0].paragraphs == ("Using Code Examples", notice, PROSE)


def test_a_copyright_line_is_evidence_of_the_title_page() -> None:
    chapters = [
        Chapter(
            "", ("INTERNACIA MONDLITERATURO", "G. P. STAMATOV", "COPYRIGHT 1922 BY FERDINAND HIRT & SOHN")
        ),
        Chapter("I", (PROSE,)),
    ]
    kept, notes = without_edge_imprints(chapters, "Nuntempaj Rakontoj", [])
    assert [p for c in kept for p in c.paragraphs] == [PROSE]
    assert len(notes) == 3


def test_note_references_are_not_part_of_a_title() -> None:
    assert without_note_references("SHAKSPEARE;[525] OR, THE POET") == "SHAKSPEARE; OR, THE POET"
    assert without_note_references("COMPENSATION.[93]") == "COMPENSATION."
    assert without_note_references("Chapter [1]") == "Chapter [1]"  # set apart: not a reference


@pytest.mark.parametrize(
    ("line", "heads"),
    [
        ("Розділ II", True),
        ("LIBER IV", True),
        ("Kapitel 3", True),
        ("Chapter iv", True),  # English numerals in any case, as before
        ("Parte di lui era morta", False),  # "di" is no numeral in capitals
        ("Libro mio", False),
    ],
)
def test_chapter_lines_in_other_languages(line: str, heads: bool) -> None:
    assert (chapter_line(line) is not None) is heads


@pytest.mark.parametrize(
    "title",
    [
        "Transcriber's Notes",
        "Note du transcripteur",
        "Nota del Trascrittore",
        "Anmerkungen zur Transkription",
    ],
)
def test_a_transcribers_note_is_matter_in_the_languages_that_share_the_word(title: str) -> None:
    assert is_matter_title(title)


def test_a_page_of_the_transcribers_notes_run_in_under_their_names_is_matter() -> None:
    notes = Draft(
        "Arsène Lupin",
        [
            Block("Transcriber's note: This eBook is based on the 1907 edition."),
            Block("Note du transcripteur: Ce eBook est basé sur l'édition de 1907."),
        ],
    )
    story = Draft("Arsène Lupin", [Block("Note: he said it twice."), Block(PROSE)])
    chapters, _ = build_chapters([notes, Draft("I", [Block(PROSE)]), story], "Arsène Lupin")
    assert [(c.kind, c.skipped_by) for c in chapters] == [
        ("front", "transcriber's note (run in)"),
        ("body", ""),
        ("body", ""),
    ]


def test_an_editions_record_a_bar_of_links_and_bracketed_links_are_not_read_but_a_dialogue_is() -> None:
    record = Block(
        "Source: Marx, Karl. Value, Price and Profit. New York, 1969; Written: June 1865; Edited: by Aveling;"
    )
    bar = Block("Study Guide | Notes by Marx | Economics Index", link_chars=40)
    files = Block("[Listen] [View Lilypond]", link_chars=19)
    dialogue = Block("Le premier dit: J'ai bien faim! L'autre dit: Il faut du pain! Et ce fut en 1650.")
    chapters, notes = build_chapters([Draft("I", [record, Block(PROSE), bar, files, dialogue])], "Book")
    assert chapters[0].paragraphs == (PROSE, dialogue.text)
    assert len([n for n in notes if n.startswith("not read")]) == 3


def test_a_short_section_that_claims_the_rights_is_a_notice_whatever_its_title() -> None:
    notice = Draft(
        "Lisans", [Block("Bookworm telif hakkı (c) 2019-2022 Mosharraf Omer ve katkıda bulunanlara aittir.")]
    )
    chapters, _ = build_chapters([Draft("Giriş", [Block(PROSE)]), notice], "Bookworm")
    assert [c.skipped_by for c in chapters] == [
        "",
        "copyright notice (a short section that claims the rights)",
    ]


def test_a_list_of_the_authors_works_under_a_heading_in_capitals_before_the_story_is_a_title_page() -> None:
    works = Draft(
        "OBRAS DO AUTOR", [Block("Helena, romance\nYayá Garcia, romance\nAmericanas, poesias\nTheatro")]
    )
    chapters, _ = build_chapters([works, Draft("AO LEITOR", [Block(PROSE)])], "Memorias")
    assert [c.skipped_by for c in chapters] == ["title page", ""]


def test_a_short_page_of_who_made_the_file_with_a_contact_address_and_a_date_is_not_read() -> None:
    colophon = Draft(
        "Nota redakcyjna",
        [
            Block(
                "Przygotowanie oraz konwersja do formatów EPUB i MOBI: Maciej Brencz <mb@example.com> "
                "Źródło: WikiŹródła Data wygenerowania pliku: 12 maj 2013 r. Miłej lektury!"
            )
        ],
    )
    # An author's closing line with a year but no address is the author's.
    thanks = Draft("Podziękowania", [Block("Dziękuję wszystkim, którzy pomogli mi w 1922 roku.")])
    chapters, _ = build_chapters([Draft("Czerwona Magda", [Block(PROSE)]), thanks, colophon], "Księga ognia")
    assert [c.skipped_by for c in chapters] == ["", "", "the producer's page (a contact address and a date)"]


def test_a_contents_with_its_sections_run_into_its_lines_names_the_chapters_after_it_in_order() -> None:
    names = ["Primo uso", "Articoli", "Pagine", "Commenti"]
    contents = Draft(
        "Indice",
        [
            Block("Primo uso"),
            Block("Come accedere Cos'è la Bache ca La Barra late rale"),
            Block("Articoli"),
            Block("Le Bo zze Pro grammare gli Artico li"),
            Block("Pagin e"),
            Block("Cosa son o U sarle con caute la"),
            Block("Commen ti"),
            Block("Cosa son o i Co mme nti"),
        ],
    )
    chapters, _ = build_chapters([contents, *(Draft(name, [Block(PROSE)]) for name in names)], "ebook")
    assert chapters[0].skipped_by == "contents page (the next chapters' titles in order, with their sections)"
    assert [c.skipped_by for c in chapters[1:]] == ["", "", "", ""]
    # Two of four named, or the names out of order: a section of the book.
    for lines in (
        ["Gli articoli del giorno", "e i commenti della sera"],
        ["Commenti e pagine", "articoli, primo uso"],
    ):
        chapters, _ = build_chapters(
            [
                Draft("Poesia", [Block(line) for line in lines]),
                *(Draft(name, [Block(PROSE)]) for name in names),
            ],
            "ebook",
        )
        assert chapters[0].skipped_by == ""


def test_a_short_section_of_a_few_words_and_a_web_address_is_the_producer_s() -> None:
    faq = Draft(
        "FAQ", [Block("Per migliorare l'eBook visita il sito http://example.org/guida-per-il-cliente/")]
    )
    chapters, _ = build_chapters([Draft("Primo uso", [Block(PROSE)]), faq], "ebook")
    assert chapters[1].skipped_by == "the producer's page (a web address)"


def test_a_paragraph_of_the_chapters_titles_in_order_and_its_heading_are_not_read() -> None:
    titles = ["PREMIÈRE PARTIE I", "II", "III", "DEUXIÈME PARTIE I", "II", "TROISIÈME PARTIE I"]
    opening = Draft(
        "",
        [
            Block("Table des matières"),
            Block("PREMIÈRE PARTIE\nI\nII\nIII\nDEUXIÈME PARTIE\nI\nII\nTROISIÈME PARTIE\nI"),
            Block("Cher et illustre ami, permettez-moi d'inscrire votre nom en tête de ce livre."),
        ],
    )
    chapters, notes = build_chapters([opening, *(Draft(t, [Block(PROSE)]) for t in titles)], "Madame Bovary")
    assert chapters[0].paragraphs == (
        "Cher et illustre ami, permettez-moi d'inscrire votre nom en tête de ce livre.",
    )
    assert any(n.endswith("contents (the chapters' titles in their order)") for n in notes)
    # Numerals in a line of verse are no contents: no title long enough to be there by chance.
    verse = Draft("", [Block("Il vit I, II et III rois\nsous la pluie"), Block(PROSE)])
    chapters, _ = build_chapters([verse, *(Draft(t, [Block(PROSE)]) for t in ["I", "II", "III"])], "Rois")
    assert chapters[0].paragraphs == ("Il vit I, II et III rois\nsous la pluie", PROSE)


@pytest.mark.parametrize("title", ["NOTE ON THE TEXT", "A Note on the Text", "Textual Notes"])
def test_the_editors_note_on_the_text_is_matter(title: str) -> None:
    assert is_matter_title(title)


def test_a_chapter_number_said_twice_where_the_next_is_missing_is_a_slip_for_it() -> None:
    def enough(start: int) -> int:
        return 10**6

    assert chapter_run(list(enumerate([1, 2, 3, 4, 4, 6, 7])), enough) == set(range(7))
    # Said twice with the next number after it: the second is not a chapter.
    assert chapter_run(list(enumerate([1, 2, 3, 3, 4, 5, 6])), enough) == {0, 1, 2, 4, 5, 6}


def test_what_follows_the_end_and_a_closing_web_address_are_not_read_but_a_long_sequel_is() -> None:
    imprint = [Block("Printed in Great Britain by Richard Clay."), Block("Errata Noted by Transcriber:")]
    last = Draft("SCENE V", [Block(PROSE), Block("FINIS."), *imprint])
    chapters, notes = build_chapters([Draft("SCENE IV", [Block(PROSE)]), last], "The Beggar's Opera")
    assert chapters[1].paragraphs == (PROSE, "FINIS.") and "after the book's end" in notes[-1]
    # A story that goes on past a "Fin" of its own for longer than it ran is still the book.
    sequel = Draft("Epílogo", [Block("Poco."), Block("Fin"), Block(PROSE)])
    assert build_chapters([sequel], "Cuentos")[0][0].paragraphs == ("Poco.", "Fin", PROSE)
    terms = "این سند از کتابخانهٔ مراجع بهائی دانلود شده است. www.bahai.org/fa/legal استفاده نمائید."
    chapters, notes = build_chapters([Draft("هفت وادی", [Block(PROSE), Block(terms)])], "هفت وادی")
    assert chapters[0].paragraphs == (PROSE,) and "a web address" in notes[-1]
    # Under a heading that cites its sources, the last address is the author's, as the others are.
    sources = [
        Block("Pripisovanje", heading=2),
        Block("Ta kodeks je prilagojen po zavezi, na voljo na https://www.contributor-covenant.org/sl."),
        Block("Za odgovore glejte pogosta vprašanja na https://www.contributor-covenant.org/faq."),
    ]
    chapters, _ = build_chapters([Draft("Kodeks ravnanja", [Block(PROSE), *sources])], "Kodeks")
    assert chapters[0].paragraphs[-1].startswith("Za odgovore glejte")


def test_a_colophon_that_says_author_and_title_in_one_line_goes_and_dialogue_after_a_title_page_stays() -> (
    None
):
    colophon = ("Viktor Dyk Krysař", "Vydala Městská knihovna v Praze", "ISBN 978-80-274-1947-0 (epub)")
    title_page = Chapter("Krysař", ("Krysař", "Viktor Dyk"), kind="front", skipped_by="title page")
    opening = ("I", "„A vaše jméno?“", "„Nejmenuji se; jsem nikdo. Jsem hůř než nikdo, jsem krysař.“", PROSE)
    chapters = [title_page, Chapter("Kapitola I", opening), Chapter("Kapitola XXVI", (PROSE, *colophon))]
    kept, notes = without_edge_imprints(chapters, "Krysař", ("Viktor Dyk",))
    assert kept[1].paragraphs[1:] == opening[1:] and kept[2].paragraphs == (PROSE,)
    assert len([note for note in notes if "colophon" in note]) == len(colophon)
    # Nor over a line of a sentence's length: a poem's first stanza, run together.
    stanza = "Motum ex Metello consule ciuicum bellique causas et uitia et modos ludumque Fortunae grauisque"
    chapters[1] = Chapter("Caput I", ("I", stanza, PROSE))
    assert without_edge_imprints(chapters, "Krysař", ())[0][1].paragraphs[1] == stanza


def test_a_page_about_the_book_that_opens_on_its_licence_is_matter_in_any_language() -> None:
    about = [
        Block("Licenza"),
        Block("Little Redis Book è rilasciato sotto licenza Attribution-NonCommercial 3.0 Unported."),
        *[Block(PROSE) for _ in range(16)],  # the author, the translator, thanks: 300 words in all
    ]
    drafts = [Draft("Il Libro", about), Draft("Introduzione", [Block(PROSE)])]
    chapters, _ = build_chapters(drafts, "Little Redis Book")
    assert [(c.kind, c.skipped_by) for c in chapters] == [
        ("front", "about the book (opens on its licence)"),
        ("body", ""),
    ]
    # A licence named deep in a chapter does not make it the licence's.
    late = [*[Block(PROSE) for _ in range(16)], about[1]]
    chapters, _ = build_chapters([Draft("Il Libro", late), Draft("Introduzione", [Block(PROSE)])], "Book")
    assert chapters[0].kind == "body"


def test_an_edition_line_over_the_story_is_matter_but_one_among_the_title_page_s_lines_is_not() -> None:
    drafts = [Draft("THE MILLENNIUM FULCRUM EDITION, 1988", []), Draft("I", [Block(PROSE)])]
    chapters, _ = build_chapters(drafts, "An Occurrence at Owl Creek Bridge")
    assert chapters[0].skipped_by == "the edition's line (a heading with no text, over the story)"
    drafts = [
        Draft("Settima edizione", []),
        Draft("MILANO", [Block("FRATELLI TREVES, EDITORI"), Block(PROSE)]),
    ]
    chapters, _ = build_chapters(drafts, "Una notte bizzarra")
    assert chapters[0].skipped_by == ""


def test_the_fields_that_close_a_book_are_its_record_but_a_play_s_closing_speeches_are_read() -> None:
    fields = ["License: [CC-BY]", "Text: Rukia Nantale", "Illustration: Benjamin Mitchley", "Language: hi"]
    story = [Block(PROSE) for _ in range(16)]  # a page of the story's own: a short one is the licence's
    chapters, notes = build_chapters([Draft("Simbegwire", [*story, *map(Block, fields)])], "Simbegwire")
    assert chapters[0].paragraphs == (PROSE,) * 16
    assert any("the edition's record (fields)" in note for note in notes)
    speeches = [
        "HAMLET: The rest is silence.",
        "HORATIO: Good night, sweet prince.",
        "FORTINBRAS: Go, bid the soldiers",
    ]
    chapters, _ = build_chapters([Draft("Act V", [Block(PROSE), *map(Block, speeches)])], "Hamlet")
    assert chapters[0].paragraphs == (PROSE, *speeches)
