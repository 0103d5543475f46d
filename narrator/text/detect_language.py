"""The book's language: what the book states, checked against what its text is.

Books state their language in many places (OPF ``dc:language``, ``<html lang>``, Gutenberg's
"Language:" line, Markdown front matter), or nowhere, or wrongly: a default "en" left by a tool.
The text decides when the book states nothing, and overrides a statement it clearly contradicts.
The language identifier is py3langid (97 languages, its model ships in the wheel): on the corpus
it matched lingua's accuracy at a tenth of the cost (docs/formats.md).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import cache

from py3langid.langid import MODEL_FILE, LanguageIdentifier

from narrator.core.book import Book
from narrator.core.language import primary_language

#: Passages sampled across the book, and the characters each one gathers.
PASSAGES = 40
PASSAGE_CHARS = 400
#: A passage counts only when the identifier is at least this sure of it.
PASSAGE_CONFIDENCE = 0.5
#: The text decides when this share of the counted passages agree ...
DECIDING_SHARE = 0.6
#: ... and overrides a stated language only when that language wins at most this share of them
#: (so a close neighbour, Norwegian read as Danish now and then, never displaces a true statement).
STATED_LOSES_BELOW = 0.2
#: Less text than this cannot tell one language from another reliably.
MIN_CHARS = 200
#: Tags that state no language.
NO_LANGUAGE = {"", "und", "mul", "zxx", "mis"}
#: Written standards so close that the identifier cannot tell them apart by the text: older
#: Norwegian (Riksmål) reads as Danish, Bosnian as Croatian, Indonesian as Malay. A statement of
#: one is never overridden by the text's reading as another.
_NEIGHBOURS = (frozenset({"da", "no", "nb", "nn"}), frozenset({"sr", "hr", "bs"}), frozenset({"id", "ms"}))


#: The identifier names Nynorsk "nn" and Norwegian otherwise "no", the macrolanguage: that is
#: Bokmål, the written standard of most Norwegian text, which voices are made for as "nb".
_INDIVIDUAL = {"no": "nb"}


def _neighbours(stated: str, found: str) -> bool:
    return any(stated in group and found in group for group in _NEIGHBOURS)


@dataclass(frozen=True)
class Identified:
    language: str
    agreeing: int
    counted: int

    def says(self) -> str:
        return f"py3langid, {self.agreeing} of {self.counted} passages"


@cache
def _identifier() -> LanguageIdentifier:
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _passages(book: Book) -> list[str]:
    """Up to PASSAGES runs of body text of about PASSAGE_CHARS each, spread evenly over its
    characters: a long paragraph gives as many as its length is worth (a poem set as one paragraph
    outweighs its two-line Latin epigraph), a short book fewer."""
    text = " ".join(p for c in book.chapters if c.kind == "body" for p in c.paragraphs if p.strip())
    step = max(PASSAGE_CHARS, len(text) // PASSAGES)
    passages = []
    for start in range(0, len(text), step):
        # From the word a cut lands in to the end of the word PASSAGE_CHARS on.
        begin = text.rfind(" ", 0, start) + 1
        end = text.find(" ", start + PASSAGE_CHARS)
        passages.append(text[begin : end if end >= 0 else len(text)].strip())
    return [p for p in passages if p][:PASSAGES]


def identify(book: Book) -> tuple[Identified | None, Counter[str]]:
    """The language most passages are in, if enough agree; and the votes of every language."""
    passages = _passages(book)
    if sum(len(p) for p in passages) < MIN_CHARS:
        return None, Counter()
    votes: Counter[str] = Counter()
    for passage in passages:
        language, confidence = _identifier().classify(passage)
        if confidence >= PASSAGE_CONFIDENCE:
            votes[language] += 1
    counted = sum(votes.values())
    if not counted:
        return None, votes
    language, agreeing = votes.most_common(1)[0]
    language = _INDIVIDUAL.get(language, language)
    if agreeing < DECIDING_SHARE * counted:
        return None, votes
    return Identified(language, agreeing, counted), votes


def settle_language(book: Book) -> Book:
    """The book with the language its text is in, and a line for the plan log saying how it was decided."""
    stated = "" if book.language.strip().lower() in NO_LANGUAGE else book.language.strip()
    stated = stated if book.language_source else ""
    found, votes = identify(book)
    if stated and found is None:
        note = f"language {stated!r} from the {book.language_source}; the text is too short or mixed to check"
        language = stated
    elif stated and found is not None and primary_language(stated) == found.language:
        note = f"language {stated!r} from the {book.language_source}; the text agrees ({found.says()})"
        language = stated
    elif stated and found is not None and _neighbours(primary_language(stated), found.language):
        note = (
            f"language {stated!r} from the {book.language_source}; the text reads as its close neighbour "
            f"{found.language!r} ({found.says()}), which the identifier cannot tell from it"
        )
        language = stated
    elif stated and found is not None:
        if votes[primary_language(stated)] <= STATED_LOSES_BELOW * found.counted:
            note = (
                f"language {found.language!r} identified from the text ({found.says()}); "
                f"the {book.language_source} says {stated!r}; set language: to override"
            )
            language = found.language
        else:
            note = (
                f"language {stated!r} from the {book.language_source}; the text is mostly {found.language!r}"
            )
            language = stated
    elif found is not None:
        note = (
            f"language {found.language!r} identified from the text ({found.says()}); the book states none; "
            "set language: to override"
        )
        language = found.language
    else:
        note = "language 'en' assumed: the book states none and its text is too short or mixed to tell"
        language = "en"
    return replace(book, language=language, notes=(*book.notes, note))
