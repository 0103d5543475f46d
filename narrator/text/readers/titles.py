"""Titles and headings: chapter lines, numbered-only titles, comparing titles, titles from file names."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import pairwise
from pathlib import Path

from num2words import num2words

from narrator.core.language import primary_language
from narrator.text.normalize import roman_value

_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    "|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|first|second|third|fourth|fifth|sixth"
    "|seventh|eighth|ninth|tenth|last"
)
#: A number said in words, alone: "One", "Twenty-one", "First" (a chapter's number in some books).
NUMBER_WORD = re.compile(rf"(?:{_NUMBER_WORDS})(?:-(?:{_NUMBER_WORDS}))?\.?", re.IGNORECASE)
_ENGLISH_DIVISIONS = frozenset(
    ["chapter", "book", "part", "volume", "act", "scene", "canto", "stave", "letter"]
)
# The words for chapters and the divisions above them in the corpus's other languages: "Kapitel 3",
# "LIBER IV", "Розділ II", "Część pierwsza" is not one (its number is a word, not a numeral).
_OTHER_CHAPTERS = """
    kapitel chapitre capítulo capitulo capitolo hoofdstuk luku rozdział kapitola глава розділ
    κεφάλαιο fejezet capítol ĉapitro caput kabanata
"""
_OTHER_PARTS = """
    teil buch band akt partie livre tome acte parte libro tomo acto atto deel boek bedrijf osa kirja
    część księga tom akt část kniha díl часть книга том частина liber pars μέρος βιβλίο rész könyv
"""
_DIVISIONS = "|".join(sorted({*_ENGLISH_DIVISIONS, *_OTHER_CHAPTERS.split(), *_OTHER_PARTS.split()}))
# "Chapter 12", "CHAPTER XIV.", "Part Two: ...", "Book the First", "ACT I", "SCENE II. A room";
# not "Part of me wanted ...". Use ``chapter_line``, which holds other languages' lines to a
# numeral in capitals ("Parte di lui" is not "Parte DI").
CHAPTER_LINE = re.compile(
    rf"^\s*({_DIVISIONS})\s+(the\s+)?([0-9]+|[ivxlcdm]+|(?:{_NUMBER_WORDS})(?:-(?:{_NUMBER_WORDS}))?)\b"
    r"[.:]?\s*(.*)$",
    re.IGNORECASE,
)


# The same division with its number said first: "FIRST ACT", "The Second Book" (English only).
_NUMBER_FIRST_LINE = re.compile(
    rf"^\s*(?:the\s+)?((?:{_NUMBER_WORDS})(?:-(?:{_NUMBER_WORDS}))?)\s+({'|'.join(_ENGLISH_DIVISIONS)})\.?\s*$",
    re.IGNORECASE,
)
#: English number words are known up to this value.
_WORDED_NUMBERS = 60


@lru_cache(maxsize=1)
def _word_values() -> dict[str, int]:
    """Each English number word, cardinal and ordinal, with its value: "twelve" and "twelfth" 12."""
    return {
        word.replace(" ", "-"): n
        for n in range(1, _WORDED_NUMBERS)
        for word in (num2words(n), num2words(n, to="ordinal"))
    }


def number_value(numeral: str) -> int | None:
    """A division's number as it is written, "12", "XII", "twelve" or "Twelfth", as 12; else None."""
    if numeral.isdigit():
        return int(numeral)
    return roman_value(numeral) or _word_values().get(numeral.lower())


def division_key(line: str) -> str:
    """What two headings of one division share, however they write its number: "act 1" for
    "ACT I.", "Act 1" and "FIRST ACT"; "" for a line that heads no numbered division."""
    heading = chapter_line(line)
    if heading:
        division, numeral = heading.group(1), heading.group(3)
    elif worded := _NUMBER_FIRST_LINE.match(line):
        division, numeral = worded.group(2), worded.group(1)
    else:
        return ""
    return f"{division.lower()} {number_value(numeral) or numeral.lower()}"


def chapter_line(line: str) -> re.Match[str] | None:
    """A chapter's (or a part's, act's, scene's) heading line, in English or another language."""
    match = CHAPTER_LINE.match(line)
    if match is None or match.group(1).lower() in _ENGLISH_DIVISIONS:
        return match
    numeral = match.group(3)
    return match if numeral.isdigit() or (numeral.isupper() and roman_value(numeral)) else None


# A Chinese or Japanese chapter line: "第一回 …", "第十二章", "第三夜" (回 and 章 chapters, 夜 nights,
# 节/節 sections, 卷/巻 volumes).
#: The characters that name a Chinese or Japanese division.
CJK_DIVISION_WORDS = "回章夜节節卷巻篇"
_CJK_DIVISION = rf"第[一二三四五六七八九十百千〇零两0-9０-９]+[{CJK_DIVISION_WORDS}]"
CJK_CHAPTER_LINE = re.compile(rf"^\s*{_CJK_DIVISION}(?P<name>\s.*)?$")
#: ... and one set at the end of a paragraph, after its last sentence (a text's line breaks lost
#: when it was made an EPUB): "…便知分曉。 第二回 廣源店股東拆股 馬鞍街星士談星".
CJK_CHAPTER_AFTER_SENTENCE = re.compile(rf"(?<=[。！？」』])\s+(?P<line>{_CJK_DIVISION}(\s[^。！？]*)?)$")


# A paragraph that numbers and names a chapter: "1. Frá Gylfa konungi ok Gefjuni.", "IV. kafli.
# Kenninöfn." (roman numerals in capitals).
_NUMBERED_TITLE = re.compile(r"^\s*(?P<number>\d{1,3}|[IVXLC]{1,7})\.\s+[^\W\d_][^\n]*$")
#: ... in at most this many words.
NUMBERED_TITLE_WORDS = 12


def numbered_title(text: str) -> int | None:
    """The number of a short paragraph that numbers and names a chapter, else None."""
    match = _NUMBERED_TITLE.match(text)
    if match is None or len(text.split()) > NUMBERED_TITLE_WORDS:
        return None
    number = match["number"]
    return int(number) if number.isdigit() else roman_value(number) or None


# A byline under a title: "by Edward Page Mitchell", "{by ...}", "(By ...)".
_BY_ENGLISH = re.compile(r"^\W*by\s+(\w.*?)\W*$", re.I)
# ... and in other languages, where the word may also open a title ("De Profundis", "Von Kopf bis
# Fuß"): "De Ion Creanga", "von Theodor Storm", "par Jules Verne", "av Selma Lagerlöf".
_BY_ELSEWHERE = re.compile(
    r"^\W*(?:de|von|par|di|door|av|af|por|od|от|від|przez|autorstwa)\s+(\w.*?)\W*$", re.I
)
#: Words in the names of such a byline: a given name and a family name at least.
BYLINE_NAME_WORDS = (2, 4)


def byline(text: str) -> str | None:
    """The names a byline gives, else None. Outside English only capitalised names of two to four
    words follow the word ("De Ion Creanga"; not "De la terre à la lune", "De Profundis")."""
    if english := _BY_ENGLISH.match(text):
        return english[1]
    other = _BY_ELSEWHERE.match(text)
    if other is None:
        return None
    words = other[1].split()
    least, most = BYLINE_NAME_WORDS
    return other[1] if least <= len(words) <= most and all(w[:1].isupper() for w in words) else None


def heads_a_chapter(line: str) -> bool:
    """A chapter line in any script: "CHAPTER XII.", "Розділ II", "第二回 …"."""
    return chapter_line(line) is not None or CJK_CHAPTER_LINE.match(line) is not None


#: Divisions above chapters: their headings title the chapter that follows.
PART_WORDS = frozenset({"book", "part", "volume", "act", *_OTHER_PARTS.split()})


# The word for "chapter", by primary language, for a chapter titled only by its number.
_CHAPTER_WORDS = {
    "en": "Chapter", "fr": "Chapitre", "de": "Kapitel", "es": "Capítulo", "pt": "Capítulo",
    "it": "Capitolo", "nl": "Hoofdstuk", "sv": "Kapitel", "da": "Kapitel", "no": "Kapittel",
    "nb": "Kapittel", "nn": "Kapittel", "fi": "Luku", "pl": "Rozdział", "cs": "Kapitola", "ru": "Глава",
    "uk": "Розділ", "el": "Κεφάλαιο",
    "hu": "Fejezet", "ca": "Capítol", "eo": "Ĉapitro", "la": "Caput", "he": "פרק", "tl": "Kabanata",
}  # fmt: skip


def chapter_called(number: str, language: str) -> str:
    """A chapter titled only ``number``, as its language names it: "Chapter 12", "Глава 12", or
    "12" where that language's word is not known here (no English word in another language)."""
    word = _CHAPTER_WORDS.get(primary_language(language))
    return f"{word} {number.strip()}" if word else number.strip()


def title_key(text: str) -> str:
    """Compare titles by their letters and digits only: "CHAPTER I. Down" == "Chapter I: down"."""
    text = unicodedata.normalize("NFKD", text).casefold()
    return "".join(c for c in text if c.isalnum())


#: Numbered headings count as chapters only when there are at least this many, numbered 1, 2, 3, ...
NUMBERED_HEADINGS = 3
#: ... and the text under them runs this many words a heading on average (a sonnet is 110).
CHAPTER_MIN_WORDS = 200
# Hebrew numerals add their letters' values: "לח" is 30 + 8.
_HEBREW_VALUES = dict(
    zip(
        "אבגדהוזחטיכךלמםנןסעפףצץקרשת",
        (
            1,
            2,
            3,
            4,
            5,
            6,
            7,
            8,
            9,
            10,
            20,
            20,
            30,
            40,
            40,
            50,
            50,
            60,
            70,
            80,
            80,
            90,
            90,
            100,
            200,
            300,
            400,
        ),
        strict=True,
    )
)
_BARE_NUMBER = re.compile(
    r"\s*([0-9]{1,4}|[IVXLCDM]+|[ivxlcdm]+|[\u05d0-\u05ea]{1,4})[\u05f3\u05f4'\"]?\s*[.:]?\s*"
)


def bare_number(title: str) -> int | None:
    """The value of a title that is only a number: arabic, roman or Hebrew ("VIII.", "12", "לח.");
    else None."""
    match = _BARE_NUMBER.fullmatch(title)
    if match is None:
        return None
    numeral = match.group(1)
    if numeral.isdigit():
        return int(numeral)
    if numeral[0] in _HEBREW_VALUES:
        return sum(_HEBREW_VALUES[letter] for letter in numeral)
    return roman_value(numeral)


def chapter_run(
    found: list[tuple[int, int]], words_after: Callable[[int], int], least_words: int = CHAPTER_MIN_WORDS
) -> set[int]:
    """Of numbered headings ``found`` (position, number), those that number a book's chapters:
    counting up from 1, a single number missing or said twice now and then (a printer's slip),
    enough of them, with ``least_words`` of text each (``words_after(position)``; a chapter's worth
    unless told), else none (a list, stanzas)."""
    run: list[int] = []
    last = 0
    for k, (position, number) in enumerate(found):
        following = found[k + 1][1] if k + 1 < len(found) else None
        # A number said twice where the next is missing ("24.", "24.", "26.") is a slip for it.
        slip = bool(run) and number == last and following == last + 2
        if (last < number <= last + 2 and (run or number == 1)) or slip:
            run.append(position)
            last = number + 1 if slip else number
    if len(run) < NUMBERED_HEADINGS or words_after(run[0]) < least_words * len(run):
        return set()
    return set(run)


# A heading that is a word and a numeral in any script, perhaps then a name: "অধ্যায় ১", "Bölüm 3",
# "Kapittel IV" (the word's vowel signs are marks, which \w does not match). The word is learnt
# from the book (``counted_label``), not from a list.
_LABELLED = re.compile(
    r"^\s*(?P<label>[^\W\d_][^\s\d.:]+)\s+(?P<number>\d{1,3}|[IVXLC]{1,7})\b\s*[.:]?\s*(?P<name>.*)$"
)


def labelled(title: str, label: str) -> re.Match[str] | None:
    """A heading that ``label`` numbers ("অধ্যায় ১২: ..."), with its number and name, else None."""
    match = _LABELLED.match(title)
    return match if match is not None and match["label"].casefold() == label else None


def labelled_number(title: str, label: str) -> int | None:
    """The number of a heading ``label`` numbers ("অধ্যায় ১২" is 12), else None."""
    match = labelled(title, label)
    if match is None:
        return None
    numeral = match["number"]
    return int(numeral) if numeral.isdigit() else roman_value(numeral) or None


def counted_label(titles: Sequence[str]) -> str | None:
    """The word a book numbers its chapters with, learnt from its headings in any language: the
    first word of at least NUMBERED_HEADINGS headings whose numbers count up from 1, a count that
    may start again at 1 in each part ("অধ্যায় ১", "অধ্যায় ২", ...; "Bölüm 1"). None when no word
    counts so (headings that share a first word by chance: "The Gate", "The Hall")."""
    firsts = Counter(m["label"].casefold() for title in titles if (m := _LABELLED.match(title)))
    for label, count in firsts.most_common():
        if count < NUMBERED_HEADINGS:
            break
        numbers = [n for title in titles if (n := labelled_number(title, label)) is not None]
        if numbers[0] == 1 and all(b in (a + 1, a + 2, 1) for a, b in pairwise(numbers)):
            return label
    return None


def title_from_stem(path: Path) -> str:
    return re.sub(r"[-_]+", " ", path.stem).strip().title()


# A note reference set against a title's word: "COMPENSATION.[93]", "SHAKSPEARE;[525] OR, THE POET".
_NOTE_REFERENCE = re.compile(r"(?<=[^\s\[(])\[\d{1,4}\]")


def without_note_references(title: str) -> str:
    """A contents label as heard: the note numbers a heading carries in print are not said."""
    return _NOTE_REFERENCE.sub("", title)
