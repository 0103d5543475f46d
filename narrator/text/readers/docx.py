"""Word documents (.docx): mammoth turns the text into HTML, which is then read as an HTML book.

Chapters are at the heading styles as in HTML: every paragraph style with an outline level, a
document's own styles based on Word's Heading 1, 2, ... too, each heading with the number Word's
list numbering gives it ("3.1", "A"); the contents page (Word's "toc" styles) is not read. Title,
authors and language come from the core properties (the language from the default paragraph style
when they state none).
Comments, tracked deletions, headers, footers and images are never read; footnotes and endnotes
follow ``notes:``, each read after the paragraph that refers to it. The zip is size-checked first,
and a part that declares a DTD (Word never writes one) is refused, so no entity is ever expanded.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
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
p[style-name^='toc '] => !
p[style-name='TOC Heading'] => !
"""
# A DOCX that is an OLE compound file is encrypted (password-protected) or a .doc renamed.
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_NOTE_ID = re.compile(r"^(footnote|endnote)-(ref-)?\d+$")
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_ROMAN = (
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
)


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
        for name in ("docProps/core.xml", "word/styles.xml", "word/numbering.xml", "word/document.xml"):
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


def _val(element: etree._Element | None, path: str) -> str | None:
    found = element.find(path) if element is not None else None
    return found.get(f"{_W}val") if found is not None else None


def _heading_styles(parts: dict[str, etree._Element]) -> dict[str, tuple[int, str | None, str | None]]:
    """Each paragraph style with an outline level (its own or its base style's): style id ->
    (level from 0, numId, ilvl) of the list numbering it carries, also inherited."""
    styles = parts.get("word/styles.xml")
    by_id = {
        style.get(f"{_W}styleId", ""): style
        for style in (styles.iter(f"{_W}style") if styles is not None else ())
        if style.get(f"{_W}type") == "paragraph"
    }

    def inherited(style_id: str, path: str, seen: frozenset[str] = frozenset()) -> str | None:
        style = by_id.get(style_id)
        if style is None or style_id in seen:
            return None
        own = _val(style, f"{_W}pPr/{path}")
        return (
            own if own is not None else inherited(_val(style, f"{_W}basedOn") or "", path, seen | {style_id})
        )

    headings = {}
    for style_id in by_id:
        level = inherited(style_id, f"{_W}outlineLvl")
        # Word's outline level 9 is body text.
        if level is not None and level.isdigit() and int(level) < 9:
            numbering = (
                inherited(style_id, f"{_W}numPr/{_W}numId"),
                inherited(style_id, f"{_W}numPr/{_W}ilvl"),
            )
            headings[style_id] = (int(level), *numbering)
    return headings


def _formatted(value: int, form: str) -> str:
    if form in ("upperLetter", "lowerLetter"):
        letters = chr(ord("A") + (value - 1) % 26) * ((value - 1) // 26 + 1)
        return letters if form == "upperLetter" else letters.lower()
    if form in ("upperRoman", "lowerRoman"):
        roman = ""
        for amount, numeral in _ROMAN:
            count, value = divmod(value, amount)
            roman += numeral * count
        return roman if form == "upperRoman" else roman.lower()
    return str(value)


def _label(levels: dict[str, etree._Element], counts: dict[int, int], ilvl: str) -> str:
    """A list level's number as shown ("3.1", "A"); "" for bullets and unnumbered levels."""
    form = _val(levels[ilvl], f"{_W}numFmt") or "decimal"
    if form in ("none", "bullet"):
        return ""

    def shown(match: re.Match[str]) -> str:
        level = int(match.group(1)) - 1
        return _formatted(counts.get(level, 1), _val(levels.get(str(level)), f"{_W}numFmt") or "decimal")

    return re.sub(r"%(\d)", shown, _val(levels[ilvl], f"{_W}lvlText") or "").strip()


def _heading_numbers(parts: dict[str, etree._Element]) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """The heading styles' levels, and each heading paragraph's (text, number) in document order,
    counted as Word's list numbering counts them ("" where it has none)."""
    headings = _heading_styles(parts)
    numbering = parts.get("word/numbering.xml")
    document = parts.get("word/document.xml")
    abstract_of = {
        num.get(f"{_W}numId", ""): _val(num, f"{_W}abstractNumId") or ""
        for num in (numbering.iter(f"{_W}num") if numbering is not None else ())
    }
    abstracts = {
        abstract.get(f"{_W}abstractNumId", ""): {
            lvl.get(f"{_W}ilvl", ""): lvl for lvl in abstract.iter(f"{_W}lvl")
        }
        for abstract in (numbering.iter(f"{_W}abstractNum") if numbering is not None else ())
    }
    counters: dict[str, dict[int, int]] = {}
    numbered = []
    for paragraph in document.iter(f"{_W}p") if document is not None else ():
        style_id = _val(paragraph, f"{_W}pPr/{_W}pStyle") or ""
        if style_id not in headings:
            continue
        _, num_id, ilvl = headings[style_id]
        num_id = _val(paragraph, f"{_W}pPr/{_W}numPr/{_W}numId") or num_id
        ilvl = _val(paragraph, f"{_W}pPr/{_W}numPr/{_W}ilvl") or ilvl
        text = "".join(t.text or "" for t in paragraph.iter(f"{_W}t"))
        levels = abstracts.get(abstract_of.get(num_id or "", ""), {})
        if ilvl is None:
            # A style linked to a list level names itself in that level.
            ilvl = next((i for i, lvl in levels.items() if _val(lvl, f"{_W}pStyle") == style_id), "0")
        if ilvl not in levels:
            numbered.append((text, ""))
            continue
        counts = counters.setdefault(abstract_of[num_id or ""], {})
        depth = int(ilvl)
        counts[depth] = counts.get(depth, int(_val(levels[ilvl], f"{_W}start") or "1") - 1) + 1
        for deeper in [d for d in counts if d > depth]:
            del counts[deeper]
        numbered.append((text, _label(levels, counts, ilvl)))
    return {style_id: level for style_id, (level, _, _) in headings.items()}, numbered


def _numbered_headings(parts: dict[str, etree._Element]) -> Callable[[object], object]:
    """A mammoth document transform: each heading-style paragraph becomes a Word heading of its
    level, its list number put before its text (matched by text, in document order)."""
    levels, numbered = _heading_numbers(parts)
    pending = iter(numbered)

    def transform(paragraph: mammoth.documents.Paragraph) -> mammoth.documents.Paragraph:
        if paragraph.style_id not in levels:
            return paragraph
        level = min(levels[paragraph.style_id], 5) + 1
        text, number = next(pending, ("", ""))
        children = paragraph.children
        if number and text.strip() == _text(paragraph).strip():
            children = [mammoth.documents.text(number + " "), *children]
        return paragraph.copy(
            style_id=f"Heading{level}", style_name=f"heading {level}", numbering=None, children=children
        )

    return mammoth.transforms.paragraph(transform)


def _text(element: object) -> str:
    if isinstance(element, mammoth.documents.Text):
        return element.value
    return "".join(_text(child) for child in getattr(element, "children", ()))


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


def _chapters_at_later_titles(root: etree._Element) -> bool:
    """Make each Title paragraph after the book's own a chapter heading, above Heading 1; whether
    there was one.

    Fidus Writer exports a book as its title page and then each chapter under a Title of its own.
    Title paragraphs that follow one another are one title set on several lines.
    """
    titles = [e for e in root.iter("p") if e.get("class") == "docx-title"]
    later = [e for e in titles[1:] if e.getprevious() is None or e.getprevious().get("class") != "docx-title"]
    if not later:
        return False
    for heading in [e for e in root.iter() if re.fullmatch(r"h[1-6]", str(e.tag))]:
        heading.tag = f"h{min(int(heading.tag[1]) + 1, 6)}"
    for chapter in later:
        chapter.tag = "h1"
        del chapter.attrib["class"]
    return True


def read_docx(path: Path, notes: str = "drop") -> Book:
    data, parts = _checked(path)
    try:
        result = mammoth.convert_to_html(
            io.BytesIO(data),
            style_map=_STYLE_MAP,
            transform_document=_numbered_headings(parts),
            convert_image=mammoth.images.img_element(lambda image: {"src": ""}),
        )
    except (KeyError, ValueError, ExpatError, zipfile.BadZipFile, AttributeError) as error:
        raise BookError(f"{path}: cannot read the DOCX ({first_line(error)})") from None
    root = parse_html(f"<html><body>{result.value}</body></html>")
    if root is None:
        raise BookError(f"{path}: the book has no text to speak")
    titled_chapters = _chapters_at_later_titles(root)
    title = _core(parts, "title")
    for marked in [e for e in root.iter() if e.get("class") in ("docx-title", "docx-front")]:
        if marked.get("class") == "docx-title":
            title = title or text_of(marked)
        marked.drop_tree()
    _place_notes(root, notes)
    title, drafts = drafts_at_headings(extract(root, notes=notes).blocks, title, 1 if titled_chapters else 0)
    title = squash(title) or title_from_stem(path)
    language, source = _language(parts)
    # Word has one author field; several authors share it as "A; B" or "A and B".
    authors = [squash(name) for name in re.split(r"[;\n]|\s+(?:and|&)\s+", _core(parts, "creator"))]
    chapters, dropped = build_chapters(drafts, title)
    return Book(
        title,
        chapters,
        authors=tuple(name for name in authors if name),
        language=language or "en",
        language_source=source,
        notes=dropped,
    )
