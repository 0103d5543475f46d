"""A printed book's apparatus, told by its shape in any language: a contents page of titles and
page numbers, notes keyed to page and line ("Str. 9, w. 5."), a table of corrections (errata) and
a publisher's catalogue of other volumes. None is the author's text to be heard, and none needs
its title to be recognised, so "SPIS RZECZY", "OMYŁKI" or "ESPERANTO-LITERATURO" are found as
"CONTENTS" and "Errata" are.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher
from itertools import pairwise

from narrator.text.readers.titles import title_key

#: Lines or rows that make a list at least, not a passing sentence.
LEAST_ENTRIES = 3
#: Of a section's lines, the share that must fit the shape.
MOST = 0.6
#: A contents line or a catalogue entry is short; a note or a page of prose is not.
ENTRY_WORDS = 40

# A page number closing a contents line: "KSIĘGA DRUGA - ZAMEK 55", "Preface ....... ix"; not a
# year, which closes a reference ("RFC 1034, November 1987.").
_PAGE_AT_END = re.compile(r"(?:\s|\.{2,}|\u2026)(\d{1,3}|[ivxlc]{1,6})\.?$", re.IGNORECASE)
# A locator of page and line before a note: "Str. 9, w. 5.", "Page 12, line 4", "S. 5, Z. 3".
_LOCATOR = re.compile(r"^\W*([^\W\d_]{1,8})\.?\s*(\d{1,4})\s*[,.]\s*([^\W\d_]{1,8})\.?\s*\d{1,4}\b")
YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
#: A priced entry ("Bergson: An Introduction to Metaphysics. (LLA 10) .40") runs this long at most.
PRICED_ENTRY_WORDS = 20
# A count and what it counts, as a field of an entry: "77 paĝoj.", "254 pages,", "5 pesetas;".
_COUNT = re.compile(r"\b\d{1,4}\s+([^\W\d_]{3,})\s*[.,;)]")
# A price closing a list's entry: "(LLA 24) .40", "Price $3.00".
_PRICE = re.compile(r"(?:[$£€]\s?\d[\d,]*(?:\.\d\d)?|(?<![\w.])\d{0,3}\.\d\d)\W{0,2}$")
#: A correction and the text it corrects are alike at least this much (difflib's ratio).
ALIKE = 0.6


def lists_contents(lines: Sequence[str]) -> bool:
    """A contents page: short lines, most closing on a page number, the arabic ones mostly in
    order (a printer's address may close the page: "..., PRZY WYBRZEŻU VOLTAIRE, 15.")."""
    lines = [line.strip() for line in lines if line.strip()]
    paged = [m for line in lines if len(line.split()) <= ENTRY_WORDS and (m := _PAGE_AT_END.search(line))]
    if len(paged) < LEAST_ENTRIES or len(paged) < MOST * len(lines):
        return False
    pages = [int(m.group(1)) for m in paged if m.group(1).isdigit()]
    ascents = sum(a < b for a, b in pairwise(pages))
    return len(pages) >= 2 and ascents >= MOST * (len(pages) - 1)


def lists_titles(lines: Sequence[str], titles: set[str]) -> bool:
    """A contents page without page numbers, or whose numbers were lost: most of its lines are
    the book's own chapter titles (``titles``, as title keys)."""
    lines = [line.strip() for line in lines if line.strip()]
    listed = [line for line in lines if title_key(_PAGE_AT_END.sub("", line)) in titles]
    return len(listed) >= LEAST_ENTRIES and len(listed) >= MOST * len(lines)


def keyed_to_pages(paragraphs: Sequence[str]) -> bool:
    """Notes keyed to the printed page and line ("Str. 14, w. 5. Nim się Pan Wojski ubierze."):
    a notes section of many of them, the same two words locating each, the pages in order."""
    located = [m for paragraph in paragraphs if (m := _LOCATOR.match(paragraph))]
    if len(located) < LEAST_ENTRIES or 4 * len(located) < len(paragraphs):
        return False
    words, count = Counter((m.group(1).lower(), m.group(3).lower()) for m in located).most_common(1)[0]
    pages = [int(m.group(2)) for m in located if (m.group(1).lower(), m.group(3).lower()) == words]
    return count >= LEAST_ENTRIES and pages == sorted(pages)


# A note's marker opening its paragraph: "[1] De scheldnaam ...", "(12) Zie ...", "3) Vgl. ...".
_NOTE_MARKER = re.compile(r"^\s*[\[(]?(\d{1,3})[\])]\s")


def numbered_notes(paragraphs: Sequence[str]) -> bool:
    """A section of notes whatever its title ("AANTEEKENINGEN", "NOTE"): most paragraphs open on a
    bracketed number, the numbers counting up."""
    numbers = [int(m.group(1)) for p in paragraphs if (m := _NOTE_MARKER.match(p))]
    ascents = sum(a < b for a, b in pairwise(numbers))
    return (
        len(numbers) >= LEAST_ENTRIES
        and len(numbers) >= MOST * len(paragraphs)
        and ascents >= MOST * (len(numbers) - 1)
    )


# An entry of a bibliography opens on its author, surname first ("Adam, E. P.", "Ahmed, Waquar.",
# "v. Aubel, E.") or on a dash that says the author above again ("— "Sur le rayonnement ...").
_SURNAME_FIRST = re.compile(
    r"^(?:(?:[a-z]{1,3}\.? )?[^\W\d_][\w'\u2019-]+(?: [^\W\d_][\w'\u2019-]+)?, [^\W\d_]"
    r"|[\u2014\u2013-]{1,3}\s)"
)
#: A bibliography's entry runs to at most this many words.
REFERENCE_WORDS = 80


def is_bibliography(paragraphs: Sequence[str]) -> bool:
    """A list of works, whatever its title ("Literarische Ergänzungen", "Bibliography"): most
    paragraphs are short entries that open on an author, surname first, and give a year."""
    entries = [
        p
        for p in paragraphs
        if _SURNAME_FIRST.match(p) and YEAR.search(p) and len(p.split()) <= REFERENCE_WORDS
    ]
    return len(entries) >= LEAST_ENTRIES and len(entries) >= MOST * len(paragraphs)


def is_corrections_table(rows: Sequence[Sequence[str]]) -> bool:
    """A table of corrections: most rows locate a place by number and give a text and its
    correction, two cells alike but not the same ("ke al Marski" / "ke al Mirski"), and not by
    their numbers only, as a table's values are ("Значение 1.1" / "Значение 1.2")."""
    rows = [[cell.strip() for cell in row if cell.strip()] for row in rows]
    rows = [row for row in rows if len(row) >= 2]

    def corrects(row: Sequence[str]) -> bool:
        located = any(re.search(r"\d", cell) for cell in row)
        texts = [re.sub(r"[\d\s]+", " ", cell) for cell in row if re.search(r"[^\W\d_]{2}", cell)]
        return located and any(
            a != b and SequenceMatcher(None, a, b).ratio() >= ALIKE
            for n, a in enumerate(texts)
            for b in texts[n + 1 :]
        )

    matched = sum(corrects(row) for row in rows)
    return matched >= LEAST_ENTRIES and matched >= MOST * len(rows)


def is_catalogue(paragraphs: Sequence[str]) -> bool:
    """A publisher's list of its other volumes: short entries, each with a year and a count of
    the same thing ("1922. 77 paĝoj. Kartonita."), or each closing on its price ("Bergson: An
    Introduction to Metaphysics. (LLA 10) .40"), making half the section's words or more."""
    said = sum(len(p.split()) for p in paragraphs)
    # An entry names a title before its price: a row of figures is a table, a long one prose.
    priced = [p for p in paragraphs if 3 <= len(p.split()) <= PRICED_ENTRY_WORDS and _PRICE.search(p)]
    if len(priced) >= LEAST_ENTRIES and sum(len(p.split()) for p in priced) >= 0.5 * said:
        return True
    entries = [p for p in paragraphs if len(p.split()) <= ENTRY_WORDS and YEAR.search(p)]
    counted = Counter(word.lower() for p in entries for word in {m.group(1) for m in _COUNT.finditer(p)})
    if not counted:
        return False
    unit, _ = counted.most_common(1)[0]
    listed = [p for p in entries if any(m.group(1).lower() == unit for m in _COUNT.finditer(p))]
    return len(listed) >= LEAST_ENTRIES and sum(len(p.split()) for p in listed) >= 0.5 * said
