"""The source EPUB's own text in the read-along EPUB (narrator/package/source_text.py): each segment
found in its paragraph's element and wrapped in place, on small made-up documents; and the audio
cut where the document changes (narrator/package/epub.py's parts)."""

from __future__ import annotations

from lxml import etree

from narrator.core.timeline import Chapter as TimelineChapter
from narrator.core.timeline import Span, Timeline
from narrator.package.epub import book_parts, part_clips
from narrator.package.source_text import (
    TextMap,
    as_xhtml5,
    insert_segment,
    locate,
    relinked,
    word_key,
    wrap_segments,
)
from narrator.text.readers.xhtml import extract, parse_xhtml

PAGE = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html PUBLIC '-//W3C//DTD XHTML 1.1//EN' 'http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd'>
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en"><head>
<meta content="text/css" http-equiv="Content-Style-Type"/><title>One</title>
<link href="style.css" rel="stylesheet" type="text/css"/></head>
<body>{body}</body></html>"""


def _wrapped(body: str, texts: list[str]) -> etree._Element:
    """The page with each text found by the paragraph the reader made of it, and wrapped as s1, s2..."""
    root = parse_xhtml(PAGE.format(body=body).encode())
    blocks = [block for block in extract(root).blocks if block.text]
    elements = [
        next(b.source.element for b in blocks if word_key(text) in word_key(b.text)) for text in texts
    ]
    mapped = TextMap.of(root)
    ranges, _ = locate(mapped, root, texts, elements)
    assert all(ranges), ranges
    wrap_segments(mapped, ranges, [f"s{n}" for n in range(1, len(texts) + 1)])
    return root


def _located(body: str, texts: list[str], tags: list[str | None]):
    """The page, its text map, and each text's range and anchor, found in the first element of its
    tag (None: no element, as a title narrator made)."""
    root = parse_xhtml(PAGE.format(body=body).encode())
    paths = [
        root.getroottree().getpath(root.xpath(f"//*[local-name()='{tag}']")[0]) if tag else None
        for tag in tags
    ]
    mapped = TextMap.of(root)
    return root, mapped, *locate(mapped, root, texts, paths)


def _words(root: etree._Element, ident: str) -> str:
    return " ".join("".join(root.xpath(f"//*[@id='{ident}']")[0].itertext()).split())


def _text(root: etree._Element) -> str:
    return " ".join("".join(root.itertext()).split())


def test_each_segment_is_wrapped_where_it_stands_splitting_the_inline_elements_it_crosses() -> None:
    body = (
        "<p>Alice was <i>very tired. She</i> sat<sup><a href='#n1'>1</a></sup> down. "
        "\u201cOh dear!\u201d said she.</p>"
    )
    before = _text(parse_xhtml(PAGE.format(body=body).encode()))
    # The segments as the plan has them: the note marker is not read, the quotes are straight.
    root = _wrapped(body, ["Alice was very tired.", "She sat down.", '"Oh dear!" said she.'])
    assert _words(root, "s1") == "Alice was very tired."
    # The note marker stays where it stood, inside the sentence it marks.
    assert _words(root, "s2") == "She sat1 down."
    assert _words(root, "s3") == "\u201cOh dear!\u201d said she."
    # Nothing of the page is lost or moved: its text reads as before.
    assert _text(root) == before
    # <i> is split at the sentence's end (the space between in italics of its own): every word
    # it held is still in italics.
    italics = ["".join(i.itertext()).strip() for i in root.iter("{*}i")]
    assert [words for words in italics if words] == ["very tired.", "She"]


def test_a_title_spread_over_a_heading_and_its_line_break_is_one_wrapper() -> None:
    body = "<div><h2><a id='chap01'/>CHAPTER I.<br/>Down the Rabbit-Hole</h2><p>Alice was tired.</p></div>"
    texts = ["CHAPTER I. Down the Rabbit-Hole", "Alice was tired."]
    root, mapped, ranges, _ = _located(body, texts, [None, "p"])
    wrap_segments(mapped, ranges, ["s1", "s2"])
    title = root.xpath("//*[@id='s1']")[0]
    assert title.getparent().tag.endswith("h2") and _words(root, "s1") == "CHAPTER I.Down the Rabbit-Hole"
    # The contents' anchor keeps its place and id.
    assert root.xpath("//*[@id='chap01']")[0].getparent().tag.endswith("h2")


def test_a_segment_is_searched_only_in_its_paragraphs_element() -> None:
    body = "<p>Yes.</p><div>No. Yes.</div>"
    *_, ranges, _ = _located(body, ["Yes."], ["div"])
    # The "Yes." of the second paragraph, not the first one's.
    assert ranges == [(5, 8)]


def test_a_title_narrator_made_is_shown_before_the_text_read_after_it() -> None:
    body = "<h2>II</h2><ul><li>First line.</li></ul>"
    root, _, ranges, anchors = _located(body, ["Chapitre II", "First line."], [None, "li"])
    assert ranges[0] is None and anchors[0] is not None and ranges[1] is not None
    insert_segment(anchors[0], "Chapitre II", "s1")
    added = root.xpath("//*[@id='s1']")[0]
    # Not among the list's items: before the list.
    assert added.getnext().tag.endswith("ul") and _words(root, "s1") == "Chapitre II"


def test_a_segment_across_table_cells_is_not_wrapped() -> None:
    body = "<table><tr><td>Atlanta</td><td>Georgia</td></tr></table>"
    *_, ranges, _ = _located(body, ["Atlanta Georgia"], ["tr"])
    assert ranges == [None]


def test_the_source_document_is_written_as_epub3_xhtml_with_its_links_renamed() -> None:
    body = (
        "<p><a name='top'/>See <a href='ch2.htm.html#x'>two</a> and <a href='http://example.org/'>"
        "the web</a>.</p><table summary='old' width='3'><tr><td align='left'>x</td></tr></table>"
    )
    root = parse_xhtml(PAGE.format(body=body).encode())
    renamed = {"OEBPS/ch1.htm.html": "OEBPS/ch1.xhtml", "OEBPS/ch2.htm.html": "OEBPS/ch2.xhtml"}
    xhtml, properties = as_xhtml5(root, "One", "../../style.css", relinked("OEBPS/ch1.htm.html", renamed))
    assert xhtml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n')
    assert "XHTML 1.1" not in xhtml and "http-equiv" not in xhtml
    for obsolete in ("summary=", "width=", "align=", "name="):
        assert obsolete not in xhtml
    assert 'id="top"' in xhtml and 'href="ch2.xhtml#x"' in xhtml and 'href="http://example.org/"' in xhtml
    assert 'href="style.css"' in xhtml and 'href="../../style.css"' in xhtml
    assert properties == set()
    # Well-formed, in the XHTML namespace.
    assert parse_xhtml(xhtml.encode()).tag == "{http://www.w3.org/1999/xhtml}html"


def test_the_audio_is_cut_where_the_document_changes_and_the_parts_add_up_to_the_book() -> None:
    # Five segments of 10 samples, 5 of pause after each, a lead of 3: chapter 1 spread over two
    # documents, chapters 2 and 3 in one.
    spans = tuple(Span(3 + 15 * n, 13 + 15 * n, 5) for n in range(5))
    chapters = (
        TimelineChapter(1, "One", 0, 3, 33, 0, 1),
        TimelineChapter(2, "Two", 33, 33, 48, 2, 2),
        TimelineChapter(3, "Three", 48, 48, 80, 3, 4),
    )
    timeline = Timeline(1000, 3, 2, spans, chapters, 80)
    parts = book_parts(timeline, ["a.xhtml", "b.xhtml", "c.xhtml", "c.xhtml", "c.xhtml"])
    assert [(p.name, p.document, p.first_row, p.last_row) for p in parts] == [
        ("c001", "a.xhtml", 0, 0),
        ("c001-2", "b.xhtml", 1, 1),
        ("c002", "c.xhtml", 2, 4),
    ]
    # From the chapter's start, or the segment's, to the next part's: the master, cut once each.
    assert [(p.start, p.end) for p in parts] == [(0, 18), (18, 33), (33, 80)]
    # Each clip counted from its part's start: the second part's first clip on its first sample.
    assert [(c.begin, c.end) for c in part_clips(timeline, parts[1])] == [(0, 10)]
