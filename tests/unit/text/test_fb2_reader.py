"""FictionBook 2: sections and titles, metadata, verse, notes by `notes:`, zipped books, hostile files."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from conftest import BOOKS, refused_in_one_line

from narrator.text.ingest import load_book, read_book
from narrator.text.readers import READERS, book_suffix

FB2 = BOOKS / "die-verwandlung-pg22367-calibre.fb2.zip"

# A FictionBook 2.0 book as FB2 editors write one: two parts of chapters, a poem, an epigraph, an
# image, a note reference, and the notes body; in windows-1251, as many Russian FB2 files are.
NESTED = """<?xml version="1.0" encoding="windows-1251"?>
<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0" xmlns:l="http://www.w3.org/1999/xlink">
<description><title-info><genre>prose</genre>
<author><first-name>Александр</first-name><middle-name>Сергеевич</middle-name><last-name>Пушкин</last-name></author>
<book-title>Повести</book-title><date value="1831-10-01">1831</date><lang>ru</lang>
</title-info></description>
<body><title><p>А. С. Пушкин</p><p>Повести</p></title>
<epigraph><p>Эпиграф ко всей книге.</p><text-author>Автор эпиграфа</text-author></epigraph>
<section><title><p>Часть первая</p></title>
<section><title><p>Глава I</p><p>Выстрел</p></title>
<p>Мы стояли в местечке<a l:href="#n1" type="note">[1]</a> близ города.</p>
<image l:href="#pic.jpg"/>
<poem><stanza><v>Первая строка,</v><v>вторая строка.</v></stanza></poem>
</section>
<section><title><p>Глава II</p><p>Метель<sup><a l:href="#n1" type="note">[1]</a></sup></p></title>
<p>В конце 1811 года жил добрый Гаврила.</p></section>
</section>
<section><title><p>Часть вторая</p></title>
<section><title><p>Глава III</p><p>Гробовщик</p></title><p>Последние пожитки гробовщика.</p></section>
</section>
</body>
<body name="notes"><section id="n1"><title><p>1</p></title><p>Местечко было маленьким.</p></section></body>
</FictionBook>
"""


def _write(tmp_path: Path, name: str, data: str | bytes, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode(encoding) if isinstance(data, str) else data)
    return path


def test_fb2_and_zipped_fb2_are_registered() -> None:
    assert READERS[".fb2"] is READERS[".fb2.zip"]
    assert book_suffix(Path("Kafka.Die.Verwandlung.FB2.ZIP")) == ".fb2.zip"
    assert book_suffix(Path("archive.zip")) == ".zip"


def test_a_real_zipped_fb2_plans_its_chapters_metadata_and_cover() -> None:
    whole = read_book(FB2)
    assert (whole.title, whole.authors, whole.language) == ("Die Verwandlung", ("Franz Kafka",), "de")
    assert whole.language_source == "FB2 title-info lang"
    assert whole.cover is not None and whole.cover.media_type == "image/jpeg"
    book = load_book(FB2)
    assert [c.title for c in book.chapters] == ["Kapitel I", "Kapitel II", "Kapitel III"]
    assert book.chapters[0].paragraphs[0].startswith("Als Gregor Samsa eines Morgens aus unruhigen Träumen")
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "Gutenberg" not in spoken and "img_" not in spoken


def test_parts_chapters_verse_and_metadata_of_an_fb2(tmp_path: Path) -> None:
    book = read_book(_write(tmp_path, "povesti.fb2", NESTED, "cp1251"))
    assert (book.title, book.authors, book.language, book.date) == (
        "Повести",
        ("Александр Сергеевич Пушкин",),
        "ru",
        "1831-10-01",
    )
    # The body's epigraph, before the first section, is read first, untitled, as HTML's lead text is.
    assert [c.title for c in book.chapters] == [
        "",
        "Часть первая. Глава I. Выстрел",
        "Глава II. Метель",
        "Часть вторая. Глава III. Гробовщик",
    ]
    assert book.chapters[0].paragraphs == ("Эпиграф ко всей книге.", "Автор эпиграфа")
    first = next(c for c in book.chapters if "Выстрел" in c.title)
    assert first.paragraphs[:2] == ("Мы стояли в местечке близ города.", "Первая строка,\nвторая строка.")
    assert not any("Местечко было" in p for c in book.chapters for p in c.paragraphs)
    # Not read, but kept after the paragraph that refers to it, for the read-along EPUB to show.
    assert first.notes == ((1, "Местечко было маленьким."),)


def test_fb2_notes_are_read_after_their_paragraph_when_asked(tmp_path: Path) -> None:
    book = read_book(_write(tmp_path, "povesti.fb2", NESTED, "cp1251"), notes="read")
    first = next(c for c in book.chapters if "Выстрел" in c.title)
    assert first.paragraphs[:2] == ("Мы стояли в местечке близ города.", "Местечко было маленьким.")
    # A note reference in a title is not part of the title, whichever notes says.
    assert [c.title for c in book.chapters if "Метель" in c.title] == ["Глава II. Метель"]


def test_sections_nested_inside_a_chapter_are_headings_in_it(tmp_path: Path) -> None:
    """Parts, chapters and their short sections: the chapters are what a listener skips between."""
    section = "<section><title><p>{}</p></title><p>{}</p>{}</section>"
    # Each chapter's own words: text repeated from chapter to chapter would be a running header.
    words = {1: ("Утро", "Дождь", "Поле"), 2: ("День", "Ветер", "Лес"), 3: ("Вечер", "Снег", "Река")}

    def chapter(n: int) -> str:
        first, second, third = words[n]
        point = section.format(f"{n}.1.1. Пункт", f"{third} у дороги.", "")
        sub = section.format(f"{n}.1. Подраздел", f"{second} над домом.", point)
        text = f"{first} пришло в город. " * 40
        return section.format(f"Глава {n}", text, section.format(f"{n}. Раздел", f"{first} и {second}.", sub))

    body = f"<section><title><p>Часть первая</p></title>{''.join(chapter(n) for n in (1, 2, 3))}</section>"
    document = NESTED.split("<body>")[0] + f"<body>{body}</body></FictionBook>"
    book = read_book(_write(tmp_path, "nested.fb2", document, "cp1251"))
    assert [c.title for c in book.chapters] == ["Часть первая. Глава 1", "Глава 2", "Глава 3"]
    assert book.chapters[1].paragraphs[1:] == (
        "2. Раздел",
        "День и Ветер.",
        "2.1. Подраздел",
        "Ветер над домом.",
        "2.1.1. Пункт",
        "Лес у дороги.",
    )


def test_the_fb2_test_book_plans_its_top_level_sections_seven_deep_as_headings() -> None:
    book = read_book(BOOKS / "fb2cng-test-book-ru.fb2")
    assert len(book.chapters) == 9
    nested = next(c for c in book.chapters if c.title == "Аннотации. Вложенные секции")
    assert "1.1.1.1.1.1.1. Седьмая тестовая секция" in nested.paragraphs


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (NESTED[: len(NESTED) // 2], "not well-formed XML"),
        ('<?xml version="1.0"?><html><body><p>Hi</p></body></html>', "not an FB2"),
        (b"\x00\x01binary junk\xff" * 50, "not well-formed XML"),
    ],
    ids=["truncated", "not-fictionbook", "binary"],
)
def test_a_damaged_fb2_is_one_line(tmp_path: Path, content: str | bytes, expected: str) -> None:
    assert expected in refused_in_one_line(_write(tmp_path, "broken.fb2", content))


def test_entities_in_an_fb2_are_never_expanded(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    doctype = (
        f'<!DOCTYPE FictionBook [<!ENTITY xxe SYSTEM "file://{secret}">'
        '<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
    )
    hostile = NESTED.replace('encoding="windows-1251"?>', f'encoding="utf-8"?>{doctype}').replace(
        "близ города.", "близ &xxe; &b; города."
    )
    book = read_book(_write(tmp_path, "xxe.fb2", hostile))
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "TOP-SECRET" not in spoken and "aaaa" not in spoken and "близ" in spoken


def test_a_zipped_fb2_is_size_checked_and_must_hold_one_book(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.fb2.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bomb.fb2", bytes(300 * 1024 * 1024))
    assert "zip bomb" in refused_in_one_line(bomb)
    two = tmp_path / "two.fb2.zip"
    with zipfile.ZipFile(two, "w") as archive:
        archive.writestr("a.fb2", NESTED)
        archive.writestr("b.fb2", NESTED)
    assert "holds 2 .fb2 files" in refused_in_one_line(two)
    assert "not an FB2: the file is not a readable zip" in refused_in_one_line(
        _write(tmp_path, "junk.fb2.zip", b"PK\x03\x04 not really")
    )


def test_an_entity_the_file_never_defines_is_left_out_not_a_refusal(tmp_path: Path) -> None:
    # FBReader's own help books say "&FBReaderVersion;", which the program fills in.
    data = NESTED.replace("<p>Повести</p></title>", "<p>Повести &Version;</p></title>", 1)
    book = read_book(_write(tmp_path, "help.fb2", data, "windows-1251"))
    assert "Version" not in " ".join([c.title for c in book.chapters] + [book.title])
    assert "not read: &Version;: entities the file uses and never defines" in book.notes
    # Broken XML of another kind is still refused in one line.
    broken = _write(tmp_path, "broken.fb2", NESTED.replace("</section>", "", 1), "windows-1251")
    assert "not well-formed XML" in refused_in_one_line(broken)
