"""Plain text, Project Gutenberg's included: chapters at heading lines, paragraphs at blank lines.

A Gutenberg text is cut at its START and END markers (title, author and language come from the
header above them), its contents page is skipped, BOOK/PART/VOLUME and ACT headings title the
chapter or scene after them, and [Illustration: ...] and [Footnote N: ...] blocks are dropped or
read after their paragraph, as the ``notes`` choice says. Verse keeps its lines.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path

from narrator.core.book import Book, Chapter, joined
from narrator.text.readers.aozora import is_aozora, parse_aozora
from narrator.text.readers.apparatus import LEAST_ENTRIES, MOST
from narrator.text.readers.decode import SCENE_BREAK, TEMPLATE_LINE, clean_text, decode_text, squash
from narrator.text.readers.markdown import parse_markdown
from narrator.text.readers.matter import (
    CREDIT_BLOCKS,
    PG_END,
    PG_START,
    PRODUCED_BY,
    build_chapters,
    is_matter_title,
)
from narrator.text.readers.printed_contents import located, without_contents
from narrator.text.readers.prose import SENTENCE_END
from narrator.text.readers.repetition import drop_from_pages
from narrator.text.readers.rst import is_rst, parse_rst
from narrator.text.readers.titles import (
    CHAPTER_LINE,
    CJK_CHAPTER_LINE,
    NUMBERED_HEADINGS,
    PART_WORDS,
    bare_number,
    chapter_line,
    chapter_run,
    title_from_stem,
    title_key,
)
from narrator.text.readers.verse import is_verse
from narrator.text.readers.xhtml import GLOSSARY, PAGE_MARKER, Block, Draft

#: Longest line that can be a heading.
HEADING_CHARS = 80
#: Project Gutenberg sets a heading off by four blank lines before it (two before a sub-heading).
HEADING_BLANKS = 3
_NAMED_HEADING = re.compile(
    r"^\s*(preface|introduction|prologue|epilogue|foreword|afterword|induction|appendix|conclusion"
    r"|dramatis person(ae|æ)|persons represented|the persons of the play)[.:]?\s*$",
    re.IGNORECASE,
)
# Wilde's "FIRST ACT", beside Shakespeare's "ACT I".
_ORDINAL_DIVISION = re.compile(
    r"^\s*(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last)\s+(act|part|book)\.?\s*$",
    re.IGNORECASE,
)
# A numbered section heading set flush left on a line of its own: "1.  Introduction", "10. References".
_NUMBERED_HEADING = re.compile(r"^(?P<number>\d{1,3})\.?[ \t]+(?P<name>[^\W\d_][^\n]*[^.,;:\s])$")
#: Named numbered sections hold this many words each on average at least (about forty seconds):
#: a numbered list's items hold fewer.
SECTION_MIN_WORDS = 100
# A section heading numbered by its place in the sections above it, on a line of its own and set
# anywhere on it: "1.1.1.  lecke: A KURZOR MOZGATÁSA", "3.2 Results".
_DOTTED_HEADING = re.compile(r"^\s*\d{1,3}(?:\.\d{1,3})+\.?[ \t]+[^\W\d_][^\n]*$")
#: Dotted headings are a text's sections where there is this much text under each on average (not
#: a list of numbered rules).
DOTTED_SECTION_WORDS = 40
#: A closing section's heading after the numbered ones is a few words ("Conclusion", "Epilogue").
CLOSING_HEADING_WORDS = 3
# A heading led by a label of a word or two: "Fråga: Vilken är den grundläggande strategin?", "Q: …".
_LABELLED = re.compile(r"^(?P<label>[^\W\d_][\w'\u2019-]*(?: [^\W\d_]+)?):[ \t]+\S.*[^.,;:\s]$")
#: A label heads the text's sections where it leads this many lines at least ...
LABELLED_HEADINGS = 3
#: ... with this many words under each on average (a dialogue's speakers have fewer).
LABELLED_SECTION_WORDS = 50
# "[Illustration: ...]" and its cousins, by the word's root where languages share it
# ("[Illustrazione]", "[Ilustración]") and by the other words transcribers use for a picture, or
# for a printed score ("[Music]").
_ILLUSTRATION = re.compile(
    r"\[(?:Ill?ustra\w*|Vignette|Gravure|Image|Figur[ae]?|Abbildung|Bild|Grabado|Lámina|Plate|Picture"
    r"|Music|Musique|Musik|Música|Musica|Decoration|Ornament)"
    r"(?:[:.]\s*(?P<caption>[^\]]*))?\]",
    re.IGNORECASE,
)
_FOOTNOTE = re.compile(
    r"^\[Footnote\s+(?P<label>[^:\]\s]+)\s*:\s*(?P<text>.*?)\]?\s*$", re.IGNORECASE | re.DOTALL
)
_NOTE_MARK = re.compile(r"\[(?P<label>[0-9]{1,3}|[A-Z]|[*†‡])\]")
_TRANSCRIBERS_WORDS = re.compile(
    r"e-?text|electronic (edition|text|version)|transcri|project gutenberg|https?://|www\.|web ?site"
    r"|proofread",
    re.IGNORECASE,
)
# "Request for Comments: 6265", "Category: Standards Track", "Release date: May 1, 2004".
_FIELD = re.compile(r"(^|\s{2})[A-Z][\w -]{1,30}:[ \t]+\S")
# One code of digits and a hyphen in padded brackets, inside a sentence ("від 24 серпня 1991 року
# ( 1427-12 ), схваленим"): a web page's link to another document, left when its text was copied.
_LINK_CODE = re.compile(r" \( (?=[^\s()]*\d)(?=[^\s()]*-)[^\s()]+ \)(?=[\s,.;:])")
_HEADER_FIELD = re.compile(r"^(Title|Author|Language):[ \t]*(.+)$", re.MULTILINE)
_NAMED_BY_GUTENBERG = re.compile(
    r"^(?:End of )?(?:The )?Project Gutenberg(?:'s)? E-?(?:Book|text) of (?P<title>.+?)"
    r"(?:,?\s+by\s+(?P<author>[^,\n]+?))?[ \t]*\r?$",
    re.IGNORECASE | re.MULTILINE,
)
#: This many headings in a row with nothing under them are a list ("THE SCENES OF THE PLAY").
HEADING_LIST = 3
# Gutenberg names the language in English; the tags narrator's segmenter and voices go by.
_LANGUAGE_NAMES = {
    "english": "en", "french": "fr", "german": "de", "spanish": "es", "italian": "it", "portuguese": "pt",
    "dutch": "nl", "swedish": "sv", "finnish": "fi", "danish": "da", "norwegian": "no", "latin": "la",
    "esperanto": "eo", "polish": "pl", "russian": "ru", "greek": "el", "chinese": "zh", "japanese": "ja",
    "hungarian": "hu", "czech": "cs", "catalan": "ca", "tagalog": "tl", "icelandic": "is", "welsh": "cy",
}  # fmt: skip
#: How a caption read aloud begins.
CAPTION = "Illustration: "
# Marks the line an illustration stood on; never in real text (a private-use character).
_FIGURE = "\ue001"


def _paragraph(raw_lines: list[str]) -> str:
    if is_verse(raw_lines):
        return "\n".join(squash(line) for line in raw_lines)
    return squash(" ".join(raw_lines))


def _heading(line: str) -> re.Match[str] | None:
    """A line that starts a chapter (or a part, act or scene), if it is one."""
    if len(line) > HEADING_CHARS:
        return None
    return (
        chapter_line(line)
        or _NAMED_HEADING.match(line)
        or _ORDINAL_DIVISION.match(line)
        or CJK_CHAPTER_LINE.match(line)
    )


def _is_part(heading: re.Match[str]) -> bool:
    return heading.re is _ORDINAL_DIVISION or (
        heading.re is CHAPTER_LINE and heading.group(1).lower() in PART_WORDS
    )


@dataclass
class _Notes:
    """Illustration captions and footnotes, dropped or read after the paragraph they belong to."""

    read: bool
    footnotes: dict[str, str] = field(default_factory=dict)

    def captions(self, text: str) -> str:
        """The text with each illustration (which may span blocks) made one line of its own.

        The line stands where the illustration stood, so the blank lines around it, by which
        headings are found, stay as they were; the block loop drops it or reads its caption.
        """
        return _ILLUSTRATION.sub(lambda m: _FIGURE + squash(m["caption"] or ""), text)

    def caption(self, block: str) -> str:
        """What an illustration's block says: nothing, or its caption."""
        words = block.strip().removeprefix(_FIGURE)
        return f"{CAPTION}{words}" if self.read and words else ""

    def after(self, paragraph: str) -> tuple[str, list[str]]:
        """A paragraph without its footnote markers, and the footnotes to read after it."""
        labels = [m["label"] for m in _NOTE_MARK.finditer(paragraph) if m["label"] in self.footnotes]
        if not labels:
            return paragraph, []
        text = squash(_NOTE_MARK.sub(lambda m: "" if m["label"] in self.footnotes else m.group(), paragraph))
        notes = [f"Footnote: {self.footnotes[label]}" for label in labels] if self.read else []
        return text, notes


def _header(text: str) -> dict[str, str]:
    """Title, Author and Language from a Gutenberg header (the text before its START marker); with
    no Title field, title and author from Gutenberg's line that names the book, at the top or the end
    ("End of the Project Gutenberg EBook of Macbeth, by Shakespeare"), as old texts have it."""
    start = PG_START.search(text)
    fields = {} if start is None else _HEADER_FIELD.finditer(text, 0, start.start())
    header = {m.group(1).lower(): squash(m.group(2)) for m in fields}
    if "title" not in header and (named := _NAMED_BY_GUTENBERG.search(text)):
        header |= {"title": named["title"].strip(" ,")} | (
            {"author": named["author"]} if named["author"] else {}
        )
    return header


def _body(text: str) -> str:
    """The text between Gutenberg's START and END markers (all of it for other texts)."""
    start = PG_START.search(text)
    if start is not None:
        text = text[text.find("\n", start.end()) + 1 :] if "\n" in text[start.end() :] else ""
    end = PG_END.search(text)
    return text[: end.start()] if end is not None else text


# A rule drawn across the page ("~~~~~~~~", "========"): it parts blocks, blank lines or not.
_RULE_LINE = re.compile(r"^[ \t]*([~=_*#-])\1{7,}[ \t]*$", re.MULTILINE)


def _blocks(text: str) -> list[tuple[int, str]]:
    """Blocks of text between blank lines, each with the number of blank lines before it; a rule
    across the page is a block of its own."""
    text = _RULE_LINE.sub(lambda m: f"\n{m[0]}\n", text)
    parts = re.split(r"(\n(?:[ \t]*\n)+)", "\n\n" + text)
    return [(parts[n - 1].count("\n") - 1, parts[n]) for n in range(2, len(parts), 2) if parts[n].strip()]


# A line set apart and underlined by a rule about its length ("* ТЪРСЕНЕ" over "---------",
# "Introduction" over "============"): a heading, as Setext, reST and tutorials set it.
_UNDERLINED = re.compile(
    r"(?:\A|\n[ \t]*\n)(?P<title>[ \t]*\S[^\n]*)\n[ \t]*(?P<rule>([=~^*#-])\3{2,})[ \t]*$", re.MULTILINE
)
#: The rule is this share of its line's length at least, and at most a few characters longer.
UNDERLINE_SHARE = 0.6
UNDERLINE_SLACK = 3
#: A text underlines this many headings at least, or its rules are breaks.
UNDERLINED_HEADINGS = 2
# An outline's star before a heading ("* ОБОБЩЕНИЕ"): never said.
_OUTLINE_STAR = re.compile(r"^\*+\s+")


def _underlined(text: str) -> tuple[str, set[str]]:
    """The text with each underlined heading a block of its own and its rule gone; the headings."""
    found = []
    for m in _UNDERLINED.finditer(text):
        title = m["title"].strip()
        if (
            UNDERLINE_SHARE * len(title) <= len(m["rule"]) <= len(title) + UNDERLINE_SLACK
            and len(title) <= HEADING_CHARS
            and not title.endswith((",", ";", ":"))
            and not SCENE_BREAK.match(title)
        ):
            found.append((m, squash(_OUTLINE_STAR.sub("", title))))
    if len(found) < UNDERLINED_HEADINGS:
        return text, set()
    for m, heading in reversed(found):
        text = f"{text[: m.start('title')]}{heading}\n{text[m.end() :]}"  # the rule's line: a blank
    return text, {heading for _, heading in found}


def _heading_line(block: str) -> str:
    """A block's one line, under any rule set above it ("~~~~" over "1.1.1. lecke: ..."), or ""."""
    lines = [line for line in block.strip("\n").split("\n") if line.strip()]
    while len(lines) > 1 and SCENE_BREAK.match(lines[0]):
        lines = lines[1:]
    return lines[0] if len(lines) == 1 else ""


def _numbered_headings(blocks: list[tuple[int, str]]) -> set[int]:
    """Which blocks are a text's numbered headings: lines of their own, numbered 1, 2, 3 ... in
    order, either flush-left sections ("1.  Introduction") or numerals alone ("IV"), with a
    chapter's worth of text between them (a numbered list, stanza numbers or a stray "64. One
    creature" are not); else sections numbered by their place ("1.2.3. ..."), with text under each."""
    lines = [_heading_line(block) for _, block in blocks]
    # A section's heading may stand on the first line of its block, its text right under it.
    firsts = [block.strip("\n").split("\n")[0] for _, block in blocks]
    sections = [
        (n, int(m["number"]))
        for n, line in enumerate(lines)
        if (m := _NUMBERED_HEADING.match(line or firsts[n])) and len(m[0]) <= HEADING_CHARS
    ]
    numerals = [(n, value) for n, line in enumerate(lines) if (value := bare_number(line)) is not None]

    def words_after(start: int) -> int:
        return sum(len(block.split()) for _, block in blocks[start:])

    # Named sections ("1. Mõisted") are a text's own parts at a shorter length than bare numerals.
    if run := chapter_run(sections, words_after, SECTION_MIN_WORDS):
        return run
    if run := chapter_run(numerals, words_after):
        return run
    dotted = [n for n, line in enumerate(lines) if len(line) <= HEADING_CHARS and _DOTTED_HEADING.match(line)]
    under = words_after(dotted[0]) - len(dotted) if dotted else 0  # the words, less the numbers
    if len(dotted) >= NUMBERED_HEADINGS and under >= DOTTED_SECTION_WORDS * len(dotted):
        return set(dotted)
    return set()


#: A title line is a few words.
TITLE_LINE_WORDS = 12


# A web address, bare or in brackets: "(http://wolnelektury.pl/)".
_ADDRESS = re.compile(r"\b(https?://|www\.)\S")
# A form's fields left empty: "AUTOR: " over "TYTUŁ: ".
_EMPTY_FIELD = re.compile(r"^[ \t]*[^\W\d_][\w .-]{0,30}:[ \t]*$")


def _without_opening_notices(blocks: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], list[str]]:
    """The blocks without what a producer sets above the text: a notice boxed in rules that gives
    a web address (a library's "Publikacja zrealizowana w ramach projektu …"), and empty fields."""
    dropped = []
    while blocks:
        lines = [line for line in blocks[0][1].strip("\n").split("\n") if line.strip()]
        boxed = len(lines) >= 3 and bool(SCENE_BREAK.match(lines[0]) and SCENE_BREAK.match(lines[-1]))
        if boxed and _ADDRESS.search(blocks[0][1]):
            dropped.append(
                f"not read: {squash(' '.join(lines[1:-1]))[:100]!r}: a notice boxed in rules at the top"
            )
        elif lines and all(_EMPTY_FIELD.match(line) for line in lines):
            dropped.append(f"not read: {squash(' '.join(lines))!r}: empty fields at the top")
        else:
            break
        blocks = blocks[1:]
    return blocks, dropped


# A title of a few words set with a full stop, as old printings set them: "Espero.", "Der Zauberlehrling."
_TITLE_WITH_STOP = re.compile(r"[^\W\d_][\w'\u2019-]*(?: [\w'\u2019-]+){0,2}\.")


def _is_title_like(line: str) -> bool:
    """A short line that may be a book's title: not a sentence (a few words with a full stop may
    be), a rule, a chapter's heading, a number, a label or matter's name."""
    stopped = _TITLE_WITH_STOP.fullmatch(line) is not None and line[0].isupper()
    return not (
        not line
        or "|" in line
        or len(line.split()) > TITLE_LINE_WORDS
        or (SENTENCE_END.search(line) and not stopped)
        or line.endswith((":", ",", ";"))
        or line.startswith(("#", "[", "(", "..", "-", "*"))
        or SCENE_BREAK.match(line)
        or _heading(line)
        or bare_number(line) is not None
        or _NUMBERED_HEADING.match(line)
        or is_matter_title(line)
    )


def _title_lines(blocks: list[tuple[int, str]], headings: set[str], file_title: str) -> tuple[str, str]:
    """The book's title and byline from the text's first lines: the first line where it stands
    alone as a title does ("Hur man spelar Freeciv", "WINMERGE"); or, of two such lines, the one
    the file is named for, the other its author's ("Henryk Sienkiewicz" over "Janko Muzykant").
    Above a heading (``headings``: tagged or underlined) a line is a byline, the heading the title."""
    lines = [_heading_line(block).strip() if "\n" not in block.strip("\n") else "" for _, block in blocks[:3]]
    if len(lines) < 2 or blocks[1][1].strip() in headings or not _is_title_like(lines[0]):
        return "", ""
    if _is_title_like(lines[1]) and title_key(lines[1]) and title_key(lines[1]) in title_key(file_title):
        return _undecorated(lines[1]), _undecorated(lines[0])
    return _undecorated(lines[0]), ""


def _undecorated(line: str) -> str:
    # Decoration around a title goes ("॥ श्री ज्ञानदेव हरिपाठ ॥"), brackets and quotes stay.
    return re.sub(r"^[^\w(\[\"'«“„]+|[^\w)\]\"'»”]+$", "", line)


def _labelled_headings(blocks: list[tuple[int, str]]) -> set[int]:
    """Which blocks are headings led by the label the text repeats ("Fråga:" before each of a
    guide's questions): a line of their own (a long one wrapped with its next lines indented), not
    closing a sentence, the same label three times or more, with text between each and a
    section's worth under each."""
    led: dict[str, list[int]] = {}
    for n, (_, block) in enumerate(blocks):
        first, *rest = block.strip("\n").split("\n")
        line = squash(block)
        if (
            first[:1].isspace()
            or any(not more[:1].isspace() for more in rest)
            or len(line) > 2 * HEADING_CHARS
        ):
            continue
        if m := _LABELLED.match(line):
            led.setdefault(m["label"].casefold(), []).append(n)
    heads = max(led.values(), key=len, default=[])
    if len(heads) < LABELLED_HEADINGS or any(b - a < 2 for a, b in pairwise(heads)):
        return set()
    under = sum(len(block.split()) for _, block in blocks[heads[0] :])
    return set(heads) if under >= LABELLED_SECTION_WORDS * len(heads) else set()


def _closing_headings(blocks: list[tuple[int, str]], numbered: set[int]) -> set[int]:
    """Short lines after the last of chapters numbered by numerals alone, set off as those are: an
    unnumbered closing chapter ("Заключение" after I to VI). After numbered sections ("10.
    References") what follows is an appendix or an address, not a chapter."""
    if not numbered or any(bare_number(blocks[n][1].strip()) is None for n in numbered):
        return set()
    spacing = {blocks[n][0] for n in numbered}
    return {
        n
        for n in range(max(numbered) + 1, len(blocks))
        if blocks[n][0] in spacing
        and "\n" not in (line := blocks[n][1].strip())
        and len(line.split()) <= CLOSING_HEADING_WORDS
        and line[:1].isupper()
        and not line.endswith((".", ",", ";", ":", "!", "?"))
    }


def _is_transcribers(block: str, number: int) -> bool:
    """A bracketed note among the text's first blocks about the edition: "[This electronic edition"."""
    return number < CREDIT_BLOCKS and bool(_TRANSCRIBERS_WORDS.search(block))


def _closing_note(blocks: list[tuple[int, str]]) -> int:
    """Where a bracketed note that closes the text begins ("[Talâ ng Tagapagsalin: … ]", the
    transcriber's word on the scans and other editions), or the text's length when none does."""
    if not blocks or not blocks[-1][1].rstrip().endswith("]"):
        return len(blocks)  # the text ends outside brackets ("[RFC1034] Mockapetris, …, 1987.")
    depth = 0
    for number in range(len(blocks) - 1, max(len(blocks) - 2 * CREDIT_BLOCKS, 0) - 1, -1):
        text = blocks[number][1].strip()
        depth += text.count("]") - text.count("[")
        if depth == 0 and text.startswith("["):
            return number
    return len(blocks)


def _is_field_header(block: str) -> bool:
    """A memo's header at the top of a text: three lines or more, most of them "Field: value"."""
    lines = block.split("\n")
    return len(lines) >= 3 and sum(bool(_FIELD.search(line)) for line in lines) * 2 > len(lines)


def _spaced_heading(raw_lines: list[str], blanks: int) -> bool:
    """A short block set off by Gutenberg's blank lines: "THE MERMAID OF ZENNOR", "INTRODUCTION."."""
    return (
        blanks >= HEADING_BLANKS
        and len(raw_lines) <= 2
        and all(len(line.strip()) <= HEADING_CHARS for line in raw_lines)
        and not raw_lines[0].lstrip().startswith("[")
        and not raw_lines[-1].rstrip().endswith((",", ";", ":"))
        and not _two_sentences(" ".join(raw_lines).strip())
    )


def _two_sentences(line: str) -> bool:
    """A line that closes a sentence and holds another before it ("The first short story.
    Published in 1891."): a note, not a heading ("CHAPTER I. THE PERIOD." is a chapter's line)."""
    inner = line.rstrip()[:-1]
    return bool(SENTENCE_END.search(line)) and bool(re.search(r"\w[.!?]", inner)) and not chapter_line(line)


# A plain text marked up with HTML's tags, as aligned-text and export formats are: its heading
# tags ("<h1>Anden Historie.</h1>") head chapters, and no tag ("<img2>", "<i>", "<delimiter>") is read.
_HEADING_TAG = re.compile(r"<h([1-6])>(.*?)</h\1>", re.IGNORECASE)
_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>\n]*)?/?>")
# A tag and its closing tag on one line: "<b>(1) </b>", "<h1>Eidgah</h1>".
_TAG_PAIR = re.compile(r"<([A-Za-z][\w-]*)(?:\s[^<>\n]*)?>[^\n]*?</\1>")
#: Tag pairs in a text this many times at least, a heading among them, are its markup, not its
#: words (a text that quotes a tag or two is not marked up).
TAGGED_PAIRS = 3


def _untagged(text: str) -> tuple[str, set[str], list[str]]:
    """A tagged text without its tags, each heading and each tagged line a paragraph of its own;
    the headings; and the plan-log line. Any other text is as it was."""
    if not _HEADING_TAG.search(text) or len(_TAG_PAIR.findall(text)) < TAGGED_PAIRS:
        return text, set(), []
    headings = {squash(_TAG.sub("", m[2])) for m in _HEADING_TAG.finditer(text)}
    tags = len(_TAG.findall(text))
    text = _HEADING_TAG.sub(lambda m: f"\n\n{m[2]}\n\n", text)
    # A tag that parts a line ("Snedronningen<delimiter>Med Illustrationer") parts the paragraph.
    text = re.sub(r"(?<=\S)<(?!/)[A-Za-z][\w-]*>(?=\S)", "\n\n", text)
    text = "\n\n".join(line for line in _TAG.sub("", text).split("\n") if line.strip())
    return (
        text,
        headings,
        [f"not read: {tags} tags of HTML in the text; {len(headings)} heading tags head chapters"],
    )


#: A line this long is past any hard wrap's width: a paragraph of its own, as unwrapped text has it.
UNWRAPPED_CHARS = 160


# An editor's settings kept in the file: Emacs's "-*- coding: utf-8 -*-" line and its closing
# "Local Variables:" … "End:" block (each line behind the same comment mark), Vim's modeline
# ("vim: set tw=72:"). They are for the editor, never the listener.
_EMACS_MARKS = re.compile(r"-\*-.+-\*-")
_EMACS_BLOCK = re.compile(
    r"^(?P<mark>[^\w\n]*)Local Variables:[ \t]*\n(?:(?P=mark)[^\n]*\n)*?(?P=mark)End:[^\n]*\s*\Z",
    re.MULTILINE,
)
_MODELINE = re.compile(r"^[^\w\n]*\b(?:vim?|ex):[ \t]*(?:set?[ \t]+)?\w+[=:]")
#: Emacs reads its -*- line on the first line, or the second after a "#!" line; Vim reads a
#: modeline among the first and last five.
EMACS_LINES = 2
MODELINE_LINES = 5


def _without_editor_settings(text: str) -> tuple[str, list[str]]:
    """The text without the settings an editor keeps in it, and the plan-log line."""
    lines = text.split("\n")
    edges = {*range(min(MODELINE_LINES, len(lines))), *range(max(len(lines) - MODELINE_LINES, 0), len(lines))}
    gone = {n for n in edges if _MODELINE.match(lines[n])}
    gone |= {n for n in range(min(EMACS_LINES, len(lines))) if _EMACS_MARKS.search(lines[n])}
    text, blocks = _EMACS_BLOCK.subn("", "\n".join("" if n in gone else line for n, line in enumerate(lines)))
    if not gone and not blocks:
        return text, []
    return text, [
        f"not read: {len(gone) + blocks} of an editor's settings (Emacs file variables, Vim modelines)"
    ]


def parse_txt(text: str, title: str, notes: str = "drop") -> Book:
    text, dropped = drop_from_pages(text)
    text, editor = _without_editor_settings(clean_text(text))
    dropped += editor
    text, tagged_headings, tag_note = _untagged(text)
    dropped += tag_note
    header = _header(text)
    note_choice = _Notes(read=notes == "read")
    # Page markers ("[Pg 8]") cite the print edition, in mid-sentence: they are never read.
    lines, entries = without_contents(_body(text).split("\n"))
    body = note_choice.captions(PAGE_MARKER.sub("", "\n".join(lines)))
    if codes := _LINK_CODE.findall(body):
        dropped.append(
            f"not read: {codes[0].strip()!r} and {len(codes) - 1} more like it: link codes in padded brackets"
        )
        body = _LINK_CODE.sub("", body)
    body, placeholders = TEMPLATE_LINE.subn("", body)
    if placeholders:
        dropped.append(f"not read: {placeholders} template tags or placeholders on lines of their own")
    body, underlined = _underlined(body)
    blocks, notices = _without_opening_notices(_blocks(body))
    dropped += notices
    listed = located(entries, [block for _, block in blocks])
    if listed:
        chapters_listed = sum(entry.chapter and not entry.entry.group for entry in listed.values())
        dropped.append(
            f"the printed contents is the map: {len(listed)} of its {len(entries)} entries head the text, "
            f"{chapters_listed} of them as chapters; other headings are said inside their chapters"
        )
    for _, block in blocks:
        if footnote := _FOOTNOTE.match(block.strip()):
            note_choice.footnotes[footnote["label"]] = squash(footnote["text"])
    numbered = _numbered_headings(blocks)
    numbered |= _closing_headings(blocks, numbered)
    labelled = _labelled_headings(blocks)
    # A printed contents, or a heading the text numbers or labels, maps the text from its first line.
    mapped = bool(listed) or bool({0, 1} & (numbered | labelled))
    title_line, byline = (
        ("", "")
        if header.get("title") or mapped
        else _title_lines(blocks, tagged_headings | underlined, title)
    )
    if title_line:
        dropped.append(
            f"the first lines are the book's title: {title_line!r}" + (f", by {byline!r}" if byline else "")
        )
    names = _names_under_numbers(blocks)
    drafts: list[Draft] = [Draft("")]
    first_listed: Draft | None = None
    note_depth = 0
    closing_note = _closing_note(blocks)
    for number, (blanks, block) in enumerate(blocks):
        opening = block.strip()
        if number < (2 if byline else 1) and title_line:
            continue
        if number >= closing_note:
            if number == closing_note:
                dropped.append(f"not read: {squash(opening)[:100]!r}: a bracketed note at the end")
            continue
        if note_depth or (opening.startswith("[") and (number < 3 or _is_transcribers(opening, number))):
            # A transcriber's note may run over several blocks, with brackets of its own inside.
            if not note_depth:
                dropped.append(f"not read: {squash(opening)[:100]!r}: a bracketed note at the top")
            note_depth += opening.count("[") - opening.count("]")
            continue
        if number < 3 and PRODUCED_BY.search(opening):
            dropped.append(f"not read: {squash(opening)[:100]!r}: the producer's credit")
            continue
        if number < 3 and _is_field_header(opening):
            dropped.append(f"not read: {squash(opening)[:100]!r}: a header of fields (metadata)")
            continue
        if _FOOTNOTE.match(opening):
            continue
        if opening.startswith(_FIGURE):
            drafts[-1].blocks += [Block(text) for text in [note_choice.caption(opening)] if text]
            continue
        raw_lines = [line.rstrip() for line in block.split("\n") if line.strip()]
        if raw_lines and SCENE_BREAK.match(raw_lines[0]):
            # A rule alone, or a rule set right above a heading ("~~~~" over "1.1.1. lecke: ..."):
            # a break, never a title.
            drafts[-1].blocks.append(Block(is_break=True))
            raw_lines = raw_lines[1:]
            if not raw_lines:
                continue
        if len(raw_lines) >= 3 and all(_heading(line.strip()) for line in raw_lines):
            continue  # a list of acts or chapters: contents, not story
        heading = _heading(raw_lines[0].strip()) if raw_lines else None
        # "Transcriber's Note:" and "FOOTNOTES:" head matter of their own, even with a colon.
        matter = len(raw_lines) == 1 and is_matter_title(raw_lines[0])
        if number in listed:
            entry = listed[number]
            _start(drafts, entry.entry.title, inside=not entry.chapter)
            if entry.chapter and first_listed is None:
                first_listed = drafts[-1]
            raw_lines = raw_lines[entry.lines :]
        elif (
            heading
            or matter
            or number in numbered
            or number in labelled
            or opening in tagged_headings
            or opening in underlined
            or (raw_lines and _spaced_heading(raw_lines, blanks))
        ):
            # Gutenberg style: "CHAPTER I." with the chapter's name on the next line.
            title_lines, rest = [squash(raw_lines[0])], raw_lines[1:]
            if number in labelled:
                title_lines, rest = [squash(" ".join(raw_lines))], []
            named = (
                (heading is not None and heading.re is CHAPTER_LINE and heading.group(4))
                or (number in numbered and _NUMBERED_HEADING.match(raw_lines[0].strip()))
                or opening in underlined
            )
            if not named and rest and len(rest[0].strip()) <= HEADING_CHARS:
                title_lines, rest = [*title_lines, rest[0].strip()], rest[1:]
            # Where the contents maps the chapters, a heading it does not list heads a section.
            inside = first_listed is not None and not matter
            _start(drafts, ". ".join(t.rstrip(".") for t in title_lines), inside)
            raw_lines = rest
        elif (number in names and not drafts[-1].blocks) or _is_subtitle(
            drafts[-1], raw_lines, [b for _, b in blocks[number + 1 : number + 2]]
        ):
            # A name the title already says (the contents' entry gave it) is not said twice.
            if title_key(raw_lines[0]) not in title_key(drafts[-1].title):
                drafts[-1].title = f"{drafts[-1].title.rstrip('.')}. {raw_lines[0].strip()}"
            continue
        if raw_lines and _in_columns(raw_lines):
            drafts[-1].blocks.append(Block(squash(" ".join(raw_lines)), types=frozenset({GLOSSARY})))
        elif raw_lines:
            # Unwrapped text: most lines run past any wrap's width, and each is a paragraph.
            unwrapped = len(raw_lines) > 1 and statistics.median_high(map(len, raw_lines)) > UNWRAPPED_CHARS
            for lines in [[line] for line in raw_lines] if unwrapped else [raw_lines]:
                paragraph, footnotes = note_choice.after(_paragraph(lines))
                drafts[-1].blocks += [Block(text) for text in (paragraph, *footnotes) if text]
    drafts = _without_heading_lists(drafts)
    book_title = header.get("title") or title_line or title
    language = _LANGUAGE_NAMES.get(header.get("language", "").split(",")[0].strip().lower(), "")
    authors = tuple(a.strip() for a in re.split(r"\s+and\s+|;", header.get("author", byline)) if a.strip())
    chapters, producers = build_chapters(drafts, book_title)
    # Drafts compare by their fields: the first listed one is found by identity.
    first = next((n for n, draft in enumerate(drafts) if draft is first_listed), None)
    if first is not None:
        chapters, folded = _with_opening_folded(chapters, first)
        producers = (*producers, *folded)
    return Book(
        book_title,
        chapters,
        authors=authors,
        language=language or "en",
        language_source="Gutenberg 'Language:' line" if language else "",
        notes=(*dropped, *producers),
    )


def _start(drafts: list[Draft], title: str, inside: bool) -> None:
    """A chapter titled ``title``; or, ``inside`` the one before, a section heading."""
    if inside:
        drafts[-1].blocks += [Block(is_break=True), Block(title)]
    else:
        drafts.append(Draft(title))


def _with_opening_folded(chapters: tuple[Chapter, ...], first: int) -> tuple[tuple[Chapter, ...], list[str]]:
    """Body text before the first chapter the printed contents lists (a dedication, a prefatory
    note) is heard at that chapter's start, each piece's title said; and the plan-log lines. A
    heading with no text there ("TIME: The Present.") is said there too, not made part of the
    title, which is the contents' entry."""
    body = [n for n, chapter in enumerate(chapters) if chapter.kind == "body"]
    target = next((n for n in body if n >= first and chapters[n].paragraphs), None)
    opening = [n for n in body if n < first]
    if target is None or not opening:
        return chapters, []
    pieces = joined([chapters[n] for n in opening], headed=True)
    kept = [c for n, c in enumerate(chapters) if n not in opening]
    kept[kept.index(chapters[target])] = joined([pieces, chapters[target]], headed=False)
    notes = [
        f"chapter {chapters[n].title!r} is heard at the start of {chapters[target].title!r}: "
        "it stands before the first chapter the printed contents lists"
        for n in opening
    ]
    return tuple(kept), notes


def _without_heading_lists(drafts: list[Draft]) -> list[Draft]:
    """Drop runs of headings with nothing under them: a list of acts or stories, not a hierarchy.

    The text under the last heading of such a run goes back to the draft before it.
    """
    kept: list[Draft] = []
    run: list[Draft] = []
    for draft in drafts:
        if not draft.blocks:
            run.append(draft)
            continue
        if len(run) >= HEADING_LIST:
            if kept:
                kept[-1].blocks += draft.blocks
            else:
                kept.append(Draft("", draft.blocks))
        else:
            kept += [*run, draft]
        run = []
    return kept + run


# Two columns on a line: a term, a run of spaces, its gloss ("Méchant,          ondeugend.").
_COLUMNS = re.compile(r"\S {4,}\S")


def _in_columns(raw_lines: list[str]) -> bool:
    """A block of lines set in two columns, as a word list is: most lines hold a wide gap."""
    return len(raw_lines) >= LEAST_ENTRIES and sum(
        bool(_COLUMNS.search(line.strip())) for line in raw_lines
    ) >= MOST * len(raw_lines)


def _names_under_numbers(blocks: list[tuple[int, str]]) -> set[int]:
    """The lines that name chapters, where the book sets a short line under most of its bare
    chapter lines ("HOOFDSTUK I" / "Een Winterdag op de Noordzee."): the blocks after them. By the
    book's own repetition, in any case: a line in capitals needs no such evidence (``_is_subtitle``)."""
    lines = [block.strip() if "\n" not in block.strip() else "" for _, block in blocks]
    bare = [
        n
        for n, line in enumerate(lines[:-1])
        if (heading := chapter_line(line)) is not None and not heading.group(4).strip()
    ]
    named = [
        n + 1
        for n in bare
        if lines[n + 1] and len(lines[n + 1]) <= HEADING_CHARS and not chapter_line(lines[n + 1])
    ]
    if len(named) < NUMBERED_HEADINGS or len(named) < MOST * len(bare):
        return set()
    return set(named)


def _is_subtitle(draft: Draft, raw_lines: list[str], following: list[str]) -> bool:
    """A short line right under a part heading, before the next heading: "RECALLED TO LIFE"; or a
    line in capitals right under a chapter's bare number, a blank line below it: "Розділ I" /
    "ЗАГАЛЬНІ ЗАСАДИ", "I" / "SA CUBIERTA"."""
    if draft.blocks or len(raw_lines) != 1 or not following:
        return False
    heading = _heading(draft.title.split(". ")[0])
    line = raw_lines[0].strip()
    if heading and _is_part(heading):
        return len(line) <= 60 and _heading(following[0].strip().split("\n")[0]) is not None
    numbered = bare_number(draft.title) is not None or (
        heading is not None and heading.re is CHAPTER_LINE and not heading.group(4)
    )
    return numbered and line.isupper() and len(line) <= HEADING_CHARS


# A Markdown heading on a line of its own after a blank line (or the file's start): "# Lesson 2.1.1: ...".
_ATX_HEADING = re.compile(r"(?:\A|\n[ \t]*\n)#{1,6}[ \t]+\S[^\n]*")
#: A plain text with this many Markdown headings at least is written in Markdown (a tutor, a
#: README saved as .txt), and is read as Markdown is.
MARKDOWN_HEADINGS = 3


def read_txt(path: Path, notes: str = "drop") -> Book:
    text, encoding = decode_text(path, path.read_bytes())
    if is_aozora(text):
        return replace(parse_aozora(clean_text(text)), encoding=encoding)
    if is_rst(text) and not PG_START.search(text):
        book = parse_rst(text, title_from_stem(path), notes)
        said = ("plain text written in reStructuredText: read as reStructuredText", *book.notes)
        return replace(book, encoding=encoding, notes=said)
    if len(_ATX_HEADING.findall(text)) >= MARKDOWN_HEADINGS and not PG_START.search(text):
        book = parse_markdown(text, title_from_stem(path), notes)
        said = ("plain text written in Markdown: read as Markdown", *book.notes)
        return replace(book, encoding=encoding, notes=said)
    return replace(parse_txt(text, title_from_stem(path), notes), encoding=encoding)
