"""EPUB 2 and 3: chapters from the table of contents (nav or NCX), text from the spine's XHTML.

The archive is untrusted: its size is capped (by the zip headers and again while reading), XML is
parsed without DTDs or entity expansion, and every failure is one BookError line naming the file.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lxml import etree

from narrator.core.book import Book, Cover, image_type
from narrator.core.errors import BookError, first_line
from narrator.core.language import well_formed_tag
from narrator.text.readers.archive import Archive
from narrator.text.readers.decode import squash
from narrator.text.readers.html import drafts_at_headings
from narrator.text.readers.levels import chapters_as_listened
from narrator.text.readers.matter import build_chapters, matter_rule
from narrator.text.readers.repetition import drop_repeats, without
from narrator.text.readers.titles import title_from_stem, title_key, without_note_references
from narrator.text.readers.xhtml import (
    Block,
    Document,
    Draft,
    extract,
    parse_html,
    parse_xhtml,
    tag_of,
    take_title,
    text_of,
    types_of,
)

_CONTAINER = "META-INF/container.xml"
_ENCRYPTION = "META-INF/encryption.xml"
# Font obfuscation (IDPF and Adobe) "encrypts" fonts only; the text stays readable.
_FONT_OBFUSCATION = {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
_XHTML_TYPES = {"application/xhtml+xml", "text/html", "application/xml", "text/x-oeb1-document"}
_OPF_ROLE = "{http://www.idpf.org/2007/opf}role"
_OPF_EVENT = "{http://www.idpf.org/2007/opf}event"
# A title wholly in square brackets: a stage direction or an editor's note, not a chapter's name.
_BRACKETED = re.compile(r"\[[^\[\]]+\]")


def _children(element: etree._Element, name: str) -> list[etree._Element]:
    return [child for child in element if tag_of(child) == name]


def _descendants(element: etree._Element, name: str) -> list[etree._Element]:
    return [node for node in element.iter() if tag_of(node) == name]


def _resolve(base: str, href: str) -> tuple[str, str] | None:
    """(member path, fragment) of an href relative to the member `base`; None for external links."""
    try:
        parts = urlsplit(href.strip())
    except ValueError:  # e.g. a malformed IPv6 host: certainly not a member of the archive
        return None
    if parts.scheme or parts.netloc:
        return None
    path = unquote(parts.path)
    if path:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(base), path))
        if path.startswith("../") or path == "..":
            return None
    else:
        path = base
    return path.lstrip("/"), unquote(parts.fragment)


@dataclass(frozen=True)
class _Item:
    id: str
    path: str
    media_type: str
    properties: frozenset[str]


@dataclass(frozen=True)
class _TocEntry:
    title: str
    path: str
    fragment: str
    #: Titles of the entries (or unlinked headings) this one is nested in, outermost first.
    parents: tuple[str, ...] = ()


class _Epub:
    def __init__(self, path: Path, archive: Archive, notes: str) -> None:
        self.path = path
        self.notes_choice = notes
        self.archive = archive
        self._check_drm()
        container = self.archive.find(_CONTAINER)
        if container is None:
            raise BookError(f"{path}: not an EPUB: {_CONTAINER} is missing")
        self.notes: list[str] = []
        self.opf_path = self._rootfile(self.archive.xml(container))
        self.opf = self.archive.xml(self.opf_path)
        self.manifest = self._manifest()
        self.documents: dict[str, Document] = {}
        #: Spine documents marked linear="no": outside the reading order.
        self.auxiliary: set[str] = set()

    def _check_drm(self) -> None:
        if self.archive.find("META-INF/sinf.xml"):
            raise BookError(
                f"{self.path}: the EPUB is DRM-protected (Apple FairPlay); narrator cannot read it"
            )
        name = self.archive.find(_ENCRYPTION)
        if name is None:
            return
        try:
            root = parse_xhtml(self.archive.read(name))
            algorithms = {m.get("Algorithm", "") for m in _descendants(root, "encryptionmethod")}
        except etree.XMLSyntaxError:
            algorithms = {"unknown"}
        if not algorithms or not algorithms <= _FONT_OBFUSCATION:
            raise BookError(f"{self.path}: the EPUB is DRM-protected (encrypted); narrator cannot read it")

    def _rootfile(self, container: etree._Element) -> str:
        rootfiles = [r for r in _descendants(container, "rootfile") if r.get("full-path")]
        preferred = [r for r in rootfiles if r.get("media-type") == "application/oebps-package+xml"]
        for rootfile in preferred or rootfiles:
            found = self.archive.find(unquote(rootfile.get("full-path", "")).lstrip("/"))
            if found:
                return found
        # A container pointing at the wrong path, where the EPUB holds one package document: that one,
        # as reading systems take it.
        packages = sorted(name for name in self.archive.names if name.lower().endswith(".opf"))
        if len(packages) == 1:
            named = rootfiles[0].get("full-path", "") if rootfiles else ""
            self.notes.append(f"{_CONTAINER} names {named!r}, which is not in the EPUB: read {packages[0]!r}")
            return packages[0]
        raise BookError(f"{self.path}: {_CONTAINER} names no package document (.opf) that is in the EPUB")

    def _manifest(self) -> dict[str, _Item]:
        items = {}
        for element in _descendants(self.opf, "item"):
            href, item_id = element.get("href"), element.get("id")
            target = _resolve(self.opf_path, href) if href and item_id else None
            if target:
                items[item_id] = _Item(
                    item_id,
                    target[0],
                    element.get("media-type", "").strip().lower(),
                    frozenset(element.get("properties", "").split()),
                )
        return items

    # --- metadata ---

    def _metadata(self, name: str) -> list[etree._Element]:
        metadata = next(iter(_descendants(self.opf, "metadata")), None)
        return [] if metadata is None else _descendants(metadata, name)

    def title(self) -> str:
        titles = [text_of(t) for t in self._metadata("title")]
        return next((t for t in titles if t), "") or title_from_stem(self.path)

    def authors(self) -> tuple[str, ...]:
        roles = {}
        for meta in self._metadata("meta"):
            if meta.get("property") == "role" and meta.get("refines", "").startswith("#"):
                roles[meta.get("refines", "")[1:]] = text_of(meta)
        creators = []
        for creator in self._metadata("creator"):
            role = creator.get(_OPF_ROLE) or creator.get("role") or roles.get(creator.get("id", ""), "")
            creators.append((text_of(creator), role.strip().lower()))
        # calibre writes "Unknown" where the book names no author: that names nobody.
        creators = [(name, role) for name, role in creators if name.strip().lower() != "unknown"]
        authors = [name for name, role in creators if name and role in ("", "aut")]
        authors = authors or [name for name, _ in creators if name]
        return tuple(dict.fromkeys(authors))

    def language(self) -> str:
        """The first well-formed dc:language, or "" when the package states none."""
        for element in self._metadata("language"):
            if tag := well_formed_tag(text_of(element)):
                return tag
        return ""

    def date(self) -> str:
        """The publication date: EPUB 2's original-publication or publication event first, never
        a modification or creation date; EPUB 3's dc:date is the publication date."""
        ranked: list[tuple[int, str]] = []
        for element in self._metadata("date"):
            event = (element.get(_OPF_EVENT) or element.get("event") or "").strip().lower()
            found = re.match(r"\d{4}(-\d{2}(-\d{2})?)?", text_of(element))
            rank = {"original-publication": 0, "publication": 1, "": 2}.get(event)
            # Calibre writes 0101-01-01 for "no date".
            if found and rank is not None and not found.group().startswith("0101"):
                ranked.append((rank, found.group()))
        return min(ranked)[1] if ranked else ""

    def cover(self) -> Cover | None:
        item = next((i for i in self.manifest.values() if "cover-image" in i.properties), None)
        if item is None:
            for meta in self._metadata("meta"):
                if meta.get("name") == "cover" and meta.get("content"):
                    content = meta.get("content", "")
                    item = self.manifest.get(content) or next(
                        (i for i in self.manifest.values() if i.path.endswith(content)), None
                    )
                    break
        if item is None:
            item = next(
                (
                    i
                    for i in self.manifest.values()
                    if i.media_type.startswith("image/") and "cover" in i.id.lower()
                ),
                None,
            )
        name = self.archive.find(item.path) if item else None
        if name is None:
            return None
        try:
            data = self.archive.read(name)
        except BookError:
            return None  # a damaged or oversized cover costs the cover, not the book
        media_type = image_type(data)
        return Cover(data, media_type) if media_type else None

    # --- reading order and table of contents ---

    def spine(self) -> list[str]:
        """Member paths of the spine's (X)HTML documents in reading order (linear ones, plus the rest)."""
        linear: list[str] = []
        other: list[str] = []
        for itemref in _descendants(self.opf, "itemref"):
            item = self.manifest.get(itemref.get("idref", ""))
            if item is None or item.media_type not in _XHTML_TYPES:
                continue
            name = self.archive.find(item.path)
            if name:
                (other if itemref.get("linear") == "no" else linear).append(name)
        self.auxiliary = set(other) - set(linear)
        return list(dict.fromkeys(linear + other))

    def toc(self) -> list[_TocEntry] | None:
        """Entries of the EPUB 3 nav, else of the EPUB 2 NCX; None when the book has neither."""
        for item in self.manifest.values():
            if "nav" in item.properties and (name := self.archive.find(item.path)):
                entries = self._nav(name)
                if entries:
                    return entries
        spine = next(iter(_descendants(self.opf, "spine")), None)
        ncx = self.manifest.get(spine.get("toc", "")) if spine is not None else None
        if ncx is None:
            ncx = next(
                (i for i in self.manifest.values() if i.media_type == "application/x-dtbncx+xml"), None
            )
        if ncx and (name := self.archive.find(ncx.path)):
            entries = self._ncx(name)
            if entries:
                return entries
        return None

    def _entry(self, base: str, title: str, href: str, parents: tuple[str, ...]) -> _TocEntry | None:
        """The entry, or None for an external link or one wholly in brackets: a play's stage
        direction ("[The same room. The mist still lies heavy.]") or an editor's note set as a
        heading is read where it stands, in the chapter above it."""
        target = _resolve(base, href)
        if target is None or _BRACKETED.fullmatch(title.strip()):
            return None
        return _TocEntry(without_note_references(title), target[0], target[1], parents)

    def _nav(self, name: str) -> list[_TocEntry]:
        root = self._xhtml(name, self.archive.read(name))
        navs = [n for n in _descendants(root, "nav") if "toc" in types_of(n)]
        if not navs:
            return []
        entries: list[_TocEntry] = []

        def walk(element: etree._Element, parents: tuple[str, ...]) -> None:
            for item in _children(element, "li"):
                label = next((c for c in item if tag_of(c) in ("a", "span")), None)
                title = text_of(label) if label is not None else ""
                href = label.get("href", "") if label is not None and tag_of(label) == "a" else ""
                if href and (entry := self._entry(name, title, href, parents)):
                    entries.append(entry)
                for nested in _children(item, "ol"):
                    walk(nested, (*parents, title) if title else parents)

        for top in _children(navs[0], "ol") or _descendants(navs[0], "ol")[:1]:
            walk(top, ())
        return entries

    def _ncx(self, name: str) -> list[_TocEntry]:
        root = self.archive.xml(name)
        # (playOrder if a number, position in the file, title, <content>, parent titles)
        points: list[tuple[int | None, int, str, etree._Element | None, tuple[str, ...]]] = []

        def walk(element: etree._Element, parents: tuple[str, ...]) -> None:
            for point in _children(element, "navpoint"):
                label = next(iter(_descendants(point, "text")), None)
                title = text_of(label) if label is not None else ""
                content = next((c for c in _children(point, "content") if c.get("src")), None)
                order = point.get("playOrder", "")
                number = int(order) if order.isascii() and order.isdigit() else None
                points.append((number, len(points), title, content, parents))
                walk(point, (*parents, title) if title else parents)

        for navmap in _descendants(root, "navmap")[:1]:
            walk(navmap, ())
        if all(order is not None for order, *_ in points):
            points.sort(key=lambda p: (p[0], p[1]))
        entries = []
        for _, _, title, content, parents in points:
            if content is not None and (entry := self._entry(name, title, content.get("src", ""), parents)):
                entries.append(entry)
        return entries

    def tree(self, name: str) -> etree._Element | None:
        """A content document parsed as the reader reads it (the element paths of its blocks are
        paths in this tree); None when it holds nothing to parse."""
        item = next((i for i in self.manifest.values() if self.archive.find(i.path) == name), None)
        data = self.archive.read(name)
        if item is not None and item.media_type == "text/html":
            return parse_html(data.decode("utf-8", errors="replace"))
        return self._xhtml(name, data)

    def document(self, name: str) -> Document:
        if name not in self.documents:
            root = self.tree(name)
            self.documents[name] = (
                extract(root, notes=self.notes_choice) if root is not None else Document([], {})
            )
            for block in self.documents[name].blocks:
                if block.source is not None:
                    block.source = block.source._replace(document=name)
        return self.documents[name]

    def _xhtml(self, name: str, data: bytes) -> etree._Element:
        """A content document, re-read as forgiving HTML when it is not well-formed XML.

        One bad attribute in a back-matter file must not cost the whole book (a Gutenberg EPUB
        had an unescaped "<" in one); the plan log names each file recovered this way.
        """
        try:
            return parse_xhtml(data)
        except etree.XMLSyntaxError as error:
            root = parse_html(data.decode("utf-8", errors="replace"))
            if root is None:
                raise BookError(f"{self.path}: {name} is not well-formed XML ({first_line(error)})") from None
            self.notes.append(f"{name}: not well-formed XML ({first_line(error)}); read as HTML instead")
            return root

    # --- chapters ---

    def drafts(self) -> list[Draft]:
        spine = self.spine()
        self._drop_repeats(spine)
        toc = self.toc()
        if toc is None:
            if not spine:
                raise BookError(f"{self.path}: the EPUB lists no readable content documents in its spine")
            if len(spine) == 1:
                # One document and no contents: a web page, with its chapters at its headings.
                document = self.document(spine[0])
                return drafts_at_headings(list(document.blocks), document.title)[1]
            return [self._spine_draft(name) for name in spine]
        readable = []
        found = [self.archive.find(entry.path) for entry in toc]
        for n, entry in enumerate(toc):
            # A contents of which nothing resolves is refused below, not guessed at.
            name = (
                found[n] or (any(found) and self._unlisted_between(spine, found[:n], found[n + 1 :])) or None
            )
            if name is None:
                continue
            item = next((i for i in self.manifest.values() if i.path == name), None)
            if item is not None and item.media_type not in _XHTML_TYPES:
                continue
            if item is None and not name.lower().endswith((".xhtml", ".html", ".htm", ".xml")):
                continue
            readable.append(replace(entry, path=name))
        if not readable:
            raise BookError(f"{self.path}: the table of contents points at no readable chapter")
        return chapters_as_listened(self._split(spine, readable))

    @staticmethod
    def _unlisted_between(spine: list[str], before: list[str | None], after: list[str | None]) -> str | None:
        """Where a contents entry's link is broken (a typo: "CH51" for "CH5"), the document it
        meant: the one spine document no entry lists between the entries before and after it."""
        listed = {name for name in (*before, *after) if name}
        last = next((spine.index(name) for name in reversed(before) if name in spine), -1)
        following = next((spine.index(name) for name in after if name in spine), len(spine))
        unlisted = [name for name in spine[last + 1 : following] if name not in listed]
        return unlisted[0] if len(unlisted) == 1 else None

    def _drop_repeats(self, spine: list[str]) -> None:
        """Drop the producer's running headers and footers from the documents, keeping anchors."""
        documents = [self.document(name) for name in spine]
        dropped, notes = drop_repeats([d.blocks for d in documents], "documents")
        for document, gone in zip(documents, dropped, strict=True):
            if gone:
                document.anchors = {
                    key: at - sum(i < at for i in gone) for key, at in document.anchors.items()
                }
                document.blocks = without(document.blocks, gone)
        self.notes += notes

    def _spine_draft(self, name: str) -> Draft:
        blocks = list(self.document(name).blocks)
        title, blocks = take_title(blocks, None)
        return Draft(title, blocks)

    def _split(self, spine: list[str], toc: list[_TocEntry]) -> list[Draft]:
        """Cut the reading order at each TOC entry's anchor; text before the first is a chapter too."""
        order = list(spine)
        previous: str | None = None
        for entry in toc:  # documents in the TOC but not the spine go after the entry before them
            if entry.path not in order:
                # None (before the first entry) is never in order: the entry goes first.
                at = order.index(previous) + 1 if previous is not None and previous in order else 0
                order.insert(at, entry.path)
            previous = entry.path
        stream = [(n, self.document(name)) for n, name in enumerate(order)]

        def pieces(begin: tuple[int, int], end: tuple[int, int]) -> list[list[Block]]:
            """The blocks from begin to end, one list per document."""
            taken = []
            for n, doc in stream:
                if begin[0] <= n <= end[0]:
                    low = begin[1] if n == begin[0] else 0
                    high = end[1] if n == end[0] else len(doc.blocks)
                    taken.append(doc.blocks[low:high])
            return taken

        def place(entry: _TocEntry) -> tuple[int, int]:
            block = self.document(entry.path).anchors.get(entry.fragment, 0) if entry.fragment else 0
            return order.index(entry.path), block

        def says_nothing(entry: _TocEntry, after: _TocEntry) -> bool:
            blocks = [b for part in pieces(place(entry), place(after)) for b in part]
            return not any(b.text and not b.heading for b in blocks)

        toc, running = _without_running_titles(toc, says_nothing)
        starts = sorted((place(entry), toc_index) for toc_index, entry in enumerate(toc))

        final = (len(stream), 0)
        contents: dict[int, list[list[Block]]] = {}
        for k, (position, toc_index) in enumerate(starts):
            end = starts[k + 1][0] if k + 1 < len(starts) else final
            contents[toc_index] = pieces(position, end) if end > position else []
        # Before the first entry, each document (cover, title page, ...) is a chapter of its own;
        # one with no heading of its own goes on from the one before (a long text split in files).
        drafts: list[Draft] = []
        for blocks in pieces((0, 0), starts[0][0]):
            draft = Draft(*take_title(blocks, None))
            if not any(b.text for b in draft.blocks):
                continue
            if drafts and not draft.title:
                drafts[-1].blocks += draft.blocks
            else:
                drafts.append(draft)
        for toc_index, entry in enumerate(toc):
            first, *rest = contents[toc_index] or [[]]
            first = _without_leading(first, running) if running else first
            chapter = Draft(*take_title(first, entry.title or None), parents=entry.parents)
            if entry.path in self.auxiliary:
                # Out of the reading order: a glossary, answers, a pop-up the reader opens at will.
                chapter.skipped_by = 'not in the reading order (spine linear="no")'
            matter = []
            for blocks in rest:
                # A document the TOC skips continues the chapter, unless it is front or back matter
                # on its own (an "Also by" page, a colophon, the nav page at the end of the spine).
                alone = Draft(*take_title(blocks, None))
                if any(b.text for b in blocks) and matter_rule(alone):
                    matter.append(alone)
                else:
                    chapter.blocks += blocks
            drafts += [chapter, *matter]
        return drafts


def _without_running_titles(
    toc: list[_TocEntry], says_nothing: Callable[[_TocEntry, _TocEntry], bool]
) -> tuple[list[_TocEntry], set[str]]:
    """Entries the contents repeats before every division ("PUBLI VERGILI MARONIS" / "AENEIDOS",
    then "LIBER II"), with no text of their own before the next entry, are the book's running
    title set above each division's heading: one entry with the next, where the stack begins,
    titled by its own label; and the running title's keys."""
    said = Counter(title_key(entry.title) for entry in toc)
    kept: list[_TocEntry] = []
    absorbed: set[str] = set()
    running: _TocEntry | None = None  # the first of the running-title entries above this one
    for entry, after in zip(toc, [*toc[1:], None], strict=True):
        repeated = said[title_key(entry.title)] > 1
        if after is not None and repeated and says_nothing(entry, after):
            running = running or entry
            absorbed.add(title_key(entry.title))
            continue
        start = running or entry
        kept.append(replace(entry, path=start.path, fragment=start.fragment, parents=start.parents))
        running = None
    return kept, absorbed


def _without_leading(blocks: list[Block], headings: set[str]) -> list[Block]:
    """The blocks without the running title's headings that open them."""
    start = 0
    while start < len(blocks) and (
        not blocks[start].text or (blocks[start].heading and title_key(blocks[start].text) in headings)
    ):
        start += 1
    return blocks[start:]


@dataclass(frozen=True)
class SourceItem:
    """A file of a source EPUB the read-along EPUB carries over: a stylesheet, an image, a font."""

    path: str
    media_type: str
    data: bytes


@dataclass(frozen=True)
class SourcePackage:
    """What the read-along EPUB keeps of a source EPUB: its spine documents, parsed as the reader
    parsed them, in reading order with their linear flag, and the other files of its manifest (not
    its navigation, which the read-along EPUB makes anew)."""

    spine: tuple[tuple[str, bool], ...]
    trees: dict[str, etree._Element]
    items: tuple[SourceItem, ...]


def source_package(path: Path) -> SourcePackage:
    with Archive(path, "EPUB") as archive:
        epub = _Epub(path, archive, "drop")
        names = epub.spine()
        trees = {name: tree for name in names if (tree := epub.tree(name)) is not None}
        spine = tuple((name, name not in epub.auxiliary) for name in names if name in trees)
        # Obfuscated fonts are scrambled with the source's identifier: useless anywhere else.
        obfuscated = archive.find(_ENCRYPTION) is not None
        items = []
        for item in epub.manifest.values():
            name = archive.find(item.path)
            unwanted = item.media_type in _XHTML_TYPES or item.media_type == "application/x-dtbncx+xml"
            unwanted |= obfuscated and "font" in item.media_type
            if name is not None and not unwanted and "nav" not in item.properties:
                items.append(SourceItem(name, item.media_type, archive.read(name)))
        return SourcePackage(spine, trees, tuple(items))


def read_epub(path: Path, notes: str = "drop") -> Book:
    with Archive(path, "EPUB") as archive:
        epub = _Epub(path, archive, notes)
        title = epub.title()
        language = epub.language()
        chapters, producers = build_chapters(epub.drafts(), title)
        return Book(
            squash(title),
            chapters,
            authors=epub.authors(),
            language=language or "en",
            language_source="OPF dc:language" if language else "",
            cover=epub.cover(),
            notes=(*epub.notes, *producers),
            date=epub.date(),
        )
