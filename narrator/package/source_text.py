"""The book's own text in the read-along EPUB: each segment's words wrapped in place, in the source
EPUB's documents, as EPUB 3 XHTML.

The plan records where each paragraph stands (its spine document and element, book.json's
``sources``). A segment's text is the book's words, but cleaned for reading, so it is found in its
paragraph's element by its letters and digits alone, in order: punctuation, quotes, spacing and
the markup around them may differ, and what the reader never reads (a page number, a note marker)
is no part of the text searched. Each segment's range is then wrapped in one element with its id,
splitting the inline elements (``<i>``, ``<a>``) it starts or ends inside, so that the element holds
exactly that segment's words. A chapter whose segments are not all found, or that shares its
document with another chapter or spreads over several, is not wrapped: the read-along EPUB shows
it as a generated document instead.
"""

from __future__ import annotations

import posixpath
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from urllib.parse import quote, unquote, urlsplit

from lxml import etree

from narrator.text.readers.epub import SourcePackage
from narrator.text.readers.xhtml import BLOCK_TAGS, tag_of, unspoken

XHTML = "http://www.w3.org/1999/xhtml"
OPS = "http://www.idpf.org/2007/ops"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
#: Elements HTML never lets hold anything: nothing is split at them.
_VOID = frozenset(
    ("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr")
)
#: What may open a segment before its first letter (an opening quote or bracket).
_OPENING = frozenset("\"'¿¡«\u2039")


@cache
def _char_key(char: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKC", char).casefold() if c.isalnum())


def word_key(text: str) -> str:
    """The letters and digits of ``text``, case-folded: what a segment and its source share."""
    return "".join(_char_key(char) for char in text)


#: A place in a document's text: the element, whether in its tail (else its text), the offset.
_Point = tuple[etree._Element, bool, int]


@dataclass
class TextMap:
    """A document's read text as its word key, each key character's place in the tree, and each
    element's range of the key."""

    key: str = ""
    places: list[_Point] = field(default_factory=list)
    ranges: dict[etree._Element, tuple[int, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, root: etree._Element) -> TextMap:
        body = next((e for e in root.iter() if tag_of(e) == "body"), root)
        keys: list[str] = []
        mapped = cls()

        def add(element: etree._Element, tail: bool, text: str | None) -> None:
            for offset, char in enumerate(text or ""):
                for letter in _char_key(char):
                    keys.append(letter)
                    mapped.places.append((element, tail, offset))

        def walk(element: etree._Element) -> None:
            start = len(keys)
            # A note is not read whatever ``notes`` says: a note read is its own paragraph.
            if not unspoken(element, drop_notes=True):
                add(element, False, element.text)
                for child in element:
                    if isinstance(child.tag, str):
                        walk(child)
                    add(child, True, child.tail)
            mapped.ranges[element] = (start, len(keys))

        walk(body)
        mapped.key = "".join(keys)
        return mapped


def locate(
    mapped: TextMap, root: etree._Element, texts: Sequence[str], elements: Sequence[str | None]
) -> list[tuple[int, int] | None]:
    """Each text's range of the key, in order, inside its element (by path; None: anywhere after
    the one before and before the next one's element); None where it is not there."""
    known: list[tuple[int, int] | None] = []
    for path in elements:
        found = root.xpath(path) if path else []
        element = found[0] if found and isinstance(found[0], etree._Element) else None
        known.append(mapped.ranges.get(element) if element is not None else None)
    ranges: list[tuple[int, int] | None] = []
    cursor = 0
    for index, text in enumerate(texts):
        key = word_key(text)
        bound = known[index]
        if bound is None:
            later = (found for found in known[index + 1 :] if found is not None)
            bound = (cursor, next(later, (len(mapped.key), 0))[0])
        start = mapped.key.find(key, max(cursor, bound[0]), bound[1]) if key else -1
        if start < 0:
            ranges.append(None)
            continue
        ranges.append((start, start + len(key)))
        cursor = start + len(key)
    return ranges


def _slot(element: etree._Element, tail: bool) -> str:
    return (element.tail if tail else element.text) or ""


def _set_slot(element: etree._Element, tail: bool, value: str) -> None:
    if tail:
        element.tail = value or None
    else:
        element.text = value or None


def _marker(point: _Point) -> etree._Element:
    """An empty element inserted at the point, the text after it its tail."""
    element, tail, offset = point
    text = _slot(element, tail)
    marker = etree.Element("marker")
    _set_slot(element, tail, text[:offset])
    marker.tail = text[offset:] or None
    if tail:
        parent = element.getparent()
        parent.insert(parent.index(element) + 1, marker)
    else:
        element.insert(0, marker)
    return marker


def _empty(element: etree._Element) -> bool:
    return (
        not element.text and len(element) == 0 and tag_of(element) not in _VOID and element.get("id") is None
    )


def _lift(marker: etree._Element, top: etree._Element) -> None:
    """Split every element between the marker and ``top`` at it, so it becomes a child of ``top``."""
    while (parent := marker.getparent()) is not top:
        clone = parent.makeelement(parent.tag, {k: v for k, v in parent.attrib.items() if k != "id"})
        clone.text = marker.tail
        marker.tail = None
        for sibling in list(marker.itersiblings()):
            clone.append(sibling)
        parent.remove(marker)
        grand = parent.getparent()
        clone.tail, parent.tail = parent.tail, None
        at = grand.index(parent)
        grand.insert(at + 1, marker)
        grand.insert(at + 2, clone)
        for piece in (clone, parent):
            if _empty(piece):
                previous = piece.getprevious()
                if previous is not None:
                    previous.tail = (previous.tail or "") + (piece.tail or "") or None
                else:
                    piece.getparent().text = (piece.getparent().text or "") + (piece.tail or "") or None
                grand.remove(piece)


def _wrap(start: etree._Element, end: etree._Element, ident: str) -> etree._Element:
    """Wrap what lies between the two markers in one element with the id; the markers go."""
    ancestors = set(start.iterancestors())
    top = next(node for node in end.iterancestors() if node in ancestors)
    _lift(start, top)
    _lift(end, top)
    inside = list(start.itersiblings())[: top.index(end) - top.index(start) - 1]
    block = any(tag_of(node) in BLOCK_TAGS for node in inside)
    namespace = XHTML if top.tag.startswith(f"{{{XHTML}}}") else None
    name = "div" if block else "span"
    wrapper = etree.Element(f"{{{namespace}}}{name}" if namespace else name, id=ident)
    wrapper.text, start.tail = start.tail, None
    for node in inside:
        wrapper.append(node)
    wrapper.tail, end.tail = end.tail, None
    top.replace(start, wrapper)
    top.remove(end)
    return wrapper


def _opens(char: str) -> bool:
    return char in _OPENING or unicodedata.category(char) in ("Ps", "Pi")


def wrap_segments(mapped: TextMap, ranges: Sequence[tuple[int, int]], ids: Sequence[str]) -> None:
    """Wrap each range in an element with its id: its words, the punctuation after them and an
    opening quote before them. Wrapped last to first, so that each range's places still hold."""
    for (first, last), ident in reversed(list(zip(ranges, ids, strict=True))):
        element, tail, offset = mapped.places[last - 1]
        text = _slot(element, tail)
        end = offset + 1
        while end < len(text) and not text[end].isspace() and not _char_key(text[end]):
            end += 1
        end_marker = _marker((element, tail, end))
        element, tail, offset = mapped.places[first]
        text = _slot(element, tail)
        while offset > 0 and _opens(text[offset - 1]):
            offset -= 1
        _wrap(_marker((element, tail, offset)), end_marker, ident)


# --- the source's documents as EPUB 3 XHTML -----------------------------------------------------

#: HTML 4 attributes HTML5 made obsolete (an EPUBCheck error); their look is the stylesheet's.
_OBSOLETE_ATTRIBUTES = frozenset(
    (
        *("summary", "align", "valign", "bgcolor", "cellpadding", "cellspacing", "frame", "rules"),
        *("char", "charoff", "axis", "nowrap", "clear", "hspace", "vspace", "compact", "noshade"),
        *("language", "charset", "rev", "longdesc", "scheme", "profile", "version"),
    )
)
#: Where width and height still mean something; elsewhere they are HTML 4's.
_SIZED = frozenset(("img", "video", "canvas", "iframe", "embed", "object", "source", "svg", "image"))
#: HTML 4 elements HTML5 dropped, as the element that keeps their text.
_OBSOLETE_ELEMENTS = {
    "center": "div",
    "font": "span",
    "big": "span",
    "tt": "code",
    "strike": "s",
    "acronym": "abbr",
}


def _html5(node: etree._Element, ids: set[str]) -> None:
    """One element as HTML5 has it."""
    local = tag_of(node)
    if local in _OBSOLETE_ELEMENTS and node.tag.startswith(f"{{{XHTML}}}"):
        node.tag = f"{{{XHTML}}}{_OBSOLETE_ELEMENTS[local]}"
    for name in list(node.attrib):
        if name in _OBSOLETE_ATTRIBUTES or (name in ("width", "height", "border") and local not in _SIZED):
            del node.attrib[name]
    if local == "a" and node.get("name") is not None:
        name = node.attrib.pop("name")
        if node.get("id") is None and name not in ids:
            node.set("id", name)
            ids.add(name)


def as_xhtml5(
    root: etree._Element, title: str, stylesheet: str, relink: Callable[[str], str]
) -> tuple[str, set[str]]:
    """The document as EPUB 3 XHTML (the HTML namespace, no DTD, no ``http-equiv``, none of HTML 4's
    obsolete elements and attributes, ``<a name>`` as an id), its links to the source's documents
    passed through ``relink``, linking the highlight's stylesheet; and the manifest properties it needs."""
    html = etree.Element(f"{{{XHTML}}}html", nsmap={None: XHTML, "epub": OPS})
    for name, value in root.attrib.items():
        if name not in _OBSOLETE_ATTRIBUTES:
            html.set(name, value)
    html.text = root.text
    for child in list(root):
        html.append(child)
    ids = {node.get("id") for node in html.iter() if isinstance(node.tag, str)}
    for node in list(html.iter()):
        if not isinstance(node.tag, str):
            continue
        if not node.tag.startswith("{"):
            node.tag = f"{{{XHTML}}}{node.tag}"
        if tag_of(node) == "meta" and node.get("http-equiv") is not None:
            node.getparent().remove(node)
            continue
        _html5(node, ids)
        for name in ("href", "src", _XLINK_HREF):
            if node.get(name):
                node.set(name, relink(node.get(name, "")))
    head = next((e for e in html if tag_of(e) == "head"), None)
    if head is None:
        head = etree.Element(f"{{{XHTML}}}head")
        html.insert(0, head)
    if not any(tag_of(e) == "title" and (e.text or "").strip() for e in head):
        for empty in [e for e in head if tag_of(e) == "title"]:
            head.remove(empty)
        etree.SubElement(head, f"{{{XHTML}}}title").text = title
    etree.SubElement(head, f"{{{XHTML}}}link", rel="stylesheet", type="text/css", href=stylesheet)
    etree.cleanup_namespaces(html)
    local_names = {tag_of(node) for node in html.iter() if isinstance(node.tag, str)}
    properties = {name for name in ("svg", "mathml") if name.replace("mathml", "math") in local_names}
    if "script" in local_names:
        properties.add("scripted")
    body = etree.tostring(html, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n{body}\n', properties


def relinked(member: str, renamed: Mapping[str, str]) -> Callable[[str], str]:
    """How a link in the source document ``member`` reads once the source's documents are renamed
    (``renamed``: old member path to new, in the same folders)."""

    def relink(href: str) -> str:
        try:
            parts = urlsplit(href)
        except ValueError:
            return href
        if parts.scheme or parts.netloc or not parts.path:
            return href
        target = posixpath.normpath(posixpath.join(posixpath.dirname(member), unquote(parts.path)))
        if target not in renamed:
            return href
        moved = quote(relative(renamed[member], renamed[target]))
        return f"{moved}#{parts.fragment}" if parts.fragment else moved

    return relink


def relative(source: str, target: str) -> str:
    """The href from the document ``source`` to ``target`` (both paths in the publication)."""
    return posixpath.relpath(target, posixpath.dirname(source) or ".")


# --- the whole book ---------------------------------------------------------------------------

#: Where the source's files go inside the publication, their own folders kept under it, so that
#: their links to each other hold as they are.
FOLDER = "src"
#: The source's files EPUB 3 reading systems must support (core media types): others are left out.
_CORE_TYPES = frozenset(
    (
        *("image/gif", "image/jpeg", "image/png", "image/svg+xml", "image/webp", "text/css"),
        *(
            "font/ttf",
            "font/otf",
            "font/woff",
            "font/woff2",
            "application/font-sfnt",
            "application/font-woff",
        ),
        *("application/vnd.ms-opentype", "application/x-font-ttf", "application/x-font-truetype"),
        "application/x-font-opentype",
    )
)


@dataclass(frozen=True)
class ChapterText:
    """One chapter of the catalog, as the source text needs it."""

    number: int
    #: Each segment's paragraph (0: the title), text and id.
    paragraphs: tuple[int, ...]
    texts: tuple[str, ...]
    ids: tuple[str, ...]
    #: book.json's sources for the chapter: each paragraph's [document, element] or None.
    sources: tuple[Sequence[str] | None, ...]


@dataclass(frozen=True)
class SourceDocument:
    #: Its path inside the publication's folder.
    path: str
    xhtml: str
    properties: frozenset[str]
    linear: bool
    #: The catalog chapter whose segments it holds; None: shown without audio.
    chapter: int | None


@dataclass
class SourceText:
    documents: list[SourceDocument]
    #: The source's stylesheets, images and fonts: (path inside the publication's folder, media type, bytes).
    files: list[tuple[str, str, bytes]]
    #: Paragraphs of the wrapped chapters' found, and of all chapters with a source.
    found: int = 0
    paragraphs: int = 0
    #: The chapters with a source that are shown generated instead.
    generated: list[int] = field(default_factory=list)

    def chapter_document(self, number: int) -> str | None:
        return next((d.path for d in self.documents if d.chapter == number), None)


def _chapter_ranges(
    chapter: ChapterText, trees: dict[str, etree._Element], maps: dict[str, TextMap]
) -> tuple[str | None, list[tuple[int, int] | None], int]:
    """The document holding the chapter, each segment's range in it, and the paragraphs found."""
    documents = {source[0] for source in chapter.sources if source}
    if len(documents) != 1 or (document := documents.pop()) not in trees:
        return None, [None] * len(chapter.texts), 0
    if document not in maps:
        maps[document] = TextMap.of(trees[document])
    elements = [
        chapter.sources[paragraph - 1][1]
        if 0 < paragraph <= len(chapter.sources) and chapter.sources[paragraph - 1]
        else None
        for paragraph in chapter.paragraphs
    ]
    ranges = locate(maps[document], trees[document], chapter.texts, elements)
    missed = {paragraph for paragraph, found in zip(chapter.paragraphs, ranges, strict=True) if found is None}
    found = len({paragraph for paragraph in chapter.paragraphs if paragraph > 0} - missed)
    return document, ranges, found


def _xhtml_name(member: str) -> str:
    stem = member
    while (split := posixpath.splitext(stem))[1].lower() in (".html", ".htm", ".xhtml", ".xml"):
        stem = split[0]
    return f"{stem}.xhtml"


def source_text(package: SourcePackage, chapters: Sequence[ChapterText], stylesheet: str) -> SourceText:
    """The source's documents with each chapter's segments wrapped in place where every one is
    found, one chapter to a document; and its files. ``stylesheet``: the highlight's, in the
    publication's folder."""
    maps: dict[str, TextMap] = {}
    claimed: dict[str, list[tuple[ChapterText, list[tuple[int, int] | None]]]] = {}
    result = SourceText([], [])
    for chapter in chapters:
        if not chapter.sources:
            continue
        document, ranges, found = _chapter_ranges(chapter, package.trees, maps)
        result.found += found
        result.paragraphs += sum(1 for paragraph in set(chapter.paragraphs) if paragraph > 0)
        if document is not None and all(ranges):
            claimed.setdefault(document, []).append((chapter, ranges))
        else:
            result.generated.append(chapter.number)
    held: dict[str, int] = {}
    for document, found_chapters in claimed.items():
        taken = {node.get("id") for node in package.trees[document].iter() if isinstance(node.tag, str)}
        ours = [ident for chapter, _ in found_chapters for ident in chapter.ids]
        if len(found_chapters) > 1 or taken & set(ours):
            result.generated += [chapter.number for chapter, _ in found_chapters]
            continue
        chapter, ranges = found_chapters[0]
        wrap_segments(maps[document], [found for found in ranges if found], chapter.ids)
        held[document] = chapter.number
    result.generated.sort()
    # EPUB 3 wants content documents named .xhtml: "ch1.htm.html" becomes "ch1.xhtml".
    renamed: dict[str, str] = {}
    for member, _ in package.spine:
        name = _xhtml_name(member)
        while name in renamed.values():  # "a.htm" and "a.html" both there
            name = f"{name.removesuffix('.xhtml')}-.xhtml"
        renamed[member] = name
    for member, linear in package.spine:
        path = f"{FOLDER}/{renamed[member]}"
        title = member.rsplit("/", 1)[-1]
        relink = relinked(member, renamed)
        xhtml, properties = as_xhtml5(package.trees[member], title, relative(path, stylesheet), relink)
        result.documents.append(SourceDocument(path, xhtml, frozenset(properties), linear, held.get(member)))
    result.files = [
        (f"{FOLDER}/{item.path}", item.media_type, item.data)
        for item in package.items
        if item.media_type in _CORE_TYPES
    ]
    return result
