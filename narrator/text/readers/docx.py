"""Word documents (.docx): mammoth turns the text into HTML, which is then read as an HTML book.

Chapters are at the heading styles (Heading 1, 2, ...) as in HTML; title, authors and language come
from the core properties (the language from the default paragraph style when they state none).
Comments, tracked deletions, headers, footers and images are never read; footnotes and endnotes
follow ``notes:``, each read after the paragraph that refers to it. The zip is size-checked first,
and a part that declares a DTD (Word never writes one) is refused, so no entity is ever expanded.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from xml.parsers.expat import ExpatError

import mammoth
from lxml import etree

from narrator.core.book import Book
from narrator.core.errors import BookError, first_line
from narrator.core.language import well_formed_tag
from narrator.text.readers.archive import Archive
from narrator.text.readers.decode import squash
from narrator.text.readers.html import drafts_at_headings
from narrator.text.readers.matter import build_chapters
from narrator.text.readers.titles import title_from_stem
from narrator.text.readers.xhtml import extract, parse_html, tag_of, text_of

# The title page's styled paragraphs are the book's metadata, which the credits say: never read.
_STYLE_MAP = """
p[style-name='Title'] => p.docx-title:fresh
p[style-name='Subtitle'] => p.docx-front:fresh
p[style-name='Author'] => p.docx-front:fresh
p[style-name='Date'] => p.docx-front:fresh
"""
# A DOCX that is an OLE compound file is encrypted (password-protected) or a .doc renamed.
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_NOTE_ID = re.compile(r"^(footnote|endnote)-(ref-)?\d+$")
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _checked(path: Path) -> tuple[bytes, dict[str, etree._Element]]:
    """The file's bytes once the zip is size-checked and no part declares a DTD; and the parsed
    core properties and styles (those of them that are present)."""
    data = path.read_bytes()
    if data.startswith(_OLE_MAGIC):
        raise BookError(
            f"{path}: the DOCX is password-protected (encrypted) or an old Word .doc; "
            "save it as an unprotected .docx and try again"
        )
    parts: dict[str, etree._Element] = {}
    with Archive(path, "DOCX") as archive:
        if archive.find("word/document.xml") is None:
            raise BookError(f"{path}: not a DOCX: it has no word/document.xml")
        for name in sorted(archive.names):
            if name.lower().endswith((".xml", ".rels")) and b"<!DOCTYPE" in archive.read(name):
                raise BookError(f"{path}: {name} declares a DTD, which Word never writes; refusing the DOCX")
        for name in ("docProps/core.xml", "word/styles.xml"):
            if (found := archive.find(name)) is not None:
                parts[name] = archive.xml(found)
    return data, parts


def _core(parts: dict[str, etree._Element], name: str) -> str:
    core = parts.get("docProps/core.xml")
    found = next((e for e in core.iter() if tag_of(e) == name), None) if core is not None else None
    return text_of(found) if found is not None else ""


def _language(parts: dict[str, etree._Element]) -> tuple[str, str]:
    """(tag, where the document states it), or ("", "")."""
    if tag := well_formed_tag(_core(parts, "language")):
        return tag, "DOCX core properties"
    styles = parts.get("word/styles.xml")
    defaults = next((e for e in styles.iter(f"{_W}docDefaults")), None) if styles is not None else None
    lang = next(defaults.iter(f"{_W}lang"), None) if defaults is not None else None
    if lang is not None and (tag := well_formed_tag(lang.get(f"{_W}val", ""))):
        return tag, "DOCX default paragraph style"
    return "", ""


def _place_notes(root: etree._Element, notes: str) -> None:
    """mammoth lists the notes at the end; each is moved after its reference's paragraph, or removed
    when it has none.

    The "↑" back-link of each note is removed either way."""
    last: dict[etree._Element, etree._Element] = {}  # paragraph -> the last note placed after it
    for item in [e for e in root.iter("li") if _NOTE_ID.match(e.get("id", ""))]:
        for link in [a for a in item.iter("a") if _NOTE_ID.match(a.get("href", "").lstrip("#"))]:
            link.drop_tree()
        reference = next(
            iter(root.xpath("//a[@id=$id]", id=item.get("id", "").replace("-", "-ref-", 1))), None
        )
        paragraph = (
            next((e for e in reference.iterancestors() if tag_of(e) == "p"), None)
            if reference is not None
            else None
        )
        parent = item.getparent()
        parent.remove(item)
        if paragraph is not None:
            # Typed as a note, the extractor reads it or, under notes: drop, keeps it to be shown.
            note = etree.Element("div", {"role": "doc-footnote"})
            note.extend(list(item))
            last.get(paragraph, paragraph).addnext(note)
            last[paragraph] = note
        if parent.tag == "ol" and not len(parent):
            parent.getparent().remove(parent)


def read_docx(path: Path, notes: str = "drop") -> Book:
    data, parts = _checked(path)
    try:
        result = mammoth.convert_to_html(
            io.BytesIO(data),
            style_map=_STYLE_MAP,
            convert_image=mammoth.images.img_element(lambda image: {"src": ""}),
        )
    except (KeyError, ValueError, ExpatError, zipfile.BadZipFile, AttributeError) as error:
        raise BookError(f"{path}: cannot read the DOCX ({first_line(error)})") from None
    root = parse_html(f"<html><body>{result.value}</body></html>")
    if root is None:
        raise BookError(f"{path}: the book has no text to speak")
    title = _core(parts, "title")
    for marked in [e for e in root.iter() if e.get("class") in ("docx-title", "docx-front")]:
        if marked.get("class") == "docx-title":
            title = title or text_of(marked)
        marked.drop_tree()
    _place_notes(root, notes)
    title, drafts = drafts_at_headings(extract(root, notes=notes).blocks, title)
    title = squash(title) or title_from_stem(path)
    language, source = _language(parts)
    authors = [squash(name) for name in re.split(r"[;\n]", _core(parts, "creator"))]
    chapters, dropped = build_chapters(drafts, title)
    return Book(
        title,
        chapters,
        authors=tuple(name for name in authors if name),
        language=language or "en",
        language_source=source,
        notes=dropped,
    )
