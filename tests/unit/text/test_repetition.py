"""The producer's repeated text is dropped by repetition and named in the plan log; an author's is kept."""

from __future__ import annotations

from pathlib import Path

from narrator.text.ingest import read_book
from narrator.text.readers.repetition import drop_from_pages, drop_repeats, fold
from narrator.text.readers.xhtml import Block

LINES = [
    "When shall we three meet again?",
    "So foul and fair a day I have not seen.",
    "Is this a dagger which I see before me?",
    "Out, damned spot! out, I say!",
    "Tomorrow, and tomorrow, and tomorrow.",
]


def _scene(number: int) -> list[Block]:
    """A page of a play as a producer's site serves it: navigation bar, scene, copyright footer."""
    return [
        Block("Navigation"),
        Block("next", link_chars=4),
        Block("previous |", link_chars=8),
        Block(f"Chapter {number}", heading=1),
        Block("MACBETH."),
        Block(LINES[number - 1]),
        Block("Exeunt."),
        Block("© Copyright 2010 The Producers. Created using a tool."),
    ]


def test_fold_ignores_case_punctuation_and_which_number() -> None:
    assert fold("Barth   Standards Track   [Page 3]") == fold("barth standards track page 12")


def test_a_navigation_bar_and_footer_go_and_the_author_s_repeats_stay() -> None:
    units = [_scene(n) for n in range(1, 6)]
    dropped, notes = drop_repeats(units, "documents")
    kept = [
        [b.text for i, b in enumerate(unit) if i not in gone]
        for unit, gone in zip(units, dropped, strict=True)
    ]
    # The chapter heading, the speaker, the scene and its "Exeunt." are the author's.
    assert kept[2] == ["Chapter 3", "MACBETH.", LINES[2], "Exeunt."]
    assert len(notes) == 4
    assert "not read: '© Copyright 2010 The Producers. Created using a tool.' and 4 more like it" in notes[-1]
    assert "at the top or bottom of 5 of 5 documents" in notes[-1]


def test_a_short_refrain_at_every_end_is_the_author_s() -> None:
    units = [[Block(line), Block("Sing hey, sing ho!")] for line in LINES]
    dropped, notes = drop_repeats(units, "chapters")
    assert not any(dropped) and not notes


def test_a_lone_link_said_again_and_again_is_navigation_a_contents_list_is_not() -> None:
    back = Block("Back to the contents", link_chars=20)
    units = [[Block(first), back, Block(last)] for first, last in zip(LINES[:3], LINES[2:], strict=True)]
    contents = [Block(f"Part {n}", link_chars=6) for n in range(3)] * 2
    dropped, notes = drop_repeats([*units, contents], "chapters")
    assert dropped == [{1}, {1}, {1}, set()]
    assert notes == [
        "not read: 'Back to the contents' and 2 more like it: a link said again and again (navigation), "
        "the producer's, not the author's"
    ]


PAGE = """\
{body}



Barth                        Standards Track                    [Page {n}]
\f
RFC 6265             HTTP State Management Mechanism          April 2011

"""


def test_page_headers_and_footers_go_and_a_sentence_cut_by_the_page_is_mended() -> None:
    bodies = ["A page of text.", "This sentence runs over", "the page break.", "The end."]
    text = "".join(PAGE.format(body=body, n=n) for n, body in enumerate(bodies, start=1))
    joined, notes = drop_from_pages(text)
    assert joined == "A page of text.\n\nThis sentence runs over\nthe page break.\n\nThe end."
    assert [note.split(":")[1] for note in notes] == [
        " 'Barth Standards Track [Page 1]' and 3 more like it",
        " 'RFC 6265 HTTP State Management Mechanism April 2011' and 3 more like it",
    ]


def test_a_plain_text_book_names_what_it_dropped_in_the_plan_log(tmp_path: Path) -> None:
    bodies = ["CHAPTER I.\n\nA page of text.", "More text.", "CHAPTER II.\n\nThe end."]
    path = tmp_path / "paged.txt"
    path.write_text("".join(PAGE.format(body=body, n=n) for n, body in enumerate(bodies, start=1)))
    book = read_book(path)
    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        ("CHAPTER I", ("A page of text.", "More text.")),
        ("CHAPTER II", ("The end.",)),
    ]
    assert sum("the producer's, not the author's" in note for note in book.notes) == 2


def test_an_html_book_s_navigation_links_are_not_read(tmp_path: Path) -> None:
    chapters = "".join(
        f'<h2>Chapter {n}</h2><p>{LINES[n]}</p><p><a href="#top">To the contents</a></p>' for n in range(3)
    )
    path = tmp_path / "book.html"
    path.write_text(f"<html><body>{chapters}</body></html>")
    book = read_book(path)
    assert [c.paragraphs for c in book.chapters] == [(line,) for line in LINES[:3]]
    assert any("'To the contents' and 2 more like it" in note for note in book.notes)


def test_text_that_is_the_whole_of_most_units_is_not_a_frame() -> None:
    # A sample document whose every chapter is the same filler paragraph: before, the repetition
    # pass took it for a header and left every chapter empty.
    filler = "Hello, here is some text without a meaning, which fills the page as a sample."
    units = [[Block(f"Chapter {n}"), Block(filler)] for n in range(4)]
    dropped, notes = drop_repeats(units, "chapters")
    assert dropped == [set()] * 4 and notes == []
