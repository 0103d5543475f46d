"""Text normalization: turn a sentence of book text into what a text-to-speech engine should say.

``normalize(text, language, urls)`` takes one sentence or clause (sentence splitting happens
before, in ``narrator.text.segment``) and returns the text to speak. ``normalize_title(title,
language, urls)`` does the same for a chapter title, and also reads a Roman chapter number
("Chapter XIV" -> "Chapter fourteen", a bare "VIII" -> "eight"; "8" in other languages).

Web addresses ("https://www.example.com/path?x=1", "www.example.org", "example.com/foo") are
said by their host alone, or dropped when ``urls`` is "skip". In English a host is "example dot
com", and "a link to example dot com" when a path was left unsaid; e-mail addresses are "info at
oreilly dot com". Other languages get the bare host ("example.com") for the engine to read.

Every language gets only the tidying that cannot be wrong in any language:

* markup an engine would read out sign by sign is removed: XML and HTML tags ("<book>",
  '<xsl:template match="/">'), comments and CSS rules ("p { color: red; }"); a "<" that starts
  no tag ("a < b") stays;
* curly and low-9 quotes become straight ones (U+201C to U+201F become ", U+2018 to U+201B
  become '); guillemets stay;
* soft hyphens, zero-width spaces, word joiners and byte-order marks are removed (ZWJ and ZWNJ
  stay: scripts such as Persian and Devanagari need them);
* decoration an engine would read aloud is removed: ``*``, ``_``, backticks, a ``#`` not
  before a digit, and bracketed footnote markers such as ``[1]``, ``[*]``, ``[†]``;
* runs of whitespace (newlines and no-break spaces included) become one space.

English ("en", "en-US", "en-GB", ...) also gets, in this order:

* abbreviations: Mr./Mrs./Ms./Dr. (also without the period before a name), St. ("Saint" before
  a name, "Street" after one), Prof., Rev., Capt., ... before a name, Jr./Sr., e.g., i.e.,
  etc., &c., vs., viz., cf., approx., "No. 5"/"#5" -> "number five", "p. 5"/"pp. 5" -> page(s),
  "v. 5"/"vv. 5" -> verse(s), "ch. 5" -> chapter, "&" -> "and"; an abbreviation's period that
  also ends the sentence is kept;
* Roman numerals after Chapter/Volume/Act/Scene/Canto/Stave (and, when not a lone "I",
  Part/Book/Section/Letter), "World War II", and regnal numbers ("Henry VIII" -> "Henry the
  eighth", for a known regnal name or after King/Queen/Pope/...);
* eras ("55 BC" -> "fifty-five B.C."), phone numbers digit by digit in their groups ("(800)
  998-9938" -> "eight oh oh, nine nine eight, nine nine three eight", "+1 ..." -> "plus one,
  ..."), ranges (between numbers an en dash, or an em dash or a hyphen between years, reads
  "to": "1914-1918", "pp. 5-10", "$5-$10"; so does a hyphen after a counting word, "verses
  5-8", or between small numbers going up, "5-8 people", but not "a 3-2 win"), durations
  ("1:02:03" -> "one hour, two minutes and three seconds"), chapter and verse after a book of
  the Bible ("John 3:16" -> "John three sixteen"), times ("10:30" -> "ten thirty", "7:05 p.m."
  -> "seven oh five p.m.", "12:00" -> "twelve o'clock", "14:00" -> "fourteen hundred"), any
  other colon between numbers as "to" ("a 2:1 ratio"), comparisons ("a < b" -> "a less than
  b"), currency ($ £ € ¥, "$3.50" -> "three dollars, fifty cents", "$2.5
  million" -> "two point five million dollars"), percentages, degrees, dates ("May 5" -> "May
  fifth", "5 May" -> "the fifth of May"), decades ("1980s", "'60s"), vulgar fractions ("2½"),
  then every other number: ordinals ("22nd"), years, decimals ("3.14" -> "three point one
  four"), negatives, grouped ("1,234") and plain cardinals. Words come from num2words.
* pauses: an em dash, "--", a spaced hyphen or en dash, and an ellipsis ("...", ". . .", "…")
  become ", " (a comma is the pause espeak-ng, and so Piper, actually makes; it says dashes and
  ellipses without any pause), or "." at the end of the text; an unspaced en dash between
  letters ("Franco-Prussian" with an en dash) becomes a hyphen; no space before , . ; : ! ?,
  and no stray comma at the start, after an opening quote or before other punctuation.

The year rule: a four-digit number from 1100 to 2099, without a thousands comma, a decimal part
or a sign, and not followed by a unit or currency word (see ``_UNITS``), is a year ("1865" ->
"eighteen sixty-five", "1900" -> "nineteen hundred", "2005" -> "two thousand and five"); so is
any number from 1000 to 2999 after "in", "since", "until", "till", "year", "circa" or "c.", and
any number with an era. Other numbers are cardinals ("1,865" and "1865 miles").

Times with a.m./p.m. keep the dotted "a.m."/"p.m.": espeak-ng spells those out letter by
letter, but reads "AM" as "am" and "A M" as "uh em". Likewise "B.C." and "A.D.".

Other languages get their numbers read by num2words in that language where it has one
(``number_reader``): a whole number standing alone ("v roce 2022" -> "v roce dva tisíce dvacet
dva"), never one inside a date, a time, a decimal or a grouped number, whose reading differs from
language to language, and never a number followed by a period in the languages that write an
ordinal so ("am 1. Mai"). The rest is left for the engine, rather than risk an English reading.

Inline phoneme blocks (``[[ ... ]]``, Piper's syntax, as the lexicon writes them) pass through
untouched.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from num2words import CONVERTER_CLASSES, num2words

from narrator.core.language import is_english, primary_language

__all__ = ["normalize", "normalize_title", "roman_value"]


# --- language-neutral tidying -------------------------------------------------------------------

# Left, right, low-9 and reversed-9 double quotes, then the same single quotes.
_QUOTES = str.maketrans(
    {
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
    }
)
_INVISIBLE = re.compile("[\u00ad\u200b\u2060\ufeff]")
_FOOTNOTE = re.compile(r"\s*\[(?:\d{1,3}|[*\u2020\u2021])\]")
_DECORATION = re.compile(r"[*_`]+|#+(?!\s?\d)")
_SPACES = re.compile(r"\s+")
_PHONEME_BLOCK = re.compile(r"(\[\[.*?\]\])")
# Markup left in the text, which an engine would read out sign by sign: an XML or HTML tag
# ("<book>", "</title>", '<xsl:template match="/">', "<br/>"), a comment or declaration, and a
# CSS rule ("p { color: red; }"). A tag starts with a letter right after "<", so "a < b" stays.
_MARKUP = re.compile(
    r"(?P<space>\s*)(?:"
    r"(?<!<)</?[A-Za-z][\w:.-]*(?:\s+[\w:.-]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'<>]+))?)*\s*/?>(?!>)"
    r"|<!--.*?-->|<[!?][A-Za-z][^<>]*>"
    r"|(?:[\w.#:>*\[\]=-]+\s*)?\{\s*[\w-]+\s*:[^{}]*\})"
)


def _drop_markup(m: re.Match[str]) -> str:
    """Nothing, or a space where the markup stood between words ("one<br/>two")."""
    before, after = m.string[m.start() - 1 : m.start()], m.string[m.end() : m.end() + 1]
    if m["space"]:
        return "" if not after or after.isspace() or after in ".,;:!?)]" else " "
    return " " if before.isalnum() and after.isalnum() else ""


def _tidy(text: str) -> str:
    text = _INVISIBLE.sub("", text.translate(_QUOTES))
    text = _MARKUP.sub(_drop_markup, text)
    text = _FOOTNOTE.sub("", text)
    text = _DECORATION.sub("", text)
    return _SPACES.sub(" ", text)


# --- links ----------------------------------------------------------------------------------------

#: What ``normalize`` does with a web address: "host" says only its host, "skip" drops it.
URL_CHOICES = ("host", "skip")

# Top-level domains common enough that a bare "example.com" is an address and not a file name
# or a dotted word ("Node.js", "file.txt"); upper case ("ASP.NET") is never a bare address.
_TLDS = "com|org|net|edu|gov|mil|int|info|biz|io|co|uk|us|ca|au|de|fr|nl|se|fi|no|dk|eu|me|tv|ai|dev|app"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_HOST = rf"{_LABEL}(?:\.{_LABEL})*"
_BARE_HOST = rf"(?:{_LABEL}\.)+(?:{_TLDS})"
_LINK = re.compile(
    r"(?P<space>\s*)(?P<open><)?"  # an autolink: <https://example.com>
    rf"(?:(?:https?|ftp)://(?:[^\s/@<>]+@)?(?P<host>{_HOST})(?::\d+)?"
    rf"|(?<![\w.@-])(?:www\.(?P<www>{_HOST}\.{_LABEL})|(?P<bare>{_BARE_HOST}))(?![\w@-]|\.\w))"
    r"(?P<path>[/?#](?:[^\s<>\"()]|\([^\s<>\"()]*\))*?)?(?=[.,;:!?'\")\]]*(?:\s|$|<|>))(?(open)>)"
)
_EMAIL = re.compile(
    rf"(?<![\w.+-])(?:mailto:)?(?P<user>[\w.+-]+)@(?P<host>{_LABEL}(?:\.{_LABEL})+)(?![\w-]|\.\w)"
)


def _bare_host(host: str) -> str:
    return host.lower().removeprefix("www.")


def _say_host(host: str) -> str:
    return " dot ".join(_bare_host(host).split("."))


def _email(m: re.Match[str]) -> str:
    user = m["user"].replace(".", " dot ").replace("_", " underscore ")
    return f"{user} at {_say_host(m['host'])}"


def _links(text: str, urls: str, english: bool) -> str:
    """Web addresses as ``urls`` says, and (in English) e-mail addresses as people say them.

    English says a host alone as "example dot com", and an address with a path, which is not
    said, as "a link to example dot com"; other languages get the bare host for the engine.
    """

    def link(m: re.Match[str]) -> str:
        if urls == "skip":
            return _drop_markup(m)
        host = m["host"] or m["www"] or m["bare"]
        if not english:
            return m["space"] + _bare_host(host)
        said = _say_host(host)
        return m["space"] + (f"a link to {said}" if m["path"] and m["path"] != "/" else said)

    text = _LINK.sub(link, text)
    return _EMAIL.sub(_email, text) if english else text


# --- helpers for reading numbers ------------------------------------------------------------------


def _digits(digits: str, zero: str = "zero") -> str:
    """Digit by digit: "14" -> "one four"."""
    return " ".join(zero if d == "0" else num2words(int(d)) for d in digits)


def _cardinal(integer: str) -> str:
    """An integer as written ("1,234", "42", "007"): leading zeros and very long runs digit by digit."""
    digits = integer.replace(",", "")
    if "," not in integer and (len(digits) > 9 or (len(digits) > 1 and digits.startswith("0"))):
        return _digits(digits, zero="oh")
    return num2words(int(digits))


def _number(integer: str, fraction: str | None = None, negative: bool = False) -> str:
    """A plain number: "3" + "14" -> "three point one four"."""
    words = _cardinal(integer) if integer else "zero"
    if fraction:
        words += " point " + _digits(fraction)
    return ("minus " + words) if negative else words


def _year(value: int) -> str:
    return num2words(value, to="year")


def _plural(words: str) -> str:
    """The plural of a spoken number's last word: "nineteen eighty" -> "nineteen eighties"."""
    if words.endswith("y"):
        return words[:-1] + "ies"
    if words.endswith("x"):
        return words + "es"
    return words + "s"


_INT = r"(?:\d{1,3}(?:,\d{3})+|\d+)"
# Not inside a word, a decimal or a grouped number; the same on the right.
_BEFORE = r"(?<![\w.,])"
_AFTER = r"(?!\w|[.,]\d)"


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Words after a number that make it a quantity rather than a year ("1865 miles").
_UNITS = _word_set(
    """
    percent per cent cents dollar dollars pound pounds pence penny euro euros franc francs mark
    marks guinea guineas shilling shillings crown crowns florin florins ducat ducats rupee rupees
    yen ruble rubles rouble roubles livre livres sou sous reales pesos peso mile miles foot feet ft
    inch inches yard yards league leagues fathom fathoms metre metres meter meters km kilometre
    kilometres kilometer kilometers m cm mm kg kilo kilos kilogram kilograms gram grams g lb lbs ton
    tons tonne tonnes ounce ounces oz stone acre acres hectare hectares litre litres liter liters
    gallon gallons pint pints degree degrees calorie calories second seconds minute minutes hour
    hours day days week weeks month months year years
    """
)
_YEAR_CUES = frozenset({"in", "since", "until", "till", "year", "circa", "c."})


def _looks_like_year(text: str, start: int, end: int, value: int) -> bool:
    following = re.match(r"\s*([^\W\d_]+\.?|%)", text[end:])
    if following and following.group(1).rstrip(".").lower() in _UNITS | {"%"}:
        return False
    if 1100 <= value <= 2099:
        return True
    preceding = re.search(r"(\S+)\s+$", text[:start])
    return 1000 <= value <= 2999 and preceding is not None and preceding.group(1).lower() in _YEAR_CUES


# --- English rules ----------------------------------------------------------------------------------


def _at_end(text: str, end: int) -> bool:
    """Whether only closing quotes or brackets follow ``end``."""
    return re.fullmatch(r"[\"')\]\s]*", text[end:]) is not None


def _abbreviation(pattern: str, spoken: str) -> Callable[[str], str]:
    regex = re.compile(pattern)

    def expand(text: str) -> str:
        def replace(m: re.Match[str]) -> str:
            before = m.groupdict().get("before") or ""  # context kept as it was
            words = spoken
            # A capital at the start of the sentence stays a capital ("E.g." -> "For example").
            if not before and m.group()[0].isupper() and re.fullmatch(r"[\"'(\s]*", text[: m.start()]):
                words = words[0].upper() + words[1:]
            # The abbreviation's period may also be the sentence's.
            if m.group().endswith(".") and _at_end(text, m.end()):
                words += "."
            return before + words

        return regex.sub(replace, text)

    return expand


_NAME = r"(?=\s+[A-Z])"
_TITLES = {
    "Prof": "Professor",
    "Rev": "Reverend",
    "Capt": "Captain",
    "Col": "Colonel",
    "Gen": "General",
    "Lt": "Lieutenant",
    "Sgt": "Sergeant",
    "Cpl": "Corporal",
    "Maj": "Major",
    "Gov": "Governor",
    "Sen": "Senator",
    "Hon": "Honorable",
    "Mt": "Mount",
    "Ft": "Fort",
}
_ABBREVIATIONS = [
    _abbreviation(r"&c\.?", "et cetera"),
    _abbreviation(r"\s*&\s*", " and "),
    _abbreviation(rf"\bMr\.(?=\s|$)|\bMr{_NAME}", "Mister"),
    _abbreviation(rf"\bMrs\.(?=\s|$)|\bMrs{_NAME}", "Missus"),
    _abbreviation(rf"\bMs\.(?=\s|$)|\bMs{_NAME}", "Miz"),
    _abbreviation(rf"\bDr\.(?=\s|$)|\bDr{_NAME}", "Doctor"),
    # "Baker St." is a street; "St. Paul" (also "St Paul") a saint.
    _abbreviation(r"(?P<before>\b[A-Z][a-z]+\s)St\.(?!\s+[A-Z])", "Street"),
    _abbreviation(rf"\bSt\.?{_NAME}", "Saint"),
    *(_abbreviation(rf"\b{short}\.{_NAME}", full) for short, full in _TITLES.items()),
    _abbreviation(r"\bJr\.", "Junior"),
    _abbreviation(r"\bSr\.", "Senior"),
    _abbreviation(r"\b[eE]\.\s?g\.", "for example"),
    _abbreviation(r"\b[iI]\.\s?e\.", "that is"),
    _abbreviation(r"\b[eE]tc\b\.?", "et cetera"),
    _abbreviation(r"\bvs\b\.?", "versus"),
    _abbreviation(r"(?P<before>\b[A-Z][a-z]+\s)v\.(?=\s[A-Z])", "versus"),
    _abbreviation(r"\bviz\.", "namely"),
    _abbreviation(r"\bcf\.", "compare"),
    _abbreviation(r"\bapprox\.", "approximately"),
    _abbreviation(r"\b[Nn]os\.\s?(?=\d)", "numbers "),
    _abbreviation(r"\b[Nn]o\.\s?(?=\d)", "number "),
    _abbreviation(r"#\s?(?=\d)", "number "),
    _abbreviation(r"\bpp\.\s?(?=\d)", "pages "),
    _abbreviation(r"(?<![\w.])p\.\s?(?=\d)", "page "),
    _abbreviation(r"\bvv\.\s?(?=\d)", "verses "),
    _abbreviation(r"(?<![\w.])v\.\s?(?=\d)", "verse "),
    _abbreviation(r"\bch\.\s?(?=\d)", "chapter "),
    _abbreviation(r"\bVol\.\s?(?=\d|[IVXLC]+\b)", "Volume "),
]


_ROMAN = r"(?=[MDCLXVI])M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def roman_value(numeral: str) -> int | None:
    """The value of a well-formed Roman numeral, else None.

    A single letter counts only if it is I, V or X ("Appendix C" is a letter, not 100), and a
    lower-case numeral only without d and m ("mix" is a word).
    """
    upper = numeral.upper()
    if numeral not in (upper, upper.lower()) or not re.fullmatch(_ROMAN, upper):
        return None
    if (len(upper) == 1 and upper not in "IVX") or (numeral.islower() and re.search("[dm]", numeral)):
        return None
    total = 0
    for char, following in zip(upper, [*upper[1:], ""], strict=True):
        value = _ROMAN_VALUES[char]
        total += -value if following and _ROMAN_VALUES[following] > value else value
    return total


# Words that number chapters and the like: "Chapter XIV" -> "Chapter fourteen".
_DIVISION_WORDS = "Chapter|Chapters|Volume|Canto|Stave|Act|Scene|Part|Book|Section|Letter|Lesson"
_TITLE_DIVISION = re.compile(
    rf"\b(?P<word>(?i:{_DIVISION_WORDS}))(?P<space>\s+)(?P<num>[IVXLCDMivxlcdm]+)(?![\w'])"
    # In a title a lone "I" must end it or come before punctuation: "The Part I Played" keeps it.
    r"(?<![\s][Ii](?=\s*[^\s.:;,\u2013\u2014-]))"
)
_BODY_DIVISION = re.compile(
    rf"\b(?P<word>{_DIVISION_WORDS}|{_DIVISION_WORDS.upper()})(?P<space>\s+)(?P<num>[IVXLCDM]+)(?![\w'])"
)
# After these a lone "I" in running text is more likely the pronoun ("the best part I liked").
_PRONOUN_RISK = {"part", "book", "section", "letter", "lesson"}


def _division(m: re.Match[str], *, title: bool) -> str:
    value = roman_value(m["num"])
    if value is None or (not title and m["num"] == "I" and m["word"].lower() in _PRONOUN_RISK):
        return m.group()
    return f"{m['word']}{m['space']}{num2words(value)}"


_WORLD_WAR = re.compile(r"\b(World War)\s+(I{1,2})\b(?!')")
_REGNAL_TITLE = (
    "King|Queen|Pope|Emperor|Empress|Tsar|Tsarina|Czar|Kaiser|Prince|Princess|Duke|Sultan|Pharaoh|Saint"
)
_REGNAL_NAMES = _word_set(
    """
    Adrian Alexander Alfonso Amenhotep Anne Antiochus Benedict Boniface Carlos Casimir Catherine
    Celestine Charles Christian Clement Constantine Darius David Edward Elizabeth Eugene Felix
    Ferdinand Francis Frederick George Gregory Gustav Gustavus Harold Henry Honorius Innocent Ivan
    James John Julius Justinian Leo Leopold Louis Ludwig Mary Napoleon Nicholas Otto Paul Peter
    Philip Pius Ptolemy Ramesses Richard Robert Sixtus Stephen Theodosius Thutmose Umberto Urban
    Victor Wilhelm William
    """
)
_REGNAL = re.compile(
    rf"\b(?:(?P<title>{_REGNAL_TITLE})\s+)?(?P<name>[A-Z][a-z]+)\s+(?P<num>[IVXL]+)\b(?!\w|'(?!s\b))"
    r"(?<!\sI(?=\s+[a-z]))"  # "King Henry I am here" is the pronoun
)


def _regnal(m: re.Match[str]) -> str:
    value = roman_value(m["num"])
    known = m["name"] in _REGNAL_NAMES and m["num"] != "I"
    if value is None or not (m["title"] or known):
        return m.group()
    title = f"{m['title']} " if m["title"] else ""
    return f"{title}{m['name']} the {num2words(value, to='ordinal')}"


_ERAS = {"BC": "B.C.", "BCE": "B.C.E.", "AD": "A.D.", "CE": "C.E."}
_ERA_AFTER = re.compile(
    rf"{_BEFORE}(?P<num>\d{{1,4}})\s?(?P<era>(?:B\.\s?C\.(?:\s?E\.)?|A\.\s?D\.|C\.\s?E\.)|(?:BCE|BC|AD|CE)\b\.?)"
)
_ERA_BEFORE = re.compile(r"(?:\bA\.\s?D\.|\bAD)\s?(?P<num>\d{1,4})\b(?![.,]\d)")


def _era(m: re.Match[str]) -> str:
    era = _ERAS[re.sub(r"[.\s]", "", m["era"])]
    return f"{_year(int(m['num']))} {era}"


# Between numbers an en dash (or an em dash, or a hyphen between years) reads "to".
_RANGE_DASH = re.compile(r"(?<=[\d%])(?:\s?\u2013\s?|\u2014)(?=[$£€¥]?\d)")
_YEAR_RANGE = re.compile(rf"{_BEFORE}(?P<a>1[1-9]\d\d|20\d\d)-(?P<b>1[1-9]\d\d|20\d\d|\d\d){_AFTER}")

# A hyphen between small numbers reads "to" after a word that counts things ("verses 5-8",
# "pages 110-15"), and elsewhere when the range goes up ("5-8 people"), but not in a score that
# goes down ("a 3-2 win"). Longer runs of hyphenated numbers (ISBNs) are left alone.
_RANGE_NOUNS = _word_set(
    """
    verse verses page pages chapter chapters line lines item items step steps age ages aged year
    years section sections paragraph paragraphs figure figures fig figs table tables number numbers
    question questions exercise exercises psalm psalms grade grades level levels day days week weeks
    """
)
_HYPHEN_RANGE = re.compile(
    r"(?:(?P<noun>\b[^\W\d_]+)\.?\s)?(?<![\w.,-])(?P<a>\d{1,4})-(?P<b>\d{1,4})(?![\w-]|[.,]\d)"
)


def _hyphen_range(m: re.Match[str]) -> str:
    noun = m["noun"] or ""
    counted = noun.lower() in _RANGE_NOUNS
    if counted or (len(m["a"]) <= 3 and len(m["b"]) <= 3 and int(m["a"]) < int(m["b"])):
        return f"{m.group()[: m.start('a') - m.start()]}{m['a']} to {m['b']}"
    return m.group()


# Phone numbers, read digit by digit in their groups: "(800) 998-9938", "800-998-9938",
# "1-800-998-9938", "+1 800 998 9938", "+44 20 7946 0958".
_PHONE = re.compile(
    r"(?<![\w.,+-])(?:"
    r"(?:\+?\d{1,3}[\s.-])?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}"
    r"|\+\d{1,3}(?:[\s.-]\d{1,4}){2,5}"
    r")(?![\w-]|[.,]\d)"
)


def _phone(m: re.Match[str]) -> str:
    groups = ", ".join(_digits(group, zero="oh") for group in re.findall(r"\d+", m.group()))
    return ("plus " if m.group().startswith("+") else "") + groups


# Hours, minutes and seconds are a duration: "1:02:03" -> "one hour, two minutes and three seconds".
_DURATION = re.compile(rf"{_BEFORE}(?P<h>\d{{1,2}}):(?P<m>[0-5]\d):(?P<s>[0-5]\d)(?![\d:]|[.,]\d)")


def _duration(m: re.Match[str]) -> str:
    parts = [
        f"{num2words(int(value))} {unit if int(value) == 1 else unit + 's'}"
        for value, unit in ((m["h"], "hour"), (m["m"], "minute"), (m["s"], "second"))
        if int(value)
    ] or ["zero seconds"]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


# Chapter and verse after a book of the Bible, said as people say them: "John 3:16" -> "John
# three sixteen", "Psalm 23:1-6" -> "Psalm twenty-three one to six".
_SCRIPTURE_BOOKS = (
    "Genesis|Exodus|Leviticus|Numbers|Deuteronomy|Joshua|Judges|Ruth|Samuel|Kings|Chronicles|Ezra|"
    "Nehemiah|Esther|Job|Psalms?|Proverbs|Ecclesiastes|Song|Songs|Isaiah|Jeremiah|Lamentations|"
    "Ezekiel|Daniel|Hosea|Joel|Amos|Obadiah|Jonah|Micah|Nahum|Habakkuk|Zephaniah|Haggai|Zechariah|"
    "Malachi|Matthew|Mark|Luke|John|Acts|Romans|Corinthians|Galatians|Ephesians|Philippians|"
    "Colossians|Thessalonians|Timothy|Titus|Philemon|Hebrews|James|Peter|Jude|Revelation|Surah|Sura"
)
_SCRIPTURE = re.compile(rf"\b(?P<book>{_SCRIPTURE_BOOKS})\s(?P<chapter>\d{{1,3}}):(?P<verse>\d{{1,3}})\b")
# Any other colon between numbers that is not a time is a ratio or a score: "a 2:1 ratio".
_RATIO = re.compile(rf"{_BEFORE}(?P<a>{_INT}):(?P<b>{_INT}){_AFTER}(?!:)")

_AMPM = r"(?P<ap>[aApP]\.\s?[mM]\.?|[aApP][mM]\b\.?)"
_CLOCK = re.compile(rf"(?<![\w.,:])(?P<h>\d{{1,2}}):(?P<m>\d{{2}})(?![\d:]|[.,]\d)(?:\s?{_AMPM})?")
_HOUR = re.compile(rf"{_BEFORE}(?P<h>\d{{1,2}})(?:[.:](?P<m>\d{{2}}))?\s?{_AMPM}")  # also "10.30 a.m."


def _clock(m: re.Match[str]) -> str:
    hour, minute = int(m["h"]), int(m["m"] or 0)
    ap = m["ap"]
    if minute > 59 or hour > (12 if ap else 24) or (ap and hour == 0):
        return m.group()
    words = num2words(hour)
    if minute == 0:
        if not ap:
            words += " o'clock" if 1 <= hour <= 12 else " hundred"
    elif minute < 10:
        words += " oh " + num2words(minute)
    else:
        words += " " + num2words(minute)
    if ap:
        words += " a.m." if ap[0] in "aA" else " p.m."
    return words


# Comparisons between words or numbers ("a < b", "x >= 5"); tags are gone by now.
_COMPARISONS = {
    "<": "less than",
    ">": "greater than",
    "<=": "less than or equal to",
    ">=": "greater than or equal to",
    "\u2264": "less than or equal to",
    "\u2265": "greater than or equal to",
}
_COMPARISON = re.compile(r"(?<=[\w)])\s*(?P<sign><=|>=|[<>\u2264\u2265])\s*(?=[\w(]|-\d)")

# Symbol: (one, many, one hundredth, hundredths); the yen has no minor unit in speech.
_CURRENCIES = {
    "$": ("dollar", "dollars", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
    "€": ("euro", "euros", "cent", "cents"),
    "¥": ("yen", "yen", None, None),
}
_MONEY = re.compile(
    rf"(?<![\d.,])(?P<neg>[-\u2212])?(?P<sym>[$£€¥])\s?(?P<int>{_INT})(?:\.(?P<frac>\d+))?{_AFTER}"
    r"(?:\s(?P<scale>thousand|million|billion|trillion)\b)?"
)


def _money(m: re.Match[str]) -> str:
    one, many, hundredth, hundredths = _CURRENCIES[m["sym"]]
    sign = "minus " if m["neg"] else ""
    integer, fraction = m["int"], m["frac"]
    if m["scale"]:
        return f"{sign}{_number(integer, fraction)} {m['scale']} {many}"
    value = int(integer.replace(",", ""))
    if fraction is None or len(fraction) != 2 or hundredth is None:
        unit = one if value == 1 and fraction is None else many
        return f"{sign}{_number(integer, fraction)} {unit}"
    cents = int(fraction)
    parts = []
    if value or not cents:
        parts.append(f"{_cardinal(integer)} {one if value == 1 else many}")
    if cents:
        parts.append(f"{num2words(cents)} {hundredth if cents == 1 else hundredths}")
    return sign + ", ".join(parts)


# Shillings and pence after pounds: "£5 10s. 6d." -> "five pounds ten shillings and six pence".
_SHILLINGS = re.compile(r"(?:(?<=pounds )|(?<=pound ))(?P<s>\d{1,2})s\b\.?(?:\s?(?P<d>\d{1,2})d\b\.?)?")


def _shillings(m: re.Match[str]) -> str:
    words = f"{num2words(int(m['s']))} {'shilling' if m['s'] == '1' else 'shillings'}"
    if m["d"]:
        words += f" and {num2words(int(m['d']))} {'penny' if m['d'] == '1' else 'pence'}"
    return words + ("." if m.group().endswith(".") and _at_end(m.string, m.end()) else "")


_SIGNED = rf"(?P<neg>[-\u2212](?=\d))?(?P<int>{_INT})(?:\.(?P<frac>\d+))?"
_PERCENT = re.compile(rf"{_BEFORE}{_SIGNED}\s?%")
_DEGREES = re.compile(rf"{_BEFORE}{_SIGNED}\s?°(?:\s?(?P<scale>[CF])\b)?")
_SCALES = {"C": " Celsius", "F": " Fahrenheit", None: ""}


def _percent(m: re.Match[str]) -> str:
    return _number(m["int"], m["frac"], bool(m["neg"])) + " percent"


def _degrees(m: re.Match[str]) -> str:
    unit = "degree" if m["int"] == "1" and not m["frac"] and not m["neg"] else "degrees"
    return f"{_number(m['int'], m['frac'], bool(m['neg']))} {unit}{_SCALES[m['scale']]}"


_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_MONTH_DAY = re.compile(
    rf"\b(?P<month>{_MONTHS})\s(?P<day>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?(?![\w:]|[.,]\d)"
)
_DAY_MONTH = re.compile(
    rf"{_BEFORE}(?P<the>the\s)?(?P<day>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?\s(?:of\s)?(?P<month>{_MONTHS})\b"
)


def _month_day(m: re.Match[str]) -> str:
    return f"{m['month']} {num2words(int(m['day']), to='ordinal')}"


def _day_month(m: re.Match[str]) -> str:
    return f"the {num2words(int(m['day']), to='ordinal')} of {m['month']}"


# "1980s", "1800s", "'60s", "the 20s" (not "10s": in old books that is ten shillings).
_DECADE = re.compile(rf"{_BEFORE}(?:'(?P<short>\d0)|(?P<full>\d?[1-9][1-9]0|[2-9]0|[1-9]\d00))'?s\b")


def _decade(m: re.Match[str]) -> str:
    if m["short"]:
        return _plural(num2words(int(m["short"])))
    value = int(m["full"])
    return _plural(_year(value) if value >= 100 else num2words(value))


_FRACTIONS = {
    "½": ("a half", "half"),
    "¼": ("a quarter", "a quarter"),
    "¾": ("three quarters", "three quarters"),
    "⅓": ("a third", "a third"),
    "⅔": ("two thirds", "two thirds"),
    "⅛": ("an eighth", "an eighth"),
}
_FRACTION = re.compile(rf"{_BEFORE}(?P<int>\d+)?(?P<frac>[{''.join(_FRACTIONS)}])")


def _fraction(m: re.Match[str]) -> str:
    with_whole, alone = _FRACTIONS[m["frac"]]
    return f"{_cardinal(m['int'])} and {with_whole}" if m["int"] else alone


_BARE_DECIMAL = re.compile(rf"{_BEFORE}\.(?P<frac>\d+){_AFTER}")  # ".45" -> "point four five"
_NUMBER = re.compile(rf"{_BEFORE}{_SIGNED}(?P<suffix>st|nd|rd|th)?{_AFTER}")


def _any_number(m: re.Match[str]) -> str:
    integer, fraction, negative, suffix = m["int"], m["frac"], bool(m["neg"]), m["suffix"]
    if suffix:
        if fraction or negative:
            return m.group()
        return num2words(int(integer.replace(",", "")), to="ordinal")
    plain = fraction is None and not negative and "," not in integer and not integer.startswith("0")
    if plain and len(integer) == 4 and _looks_like_year(m.string, m.start(), m.end(), int(integer)):
        return _year(int(integer))
    return _number(integer, fraction, negative)


# Pauses. Espeak-ng (and so Piper) pauses at , . ; : ! ? but says dashes and ellipses straight on.
_ELLIPSIS = re.compile(r"\s*(?:\.\s?\.\s?\.|…)[.…]*\s*")
_COMPOUND_DASH = re.compile(r"(?<=[^\W\d_])\u2013(?=[^\W\d_])")
_DASH = re.compile(r"\s*(?:[\u2014\u2015]+|-{2,}|(?<=\s)[\u2013-](?=\s)|^[\u2013-](?=\s)|\u2013)\s*")


def _pauses(text: str, final: bool) -> str:
    # A comma the author wrote at the end stays (a verse line runs on); one made from a dash stops.
    written_comma = re.search(r",\s*[\"')\]]*\s*$", text) is not None
    text = _ELLIPSIS.sub(", ", text)
    text = _COMPOUND_DASH.sub("-", text)
    text = _DASH.sub(", ", text)
    text = re.sub(r"\s+([,.;:!?])(?!\w)", r"\1", text)  # no space before punctuation (".NET" keeps it)
    text = re.sub(r",(?:\s*,)+", ",", text)  # one pause, not two
    text = re.sub(r",\s*(?=[.;:!?])", "", text)  # "word,." -> "word."
    text = re.sub(r"(^|\s)([\"'(\[]*)\s*,\s*", r"\1\2", text)  # none at the start or after an opening quote
    text = re.sub(r",\s+([\"')\]]+)(?=\s|$|[.,;:!?])", r",\1", text)  # 'I, " he' -> 'I," he'
    if final and not written_comma:
        text = re.sub(r",\s*([\"')\]]*)\s*$", r".\1", text)  # a made pause at the very end is a stop
    return text


def _english(text: str, final: bool) -> str:
    for expand in _ABBREVIATIONS:
        text = expand(text)
    text = _BODY_DIVISION.sub(lambda m: _division(m, title=False), text)
    text = _WORLD_WAR.sub(lambda m: f"{m[1]} {num2words(len(m[2]))}", text)
    text = _REGNAL.sub(_regnal, text)
    text = _ERA_AFTER.sub(_era, text)
    text = _ERA_BEFORE.sub(lambda m: f"A.D. {_year(int(m['num']))}", text)
    text = _PHONE.sub(_phone, text)
    text = _RANGE_DASH.sub(" to ", text)
    text = _YEAR_RANGE.sub(r"\g<a> to \g<b>", text)
    text = _HYPHEN_RANGE.sub(_hyphen_range, text)
    text = _DURATION.sub(_duration, text)
    text = _SCRIPTURE.sub(r"\g<book> \g<chapter> \g<verse>", text)
    text = _CLOCK.sub(_clock, text)
    text = _HOUR.sub(_clock, text)
    text = _RATIO.sub(r"\g<a> to \g<b>", text)
    text = _COMPARISON.sub(lambda m: f" {_COMPARISONS[m['sign']]} ", text)
    text = _MONEY.sub(_money, text)
    text = _SHILLINGS.sub(_shillings, text)
    text = _PERCENT.sub(_percent, text)
    text = _DEGREES.sub(_degrees, text)
    text = _MONTH_DAY.sub(_month_day, text)
    text = _DAY_MONTH.sub(_day_month, text)
    text = _DECADE.sub(_decade, text)
    text = _FRACTION.sub(_fraction, text)
    text = _BARE_DECIMAL.sub(lambda m: "point " + _digits(m["frac"]), text)
    text = _NUMBER.sub(_any_number, text)
    text = _pauses(text, final)
    return _SPACES.sub(" ", text)


# --- other languages ------------------------------------------------------------------------------

# A whole number standing alone: not part of a decimal, a grouped number, a date or a time.
# Nor one a symbol or a Latin or Cyrillic letter touches ("50%", "$5", "1er"): its reading
# depends on them. CJK counters touch their numbers ("2022年"), and are read with them.
_LONE_NUMBER = re.compile(
    r"(?<![\d.,:/\-$€£¥A-Za-z\u00c0-\u024f\u0400-\u04ff])\d{1,9}"
    r"(?!\d|[.,:/\-]\d|\s?[%‰°€$£¥]|[A-Za-z\u00c0-\u024f\u0400-\u04ff])(?P<dot>\.)?"
)
#: Languages that write an ordinal as a number and a period ("der 1. Mai", "1. máj").
_ORDINAL_PERIOD = frozenset(
    [
        "de",
        "cs",
        "sk",
        "pl",
        "da",
        "no",
        "nb",
        "nn",
        "fi",
        "et",
        "hu",
        "sl",
        "hr",
        "sr",
        "bs",
        "tr",
        "lv",
        "lt",
        "is",
        "fo",
    ]
)


def number_reader(language: str) -> str | None:
    """The num2words language that reads numbers in ``language``, or None where it has none."""
    primary = primary_language(language)
    return primary if primary in CONVERTER_CLASSES and primary != "en" else None


def _other_language_numbers(text: str, language: str) -> str:
    reader = number_reader(language)
    ordinal_period = primary_language(language) in _ORDINAL_PERIOD

    def read(m: re.Match[str]) -> str:
        if m["dot"] and ordinal_period:
            return m.group()
        digits = m.group().rstrip(".")
        return num2words(int(digits), lang=reader) + (m["dot"] or "")

    return _LONE_NUMBER.sub(read, text)


# --- entry points ---------------------------------------------------------------------------------


def normalize(text: str, language: str, urls: str = "host") -> str:
    """What a TTS engine should say for ``text`` (one sentence or clause) in ``language``.

    ``urls`` is one of ``URL_CHOICES``: "host" says a web address's host, "skip" drops it.
    """
    if urls not in URL_CHOICES:
        raise ValueError(f"urls must be one of {URL_CHOICES}, not {urls!r}")
    english = is_english(language)
    parts = _PHONEME_BLOCK.split(text)
    last_text = len(parts) - 1  # split() puts text at even indexes, the last one included
    out = []
    for index, part in enumerate(parts):
        if index % 2:
            out.append(part)  # a [[ phonemes ]] block, as written
            continue
        spoken = _tidy(_links(part, urls, english))
        if english:
            spoken = _english(spoken, final=index == last_text)
        elif number_reader(language):
            spoken = _other_language_numbers(spoken, language)
        out.append(spoken)
    return _SPACES.sub(" ", "".join(out)).strip()


# A title that is, or starts with, a numeral and a period, a colon or a spaced dash: "IV", "IX.
# The Lobster", "VIII — The Return" (up to C: an all-capitals word such as "MIX" or "DC" is more
# likely a word than a chapter).
_TITLE_NUMERAL = re.compile(r"^(?P<num>[IVXLC]+)(?=[.:](?:\s|$)|\s[-\u2013\u2014]\s|$)")


def normalize_title(title: str, language: str, urls: str = "host") -> str:
    """Like ``normalize``, and a Roman numeral that numbers the chapter is read as a number.

    "Chapter XIV" -> "Chapter fourteen", "CHAPTER IV." -> "CHAPTER four.", "Part II" -> "Part
    two", "IX. The Lobster" -> "nine. The Lobster". Only after a word such as Chapter, Part,
    Book, Volume, Act or Scene, or as the title's first word followed by "." or ":" (or alone),
    so the pronoun "I" is never touched elsewhere. In other languages a title that starts with a
    numeral gets its digits ("VIII" -> "8"), which the engine reads in its own language.
    """
    title = title.strip()
    english = is_english(language)
    if english:
        title = _TITLE_DIVISION.sub(lambda m: _division(m, title=True), title)
    numeral = _TITLE_NUMERAL.match(title)
    value = roman_value(numeral["num"]) if numeral else None
    if numeral and value:
        title = (num2words(value) if english else str(value)) + title[numeral.end() :]
    return normalize(title, language, urls)
