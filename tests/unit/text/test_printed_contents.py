"""A plain text's printed contents as the map of its chapters (narrator/text/readers/printed_contents.py)."""

from __future__ import annotations

from narrator.core.book import LONGEST_CHAPTER_CHARS, Book
from narrator.text.readers.printed_contents import without_contents
from narrator.text.readers.txt import parse_txt

PROSE = "The ship rolled on through the grey water, and nobody aboard said a word about it. "


def _body(words: str, times: int = 3) -> str:
    return "\n".join([PROSE * 2] * times).replace(PROSE, f"{words} {PROSE}", 1)


def _book(text: str) -> Book:
    return parse_txt(text, "Test book")


def _said(book: Book) -> list[str]:
    return [p for c in book.chapters if c.kind == "body" for p in c.paragraphs]


DUTCH = f"""INHOUD.


AT SEA.

                                      Bladz.
THE TRAVELLERS                          3.
FAREWELL                               17.
A FIRST
STORM AT SEA                           26.


LETTERS.

TO FLORA                              163.
TO TITANIA                            169.




THE TRAVELLERS.

{_body("Opening words of the travellers.")}


Part I

{_body("The travellers' first part.")}


Part II

{_body("The travellers' second part.")}




FAREWELL.

{_body("Farewell words.")}




A FIRST STORM AT SEA.

{_body("Storm words.")}




LETTERS.




TO FLORA.

{_body("Dear Flora.")}




TO TITANIA.

{_body("Dear Titania.")}




ERRATA

Page 3, line 4: "teh" read "the".
"""


def test_the_contents_entries_are_the_chapters_and_other_headings_are_inside_them() -> None:
    book = _book(DUTCH)
    body = [c for c in book.chapters if c.kind == "body" and c.paragraphs]
    assert [c.title for c in body] == [
        "THE TRAVELLERS",
        "FAREWELL",
        "A FIRST STORM AT SEA",
        "TO FLORA",
        "TO TITANIA",
    ]
    travellers = body[0].paragraphs
    # "Part I" is not listed: said as a heading inside its chapter, after a section break.
    assert "Part I" in travellers and "Part II" in travellers
    assert body[0].section_ends
    # A group heading titles the entries after it; the column label and the errata are not read.
    assert any(c.title == "LETTERS" and not c.paragraphs for c in book.chapters)
    said = " ".join(_said(book))
    assert "Bladz" not in said and "teh" not in said
    assert any("printed contents is the map" in note for note in book.notes)


def test_what_stands_before_the_first_entry_opens_the_first_chapter() -> None:
    text = f"""A NOTE FIRST




{_body("A note before the contents.")}


CONTENTS

  Introduction                        ix
  The Play                             1
  The Songs                           40




INTRODUCTION

{_body("Introduction words.")}




THE PLAY

{_body("The play's words.")}




THE SONGS

{_body("The songs.")}
"""
    book = _book(text)
    body = [c for c in book.chapters if c.kind == "body" and c.paragraphs]
    assert [c.title for c in body] == ["Introduction", "The Play", "The Songs"]
    assert body[0].paragraphs[0] == "A NOTE FIRST"
    assert "A note before the contents." in body[0].paragraphs[1]
    assert any("heard at the start of 'Introduction'" in note for note in book.notes)


LANE = "Lane is arranging afternoon tea on the table, and after the music has ceased he enters. " * 9
GARDEN = "Garden at the Manor House, a flight of grey stone steps leads up to the house. " * 9
ROOM = "Morning-room at the Manor House, where Gwendolen and Cecily are at the window. " * 9


def test_a_contents_with_no_label_but_its_own_is_found_by_its_numbered_divisions() -> None:
    text = f"""THE SCENES OF THE PLAY


ACT I.  Algernon's Flat in Half-Moon Street.

ACT II.  The Garden at the Manor House.

ACT III.  Drawing-Room at the Manor House.

TIME: The Present.


FIRST ACT

{LANE}


SECOND ACT

{GARDEN}


THIRD ACT

{ROOM}
"""
    book = _book(text)
    body = [c for c in book.chapters if c.kind == "body" and c.paragraphs]
    # "FIRST ACT" answers "ACT I." however the number is written; the entries are the titles.
    assert [c.title for c in body] == [
        "ACT I. Algernon's Flat in Half-Moon Street",
        "ACT II. The Garden at the Manor House",
        "ACT III. Drawing-Room at the Manor House",
    ]
    said = " ".join(_said(book))
    # The label is the contents page's, and the entries are read as titles only.
    assert "THE SCENES OF THE PLAY" not in said and "Algernon's Flat" not in said
    # Divisions the text never heads again are a list in the text, not its contents.
    listed = text.replace("FIRST ACT", "PROLOGUE")
    assert without_contents(listed.split("\n"))[1] == []


def test_indented_entries_are_chapters_only_where_their_level_runs_longer_than_a_chapter() -> None:
    # Bulleted as lynx writes a contents: the bullets are not part of the titles.
    def text(paragraphs: int) -> str:
        return f"""CONTENTS

  * The School                          1
      * Costumes                       16
  * The Wedding                        19
      * Suggestions                    37




THE SCHOOL

{_body("School words.", paragraphs)}




COSTUMES

{_body("Costume words.")}




THE WEDDING

{_body("Wedding words.")}




SUGGESTIONS

{_body("Suggestion words.")}
"""

    short = [c.title for c in _book(text(3)).chapters if c.paragraphs]
    assert short == ["The School", "The Wedding"]
    # A school of more than 90 minutes makes its level parts: the costumes are a chapter of their
    # own, and so are the shorter wedding's suggestions, as a listener expects of sibling parts.
    long = [
        c.title for c in _book(text(LONGEST_CHAPTER_CHARS // len(PROSE * 2) + 1)).chapters if c.paragraphs
    ]
    assert long == ["The School", "Costumes", "The Wedding", "Suggestions"]


def test_a_contents_that_does_not_head_the_text_is_no_map() -> None:
    text = f"""CONTENTS

  Of Ships                             1
  Of Storms                            9
  Of Harbours                         17




CHAPTER I.

{_body("First chapter.")}




CHAPTER II.

{_body("Second chapter.")}
"""
    book = _book(text)
    assert [c.title for c in book.chapters if c.paragraphs] == ["CHAPTER I", "CHAPTER II"]
    assert not any("printed contents" in note for note in book.notes)


def test_the_contents_ends_where_an_entry_stands_without_its_page_number() -> None:
    # The contents' first line is a group heading the text never repeats; the page ends at the
    # first entry's heading (without its page number), so no line of the prologue is lost.
    page = """INHOUD.

AT SEA.

THE TRAVELLERS                          3.
FAREWELL                               17.



THE TRAVELLERS.
A PROLOGUE.

Strange! quoth I,
debating the matter.
"""
    kept, entries = without_contents(page.split("\n"))
    assert [e.title for e in entries] == ["AT SEA", "THE TRAVELLERS", "FAREWELL"]
    assert entries[0].group and not entries[1].group
    assert "Strange! quoth I," in kept and "THE TRAVELLERS." in kept


def test_entries_numbered_flush_right_answer_to_their_numbers_alone() -> None:
    # Roman numbers set flush right; each heading is the number, its title in capitals below.
    text = f"""INDICE.

                                                       Páh.
        I.--Sa Cubierta                                   7
       II.--Sa silong ng̃ Cubierta                        18
      III.--Mg̃a alamát                                   27
     VIII.--¡Mabuting Paskó!                             70



I

SA CUBIERTA

{_body("Cubierta words.")}



II

SA SILONG NG̃ CUBIERTA

{_body("Silong words.")}



III

MG̃A ALAMÁT

{_body("Alamat words.")}



VIII

¡MABUTING PASKÓ!

{_body("Pasko words.")}
"""
    book = _book(text)
    assert [c.title for c in book.chapters if c.paragraphs] == [
        "I.--Sa Cubierta",
        "II.--Sa silong ng̃ Cubierta",
        "III.--Mg̃a alamát",
        "VIII.--¡Mabuting Paskó!",
    ]


def test_a_chapter_s_name_in_capitals_under_its_number_titles_it_without_a_contents() -> None:
    sections = ["ЗАГАЛЬНІ ЗАСАДИ", "ВИБОРИ. РЕФЕРЕНДУМ", "ВЕРХОВНА РАДА УКРАЇНИ"]
    text = "\n\n\n".join(
        f"Розділ {numeral}\n\n{name}\n\n{_body('Стаття words.')}"
        for numeral, name in zip(("I", "II", "III"), sections, strict=True)
    )
    assert [c.title for c in _book(text).chapters if c.paragraphs] == [
        f"Розділ {numeral}. {name}" for numeral, name in zip(("I", "II", "III"), sections, strict=True)
    ]


def test_a_contents_printed_at_the_end_with_a_blank_line_between_entries_is_the_map() -> None:
    # A Catalan collection: stories after two or three blank lines, "INDEX" at the end with dot
    # leaders and no page numbers, one heading spelt with another accent ("SUBSTITUCIÒ").
    titles = ["LA MARE-BALENA", "TEMPTACIÓ", "CROQUIS", "SUBSTITUCIÒ"]
    stories = "".join(f"\n\n{title}\n\n\n{_body(title.lower())}\n" for title in titles)
    index = "\n\n".join(f"{title.title().replace('ò', 'ó')}{'.' * 40}" for title in titles)
    book = _book(f"{stories}\n\n\nFI\n\n\n\n\nINDEX\n\n{index}\n")
    chapters = [c for c in book.chapters if c.kind == "body"]
    assert [c.title for c in chapters] == ["La Mare-Balena", "Temptació", "Croquis", "Substitució"]
    assert not any("...." in p for p in _said(book))


def test_a_bracketed_note_that_closes_the_text_is_not_read() -> None:
    note = "[Talâ ng Tagapagsalin:\n\nAng mga larawan ay nasa archive.org/details/x.\n\nIba pang edisyon.]"
    book = _book(f"CHAPTER I\n\n\n{_body('one')}\n\n\nCHAPTER II\n\n\n{_body('two')}\n\n\n{note}\n")
    assert not any("archive.org" in p or "Tagapagsalin" in p for p in _said(book))
    assert any("a bracketed note at the end" in n for n in book.notes)
    # A closing list of bracketed references is the text's, closing outside brackets.
    refs = "[RFC1034] Mockapetris, P., Domain names, November 1987.\n\n[RFC1123] Braden, R., Hosts, 1989."
    book = _book(f"CHAPTER I\n\n\n{_body('one')}\n\n\nCHAPTER II\n\n\n{_body('two')}\n\n\n{refs}\n")
    assert any("Mockapetris" in p for p in _said(book))


ITALIAN = f"""    In su' vespri giocondi, dolcemente
      Sul lago tranquillissimo voghiamo,

INDICE.

  CAP.                                             PAGE.
     I. GIÙ NELLA CONIGLIERA                           1
    II. LO STAGNO DI LAGRIME                          15
   III. CORSA ARRUFFATA                               29

[Illustrazione]

CAPITOLO I.

GIÙ NELLA CONIGLIERA.

{_body("Alice cominciava a sentirsi stanca.")}

CAPITOLO II.

LO STAGNO DI LAGRIME.

{_body("Curiosissimo!")}

CAPITOLO III.

CORSA ARRUFFATA.

{_body("L'assemblea era bizzarra.")}
"""


def test_a_chapter_line_answers_the_entry_its_number_names_and_the_columns_labels_are_no_entry() -> None:
    book = _book(ITALIAN)
    assert [c.title for c in book.chapters if c.kind == "body"] == [
        "I. GIÙ NELLA CONIGLIERA",
        "II. LO STAGNO DI LAGRIME",
        "III. CORSA ARRUFFATA",
    ]
    assert "the printed contents is the map: 3 of its 3 entries head the text" in " ".join(book.notes)
    # Neither the columns' labels nor the headings the entries gave the titles are read.
    said = _said(book)
    assert said[0].startswith("Alice cominciava")
    assert not any("PAGE" in p or "CAPITOLO" in p or "GIÙ NELLA" in p for p in said)
