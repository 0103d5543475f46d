"""Opening and closing credits: two short chapters the plan adds around the book, rendered like any
other segment and listed in the catalog, so they are crash-safe and marked in the M4B.

The opening names the book, its authors and the voice, and says the voice is synthetic (listeners
and stores expect narration by a machine to be disclosed); the closing says "The end" and repeats
it. The wording exists for the languages below; a book in another language gets none, and the plan
log says so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from narrator.core.book import CREDITS, Book, Chapter
from narrator.core.language import primary_language


@dataclass(frozen=True)
class Wording:
    opening_title: str
    by: str  # "{title}. By {authors}."
    read_by: str  # "Read by {voice}, a synthetic voice."
    closing_title: str
    the_end: str


WORDING = {
    "en": Wording(
        "Opening credits", "By {authors}.", "Read by {voice}, a synthetic voice.", "End credits", "The end."
    ),
    "de": Wording(
        "Vorspann", "Von {authors}.", "Gelesen von {voice}, einer synthetischen Stimme.", "Abspann", "Ende."
    ),
    "fr": Wording(
        "Générique de début",
        "De {authors}.",
        "Lu par {voice}, une voix de synthèse.",
        "Générique de fin",
        "Fin.",
    ),
    "es": Wording(
        "Créditos iniciales",
        "De {authors}.",
        "Leído por {voice}, una voz sintética.",
        "Créditos finales",
        "Fin.",
    ),
    "it": Wording(
        "Titoli di testa", "Di {authors}.", "Letto da {voice}, una voce sintetica.", "Titoli di coda", "Fine."
    ),
    "pt": Wording(
        "Créditos iniciais",
        "De {authors}.",
        "Lido por {voice}, uma voz sintética.",
        "Créditos finais",
        "Fim.",
    ),
    "nl": Wording(
        "Begintitels",
        "Door {authors}.",
        "Voorgelezen door {voice}, een synthetische stem.",
        "Eindtitels",
        "Einde.",
    ),
    "sv": Wording(
        "Förtexter", "Av {authors}.", "Uppläst av {voice}, en syntetisk röst.", "Eftertexter", "Slut."
    ),
}


def with_credits(book: Book, language: str, voice: str) -> tuple[Book, str]:
    """The book with an opening and a closing credits chapter, and a note for the plan log."""
    wording = WORDING.get(primary_language(language))
    if wording is None:
        known = ", ".join(sorted(WORDING))
        return book, f"credits skipped: no wording for language {language!r} (there is for {known})"
    title = book.title.strip().rstrip(".")
    announcement = [f"{title}." if title else ""]
    if book.authors:
        announcement.append(wording.by.format(authors=", ".join(book.authors)))
    announcement.append(wording.read_by.format(voice=voice))
    said = " ".join(sentence for sentence in announcement if sentence)
    # The closing repeats the announcement after "The end", as ACX asks of closing credits; two
    # words alone would also make too short a file to reach ACX's RMS band.
    chapters = (
        Chapter(wording.opening_title, (said,), kind=CREDITS),
        *book.chapters,
        Chapter(wording.closing_title, (f"{wording.the_end} {said}",), kind=CREDITS),
    )
    note = f"credits: {wording.opening_title!r} and {wording.closing_title!r}"
    return replace(book, chapters=chapters), note
