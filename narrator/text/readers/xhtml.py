"""(X)HTML to paragraphs, shared by the EPUB and HTML readers.

A document becomes a flat list of blocks (paragraphs, headings, scene breaks) with the position of
every id in it, so that a table of contents can cut one document into several chapters. Verse keeps
its lines ("\\n" between them) inside poem-like containers; footnote markers, images, scripts and
styles say nothing. Project Gutenberg's header and licence are marked, so the chapters made of them
are classified as front or back matter and stripped from chapters they share with the story.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from html.entities import name2codepoint
from typing import NamedTuple, TypedDict

import lxml.html
from lxml import etree

from narrator.text.readers.apparatus import is_corrections_table
from narrator.text.readers.decode import SCENE_BREAK, clean_text, squash
from narrator.text.readers.prose import is_prose
from narrator.text.readers.titles import chapter_line, title_key

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
# Stands for a <br/> that parts paragraphs, in a page that sets its lines with <br/> and no <p>.
_BREAK = "\ue003"
# Stands for a <br/> in prose: a space, unless the next comes before any text (an empty line).
_SOFT = "\ue004"
_PARAGRAPH_TAGS = frozenset({"p", "blockquote", "li", "dd", "dt", "td", "th", "pre"})
# Class names and epub:type values of verse: "poem", "stanza", Standard Ebooks' "z3998:verse".
_POEM_TOKEN = re.compile(
    r"(^|[-_:])(poem|poems|poetry|verse|verses|stanza|stanzas|lyrics?|song|hymn|lg)($|[-_\d])"
)
# Printed line numbers ("lnum", "linenum", "line-number") are for the eye, not the ear.
# A printed page's number, kept by the producer to cite the print edition: never read.
_PAGE_NUMBER_CLASS = re.compile(r"^(pagenum|page-?num(ber)?|pageno|page-?break|pb)$")
# Where a text made from plain text had a picture with no caption: nothing to say.
_BARE_ILLUSTRATION = re.compile(r"\[\s*Illustration\s*\]", re.IGNORECASE)
PAGE_MARKER = re.compile(r"\[\s*(Pg|Page|p\.)\s*[0-9ivxlcdm]+\s*\]", re.IGNORECASE)
_LINE_NUMBER_CLASS = re.compile(r"^(lnum|linenum|line-?num(ber)?|verse-?num(ber)?|stanza-?num(ber)?)$")
# A paragraph of nothing but a number is a stanza or page number.
_NUMBER_ONLY = re.compile(r"^\s*[\[(]?\d{1,4}[.)\]]?\s*$")
_BOILERPLATE_TOKEN = re.compile(r"^(pg-?(header|footer|boilerplate|start-separator|end-separator))$")
_BOILERPLATE_ID = re.compile(r"^(pg-(header|footer)|project-gutenberg-license)")
# A wiki's own interface kept in an export: MediaWiki's message boxes ("This work can be edited
# at ... If you would like to help"), edit links, what its skins never print; calibre numbers
# class names ("mbox-text1").
_INTERFACE_CLASS = re.compile(r"^([a-z]?mbox(-text|-image)?|noprint|ws-noexport|mw-editsection)\d*$")
_CODE_CLASS = re.compile(r"code|program|source|listing|console|shell|screen|syntax|highlight")
#: The type a table of corrections takes, as EPUB's vocabulary names errata.
ERRATA = "errata"
#: ... and a word list's, set in two columns in a plain text (terms and their glosses).
GLOSSARY = "glossary"
#: ... and what follows the last chapter a page's own contents links to (its advertisements).
UNLISTED = "unlisted"
#: ... and a web page's own footer, the role ARIA gives a <footer> outside any article or section.
PAGE_FOOTER = "contentinfo"
# The elements inside which a <footer> is a section's, not the page's.
_SECTIONING = frozenset({"article", "aside", "main", "nav", "section"})
_NOTE_TYPES = frozenset({"footnote", "endnote", "rearnote", "note"})
_NOTE_CLASS = re.compile(r"footnote|noteref|fnref")
_NOTE_MARK = re.compile(r"^\s*(\[\s*\d+\s*\]|\(\s*\d+\s*\)|[*†‡§¶]+)\s*$")
_NO_LETTERS = re.compile(r"^[\W\d_]+$")
# A link's address printed after its text by the producer ("pip [https://pip.pypa.io/]"): the text
# is read, the address is for the eye.
_SHOWN_URL = re.compile(r"\s*[\[(]\s*(https?://|www\.)\S+\s*[\])]\s*", re.IGNORECASE)
# A link to a file that is heard or seen, not read: the music, recordings and scans beside a text.
FILE_LINK = re.compile(
    r"\.(?:midi?|mp3|ogg|oga|wav|flac|m4a|ly|mxl|musicxml|abc|png|jpe?g|gif|svg|tiff?|djvu)(?:[?#].*)?$",
    re.IGNORECASE,
)


class Source(NamedTuple):
    """Where a paragraph stands in a source EPUB: its spine document and the element that holds it
    (lxml's path from the document's root), so the read-along EPUB can wrap its words in place."""

    document: str
    element: str


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
    #: Of those, the characters inside links to files heard or seen (music, recordings, scans).
    file_link_chars: int = 0
    #: The notes and captions ``notes: drop`` left unread in or just after this block: not read,
    #: but shown where they stood in the read-along EPUB.
    notes: tuple[str, ...] = ()
    #: The element the block's text came from (its document named by the EPUB reader).
    source: Source | None = None


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
    #: Titles of the table-of-contents entries above this one, outermost first.
    parents: tuple[str, ...] = ()
    #: Why the reader already knows this is front or back matter (else matter.py judges it).
    skipped_by: str = ""


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


def _is_code(element: etree._Element) -> bool:
    """A <pre> of program code or markup (never read), not of verse."""
    if any(tag_of(node) in ("code", "samp", "kbd") for node in element.iterdescendants()):
        return True
    if any(_CODE_CLASS.search(name) for name in _classes(element)):
        return True
    return bool(re.search(r"<[A-Za-z/!?]|[{};]\s*$|^\s*[$#>] ", text_of(element), re.MULTILINE))


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


def _corrects(table: etree._Element) -> bool:
    rows = [node for node in table.iter() if tag_of(node) == "tr"]
    cells = [[text_of(cell) for cell in row if tag_of(cell) in ("td", "th")] for row in rows]
    return is_corrections_table(cells)


def _is_line(element: etree._Element) -> bool:
    """Inside verse, a block with no blocks or <br/> inside it is one line of a stanza."""
    return not any(tag_of(node) in BLOCK_TAGS or tag_of(node) == "br" for node in element.iterdescendants())


# The classes that hide an element from the page (Bootstrap's, Bulma's, WordPress's, ...).
_HIDDEN_CLASS = re.compile(r"^(is-)?(hidden|invisible|d-none|visually-?hidden|sr-only|screen-reader-text)$")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def _is_hidden(element: etree._Element) -> bool:
    """Not shown on the page it is in: ``hidden``, ``aria-hidden``, a style or class that hides
    it (a site's collapsed panels, a button's words for screen readers). A reader never sees it."""
    return (
        element.get("hidden") is not None
        or element.get("aria-hidden", "").lower() == "true"
        or bool(_HIDDEN_STYLE.search(element.get("style", "")))
        or any(_HIDDEN_CLASS.match(name) for name in _classes(element))
    )


def unspoken(element: etree._Element, drop_notes: bool) -> str:
    """Why the element's text (not its tail) is never read: "note" (a note or caption ``notes:
    drop`` leaves unread), "page" (a printed page's number), "other" (a footnote marker, a line
    number, program code, a shown address, a script...); "" when it is read."""
    tag = tag_of(element)
    if tag in _DROP_TAGS or _is_note_marker(element, tag):
        return "other"
    if any(_LINE_NUMBER_CLASS.match(name) or _INTERFACE_CLASS.match(name) for name in _classes(element)):
        return "other"
    if _is_hidden(element):
        return "other"
    if drop_notes and (tag == "figcaption" or types_of(element) & _NOTE_TYPES):
        return "note"
    if tag == "pre" and _is_code(element):
        return "other"
    if tag in ("span", "small") and _SHOWN_URL.fullmatch(text_of(element)):
        return "other"
    if (
        {"pagebreak", "doc-pagebreak"} & types_of(element)
        or any(_PAGE_NUMBER_CLASS.match(name) for name in _classes(element))
        or (tag in ("span", "a") and PAGE_MARKER.fullmatch(text_of(element).strip()))
    ):
        return "page"
    return ""


@dataclass(frozen=True, slots=True)
class _Context:
    poem: bool = False
    #: Inside <pre>: the line ends in the source are the lines of the text.
    pre: bool = False
    boilerplate: bool = False
    types: frozenset[str] = frozenset()
    heading: int = 0


class _Shared(TypedDict):
    """The fields every block of one flush takes from its context."""

    boilerplate: bool
    types: frozenset[str]
    source: Source | None


#: A form's caption: the words of the panel around it besides the form's own, at most.
PANEL_WORDS = 12


def _interface_panels(body: etree._Element) -> set[etree._Element]:
    """Each form (a site's "tell us what is wrong" box) with the panel around it that only captions
    it: an interface the page kept, never the book."""
    panels = set()
    for form in body.iter("form"):
        panel = form
        while (parent := panel.getparent()) is not None and parent is not body:
            inside = sum(len(text_of(f).split()) for f in parent.iter("form"))
            if len(text_of(parent).split()) - inside > PANEL_WORDS:
                break
            panel = parent
        panels.add(panel)
    return panels


#: Columns that give a page again in another language are alternates on this many pages or more ...
VERSION_PAGES = 3
#: ... where each page's versions are of like length (a translation, not a caption and its text) ...
VERSION_LENGTH_RATIO = 0.5
#: ... and hold prose: this many characters a version at least, all pages together.
VERSION_CHARS = 200
_VERSION_TAGS = frozenset({"div", "section", "article", "p"})


def _alternate_versions(body: etree._Element) -> set[etree._Element]:
    """Columns that set each page of the text again in other languages, shown one at a time by a
    site's language switch (<div class="txt def">, <div class="txt l1">, <div class="txt l2">):
    siblings alike but for one class, in the same order on page after page. The first is the
    page as it opens, the book's own; the others are alternates, never read."""
    pages: dict[tuple[str, frozenset[str], tuple[str, ...]], list[list[etree._Element]]] = {}
    for parent in body.iter():
        alike: dict[tuple[str, frozenset[str]], list[tuple[str, etree._Element]]] = {}
        for child in parent:
            if tag_of(child) in _VERSION_TAGS and len(classes := set(_classes(child))) > 1:
                for token in classes:
                    alike.setdefault((tag_of(child), frozenset(classes - {token})), []).append((token, child))
        for (tag, shared), members in alike.items():
            tokens = tuple(token for token, _ in members)
            if len(members) > 1 and len(set(tokens)) == len(tokens):
                pages.setdefault((tag, shared, tokens), []).append([child for _, child in members])
    alternates: set[etree._Element] = set()
    for (_, _, tokens), found in pages.items():
        lengths = [[len(squash(text_of(version))) for version in page] for page in found]
        if (
            len(found) >= VERSION_PAGES
            and all(min(page) >= VERSION_LENGTH_RATIO * max(page) for page in lengths)
            and min(map(sum, zip(*lengths, strict=True))) >= VERSION_CHARS
        ):
            # The same classes mark the versions elsewhere too: the title's spans in each language.
            alternates.update(e for e in body.iter() if set(_classes(e)) & set(tokens[1:]))
    return alternates


class _Extractor:
    def __init__(self, alt_text: bool, notes: str, panels: set[etree._Element], by_breaks: bool) -> None:
        self.alt_text = alt_text
        #: The page sets its paragraphs apart with <br/> alone: each line is a paragraph.
        self.by_breaks = by_breaks
        self.drop_notes = notes == "drop"
        #: Never walked: forms with the panels captioning them, a page's alternate versions.
        self.panels = panels
        self.blocks: list[Block] = []
        self.anchors: dict[str, int] = {}
        self.buffer: list[str] = []
        self.link_chars = 0
        self.file_link_chars = 0
        self.dropped_notes: list[str] = []
        #: The block elements open around the text being read, innermost last.
        self.open_blocks: list[etree._Element] = []

    def add_text(self, text: str | None, link: str, context: _Context) -> None:
        """Add text; ``link`` is "" outside links, "page" in a link to a page, "file" in one to a file."""
        if not text:
            return
        text = text.replace(_LINE, " ").replace(_BREAK, " ").replace(_SOFT, " ")
        if context.pre and not context.heading:
            text = text.replace("\n", _LINE)
        self.buffer.append(text)
        if link:
            self.link_chars += len(squash(text))
        if link == "file":
            self.file_link_chars += len(squash(text))

    def flush(self, context: _Context) -> None:
        emitted = len(self.blocks)
        self._flush(context)
        if self.dropped_notes and len(self.blocks) > emitted:
            self.attach_notes()

    def attach_notes(self) -> None:
        """The dropped notes go with the last block made: the one they stood in, or the one before
        them (none before them: they wait for the first)."""
        if self.blocks:
            last = self.blocks[-1]
            self.blocks[-1] = replace(last, notes=(*last.notes, *self.dropped_notes))
            self.dropped_notes = []

    def _flush(self, context: _Context) -> None:
        raw, self.buffer = "".join(self.buffer).replace(_SOFT, " "), []
        link_chars, self.link_chars = self.link_chars, 0
        file_link_chars, self.file_link_chars = self.file_link_chars, 0
        raw = _BARE_ILLUSTRATION.sub("", clean_text(raw))
        if not raw.strip():
            return
        where = self.open_blocks[-1] if self.open_blocks else None
        source = Source("", where.getroottree().getpath(where)) if where is not None else None
        common: _Shared = {"boilerplate": context.boilerplate, "types": context.types, "source": source}
        if context.heading:
            said = squash(raw.replace(_LINE, " ").replace(_BREAK, " "))
            self.blocks.append(Block(said, context.heading, **common))
            return
        stanzas: list[list[str]] = [[]]
        for paragraph in raw.split(_BREAK):
            for raw_line in paragraph.split(_LINE):
                line = squash(raw_line)
                if line:
                    stanzas[-1].append(line)
                elif stanzas[-1]:
                    stanzas.append([])
            if stanzas[-1]:
                stanzas.append([])
        stanzas = [stanza for stanza in stanzas if stanza]
        for numbered in stanzas:
            lines = [line for line in numbered if not _NUMBER_ONLY.match(line)]
            if not lines:
                continue
            text = "\n".join(lines)
            if SCENE_BREAK.match(text):
                self.blocks.append(Block(is_break=True, **common))
            else:
                share = min(link_chars, len(text)) if len(stanzas) == 1 else 0
                self.blocks.append(
                    Block(text, link_chars=share, file_link_chars=min(file_link_chars, share), **common)
                )

    def _after_a_soft_break(self) -> bool:
        """Whether the last thing read, spaces aside, is a <br/> in prose. Looked up from the end:
        a paragraph of many lines is not joined again at each of its breaks."""
        last = next((piece for piece in reversed(self.buffer) if piece.strip()), "")
        return last == _SOFT

    def _outside_paragraphs(self) -> bool:
        """Whether the text is in no paragraph, quotation or list item: inside one, an empty line
        parts stanzas or spaces the lines, in a paragraph its writer chose."""
        return not any(tag_of(e) in _PARAGRAPH_TAGS for e in self.open_blocks)

    def anchor(self, element: etree._Element, tag: str) -> None:
        for key in ("id", "name") if tag == "a" else ("id",):
            value = element.get(key)
            if value and value not in self.anchors:
                self.anchors[value] = len(self.blocks)

    def walk(self, element: etree._Element, context: _Context, link: str) -> None:
        """Add one element's text (not its tail) to the blocks."""
        if element in self.panels:
            return
        tag = tag_of(element)
        silent = unspoken(element, self.drop_notes)
        if silent == "note":
            if note := text_of(element):
                self.dropped_notes.append(note)
                if not "".join(self.buffer).replace(_BREAK, "").strip():
                    self.attach_notes()  # between paragraphs: it follows the one before
            return
        if silent == "page":
            # Not read, but the contents may point at it: its anchors stay.
            for node in element.iter():
                self.anchor(node, tag_of(node))
            return
        if silent:
            return
        block = tag in BLOCK_TAGS
        line = block and context.poem and tag not in _HEADINGS and _is_line(element)
        if block and not line:
            self.flush(context)
            self.open_blocks.append(element)
        self.anchor(element, tag)
        if tag == "hr":
            self.blocks.append(Block(is_break=True, boilerplate=context.boilerplate, types=context.types))
            if not line:
                self.open_blocks.pop()
            return
        if tag == "br":
            if context.poem and not context.heading:
                self.buffer.append(_LINE)
            elif self.by_breaks or context.heading:
                self.buffer.append(_BREAK if self.by_breaks else " ")
            elif self._after_a_soft_break() and self._outside_paragraphs():
                # An empty line between two <br/>, in no paragraph: an old page's way to part them.
                self.flush(context)
            else:
                self.buffer.append(_SOFT)
            return
        if tag == "img":
            # In a heading a picture is the title set as an image: its alt text is the title.
            if (self.alt_text or context.heading) and element.get("alt", "").strip():
                self.buffer.append(f" {element.get('alt')} ")
            return
        inner = context
        if block or tag == "span":
            extra = types_of(element)
            if tag == "table" and _corrects(element):
                extra.add(ERRATA)
            if tag == "footer" and not any(tag_of(above) in _SECTIONING for above in element.iterancestors()):
                extra.add(PAGE_FOOTER)
            inner = _Context(
                poem=context.poem or _is_poem(element),
                pre=context.pre or tag == "pre",
                boilerplate=context.boilerplate or _is_boilerplate(element),
                types=context.types | extra if extra else context.types,
                heading=_HEADINGS.get(tag, context.heading),
            )
        if not link and tag == "a" and (href := element.get("href", "").strip()):
            link = "file" if FILE_LINK.search(href) else "page"
        self.add_text(element.text, link, inner)
        for child in element:
            if isinstance(child, etree._Entity):
                self.add_text(_entity_text(child), link, inner)
            elif tag_of(child):
                self.walk(child, inner, link)
            self.add_text(child.tail, link, inner)
        if tag in ("td", "th"):
            self.buffer.append(" ")
        if line:
            self.buffer.append(_LINE)
        elif block:
            self.flush(inner)
            self.open_blocks.pop()


#: A page of this many line breaks at least ...
BREAKS_SET_PARAGRAPHS = 30
#: ... this many for each paragraph element at least ...
BREAKS_A_PARAGRAPH = 10
#: ... and this many characters of text a line on average (prose, not verse) sets its paragraphs
#: with <br/>.
PROSE_LINE_CHARS = 100


def _set_by_breaks(body: etree._Element) -> bool:
    """Whether the page sets its prose line by line with <br/>, with (almost) no <p>: an export
    of a law, a typed letter. Each of its lines is then a paragraph, as on the screen; a page of
    verse set so keeps its lines in one block."""
    tags = Counter(tag_of(e) for e in body.iter())
    breaks = tags["br"]
    return (
        breaks >= BREAKS_SET_PARAGRAPHS
        and breaks >= BREAKS_A_PARAGRAPH * tags["p"]
        and len(squash(text_of(body))) >= PROSE_LINE_CHARS * breaks
    )


def _is_prose(heading: str) -> bool:
    """Prose, not a title: a chapter's title of a sentence's length is numbered ("CHAPTER 13. SOME
    INSTANCES …") or set in capitals."""
    return is_prose(heading) and not heading.isupper() and not chapter_line(heading)


def _prose_in_headings(blocks: list[Block]) -> list[Block]:
    """A heading level that holds prose half the time or more sets the text large (a picture
    book's pages, each in an <h3>): its blocks are paragraphs, the short pages too."""
    levels = Counter(b.heading for b in blocks if b.heading)
    prose = Counter(b.heading for b in blocks if b.heading and _is_prose(b.text))
    text_levels = {level for level, count in prose.items() if 2 * count >= levels[level]}
    return [replace(b, heading=0) if b.heading in text_levels else b for b in blocks]


def extract(root: etree._Element, alt_text: bool = False, notes: str = "drop") -> Document:
    """Blocks and anchors of a parsed (X)HTML document; image alt text only when alt_text is set.

    Footnotes, endnotes and figure captions are read where they stand when ``notes`` is "read".
    """
    title = ""
    for element in root.iter():
        if tag_of(element) == "title":
            title = text_of(element)
            break
    body = next((e for e in root.iter() if tag_of(e) == "body"), root)
    extractor = _Extractor(
        alt_text, notes, _interface_panels(body) | _alternate_versions(body), _set_by_breaks(body)
    )
    extractor.walk(body, _Context(), link="")
    extractor.flush(_Context())
    extractor.attach_notes()  # notes after the last paragraph (endnotes) go with it
    return Document(_prose_in_headings(extractor.blocks), extractor.anchors, title)


# --- chapter titles ---------------------------------------------------------------------------


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
        wanted = title_key(toc_title)
        for count in range(1, len(leading) + 1):
            joined = " ".join(b.text for b in leading[:count])
            if title_key(joined) == wanted:
                return toc_title, blocks[start + count :]
        return toc_title, blocks
    if not leading:
        return "", blocks
    count = 1
    heading = chapter_line(leading[0].text)
    if heading and not heading.group(4) and len(leading) > 1 and len(leading[1].text) <= 80:
        count = 2
    return " ".join(b.text for b in leading[:count]), blocks[start + count :]
