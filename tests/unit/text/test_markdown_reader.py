"""Markdown as people write it: front matter, footnotes, tables, link lists and code."""

from __future__ import annotations

from pathlib import Path

import pytest

from narrator.text.ingest import read_book

PROSE = "It was a long winter, and the snow lay deep over the valley until the end of April."

BOOK = """---
title: Kniha o všem
author:
  - name: Jan Novák
language: cs-CZ
rights: Creative Commons BY-SA
---
# Kniha o všem

[![build](https://example.com/badge.svg)](https://example.com) 🇬🇧 [English](README.md) | [Česky](cs.md)

## Obsah

- [Jedna](#jedna)
- [Dvě](#dve)

## Jedna

Bylo to v roce 2022 a trvalo to dlouho[^dlouho], velmi dlouho. <!-- poznámka autora -->

| Jméno | Rok |
|-------|-----|
| Ada   | 1815 |

```python
print("never read")
```

## Dvě

Další kapitola je tady, a je dost dlouhá na to, aby se dala poznat.

[^dlouho]: Celý rok.
"""


def _read(tmp_path: Path, notes: str = "drop"):
    path = tmp_path / "kniha.md"
    path.write_text(BOOK, encoding="utf-8")
    return read_book(path, notes=notes)


def test_front_matter_is_metadata_never_text(tmp_path: Path) -> None:
    book = _read(tmp_path)
    assert (book.title, book.authors, book.language) == ("Kniha o všem", ("Jan Novák",), "cs-CZ")
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "rights" not in spoken and "Creative Commons" not in spoken


def test_badges_language_bars_contents_links_code_and_comments_are_not_read(tmp_path: Path) -> None:
    book = _read(tmp_path)
    assert [c.title for c in book.chapters] == ["Jedna", "Dvě"]
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    for unread in ("English", "Česky", "never read", "poznámka autora", "build"):
        assert unread not in spoken
    assert "Markdown: code blocks: 1" in book.notes
    assert "Markdown: sections of links only ('Obsah'): 1" in book.notes


def test_a_table_is_read_row_by_row_and_footnotes_follow_notes(tmp_path: Path) -> None:
    dropped = _read(tmp_path).chapters[0].paragraphs
    assert dropped == ("Bylo to v roce 2022 a trvalo to dlouho, velmi dlouho.", "Jméno: Ada, Rok: 1815.")
    assert _read(tmp_path).chapters[0].notes == ((1, "Celý rok."),)
    read = _read(tmp_path, notes="read").chapters[0].paragraphs
    assert read[1] == "Footnote: Celý rok."
    assert not [p for p in read if "[^" in p or "|" in p]


FIGURES = """# Manual

## Start

Version control records changes to files.

Insert 18333fig0101.png
Figure 1-1. Local version control diagram.

![A server](server.svg)
Ілюстрація 1-2. Централізована система.

![Logo](logo.png)
Welcome to the second part of the start.

See layout.png
for how the parts fit.

## End

Fig. 3.

That is all.
"""


@pytest.mark.parametrize("notes", ["drop", "read"])
def test_a_figure_placeholder_is_never_read_and_its_caption_follows_notes(tmp_path: Path, notes: str) -> None:
    path = tmp_path / "manual.md"
    path.write_text(FIGURES, encoding="utf-8")
    book = read_book(path, notes=notes)
    start = book.chapters[0]
    captions = ("Figure 1-1. Local version control diagram.", "Ілюстрація 1-2. Централізована система.")
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "18333fig" not in spoken and "Insert" not in spoken
    # An image's next line that is no caption, and a file named inside a sentence, are read.
    assert "Welcome to the second part of the start." in start.paragraphs
    assert "See layout.png for how the parts fit." in start.paragraphs
    assert "Markdown: figure placeholders (an image file named on a line of its own): 2" in book.notes
    if notes == "read":
        assert start.paragraphs[1:3] == captions
        assert start.notes == ()
    else:
        assert not [p for p in start.paragraphs if p in captions]
        assert start.notes == ((1, captions[0]), (1, captions[1]))
    # A paragraph that is only a label, with no figure before it, is text.
    assert book.chapters[1].paragraphs == ("Fig. 3.", "That is all.")


# A book in a language whose word for "chapter" no list here holds: parts above chapters that the
# book numbers with its own word and digits, each chapter named by the heading under its number.
COUNTED = """![](./cover.png){{width="8.3in"
height="11.7in"}}

# ভূমিকা

{intro}

# মুক্ত লাইসেন্স

এই বইটি ক্রিয়েটিভ কমন্স (CC BY-SA 4.0) লাইসেন্সের আওতায় সবার জন্য উন্মুক্ত।

# পর্ব ১: ভিত্তি

## অধ্যায় ১

### কম্পিউটার

{text}

## অধ্যায় ২

### সফটওয়্যার

{text}

# পর্ব ২: স্কিল

## অধ্যায় ৩

### টাইপিং

{text}
"""


def test_chapters_the_book_numbers_with_its_own_word_are_the_chapters_under_its_parts(tmp_path: Path) -> None:
    path = tmp_path / "boi.md"
    sentence = "কম্পিউটার একটি যন্ত্র যা তথ্য নিয়ে কাজ করে এবং আমাদের জীবন সহজ করে তোলে। "
    path.write_text(COUNTED.format(intro=sentence * 20, text=sentence * 40), encoding="utf-8")
    book = read_book(path)
    body = [c for c in book.chapters if c.kind == "body"]
    assert [c.title for c in body] == [
        "ভূমিকা",
        "পর্ব ১: ভিত্তি. অধ্যায় ১. কম্পিউটার",
        "অধ্যায় ২. সফটওয়্যার",
        "পর্ব ২: স্কিল. অধ্যায় ৩. টাইপিং",
    ]
    spoken = " ".join(p for c in body for p in c.paragraphs)
    assert "width" not in spoken and "CC BY-SA" not in spoken
    skipped = {c.title: c.skipped_by for c in book.chapters if c.kind != "body"}
    assert skipped == {"মুক্ত লাইসেন্স": "licence page (names a licence)"}


@pytest.mark.parametrize("notes", ["drop", "read"])
def test_pandoc_inline_notes_follow_notes_as_labelled_ones_do(tmp_path: Path, notes: str) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "# Eins\n\nDas Radium leuchtet.^[Nach Giesel.] Es ist warm.[^w]\n\n[^w]: Gemessen 1903.\n",
        encoding="utf-8",
    )
    spoken = " ".join(p for c in read_book(path, notes=notes).chapters for p in c.paragraphs)
    assert "Das Radium leuchtet. Es ist warm." in spoken
    assert ("Nach Giesel." in spoken and "Gemessen 1903." in spoken) == (notes == "read")


def test_pandoc_markdown_title_block_citations_math_and_sections_before_the_first_chapter(
    tmp_path: Path,
) -> None:
    sentence = "Die vorliegende Arbeit bezweckt eine Übersicht über die Untersuchungen zu geben. "
    path = tmp_path / "curie.md"
    path.write_text(
        "% Untersuchungen über die radioaktiven Substanzen\n% Marie Curie\n% 1904\n\n"
        f"## Einleitung.\n\n{sentence * 30}\n\n## Historische Übersicht.\n\n{sentence * 30}\n\n"
        "# Erstes Kapitel.\n\nDie $\\beta$-Strahlen[@bh1896cr1; @gf1899] wirken\\cite{cp1900} so. "
        f"{sentence * 30}\n\n"
        f"# Zweites Kapitel.\n\nEs kostet $5 und $6. {sentence * 30}\n",
        encoding="utf-8",
    )
    book = read_book(path)
    assert (book.title, book.authors, book.date) == (
        "Untersuchungen über die radioaktiven Substanzen",
        ("Marie Curie",),
        "1904",
    )
    assert [c.title for c in book.chapters] == [
        "Einleitung",
        "Historische Übersicht",
        "Erstes Kapitel",
        "Zweites Kapitel",
    ]
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "Die β-Strahlen wirken so." in spoken and "Es kostet $5 und $6." in spoken
    for unread in ("%", "@", "cite", "\\"):
        assert unread not in spoken


def test_a_reference_to_a_label_defined_nowhere_reads_a_link_s_words_and_no_image(tmp_path: Path) -> None:
    path = tmp_path / "refs.md"
    path.write_text(
        "# One\n\nShe drew it: ![a sketch][1] and wrote [the letter][2] that night.\n",
        encoding="utf-8",
    )
    (paragraph,) = read_book(path).chapters[0].paragraphs
    assert paragraph == "She drew it: and wrote the letter that night."


def test_a_paragraph_of_links_to_recordings_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "songs.md"
    path.write_text(
        "# One\n\nShe sang it twice that night.\n\n"
        "[Listen (MP3)](audio/song-1.mp3) · [Score](scores/song-1.pdf.png)\n",
        encoding="utf-8",
    )
    assert read_book(path).chapters[0].paragraphs == ("She sang it twice that night.",)


def test_metadata_written_as_headings_at_the_top_is_metadata_not_text(tmp_path: Path) -> None:
    path = tmp_path / "stories.md"
    path.write_text(
        "# Title: Three Stories\n\n## Author: Ernest Hemingway\n\n## Year: 1923\n\n-------\n\n"
        "## Up In Michigan\n\nJim Gilmore came to Hortons Bay from Canada.\n\n"
        "## Out of Season\n\nOn the four lira he had earned he got quite drunk.\n",
        encoding="utf-8",
    )
    book = read_book(path)
    assert book.title == "Three Stories" and book.authors == ("Ernest Hemingway",) and book.date == "1923"
    assert [c.title for c in book.chapters] == ["Up In Michigan", "Out of Season"]
    # One heading that only looks like a field is a chapter's title.
    path.write_text("# Note: on style\n\nShort words are best.\n\n# Two\n\nAnd so on.\n", encoding="utf-8")
    assert read_book(path).chapters[0].title == "Note: on style"


def test_lines_with_the_shape_of_verse_keep_their_breaks_and_wrapped_prose_is_joined(tmp_path: Path) -> None:
    path = tmp_path / "poems.md"
    path.write_text(
        "# Oklahoma\n\nAll of the Indians are dead\n(A good Indian is a dead Indian)\n"
        "Or riding in motor cars\n(the oil lands, you know, they're all rich)\n\n"
        "Prose wrapped for an editor runs on past the fiftieth column of the line\n"
        "and on, without a capital, until the sentence ends where it ends.\n",
        encoding="utf-8",
    )
    assert read_book(path).chapters[0].paragraphs == (
        "All of the Indians are dead\n(A good Indian is a dead Indian)\n"
        "Or riding in motor cars\n(the oil lands, you know, they're all rich)",
        "Prose wrapped for an editor runs on past the fiftieth column of the line "
        "and on, without a capital, until the sentence ends where it ends.",
    )


def test_a_markdown_file_of_raw_html_is_read_by_its_html_headings(tmp_path: Path) -> None:
    html = (
        "\n<h1>孫子兵法</h1>\n<h2>始計</h2>\n<p>孫子曰：兵者，國之大事。</p>\n"
        "<h2>作戰</h2>\n<p>孫子曰：凡用兵之法。</p>\n<!-- a comment -->\n"
    )
    path = tmp_path / "sunzi.md"
    path.write_text(html, encoding="utf-8")
    book = read_book(path)
    assert book.title == "孫子兵法"
    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        ("始計", ("孫子曰：兵者，國之大事。",)),
        ("作戰", ("孫子曰：凡用兵之法。",)),
    ]
    # One heading of each level, the first opening the file: the title over its one chapter.
    path.write_text("<h1>Two Works</h1>\n<h2>The First</h2>\n<p>Text.</p>\n", encoding="utf-8")
    book = read_book(path)
    assert (book.title, [c.title for c in book.chapters]) == ("Two Works", ["The First"])


def test_the_caption_of_a_list_of_links_goes_with_the_list(tmp_path: Path) -> None:
    links = "\n".join(f"- [{name}](#{name})" for name in ("Repository", "Commits", "Staging"))
    caption = "**Table of Contents** *generated with DocToc*"
    text = f"# Flight rules\n\n## Conventions\n\n{PROSE}\n\n{caption}\n\n{links}\n"
    path = tmp_path / "rules.md"
    path.write_text(text + f"\n## Repository\n\n{PROSE}\n", encoding="utf-8")
    book = read_book(path)
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "Table of Contents" not in spoken and PROSE in spoken
    assert "Markdown: captions of link lists ('Table of Contents'): 1" in book.notes


def test_headings_written_without_a_space_and_markdown_inside_a_div_are_read_as_pandoc_reads_them(
    tmp_path: Path,
) -> None:
    text = (
        '<div class="pagetitle">\n# Een boek\n</div>\n\n#Een boek\n\n## Introductie\n\n'
        f"{PROSE}\n\n#Lessons learned\n\n{PROSE}\n\n#1. Het essay\n\n{PROSE}\n"
    )
    path = tmp_path / "howto.md"
    path.write_text(text, encoding="utf-8")
    book = read_book(path)
    # The title said twice as the document opens is the book's; its first chapter is known by
    # its first section.
    assert book.title == "Een boek"
    assert [c.title for c in book.chapters] == ["Introductie", "Lessons learned", "1. Het essay"]
    # One such line is a "#hashtag", text.
    one = tmp_path / "one.md"
    one.write_text(f"# Title\n\n#hashtag\n\n{PROSE}\n", encoding="utf-8")
    assert read_book(one).chapters[0].paragraphs[0] == "#hashtag"


def test_markdown_inside_an_element_marked_markdown_1_is_read_as_markdown(tmp_path: Path) -> None:
    text = (
        f"# Guide\n\n{PROSE}\n\n"
        '<aside markdown="1" class="pquote">\n  A quotation.\n  <p markdown="1">\n'
        "— [Ada Initiative](https://webcache.example.com/search?q=cache:x)\n  </p>\n</aside>\n"
    )
    path = tmp_path / "guide.md"
    path.write_text(text, encoding="utf-8")
    said = " ".join(p for c in read_book(path).chapters for p in c.paragraphs)
    assert "— Ada Initiative" in said and "webcache" not in said


def test_template_tags_are_never_read_and_a_link_showing_its_address_is_text(tmp_path: Path) -> None:
    prose = "Les branques són una part important del treball amb Git, i cada comissió hi queda. " * 8
    text = (
        "---\ntitle: Apunts de Git\n---\n\n{% capture colOne %}\n## Instal·lació\n\n"
        "### GitHub d'escriptori\n[desktop.github.com](https://desktop.github.com)\n\n"
        f"## Branques\n\n{prose}\n\n## Canvis\n\n{prose}\n{{% endcapture %}}\n\n"
        '<div class="col">\n{{ colOne | markdownify }}\n</div>\n\n'
        "## Enllaços\n\n[Inici](index.md)\n\n[Branques](branques.md)\n"
    )
    path = tmp_path / "git.md"
    path.write_text(text, encoding="utf-8")
    book = read_book(path)
    body = [c for c in book.chapters if c.kind == "body"]
    said = " ".join(p for c in body for p in c.paragraphs)
    assert [c.title for c in body] == ["Instal·lació", "Branques", "Canvis"]
    assert "desktop.github.com" in said
    assert not any(tag in said for tag in ("{%", "capture", "markdownify", "Inici"))


def test_hugo_toml_front_matter_is_metadata_never_text(tmp_path: Path) -> None:
    path = tmp_path / "tombatossals.md"
    path.write_text(
        '+++\nlicense = "by-nc"\ntitle = "Història del Tombatossals"\ndate = 2002-10-01\n'
        'note = "Enterament fictícia."\n+++\n\n'
        "**Tramesa pel professor F. Esteve.**\n\nTombatossals és en realitat el nom d’un dels gegants.\n",
        encoding="utf-8",
    )
    book = read_book(path)
    assert (book.title, book.date) == ("Història del Tombatossals", "2002-10-01")
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "license" not in spoken and "fictícia" not in spoken and "+++" not in spoken
    assert "Tombatossals és en realitat" in spoken


def test_a_word_in_braces_set_on_inline_code_is_not_read(tmp_path: Path) -> None:
    # Vim's tutor: keys to type tagged {normal}, commands {vim}; the code itself is kept.
    path = tmp_path / "tutor.md"
    path.write_text(
        "# Lesson 1\n\nType `dw`{normal} to delete a word, then `:wq`{vim} to save and quit the editor.\n",
        encoding="utf-8",
    )
    spoken = " ".join(p for c in read_book(path).chapters for p in c.paragraphs)
    assert "{normal}" not in spoken and "{vim}" not in spoken and "normal" not in spoken
    assert "dw" in spoken and ":wq" in spoken


def test_a_section_that_grants_the_gpl_by_its_short_name_is_the_licence(tmp_path: Path) -> None:
    path = tmp_path / "README_CY.md"
    words = "Mae'r ategyn hwn yn ychwanegu lleisiau niwral Cymraeg at y darllenydd sgrin NVDA. " * 12
    path.write_text(
        f"# Lleisiau Niwral\n\n{words}\n\n# Gosod\n\n{words}\n\n# Trwydded\n\n"
        "Hawlfraint(c) 2024-2026, Stephen Russell, Prifysgol Bangor.\n\n"
        "Mae'r feddalwedd hon wedi'i thrwyddedu o dan Y DRWYDDED GYHOEDDUS GYFFREDINOL GNU "
        "Fersiwn 2 (GPL v2).\n",
        encoding="utf-8",
    )
    book = read_book(path)
    assert [c.title for c in book.chapters if c.kind == "body"] == ["Lleisiau Niwral", "Gosod"]
    assert (
        next(c for c in book.chapters if c.title == "Trwydded").skipped_by == "licence page (names a licence)"
    )
