"""Split chapters into segments: sentences, with over-long sentences cut at clauses, then words.

Sentences come from pysbd for the languages it has rules for, chosen by the primary subtag of
the BCP 47 tag ("en-US" -> "en"). Other languages ("sv", "fi", "pt", ...) get a generic
splitter: a sentence ends at . ! ? or an ellipsis before a space and a letter that is not lower
case. pysbd's English rules are no good there: they end sentences at abbreviations they do not
know ("t.ex. i går", "Esim. kissa", "Se oli 5. päivä"); a sentence left too long is harmless,
since ``split_to_budget`` cuts it at clauses anyway, but a false end puts a sentence's pause
mid-sentence. ``describe_segmenter`` says which one a language gets, for the plan's log.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from functools import lru_cache
from typing import Protocol

import pysbd

from narrator.core.book import CREDITS, Book, Segment
from narrator.core.language import primary_language

# A clause break: after , ; : or a dash, before whitespace; or after the commas and semicolons of
# Arabic and of CJK (U+060C, U+061B, U+FF0C, U+3001, U+FF1B, U+FF1A), which need no space.
_CLAUSE_BREAK = re.compile(r"[,;:\u2013\u2014)](?=\s)|[\u060c\u061b\uff0c\u3001\uff1b\uff1a]")
# Scripts written without spaces between words: a sentence may be cut between any two characters.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\u0e00-\u0e7f]")


def _pysbd_language(language: str) -> str | None:
    """The pysbd language for a BCP 47 tag, or None where pysbd has no rules for it."""
    primary = primary_language(language)
    return primary if primary in pysbd.languages.LANGUAGE_CODES else None


def describe_segmenter(language: str) -> str:
    """Which sentence splitter ``language`` gets: "pysbd 'en'" or "generic (pysbd has no 'sv')"."""
    pysbd_language = _pysbd_language(language)
    if pysbd_language:
        return f"pysbd {pysbd_language!r}"
    primary = primary_language(language)
    return f"generic (pysbd has no {primary!r})" if primary else "generic (no language tag)"


@lru_cache(maxsize=4)
def _segmenter(language: str) -> pysbd.Segmenter:
    return pysbd.Segmenter(language=language, clean=False)


#: A pysbd Segmenter keeps the text it is splitting on itself, so one instance must split one
#: paragraph at a time: a shelf plans its books as threads of one process, and three books planned
#: at once lost or merged sentences in 3 of 20 tries without this lock.
_segmenter_lock = threading.Lock()


def _rejoin_broken_pieces(pieces: list[str]) -> list[str]:
    """Undo pysbd's breaks inside a word or a run of stops.

    pysbd keeps each piece's trailing space, so a piece that ends in a bare "." right before a
    letter or digit broke at the dot of a word that starts with one ("an expert .NET developer").
    A piece of stops alone is the end of the one before: its Arabic rules cut "وهدوء.." into
    "وهدوء." and ".", and a piece with no word in it is never read.
    """
    joined: list[str] = []
    for piece in pieces:
        bare_stops = not any(c.isalnum() for c in piece)
        if joined and (bare_stops or (joined[-1].endswith(".") and piece[:1].isalnum())):
            joined[-1] += piece
        else:
            joined.append(piece)
    return joined


# A possible end: . ! ? (or the Arabic and Urdu question mark and full stop) or an ellipsis,
# closing quotes or brackets, then a space and the next sentence's first letter (after any opening
# quotes or brackets); or a CJK full stop, ! or ?, which need no space after them.
_GENERIC_END = re.compile(
    r"[.!?\u2026\u061f\u06d4]+[\"'\u201d\u2019\u00bb)\]]*"
    r"(?=\s+[\"'\u201c\u201e\u2018\u00ab(\[]*(?P<next>[^\W\d_]))"
    r"|[\u3002\uff01\uff1f]+[\u300d\u300f\uff09\"'\u201d]*(?=(?P<cjk>.))"
)
# Titles abbreviated before a name in the languages narrator meets, English loans in translations
# among them ("Mr." in a French novel): a period after one ends no sentence.
_TITLES = frozenset(
    [
        "Mr",
        "Mrs",
        "Ms",
        "Mx",
        "Messrs",
        "Dr",
        "St",
        "Prof",
        "Rev",
        "Capt",
        "Col",
        "Gen",
        "Lt",
        "Sgt",
        "Jr",
        "Sr",
        "Sra",
        "Srta",
        "Mme",
        "Mlle",
        "Mmes",
        "Mgr",
        "Me",
        "Hr",
        "Fr",
        "Frl",
        "Hrn",
        "Dhr",
        "Mevr",
        "Mej",
        "Sig",
        "Sigg",
        "Dott",
        "Avv",
        "Ing",
        "Вл",
        "Св",
    ]
)
_LAST_WORD = re.compile(r"(?P<word>[^\W\d_]+)\.\s*$")
# A piece ending in a comma (Latin, Arabic, CJK) or semicolon was cut inside a sentence.
_INSIDE_SENTENCE = re.compile(r"[,\u060c\u3001\uff0c;\u061b]\s*$")
# The word before a period, if it is an initial or a short title ("J.", "Dr.", "Sr.", "Hr."):
# that period ends no sentence. (A name this short at a sentence's end, "Zé.", only joins two.)
# It is searched for in the three characters before the period.
_INITIAL = re.compile(r"(?:^|[\s(\"'])(?P<word>[^\W\d_]{1,2})$")


def _is_initial(before: str) -> bool:
    initial = _INITIAL.search(before)
    if initial is None:
        return False
    word = initial["word"]
    return word[0].isupper() and (len(word) == 1 or word[1].islower())


def _generic_sentences(paragraph: str) -> list[str]:
    sentences, start = [], 0
    for end in _GENERIC_END.finditer(paragraph):
        if end["cjk"] is not None:
            sentences.append(paragraph[start : end.end()])
            start = end.end()
            continue
        if end["next"].islower() or (
            end.group()[0] == "." and _is_initial(paragraph[max(0, end.start() - 3) : end.start()])
        ):
            continue
        sentences.append(paragraph[start : end.end()])
        start = end.end()
    return [*sentences, paragraph[start:]]


def _ends_inside_sentence(piece: str) -> bool:
    """A piece that ends at a comma, a title ("Mr.", "Mme.") or initials ("J.", "T. e.")."""
    if _INSIDE_SENTENCE.search(piece):
        return True
    last = _LAST_WORD.search(piece)
    if last is None:
        return False
    word = last["word"]
    initials = all(len(w.strip(".")) == 1 for w in piece.split()) and len(word) == 1
    return word in _TITLES or initials or (len(word) == 1 and word.isupper())


def _rejoin_inside_sentences(pieces: list[str]) -> list[str]:
    """Undo breaks a splitter made inside a sentence (pysbd's French rules end one at "Mr.", its
    Arabic ones at the comma "،")."""
    joined: list[str] = []
    for piece in pieces:
        if joined and piece.strip() and _ends_inside_sentence(joined[-1]):
            joined[-1] = joined[-1] + (
                piece if joined[-1][-1:].isspace() or piece[:1].isspace() else f" {piece}"
            )
        else:
            joined.append(piece)
    return joined


def split_sentences(paragraph: str, language: str = "en") -> list[str]:
    pysbd_language = _pysbd_language(language)
    if pysbd_language:
        with _segmenter_lock:
            pieces = _segmenter(pysbd_language).segment(paragraph)
        pieces = _rejoin_broken_pieces(pieces)
    else:
        pieces = _generic_sentences(paragraph)
    pieces = _rejoin_inside_sentences(pieces)
    return [s.strip() for s in pieces if s.strip()]


def split_to_budget(sentence: str, budget: int) -> list[str]:
    """Cut a sentence into pieces of at most ``budget`` characters, never inside a word.

    It prefers the last clause break that fits, then the last space; a single word longer than
    the budget stays whole, because cutting it would garble it.
    """
    pieces = []
    rest = sentence.strip()
    while len(rest) > budget:
        window = rest[: budget + 1]
        clause_ends = [m.end() for m in _CLAUSE_BREAK.finditer(window) if m.end() <= budget]
        # A clause break very early would leave a tiny piece; a space near the budget is better.
        cut = clause_ends[-1] if clause_ends and clause_ends[-1] >= budget // 3 else window.rfind(" ")
        if cut <= 0 and _UNSPACED.match(rest[budget - 1]):
            cut = budget
        if cut <= 0:
            next_space = rest.find(" ", budget)
            cut = next_space if next_space > 0 else len(rest)
        pieces.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        pieces.append(rest)
    return pieces


class Speaker(Protocol):
    """Turns raw text into what the engine should say (normalization, lexicon)."""

    def __call__(self, text: str, *, title: bool = False) -> str: ...


def say_as_written(text: str, *, title: bool = False) -> str:
    return text


def _has_words(text: str) -> bool:
    return any(c.isalnum() for c in text)


def fit_to_budget(raw: str, budget: int, speak: Speaker, *, title: bool = False) -> list[tuple[str, str]]:
    """(raw, spoken) pieces of a sentence whose spoken form fits the budget.

    Spoken text can be longer than raw ("1865" -> "eighteen sixty-five"), so a piece whose spoken
    form is too long is cut again with a budget shrunk in proportion. Pieces with nothing to
    say (a lone dash) are dropped.
    """
    fitted = []
    for piece in split_to_budget(raw, budget):
        spoken = speak(piece, title=title)
        if len(spoken) > budget and " " in piece:
            smaller = max(1, min(len(piece) - 1, budget * len(piece) // len(spoken) - 1))
            fitted += fit_to_budget(piece, smaller, speak, title=title)
        elif _has_words(spoken):
            fitted.append((piece, spoken))
    return fitted


def _close(units: list[list], pause: str, since: int) -> None:
    """Give the last unit the pause that ends a structure, if that structure said anything."""
    if len(units) > since:
        units[-1][3] = pause


def segment_book(
    book: Book, budget: int, speak: Speaker = say_as_written, language: str = "en"
) -> Iterator[Segment]:
    """Every segment of the book in reading order, each spoken form at most ``budget`` characters.

    The pause after each segment follows the book's structure: clause (a long sentence cut),
    sentence, line (verse), paragraph, section (scene break), chapter, and end.
    """
    for chapter_index, chapter in enumerate(book.chapters, start=1):
        units: list[list] = []  # [paragraph, raw, spoken, pause]
        if chapter.kind != CREDITS:
            units += [
                [0, raw, spoken, "clause"]
                for raw, spoken in fit_to_budget(chapter.title, budget, speak, title=True)
            ]
        _close(units, "paragraph", 0)
        for paragraph_index, paragraph in enumerate(chapter.paragraphs, start=1):
            paragraph_start = len(units)
            for line in paragraph.split("\n"):
                line_start = len(units)
                for sentence in split_sentences(line, language):
                    sentence_start = len(units)
                    units += [
                        [paragraph_index, raw, spoken, "clause"]
                        for raw, spoken in fit_to_budget(sentence, budget, speak)
                    ]
                    _close(units, "sentence", sentence_start)
                _close(units, "line", line_start)
            ends_section = paragraph_index - 1 in chapter.section_ends
            _close(units, "section" if ends_section else "paragraph", paragraph_start)
        _close(units, "end" if chapter_index == len(book.chapters) else "chapter", 0)
        for paragraph_index, raw, spoken, pause in units:
            yield Segment(chapter_index, chapter.title, paragraph_index, raw, spoken, pause)
