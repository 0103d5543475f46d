"""EPUB reader: a real Gutenberg book, small EPUB 2 and 3 files built here, and hostile archives."""

from __future__ import annotations

import copy
import zipfile
from pathlib import Path

import pytest
from conftest import BOOKS, alice_path

from narrator.core.book import Book, Chapter
from narrator.core.errors import BookError
from narrator.text.ingest import read_book
from narrator.text.readers import READERS, epub
from narrator.text.readers import archive as zip_archive
from narrator.text.readers.epub import read_epub
from narrator.text.readers.levels import CHAPTER_WORDS

ALICE_TOC = [
    "CHAPTER I. Down the Rabbit-Hole",
    "CHAPTER II. The Pool of Tears",
    "CHAPTER III. A Caucus-Race and a Long Tale",
    "CHAPTER IV. The Rabbit Sends in a Little Bill",
    "CHAPTER V. Advice from a Caterpillar",
    "CHAPTER VI. Pig and Pepper",
    "CHAPTER VII. A Mad Tea-Party",
    "CHAPTER VIII. The Queen’s Croquet-Ground",
    "CHAPTER IX. The Mock Turtle’s Story",
    "CHAPTER X. The Lobster Quadrille",
    "CHAPTER XI. Who Stole the Tarts?",
    "CHAPTER XII. Alice’s Evidence",
]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
XHTML_NS = 'xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"'
CONTAINER = (
    '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
    '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
    "</rootfiles></container>"
)


@pytest.fixture(scope="module")
def alice() -> Book:
    return read_book(alice_path())


def write_zip(path: Path, members: dict[str, str | bytes], mimetype: bool = True) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        if mimetype:
            archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", zipfile.ZIP_STORED)
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def page(body: str, title: str = "t") -> str:
    head = f"<head><title>{title}</title></head>"
    return f'<?xml version="1.0" encoding="utf-8"?><html {XHTML_NS}>{head}<body>{body}</body></html>'


def opf(
    manifest: list[tuple[str, str, str, str]],
    spine: list[str],
    metadata: str = "",
    version: str = "3.0",
    toc: str = "",
) -> str:
    """manifest: (id, href, media-type, properties)."""
    items = "".join(
        f'<item id="{i}" href="{h}" media-type="{m}"' + (f' properties="{p}"' if p else "") + "/>"
        for i, h, m, p in manifest
    )
    refs = "".join(f'<itemref idref="{i}"/>' for i in spine)
    toc_attribute = f' toc="{toc}"' if toc else ""
    meta = metadata or (
        "<dc:title>A Test Book</dc:title><dc:creator>Ann Author</dc:creator><dc:language>en-GB</dc:language>"
    )
    return (
        f'<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="{version}" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">'
        f"<metadata>{meta}</metadata><manifest>{items}</manifest>"
        f"<spine{toc_attribute}>{refs}</spine></package>"
    )


def write_epub(
    path: Path, files: dict[str, str | bytes], package: str, extra: dict[str, str | bytes] | None = None
) -> Path:
    members: dict[str, str | bytes] = {"META-INF/container.xml": CONTAINER, "OEBPS/content.opf": package}
    members.update({f"OEBPS/{name}": data for name, data in files.items()})
    members.update(extra or {})
    return write_zip(path, members)


def toc_epub(
    path: Path,
    documents: dict[str, str],
    toc: list[str],
    heading: str = "",
    auxiliary: tuple[str, ...] = (),
) -> Path:
    """An EPUB 3 of ``documents`` (name: body) in spine order, then its nav, which lists the
    documents named in ``toc`` by their <h1> or name under ``heading``; ``auxiliary`` ones are
    marked linear="no"."""
    entries = "".join(f'<li><a href="{name}.xhtml">{toc_titles(documents[name])}</a></li>' for name in toc)
    files = {f"{name}.xhtml": page(body) for name, body in documents.items()}
    files["nav.xhtml"] = page(f'<nav epub:type="toc">{heading}<ol>{entries}</ol></nav>')
    manifest = [(name, f"{name}.xhtml", "application/xhtml+xml", "") for name in documents]
    package = opf([*manifest, ("nav", "nav.xhtml", "application/xhtml+xml", "nav")], [*documents, "nav"])
    for name in auxiliary:
        package = package.replace(f'<itemref idref="{name}"/>', f'<itemref idref="{name}" linear="no"/>')
    return write_epub(path, files, package)


def toc_titles(body: str) -> str:
    """A document's <h1> text, as its contents entry reads."""
    return body.split("<h1>", 1)[1].split("</h1>", 1)[0]


def _body(book: Book) -> list[Chapter]:
    return [c for c in book.chapters if c.kind == "body"]


# --- the real Gutenberg book -----------------------------------------------------------------------


def test_every_paragraph_of_alice_knows_the_element_it_came_from(alice: Book) -> None:
    trees = epub.source_package(alice_path()).trees
    paragraphs = [(p, s) for c in _body(alice) for p, s in zip(c.paragraphs, c.sources, strict=True)]
    assert len(paragraphs) == 790 and all(source for _, source in paragraphs)
    for paragraph, (document, element) in paragraphs:
        held = " ".join("".join(trees[document].xpath(element)[0].itertext()).split())
        assert " ".join(paragraph.split()) in held, (paragraph, held)


def test_alice_body_is_its_twelve_chapters_titled_as_in_its_toc(alice: Book) -> None:
    assert [c.title for c in _body(alice)] == ALICE_TOC
    assert alice.chapters[0].kind == "front" and alice.chapters[-1].kind == "back"
    assert alice.chapters[-1].title == "THE FULL PROJECT GUTENBERG LICENSE"
    assert {c.title: c.kind for c in alice.chapters}["Contents"] == "front"
    assert _body(alice)[0].paragraphs[0].startswith("Alice was beginning to get very tired")
    assert _body(alice)[-1].paragraphs[-1] == "THE END"


def test_alice_body_has_no_gutenberg_boilerplate(alice: Book) -> None:
    for chapter in _body(alice):
        for paragraph in chapter.paragraphs:
            assert "Project Gutenberg" not in paragraph
            assert "license" not in paragraph.lower()


def test_alice_metadata_and_cover(alice: Book) -> None:
    assert alice.title == "Alice's Adventures in Wonderland"
    assert alice.authors == ("Lewis Carroll",)
    assert alice.language == "en"
    assert alice.cover is not None
    assert alice.cover.media_type == "image/jpeg" and alice.cover.data.startswith(b"\xff\xd8\xff")
    assert len(alice.cover.data) > 10_000


def test_alice_poems_keep_their_lines(alice: Book) -> None:
    chapters = {c.title: c for c in alice.chapters}
    crocodile = next(p for p in chapters[ALICE_TOC[1]].paragraphs if "little crocodile" in p)
    assert crocodile.split("\n") == [
        "“How doth the little crocodile",
        "Improve his shining tail,",
        "And pour the waters of the Nile",
        "On every golden scale!",
    ]
    william = next(
        p for p in chapters[ALICE_TOC[4]].paragraphs if p.startswith("“You are old, Father William")
    )
    assert william.count("\n") == 3
    # Prose has no line breaks, and the rows of asterisks became scene breaks, not paragraphs.
    assert all("\n" not in p for p in chapters[ALICE_TOC[0]].paragraphs)
    assert chapters[ALICE_TOC[0]].section_ends
    assert not any(set(p) <= set("* ") for c in alice.chapters for p in c.paragraphs)


def test_epub_is_registered() -> None:
    assert READERS[".epub"] is read_epub


# --- EPUB 3 with a nav document --------------------------------------------------------------------

NAV = page(
    '<nav epub:type="toc"><h1>Contents</h1><ol>'
    '<li><a href="../Text/part%20one.xhtml">Part One</a><ol>'
    '<li><a href="../Text/part%20one.xhtml#c1">Chapter 1</a></li>'
    '<li><a href="../Text/part%20one.xhtml#c2">Chapter 2: The Second</a></li>'
    "</ol></li>"
    '<li><a href="../Text/missing.xhtml">Chapter 3</a></li>'
    '<li><a href="../Text/four.xhtml">Chapter 4</a></li>'
    '<li><a href="../Text/licence.xhtml">Licence</a></li>'
    "</ol></nav>"
    '<nav epub:type="landmarks" hidden=""><ol><li><a href="../Text/four.xhtml">Start</a></li></ol></nav>'
)
PART_ONE = page(
    "<h1>Part One</h1>"
    '<section id="c1"><h2>Chapter 1</h2>'
    '<p>It was a dark night.<sup>1</sup> The end<a epub:type="noteref" href="#n1">*</a> came.</p>'
    '<p><img src="../Images/pic.png" alt="A picture"/></p>'
    '<p>A <a class="footnote-ref" href="#n2">[2]</a>second paragraph.</p>'
    "<hr/>"
    "<p>After the break.</p><p>* * *</p><p>After the stars.</p>"
    '<div class="poem"><div class="stanza"><span>Twinkle, twinkle,</span><br/><span>little star,</span></div>'
    '<div class="stanza"><p class="line">How I wonder</p><p class="line">what you are.</p></div></div>'
    "</section>"
    '<section id="c2"><h2>Chapter 2:<br/>The Second</h2>'
    "<div>Direct text in a div.<p>And a nested paragraph.</p></div>"
    "<ul><li>First item</li><li>Second item</li></ul><blockquote>Quoted words.</blockquote>"
    "<h3>A Section</h3><p>Section text.</p><script>alert('no')</script><style>p {}</style></section>"
)
FOUR = page(
    '<section epub:type="chapter"><h1>Chapter Four: Nothing Like the TOC</h1>'
    "<p>Four&nbsp;text&mdash;here.</p></section>"
)
LICENCE = page(
    "<h2>THE FULL PROJECT GUTENBERG LICENSE</h2>"
    "<p>PLEASE READ THIS BEFORE YOU DISTRIBUTE OR USE THIS WORK.</p>"
    "<p>To protect the Project Gutenberg mission of promoting the free distribution of electronic works.</p>"
)


@pytest.fixture
def epub3(tmp_path: Path) -> Path:
    manifest = [
        ("nav", "Nav/nav.xhtml", "application/xhtml+xml", "nav"),
        ("p1", "Text/part%20one.xhtml", "application/xhtml+xml", ""),
        ("four", "Text/four.xhtml", "application/xhtml+xml", ""),
        ("lic", "Text/licence.xhtml", "application/xhtml+xml", ""),
        ("cover", "Images/cover.png", "image/png", "cover-image"),
    ]
    package = opf(manifest, ["nav", "p1", "four", "lic"])
    files = {
        "Nav/nav.xhtml": NAV,
        "Text/part one.xhtml": PART_ONE,
        "Text/four.xhtml": FOUR,
        "Text/licence.xhtml": LICENCE,
        "Images/cover.png": PNG,
    }
    return write_epub(tmp_path / "book3.epub", files, package)


def test_epub3_chapters_follow_the_nav_split_at_anchors(epub3: Path) -> None:
    book = read_book(epub3)
    assert book.title == "A Test Book" and book.authors == ("Ann Author",) and book.language == "en-GB"
    assert book.cover is not None and book.cover.media_type == "image/png" and book.cover.data == PNG
    # The empty "Part One" leads its first chapter's title; the missing Chapter 3 is gone; the nav
    # page itself is front matter.
    assert [(c.title, c.kind) for c in book.chapters] == [
        ("Contents", "front"),
        ("Part One. Chapter 1", "body"),
        ("Chapter 2: The Second", "body"),
        ("Chapter 4", "body"),
        ("Licence", "back"),
    ]


def test_epub3_text_drops_notes_images_and_scripts_and_keeps_breaks_and_verse(epub3: Path) -> None:
    chapters = {c.title: c for c in read_epub(epub3).chapters}
    one = chapters["Chapter 1"]
    assert one.paragraphs == (
        "It was a dark night. The end came.",
        "A second paragraph.",
        "After the break.",
        "After the stars.",
        "Twinkle, twinkle,\nlittle star,",
        "How I wonder\nwhat you are.",
    )
    assert one.section_ends == frozenset({1, 2})
    two = chapters["Chapter 2: The Second"]
    assert two.paragraphs == (
        "Direct text in a div.",
        "And a nested paragraph.",
        "First item",
        "Second item",
        "Quoted words.",
        "A Section",
        "Section text.",
    )
    # A heading that does not match the TOC title stays as the chapter's first paragraph.
    assert chapters["Chapter 4"].paragraphs == ("Chapter Four: Nothing Like the TOC", "Four text—here.")


def test_epub3_alt_text_is_optional(epub3: Path) -> None:
    from narrator.text.readers.xhtml import extract, parse_xhtml

    with zipfile.ZipFile(epub3) as archive:
        root = parse_xhtml(archive.read("OEBPS/Text/part one.xhtml"))
    assert "A picture" not in [b.text for b in extract(root).blocks]
    assert "A picture" in [b.text for b in extract(root, alt_text=True).blocks]


# --- EPUB 2 with an NCX -----------------------------------------------------------------------------


def ncx(points: str) -> str:
    return (
        '<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">'
        f"<docTitle><text>Doc</text></docTitle><navMap>{points}</navMap></ncx>"
    )


def nav_point(order: int, label: str, src: str, inner: str = "") -> str:
    return (
        f'<navPoint id="np{order}" playOrder="{order}"><navLabel><text>{label}</text></navLabel>'
        f'<content src="{src}"/>{inner}</navPoint>'
    )


@pytest.fixture
def epub2(tmp_path: Path) -> Path:
    points = (
        nav_point(1, "Title Page", "text.html#title")
        + nav_point(
            2,
            "Book One",
            "text.html#b1",
            nav_point(3, "I. Morning", "text.html#m") + nav_point(4, "II. Noon", "text.html#n"),
        )
        + nav_point(6, "III. Night", "night.html")
        + nav_point(5, "Interlude", "gone.html")
    )
    text = page(
        '<div id="pg-header" class="pg-boilerplate"><h2>The Project Gutenberg eBook of Days</h2>'
        "<p>This ebook is for the use of anyone anywhere.</p>"
        "<p>*** START OF THE PROJECT GUTENBERG EBOOK DAYS ***</p></div>"
        '<div id="title"><h1>Days</h1><p>by Ann Author</p></div>'
        '<h1 id="b1">Book One</h1>'
        '<h2><a id="m"/>I.</h2><h3>Morning</h3><p>The sun rose.</p>'
        '<h2 id="n">II. Noon</h2><p>The sun stood high.</p>'
    )
    night = page(
        "<h2>III. Night</h2><p>The sun set.</p>"
        "<p>*** END OF THE PROJECT GUTENBERG EBOOK DAYS ***</p>"
        "<p>Updated editions will replace the previous one.</p>"
        "<h2>THE FULL PROJECT GUTENBERG LICENSE</h2><p>Section 1. General Terms of Use.</p>"
    )
    manifest = [
        ("ncx", "toc.ncx", "application/x-dtbncx+xml", ""),
        ("text", "text.html", "application/xhtml+xml", ""),
        ("night", "night.html", "application/xhtml+xml", ""),
        ("img", "cover.jpg", "image/jpeg", ""),
    ]
    metadata = (
        '<dc:title>Days</dc:title><dc:creator opf:role="aut">Ann Author</dc:creator>'
        '<dc:creator opf:role="ill">Ivan Illustrator</dc:creator><dc:creator>Bob Author</dc:creator>'
        '<dc:language>fr</dc:language><meta name="cover" content="img"/>'
    )
    package = opf(manifest, ["text", "night"], metadata, version="2.0", toc="ncx")
    files = {"toc.ncx": ncx(points), "text.html": text, "night.html": night}
    files["cover.jpg"] = b"\xff\xd8\xff\xe0" + b"\x00" * 64
    return write_epub(tmp_path / "book2.epub", files, package)


def test_epub2_ncx_in_play_order_with_nested_points_flattened(epub2: Path) -> None:
    book = read_book(epub2)
    assert (book.title, book.authors, book.language) == ("Days", ("Ann Author", "Bob Author"), "fr")
    assert book.cover is not None and book.cover.media_type == "image/jpeg"
    assert [(c.title, c.kind, c.paragraphs) for c in book.chapters] == [
        (
            "The Project Gutenberg eBook of Days",
            "front",
            (
                "This ebook is for the use of anyone anywhere.",
                "*** START OF THE PROJECT GUTENBERG EBOOK DAYS ***",
            ),
        ),
        ("Title Page", "front", ("Days", "by Ann Author")),
        ("Book One. I. Morning", "body", ("The sun rose.",)),
        ("II. Noon", "body", ("The sun stood high.",)),
        ("III. Night", "body", ("The sun set.",)),
    ]


def test_chapters_numbered_only_are_chapters_in_a_long_part_and_headings_in_a_short_one(
    tmp_path: Path,
) -> None:
    """A part of two hours keeps its "I.", "II." as chapters; a short poem's numbered parts stay in it."""
    long = "It rained. " * (CHAPTER_WORDS // 3)
    points = nav_point(
        1, "Part One", "a.xhtml", nav_point(2, "I.", "a.xhtml#i") + nav_point(3, "II.", "a.xhtml#ii")
    ) + nav_point(
        4, "The Poem", "b.xhtml", nav_point(5, "I.", "b.xhtml#i") + nav_point(6, "II.", "b.xhtml#ii")
    )
    files = {
        "a.xhtml": page(f'<h1>Part One</h1><h2 id="i">I.</h2><p>{long}</p><h2 id="ii">II.</h2><p>{long}</p>'),
        "b.xhtml": page('<h1>The Poem</h1><h2 id="i">I.</h2><p>Sing.</p><h2 id="ii">II.</h2><p>Again.</p>'),
        "toc.ncx": ncx(points),
    }
    manifest = [(n, f"{n}.xhtml", "application/xhtml+xml", "") for n in "ab"]
    package = opf([*manifest, ("ncx", "toc.ncx", "application/x-dtbncx+xml", "")], ["a", "b"], toc="ncx")
    book = read_book(write_epub(tmp_path / "parts.epub", files, package))
    assert [c.title for c in book.chapters] == ["Part One: 1", "Part One: 2", "The Poem"]
    assert book.chapters[2].paragraphs == ("1.", "Sing.", "2.", "Again.")


def test_epub2_gutenberg_licence_shared_with_the_last_chapter_is_stripped(epub2: Path) -> None:
    # read_epub keeps even the text-less "Book One"; the body has no boilerplate at all.
    book = read_epub(epub2)
    assert ("Book One", "body", ()) in [(c.title, c.kind, c.paragraphs) for c in book.chapters]
    body_text = " ".join(p for c in _body(book) for p in c.paragraphs)
    assert "Gutenberg" not in body_text and "editions" not in body_text and "Terms" not in body_text


def test_epub_without_toc_falls_back_to_spine_documents(tmp_path: Path) -> None:
    manifest = [("a", "a.xhtml", "application/xhtml+xml", ""), ("b", "b.xhtml", "application/xhtml+xml", "")]
    files = {
        "a.xhtml": page("<h2>Chapter 1</h2><h3>The Beginning</h3><p>First words.</p>"),
        "b.xhtml": page("<h1>The Middle</h1><p>Second words.</p><h2>Part of it</h2><p>More.</p>"),
    }
    book = read_book(write_epub(tmp_path / "flat.epub", files, opf(manifest, ["a", "b"])))
    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        ("Chapter 1 The Beginning", ("First words.",)),
        ("The Middle", ("Second words.", "Part of it", "More.")),
    ]


def test_a_navigation_bar_and_footer_on_every_document_are_not_read(tmp_path: Path) -> None:
    """A documentation tool's pages: the bar and footer go, anchors into the pages still cut them."""
    links = '<li><a href="a.xhtml">next</a></li><li><a href="b.xhtml">previous</a></li>'
    bar = f"<div><h3>Navigation</h3><ul>{links}</ul></div>"
    footer = "<div><p>© Copyright 2024, The Authors. Created using Sphinx 7.2.</p></div>"
    texts = ["First words.", "Second words.", "Third words."]
    files = {
        f"{name}.xhtml": page(f'{bar}<h1 id="go">Part {name}</h1><p>{text}</p>{footer}')
        for name, text in zip("abc", texts, strict=True)
    }
    manifest = [(name, f"{name}.xhtml", "application/xhtml+xml", "") for name in "abc"]
    points = "".join(nav_point(n, f"Part {name}", f"{name}.xhtml#go") for n, name in enumerate("abc", 1))
    book = read_book(
        write_epub(
            tmp_path / "docs.epub",
            {**files, "toc.ncx": ncx(points)},
            opf([*manifest, ("ncx", "toc.ncx", "application/x-dtbncx+xml", "")], list("abc"), toc="ncx"),
        )
    )
    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        (f"Part {name}", (text,)) for name, text in zip("abc", texts, strict=True)
    ]
    assert sum("at the top or bottom of 3 of 3 documents" in note for note in book.notes) == 4


def test_documents_the_toc_skips_continue_a_chapter_unless_they_are_matter(tmp_path: Path) -> None:
    documents = {
        "one": "<h1>One</h1><p>First half.</p>",
        "one_split": "<p>Second half.</p>",
        "two": "<h1>Two</h1><p>The last chapter.</p>",
        "also": "<h2>Also by Ann Author</h2><p>Another Book</p><p>A Third Book</p>",
    }
    book = read_book(
        toc_epub(tmp_path / "skips.epub", documents, ["one", "two"], "<h2>Table of Contents</h2>")
    )
    assert [(c.title, c.kind, c.paragraphs) for c in book.chapters] == [
        ("One", "body", ("First half.", "Second half.")),
        ("Two", "body", ("The last chapter.",)),
        ("Also by Ann Author", "back", ("Another Book", "A Third Book")),
        ("Table of Contents", "back", ("One", "Two")),
    ]


def test_a_producer_s_signatures_are_not_read(tmp_path: Path) -> None:
    """Credits, wrapper title, about, recommendation and web-address pages, printed link addresses."""
    names = ["one", "about", "two", "similar", "site"]
    files = {
        "one.xhtml": page(
            "<h1>The Project Gutenberg eBook of Emma</h1>"
            "<p>Produced by Ann Reader and the Online Distributed Proofreading Team.</p>"
            "<p>Emma Woodhouse, handsome, clever, and rich, had lived nearly twenty-one years.</p>"
        ),
        "about.xhtml": page("<h1>About</h1><p>About the Author: she wrote six novels.</p>"),
        "two.xhtml": page(
            '<h1>Volume II</h1><p>She read <a href="https://example.org/">the news</a>'
            '<span class="link-target"> [https://example.org/]</span> with care.</p>'
        ),
        "similar.xhtml": page("<h1>Recommendations</h1><p>Loved this book?</p><p>Persuasion</p>"),
        "site.xhtml": page("<p>www.example.com</p><p>Food for thought</p>"),
    }
    manifest = [(name, f"{name}.xhtml", "application/xhtml+xml", "") for name in names]
    book = read_book(write_epub(tmp_path / "signed.epub", files, opf(manifest, names)))
    assert [(c.title, c.kind, c.skipped_by) for c in book.chapters] == [
        ("Emma", "body", ""),
        ("About", "back", "about (by title)"),
        ("Volume II", "body", ""),
        ("Recommendations", "back", "'also by' page"),
        ("", "back", "the producer's page (a web address)"),
    ]
    assert book.chapters[0].paragraphs == (
        "Emma Woodhouse, handsome, clever, and rich, had lived nearly twenty-one years.",
    )
    assert book.chapters[2].paragraphs == ("She read the news with care.",)
    credit = "Produced by Ann Reader and the Online Distributed Proofreading Team."
    assert f"not read: {credit!r}: the producer's credit" in book.notes


def test_font_obfuscation_is_not_drm(tmp_path: Path, epub3: Path) -> None:
    encryption = (
        '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
        '<enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/></enc:EncryptedData></encryption>'
    )
    with zipfile.ZipFile(epub3) as archive:
        members = {name: archive.read(name) for name in archive.namelist() if name != "mimetype"}
    members["META-INF/encryption.xml"] = encryption
    path = write_zip(tmp_path / "fonts.epub", members)
    titles = [c.title for c in _body(read_book(path))]
    assert titles == ["Part One. Chapter 1", "Chapter 2: The Second", "Chapter 4"]


# --- hostile input ----------------------------------------------------------------------------------

SECRET = "TOP-SECRET-CONTENT-42"


def _error(path: Path) -> str:
    with pytest.raises(BookError) as caught:
        read_book(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(path)), message
    return message


def _minimal(tmp_path: Path, name: str, content: str | bytes, package: str | None = None) -> Path:
    manifest = [("a", "a.xhtml", "application/xhtml+xml", "")]
    return write_epub(tmp_path / name, {"a.xhtml": content}, package or opf(manifest, ["a"]))


def test_not_a_zip_and_truncated_zip(tmp_path: Path, epub3: Path) -> None:
    junk = tmp_path / "junk.epub"
    junk.write_bytes(b"this is not a zip file at all" * 10)
    assert "not a readable zip" in _error(junk)
    truncated = tmp_path / "truncated.epub"
    truncated.write_bytes(epub3.read_bytes()[:300])
    assert "zip" in _error(truncated)
    empty = tmp_path / "empty.epub"
    empty.write_bytes(b"")
    _error(empty)


def test_corrupt_member_data(tmp_path: Path) -> None:
    path = _minimal(tmp_path, "corrupt.epub", page("<p>" + "Words to compress. " * 400 + "</p>"))
    data = bytearray(path.read_bytes())
    offset = data.find(b"OEBPS/a.xhtml") + len("OEBPS/a.xhtml") + 40  # inside the deflated data
    data[offset : offset + 40] = b"\xff" * 40
    path.write_bytes(bytes(data))
    assert "a.xhtml" in _error(path)


def test_missing_container(tmp_path: Path) -> None:
    path = write_zip(tmp_path / "nocontainer.epub", {"OEBPS/content.opf": opf([], [])})
    assert "META-INF/container.xml is missing" in _error(path)


def test_container_naming_no_package(tmp_path: Path) -> None:
    path = write_zip(tmp_path / "noopf.epub", {"META-INF/container.xml": CONTAINER})
    assert ".opf" in _error(path)


def test_a_container_pointing_astray_is_read_through_the_one_package_there_is(tmp_path: Path) -> None:
    # A hand-made EPUB's container says "content.opf"; the package is at OEBPS/content.opf.
    astray = CONTAINER.replace('full-path="OEBPS/content.opf"', 'full-path="content.opf"')
    text = "<p>" + "A bruxa mexia o caldeirão devagar, a contar as voltas. " * 20 + "</p>"
    files = {"a.xhtml": page(f"<h1>A bruxa</h1>{text}")}
    package = opf([("a", "a.xhtml", "application/xhtml+xml", "")], ["a"])
    path = write_epub(tmp_path / "astray.epub", files, package, {"META-INF/container.xml": astray})
    book = read_book(path)
    assert book.chapters[0].paragraphs and "bruxa" in book.chapters[0].paragraphs[0]
    assert any("'content.opf', which is not in the EPUB: read 'OEBPS/content.opf'" in n for n in book.notes)
    # Two packages and a container naming neither: which one is the book is not the reader's guess.
    two = write_epub(
        tmp_path / "two.epub", files, package, {"META-INF/container.xml": astray, "OEBPS/other.opf": package}
    )
    assert ".opf" in _error(two)


def test_drm_encrypted_epub_is_refused(tmp_path: Path) -> None:
    encryption = (
        '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
        '<enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>'
        '<enc:CipherData><enc:CipherReference URI="OEBPS/a.xhtml"/></enc:CipherData>'
        "</enc:EncryptedData></encryption>"
    )
    manifest = [("a", "a.xhtml", "application/xhtml+xml", "")]
    path = write_epub(
        tmp_path / "drm.epub",
        {"a.xhtml": b"\x8f\x01binary"},
        opf(manifest, ["a"]),
        {"META-INF/encryption.xml": encryption},
    )
    assert "DRM-protected" in _error(path) and "cannot read it" in _error(path)


def test_zip_bomb_of_600_mib_is_refused_without_decompressing(tmp_path: Path) -> None:
    path = _minimal(tmp_path, "bomb.epub", page("<p>Hi.</p>"))
    chunk = bytes(4 * 1024 * 1024)
    with (
        zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED, compresslevel=1) as archive,
        archive.open("OEBPS/zeros.xhtml", "w", force_zip64=True) as member,
    ):
        for _ in range(150):  # 600 MiB of zeros, streamed: never all in memory
            member.write(chunk)
    assert path.stat().st_size < 10 * 1024 * 1024
    assert "zip bomb" in _error(path)


def test_high_compression_ratio_is_refused(tmp_path: Path) -> None:
    path = _minimal(tmp_path, "ratio.epub", page("<p>Hi.</p>"))
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("OEBPS/zeros.bin", bytes(8 * 1024 * 1024))
    assert "zip bomb" in _error(path)


def test_total_size_cap_counts_every_member(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(zip_archive, "MAX_TOTAL_BYTES", 64 * 1024)
    path = _minimal(tmp_path, "many.epub", page("<p>Hi.</p>"))
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
        for n in range(10):
            archive.writestr(f"OEBPS/filler{n}.txt", "x" * 10_000)
    assert "too much data" in _error(path)


def test_reading_is_bounded_even_when_headers_lie(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Headers that claim tiny members pass the checks; the bounded read still stops at the cap."""
    path = _minimal(tmp_path, "liar.epub", page("<p>" + "Honest words. " * 5000 + "</p>"))
    real_infolist = zipfile.ZipFile.infolist

    def lying_infolist(self: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
        fakes = []
        for info in real_infolist(self):
            fake = copy.copy(info)
            fake.file_size = min(info.file_size, 10)
            fakes.append(fake)
        return fakes

    monkeypatch.setattr(zip_archive, "MAX_MEMBER_BYTES", 16 * 1024)
    monkeypatch.setattr(zipfile.ZipFile, "infolist", lying_infolist)
    assert "a.xhtml decompresses to too much data" in _error(path)


def test_xxe_entities_are_never_resolved(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    doctype = f'<!DOCTYPE html [<!ENTITY xxe SYSTEM "file://{secret}">]>'
    content = (
        f'<?xml version="1.0"?>{doctype}<html {XHTML_NS}><head><title>&xxe;</title></head>'
        "<body><h1>Chapter &xxe;</h1><p>Before &xxe; after.</p></body></html>"
    )
    package = opf(
        [("a", "a.xhtml", "application/xhtml+xml", "")], ["a"], "<dc:title>T &xxe;</dc:title>"
    ).replace(
        '<?xml version="1.0"?>',
        f'<?xml version="1.0"?><!DOCTYPE package [<!ENTITY xxe SYSTEM "file://{secret}">]>',
    )
    book = read_book(_minimal(tmp_path, "xxe.epub", content, package))
    everything = repr(book)
    assert SECRET not in everything
    assert book.chapters[0].paragraphs == ("Before after.",)


def test_toc_pointing_only_at_missing_files(tmp_path: Path) -> None:
    nav = page(
        '<nav epub:type="toc"><ol><li><a href="gone.xhtml">One</a></li><li><a href="http://x.org/a">Two</a></li></ol></nav>'
    )
    manifest = [
        ("nav", "nav.xhtml", "application/xhtml+xml", "nav"),
        ("a", "a.xhtml", "application/xhtml+xml", ""),
    ]
    path = write_epub(
        tmp_path / "lost.epub", {"nav.xhtml": nav, "a.xhtml": page("<p>Text.</p>")}, opf(manifest, ["a"])
    )
    assert _error(path).endswith("the table of contents points at no readable chapter")


def test_malformed_package_document_names_the_member(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {"a.xhtml": page("<p>Fine.</p>")}
    message = _error(write_epub(tmp_path / "bad.epub", files, "<package><metadata></package>"))
    assert "OEBPS/content.opf is not well-formed XML" in message


def test_a_malformed_content_document_is_recovered_and_named_in_the_notes(tmp_path: Path) -> None:
    """A Gutenberg EPUB had an unescaped "<" in an attribute of one back-matter file."""
    manifest = [("a", "a.xhtml", "application/xhtml+xml", ""), ("b", "b.xhtml", "application/xhtml+xml", "")]
    files: dict[str, str | bytes] = {
        "a.xhtml": page("<h1>One</h1><p>The story is fine.</p>"),
        "b.xhtml": '<html><body><h1>Two</h1><p title="a<b">Still <i>read</p></body></html>',
    }
    book = read_epub(write_epub(tmp_path / "soup.epub", files, opf(manifest, ["a", "b"])))
    assert [c.paragraphs for c in book.chapters] == [("The story is fine.",), ("Still read",)]
    assert len(book.notes) == 1
    assert book.notes[0].startswith("OEBPS/b.xhtml: not well-formed XML")


def test_malformed_ncx_names_the_member(tmp_path: Path) -> None:
    manifest = [
        ("ncx", "toc.ncx", "application/x-dtbncx+xml", ""),
        ("a", "a.xhtml", "application/xhtml+xml", ""),
    ]
    files = {"toc.ncx": "<ncx><navMap><navPoint></ncx>", "a.xhtml": page("<p>Fine.</p>")}
    message = _error(
        write_epub(tmp_path / "badncx.epub", files, opf(manifest, ["a"], version="2.0", toc="ncx"))
    )
    assert "OEBPS/toc.ncx is not well-formed XML" in message


def test_empty_spine_and_no_toc(tmp_path: Path) -> None:
    assert "no readable content" in _error(write_epub(tmp_path / "hollow.epub", {}, opf([], [])))


@pytest.mark.parametrize(
    ("name", "date"),
    [
        ("alice-in-wonderland-pg11.epub", "2008-06-27"),  # EPUB 3 dc:date
        ("se-robert-frost_north-of-boston.epub", "2014-05-25"),
        ("calibre-quick-start-sv.epub", ""),  # Calibre's 0101-01-01 placeholder means no date
        ("idpf-epub30-spec.epub", ""),  # no dc:date at all: nothing is invented
    ],
)
def test_the_publication_date_comes_from_the_book_only(name: str, date: str) -> None:
    assert read_epub(BOOKS / name).date == date


def test_a_contents_nested_256_deep_gives_a_short_title(tmp_path: Path) -> None:
    # Each level a "T" over the next, all at the one document: before, its title joined the 256
    # levels ("T. T. T. …", 376 characters).
    nested = "".join('<ol><li><a href="a.xhtml">T</a>' for _ in range(256)) + "</li></ol>" * 256
    nav = page(f'<nav xmlns:epub="http://www.idpf.org/2007/ops" epub:type="toc">{nested}</nav>')
    manifest = [
        ("nav", "nav.xhtml", "application/xhtml+xml", "nav"),
        ("a", "a.xhtml", "application/xhtml+xml", ""),
    ]
    files = {"nav.xhtml": nav, "a.xhtml": page("<p>Some words of the book.</p>")}
    book = read_book(write_epub(tmp_path / "deep.epub", files, opf(manifest, ["a"])))
    assert [(c.title, c.paragraphs) for c in book.chapters] == [("T", ("Some words of the book.",))]
    # Distinct titles nested deep keep the innermost four (of as many levels as the parser reads).
    nested = "".join(f'<ol><li><a href="a.xhtml">L{n}</a>' for n in range(256)) + "</li></ol>" * 256
    files["nav.xhtml"] = page(
        f'<nav xmlns:epub="http://www.idpf.org/2007/ops" epub:type="toc">{nested}</nav>'
    )
    book = read_book(write_epub(tmp_path / "deeper.epub", files, opf(manifest, ["a"])))
    ((title, _),) = [(c.title, c.paragraphs) for c in book.chapters]
    levels = [int(part.removeprefix("L")) for part in title.split(". ")]
    assert len(levels) == 4 and levels == list(range(levels[0], levels[0] + 4)), title


def test_a_document_out_of_the_reading_order_is_listed_but_not_read(tmp_path: Path) -> None:
    documents = {
        "one": "<h1>One</h1><p>The first chapter.</p>",
        "terms": "<h1>Terminology</h1><p>A glossary the reader opens at will.</p>",
        "two": "<h1>Two</h1><p>The last chapter.</p>",
    }
    book = read_book(toc_epub(tmp_path / "aux.epub", documents, [*documents], auxiliary=("terms",)))
    assert [c.title for c in _body(book)] == ["One", "Two"]
    terms = next(c for c in book.chapters if c.title == "Terminology")
    assert (terms.kind, terms.skipped_by) == ("back", 'not in the reading order (spine linear="no")')


def test_a_text_split_in_files_before_the_first_contents_entry_is_one_chapter(tmp_path: Path) -> None:
    # ebookmaker splits a long HTML book in files and lists only the licence in its contents.
    documents = {
        "part0": "<h1>1001 Problems</h1><p>1. The first problem.</p>",
        "part1": "<p>854. A problem in the second file.</p>",
        "licence": "<h1>Licence</h1><p>The licence.</p>",
    }
    book = read_book(toc_epub(tmp_path / "split.epub", documents, ["licence"]))
    assert [(c.title, c.paragraphs) for c in _body(book)] == [
        ("1001 Problems", ("1. The first problem.", "854. A problem in the second file."))
    ]


def test_a_running_title_over_every_division_is_not_a_chapter(tmp_path: Path) -> None:
    # Each book of an epic opens with the poet's name and the poem's title over its own number,
    # each listed in the contents; only the number is the book's.
    verse = "<p>" + "Arma virumque cano, Troiae qui primus ab oris Italiam venit. " * 30 + "</p>"
    stack = '<h1 id="a{n}">PUBLI VERGILI MARONIS</h1><h2 id="b{n}">AENEIDOS</h2><h3 id="c{n}">LIBER {n}</h3>'
    body = "".join(stack.format(n=n) + verse for n in ("I", "II", "III"))
    labels = ("PUBLI VERGILI MARONIS", "AENEIDOS", "LIBER {n}")
    entries = "".join(
        f'<li><a href="text.xhtml#{anchor}{n}">{label.format(n=n)}</a></li>'
        for n in ("I", "II", "III")
        for anchor, label in zip("abc", labels, strict=True)
    )
    files = {"text.xhtml": page(body), "nav.xhtml": page(f'<nav epub:type="toc"><ol>{entries}</ol></nav>')}
    manifest = [
        ("text", "text.xhtml", "application/xhtml+xml", ""),
        ("nav", "nav.xhtml", "application/xhtml+xml", "nav"),
    ]
    book = read_book(write_epub(tmp_path / "epic.epub", files, opf(manifest, ["text", "nav"])))
    body_chapters = _body(book)
    assert [c.title for c in body_chapters] == ["LIBER I", "LIBER II", "LIBER III"]
    # The running title is not read at the head of every book either.
    assert all(c.paragraphs[0].startswith("Arma virumque") for c in body_chapters)


def test_a_contents_link_to_no_file_finds_the_one_unlisted_document_where_it_stands(tmp_path: Path) -> None:
    # "CH51.xhtml" for "CH5.xhtml": the entry still opens its chapter; placeholders that are all
    # the text of several chapters are not read.
    chapters = [
        ("Expectations", "A chapter of its own."),
        ("Impossibility", "The chapter the broken link meant."),
        ("Tendencies", "The chapter after it."),
        ("Coverage", "Work in progress"),
        ("Proximity", "Work in progress"),
    ]
    documents = {f"ch{n}": f"<h1>{title}</h1><p>{text}</p>" for n, (title, text) in enumerate(chapters, 4)}
    path = toc_epub(tmp_path / "typo.epub", documents, [*documents])
    with zipfile.ZipFile(path) as source:
        members = {name: source.read(name) for name in source.namelist()}
    members["OEBPS/nav.xhtml"] = members["OEBPS/nav.xhtml"].replace(b'"ch5.xhtml"', b'"ch51.xhtml"')
    del members["mimetype"]
    book = read_book(write_zip(tmp_path / "typo2.epub", members))
    assert [c.title for c in _body(book)] == ["Expectations", "Impossibility", "Tendencies"]
    stubs = [c.skipped_by for c in book.chapters if c.title in ("Coverage", "Proximity")]
    assert stubs == ["a placeholder ('Work in progress' is all the text of several chapters)"] * 2


def test_a_contents_entry_wholly_in_brackets_is_a_stage_direction_read_in_its_act(tmp_path: Path) -> None:
    speech = "<p>MRS. ALVING. You have been out in the garden already, I hear, and it rains.</p>" * 40
    nav = page(
        '<nav epub:type="toc"><ol>'
        '<li><a href="../Text/play.xhtml#a1">ACT FIRST.</a></li>'
        '<li><a href="../Text/play.xhtml#a2">ACT SECOND.</a><ol>'
        '<li><a href="../Text/play.xhtml#d2">[The same room. The mist still lies heavy.]</a></li></ol></li>'
        '<li><a href="../Text/play.xhtml#a3">ACT THIRD.</a></li>'
        "</ol></nav>"
    )
    play = page(
        f'<h2 id="a1">ACT FIRST.</h2>{speech}<h2 id="a2">ACT SECOND.</h2>'
        f'<h3 id="d2">[The same room. The mist still lies heavy.]</h3>{speech}'
        f'<h2 id="a3">ACT THIRD.</h2>{speech}'
    )
    manifest = [
        ("nav", "Nav/nav.xhtml", "application/xhtml+xml", "nav"),
        ("play", "Text/play.xhtml", "application/xhtml+xml", ""),
    ]
    path = write_epub(
        tmp_path / "play.epub",
        {"Nav/nav.xhtml": nav, "Text/play.xhtml": play},
        opf(manifest, ["nav", "play"]),
    )
    body = [c for c in read_book(path).chapters if c.kind == "body"]
    assert [c.title for c in body] == ["ACT FIRST", "ACT SECOND", "ACT THIRD"]
    assert body[1].paragraphs[0] == "[The same room. The mist still lies heavy.]"
