"""The book's language: stated, identified from the text, or a statement the text overrides."""

from __future__ import annotations

from pathlib import Path

from narrator.core.book import Book, Chapter
from narrator.text.detect_language import settle_language
from narrator.text.ingest import read_book

DUTCH = (
    "Het was een koude ochtend in de stad, en de mensen liepen snel naar hun werk. "
    "Niemand had tijd om naar de lucht te kijken, die grijs en zwaar boven de daken hing."
)
RUSSIAN = (
    "Было холодное утро, и люди быстро шли на работу. Никто не смотрел на небо, "
    "которое висело над крышами серое и тяжёлое, как старое одеяло."
)


def _book(paragraph: str, language: str = "en", source: str = "") -> Book:
    chapters = tuple(Chapter(f"{n}", (paragraph,) * 3) for n in range(1, 6))
    return Book("T", chapters, language=language, language_source=source)


def test_a_book_that_states_nothing_is_in_the_language_of_its_text() -> None:
    book = settle_language(_book(RUSSIAN))
    assert book.language == "ru"
    assert "identified from the text" in book.notes[-1] and "states none" in book.notes[-1]


NORWEGIAN = (
    "Det var en gang tre bukker som skulle gå til seters for å gjøre seg fete, og alle tre hette Bruse. "
    "På veien var det en bru over en foss de skulle over, og under brua bodde et stort fælt troll."
)


def test_norwegian_the_identifier_calls_no_is_bokmal() -> None:
    # py3langid says "no" (the macrolanguage) and tells Nynorsk apart as "nn": the rest is Bokmål.
    assert settle_language(_book(NORWEGIAN)).language == "nb"
    stated = settle_language(_book(NORWEGIAN, "no", "Gutenberg 'Language:' line"))
    assert stated.language == "no"


def test_a_statement_the_text_agrees_with_keeps_its_region() -> None:
    book = settle_language(_book(DUTCH, "nl-BE", "OPF dc:language"))
    assert book.language == "nl-BE"
    assert book.notes[-1].startswith("language 'nl-BE' from the OPF dc:language; the text agrees")


def test_a_statement_the_text_contradicts_is_overridden_and_said() -> None:
    book = settle_language(_book(DUTCH, "en", "OPF dc:language"))
    assert book.language == "nl"
    assert "the OPF dc:language says 'en'" in book.notes[-1]


def test_too_little_text_keeps_the_statement_or_assumes_english() -> None:
    stated = settle_language(
        Book("T", (Chapter("1", ("Ja.",)),), language="sv", language_source="front matter")
    )
    assert stated.language == "sv" and "too short" in stated.notes[-1]
    assert settle_language(Book("T", (Chapter("1", ("Ja.",)),))).language == "en"


def test_a_gutenberg_language_line_and_an_html_lang_are_statements(tmp_path: Path) -> None:
    text = tmp_path / "boek.txt"
    text.write_text(
        f"Title: Boek\nLanguage: Dutch\n\n*** START OF THE PROJECT GUTENBERG EBOOK BOEK ***\n\n"
        f"{DUTCH}\n\n{DUTCH}\n\n*** END OF THE PROJECT GUTENBERG EBOOK BOEK ***\n",
        encoding="utf-8",
    )
    assert read_book(text).language == "nl"
    assert "Gutenberg 'Language:' line; the text agrees" in read_book(text).notes[-1]
    page = tmp_path / "page.html"
    page.write_text(f'<html lang="ru"><body><h1>Т</h1><p>{RUSSIAN}</p><p>{RUSSIAN}</p></body></html>')
    assert read_book(page).notes[-1].startswith("language 'ru' from the document's lang attribute")


def test_a_statement_of_a_close_neighbour_of_what_the_text_reads_as_is_kept() -> None:
    # Riksmål, the Norwegian of 1900, which the identifier reads as Danish.
    riksmaal = (
        "Syng mig, gudinde, om vreden som optændtes hos Peleus' søn Achilleus, den ødelæggende vrede "
        "som voldte achæerne tusen lidelser og sendte mange kjække heltesjæle til Hades. "
    )
    book = settle_language(_book(riksmaal * 6, "nb-NO", "OPF dc:language"))
    assert book.language == "nb-NO"
    assert "close neighbour" in book.notes[-1]


def test_passages_are_drawn_by_characters_so_a_long_paragraph_outweighs_short_ones() -> None:
    # A long Italian poem set as one paragraph between two lines of Latin (an epigraph, a note).
    italian = "Perchè si viva alla mia mente splendi o dei passati orrori idea funesta? " * 60
    latin = "Crudelis ubique luctus, ubique pavor, et plurima mortis imago."
    book = Book("T", (Chapter("L'Inverno", (latin, italian, latin)),), language="en")
    assert settle_language(book).language == "it"
