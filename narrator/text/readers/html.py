"""A standalone HTML or XHTML book: chapters at headings, text as the EPUB reader extracts it."""

from __future__ import annotations

import codecs
import re
import statistics
from collections import Counter
from dataclasses import replace
from difflib import SequenceMatcher
from pathlib import Path

from lxml import etree

from narrator.core.book import CHARS_PER_MINUTE, Book
from narrator.core.errors import BookError
from narrator.core.language import well_formed_tag
from narrator.text.readers.apparatus import MOST
from narrator.text.readers.decode import decode_text, squash
from narrator.text.readers.matter import PG_END, build_chapters, is_matter_title, unwrapped_title
from narrator.text.readers.prose import is_prose
from narrator.text.readers.titles import (
    NUMBER_WORD,
    bare_number,
    byline,
    chapter_line,
    chapter_run,
    counted_label,
    heads_a_chapter,
    labelled,
    numbered_title,
    title_from_stem,
    title_key,
)
from narrator.text.readers.xhtml import (
    BLOCK_TAGS,
    PAGE_FOOTER,
    UNLISTED,
    Block,
    Document,
    Draft,
    extract,
    parse_html,
    parse_xhtml,
    tag_of,
    text_of,
)

_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_META_CHARSET = re.compile(rb"""<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml\b[^>]*?encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""")
# As browsers do (WHATWG Encoding): these labels mean Windows-1252, which is a superset.
_AS_CP1252 = {"latin-1", "iso8859-1", "ascii", "cp1252"}


def decode_html(path: Path, data: bytes) -> tuple[str, str]:
    """Text of an HTML file by its BOM or declared charset, else by detection; returns (text, encoding)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace").lstrip("\ufeff"), encoding.removesuffix("-sig")
    declared = _XML_ENCODING.search(data[:1024]) or _META_CHARSET.search(data[:8192])
    if declared:
        try:
            codec = codecs.lookup(declared.group(1).decode("ascii")).name
        except LookupError:
            codec = None
        if codec in _AS_CP1252:
            codec = "cp1252"
        if codec and not codec.startswith("utf-16"):
            try:
                return data.decode(codec), codec
            except UnicodeDecodeError:
                pass
    return decode_text(path, data)


def _numeral_headings(blocks: list[Block]) -> list[Block]:
    """Paragraphs that are only a numeral, or a number and a short name, counting up like chapters
    ("א.", "ב.", ... in a Word export with no heading styles; "1. Frá Gylfa konungi ok Gefjuni." in
    bold), made headings one level below the document's deepest."""
    found = [
        (n, value)
        for n, b in enumerate(blocks)
        if not b.heading and (value := bare_number(b.text) or numbered_title(b.text)) is not None
    ]
    # Roman and arabic numbers count apart ("I. kafli." over "1. gr.", "2. gr."): where both count
    # chapters, the coarser run, of fewer and longer pieces, is the chapters.
    runs = [
        run
        for roman in (True, False)
        if (
            run := chapter_run(
                [(n, value) for n, value in found if _roman_numbered(blocks[n].text) == roman],
                lambda start: sum(len(b.text.split()) for b in blocks[start:]),
            )
        )
    ]
    if not runs:
        return blocks
    numerals = min(runs, key=len)
    level = min(6, max((b.heading for b in blocks), default=0) + 1)
    return [replace(b, heading=level) if n in numerals else b for n, b in enumerate(blocks)]


def _roman_numbered(text: str) -> bool:
    """Whether a paragraph's number is in roman numerals."""
    return not text.lstrip()[:1].isdigit()


#: One heading that holds this share of its level's text is the level's one piece.
ONE_PIECE_SHARE = 0.9


def drafts_at_headings(blocks: list[Block], title: str, stated_level: int = 0) -> tuple[str, list[Draft]]:
    """Chapters at the shallowest heading level used more than once (else the shallowest used); a
    shallower heading is the title before the chapters, a part or back matter among them.

    ``stated_level`` is the chapters' level where the document's own styles say it.
    """
    blocks = _numeral_headings(blocks)
    headings = [n for n, b in enumerate(blocks) if b.heading][:2]
    if (
        len(headings) == 2
        and title_key(blocks[headings[0]].text) == title_key(blocks[headings[1]].text) != ""
        and not any(b.text for b in blocks[headings[0] + 1 : headings[1]])
    ):
        # The title said twice as the document opens (its title page's and its text's): the
        # book's title, which need not title its first chapter too.
        title = title or blocks[headings[0]].text
        blocks = blocks[: headings[0]] + blocks[headings[0] + 1 :]
    first = next((n for n, b in enumerate(blocks) if b.heading), None)
    if first is not None and _site_named(title, blocks[first].text):
        # The page's <title> is its first heading and the site's name ("Magozwe - Storybooks
        # Kenya"): the heading is the book's title, and short lines above it are the site's menus.
        title = blocks[first].text
        if not any(is_prose(b.text) for b in blocks[:first]):
            blocks = blocks[first:]
    repeated_level, chapter_level, label = (
        (stated_level, stated_level, None) if stated_level else _found_levels(blocks)
    )
    drafts: list[Draft] = [Draft("")]
    chaptered = False  # a chapter's heading has been met
    for n, block in enumerate(blocks):
        # Above counted chapters, the repeated headings are sections and parts, not the title.
        if block.heading and block.heading < repeated_level and len(drafts) == 1:
            title = title or block.text
        elif block.heading and (
            block.heading <= chapter_level
            or (not chaptered and n + 1 < len(blocks) and not blocks[n + 1].heading)
        ):
            chaptered = chaptered or block.heading <= chapter_level
            # Among the chapters a shallower heading opens a part or the back matter ("About this
            # digital edition"); a part's heading with no text titles the chapter after it. Before
            # the first chapter, a deeper one opens a piece of its own ("## Einleitung" before
            # "# Erstes Kapitel").
            drafts.append(Draft(block.text))
        elif (
            block.heading > chapter_level and not drafts[-1].blocks and _numbers_only(drafts[-1].title, label)
        ):
            # A deeper heading right under a chapter's number names it: "CHAPTER I" / "INTRODUCTORY".
            drafts[-1].title = f"{drafts[-1].title.rstrip('.')}. {block.text}"
        else:
            drafts[-1].blocks.append(block)
    if not drafts[0].blocks:
        drafts.pop(0)
    for draft in drafts:
        # A chapter titled only by the book opens on its first section's heading, over text
        # ("Introductie"): that is what a listener knows it by. (Headings over headings are a
        # title page: "Meditations", "Marcus Aurelius", "Exported from Wikisource ...".)
        opening = draft.blocks[:2]
        if (
            title
            and title_key(draft.title) == title_key(title)
            and len(opening) == 2
            and opening[0].heading
            and not opening[1].heading
        ):
            draft.title, draft.blocks = draft.blocks[0].text, draft.blocks[1:]
    return title, drafts


_SITE_SEPARATOR = re.compile(r"\s+[-|\u2013\u2014\u00b7:]\s+\S")


def _site_named(page_title: str, heading: str) -> bool:
    """Whether a page's <title> is the heading followed by a site's name."""
    return (
        len(page_title) > len(heading) > 0
        and title_key(page_title[: len(heading)]) == title_key(heading)
        and bool(_SITE_SEPARATOR.match(page_title[len(heading) :]))
    )


#: Two headings of a level over this many of the level below are parts over sections ...
PART_SECTIONS = 6
#: ... where they run this long on average: a shorter part is a chapter, its sections under a minute.
LONG_PART_CHARS = 5 * CHARS_PER_MINUTE


def _found_levels(blocks: list[Block]) -> tuple[int, int, str | None]:
    """The level that repeats, the chapters' level and the word that numbers them, from the
    headings alone."""
    levels = [b.heading for b in blocks if b.heading and not b.boilerplate]
    repeated = sorted({level for level in levels if levels.count(level) > 1})
    chapter_level = repeated[0] if repeated else (min(levels) if levels else 0)
    # One piece of text at that level (an article under its title, beside a title page set in
    # headings: "<h1>CONTRIBUTION</h1> <h2>TO</h2>") is not the book's chapters: the level below
    # it is, where that one repeats.
    under = _text_under(blocks)
    deeper = [level for level in repeated if level > chapter_level and not _one_piece(under.get(level, []))]
    if _one_piece(under.get(chapter_level, [])) and deeper:
        chapter_level = deeper[0]
    elif (
        levels.count(chapter_level) == 2
        and deeper
        and levels.count(deeper[0]) >= PART_SECTIONS
        and statistics.mean(under[chapter_level]) >= LONG_PART_CHARS
    ):
        # Two long headings over many: two parts, and the sections under them are what a listener
        # navigates by ("Theory of Operation" and "Input File Syntax", 10 and 21 minutes, over ten
        # sections); each part's opening text is a chapter of its own.
        return (chapter_level, *_counted_level(blocks, deeper[0]))
    elif (
        not repeated
        and len(set(levels)) > 1
        and blocks
        and blocks[0].heading == chapter_level
        and not any(byline(b.text) for b in blocks if b.heading)
    ):
        # Each level used once, the shallowest opening the document: that is its title, and the
        # next level its one chapter ("<h1>The Seven Valleys and the Four</h1> … <h2>The Seven
        # Valleys</h2>"), unless a heading is a byline ("<h2>By Charlotte Perkins Gilman</h2>").
        chapter_level = sorted(set(levels))[1]
    return (chapter_level, *_counted_level(blocks, chapter_level))


def _text_under(blocks: list[Block]) -> dict[int, list[int]]:
    """By level, the characters of text under each heading (to the next heading as high), a
    heading that names matter ("FOOTNOTES") left out."""
    under: dict[int, list[int]] = {}
    for n, block in enumerate(blocks):
        if not block.heading or block.boilerplate or is_matter_title(block.text):
            continue
        chars = 0
        for below in blocks[n + 1 :]:
            if below.heading and below.heading <= block.heading:
                break
            chars += 0 if below.heading else len(below.text)
        under.setdefault(block.heading, []).append(chars)
    return under


def _one_piece(chars: list[int]) -> bool:
    """Whether one heading of a level holds nearly all its text: an article under its title."""
    return not chars or max(chars) >= ONE_PIECE_SHARE * sum(chars)


def _counted_level(blocks: list[Block], level: int) -> tuple[int, str | None]:
    """The chapters' heading level and the word that numbers them: ``level`` unless its headings
    are not counted and a deeper level's are ("পর্ব ১" parts over "অধ্যায় ১" ... "অধ্যায় ১২"):
    that level is the chapters, and the shallower headings open parts among them."""
    at_level = [b.text for b in blocks if b.heading == level and not b.boilerplate]
    label = counted_label(at_level)
    if label or any(heads_a_chapter(t) or bare_number(t) is not None for t in at_level):
        return level, label
    for deeper in range(level + 1, 7):
        titles = [b.text for b in blocks if b.heading == deeper and not b.boilerplate]
        label = counted_label(titles)
        if label is None:
            continue
        # Under which of the headings at ``level`` each counted one stands.
        above, under, counted = 0, set(), 0
        for block in blocks:
            above += block.heading == level
            if block.heading == deeper and not block.boilerplate and labelled(block.text, label):
                under.add(above)
                counted += 1
        # Most of their level, and across parts: not "Step 1" ... "Step 3" in one chapter.
        if counted >= MOST * len(titles) and len(under) >= 2:
            return deeper, label
    return level, None


def _numbers_only(title: str, label: str | None = None) -> bool:
    """A heading that numbers a chapter and names nothing: "CHAPTER I", "XII.", "Part Two", "One",
    or the book's own word for a chapter and a number ("অধ্যায় ১")."""
    line = chapter_line(title)
    numbered = labelled(title, label) if label else None
    return (
        bare_number(title) is not None
        or (numbered is not None and not numbered["name"].strip())
        or NUMBER_WORD.fullmatch(title.strip()) is not None
        or (line is not None and not line.group(4).strip())
    )


def read_html(path: Path, notes: str = "drop") -> Book:
    data = path.read_bytes()
    text, encoding = decode_html(path, data)
    root = None
    if path.suffix.lower() == ".xhtml":
        try:
            root = parse_xhtml(re.sub(r"^\s*<\?xml[^>]*\?>", "", text).encode("utf-8"))
        except (etree.XMLSyntaxError, ValueError):
            root = None  # not well-formed after all: read it as tag soup
    if root is None:
        try:
            root = parse_html(text)
        except (etree.ParserError, etree.XMLSyntaxError, ValueError) as error:
            raise BookError(f"{path}: cannot parse the HTML ({error})") from None
    if root is None:
        raise BookError(f"{path}: the book has no text to speak")
    return replace(book_from_html(root, title_from_stem(path), notes), encoding=encoding)


def book_from_html(root: etree._Element, fallback_title: str, notes: str = "drop") -> Book:
    """The book a parsed HTML page holds; ``fallback_title`` where the page names none."""
    document = extract(root, notes=notes)
    _linked_titles_as_headings(root, document)
    linked = _contents_links(root, document)
    _mark_unlisted_end(document, linked)
    _titled_by_contents(document, linked)
    _levels_from_nested_contents(root, document)
    footer = [b.text for b in document.blocks if PAGE_FOOTER in b.types and b.text]
    document.blocks = [b for b in document.blocks if PAGE_FOOTER not in b.types]
    wrapped, drafts = drafts_at_headings(document.blocks, document.title)
    title, authors = unwrapped_title(wrapped or fallback_title)
    language = _stated_language(root)
    chapters, dropped = build_chapters(drafts, title)
    if footer:
        dropped = (
            f"not read: {footer[0][:60]!r} and {len(footer) - 1} more paragraphs: the page's footer",
            *dropped,
        )
    return Book(
        title,
        chapters,
        authors or _stated_authors(root),
        language=language or "en",
        language_source="document's lang attribute" if language else "",
        notes=dropped,
    )


#: A contents links to this many of the page's headings at least.
CONTENTS_LINKS = 3
#: What follows the last listed chapter is the publisher's only while it is this share of the text
#: at most: a contents that lists the first chapters alone leaves the rest of the book to read.
UNLISTED_SHARE = 0.1


# A list's items and a table's cells and rows hold a contents' entries: the list or table is the contents.
_ENTRY_TAGS = frozenset({"li", "dt", "dd", "td", "th", "tr", "tbody", "thead"})


def _contents_links(root: etree._Element, document: Document) -> dict[int, str]:
    """The headings the page's own links lead to, each with the words of its first link that
    names it (not only a number: "5", "37-51"), from a contents: a block of three such links or
    more, not a lone "To the index" link; empty when fewer than three headings are linked."""
    blocks = document.blocks
    headed = {}
    for link in root.iter("a"):
        href = link.get("href", "")
        index = document.anchors.get(href[1:]) if href.startswith("#") else None
        if index is not None and index < len(blocks) and blocks[index].heading:
            headed[link] = index
    holder = {link: _holder(link) for link in headed}
    links_in = Counter(holder.values())
    linked: dict[int, str] = {}
    for link, index in headed.items():
        words = squash(text_of(link))
        listed = links_in[holder[link]] >= CONTENTS_LINKS
        if not linked.get(index) or (listed and not _names_something(linked[index])):
            linked[index] = words if listed else ""
    return linked if len(linked) >= CONTENTS_LINKS else {}


# A contents entry's own number before its title: "1.", "2.3.", "5.1".
_ENTRY_NUMBER = re.compile(r"^\s*\d{1,3}(?:\.\d{1,3})*\.?\s+")


def _nested_contents(root: etree._Element) -> list[list[tuple[int, str]]]:
    """Each outermost list of links that nests lists (a sidebar's "1. Getting Started" over
    "1.1. Why Async?"): its entries in order, each with its depth and its link's words."""
    lists = []
    for outer in root.iter("ol", "ul"):
        if any(tag_of(above) in ("ol", "ul") for above in outer.iterancestors()):
            continue
        entries = []
        for item in outer.iter("li"):
            link = next(item.iterchildren("a"), None)
            words = squash(text_of(link)) if link is not None else ""
            if words:
                depth = sum(tag_of(above) in ("ol", "ul") for above in item.iterancestors()) - 1
                entries.append((depth, words))
        if len({depth for depth, _ in entries}) > 1:
            lists.append(entries)
    return lists


def _levels_from_nested_contents(root: etree._Element, document: Document) -> None:
    """Where the page's own nested contents (a sidebar listing pages, their sections under them)
    answers its headings in order, its outermost entries are the chapters, under the entries'
    words ("1. Getting Started"), and every other heading a section inside them. An entry alone
    between two answering pairs answers the one heading set highest between them ("5. Streams"
    and "The Stream Trait", its page's heading). Aligned by difflib on the titles' letters."""
    blocks = document.blocks
    headings = [n for n, b in enumerate(blocks) if b.heading and not b.boilerplate]
    for entries in _nested_contents(root):
        keys = [title_key(_ENTRY_NUMBER.sub("", words)) for _, words in entries]
        matcher = SequenceMatcher(None, keys, [title_key(blocks[n].text) for n in headings], autojunk=False)
        pairs: dict[int, int] = {}  # heading block -> entry
        for kind, e1, e2, h1, h2 in matcher.get_opcodes():
            if kind == "equal":
                pairs |= {headings[h]: e for h, e in zip(range(h1, h2), range(e1, e2), strict=True)}
            elif kind == "replace" and e2 - e1 == 1:
                # One entry between answering pairs: its page's heading is the one set highest there.
                levels = [blocks[headings[h]].heading for h in range(h1, h2)]
                if levels.count(min(levels)) == 1:
                    pairs[headings[h1 + levels.index(min(levels))]] = e1
        outer = [e for e in pairs.values() if entries[e][0] == 0]
        if len(outer) < CONTENTS_LINKS or len(outer) == len(pairs):
            continue
        deepest = max(depth for depth, _ in entries)
        first = min(pairs)
        for n in headings:
            if n in pairs:
                depth, words = entries[pairs[n]]
                text = words if depth == 0 else blocks[n].text
                blocks[n] = replace(blocks[n], text=text, heading=min(depth + 1, 6))
            elif n > first:
                blocks[n] = replace(blocks[n], heading=min(deepest + 2, 6))
        return


#: A paragraph a contents links to is a heading set as text when it is no longer than this.
LINKED_TITLE_CHARS = 120


def _linked_titles_as_headings(root: etree._Element, document: Document) -> None:
    """Paragraphs that a contents of three links or more leads to, each saying its link's words
    ("1 skyrius - Sąvokų apibrėžimai." in bold, linked from the page's menu), are the headings
    the page set as text: each becomes a heading one level under the heading above it."""
    blocks = document.blocks
    targets: dict[etree._Element, list[int]] = {}
    for link in root.iter("a"):
        href = link.get("href", "")
        index = document.anchors.get(href[1:]) if href.startswith("#") else None
        if index is None or index >= len(blocks) or blocks[index].heading:
            continue
        said = blocks[index].text
        if len(said) <= LINKED_TITLE_CHARS and title_key(said) == title_key(text_of(link)) != "":
            targets.setdefault(_holder(link), []).append(index)
    listed = [indexes for indexes in targets.values() if len(set(indexes)) >= CONTENTS_LINKS]
    titles = sorted({n for indexes in listed for n in indexes})
    levels = [next((b.heading for b in reversed(blocks[:n]) if b.heading), 0) for n in titles]
    for index, above in zip(titles, levels, strict=True):
        blocks[index] = replace(blocks[index], heading=min(above + 1, 6))


def _holder(link: etree._Element) -> etree._Element:
    """The block a link stands in: its paragraph, or the list or table its item or cell is in."""
    holder = link
    while (parent := holder.getparent()) is not None and (
        tag_of(holder) not in BLOCK_TAGS or tag_of(holder) in _ENTRY_TAGS
    ):
        holder = parent
    return holder


def _names_something(words: str) -> bool:
    """Words that name a chapter: letters, not a number or a page ("5", "37-51", "Page 12")."""
    key = title_key(words)
    letters = any(ch.isalpha() for ch in words)
    return letters and len(key) > 2 and bare_number(words) is None and not key.startswith("page")


def _titled_by_contents(document: Document, linked: dict[int, str]) -> None:
    """A numbered heading the contents names otherwise takes the contents' words after its own:
    "1. First Day" listed as '"Thy Holy Child Jesus"', "CHAPTER I" as "The Period" (the title a
    reader of the contents knows the chapter by). A heading with no number is its own name: a
    contents in other words (or left untranslated) does not rename it."""
    for index, words in linked.items():
        heading = document.blocks[index]
        numbered = any(
            found(heading.text) is not None for found in (chapter_line, numbered_title, bare_number)
        )
        if numbered and _names_something(words) and title_key(words) not in title_key(heading.text):
            document.blocks[index] = replace(heading, text=f"{heading.text.rstrip('.')}. {words}")


def _mark_unlisted_end(document: Document, linked: dict[int, str]) -> None:
    """Mark what follows the last chapter the page's own contents links to, from the next heading
    as high on: the publisher's advertisements bound in after the book, which no contents lists."""
    if not linked:
        return
    blocks = document.blocks
    last = max(linked)
    level = blocks[last].heading
    rest = range(last + 1, len(blocks))
    after = next((n for n in rest if 0 < blocks[n].heading <= level and not blocks[n].boilerplate), None)
    if after is None:
        return
    # Up to the producer's licence, which has rules of its own.
    end = next(
        (n for n in range(after, len(blocks)) if blocks[n].boilerplate or PG_END.search(blocks[n].text)),
        len(blocks),
    )
    tail = range(after, end)
    said = sum(len(b.text) for b in blocks[:end] if not b.boilerplate)
    if sum(len(blocks[n].text) for n in tail) > UNLISTED_SHARE * said:
        return
    for n in tail:
        blocks[n] = replace(blocks[n], types=blocks[n].types | {UNLISTED})


def _stated_authors(root: etree._Element) -> tuple[str, ...]:
    """The authors a <meta name="author"> names, as it writes them ("Scott Chacon, Ben Straub": a
    comma may part two names or invert one, so the line is not split), or none."""
    for meta in root.iter():
        name = (meta.get("name") or "").lower()
        if tag_of(meta) == "meta" and name in ("author", "dc.creator", "dcterms.creator"):
            content = squash(meta.get("content") or "")
            return (content,) if content else ()
    return ()


def _stated_language(root: etree._Element) -> str:
    """The language the root element states (lang, or xml:lang in XHTML, as the XML parser or the
    forgiving HTML one reads it), or ""."""
    for name in ("lang", "{http://www.w3.org/XML/1998/namespace}lang", "xml:lang"):
        if tag := well_formed_tag(root.get(name) or ""):
            return tag
    return ""
