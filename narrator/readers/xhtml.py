"""(X)HTML to paragraphs, shared by the EPUB and HTML readers.

A document becomes a flat list of blocks (paragraphs, headings, scene breaks) with the position of
every id in it, so that a table of contents can cut one document into several chapters. Verse keeps
its lines ("\\n" between them) inside poem-like containers; footnote markers, images, scripts and
styles say nothing. Project Gutenberg's header and licence are marked, so the chapters made of them
are classified as front or back matter and stripped from chapters they share with the story.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from html.entities import name2codepoint

import lxml.html
from lxml import etree

from narrator.book import Chapter
from narrator.readers.decode import clean_text, squash
from narrator.readers.txt import CHAPTER_LINE

_EPUB_TYPE = "{http://www.idpf.org/2007/ops}type"
# Parsers that never fetch anything: no DTD, no external (or internal) entity expansion, no network.
XML_PARSER = etree.XMLParser(
    resolve_entities=False,
    no_network=True,
    load_dtd=False,
    huge_tree=False,
    remove_comments=True,
    remove_pis=True,
)
# libxml2's HTML parser ignores a DOCTYPE's internal subset, so it has no entities to expand at all.
HTML_PARSER = lxml.html.HTMLParser(no_network=True, huge_tree=False, remove_comments=True, remove_pis=True)

_BLOCK_NAMES = """
    address article aside blockquote body caption center dd details dialog dir div dl dt fieldset
    figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html legend li main menu nav ol
    p pre section summary table tbody tfoot thead tr ul
"""
BLOCK_TAGS = frozenset(_BLOCK_NAMES.split())
_DROP_NAMES = """
    head title script style template noscript svg object embed iframe audio video canvas map button
    input select textarea rt rp meta link
"""
_DROP_TAGS = frozenset(_DROP_NAMES.split())
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
# Stands for a line break inside verse while the text is assembled; never in real text.
_LINE = "\ue000"
_POEM_TOKEN = re.compile(r"(^|[-_])(poem|poems|poetry|verse|verses|stanza|stanzas|lyrics?|song|lg)($|[-_\d])")
_BOILERPLATE_TOKEN = re.compile(r"^(pg-?(header|footer|boilerplate|start-separator|end-separator))$")
_BOILERPLATE_ID = re.compile(r"^(pg-(header|footer)|project-gutenberg-license)")
_NOTE_CLASS = re.compile(r"footnote|noteref|fnref")
_NOTE_MARK = re.compile(r"^\s*(\[\s*\d+\s*\]|\(\s*\d+\s*\)|[*†‡§¶]+)\s*$")
_NO_LETTERS = re.compile(r"^[\W\d_]+$")
# A paragraph of nothing but asterisks and the like is a scene break.
_SCENE_BREAK = re.compile(r"^[\s*#~•·⁂✻✽✶❦\-]+$")


@dataclass(slots=True)
class Block:
    """One paragraph (or heading, or scene break) of a document, with what we know about it."""

    text: str = ""
    #: 1-6 for a heading, 0 otherwise.
    heading: int = 0
    #: A scene break (<hr/> or a row of asterisks); has no text.
    is_break: bool = False
    #: Inside Project Gutenberg's header or footer (by id/class), or before/after its markers.
    boilerplate: bool = False
    #: epub:type and role tokens of the block and its ancestors ("toc", "titlepage", ...).
    types: frozenset[str] = frozenset()
    #: Characters of the text that are inside links; a contents page is mostly links.
    link_chars: int = 0


@dataclass(slots=True)
class Document:
    blocks: list[Block]
    #: id -> index of the first block at or after the element with that id.
    anchors: dict[str, int]
    #: Text of <title>, if any.
    title: str = ""


@dataclass(slots=True)
class Draft:
    """A chapter before classification: its title and blocks."""

    title: str
    blocks: list[Block] = field(default_factory=list)


def parse_xhtml(data: bytes) -> etree._Element:
    """Parse XHTML bytes with the hardened parser; raises etree.XMLSyntaxError when malformed.

    HTML's named entities (&nbsp;, &mdash;, ...) need a DTD that is never loaded; they are turned
    into character references first, so that documents using them still parse.
    """

    def numeric(match: re.Match[bytes]) -> bytes:
        name = match.group(1).decode("ascii")
        if name in ("amp", "lt", "gt", "quot", "apos") or name not in name2codepoint:
            return match.group(0)
        return b"&#%d;" % name2codepoint[name]

    data = re.sub(rb"&([A-Za-z][A-Za-z0-9]{1,31});", numeric, data)
    root = etree.fromstring(data, XML_PARSER)
    if root is None:
        raise etree.XMLSyntaxError("empty document", None, 0, 0)
    return root


def parse_html(text: str) -> etree._Element | None:
    """Parse tag-soup HTML from text; None when there is nothing to parse."""
    # lxml refuses text that still declares its encoding; the text is decoded already.
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
    if not text.strip():
        return None
    return etree.fromstring(text, HTML_PARSER)


def tag_of(node: object) -> str:
    """Lower-case local name of an element; "" for comments, entities and the like."""
    tag = getattr(node, "tag", None)
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].lower()


def types_of(element: etree._Element) -> set[str]:
    """epub:type and ARIA role tokens ("doc-toc" counts as "toc")."""
    raw = f"{element.get(_EPUB_TYPE, '')} {element.get('epub:type', '')} {element.get('role', '')}"
    return {token.removeprefix("doc-") for token in raw.lower().split()}


def _entity_text(node: etree._Entity) -> str:
    """An entity left unexpanded: an HTML named entity becomes its character; anything else, nothing."""
    code = name2codepoint.get(node.name)
    return chr(code) if code else ""


def text_of(element: etree._Element) -> str:
    """All the text inside an element, squashed, with unexpanded entities handled safely."""
    parts: list[str] = []

    def walk(node: etree._Element) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            if isinstance(child, etree._Entity):
                parts.append(_entity_text(child))
            elif tag_of(child) not in ("script", "style"):
                walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(element)
    return squash(clean_text("".join(parts)))


def _classes(element: etree._Element) -> list[str]:
    return element.get("class", "").lower().split()


def _is_poem(element: etree._Element) -> bool:
    tokens = [*_classes(element), *types_of(element)]
    return tag_of(element) == "pre" or any(_POEM_TOKEN.search(token) for token in tokens)


def _is_boilerplate(element: etree._Element) -> bool:
    if _BOILERPLATE_ID.match(element.get("id", "").lower()):
        return True
    return any(_BOILERPLATE_TOKEN.match(token) for token in _classes(element))


def _is_note_marker(element: etree._Element, tag: str) -> bool:
    """A footnote reference: it points at a note and says nothing worth hearing."""
    if tag == "a":
        if types_of(element) & {"noteref", "footnote", "endnote"}:
            return True
        if _NOTE_CLASS.search(element.get("class", "").lower()):
            return True
        return bool(element.get("href")) and bool(_NOTE_MARK.match(text_of(element)))
    if tag == "sup":
        text = text_of(element)
        return bool(text) and bool(_NO_LETTERS.match(text))
    return False


def _is_line(element: etree._Element) -> bool:
    """Inside verse, a block with no blocks or <br/> inside it is one line of a stanza."""
    return not any(tag_of(node) in BLOCK_TAGS or tag_of(node) == "br" for node in element.iterdescendants())


@dataclass(frozen=True, slots=True)
class _Context:
    poem: bool = False
    #: Inside <pre>: the line ends in the source are the lines of the text.
    pre: bool = False
    boilerplate: bool = False
    types: frozenset[str] = frozenset()
    heading: int = 0


class _Extractor:
    def __init__(self, alt_text: bool) -> None:
        self.alt_text = alt_text
        self.blocks: list[Block] = []
        self.anchors: dict[str, int] = {}
        self.buffer: list[str] = []
        self.link_chars = 0

    def add_text(self, text: str | None, in_link: bool, context: _Context) -> None:
        if not text:
            return
        text = text.replace(_LINE, " ")
        if context.pre and not context.heading:
            text = text.replace("\n", _LINE)
        self.buffer.append(text)
        if in_link:
            self.link_chars += len(squash(text))

    def flush(self, context: _Context) -> None:
        raw, self.buffer = "".join(self.buffer), []
        link_chars, self.link_chars = self.link_chars, 0
        raw = clean_text(raw)
        if not raw.strip():
            return
        common = {"boilerplate": context.boilerplate, "types": context.types}
        if context.heading:
            self.blocks.append(Block(squash(raw.replace(_LINE, " ")), context.heading, **common))
            return
        stanzas: list[list[str]] = [[]]
        for raw_line in raw.split(_LINE):
            line = squash(raw_line)
            if line:
                stanzas[-1].append(line)
            elif stanzas[-1]:
                stanzas.append([])
        for lines in stanzas:
            if not lines:
                continue
            text = "\n".join(lines)
            if _SCENE_BREAK.match(text):
                self.blocks.append(Block(is_break=True, **common))
            else:
                share = min(link_chars, len(text)) if len(stanzas) == 1 else 0
                self.blocks.append(Block(text, link_chars=share, **common))

    def anchor(self, element: etree._Element, tag: str) -> None:
        for key in ("id", "name") if tag == "a" else ("id",):
            value = element.get(key)
            if value and value not in self.anchors:
                self.anchors[value] = len(self.blocks)

    def walk(self, element: etree._Element, context: _Context, in_link: bool) -> None:
        """Add one element's text (not its tail) to the blocks."""
        tag = tag_of(element)
        if tag in _DROP_TAGS or _is_note_marker(element, tag):
            return
        if "pagebreak" in types_of(element):
            return
        block = tag in BLOCK_TAGS
        line = block and context.poem and tag not in _HEADINGS and _is_line(element)
        if block and not line:
            self.flush(context)
        self.anchor(element, tag)
        if tag == "hr":
            self.blocks.append(Block(is_break=True, boilerplate=context.boilerplate, types=context.types))
            return
        if tag == "br":
            self.buffer.append(_LINE if context.poem and not context.heading else " ")
            return
        if tag == "img":
            if self.alt_text and element.get("alt", "").strip():
                self.buffer.append(f" {element.get('alt')} ")
            return
        inner = context
        if block or tag == "span":
            extra = types_of(element)
            inner = _Context(
                poem=context.poem or _is_poem(element),
                pre=context.pre or tag == "pre",
                boilerplate=context.boilerplate or _is_boilerplate(element),
                types=context.types | extra if extra else context.types,
                heading=_HEADINGS.get(tag, context.heading),
            )
        in_link = in_link or (tag == "a" and bool(element.get("href")))
        self.add_text(element.text, in_link, inner)
        for child in element:
            if isinstance(child, etree._Entity):
                self.add_text(_entity_text(child), in_link, inner)
            elif tag_of(child):
                self.walk(child, inner, in_link)
            self.add_text(child.tail, in_link, inner)
        if tag in ("td", "th"):
            self.buffer.append(" ")
        if line:
            self.buffer.append(_LINE)
        elif block:
            self.flush(inner)


def extract(root: etree._Element, alt_text: bool = False) -> Document:
    """Blocks and anchors of a parsed (X)HTML document; image alt text only when alt_text is set."""
    title = ""
    for element in root.iter():
        if tag_of(element) == "title":
            title = text_of(element)
            break
    body = next((e for e in root.iter() if tag_of(e) == "body"), root)
    extractor = _Extractor(alt_text)
    extractor.walk(body, _Context(), in_link=False)
    extractor.flush(_Context())
    return Document(extractor.blocks, extractor.anchors, title)


# --- chapter titles ---------------------------------------------------------------------------


def normalize_title(text: str) -> str:
    """Compare titles by their letters and digits only: "CHAPTER I. Down" == "Chapter I: down"."""
    text = unicodedata.normalize("NFKD", text).casefold()
    return "".join(c for c in text if c.isalnum())


def take_title(blocks: list[Block], toc_title: str | None) -> tuple[str, list[Block]]:
    """The chapter's title, and its blocks without the heading that gave it.

    With a title from the table of contents, the leading heading(s) are dropped only when they say
    the same (one heading, or "CHAPTER I." + "Down the Rabbit-Hole"). With none, the first heading
    is the title (joined with the next one when it is only "Chapter N").
    """
    start = 0
    while start < len(blocks) and blocks[start].is_break:
        start += 1
    leading = []
    for block in blocks[start : start + 3]:
        if not block.heading:
            break
        leading.append(block)
    if toc_title:
        wanted = normalize_title(toc_title)
        for count in range(1, len(leading) + 1):
            joined = " ".join(b.text for b in leading[:count])
            if normalize_title(joined) == wanted:
                return toc_title, blocks[start + count :]
        return toc_title, blocks
    if not leading:
        return "", blocks
    count = 1
    heading = CHAPTER_LINE.match(leading[0].text)
    if heading and not heading.group(4) and len(leading) > 1 and len(leading[1].text) <= 80:
        count = 2
    return " ".join(b.text for b in leading[:count]), blocks[start + count :]


# --- front and back matter --------------------------------------------------------------------

_PG_START = re.compile(r"\*{3}\s*START OF (THE|THIS) PROJECT GUTENBERG E-?(BOOK|TEXT)", re.IGNORECASE)
_PG_END = re.compile(
    r"\*{3}\s*END OF (THE|THIS) PROJECT GUTENBERG E-?(BOOK|TEXT)"
    r"|^END OF (THE )?PROJECT GUTENBERG('?S)?\b"
    r"|^(THE )?FULL PROJECT GUTENBERG LICEN[CS]E\b"
    r"|^START: FULL LICEN[CS]E\b",
    re.IGNORECASE,
)
_CONTENTS_TITLE = re.compile(r"^(table of )?contents?$|^toc$", re.IGNORECASE)
_ALSO_BY = re.compile(
    r"^(also by|by the same author|other (books|titles|works) by|books by|more (books )?by|also available)",
    re.IGNORECASE,
)
_MATTER_TITLE = re.compile(
    r"^(colophon|copyright( page| notice)?|imprint|legal notice|cover( page)?|title ?page|half ?title"
    r"|about this e-?book|transcriber'?s notes?)$",
    re.IGNORECASE,
)
_MATTER_TYPE_NAMES = """
    cover titlepage halftitlepage copyright-page colophon imprint toc landmarks page-list loi lot
    index seriespage other-credits
"""
_MATTER_TYPES = frozenset(_MATTER_TYPE_NAMES.split())
_SENTENCE_END = re.compile("[.!?\u2026][\"'\u201d\u2019)\\]]*$")
_COPYRIGHT = re.compile(r"©|\bcopyright\b", re.IGNORECASE)
_COPYRIGHT_DETAIL = re.compile(r"all rights reserved|\bISBN\b|published by|first published", re.IGNORECASE)


def mark_gutenberg(drafts: list[Draft]) -> None:
    """Everything up to Gutenberg's START line, and from its END line or licence on, is boilerplate."""
    stream = [(d, i) for d in drafts for i in range(-1, len(d.blocks))]  # -1: the chapter title

    def text(item: tuple[Draft, int]) -> str:
        draft, index = item
        return draft.title if index < 0 else draft.blocks[index].text

    start = next((n for n, item in enumerate(stream) if _PG_START.search(text(item))), None)
    end = next(
        (n for n, item in enumerate(stream) if (start is None or n > start) and _PG_END.search(text(item))),
        None,
    )
    for n, (draft, index) in enumerate(stream):
        if index >= 0 and ((start is not None and n <= start) or (end is not None and n >= end)):
            draft.blocks[index] = replace(draft.blocks[index], boilerplate=True)


def _words(blocks: Iterable[Block]) -> int:
    return sum(len(b.text.split()) for b in blocks)


def is_matter(draft: Draft) -> bool:
    """Front or back matter wherever it stands: licence, contents, adverts, colophon."""
    texts = [b for b in draft.blocks if not b.is_break]
    if texts and all(b.boilerplate for b in texts):
        return True
    title = draft.title.strip()
    first = texts[0].text if texts else ""
    if _CONTENTS_TITLE.match(title) or _MATTER_TITLE.match(title):
        return True
    if _ALSO_BY.match(title) or (not title and _ALSO_BY.match(first)):
        return True
    if texts and sum(1 for b in texts if _MATTER_TYPES & b.types) * 2 >= len(texts):
        return True
    chars = sum(len(b.text) for b in texts)
    linked = [b for b in texts if b.link_chars]
    if len(linked) >= 3 and sum(b.link_chars for b in texts) >= 0.6 * chars:
        return True
    joined = " ".join(b.text for b in texts)
    return _words(texts) <= 250 and bool(_COPYRIGHT.search(joined)) and bool(_COPYRIGHT_DETAIL.search(joined))


def _is_title_page(draft: Draft, book_title: str) -> bool:
    """A cover or title page: named for the book (or not at all), a few words and no sentences."""
    title = normalize_title(draft.title)
    if title not in ("", normalize_title(book_title), "cover", "titlepage", "title"):
        return False
    texts = [b.text for b in draft.blocks if b.text and not b.boilerplate]
    sentences = [t for t in texts if len(t.split()) >= 4 and _SENTENCE_END.search(t)]
    return _words(b for b in draft.blocks if not b.boilerplate) <= 60 and not sentences


def _chapter(draft: Draft, kind: str) -> Chapter:
    blocks = draft.blocks
    # Boilerplate goes from a chapter it shares with other text; a chapter of nothing else keeps it.
    if any(b.text and not b.boilerplate for b in blocks):
        blocks = [b for b in blocks if not b.boilerplate]
    paragraphs: list[str] = []
    section_ends: set[int] = set()
    for block in blocks:
        if block.is_break:
            if paragraphs:
                section_ends.add(len(paragraphs) - 1)
        elif block.text:
            paragraphs.append(block.text)
    section_ends.discard(len(paragraphs) - 1)
    return Chapter(draft.title, tuple(paragraphs), frozenset(section_ends), kind)


def build_chapters(drafts: list[Draft], book_title: str) -> tuple[Chapter, ...]:
    """Classify drafts as body, front or back matter, strip boilerplate from the body, make Chapters."""
    mark_gutenberg(drafts)
    has_text = [any(b.text for b in d.blocks) for d in drafts]
    matter = [is_matter(d) if text else True for d, text in zip(drafts, has_text, strict=True)]
    # Before the first real chapter, a cover or title page is front matter too.
    for n, draft in enumerate(drafts):
        if not matter[n] and any(not m for m in matter[n + 1 :]) and _is_title_page(draft, book_title):
            matter[n] = True
        elif not matter[n]:
            break
    body = [n for n, m in enumerate(matter) if not m]
    first, last = (body[0], body[-1]) if body else (len(drafts), len(drafts))
    chapters = []
    for n, draft in enumerate(drafts):
        if not matter[n] or (not has_text[n] and first < n < last):
            kind = "body"
        else:
            kind = "front" if n < first else "back"
        chapters.append(_chapter(draft, kind))
    return tuple(chapters)
