"""The book's own text in the read-along EPUB: each segment's words wrapped in place, in the source
EPUB's documents, as EPUB 3 XHTML.

The plan records where each paragraph stands (its spine document and element, book.json's
``sources``). A segment's text is the book's words, but cleaned for reading, so it is found in its
paragraph's element by its letters and digits alone, in order: punctuation, quotes, spacing and
the markup around them may differ, and what the reader never reads (a page number, a note marker)
is no part of the text searched. Each segment's range is then wrapped in one element with its id,
splitting the inline elements (``<i>``, ``<a>``) it starts or ends inside, so that the element holds
exactly that segment's words; a title narrator made, which the source does not hold, is shown in an
element of its own before the text read after it. A chapter with a segment that is neither, or that
no one element can hold where it stands, is not wrapped: the read-along EPUB shows it as a
generated document instead."""

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
_XML = "http://www.w3.org/XML/1998/namespace"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
#: The prefixes a document read as HTML leaves in attribute names.
_PREFIXES = {"epub": OPS, "xml": _XML, "xlink": "http://www.w3.org/1999/xlink"}
#: Elements HTML never lets hold anything: nothing is split at them.
_VOID = frozenset(
    ("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr")
)
#: What may open a segment before its first letter (an opening quote or bracket).
_OPENING = frozenset("\"'¿¡«\u2039")


@cache
def _char_key(char: str) -> str:
    # Without accents: a title from the contents may drop those its heading has ("ELEVATION").
    return "".join(c for c in unicodedata.normalize("NFKD", char).casefold() if c.isalnum())


def word_key(text: str) -> str:
    """The letters and digits of ``text``, case-folded, without accents: what a segment and its
    source share."""
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
            # Notes stay in: with ``notes: read`` they are segments of their own; with ``drop``
            # they stand between paragraphs, outside every segment.
            if not unspoken(element, drop_notes=False):
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
) -> tuple[list[tuple[int, int] | None], list[etree._Element | None]]:
    """Each text's range of the key, in order, inside its element (by path; None: anywhere after
    the one before and before the next one's element), None where it is not there; and, for a
    text with no element that is not there (a title narrator made), the next text's element, for
    it to be shown before."""
    resolved: list[etree._Element | None] = []
    for path in elements:
        found = root.xpath(path) if path else []
        resolved.append(found[0] if found and isinstance(found[0], etree._Element) else None)
    known = [mapped.ranges.get(element) if element is not None else None for element in resolved]
    ranges: list[tuple[int, int] | None] = []
    anchors: list[etree._Element | None] = []
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
            later_elements = (element for element in resolved[index + 1 :] if element is not None)
            anchors.append(next(later_elements, None) if resolved[index] is None else None)
            continue
        if not _wrappable(mapped.places[start], mapped.places[start + len(key) - 1]):
            ranges.append(None)
            anchors.append(None)
            continue
        ranges.append((start, start + len(key)))
        anchors.append(None)
        cursor = start + len(key)
    return ranges, anchors


def _container(place: _Point) -> etree._Element:
    element, tail, _ = place
    return element.getparent() if tail else element


def _wrappable(first: _Point, last: _Point) -> bool:
    """Whether one element can hold the text from ``first`` to ``last`` where it stands: not across
    a table's cells or a list's items, nor across blocks inside a paragraph or a heading."""
    start, end = _container(first), _container(last)
    above_start = [start, *start.iterancestors()]
    above_end = [end, *end.iterancestors()]
    top = next(node for node in above_end if node in set(above_start))
    if tag_of(top) in _FIXED_CHILDREN:
        return False
    between = above_start[: above_start.index(top)] + above_end[: above_end.index(top)]
    return not (tag_of(top) in _PHRASING and any(tag_of(node) in BLOCK_TAGS for node in between))


#: Elements whose children HTML fixes (a list's items, a table's rows): nothing is inserted among them.
_FIXED_CHILDREN = frozenset(
    ("ul", "ol", "dl", "table", "thead", "tbody", "tfoot", "tr", "colgroup", "hgroup")
)


#: Elements that hold phrasing content only: a wrapper of blocks cannot go in them.
_PHRASING = frozenset(
    (
        *("p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "span", "a", "em", "strong", "i", "b", "small"),
        *("sub", "sup", "code", "cite", "q", "abbr", "dt", "legend", "summary", "label", "caption"),
    )
)


def insert_segment(anchor: etree._Element, text: str, ident: str) -> None:
    """Show a segment the source does not hold (a title narrator made) in an element of its own
    before ``anchor``, the element of the text read after it."""
    while (parent := anchor.getparent()) is not None and tag_of(parent) in _FIXED_CHILDREN:
        anchor = parent
    namespace = XHTML if anchor.tag.startswith(f"{{{XHTML}}}") else None
    added = etree.Element(f"{{{namespace}}}div" if namespace else "div", id=ident)
    added.set("class", "narrator-added")
    added.text = text
    added.tail = "\n"
    anchor.addprevious(added)


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
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
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
    # HTML since 2022 lets <hgroup> hold a <p> (Standard Ebooks' titles); EPUBCheck's schema does not.
    if local == "hgroup" and any(tag_of(child) not in _HEADINGS for child in node.iterchildren("*")):
        node.tag = f"{{{XHTML}}}header"
    for name in [name for name in node.attrib if ":" in name and not name.startswith("{")]:
        # Read as HTML, a prefixed attribute is a plain name: give it back its namespace.
        prefix, _, rest = name.partition(":")
        value = node.attrib.pop(name)
        if prefix in _PREFIXES:
            node.set(f"{{{_PREFIXES[prefix]}}}{rest}", value)
    for name in list(node.attrib):
        obsolete = name in _OBSOLETE_ATTRIBUTES and not (local == "meta" and name == "charset")
        if obsolete or (name in ("width", "height", "border") and local not in _SIZED):
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
    _html5(root, set())
    # Read as HTML, the namespace declaration is a plain attribute.
    html.attrib.update({name: value for name, value in root.attrib.items() if name != "xmlns"})
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
    embedded = (node.get("src", "") for node in html.iter("*"))
    if any(source.startswith(("http://", "https://")) for source in embedded):
        properties.add("remote-resources")
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

    def places(self) -> list[tuple[str, str | None] | None]:
        """Each segment's document and element: its paragraph's; for a title, or a paragraph the
        reader made (a heading it joined), the document of the next paragraph that has one (or of
        the one before) and no element. None where the chapter has no source at all."""
        known: list[tuple[str, str | None] | None] = [
            (str(source[0]), str(source[1]))
            if 0 < p <= len(self.sources) and (source := self.sources[p - 1])
            else None
            for p in self.paragraphs
        ]
        documents = [place[0] if place else None for place in known]
        for index in range(len(documents) - 2, -1, -1):
            documents[index] = documents[index] or documents[index + 1]
        for index in range(1, len(documents)):
            documents[index] = documents[index] or documents[index - 1]
        return [
            place or ((document, None) if document else None)
            for place, document in zip(known, documents, strict=True)
        ]


@dataclass(frozen=True)
class SourceDocument:
    #: Its path inside the publication's folder.
    path: str
    xhtml: str
    properties: frozenset[str]
    linear: bool
    #: The first catalog chapter with segments in it; None: it is shown without audio.
    chapter: int | None


@dataclass
class SourceText:
    documents: list[SourceDocument]
    #: The source's stylesheets, images and fonts: (path inside the publication's folder, media type, bytes).
    files: list[tuple[str, str, bytes]]
    #: Each wrapped segment's document (path inside the publication's folder), by id.
    placed: dict[str, str] = field(default_factory=dict)
    #: Paragraphs found, of those of all the chapters with a source.
    found: int = 0
    paragraphs: int = 0
    #: Segments the source does not hold (titles narrator made), shown in an element of their own.
    added: int = 0
    #: The chapters with a source that are shown generated instead.
    generated: list[int] = field(default_factory=list)


@dataclass
class _Found:
    """What was found of one chapter: each segment's document and range of its key."""

    chapter: ChapterText
    documents: list[str]
    ranges: list[tuple[int, int] | None]
    #: For a segment shown before an element rather than found, that element.
    anchors: list[etree._Element | None]

    def placed(self) -> bool:
        return all(
            at is not None or anchor is not None for at, anchor in zip(self.ranges, self.anchors, strict=True)
        )


def _find(
    chapters: Sequence[ChapterText], package: SourcePackage, maps: dict[str, TextMap]
) -> tuple[list[_Found], int, int]:
    """Each chapter with a source, its segments looked for in their documents (the segments of one
    document in order, across chapters); and the paragraphs found, of all."""
    order = {member: index for index, (member, _) in enumerate(package.spine)}
    wanted: dict[str, list[tuple[_Found, int, str, str | None]]] = {}
    results = []
    for chapter in chapters:
        places = chapter.places() if chapter.sources else []
        if not places:
            continue
        found = _Found(
            chapter,
            [place[0] if place else "" for place in places],
            [None] * len(places),
            [None] * len(places),
        )
        results.append(found)
        spine = [order.get(document, -1) for document in found.documents]
        # Its documents in reading order, none of them missing.
        if min(spine) >= 0 and spine == sorted(spine):
            for index, (place, text) in enumerate(zip(places, chapter.texts, strict=True)):
                document, element = place  # type: ignore[misc]
                wanted.setdefault(document, []).append((found, index, text, element))
    for document, segments in wanted.items():
        if document not in maps:
            maps[document] = TextMap.of(package.trees[document])
        texts = [text for _, _, text, _ in segments]
        elements = [element for _, _, _, element in segments]
        ranges, anchors = locate(maps[document], package.trees[document], texts, elements)
        for (found, index, _, _), at, anchor in zip(segments, ranges, anchors, strict=True):
            found.ranges[index] = at
            found.anchors[index] = anchor
    located = total = 0
    for found in results:
        paragraphs = {p for p in found.chapter.paragraphs if p > 0}
        missed = {p for p, at in zip(found.chapter.paragraphs, found.ranges, strict=True) if at is None}
        located += len(paragraphs - missed)
        total += len(paragraphs)
    return results, located, total


def _placeable(results: Sequence[_Found], package: SourcePackage) -> list[_Found]:
    """The chapters whose every segment was found, and whose documents each hold one run of the
    book's segments (an overlay plays one stretch of audio) and no id of theirs already."""
    placed = [found for found in results if found.placed()]
    while True:
        runs: dict[str, int] = {}
        previous = None
        placed_numbers = {found.chapter.number for found in placed}
        for found in results:
            keyed = (
                found.documents if found.chapter.number in placed_numbers else [f"#{found.chapter.number}"]
            )
            for document in keyed:
                if document != previous:
                    runs[document] = runs.get(document, 0) + 1
                previous = document
        held: dict[str, set[str]] = {}
        for found in placed:
            for document, ident in zip(found.documents, found.chapter.ids, strict=True):
                held.setdefault(document, set()).add(ident)
        clashing = {
            document
            for document, idents in held.items()
            if any(
                node.get("id") in idents
                for node in package.trees[document].iter()
                if isinstance(node.tag, str)
            )
        }
        wrong = {document for document, count in runs.items() if count > 1} | clashing
        kept = [found for found in placed if not wrong & set(found.documents)]
        if len(kept) == len(placed):
            return kept
        placed = kept


def _xhtml_name(member: str) -> str:
    stem = member
    while (split := posixpath.splitext(stem))[1].lower() in (".html", ".htm", ".xhtml", ".xml"):
        stem = split[0]
    return f"{stem}.xhtml"


def source_text(package: SourcePackage, chapters: Sequence[ChapterText], stylesheet: str) -> SourceText:
    """The source's documents with the segments of each chapter wrapped in place where every one
    is found; and its files. ``stylesheet``: the highlight's, in the publication's folder."""
    maps: dict[str, TextMap] = {}
    results, found, paragraphs = _find(chapters, package, maps)
    placed = _placeable(results, package)
    numbers = {item.chapter.number for item in placed}
    result = SourceText([], [], found=found, paragraphs=paragraphs)
    result.generated = [item.chapter.number for item in results if item.chapter.number not in numbers]
    # EPUB 3 wants content documents named .xhtml: "ch1.htm.html" becomes "ch1.xhtml".
    renamed: dict[str, str] = {}
    for member, _ in package.spine:
        name = _xhtml_name(member)
        while name in renamed.values():  # "a.htm" and "a.html" both there
            name = f"{name.removesuffix('.xhtml')}-.xhtml"
        renamed[member] = name
    first: dict[str, int] = {}
    wrapped: dict[str, list[tuple[tuple[int, int], str]]] = {}
    for item in placed:
        placings = zip(
            item.documents, item.ranges, item.anchors, item.chapter.texts, item.chapter.ids, strict=True
        )
        for document, at, anchor, text, ident in placings:
            first.setdefault(document, item.chapter.number)
            if at is not None:
                wrapped.setdefault(document, []).append((at, ident))
            elif anchor is not None:
                insert_segment(anchor, text, ident)
                result.added += 1
            result.placed[ident] = f"{FOLDER}/{renamed[document]}"
    for document, segments in wrapped.items():
        wrap_segments(maps[document], [at for at, _ in segments], [ident for _, ident in segments])
    for member, linear in package.spine:
        path = f"{FOLDER}/{renamed[member]}"
        title = member.rsplit("/", 1)[-1]
        relink = relinked(member, renamed)
        xhtml, properties = as_xhtml5(package.trees[member], title, relative(path, stylesheet), relink)
        result.documents.append(SourceDocument(path, xhtml, frozenset(properties), linear, first.get(member)))
    result.files = [
        (f"{FOLDER}/{item.path}", item.media_type, item.data)
        for item in package.items
        if item.media_type in _CORE_TYPES
    ]
    return result
