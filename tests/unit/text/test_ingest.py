"""Reading books: chapters, cleaning, slugs, and one-line errors for bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from narrator.core.book import Book
from narrator.core.errors import BookError
from narrator.text.ingest import book_id_for, read_book
from narrator.text.readers.decode import clean_text


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _shape(book: Book) -> list[tuple[str, tuple[str, ...]]]:
    return [(c.title, c.paragraphs) for c in book.chapters]


# --- markdown --------------------------------------------------------------------------------


def test_markdown_lone_h1_is_title_and_h2s_are_chapters(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "novel.md",
        "# The Great Book\n\n"
        "## Chapter One\n\nIt began *softly*, then **loudly**.\n\nA [link](http://example.com) here.\n\n"
        "## Chapter Two\n\nThe `end` came.\n",
    )
    book = read_book(path)
    assert book.title == "The Great Book"
    assert _shape(book) == [
        ("Chapter One", ("It began softly, then loudly.", "A link here.")),
        ("Chapter Two", ("The end came.",)),
    ]


def test_markdown_strips_emphasis_links_and_joins_soft_breaks(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "b.md",
        "## One\n\nSome _italic_ and ***both*** and [a *nested* link](x.html)\nacross a\nsoft break.\n\n"
        "## Two\n\n![an image](pic.png)Words.\n",
    )
    book = read_book(path)
    text = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert book.chapters[0].paragraphs == ("Some italic and both and a nested link across a soft break.",)
    assert not re.search(r"[*_\[\]()]|http|\.html|png", text)


def test_markdown_deeper_headings_are_paragraphs_of_the_chapter(tmp_path: Path) -> None:
    path = _write(tmp_path, "b.md", "# T\n\n## A\n\n### Section\n\nText.\n\n## B\n\nMore.\n")
    assert _shape(read_book(path)) == [("A", ("Section", "Text.")), ("B", ("More.",))]


def test_markdown_without_headings_is_one_untitled_chapter(tmp_path: Path) -> None:
    # Before the fix, every paragraph became the title of an empty chapter and the
    # book was refused as having "no text to speak".
    path = _write(tmp_path, "my_notes.md", "First paragraph here.\n\nSecond *one*.\n")
    book = read_book(path)
    assert book.title == "My Notes"
    assert _shape(book) == [("", ("First paragraph here.", "Second one."))]


# --- plain text ------------------------------------------------------------------------------


def test_txt_chapter_lines_start_chapters(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "plain-book.txt",
        "A preface line\nwrapped here.\n\n"
        "Chapter 1\n\nIt was a dark night.\nThe wind blew.\n\nSecond paragraph.\n\n"
        "Chapter 2: The Return\n\nBack again.\n",
    )
    book = read_book(path)
    assert book.title == "Plain Book"
    assert _shape(book) == [
        ("", ("A preface line wrapped here.",)),
        ("Chapter 1", ("It was a dark night. The wind blew.", "Second paragraph.")),
        ("Chapter 2: The Return", ("Back again.",)),
    ]


_PROSE = "It was a dark and stormy night, and the rain fell in torrents upon the old house by the sea. " * 3


def test_txt_without_a_stated_title_is_titled_by_its_title_page_not_its_file_name(tmp_path: Path) -> None:
    page = "Конституція України | від 28.06.1996\n\n\nby Jane Doe\n\n\n"
    path = _write(tmp_path, "the-file-name.txt", f"{page}CHAPTER I\n\n{_PROSE}\n\nCHAPTER II\n\n{_PROSE}\n")
    book = read_book(path)
    assert (book.title, book.authors) == ("Конституція України", ("Jane Doe",))
    assert any("from the book's title page" in note for note in book.notes)
    # Contents lines before the first chapter are no title page's title.
    path = _write(
        tmp_path, "contents-first.txt", f"10 Epilogue\n11 Introduction\n\n\nCHAPTER I\n\n{_PROSE}\n"
    )
    assert read_book(path).title == "Contents First"


def test_txt_gutenberg_line_naming_the_book_titles_an_old_text_without_header_fields(tmp_path: Path) -> None:
    end = 'End of the Project Gutenberg EBook of Ang "Filibusterismo", by José Rizal'
    text = f"CHAPTER I\n\n{_PROSE}\n\n{end}\n"
    book = read_book(_write(tmp_path, "pg47629.txt", text))
    assert (book.title, book.authors) == ('Ang "Filibusterismo"', ("José Rizal",))
    book = read_book(
        _write(tmp_path, "pg1533.txt", f"Project Gutenberg Etext of Macbeth by Shakespeare\n\n{text}")
    )
    assert (book.title, book.authors) == ("Macbeth", ("Shakespeare",))


def test_txt_marked_up_with_html_tags_reads_no_tag_and_its_heading_tags_head_chapters(tmp_path: Path) -> None:
    text = (
        "Hans Christian Andersen\n<h1>Snedronningen</h1><delimiter>Med Illustrationer.\n"
        f"<h1>Første Historie.</h1>\n{_PROSE}\n<img1>\nSee <i>saa</i>! nu begynde vi.\n"
        f"<h1>Anden Historie.</h1>\n{_PROSE}\n"
    )
    book = read_book(_write(tmp_path, "aligned.txt", text))
    assert book.title == "Snedronningen"
    body = [c for c in book.chapters if c.kind == "body"]
    assert [(c.title, c.paragraphs) for c in body][-2:] == [
        ("Første Historie", (_PROSE.strip(), "See saa! nu begynde vi.")),
        ("Anden Historie", (_PROSE.strip(),)),
    ]
    assert not any("<" in p for c in book.chapters for p in c.paragraphs)


def test_a_tagged_story_is_titled_by_its_heading_and_the_line_above_names_its_author(tmp_path: Path) -> None:
    text = f"پریم چند\n<h1>عیدگاہ</h1>\n<b>(۱) </b><delimiter>{_PROSE}\n<b>(۲) </b><delimiter>{_PROSE}\n"
    book = read_book(_write(tmp_path, "story.txt", text))
    assert (book.title, book.authors) == ("عیدگاہ", ("پریم چند",))
    assert [c.title for c in book.chapters if c.kind == "body"] == ["عیدگاہ"]
    assert not any("<" in p for c in book.chapters for p in c.paragraphs)
    # A text that quotes a tag or two is not marked up: its words stay.
    quoted = read_book(_write(tmp_path, "quoted.txt", f"CHAPTER I\n\nWrite <h1>Title</h1> first. {_PROSE}\n"))
    assert "<h1>Title</h1>" in quoted.chapters[-1].paragraphs[0]


def test_txt_lines_past_any_wrap_width_are_paragraphs_of_their_own(tmp_path: Path) -> None:
    long = _PROSE.strip()
    book = read_book(_write(tmp_path, "unwrapped.txt", f"CHAPTER I\n\n{long}\n- Why? - he asked.\n{long}\n"))
    assert book.chapters[-1].paragraphs == (long, "- Why? - he asked.", long)
    wrapped = (
        "It was a dark and stormy night, and the rain fell\nin torrents upon the old house by the sea.\n"
    )
    book = read_book(_write(tmp_path, "wrapped.txt", f"CHAPTER I\n\n{wrapped}"))
    assert len(book.chapters[-1].paragraphs) == 1


def test_txt_gutenberg_roman_chapter_with_title_on_next_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "g.txt",
        "CHAPTER IV.\nThe Storm\n\nIt rained all day.\n\nCHAPTER V.\nCalm\n\nThe sun came out.\n",
    )
    assert _shape(read_book(path)) == [
        ("CHAPTER IV. The Storm", ("It rained all day.",)),
        ("CHAPTER V. Calm", ("The sun came out.",)),
    ]


MEMO = """\
Network Working Group                                          A. Author
Request for Comments: 9999                                   Example Org
Category: Informational                                       April 2030

1.  Introduction

   This memo explains how the example works and why it was written this
   way, so that implementers can follow it without guessing at details.

   A second paragraph
   of two short lines.

   {intro}

1.1.  Terms

   Words.

2.  Rules

   Cookies are stored.

   {rules}

3.  References

   None.

   {references}

"""


def test_txt_numbered_sections_are_chapters_and_wrapped_prose_is_not_verse(tmp_path: Path) -> None:
    # Each section runs 200 words and more, as a chapter does; its prose is wrapped to a width.
    filler = {
        name: "More about "
        + "\n   ".join([f"the {name}, and a line that says a little more for a reader"] * 16)
        for name in ("intro", "rules", "references")
    }
    book = read_book(_write(tmp_path, "memo.txt", MEMO.format(**filler)))
    said = {name: " ".join(text.split()) for name, text in filler.items()}
    assert _shape(book) == [
        (
            "1. Introduction",
            (
                "This memo explains how the example works and why it was written this way, so that "
                "implementers can follow it without guessing at details.",
                "A second paragraph\nof two short lines.",  # indented short lines keep theirs
                said["intro"],
                "1.1. Terms",
                "Words.",
            ),
        ),
        ("2. Rules", ("Cookies are stored.", said["rules"])),
        ("3. References", ("None.", said["references"])),
    ]
    assert any("a header of fields (metadata)" in note for note in book.notes)


def test_txt_a_numbered_list_is_not_a_list_of_chapters(tmp_path: Path) -> None:
    text = "Steps to take.\n\n1. Open the door\n\n3. Close the door\n\n4. Sit down\n"
    assert [c.title for c in read_book(_write(tmp_path, "steps.txt", text)).chapters] == [""]


def test_txt_numerals_alone_on_a_line_are_chapters_named_in_the_book_s_language(tmp_path: Path) -> None:
    prose = " ".join(["Он долго ходил по городу и думал о картах."] * 40)
    text = "".join(f"{numeral}\n\n{numeral}. {prose}\n\n" for numeral in ("I", "II", "III"))
    # A closing chapter set off as the numerals are is a chapter too.
    text += "Заключение\n\nГерманн сошёл с ума.\n"
    assert [c.title for c in read_book(_write(tmp_path, "story.txt", text)).chapters] == [
        "Глава I",
        "Глава II",
        "Глава III",
        "Заключение",
    ]
    english = text.replace(prose, " ".join(["He walked about the town all night."] * 40))
    titles = [c.title for c in read_book(_write(tmp_path, "english.txt", english)).chapters]
    assert titles[:3] == ["Chapter I", "Chapter II", "Chapter III"]
    stanzas = "".join(f"{n}\n\nA short stanza\nof two lines.\n\n" for n in range(1, 6))
    # Numbered stanzas are not chapters: the poem is one piece, titled by the book.
    assert [c.title for c in read_book(_write(tmp_path, "poem.txt", stanzas)).chapters] == ["Poem"]


def test_txt_transcriber_s_note_and_contact_address_are_not_read(tmp_path: Path) -> None:
    text = (
        "KALEVALA\n\n[1849 edition]\n\nElias Lonnrot\n\n(1802-1884)\n\n"
        "[This electronic edition has been copied verbatim from the printed edition,\n"
        "as posted on their web site.]\n\n"
        "CHAPTER I.\n\nThe song begins here, and it is long.\n\n"
        "Comments and corrections:\n  The Society\n  Ann Editor\n  ann.editor@example.org\n\n"
        "CHAPTER II.\n\nThe song goes on.\n"
    )
    book = read_book(_write(tmp_path, "song.txt", text))
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "electronic edition" not in spoken and "@" not in spoken
    assert "The song begins here, and it is long." in spoken
    assert sum(note.startswith("not read:") for note in book.notes) == 3


def test_txt_link_codes_in_padded_brackets_are_not_read(tmp_path: Path) -> None:
    # Law text copied from a web page keeps each link's target code in mid-sentence.
    text = (
        "Розділ I\n\nкеруючись Актом від 24 серпня 1991 року ( 1427-12 ), схваленим голосуванням,\n"
        "за Рішенням N 20-рп/2010 ( v020p710-10 ) у справі (1991-1996) і ( див. нижче ).\n"
    )
    book = read_book(_write(tmp_path, "law.txt", text))
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "від 24 серпня 1991 року, схваленим" in spoken
    assert "20-рп/2010 у справі (1991-1996) і ( див. нижче )." in spoken
    assert "not read: '( 1427-12 )' and 1 more like it: link codes in padded brackets" in book.notes


def test_txt_crlf_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "w.txt"
    path.write_bytes("\ufeffChapter 1\r\n\r\nLine one\r\nline two.\r\n\r\nNext.\r\n".encode())
    assert _shape(read_book(path)) == [("Chapter 1", ("Line one line two.", "Next."))]


# --- cleaning --------------------------------------------------------------------------------


def test_zero_width_and_control_characters_are_removed(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "z.txt",
        "Hel\u200blo\u00ad wor\ufeffld\u2060 and\x07 bell\x1b.\u200d\n\nNext\x7f\x0b.\n",
    )
    book = read_book(path)
    assert book.chapters[0].paragraphs == ("Hello world and bell.", "Next.")


def test_clean_text_keeps_speakable_characters() -> None:
    text = "Caf\u00e9 na\u0308ive \u05e9\u05dc\u05d5\u05dd \U0001f600\tend\r\nnext\rlast"
    assert clean_text(text) == "Caf\u00e9 na\u0308ive \u05e9\u05dc\u05d5\u05dd \U0001f600\tend\nnext\nlast"
    assert clean_text("a\u200e\u200f\u2062b\x01\x1f") == "ab"


# --- slugs -----------------------------------------------------------------------------------

SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("My Great Book.txt", "my-great-book"),
        ("War and Peace (Vol 1).md", "war-and-peace-vol-1"),
        ("  --Weird___name--  .txt", "weird-name"),
        ("Caf\u00e9 Cr\u00e8me.md", "cafe-creme"),
        ("\u65e5\u672c\u8a9e.txt", "book"),
        ("../../etc/passwd.txt", "passwd"),
        ("/abs/dir/The-End.markdown", "the-end"),
        ("..\\..\\evil name.txt", "evil-name"),
        ("\U0001f600.txt", "book"),
        ("Kafka.Die.Verwandlung.fb2.zip", "kafka-die-verwandlung"),
        ("README", "readme"),
    ],
)
def test_book_id_for_gives_safe_slugs(name: str, expected: str) -> None:
    slug = book_id_for(name)
    assert slug == expected
    assert SLUG.fullmatch(slug)
    assert "/" not in slug and "\\" not in slug and ".." not in slug


# --- bad input -------------------------------------------------------------------------------


def _assert_one_line(error: BookError, *fragments: str) -> None:
    message = str(error)
    assert message and "\n" not in message
    for fragment in fragments:
        assert fragment in message


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    with pytest.raises(BookError) as info:
        read_book(path)
    _assert_one_line(info.value, "empty.txt", "no text to speak")


@pytest.mark.parametrize("suffix", [".txt", ".md"])
def test_whitespace_only_file(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"blank{suffix}"
    path.write_text(" \n\n\t\r\n   \u200b\n")
    with pytest.raises(BookError) as info:
        read_book(path)
    _assert_one_line(info.value, "no text to speak")


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "image.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    with pytest.raises(BookError) as info:
        read_book(path)
    _assert_one_line(info.value, "image.txt", "binary")


LEGACY_TEXT = (
    "The caf\u00e9 on the corner served cr\u00e8me br\u00fbl\u00e9e and a fine ros\u00e9 to all who asked. "
    "\u201cIt is the best in town,\u201d said the waiter, with a smile that was not entirely na\u00efve. "
    "Nobody argued with him \u2014 the regulars knew better \u2014 and the evening went on."
)


@pytest.mark.parametrize(("encoding", "detected"), [("cp1252", "windows-1252"), ("utf-16", "utf-16")])
def test_legacy_encodings_are_detected_and_reported(tmp_path: Path, encoding: str, detected: str) -> None:
    path = tmp_path / "legacy.txt"
    path.write_bytes(f"Chapter 1\n\n{LEGACY_TEXT}\n".encode(encoding))
    book = read_book(path)
    assert book.chapters[0].paragraphs == (LEGACY_TEXT,)
    assert book.encoding == detected


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BookError) as info:
        read_book(tmp_path / "nope.txt")
    _assert_one_line(info.value, "nope.txt", "no such book file")


def test_directory_is_not_a_book(tmp_path: Path) -> None:
    folder = tmp_path / "folder.md"
    folder.mkdir()
    with pytest.raises(BookError) as info:
        read_book(folder)
    _assert_one_line(info.value, "is a directory, not a book file")


@pytest.mark.parametrize("name", ["book.odt", "book.rtf", "book"])
def test_unsupported_suffix(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("Some text.")
    with pytest.raises(BookError) as info:
        read_book(path)
    _assert_one_line(info.value, "unsupported book format", ".txt")


def test_txt_names_set_under_most_chapter_lines_title_them_and_illustrations_are_never_read(
    tmp_path: Path,
) -> None:
    chapters = "".join(
        f"HOOFDSTUK {n}\n\nDe {name}.\n\n[Illustratie: Een schip]\n\nHet jaar 1650 begon ruw.\n\n"
        for n, name in (("I", "Winterdag"), ("II", "Vacantie"), ("III", "Baai"))
    )
    book = read_book(_write(tmp_path, "t.txt", chapters))
    titles = [c.title.rstrip(".") for c in book.chapters]
    assert titles == ["HOOFDSTUK I. De Winterdag", "HOOFDSTUK II. De Vacantie", "HOOFDSTUK III. De Baai"]
    assert not any("Illustratie" in p or "schip" in p for c in book.chapters for p in c.paragraphs)


def test_txt_a_word_list_in_two_columns_is_matter_and_a_vignette_is_not_read(tmp_path: Path) -> None:
    words = "".join(
        f"  {fr},{' ' * 20}{nl}.\n"
        for fr, nl in (("Méchant", "ondeugend"), ("gourmand", "gulzig"), ("gentille", "lief"))
    )
    text = (
        "CHAPITRE I.\n\nMarie rentre avec Alice dans la maison, et Jean la suit de loin.\n\n"
        "CHAPITRE II.\n\nJean s'amusait toujours beaucoup à l'école, et Marie aussi.\n\n"
        "[Vignette: IK BLIJF WERKEN]\n\n\n\n\n"
        f"MOTS ET EXPRESSIONS.\n\n\n{words}\n{words}"
    )
    book = read_book(_write(tmp_path, "entre.txt", text))
    skipped = {c.title: c.skipped_by for c in book.chapters if c.kind != "body"}
    assert skipped == {"MOTS ET EXPRESSIONS": "a word list (terms and their glosses in two columns)"}
    spoken = " ".join(p for c in book.chapters if c.kind == "body" for p in c.paragraphs)
    assert "Vignette" not in spoken and "ondeugend" not in spoken


#: Three lessons of a tutor: a rule drawn above each heading, numbered by its place.
_LESSONS = [("1.1.1", "A KURZOR"), ("1.1.2", "KILÉPÉS"), ("1.1", "ÖSSZEFOGLALÓJA")]


def test_sections_numbered_by_their_place_are_chapters_and_a_rule_above_a_heading_is_a_break(
    tmp_path: Path,
) -> None:
    rule = "~" * 32
    text = f"{'=' * 17}\n== Üdvözöljük ==\n{'=' * 17}\n\n{_PROSE}\n"
    for number, name in _LESSONS:
        text += f"{rule}\n\t\t{number}.  lecke: {name}\n\n\n{_PROSE}\n"
    book = read_book(_write(tmp_path, "tutor.txt", text))
    titles = [c.title for c in book.chapters if c.kind == "body"]
    assert titles[-3:] == [f"{number}. lecke: {name}" for number, name in _LESSONS]
    assert not any("~~~" in p or "===" in p for c in book.chapters for p in c.paragraphs)
    # A version number in a sentence heads nothing: "3.2 Results" must be a line of its own.
    prose = read_book(_write(tmp_path, "prose.txt", f"CHAPTER I\n\n{_PROSE} Version 3.2 came out.\n"))
    assert len(prose.chapters) == 1


def test_a_plain_text_written_in_markdown_is_read_as_markdown_and_named_sections_head_their_blocks(
    tmp_path: Path,
) -> None:
    lessons = "\n\n".join(f"# Lesson 2.1.{n}: REGISTER {n}\n\n{_PROSE}" for n in range(1, 4))
    book = read_book(_write(tmp_path, "tutor.txt", f"# Welcome\n\nHello.\n\n{lessons}\n"))
    assert [c.title for c in book.chapters][-3:] == [f"Lesson 2.1.{n}: REGISTER {n}" for n in range(1, 4)]
    assert "plain text written in Markdown: read as Markdown" in book.notes
    # "1. Mõisted" heads the block it opens, its text on the next line; the line is not its title.
    articles = "\n\n".join(f"{n}. Osa {n}\nKäesolevas litsentsis. {_PROSE * 2}" for n in range(1, 5))
    licence = read_book(_write(tmp_path, "licence.txt", f"LITSENTS\n\n{articles}\n"))
    assert [c.title for c in licence.chapters][-4:] == [f"{n}. Osa {n}" for n in range(1, 5)]


def test_a_letter_spaced_banner_is_read_as_words_and_one_letter_words_stay_apart(tmp_path: Path) -> None:
    prose = "Tam byl dům a v něm žil starý muž, který měl rád knihy a v zimě četl u kamen. " * 20
    text = f"Ü d v ö z ö l j ü k   a   V I M - o k t a t ó b a n\n\n{prose}\n\nS tím a v s k dalším.\n"
    book = read_book(_write(tmp_path, "banner.txt", text))
    said = " ".join(p for c in book.chapters for p in c.paragraphs)
    # Alone on the first line, the banner is the title.
    assert book.title == "Üdvözöljük a VIM-oktatóban"
    assert "S tím a v s k dalším." in said


def test_underlined_lines_head_chapters_and_placeholders_are_not_read(tmp_path: Path) -> None:
    words = ["низове", "знаци", "думи", "редове", "екрани", "буфери"] * 2

    def prose(start: int) -> str:
        return "".join(
            f"Емакс може да търси {w} и {words[(n + start) % 12]} напред.\n" for n, w in enumerate(words * 2)
        )

    text = (
        "Въведение в Емакс.\n\n<<Blank lines inserted here by startup of help-with-tutorial>>\n\n"
        f"{prose(1)}\n\n"
        f"* ОБОБЩЕНИЕ\n-----------\n\n{prose(2)}\n\n* МНОЖЕСТВО ПРОЗОРЦИ\n----------------\n"
        f"Кратък ред под заглавието.\n\n{prose(3)}\n\nA closing line.\n---------------\n\n{prose(4)}"
    )
    book = read_book(_write(tmp_path, "tutorial.txt", text))
    titles = [c.title for c in book.chapters if c.kind == "body"]
    # The rule may be shorter than its line (16 under 20); an outline's star is not said.
    assert titles[-3:] == ["ОБОБЩЕНИЕ", "МНОЖЕСТВО ПРОЗОРЦИ", "A closing line"]
    said = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "Кратък ред под заглавието." in said and "<<" not in said and "---" not in said
    # One underlined line is a rule under a paragraph's last line, not a heading.
    single = read_book(
        _write(tmp_path, "one.txt", f"{prose(1)}\n\nA closing line.\n---------------\n\n{prose(2)}")
    )
    assert "A closing line" not in [c.title for c in single.chapters]


def test_an_editors_settings_in_a_plain_text_are_not_read(tmp_path: Path) -> None:
    prose = "The tutorial shows how to move the cursor about the screen with a few keys. " * 10
    text = (
        f"-*- mode: text; coding: utf-8 -*-\n\n{prose}\n\nvim: set tw=72 ft=text:\n\n"
        ";;; Local Variables:\n;;;   coding: utf-8\n;;; End:\n"
    )
    book = read_book(_write(tmp_path, "tutorial.txt", text))
    said = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert prose.strip() in said
    assert not any(mark in said for mark in ("-*-", "coding", "Local Variables", "vim:", "End:"))
    assert any("an editor's settings" in note for note in book.notes)


def test_txt_lines_led_by_one_label_are_the_sections_and_a_short_preamble_opens_the_first(
    tmp_path: Path,
) -> None:
    # A game's HOWTO: each question a line led by "Fråga:", one wrapped with a hanging indent.
    answer = "\t" + "\n".join(["Man bör ha många städer och utforska sin ö tidigt i spelet."] * 30) + "\n"
    questions = [
        "Vilken är strategin?",
        "Vilken kartstorlek\n       ska man använda?",
        "Vilka enheter är bäst?",
    ]
    text = "Hur man spelar\n\nFör upplysningar om hur man installerar, se INSTALL.\n\n" + "".join(
        f"Fråga: {q}\n\n{answer}\n" for q in questions
    )
    book = read_book(_write(tmp_path, "howto.txt", text))
    assert [c.title for c in book.chapters] == [
        "Fråga: Vilken är strategin?",
        "Fråga: Vilken kartstorlek ska man använda?",
        "Fråga: Vilka enheter är bäst?",
    ]
    assert book.title == "Hur man spelar"
    assert book.chapters[0].paragraphs[0].startswith("För upplysningar")


def test_a_plain_text_s_first_line_standing_alone_is_its_title_and_a_byline_above_a_heading_is_not(
    tmp_path: Path,
) -> None:
    prose = "Det här är en text om hur man spelar, skriven för nya spelare av spelet.\n"
    book = read_book(_write(tmp_path, "howto-sv.txt", f"Hur man spelar Freeciv\n\n{prose}\n{prose}"))
    assert book.title == "Hur man spelar Freeciv"
    assert book.chapters[0].paragraphs[0].startswith("Det här är")
    assert any("the first lines are the book's title" in note for note in book.notes)
    # Bilinguator's layout: the author's name, then the title as a tagged heading.
    told = "Der var <i>engang</i> en <i>trold</i>, en <i>ond</i> trold, den allerværste af dem alle.\n"
    tagged = f"Hans Christian Andersen\n\n<h1>Snedronningen</h1>\n\n{told}\n{told}"
    assert read_book(_write(tmp_path, "andersen.txt", tagged)).title == "Snedronningen"
    # A sentence is no title: the file's name is.
    assert read_book(_write(tmp_path, "pikovaya.txt", f"{prose}\n{prose}")).title == "Pikovaya"
    # A title of a word or two set with a full stop, as old printings set them, is one.
    verse = "En la mondon venis nova sento,\nTra la mondo iras forta voko;\n"
    assert read_book(_write(tmp_path, "versy.txt", f"Espero.\n\n{verse}\n{verse}")).title == "Espero"


def test_a_boxed_notice_and_empty_fields_are_not_read_and_the_line_the_file_is_named_for_is_the_title(
    tmp_path: Path,
) -> None:
    # Wolne Lektury's plain text of 2008: a notice boxed in rules, empty fields, author, title.
    notice = (
        "-----\nPublikacja zrealizowana w ramach projektu Wolne Lektury (http://wolnelektury.pl/).\n-----"
    )
    story = "Przyszło to na świat wątłe, słabe, a kumy kręciły głowami nad matką i nad dzieckiem.\n"
    text = f"\n{notice}\n\nAUTOR: \nTYTUŁ: \n\n\nHenryk Sienkiewicz\n\nJanko Muzykant\n\n\n{story * 3}"
    book = read_book(_write(tmp_path, "janko-muzykant-sienkiewicz.txt", text))
    assert (book.title, book.authors) == ("Janko Muzykant", ("Henryk Sienkiewicz",))
    said = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert said.startswith("Przyszło to na świat")
    for unread in ("Wolne Lektury", "AUTOR", "TYTUŁ", "Sienkiewicz", "-----"):
        assert unread not in said
