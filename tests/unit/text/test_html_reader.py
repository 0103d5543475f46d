"""Standalone HTML and XHTML books: title, chapters at headings, footnotes, charsets, hostile input."""

from __future__ import annotations

from pathlib import Path

import pytest

from narrator.core.errors import BookError
from narrator.text.ingest import read_book
from narrator.text.readers import READERS
from narrator.text.readers.html import read_html
from narrator.text.readers.titles import counted_label

NOVEL = """<!DOCTYPE html>
<html><head><title>The Great Book</title><style>p { color: red }</style><script>var x = 1;</script></head>
<body>
<h1>The Great Book</h1>
<p>Some words before the first chapter.</p>
<h2>Chapter One</h2>
<p>It began <em>softly</em>,<sup><a href="#fn1" id="r1">1</a></sup> then <b>loudly</b>.</p>
<p>A <a href="http://example.com">link</a> here<a class="footnote" href="#fn2">[2]</a>.</p>
<p><img src="pic.png" alt="a picture"></p>
<hr>
<p>After the break.
</p>
<h2>Chapter Two</h2>
<h3>A Section</h3>
<p>The end came.</p>
<div class="poem"><p>Roses are red,<br>violets are blue.</p></div>
</body></html>
"""


def _write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def test_html_suffixes_are_registered() -> None:
    assert all(READERS[suffix] is read_html for suffix in (".html", ".htm", ".xhtml"))


def test_html_title_chapters_by_headings_footnotes_dropped(tmp_path: Path) -> None:
    book = read_book(_write(tmp_path, "novel.html", NOVEL))
    assert book.title == "The Great Book" and book.encoding == "utf-8"
    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        ("", ("Some words before the first chapter.",)),
        ("Chapter One", ("It began softly, then loudly.", "A link here.", "After the break.")),
        # A heading right under one that only numbers the chapter names it ("CHAPTER I" / "INTRODUCTORY").
        ("Chapter Two. A Section", ("The end came.", "Roses are red,\nviolets are blue.")),
    ]
    assert book.chapters[1].section_ends == frozenset({1})
    assert all(c.kind == "body" for c in book.chapters)


def test_html_without_repeated_headings_is_one_chapter(tmp_path: Path) -> None:
    path = _write(tmp_path, "story.htm", "<html><body><h1>A Story</h1><p>One.</p><p>Two.</p></body></html>")
    book = read_book(path)
    assert book.title == "Story"  # no <title>: from the file name
    assert [(c.title, c.paragraphs) for c in book.chapters] == [("A Story", ("One.", "Two."))]


def test_html_declared_cp1252_charset_is_honoured(tmp_path: Path) -> None:
    html = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
        "<title>Caf\xe9</title></head><body><p>\x93Quoted\x94 caf\xe9 \x96 na\xefve.</p></body></html>"
    )
    book = read_book(_write(tmp_path, "cafe.html", html.encode("latin-1")))
    assert book.encoding == "cp1252" and book.title == "Café"
    assert book.chapters[0].paragraphs == ("“Quoted” café – naïve.",)


def test_html_latin1_label_reads_as_cp1252_and_utf8_meta_charset(tmp_path: Path) -> None:
    latin = '<meta charset="iso-8859-1"><p>\x93Hi\x94</p>'.encode("latin-1")
    assert read_book(_write(tmp_path, "a.html", latin)).chapters[0].paragraphs == ("“Hi”",)
    utf8 = '<meta charset="utf-8"><p>Ünïcödé</p>'.encode()
    assert read_book(_write(tmp_path, "b.html", utf8)).chapters[0].paragraphs == ("Ünïcödé",)


def test_xhtml_file_with_namespaces_and_declaration(tmp_path: Path) -> None:
    xhtml = (
        '<?xml version="1.0" encoding="iso-8859-1"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>X</title></head><body>'
        "<h2>One</h2><p>Caf\xe9&nbsp;one.</p><h2>Two</h2><p>Two.</p></body></html>"
    )
    book = read_book(_write(tmp_path, "x.xhtml", xhtml.encode("latin-1")))
    assert [(c.title, c.paragraphs) for c in book.chapters] == [("One", ("Café one.",)), ("Two", ("Two.",))]


def test_gutenberg_html_header_and_licence_are_front_and_back(tmp_path: Path) -> None:
    html = (
        "<html><head><title>The Project Gutenberg eBook of Days</title></head><body>"
        '<section class="pg-boilerplate" id="pg-header"><h2>The Project Gutenberg eBook of Days</h2>'
        "<p>This ebook is for the use of anyone anywhere.</p>"
        "<p>*** START OF THE PROJECT GUTENBERG EBOOK DAYS ***</p></section>"
        "<h2>Chapter 1</h2><p>Morning.</p><h2>Chapter 2</h2><p>Evening.</p>"
        '<section class="pg-boilerplate" id="pg-footer">'
        "<p>*** END OF THE PROJECT GUTENBERG EBOOK DAYS ***</p>"
        "<h2>THE FULL PROJECT GUTENBERG LICENSE</h2><p>Section 1.</p></section></body></html>"
    )
    book = read_book(_write(tmp_path, "days.html", html))
    assert [(c.title, c.kind) for c in book.chapters] == [
        ("The Project Gutenberg eBook of Days", "front"),
        ("Chapter 1", "body"),
        ("Chapter 2", "body"),
        ("THE FULL PROJECT GUTENBERG LICENSE", "back"),
    ]
    assert book.chapters[2].paragraphs == ("Evening.",)


def test_html_never_resolves_external_entities(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT-42")
    doctype = f'<!DOCTYPE html [<!ENTITY xxe SYSTEM "file://{secret}">]>'
    for name in ("x.html", "x.xhtml"):
        page = f'{doctype}<html xmlns="http://www.w3.org/1999/xhtml"><body><p>A &xxe; B</p></body></html>'
        book = read_book(_write(tmp_path, name, page))
        assert "TOP-SECRET" not in repr(book)


def test_html_with_no_text_is_one_line_error(tmp_path: Path) -> None:
    for name, data in (("empty.html", ""), ("images.html", '<html><body><img src="a.png"></body></html>')):
        path = _write(tmp_path, name, data)
        with pytest.raises(BookError) as caught:
            read_book(path)
        assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)


def test_numerals_alone_in_a_page_without_headings_are_chapters_and_its_edge_links_are_not_read(
    tmp_path: Path,
) -> None:
    # A Word export as Project Ben-Yehuda serves it: no heading styles, Hebrew numerals on their
    # own lines (one missing, as printed), a "contents" link at the top and a "home" link below.
    prose = "<p>" + " ".join(["יום בציר בהיר וחם היה, אחד מאלה הבלתי-נפרצים."] * 40) + "</p>"
    numerals = ["א.", "ב.", "ג.", "ה.", "ו."]
    body = "".join(f"<p>{numeral}</p>{prose}" for numeral in numerals)
    page = (
        '<html lang="he"><body><p>נגד הזרם</p><p><a href="index.html">לתוכן הענינים</a></p>'
        f'{body}<p><a href="/">לדף הראשי של פרויקט בן-יהודה</a></p></body></html>'
    )
    book = read_book(_write(tmp_path, "neged.html", page))
    assert [c.title for c in book.chapters if c.kind == "body"][-5:] == [
        "פרק א",
        "פרק ב",
        "פרק ג",
        "פרק ה",
        "פרק ו",
    ]
    said = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "לתוכן הענינים" not in said and "לדף הראשי" not in said
    assert any("a link at the start or end of the book" in note for note in book.notes)


NOTED = """<html><head><title>Noted</title></head><body>
<h2>One</h2>
<p>First words.<aside epub:type="footnote"><p>A note in the paragraph.</p></aside> More words.</p>
<figure><img src="a.png" alt=""/><figcaption>A caption.</figcaption></figure>
<p>Second words.</p>
<p>Third words.</p>
<aside epub:type="endnote">The last note.</aside>
</body></html>
"""


def test_notes_dropped_are_kept_after_the_paragraph_they_stood_in_or_after(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "noted.xhtml", NOTED.replace("<html>", '<html xmlns:epub="http://www.idpf.org/2007/ops">')
    )
    (chapter,) = read_book(path).chapters
    assert chapter.paragraphs == ("First words. More words.", "Second words.", "Third words.")
    assert chapter.notes == ((1, "A note in the paragraph."), (1, "A caption."), (3, "The last note."))
    (read,) = read_book(path, notes="read").chapters
    assert "A caption." in read.paragraphs and read.notes == ()


def test_a_bare_illustration_mark_is_not_read(tmp_path: Path) -> None:
    body = "<h1>Préface</h1><p>[Illustration]</p><p>Le texte. [Illustration] Suite.</p>"
    page = f"<html><body>{body}</body></html>"
    book = read_book(_write(tmp_path, "fleurs.html", page))
    assert [p for c in book.chapters for p in c.paragraphs] == ["Le texte. Suite."]


WIKI_EXPORT = """<html><head><title>The Project Gutenberg eBook of Old Songs, by Ann Lee.</title></head><body>
<h2>Old Songs</h2>
<h6>Exported from Wikisource on February 8, 2023</h6>
<table class="plainlinks1"><tr><td class="mbox-text1">A scan-backed, verifiable version of this work
can be edited here. If you would like to help, please see the help pages.</td></tr></table>
<h2>BOOK ONE.</h2>
<h2><img src="t1.png" alt="THE HOUSE."></h2>
<p>The house stood on a hill above the river, and every window looked out over the water below it.</p>
<p>Nobody who lived there ever wished to leave it, though the winters were long and very cold.</p>
<h2>BOOK TWO.</h2>
<h2><img src="t2.png" alt="THE GARDEN."></h2>
<p>The garden ran down to the water, and in summer the children played there from dawn to dusk.</p>
<h1>About this digital edition</h1>
<p>We distribute our books for free, under a free license. The following users contributed.</p>
</body></html>"""


def test_a_wiki_export_and_titles_set_as_images(tmp_path: Path) -> None:
    book = read_book(_write(tmp_path, "songs.html", WIKI_EXPORT))
    # The producer's wrapper is not the title; the author it names is the book's.
    assert (book.title, book.authors) == ("Old Songs", ("Ann Lee",))
    body = [c for c in book.chapters if c.kind == "body"]
    # A heading that is a picture is titled by its alt text; the half-title above it joins it.
    assert [c.title for c in body] == ["BOOK ONE. THE HOUSE", "BOOK TWO. THE GARDEN"]
    said = " ".join(p for c in body for p in c.paragraphs)
    assert "Exported from Wikisource" not in said
    assert "scan-backed" not in said  # the wiki's message box is its interface
    assert "We distribute" not in said
    assert any(c.skipped_by == "about this digital edition (by title)" for c in book.chapters)


def test_the_author_meta_names_the_authors(tmp_path: Path) -> None:
    page = NOVEL.replace("<title>", '<meta name="author" content="Scott Chacon, Ben Straub"><title>')
    # A comma may invert one name as well as part two: the line is kept whole.
    assert read_book(_write(tmp_path, "git.html", page)).authors == ("Scott Chacon, Ben Straub",)


def test_a_word_that_counts_headings_is_learnt_and_headings_that_share_a_word_by_chance_are_not() -> None:
    assert counted_label(["Bölüm 1", "Bölüm 2: Kayıp", "Bölüm 1", "Bölüm 2", "Bölüm 3"]) == "bölüm"
    assert counted_label(["अध्याय 1", "अध्याय २", "अध्याय ३"]) == "अध्याय"
    assert counted_label(["The Gate", "The Hall", "The End"]) is None
    assert counted_label(["Step 2", "Step 3", "Step 4"]) is None  # never starts at one


def test_steps_counted_inside_one_chapter_do_not_become_the_chapters(tmp_path: Path) -> None:
    steps = "".join(f"<h3>Step {n}</h3><p>Do this, then that, and then the other.</p>" for n in (1, 2, 3))
    page = (
        "<html><body><h1>Setup</h1><p>Install it first.</p>"
        f"<h1>Usage</h1><p>Run it.</p>{steps}<h1>Tuning</h1><p>Tune it.</p>"
        "<h1>Errors</h1><p>Read them.</p></body></html>"
    )
    path = tmp_path / "manual.html"
    path.write_text(page, encoding="utf-8")
    assert [c.title for c in read_book(path).chapters] == ["Setup", "Usage", "Tuning", "Errors"]


def test_an_article_under_a_title_page_set_in_headings_has_its_sections_for_chapters(tmp_path: Path) -> None:
    prose = "<p>" + "The Passamaquoddies had many dances, sacred and profane, in old times. " * 30 + "</p>"
    sections = "".join(
        f"<h3>{name}</h3>{prose}" for name in ("THE SNAKE DANCE.", "TRADE DANCE.", "WAR SONGS.")
    )
    page = (
        "<html><body><h1>CONTRIBUTION</h1><h2>TO</h2><h1>PASSAMAQUODDY FOLK-LORE</h1>"
        f"<h2>By J. WALTER FEWKES</h2><h2>A CONTRIBUTION TO PASSAMAQUODDY FOLK-LORE.</h2>{prose}{sections}"
        "<h2>FOOTNOTES</h2><p>[1] Mrs. W. Wallace Brown.</p></body></html>"
    )
    path = tmp_path / "folk-lore.html"
    path.write_text(page, encoding="utf-8")
    body = [c for c in read_book(path).chapters if c.kind == "body"]
    # The article's sections, not one chapter of it all; its untitled two-minute opening is heard
    # at the first one's start.
    assert [c.title for c in body] == ["THE SNAKE DANCE", "TRADE DANCE", "WAR SONGS"]
    assert [len(c.paragraphs) for c in body] == [2, 1, 1]


def _tales(advertisements: str) -> str:
    contents = "".join(f'<p><a href="#t{n}">Tale {n}</a></p>' for n in range(1, 4))
    tales = "".join(
        f'<h2 id="t{n}">Tale {n}</h2><p>{"Once upon a time there was a story. " * 40}</p>'
        for n in range(1, 4)
    )
    return f"<html><body><h1>Tales</h1><h2>Contents</h2>{contents}{tales}{advertisements}</body></html>"


def test_what_follows_the_last_chapter_the_contents_links_to_is_not_read(tmp_path: Path) -> None:
    ads = (
        "<h2>STARR PIANOS</h2><p>WORLD'S FAIR, 1893. BUY DIRECT AND SAVE MONEY.</p>"
        "<h2>Syrup of Figs</h2><p>50 cents.</p>"
    )
    book = read_book(_write(tmp_path, "tales.html", _tales(ads)))
    assert [(c.title, c.kind) for c in book.chapters if c.kind == "body"] == [
        ("Tale 1", "body"),
        ("Tale 2", "body"),
        ("Tale 3", "body"),
    ]
    assert {c.skipped_by for c in book.chapters if c.title in ("STARR PIANOS", "Syrup of Figs")} == {
        "after the last chapter the book's contents links to"
    }


def test_a_contents_that_lists_the_first_chapters_alone_leaves_the_rest_read(tmp_path: Path) -> None:
    more = "".join(f"<h2>Tale {n}</h2><p>{'And then another story came. ' * 40}</p>" for n in range(4, 7))
    book = read_book(_write(tmp_path, "tales.html", _tales(more)))
    assert [c.title for c in book.chapters if c.kind == "body"] == [f"Tale {n}" for n in range(1, 7)]


def test_a_paragraph_of_links_to_music_is_not_read_but_a_sentence_with_one_is(tmp_path: Path) -> None:
    page = (
        "<html><body><h1>Tales</h1><h2>The Fiddle</h2><p>He played the old tune once more for them all.</p>"
        '<p><a href="music/015.midi">(Listen to MIDI version of the above)</a><br/>'
        'Sheet Music: <a href="music/015.png">Page 1</a>.</p>'
        '<p>The tune is printed in <a href="music/016.png">the plate</a> at the end of this chapter.</p>'
        "</body></html>"
    )
    book = read_book(_write(tmp_path, "tales.html", page))
    assert book.chapters[0].paragraphs[-2:] == (
        "He played the old tune once more for them all.",
        "The tune is printed in the plate at the end of this chapter.",
    )
    assert "Listen" not in " ".join(book.chapters[0].paragraphs)
    assert any("links to the files beside the text" in note for note in book.notes)


def test_a_heading_the_page_s_contents_names_otherwise_takes_the_contents_words(tmp_path: Path) -> None:
    reading = "<p>Jesus was a little child once, and He knows what it is to be a child.</p>" * 20
    page = (
        "<html><body><h1>Morning Bells</h1><h2>Contents</h2>"
        '<p><a href="#d1">"Thy Holy Child Jesus"</a><br/><a href="#d2">"Even Christ pleased not Himself"</a>'
        '<br/><a href="#d3">Third Day</a> <a href="#d3">3</a></p>'
        f'<h2 id="d1">1. First Day.</h2>{reading}<h2 id="d2">2. Second Day.</h2>{reading}'
        f'<h2 id="d3">3. Third Day.</h2>{reading}</body></html>'
    )
    book = read_book(_write(tmp_path, "bells.html", page))
    assert [c.title for c in book.chapters if c.kind == "body"] == [
        '1. First Day. "Thy Holy Child Jesus"',
        '2. Second Day. "Even Christ pleased not Himself"',
        "3. Third Day",
    ]


def test_a_form_and_the_panel_that_captions_it_are_not_read(tmp_path: Path) -> None:
    page = (
        '<html><body><div class="proof-panel"><a href="#">_</a><b>Tell us what is wrong</b>'
        '<form method="post" action="/proof">Email: <input name="email"/><p>Quote a few words around each'
        " error.</p></form></div><h1>The Book</h1><p>The story begins on a quiet morning by the river.</p>"
        "</body></html>"
    )
    book = read_book(_write(tmp_path, "site.html", page))
    spoken = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert "The story begins" in spoken
    assert "wrong" not in spoken and "Email" not in spoken and "error" not in spoken


def test_short_paragraphs_that_number_and_name_chapters_are_chapters_but_a_numbered_list_is_not(
    tmp_path: Path,
) -> None:
    prose = "<p>" + " ".join(["Gylfi konungr réð þar löndum er nú heitir Svíþjóð."] * 40) + "</p>"
    names = ["Frá Gylfa konungi ok Gefjuni.", "Gylfi kom til Ásgarðs.", "Um Alföðr.", "Frá Ganglera."]
    body = "".join(f"<p><br><b>{n}. {name}</b></p>{prose}" for n, name in enumerate(names, 1))
    book = read_book(_write(tmp_path, "gylfaginning.html", f"<div lang='nb'>{body}</div>"))
    assert [c.title for c in book.chapters] == [f"{n}. {name.rstrip('.')}" for n, name in enumerate(names, 1)]
    steps = "".join(f"<p>{n}. Stir the pot.</p>" for n in range(1, 6))
    listed = read_book(_write(tmp_path, "recipe.html", f"<h1>Soup</h1>{prose}{steps}{prose}"))
    assert len(listed.chapters) == 1


def test_a_lone_heading_under_the_title_is_the_chapter_unless_it_is_a_byline(tmp_path: Path) -> None:
    prose = (
        "<p>"
        + " ".join(["It is very seldom that mere ordinary people secure ancestral halls."] * 30)
        + "</p>"
    )
    book = read_book(_write(tmp_path, "valleys.html", f"<h1>Two Works</h1><h2>The First</h2>{prose}"))
    assert (book.title, [c.title for c in book.chapters]) == ("Two Works", ["The First"])
    story = read_book(
        _write(
            tmp_path,
            "wallpaper.html",
            f"<h1>The Yellow Wallpaper</h1><h2>By Charlotte Perkins Gilman</h2>{prose}",
        )
    )
    assert [c.title for c in story.chapters] == ["The Yellow Wallpaper"]
    # A byline in another language: a capitalised name of two words or more after the word.
    tale = read_book(
        _write(tmp_path, "lenes.html", f"<h1>Povestea unui om lenes</h1><h2>De Ion Creanga</h2>{prose}")
    )
    assert [c.title for c in tale.chapters] == ["Povestea unui om lenes"]
    for title in ("De Profundis", "De la terre à la lune"):
        works = read_book(_write(tmp_path, "works.html", f"<h1>Works</h1><h2>{title}</h2>{prose}"))
        assert [c.title for c in works.chapters] == [title]


def test_paragraphs_a_menu_links_to_are_headings_and_hidden_elements_are_never_read(tmp_path: Path) -> None:
    prose = "Licenciaras suteikia Jums teisę naudoti Licencijuojamus objektus visame pasaulyje. " * 30
    sections = "".join(
        f'<p id="s{n}"><strong>{n} skyrius – Dalis {n}.</strong></p><p>{prose}</p>' for n in range(1, 4)
    )
    menu = "".join(f'<li><a href="#s{n}">{n} skyrius – Dalis {n}.</a></li>' for n in range(1, 4))
    page = (
        f"<html><body><h1>Licencija</h1><ul>{menu}</ul>"
        '<p class="is-hidden">Collapsed panel.</p><span class="is-sr-only">Show more</span>'
        f'<div hidden>Never shown.</div><p style="display: none">Nor this.</p>{sections}</body></html>'
    )
    book = read_book(_write(tmp_path, "legalcode.html", page))
    body = [c for c in book.chapters if c.kind == "body"]
    assert [c.title for c in body] == [f"{n} skyrius – Dalis {n}" for n in range(1, 4)]
    said = " ".join(p for c in book.chapters for p in c.paragraphs)
    assert not any(hidden in said for hidden in ("Collapsed", "Show more", "Never shown", "Nor this"))


def test_a_page_set_line_by_line_with_breaks_has_paragraphs_and_roman_numbered_chapters(
    tmp_path: Path,
) -> None:
    article = "Fullt nafn manns er eiginnafn hans eða eiginnöfn, millinafn og kenninafn, sem hann ber. " * 5
    chapters = "".join(
        f"<br><b>{numeral}. kafli.</b> <b>Nafn {numeral}.</b><br>"
        + "".join(f"<b>{3 * n + k}. gr.</b><br>{article}<br>" for k in range(1, 4))
        for n, numeral in enumerate(("I", "II", "III", "IV"))
    )
    book = read_book(
        _write(tmp_path, "log.html", f"<html><body><h2>Lög um nöfn</h2>{chapters}</body></html>")
    )
    # The roman chapters, not the arabic articles under them, are the chapters; each line a paragraph.
    first, *rest = (c for c in book.chapters if c.kind == "body")
    assert [first.title] + [c.title.split(".")[0] for c in rest] == ["I. kafli. Nafn I", "II", "III", "IV"]
    assert first.paragraphs[:2] == ("1. gr.", article.strip())


def test_a_story_page_reads_its_own_language_once_and_its_pages_set_in_headings_as_text(
    tmp_path: Path,
) -> None:
    # A picture-book site: each page's text in three columns alike but for one class (the story,
    # its translation, the story again), shown one at a time by a script, set large in <h3>.
    pages = [
        "Kwenye jiji la Nairobi lenye pilikapilika nyingi paliishi kikundi cha wavulana wasiokuwa na makwao.",
        "Magozwe aliota kuwa rubani.",
        "Siku moja Magozwe alikuta kitabu cha hadithi kwenye mapipa ya takataka ya jiji lile kubwa.",
        "Thomas alimpeleka Magozwe kwenye nyumba yenye paa la kijani, na Magozwe akaanza kwenda shule.",
    ]
    english = [
        "In the busy city of Nairobi lived a group of homeless boys, far from a caring home.",
        "Magozwe dreamed of being a pilot.",
        "One day Magozwe found a storybook in the rubbish bins of the big city, torn and old.",
        "Thomas took Magozwe to the house with the green roof, and Magozwe started going to school.",
    ]
    columns = "".join(
        f'<div class="columns"><div class="column txt def"><h3>{sw}</h3></div>'
        f'<div class="column txt l1"><h3>{en}</h3></div><div class="column txt l2"><h3>{sw}</h3></div></div>'
        for sw, en in zip(pages, english, strict=True)
    )
    page = (
        "<html><head><title>Magozwe - Storybooks Kenya</title></head><body>"
        '<nav><a href="/">Home</a> <a href="/about">About</a></nav><p>Download PDF</p>'
        '<h1><span class="def">Magozwe</span> <span class="l1">Magozwe</span>'
        ' <span class="l2">Magozwe</span></h1>'
        f"{columns}<h5>Read more stories:</h5><p><a href='/s/1'>Simbegwire</a></p></body></html>"
    )
    book = read_book(_write(tmp_path, "story.html", page))
    body = [c for c in book.chapters if c.kind == "body"]
    # One chapter, titled by the page's heading (its <title> adds the site's name), read once.
    assert book.title == "Magozwe"
    assert [c.title for c in body] == ["Magozwe"]
    assert body[0].paragraphs == tuple(pages)
    assert book.language == "sw"


def test_two_headings_over_many_sections_are_parts_and_the_sections_are_chapters(tmp_path: Path) -> None:
    prose = (
        "<p>" + "Lemon reads a grammar and writes a parser for it in C, one rule at a time. " * 24 + "</p>"
    )
    sections = [f"Section {word}" for word in ["One", "Two", "Three", "Four", "Five", "Six", "Seven"]]
    page = (
        "<html><head><title>The Manual</title></head><body><h1>The Manual</h1>"
        f"<h2>Theory of Operation</h2>{prose}"
        + "".join(f"<h3>{s}</h3>{prose}" for s in sections[:3])
        + f"<h2>Input File Syntax</h2>{prose}"
        + "".join(f"<h3>{s}</h3>{prose}" for s in sections[3:])
        + "</body></html>"
    )
    body = [c for c in read_book(_write(tmp_path, "manual.html", page)).chapters if c.kind == "body"]
    titles = [c.title for c in body]
    assert len(titles) == 9 and titles[0] == "Theory of Operation" and titles[4] == "Input File Syntax"
    assert all(title.endswith(s) for title, s in zip(titles[1:4] + titles[5:], sections, strict=True))
    # With five sections below, the two headings are the chapters.
    fewer = page.replace("<h3>Section Seven</h3>", "<p>Section Seven</p>").replace(
        "<h3>Section Six</h3>", "<p>Section Six</p>"
    )
    shorter = [c for c in read_book(_write(tmp_path, "short.html", fewer)).chapters if c.kind == "body"]
    assert [c.title for c in shorter] == ["Theory of Operation", "Input File Syntax"]
    # Parts of a few minutes are chapters, their sections under a minute each.
    brief = page.replace(prose, "<p>Lemon reads a grammar and writes a parser for it in C.</p>")
    parts = [c for c in read_book(_write(tmp_path, "brief.html", brief)).chapters if c.kind == "body"]
    assert [c.title for c in parts] == ["Theory of Operation", "Input File Syntax"]


def test_an_old_page_parts_paragraphs_with_two_line_breaks_and_its_closing_menus_are_not_read(
    tmp_path: Path,
) -> None:
    # An HTML 3.2 page as the Agile Manifesto's translations are: no <p> after the text, only
    # <br><br> between a notice, a link menu and a credit; inside a <p> the same breaks part stanzas.
    text = " ".join(["We are uncovering better ways of developing software by doing it."] * 20)
    page = (
        f"<html><body><center><h1>Manifesto</h1><p>{text}</p><p>1.<br>A stanza line<br><br>2.<br>And more</p>"
        "<br><br><font size=1>&copy; 2001, the above authors<br>this declaration may be freely copied"
        "</font><br><br><a href=principles.html>Twelve Principles</a><br><br>"
        + "".join(f"<a href=/iso/{c}/manifesto.html>{c} language</a><br>" for c in ("af", "sq", "am", "ar"))
        + "<br><br><font size=1>site design &copy; 2001, Ward Cunningham</font></center></body></html>"
    )
    book = read_book(_write(tmp_path, "manifesto.html", page))
    said = [p for c in book.chapters for p in c.paragraphs]
    assert said[0] == text and "1. A stanza line 2. And more" in said
    heard = " ".join(said)
    for unread in ("freely copied", "Twelve Principles", "af language", "Ward Cunningham"):
        assert unread not in heard
    assert any("a notice of rights" in note for note in book.notes)


def test_credits_and_a_licence_closing_a_picture_book_are_not_read_and_an_unnumbered_heading_keeps_its_words(
    tmp_path: Path,
) -> None:
    story = "<p>Il pleuvait depuis des jours, et tout le monde était de mauvaise humeur, sauf Sizwe.</p>" * 30
    page = (
        '<html lang="fr"><body><h1>Le sourire</h1><ol><li><a href="#a">Un sourire magique</a></li>'
        '<li><a href="#b">Smiling again</a></li><li><a href="#c">Le dernier sourire</a></li></ol>'
        f'<h2 id="a">Un sourire</h2>{story}<h2 id="b">Encore un sourire</h2>{story}'
        f'<h2 id="c">Le dernier sourire</h2>{story}'
        "<blockquote><p>Sizwe's Smile in French</p><p>Created by Vianne Venter</p>"
        "<p>This work is licensed under a Creative Commons Attribution 4.0 International License.</p>"
        "</blockquote></body></html>"
    )
    book = read_book(_write(tmp_path, "sourire.html", page))
    body = [c for c in book.chapters if c.kind == "body"]
    assert [c.title for c in body] == ["Un sourire", "Encore un sourire", "Le dernier sourire"]
    said = " ".join(p for c in body for p in c.paragraphs)
    assert "Created by" not in said and "Creative Commons" not in said and "Smile in French" not in said
    assert said.endswith("sauf Sizwe.")


def test_a_nested_sidebar_contents_sets_the_chapters_and_their_titles(tmp_path: Path) -> None:
    # An mdBook print page: the sidebar lists pages, their sections nested under them; the text
    # gives each page an <h1>, whatever its depth, and some pages a heading of other words.
    def page(heading: str, level: int = 1) -> str:
        words = f"The {heading.lower()} page says a good deal about it, and says it at length. " * 12
        return f"<h{level}>{heading}</h{level}><p>{words}</p>"

    entries = [
        (0, "1. Getting Started"),
        (1, "1.1. Why Async?"),
        (0, "2. Under the Hood"),
        (1, "2.1. The Future Trait"),
        (0, "3. Pinning"),
        (0, "4. Streams"),
        (1, "4.1. Iteration and Concurrency"),
        (0, "5. TODO: The Ecosystem"),
    ]
    items = "".join(
        f'<li><a href="p{n}.html">{words}</a></li>'
        if depth == 0
        else f'<li><ol><li><a href="p{n}.html">{words}</a></li></ol></li>'
        for n, (depth, words) in enumerate(entries)
    )
    body = "".join(
        [
            page("Getting Started"),
            page("Why Async?", 2),
            page("Under the Hood"),
            page("The Future Trait"),
            page("Pinning"),
            page("How to Use Pinning", 2),
            page("The Stream Trait"),
            page("Iteration and Concurrency"),
        ]
    )
    html = f'<html><body><nav><ol class="chapter">{items}</ol></nav><main>{body}</main></body></html>'
    book = read_book(_write(tmp_path, "print.html", html))
    assert [c.title for c in book.chapters if c.kind == "body"] == [
        "1. Getting Started",
        "2. Under the Hood",
        "3. Pinning",
        "4. Streams",
    ]
    streams = next(c for c in book.chapters if c.kind == "body" and c.title == "4. Streams").paragraphs
    assert "Iteration and Concurrency" in streams
    # A flat list of links sets nothing: the headings stay the chapters, under their own words.
    flat = html.replace("<li><ol>", "").replace("</ol></li>", "")
    flat_titles = [
        c.title for c in read_book(_write(tmp_path, "flat.html", flat)).chapters if c.kind == "body"
    ]
    assert flat_titles[:2] == ["Getting Started", "Under the Hood"]


def test_the_page_s_footer_is_not_read_and_a_section_s_footer_is(tmp_path: Path) -> None:
    words = "GNU social é a continuación do proxecto StatusNet, un software libre de redes sociais. " * 8
    page = (
        f"<html><body><h1>GNU social</h1><section><h2>O proxecto</h2><p>{words}</p>"
        "<footer><p>Publicado o 3 de marzo.</p></footer></section>"
        f"<section><h2>Axuda ao proxecto</h2><p>{words}</p></section>"
        "<footer><p>Copyright 2010-2019 Free Software Foundation, Inc.</p>"
        "<p>Este sitio web ten licenza CC-BY-SA.</p></footer></body></html>"
    )
    book = read_book(_write(tmp_path, "index.html", page))
    assert [c.title for c in book.chapters if c.kind == "body"] == ["O proxecto", "Axuda ao proxecto"]
    spoken = " ".join(p for c in book.chapters if c.kind == "body" for p in c.paragraphs)
    assert "Publicado o 3 de marzo." in spoken
    assert "licenza" not in spoken and "Copyright" not in spoken
    assert any("the page's footer" in note for note in book.notes)


def test_an_aozora_xhtml_page_states_its_language_and_its_colophon_is_not_read(tmp_path: Path) -> None:
    poem = "ひるはどこもがひかるんだ。<br />みてるとどこもがひかるんだ。<br /><br />" * 3
    page = (
        '<?xml version="1.0" encoding="Shift_JIS"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="ja">'
        "<head><title>新美南吉 ひかる</title></head><body>"
        '<div class="metadata"><h1 class="title">ひかる</h1><h2 class="author">新美南吉</h2></div>'
        f'<div class="main_text">{poem}</div><div class="bibliographical_information"><hr />'
        "底本：「日本児童文学大系　第二八巻」ほるぷ出版<br />入力：菅野朋子<br />"
        "校正：noriko saito<br /></div>"
        '<div class="notation_notes"><hr />●表記について<ul><li>XHTML1.1 にそった形式</li></ul></div>'
        "</body></html>"
    )
    book = read_book(_write(tmp_path, "hikaru.html", page.encode("shift_jis")))
    assert book.language == "ja"
    spoken = " ".join(p for c in book.chapters if c.kind == "body" for p in c.paragraphs)
    assert "ひかるんだ" in spoken
    for unread in ("底本", "入力", "校正", "表記について"):
        assert unread not in spoken
    assert any("Aozora Bunko's colophon" in note for note in book.notes)
