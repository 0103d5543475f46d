"""FictionBook 2 (.fb2, and .fb2.zip): titled sections as chapters, their text read as XHTML is.

FB2 is XML. Each section is rewritten into the XHTML the shared extractor reads (a poem's stanzas
and lines, an epigraph as a quotation, a note reference as a footnote marker), so verse, scene
breaks and Project Gutenberg boilerplate are handled as in an EPUB. The file is parsed without DTDs,
entities or network, as the EPUB reader parses, and a zipped one through the size-checked archive.
"""

from __future__ import annotations

import base64
import binascii
import re
from copy import deepcopy
from pathlib import Path

from lxml import etree

from narrator.core.book import Book, Cover, image_type
from narrator.core.errors import BookError, first_line
from narrator.core.language import well_formed_tag
from narrator.text.readers.archive import Archive
from narrator.text.readers.decode import squash
from narrator.text.readers.levels import chapters_as_listened
from narrator.text.readers.matter import build_chapters
from narrator.text.readers.titles import title_from_stem
from narrator.text.readers.xhtml import Block, Draft, extract, parse_xhtml, tag_of, text_of

# FB2 element -> the XHTML element the extractor reads it as; anything not named here is read as a
# span (its text kept), and what is in _SKIPPED is not read at all.
_AS_XHTML = {
    "p": "p",
    "subtitle": "p",
    "v": "p",
    "text-author": "p",
    "poem": "div",
    "stanza": "div",
    "epigraph": "blockquote",
    "cite": "blockquote",
    "annotation": "blockquote",
    "table": "table",
    "tr": "tr",
    "td": "td",
    "th": "td",
}
_POEM_CLASSES = {"poem": "poem", "stanza": "stanza"}
# Images and the blank lines FB2 uses for spacing say nothing.
_SKIPPED = {"image", "empty-line", "binary"}
_NOTES_BODIES = {"notes", "comments", "footnotes"}


def _href(element: etree._Element) -> str:
    """The (xlink:)href of an element, whatever prefix the file binds the XLink namespace to."""
    for name, value in element.attrib.items():
        if str(name).rsplit("}", 1)[-1] == "href":
            return str(value)
    return ""


def _children(element: etree._Element, name: str) -> list[etree._Element]:
    return [child for child in element if tag_of(child) == name]


def _child(element: etree._Element | None, name: str) -> etree._Element | None:
    return None if element is None else next(iter(_children(element, name)), None)


class _Fb2:
    def __init__(self, path: Path, root: etree._Element, notes: str) -> None:
        self.path = path
        self.notes_choice = notes
        description = _child(root, "description")
        self.info = _child(description, "title-info")
        bodies = _children(root, "body")
        self.body = next((b for b in bodies if b.get("name", "").lower() not in _NOTES_BODIES), None)
        if self.body is None:
            raise BookError(f"{path}: the FB2 has no <body> with the book's text")
        # Note id -> its paragraphs, after the paragraph that refers to it: read, or kept to be shown.
        self.notes: dict[str, list[str]] = {}
        for body in bodies:
            if body is not self.body:
                for section in body.iter():
                    if tag_of(section) == "section" and section.get("id"):
                        paragraphs = [text_of(p) for p in section if tag_of(p) != "title"]
                        self.notes[section.get("id", "")] = [p for p in paragraphs if p]
        self.binaries = {b.get("id", ""): b for b in _children(root, "binary")}

    # --- metadata ---

    def title(self) -> str:
        title = _child(self.info, "book-title")
        return (text_of(title) if title is not None else "") or title_from_stem(self.path)

    def authors(self) -> tuple[str, ...]:
        names = []
        for author in _children(self.info, "author") if self.info is not None else []:
            parts = [text_of(part) for part in author if tag_of(part) in ("first-name", "middle-name")]
            parts += [text_of(part) for part in _children(author, "last-name")]
            name = squash(" ".join(parts)) or text_of(_child(author, "nickname") or author)
            if name:
                names.append(name)
        return tuple(dict.fromkeys(names))

    def language(self) -> str:
        lang = _child(self.info, "lang")
        return well_formed_tag(text_of(lang)) if lang is not None else ""

    def date(self) -> str:
        date = _child(self.info, "date")
        if date is None:
            return ""
        found = re.match(r"\d{4}(-\d{2}(-\d{2})?)?", date.get("value", "") or text_of(date))
        return found.group() if found else ""

    def cover(self) -> Cover | None:
        image = _child(_child(self.info, "coverpage"), "image")
        binary = self.binaries.get(_href(image).lstrip("#")) if image is not None else None
        if binary is None:
            return None
        try:
            data = base64.b64decode("".join((binary.text or "").split()), validate=True)
        except (binascii.Error, ValueError):
            return None  # a damaged cover costs the cover, not the book
        media_type = image_type(data)
        return Cover(data, media_type) if media_type else None

    # --- chapters ---

    def drafts(self) -> list[Draft]:
        """The sections as chapters, at the depth a listener navigates by."""
        drafts: list[Draft] = []
        self._section(self.body, (), drafts)
        return chapters_as_listened(drafts)

    def _section(self, section: etree._Element, parents: tuple[str, ...], drafts: list[Draft]) -> None:
        """One section's own text as a chapter (an untitled one continues the chapter before it),
        then its subsections, each under this one's title."""
        title_element = _child(section, "title")
        title = ""
        if title_element is not None:
            lines = [text.rstrip(".:") for p in title_element if (text := _title_line(p))]
            title = ". ".join(lines) or text_of(title_element)
        blocks = self._blocks([c for c in section if tag_of(c) not in ("title", "section")])
        if section is self.body:  # its title is the book's (author and title), said by the credits
            drafts.append(Draft("", blocks))
        elif title or not drafts:
            drafts.append(Draft(title, blocks, parents))
        else:
            drafts[-1].blocks += blocks
        inner = (*parents, title) if title and section is not self.body else parents
        for child in _children(section, "section"):
            self._section(child, inner, drafts)

    def _blocks(self, elements: list[etree._Element]) -> list[Block]:
        body = etree.Element("body")
        for element in elements:
            body.extend(self._xhtml(element))
        return extract(body, notes=self.notes_choice).blocks

    def _xhtml(self, element: etree._Element) -> list[etree._Element]:
        """The element rewritten as XHTML; a paragraph's notes follow it, typed as notes (the extractor
        reads them or keeps them to be shown, by ``notes:``)."""
        name = tag_of(element)
        if name in _SKIPPED or not name:
            out = etree.Element("span")
            out.tail = element.tail
            return [out]
        if name == "a" and element.get("type") == "note":
            out = etree.Element("a", {"class": "noteref", "href": _href(element)})
        else:
            out = etree.Element(_AS_XHTML.get(name, "span"))
            if name in _POEM_CLASSES:
                out.set("class", _POEM_CLASSES[name])
        out.text, out.tail = element.text, element.tail
        for child in element:
            out.extend(self._xhtml(child))
        following = []
        if name in ("p", "v"):
            for link in element.iter():
                if tag_of(link) == "a" and link.get("type") == "note":
                    for text in self.notes.get(_href(link).lstrip("#"), []):
                        note = etree.Element("p", {"role": "doc-footnote"})
                        note.text = text
                        following.append(note)
        return [out, *following]


def _title_line(element: etree._Element) -> str:
    """A title line's text without its note references ("Цитаты[18]" is "Цитаты")."""
    copy = deepcopy(element)
    for link in [a for a in copy.iter() if tag_of(a) == "a" and a.get("type") == "note"]:
        parent, previous = link.getparent(), link.getprevious()
        if parent is None:
            continue
        if link.tail:  # the title's text after the reference stays
            if previous is not None:
                previous.tail = (previous.tail or "") + link.tail
            else:
                parent.text = (parent.text or "") + link.tail
        parent.remove(link)
    return text_of(copy)


def _fb2_bytes(path: Path) -> bytes:
    """The FB2 document of a .fb2 file, or of the one .fb2 inside a .fb2.zip."""
    if not path.name.lower().endswith(".zip"):
        return path.read_bytes()
    with Archive(path, "FB2") as archive:
        inside = sorted(name for name in archive.names if name.lower().endswith(".fb2"))
        if len(inside) != 1:
            raise BookError(f"{path}: the zip holds {len(inside)} .fb2 files; narrator reads a zip of one")
        return archive.read(inside[0])


# An entity reference, and the five XML defines itself; FB2 files declare no others.
_ENTITY_REFERENCE = re.compile(rb"&([A-Za-z_][\w.-]*);")
_XML_ENTITIES = frozenset({b"amp", b"lt", b"gt", b"quot", b"apos"})


def _without_undefined_entities(data: bytes) -> tuple[bytes, list[str]]:
    """The document without references to entities it never defines ("&FBReaderVersion;", which
    the program that shipped the file filled in), and their names."""
    names = sorted({m.group(1) for m in _ENTITY_REFERENCE.finditer(data)} - _XML_ENTITIES)
    kept = _ENTITY_REFERENCE.sub(lambda m: m.group(0) if m.group(1) in _XML_ENTITIES else b"", data)
    return kept, [name.decode() for name in names]


def read_fb2(path: Path, notes: str = "drop") -> Book:
    data = _fb2_bytes(path)
    undefined: list[str] = []
    try:
        try:
            root = parse_xhtml(data)
        except etree.XMLSyntaxError:
            data, undefined = _without_undefined_entities(data)
            if not undefined:
                raise
            root = parse_xhtml(data)
    except (etree.XMLSyntaxError, ValueError) as error:
        raise BookError(f"{path}: not a readable FB2: not well-formed XML ({first_line(error)})") from None
    if tag_of(root) != "fictionbook":
        raise BookError(f"{path}: not an FB2: its root element is <{tag_of(root)}>, not <FictionBook>")
    fb2 = _Fb2(path, root, notes)
    title = fb2.title()
    language = fb2.language()
    chapters, dropped = build_chapters(fb2.drafts(), title)
    if undefined:
        said = ", ".join(f"&{name};" for name in undefined)
        dropped = (f"not read: {said}: entities the file uses and never defines", *dropped)
    return Book(
        squash(title),
        chapters,
        authors=fb2.authors(),
        language=language or "en",
        language_source="FB2 title-info lang" if language else "",
        cover=fb2.cover(),
        date=fb2.date(),
        notes=dropped,
    )
