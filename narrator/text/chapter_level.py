"""Chapters a listener navigates by, whatever the reader found: title pages as titles, a book's
short opening pieces heard with its first chapter, and the level of the contents that has the
length of chapters.

These work on any reader's chapters, by their lengths and structure, so that every format gets
the same judgement: a 3-second "Dedication" is not a chapter to skip to, and a play's acts of
twenty minutes are, where its scenes of two minutes are too fine.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from narrator.core.book import CHARS_PER_MINUTE, LONGEST_CHAPTER_CHARS, Chapter, joined, trimmed
from narrator.text.readers.matter import opens_an_abstract
from narrator.text.readers.titles import (
    CJK_CHAPTER_AFTER_SENTENCE,
    CJK_DIVISION_WORDS,
    NUMBERED_HEADINGS,
    PART_WORDS,
    bare_number,
    byline,
    chapter_line,
    chapter_run,
    division_key,
    heads_a_chapter,
    title_key,
)

#: An opening piece shorter than this (about 20 s: a dedication, an epigraph, a publisher's line)
#: is heard at the start of the first chapter (of the book or of its part) rather than being a
#: chapter of its own; one titled "Epigraph" or "Dedication" may run to a minute.
FRONT_PIECE_CHARS = CHARS_PER_MINUTE // 3
#: These judgements are made only in a book of real chapters, whose median runs this long: in a
#: book of a few lines a chapter (and a test's) is as short as any dedication.
REAL_CHAPTER_CHARS = 2 * CHARS_PER_MINUTE
#: A book shorter than this (a page, a test's few lines) keeps its pieces as they are.
FEW_MINUTES_CHARS = 5 * CHARS_PER_MINUTE
#: An untitled opening before the first titled chapter, shorter than this, is heard at its start
#: however long the chapters run: with no title it is no place a listener would skip to.
UNTITLED_OPENING_CHARS = 3 * CHARS_PER_MINUTE
#: Divisions (acts, parts) become the chapters when their median runs at most this long ...
DIVISION_MEDIAN_CHARS = 45 * CHARS_PER_MINUTE
#: ... none is longer than this ...
DIVISION_MAX_CHARS = LONGEST_CHAPTER_CHARS
#: ... and they hold at least this many chapters each on average: a part of one chapter is a title.
DIVISION_MEAN_CHAPTERS = 2
# A piece named for what opens a book or a part, in the languages of the corpus and its neighbours.
_FRONT_PIECE = re.compile(
    r"(^|\W)(epigraphs?|mott(o|oes)|dedication|[ée]pigraphe|d[ée]dicace|widmung|ep[íi]grafe|dedicatoria"
    r"|dedica|эпиграф|посвящение)\W*$",
    re.IGNORECASE,
)
# A play's list of characters, heard at the start of the first act.
_CAST_LIST = re.compile(
    r"(^|\.\s*)(dramatis person(ae|æ)|persons represented|the persons of the play|characters"
    r"|personen|personnages|personajes|personaggi)\W*$",
    re.IGNORECASE,
)


def _chars(chapter: Chapter) -> int:
    return sum(len(p) for p in chapter.paragraphs)


def _is_cast_list(chapter: Chapter) -> bool:
    """Titled as a cast list, or opening with that heading (a section inside a division)."""
    return any(_CAST_LIST.search(line) for line in (chapter.title, *chapter.paragraphs[:1]))


def _is_front_piece(chapter: Chapter, names: Sequence[str]) -> bool:
    """Under 20 s, or under a minute and titled as what opens a chapter (an epigraph, a motto) or
    by the book's title or author (a title page's dedication: "Gentleman-Cambrioleur Par Maurice
    Leblanc"), or not titled at all: with no name to skip to, a blurb or a few opening lines are
    the first chapter's start."""
    chars = _chars(chapter)
    key = title_key(chapter.title)
    named = any(title_key(name) and title_key(name) in key for name in names)
    return chars < FRONT_PIECE_CHARS or (
        chars < CHARS_PER_MINUTE and (named or not key or bool(_FRONT_PIECE.search(chapter.title)))
    )


def _median_chars(chapters: Sequence[Chapter]) -> float:
    """The median length of the chapters with text (0 with none)."""
    lengths = [_chars(c) for c in chapters if c.kind == "body" and c.paragraphs]
    return statistics.median(lengths) if lengths else 0


def _has_real_chapters(chapters: Sequence[Chapter]) -> bool:
    return _median_chars(chapters) >= REAL_CHAPTER_CHARS


#: Longest paragraph that can be a chapter line inside a chapter's text.
CHAPTER_LINE_CHARS = 80


def _heading_lines(chapter: Chapter) -> tuple[Chapter, list[int]]:
    """The chapter with a chapter line that ends a paragraph made a paragraph of its own, and the
    indexes of the paragraphs that are chapter lines ("CHAPTER XII.", "第二回 …")."""
    paragraphs: list[str] = []
    sources: list[tuple[str, str] | None] = []
    first: list[int] = []  # each old paragraph's first new index
    lines: list[int] = []
    for n, text in enumerate(chapter.paragraphs):
        source = chapter.sources[n] if chapter.sources else None
        first.append(len(paragraphs))
        line = text
        if ending := CJK_CHAPTER_AFTER_SENTENCE.search(text):
            paragraphs.append(text[: ending.start()])
            sources.append(source)
            line = ending["line"]
        if len(line) <= CHAPTER_LINE_CHARS and heads_a_chapter(line):
            lines.append(len(paragraphs))
        paragraphs.append(line)
        sources.append(source)
    first.append(len(paragraphs))
    split = replace(
        chapter,
        paragraphs=tuple(paragraphs),
        section_ends=frozenset(first[n + 1] - 1 for n in chapter.section_ends),
        notes=tuple((first[after], text) for after, text in chapter.notes),
        sources=tuple(sources) if chapter.sources else (),
    )
    return split, lines


def at_chapter_lines(chapters: Sequence[Chapter], book_title: str) -> tuple[list[Chapter], list[str]]:
    """A chapter that runs longer than a chapter does and holds chapter lines the contents did not
    list (an EPUB made from a plain text lists only its title and licence) is split at them, and a
    chapter of numbered poems at their numerals; its own title, unless it only names the book, is
    their parent. And the plan-log lines that say so."""
    kept: list[Chapter] = []
    notes: list[str] = []
    headed = {id(c): _heading_lines(c) for c in chapters if c.kind == "body"}
    # A chapter cut for its length sets the book's level: a sibling with lines of the same division
    # ("ACT I" ... in the book's second, shorter play) is cut at them too.
    long = {n for n, (_, lines) in headed.items() if len(lines) >= NUMBERED_HEADINGS}
    long &= {id(c) for c in chapters if c.kind == "body" and _chars(c) > LONGEST_CHAPTER_CHARS}
    cut = {_division(headed[n][0].paragraphs[line]) for n in long for line in headed[n][1]}
    for chapter in chapters:
        if chapter.kind != "body":
            kept.append(chapter)
            continue
        if poems := _numbered_poems(chapter):
            kept += _split_at(chapter, chapter, poems, book_title)
            notes.append(f"chapter {chapter.title!r} is {len(poems)} numbered poems: each is a chapter")
            continue
        if poems := _titled_poems(chapter):
            kept += _split_at(chapter, chapter, poems, book_title)
            notes.append(f"chapter {chapter.title!r} is {len(poems)} titled poems: each is a chapter")
            continue
        split, lines = headed[id(chapter)]
        if id(chapter) in long:
            kept += _split_at(chapter, split, lines, book_title)
            notes.append(
                f"chapter {chapter.title!r} runs over {LONGEST_CHAPTER_CHARS // CHARS_PER_MINUTE} minutes:"
                f" split at the {len(lines)} chapter lines in its text"
            )
        elif len(lines) >= NUMBERED_HEADINGS and {_division(split.paragraphs[n]) for n in lines} <= cut:
            kept += _split_at(chapter, split, lines, book_title)
            notes.append(
                f"chapter {chapter.title!r} is split at its {len(lines)} chapter lines, as a longer chapter"
                " of the book is at lines of the same kind"
            )
        else:
            kept.append(chapter)
    return kept, notes


# The character that names a Chinese or Japanese division: 回 in "第二回 …".
_CJK_DIVISION_WORD = re.compile(rf"\s*第[^{CJK_DIVISION_WORDS}]*([{CJK_DIVISION_WORDS}])")


def _division(line: str) -> str:
    """The kind of division a chapter line heads: "act" for "ACT II.", "回" for "第二回 …"."""
    if key := division_key(line):
        return key.rpartition(" ")[0]
    cjk = _CJK_DIVISION_WORD.match(line)
    return cjk.group(1) if cjk else ""


def _split_at(chapter: Chapter, split: Chapter, lines: list[int], book_title: str) -> list[Chapter]:
    """``split`` (``chapter`` with its chapter lines as paragraphs) cut at those lines, each
    titling its piece; what stands before the first keeps the chapter's title."""
    named = chapter.title and title_key(chapter.title) != title_key(book_title)
    parents = (*chapter.parents, chapter.title) if named else chapter.parents
    pieces = []
    if lines[0] > 0 and any(p.strip() for p in split.paragraphs[: lines[0]]):
        pieces.append(_piece(split, 0, lines[0], chapter.title, chapter.parents))
    for start, end in zip(lines, [*lines[1:], len(split.paragraphs)], strict=True):
        pieces.append(_piece(split, start + 1, end, split.paragraphs[start], parents))
    return pieces


# Alone, "L" and "C" may be letters ("Appendix C"); in a count, after XLIX or XCIX, they are numbers.
_LETTER_NUMERALS = {"L": 50, "C": 100}


def _numeral(paragraph: str) -> int | None:
    """The number a paragraph that is only a numeral says, "L" and "C" too (``chapter_run`` takes
    them only where the count reaches them)."""
    return bare_number(paragraph) or _LETTER_NUMERALS.get(paragraph.strip().rstrip("."))


#: Numbered pieces are poems when this share of their paragraphs at least are verse (set in lines).
VERSE_SHARE = 0.8
#: ... and run this many words each at least, on average (a quatrain).
POEM_WORDS = 20


def _numbered_poems(chapter: Chapter) -> list[int]:
    """The paragraphs that number the poems a chapter is made of ("I", verse, "II", verse ... as
    A Shropshire Lad prints its 63): a listener of poetry moves poem by poem, however short, as
    recordings of poetry are tracked. Only from the chapter's start, and only over verse: numbered
    sections of prose are a chapter's own parts."""
    paragraphs = chapter.paragraphs
    found = [(n, value) for n, p in enumerate(paragraphs) if (value := _numeral(p)) is not None]

    def words_after(start: int) -> int:
        return sum(len(p.split()) for p in paragraphs[start:])

    numerals = chapter_run(found, words_after, POEM_WORDS)
    run = sorted(numerals)
    if not run or run[0] > 1:
        return []
    verse = [p for n, p in enumerate(paragraphs[run[0] :], run[0]) if n not in numerals]
    return run if _mostly_verse(verse) else []


def _mostly_verse(paragraphs: list[str]) -> bool:
    """Whether VERSE_SHARE of the paragraphs at least are set in lines (none: not verse)."""
    return bool(paragraphs) and sum("\n" in p for p in paragraphs) >= VERSE_SHARE * len(paragraphs)


#: A poem's title is a line of at most this many words ...
POEM_TITLE_WORDS = 8
#: ... and a chapter is titled poems when it has this many at least.
TITLED_POEMS = 3


def _is_poem_title(paragraph: str) -> bool:
    """One short line, not in lower case, that neither runs on nor ends as a sentence ("Oklahoma",
    "Champs de Honneur", "春の日の夕暮"): a one-line stanza or a line of dialogue ends in a stop or a
    quotation mark, and so is never taken for a title; a numeral numbers a poem's parts."""
    text = paragraph.strip()
    return (
        "\n" not in text
        and len(text.split()) <= POEM_TITLE_WORDS
        and text[:1].isalnum()
        and not text[:1].islower()
        and _numeral(text) is None
        and not text.endswith((",", ";", ":", ".", "!", "?", "…", "—", "\u201d", "\u2019", '"', "'"))
    )


def _titled_poems(chapter: Chapter) -> list[int]:
    """The paragraphs that title the poems a chapter is made of (a title line, verse, a title
    line, verse ... from its start), each a chapter as numbered poems are. The titles must all
    differ: a play's speakers, named again and again over their verse, are no poems' titles."""
    paragraphs = chapter.paragraphs
    titles = [n for n, p in enumerate(paragraphs) if _is_poem_title(p)]
    if len(titles) < TITLED_POEMS or titles[0] != 0:
        return []
    if any(b - a < 2 for a, b in zip(titles, [*titles[1:], len(paragraphs)], strict=True)):
        return []
    if len({title_key(paragraphs[n]) for n in titles}) < len(titles):
        return []
    titled = set(titles)
    verse = [p for n, p in enumerate(paragraphs) if n not in titled]
    words = sum(len(p.split()) for p in verse)
    if words < POEM_WORDS * len(titles):
        return []
    return titles if _mostly_verse(verse) else []


def _piece(chapter: Chapter, start: int, end: int, title: str, parents: tuple[str, ...]) -> Chapter:
    """Paragraphs ``start`` to ``end`` as a chapter, with only the notes that follow them."""
    notes = tuple((after, text) for after, text in chapter.notes if start < after <= end or after == start)
    return replace(trimmed(replace(chapter, notes=notes), start, end), title=title, parents=parents)


def without_title_pages(chapters: Sequence[Chapter]) -> list[Chapter]:
    """A body chapter whose text only says its title again ("Book I / The Coming of the Martians")
    is a part's title page: it keeps its title and loses the text, so it titles what follows."""
    if not _has_real_chapters(chapters):
        return list(chapters)
    kept = []
    for chapter in chapters:
        said = title_key(" ".join(chapter.paragraphs))
        page = chapter.kind == "body" and said and title_key(chapter.title).endswith(said)
        kept.append(
            replace(chapter, paragraphs=(), section_ends=frozenset(), sources=()) if page else chapter
        )
    return kept


def titled_for_bylines(
    chapters: Sequence[Chapter], title: str, authors: Sequence[str]
) -> tuple[list[Chapter], list[str]]:
    """The one chapter of a book of one piece, titled only by the book's author ("EDGAR ALLAN
    POE", "By Edgar Allan Poe": the byline under a story's title, listed in the contents as if it
    were a chapter) or not at all (the text under a page's title), is titled by the book instead;
    and the plan-log lines that say so. (Among several, an author's name may title an essay on him.)"""
    names = {title_key(author) for author in authors} - {""}
    kept: list[Chapter] = []
    notes: list[str] = []
    one_piece = len([c for c in chapters if c.kind == "body" and c.paragraphs]) == 1
    for n, chapter in enumerate(chapters):
        byline = _is_byline(chapter.title, names)
        if one_piece and chapter.kind == "body" and title and (byline or not chapter.title.strip()):
            why = "the author's byline" if byline else "none"
            notes.append(f"chapter {chapter.title!r} is titled {title!r}: its title is {why}")
            kept.append(replace(chapter, title=title))
        elif chapter.kind == "body" and byline and _under_a_title(chapters, n):
            # The byline set as a heading under the piece's title: the title alone titles it.
            notes.append(
                f"chapter {chapter.title!r} is titled by the heading above it: its title is the byline"
            )
            kept.append(replace(chapter, title=""))
        else:
            kept.append(chapter)
    return kept, notes


def _under_a_title(chapters: Sequence[Chapter], n: int) -> bool:
    """Whether chapter ``n`` comes right under a heading of the body with no text of its own."""
    above = chapters[n - 1] if n else None
    return above is not None and above.kind == "body" and not above.paragraphs and bool(above.title.strip())


# The names in a byline: "Richard Barbrook and Andy Cameron", "A. Smith, B. Jones & C. Wu".
_NAME_LIST = re.compile(r"\s*(?:,|&|\band\b|\bund\b|\bet\b|\by\b|\be\b|\bi\b)\s*")
#: A name in a byline is a few words.
NAME_WORDS = 4


def _is_byline(title: str, names: set[str]) -> bool:
    """Whether a title is only a byline: the book's author, alone or among others ("Richard
    Barbrook and Andy Cameron"), or "By …" in a book that names no author."""
    bylined = byline(title)
    if not names:
        return bylined is not None
    people = [p for p in _NAME_LIST.split(bylined or title) if p.strip()]
    return any(title_key(p) in names for p in people) and all(len(p.split()) <= NAME_WORDS for p in people)


def with_front_pieces_folded(
    chapters: Sequence[Chapter], names: Sequence[str] = ()
) -> tuple[list[Chapter], list[str]]:
    """Short opening pieces of the book or of a part, an untitled abstract, and a play's cast list,
    heard at the start of the chapter after them; and the plan-log lines that say so. ``names``:
    the book's title and authors, which title its title pages."""
    said = [n for n, chapter in enumerate(chapters) if chapter.kind == "body" and chapter.paragraphs]
    lengths = [_chars(chapters[n]) for n in said]
    if sum(lengths) < FEW_MINUTES_CHARS:
        return list(chapters), []
    median = statistics.median(lengths)
    # Among chapters of under a minute only an untitled opening is told by its place and length.
    real, minute = median >= REAL_CHAPTER_CHARS, median >= CHARS_PER_MINUTE
    folded: dict[int, list[int]] = {}  # a chapter's index: the pieces heard at its start
    why: dict[int, str] = {}  # a piece's index: why it is one
    pieces: list[int] = []
    opening = True
    part: tuple[str, ...] = ()
    for n, after in zip(said, [*said[1:], None], strict=True):
        chapter = chapters[n]
        # A part's epigraph opens the part's first chapter as a book's opens its first.
        starts_part, part = bool(chapter.parents) and chapter.parents != part, chapter.parents
        # So does a part's own page of under a minute: the part's title over a line or a motto.
        part_page = after is not None and chapters[after].parents[-1:] == (chapter.title,)
        untitled = not chapter.title.strip()
        # Untitled, with no name to skip to, before a titled chapter: its start ("Versión 2.1" and
        # the definition's summary above "1. Obras abertas").
        opens_untitled = (
            opening
            and untitled
            and n == said[0]
            and after is not None
            and bool(chapters[after].title.strip())
            and _chars(chapter) < UNTITLED_OPENING_CHARS
            # Among chapters of under a minute it is an opening only where the chapter is longer
            # (a guide's preamble), not the text above a credits line.
            and (minute or _chars(chapter) < _chars(chapters[after]))
        )
        front_piece = (opening or starts_part) and _is_front_piece(chapter, names)
        front_reason = "a short piece before the first chapter" + ("" if opening else " of its part")
        if not real:
            # Among short chapters only a piece titled as one ("Epigraph") is known to be one.
            named = minute and opening and front_piece and bool(_FRONT_PIECE.search(chapter.title))
            reason = front_reason if named else ""
        elif _is_cast_list(chapter):
            reason = "a cast list"
        elif part_page and chapter.title and _chars(chapter) < CHARS_PER_MINUTE:
            reason = "its part's page, under a minute"
        elif front_piece:
            reason = front_reason
        elif opening and untitled and opens_an_abstract(chapter.paragraphs):
            # Untitled, it has no name to skip to: a paper's abstract opens its first section.
            reason = "an untitled abstract, before the first chapter"
        elif opening and opens_an_abstract((chapter.title,)) and _chars(chapter) < CHARS_PER_MINUTE:
            reason = "an abstract of under a minute, before the first chapter"
        else:
            reason = ""
        if not reason and opens_untitled:
            reason = "untitled, before the first chapter"
        if not reason:
            # The opening lasts until the first chapter of a minute or more: a short poem before
            # the story is a piece of its own, and a dedication after it still opens chapter one.
            opening = opening and _chars(chapter) < CHARS_PER_MINUTE
            if pieces:
                folded[n], pieces = pieces, []
            continue
        why[n] = reason
        pieces.append(n)
    kept: list[Chapter] = []
    notes: list[str] = []
    gone = {n for ns in folded.values() for n in ns}
    for n, chapter in enumerate(chapters):
        if n in gone:
            notes.append(f"chapter {chapter.title!r} is heard at the start of the next: {why[n]}")
        elif n in folded:
            kept.append(joined([*(chapters[p] for p in folded[n]), chapter], headed=False))
        else:
            kept.append(chapter)
    return kept, notes


@dataclass
class _Division:
    """A run of chapters under one heading of the level above them (an act, a part)."""

    title: str
    parents: tuple[str, ...]
    chapters: list[Chapter]
    #: Matter skipped between divisions (a cast list taken for a glossary, errata), kept in place.
    passing: bool = False


def _divisions(chapters: Sequence[Chapter]) -> tuple[list[Chapter], list[_Division], list[Chapter]]:
    """The body's chapters grouped under the headings above them: those before the first division,
    the divisions, and those after the body (back matter). A division starts at a title-only
    chapter ("ACT II"), where the chapters' parents change, or, where numbered sections begin
    again, at the titled entry over each run of them ("HOW MUCH LAND DOES A MAN NEED?", "I", "II")."""
    before: list[Chapter] = []
    divisions: list[_Division] = []
    after: list[Chapter] = []
    headings: list[Chapter] = []  # title-only chapters, waiting for the chapter they title
    parents: tuple[str, ...] | None = None
    restarts = sum(c.kind == "body" and bare_number(c.title) == 1 for c in chapters) >= 2
    for chapter in chapters:
        if chapter.kind != "body" or (after and not chapter.paragraphs):
            # Back matter, with any headings left before it ("END OF PLAY").
            (after if divisions else before).extend([*headings, chapter])
            headings = []
            continue
        if after:
            # Text after skipped matter: where a division's headings open it, the matter stays in
            # place between the divisions; with none, there is no simple structure to regroup.
            last = max(n for n, c in enumerate(after) if c.kind != "body")
            if last == len(after) - 1:
                return list(chapters), [], []
            divisions.append(_Division("", (), after[: last + 1], passing=True))
            headings, after = after[last + 1 :], []
        if not chapter.paragraphs:
            headings.append(chapter)
            continue
        if headings:
            # The division's heading and its subtitle title it; a numbered heading after them
            # ("ERSTER AKT", then "ACT I. ERSTER AUFTRITT.") heads its first section.
            inner = next((n for n, h in enumerate(headings) if n and heads_a_chapter(h.title)), len(headings))
            title = ". ".join(h.title for h in headings[:inner])
            lead = [h.title.strip().rstrip(".") for h in headings[inner:]]
            first = replace(chapter, title=". ".join([*lead, chapter.title])) if lead else chapter
            divisions.append(_Division(title, chapter.parents, [first]))
        elif not chapter.parents and (combined := _combined_heading(chapter.title)):
            # "ACT II. SCENE I": the act's heading set on its first scene's line opens the act.
            divisions.append(_Division(combined[0], (), [replace(chapter, title=combined[1])]))
        elif chapter.parents and chapter.parents != parents:
            division = _Division(chapter.parents[-1], chapter.parents[:-1], [chapter])
            # The entry above, with text of its own before its sub-entries, opens its division.
            above = divisions[-1].chapters if divisions else before
            if above and above[-1].title == division.title and above[-1].parents == division.parents:
                division.chapters.insert(0, _opening(divisions, above))
            divisions.append(division)
        elif (
            restarts
            and bare_number(chapter.title) == 1
            and (above := divisions[-1].chapters if divisions else before)
        ):
            # Numbered sections that begin again under the titled entry before each run, in a flat
            # contents ("HOW MUCH LAND DOES A MAN NEED?", "I", "II"): divisions the entries open.
            # One run under a titled opening is a book's chapters after its preface.
            if bare_number(above[-1].title) is not None or not above[-1].title:
                above.append(chapter)
            else:
                entry = above[-1]
                divisions.append(_Division(entry.title, entry.parents, [_opening(divisions, above), chapter]))
        elif (
            divisions
            and parents is not None
            and (
                len(chapter.parents) < len(parents)
                or divisions[-1].title == divisions[-1].chapters[0].title
                # A titled entry after a run of numbered sections ("THREE QUESTIONS" after "XII").
                # A sentence set as a heading, a slip of the contents, is not a title.
                or (
                    restarts
                    and bare_number(chapter.title) is None
                    and len(chapter.title.split()) <= BESIDE_TITLE_WORDS
                    and _numbered_run(divisions[-1])
                )
            )
        ):
            # An entry beside the divisions, not inside the last ("IV. A FEW MATTERS OF FORM"
            # after the rules under III, and "V." after it): a division of its own.
            divisions.append(_Division(chapter.title, chapter.parents, [chapter]))
        elif divisions:
            divisions[-1].chapters.append(chapter)
        else:
            before.append(chapter)
        headings, parents = [], chapter.parents
    return before, divisions, [*after, *headings]


def _combined_heading(title: str) -> tuple[str, str] | None:
    """A division's heading and its first section's on one line ("ACT II. SCENE I", "BOOK III.
    CHAPTER I. The Sea"), as the division's title and the section's; else None."""
    outer = chapter_line(title)
    if outer is None or outer.group(1).lower() not in PART_WORDS:
        return None
    inner = chapter_line(outer.group(4))
    if inner is None or inner.group(1).lower() in PART_WORDS:
        return None
    return title[: outer.start(4)].strip().rstrip(".:"), outer.group(4).strip()


def _opening(divisions: list[_Division], above: list[Chapter]) -> Chapter:
    """The entry above a division, with text of its own before its sub-entries, taken from where
    it stood (a division left empty goes) to open the division, which its title now names."""
    opening = above.pop()
    if divisions and not divisions[-1].chapters:
        divisions.pop()
    return replace(opening, title="")


#: A titled entry after numbered sections heads a division of its own when its title is a title,
#: a few words, not a sentence set as a heading.
BESIDE_TITLE_WORDS = 8


def _numbered_run(division: _Division) -> bool:
    """Whether a division's titled sections are mostly numbers alone ("I" … "XII", one slip of
    the contents among them)."""
    titled = [c.title for c in division.chapters if c.title]
    return 4 * sum(bare_number(title) is not None for title in titled) >= 3 * len(titled) > 0


# A section numbered before its title: "1. Form the possessive ...", "IV. Point out ...".
_NUMBERED_TITLE = re.compile(r"^\s*([0-9]{1,3}|[IVXLC]+)\s*[.):]\s")


def _numbered_sections(divisions: Sequence[_Division]) -> bool:
    """Whether the divisions' sections are numbered or labelled ("SCENE II", "3.", "Rule 4"), as
    a play's scenes and a manual's rules are: titled pieces ("Chi scrive Wikipedia?") are what a
    listener skips between, even when a part of them is short."""
    titles = [c.title for d in divisions for c in d.chapters if c.title and c.title != d.title]
    numbered = [
        t for t in titles if bare_number(t) is not None or chapter_line(t) or _NUMBERED_TITLE.match(t)
    ]
    return 2 * len(numbered) >= len(titles)


def at_listening_level(chapters: Sequence[Chapter]) -> tuple[list[Chapter], list[str]]:
    """The divisions above the chapters as the chapters, when they have a chapter's length: a play
    of five twenty-minute acts is five chapters, its scenes spoken as headings inside them; a novel
    whose books run for hours keeps its chapters."""
    before, found, after = _divisions(chapters)
    divisions = [d for d in found if not d.passing]
    if len(divisions) < 2 or not _has_real_chapters(chapters) or not _numbered_sections(divisions):
        return list(chapters), []
    lengths = [sum(_chars(c) for c in d.chapters) for d in divisions]
    count = sum(len(d.chapters) for d in divisions)
    if (
        statistics.median(lengths) > DIVISION_MEDIAN_CHARS
        or max(lengths) > DIVISION_MAX_CHARS
        or count < DIVISION_MEAN_CHAPTERS * len(divisions)
    ):
        return list(chapters), []
    merged: list[Chapter] = []
    for division in found:
        if division.passing or division.chapters[0].title == division.title:
            merged += division.chapters
        else:
            whole = joined(division.chapters, headed=True)
            merged.append(replace(whole, title=division.title, parents=division.parents))
    minutes = statistics.median(lengths) // CHARS_PER_MINUTE
    note = (
        f"{len(divisions)} divisions of {minutes:.0f} minutes each (median) are the chapters; "
        f"their {count} sections are headings inside them"
    )
    return [*before, *merged, *after], [note]
