"""The chapters a listener navigates by: title pages, opening pieces and the level of divisions."""

from __future__ import annotations

from dataclasses import replace

from narrator.core.book import CHARS_PER_MINUTE, Chapter
from narrator.text.chapter_level import (
    at_chapter_lines,
    at_listening_level,
    titled_for_bylines,
    with_front_pieces_folded,
    without_title_pages,
)

#: A paragraph of about a minute of speech.
MINUTE = "Words of the story go on. " * (CHARS_PER_MINUTE // 26)


def chapter(
    title: str, minutes: int = 0, parents: tuple[str, ...] = (), text: tuple[str, ...] = ()
) -> Chapter:
    return Chapter(title, text or (MINUTE,) * minutes, parents=parents)


def test_a_part_page_that_only_says_its_title_titles_what_follows() -> None:
    chapters = [chapter("Book I: The Coming", text=("Book I", "The Coming")), chapter("I. The Eve", 5)]
    assert [c.paragraphs for c in without_title_pages(chapters)] == [(), (MINUTE,) * 5]


def test_opening_pieces_and_a_cast_list_are_heard_at_the_start_of_the_first_chapter() -> None:
    chapters = [
        chapter("Dedication", text=("To my brother.",)),
        chapter("Epigraph", text=("But who shall dwell in these worlds?",)),
        chapter("One", 5),
        chapter("Two", 5),
    ]
    kept, notes = with_front_pieces_folded(chapters)
    assert [c.title for c in kept] == ["One", "Two"]
    assert kept[0].paragraphs[:2] == ("To my brother.", "But who shall dwell in these worlds?")
    assert {0, 1} <= kept[0].section_ends
    assert len(notes) == 2 and "a short piece before the first chapter" in notes[0]
    cast = [chapter("Dramatis Personae", 2), chapter("Act I", 20)]
    kept, notes = with_front_pieces_folded(cast)
    assert [c.title for c in kept] == ["Act I"] and "a cast list" in notes[0]


def test_a_part_s_epigraph_opens_the_part_s_first_chapter() -> None:
    # Half a minute: a poem titled as the part's epigraph; a piece of that length not titled so stays.
    poem = ("When from dark error's subjugation my words of passionate exhortation. " * 6,)
    part_one, part_two = ("Part I",), ("Part II",)
    chapters = [
        chapter("I", 5, part_one),
        chapter("Epigraph", text=poem, parents=part_two),
        chapter("I", 5, part_two),
    ]
    kept, notes = with_front_pieces_folded(chapters)
    assert [(c.title, c.parents) for c in kept] == [("I", part_one), ("I", part_two)]
    assert kept[1].paragraphs[0] == poem[0] and "of its part" in notes[0]
    untitled = [chapters[0], chapter("Snow", text=poem, parents=part_two), chapters[2]]
    assert with_front_pieces_folded(untitled) == (untitled, [])


def test_a_short_piece_after_the_story_has_begun_stays_a_chapter() -> None:
    chapters = [chapter("One", 5), chapter("Interlude", text=("A short poem.",)), chapter("Two", 5)]
    assert with_front_pieces_folded(chapters) == (chapters, [])


def test_a_book_of_a_few_lines_keeps_its_chapters() -> None:
    chapters = [chapter("One", text=("One.",)), chapter("Two", text=("Two.",))]
    assert without_title_pages(chapters) == chapters
    assert with_front_pieces_folded(chapters) == (chapters, [])


def test_acts_of_a_chapter_s_length_are_the_chapters_with_their_scenes_inside() -> None:
    play = [
        chapter("ACT I"),
        chapter("SCENE I", 4),
        chapter("SCENE II", 6),
        chapter("ACT II"),
        chapter("SCENE I", 10),
    ]
    kept, notes = at_listening_level(play)
    # Act II has one scene: the divisions hold two sections each on average only with Act III.
    assert kept == play and notes == []
    play += [chapter("SCENE II", 8), chapter("ACT III"), chapter("SCENE I", 9), chapter("SCENE II", 3)]
    kept, notes = at_listening_level(play)
    assert [c.title for c in kept] == ["ACT I", "ACT II", "ACT III"]
    assert kept[0].paragraphs == ("SCENE I", *(MINUTE,) * 4, "SCENE II", *(MINUTE,) * 6)
    assert kept[0].section_ends == {4}
    assert "3 divisions" in notes[0] and "6 sections" in notes[0]


def test_an_act_s_heading_on_its_first_scene_s_line_opens_the_act() -> None:
    play = [
        chapter("ACT I. SCENE I", 12),
        chapter("SCENE II", 3),
        chapter("ACT II. SCENE I", 6),
        chapter("SCENE II. Newgate", 8),
        chapter("ACT III. SCENE I", 5),
        chapter("SCENE II. A Gaming-House", 7),
    ]
    kept, notes = at_listening_level(play)
    assert [c.title for c in kept] == ["ACT I", "ACT II", "ACT III"]
    assert kept[1].paragraphs[0] == "SCENE I" and "SCENE II. Newgate" in kept[1].paragraphs
    assert "3 divisions" in notes[0]
    # A part's title that begins with a division's word ("Chapter of Accidents") heads no section.
    assert at_listening_level([chapter("BOOK II. Chapter of Accidents", 9), chapter("Chapter 2", 9)])[1] == []


def test_matter_skipped_between_acts_stays_and_a_numbered_heading_opens_the_first_scene() -> None:
    cast = replace(chapter("DRAMATIS PERSONAE", 1), kind="back", skipped_by="a word list")
    play = [
        chapter("ARGUMENT"),
        *(chapter(f"ACT {n}", 1) for n in ("I", "II", "III")),
        cast,
        chapter("ERSTER AKT"),
        chapter("ACT I. ERSTER AUFTRITT."),
        chapter("SCENE I. MATROSEN.", 9),
        chapter("SCENE II. HOLLAENDER.", 9),
        chapter("ZWEITER AKT"),
        chapter("ACT II. ERSTE SCENE."),
        chapter("SCENE I. MAEDCHEN.", 9),
        chapter("SCENE II. ERIK.", 9),
    ]
    kept, notes = at_listening_level(play)
    assert "3 divisions" in notes[0]
    assert [c.title for c in kept] == ["ARGUMENT", "DRAMATIS PERSONAE", "ERSTER AKT", "ZWEITER AKT"]
    assert kept[1] == cast
    assert kept[2].paragraphs[0] == "ACT I. ERSTER AUFTRITT. SCENE I. MATROSEN."
    # Text right after skipped matter, with no heading to open a division, leaves the book as it is.
    unheaded = [*play[:5], chapter("SCENE I. MATROSEN.", 9), *play[7:]]
    assert at_listening_level(unheaded) == (unheaded, [])


def test_parts_that_run_for_hours_keep_their_chapters() -> None:
    novel = [chapter(f"Chapter {n}", 20, parents=(f"Book {n // 5}",)) for n in range(15)]
    assert at_listening_level(novel) == (novel, [])


def test_entries_beside_the_divisions_stay_chapters_and_a_divisions_own_text_opens_it() -> None:
    manual = [
        chapter("I. INTRODUCTORY", 5),
        chapter("II. RULES", 1),
        *(chapter(f"{n}. A rule", 2, parents=("II. RULES",)) for n in range(1, 4)),
        chapter("III. PRINCIPLES"),
        *(chapter(f"{n}. A principle", 3, parents=("III. PRINCIPLES",)) for n in range(4, 7)),
        chapter("IV. FORM", 4),
        chapter("V. WORDS MISUSED", 9),
    ]
    kept, notes = at_listening_level(manual)
    # IV and V are chapters of their own, not sections of III; II's own minute opens it.
    assert [c.title for c in kept] == [
        "I. INTRODUCTORY",
        "II. RULES",
        "III. PRINCIPLES",
        "IV. FORM",
        "V. WORDS MISUSED",
    ]
    assert kept[1].paragraphs[:2] == (MINUTE, "1. A rule") and len(kept[4].paragraphs) == 9
    assert "4 divisions" in notes[0]


def test_tales_whose_numbered_parts_begin_again_in_a_flat_contents_are_the_chapters() -> None:
    tales = [
        chapter("WHAT MEN LIVE BY", 1),
        *(chapter(numeral, 3) for numeral in ("I", "II", "III")),
        chapter("The woman told them the whole story, and they listened to every word of it.", 3),
        chapter("THREE QUESTIONS", 8),
        chapter("HOW MUCH LAND DOES A MAN NEED?"),
        *(chapter(numeral, 4) for numeral in ("I", "II")),
    ]
    kept, notes = at_listening_level(tales)
    # A sentence set as a heading is a part of its tale; a titled tale after a run is its own.
    assert [c.title for c in kept] == [
        "WHAT MEN LIVE BY",
        "THREE QUESTIONS",
        "HOW MUCH LAND DOES A MAN NEED?",
    ]
    assert kept[0].paragraphs[:2] == (MINUTE, "I") and "3 divisions" in notes[0]
    # One numbered run after a titled opening (an epigraph, a preface) keeps its chapters.
    novel = [
        chapter("Epigraph", 1),
        *(chapter(numeral, 20) for numeral in ("I", "II", "III")),
        chapter("End", 2),
    ]
    assert at_listening_level(novel) == (novel, [])


def test_parts_of_titled_pieces_keep_their_pieces() -> None:
    # A tribute's short parts of essays: a listener skips between the essays, as between stories.
    tribute = [
        *(chapter(title, 6, parents=("PARTE PRIMA",)) for title in ("Eredità", "Dire addio", "Chi scrive?")),
        *(chapter(title, 7, parents=("PARTE SECONDA",)) for title in ("Perché", "L'esercito", "Le leggi")),
    ]
    assert at_listening_level(tribute) == (tribute, [])


def test_unread_notes_move_with_their_paragraphs() -> None:
    scene = Chapter("SCENE II", (MINUTE,) * 6, notes=((0, "Before it."), (2, "After the second.")))
    play = [chapter("ACT I"), chapter("SCENE I", 4), scene]
    play += [chapter("ACT II"), chapter("SCENE I", 5), chapter("SCENE II", 5)]
    kept, _ = at_listening_level(play)
    # Act I: "SCENE I", 4 paragraphs, "SCENE II" (paragraph 6), then the scene's own.
    assert kept[0].notes == ((6, "Before it."), (8, "After the second."))
    opening = Chapter("Dedication", ("To my brother.",), notes=((1, "A note."),))
    kept, _ = with_front_pieces_folded([opening, chapter("One", 5), chapter("Two", 5)])
    assert kept[0].notes == ((1, "A note."),)


def test_a_chapter_of_hours_is_split_at_the_chapter_lines_in_its_text() -> None:
    hour = (MINUTE,) * 60
    story = Chapter(
        "The Tale",
        (
            "Opening words.",
            "CHAPTER I.",
            *hour,
            "CHAPTER II.",
            *hour,
            "故事完了。 第三回 廣源店股東拆股",
            *hour,
        ),
    )
    kept, notes = at_chapter_lines([story], "A Book")
    assert [(c.title, c.parents) for c in kept] == [
        ("The Tale", ()),
        ("CHAPTER I.", ("The Tale",)),
        ("CHAPTER II.", ("The Tale",)),
        ("第三回 廣源店股東拆股", ("The Tale",)),
    ]
    # A chapter line set after a paragraph's last sentence leaves the sentence where it was.
    assert kept[2].paragraphs[-1] == "故事完了。" and kept[3].paragraphs == hour
    assert "split at the 3 chapter lines" in notes[0]
    # A chapter of a listening length keeps its lines as headings; so does a book's title chapter.
    short = Chapter("The Tale", ("CHAPTER I.", MINUTE, "CHAPTER II.", MINUTE, "CHAPTER III.", MINUTE))
    assert at_chapter_lines([short], "A Book") == ([short], [])
    titled = at_chapter_lines([replace(story, title="A Book")], "A Book")[0]
    assert [c.parents for c in titled[1:]] == [(), (), ()]


def test_a_shorter_sibling_is_cut_at_lines_of_the_division_its_long_sibling_was_cut_at() -> None:
    hour = (MINUTE,) * 35
    long_play = Chapter("Eyvind", ("ACT I", *hour, "ACT II", *hour, "ACT III", *hour))
    short_play = Chapter("The Farm", ("ACT I", MINUTE, "ACT II", MINUTE, "ACT III", MINUTE))
    essay = Chapter("Essay", ("PART I", MINUTE, "PART II", MINUTE, "PART III", MINUTE))
    kept, notes = at_chapter_lines([long_play, short_play, essay], "Plays")
    assert [c.title for c in kept] == [*["ACT I", "ACT II", "ACT III"] * 2, "Essay"]
    assert [c.parents for c in kept[3:6]] == [("The Farm",)] * 3
    assert "as a longer chapter of the book is at lines of the same kind" in notes[1]
    # Alone, the short play keeps its acts as headings.
    assert at_chapter_lines([short_play], "Plays") == ([short_play], [])


def test_an_untitled_abstract_opens_the_first_section_and_a_titled_one_stays() -> None:
    abstract = chapter("", text=("Abstract. " + MINUTE, MINUTE))
    chapters = [abstract, chapter("1. Introduction", 5), chapter("2. Methods", 5)]
    kept, notes = with_front_pieces_folded(chapters)
    assert [c.title for c in kept] == ["1. Introduction", "2. Methods"]
    assert kept[0].paragraphs[0].startswith("Abstract. ")
    assert "an untitled abstract" in notes[0]
    # Untitled prose of three minutes or more, or a titled abstract: a chapter of its own.
    prose = chapter("", text=("Summary of the case. " + MINUTE, MINUTE, MINUTE, MINUTE))
    assert with_front_pieces_folded([prose, *chapters[1:]])[0][0] is prose
    # Shorter, untitled and before a titled chapter, it has no name to skip to: that chapter opens on it.
    short = chapter("", text=("Summary of the case. " + MINUTE,))
    kept, notes = with_front_pieces_folded([short, *chapters[1:]])
    assert [c.title for c in kept] == ["1. Introduction", "2. Methods"]
    assert "untitled, before the first chapter" in notes[0]
    titled = chapter("Abstract", text=(MINUTE, MINUTE))
    assert with_front_pieces_folded([titled, *chapters[1:]])[0][0] is titled


def test_a_part_s_own_short_page_opens_its_first_chapter() -> None:
    part = ("PARTE PRIMA",)
    chapters = [
        chapter("Prefazione", 5),
        chapter("PARTE PRIMA", text=("In prima persona", "Raccolta di post.")),
        chapter("Eredità", 5, part),
        chapter("Il libro", 5, part),
    ]
    kept, notes = with_front_pieces_folded(chapters)
    assert [c.title for c in kept] == ["Prefazione", "Eredità", "Il libro"]
    assert kept[1].paragraphs[:2] == ("In prima persona", "Raccolta di post.")
    assert "its part's page" in notes[0]
    # A part's page of several minutes (an introduction) stays a chapter.
    long = [chapters[0], chapter("PARTE PRIMA", 3), *chapters[2:]]
    assert len(with_front_pieces_folded(long)[0]) == 4


def test_a_short_page_titled_by_the_books_author_and_a_short_abstract_open_the_first_chapter() -> None:
    letter = "Mon cher ami, tu m'as engagé sur une route où je ne croyais point que je dusse aller. " * 4
    chapters = [
        chapter("Gentleman-Cambrioleur Par Maurice Leblanc", text=(letter, "M. L.")),
        chapter("Abstract", text=(letter,)),
        chapter("PRÉFACE", 5),
        chapter("L'ARRESTATION", 5),
    ]
    kept, notes = with_front_pieces_folded(chapters, ("Arsène Lupin", "Maurice Leblanc"))
    assert [c.title for c in kept] == ["PRÉFACE", "L'ARRESTATION"]
    assert any("an abstract of under a minute" in note for note in notes)
    # Not named for the book, the page of over 20 seconds is a chapter of its own.
    assert len(with_front_pieces_folded(chapters)[0]) == 3


def test_an_untitled_piece_of_under_a_minute_opens_the_first_chapter_and_a_titled_one_stays() -> None:
    blurb = ("Hi! You always wanted to solve the cube and need a guide? " * 10,)
    chapters = [chapter("", text=blurb), chapter("1 Introduction", 5), chapter("2 Beginners", 5)]
    kept, notes = with_front_pieces_folded(chapters)
    assert [c.title for c in kept] == ["1 Introduction", "2 Beginners"]
    assert kept[0].paragraphs[0] == blurb[0] and "a short piece before the first chapter" in notes[0]
    titled = [chapter("Snow", text=blurb), *chapters[1:]]
    assert with_front_pieces_folded(titled) == (titled, [])


def test_a_chapter_of_numbered_poems_is_its_poems_and_numbered_prose_is_not_split() -> None:
    stanza = "Loveliest of trees, the cherry now\nIs hung with bloom along the bough,\nAnd stands about"
    numerals = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI"]
    poems = tuple(p for numeral in numerals for p in (numeral, stanza, stanza))
    kept, notes = at_chapter_lines([chapter("A Shropshire Lad", text=poems)], "Collected Poems")
    assert [(c.title, c.parents) for c in kept] == [(n, ("A Shropshire Lad",)) for n in numerals]
    assert kept[0].paragraphs == (stanza, stanza) and "11 numbered poems" in notes[0]
    prose = tuple(p for numeral in numerals for p in (numeral, MINUTE))
    assert at_chapter_lines([chapter("A Story", text=prose)], "Stories") == (
        [chapter("A Story", text=prose)],
        [],
    )


def test_a_chapter_of_titled_poems_is_its_poems_and_dialogue_in_verse_is_not_split() -> None:
    stanza = "The sea desires deep hulls\nIt swells and rolls\nThe screw churns a throb"
    titles = ["Mitraigliatrice", "Oklahoma", "Oily Weather", "Champs de Honneur"]
    poems = tuple(p for title in titles for p in (title, stanza, stanza))
    kept, notes = at_chapter_lines([chapter("Ten Poems", text=poems)], "Three Stories and Ten Poems")
    assert [(c.title, c.parents) for c in kept] == [(t, ("Ten Poems",)) for t in titles]
    assert kept[1].paragraphs == (stanza, stanza) and "4 titled poems" in notes[0]
    # A dialogue poem: one-line speeches end as sentences; a play's speakers repeat.
    said = ("“What’s this?”", "“I let myself in at the kitchen door.”", "“A bill—”")
    dialogue = ("Not Answering", *(p for line in said for p in (line, stanza)))
    speakers = tuple(p for name in ("Hamlet", "Horatio", "Hamlet") for p in (name, stanza))
    for text in (dialogue, speakers):
        assert at_chapter_lines([chapter("The Housekeeper", text=text)], "North of Boston")[1] == []


def test_l_after_xlix_counts_in_a_run_of_numbered_poems() -> None:
    stanza = "Think no more, lad; laugh, be jolly:\nWhy should men make haste to die?\nEmpty heads"
    numbers = ["XLVII", "XLVIII", "XLIX", "L", "LI"]
    poems = tuple(p for numeral in [*("I", "II", "III"), *numbers] for p in (numeral, stanza))
    kept, _ = at_chapter_lines([chapter("Poems", text=poems)], "Poems")
    assert "L" not in [c.title for c in kept]  # the count jumps from III to XLVII: no run past III
    run = [*(f"{n}" for n in range(1, 50)), "L", "51"]
    kept, _ = at_chapter_lines(
        [chapter("Poems", text=tuple(p for n in run for p in (n, stanza, stanza)))], "x"
    )
    assert [c.title for c in kept][-3:] == ["49", "L", "51"]


def test_the_one_chapter_of_a_tale_titled_by_its_byline_is_titled_by_the_tale() -> None:
    title, authors = "The Fall of the House of Usher", ("Edgar Allan Poe",)
    kept, notes = titled_for_bylines([chapter("EDGAR ALLAN POE", 30)], title, authors)
    assert [c.title for c in kept] == [title] and "byline" in notes[0]
    assert titled_for_bylines([chapter("By Edgar Allan Poe", 30)], title, ())[0][0].title == title
    # Among several chapters, the author's name may title an essay on him.
    essays = [chapter("Edgar Allan Poe", 30), chapter("Nathaniel Hawthorne", 30)]
    assert titled_for_bylines(essays, "Essays", authors) == (essays, [])


def test_a_byline_set_as_a_heading_under_a_piece_s_title_leaves_the_title_alone() -> None:
    pieces = [
        chapter("The Californian Ideology"),
        chapter("Richard Barbrook and Andy Cameron", 30),
        chapter("Cyber-Communism"),
        chapter("Richard Barbrook", 30),
    ]
    kept, notes = titled_for_bylines(pieces, "The Internet Revolution", ("Richard Barbrook",))
    assert [c.title for c in kept] == ["The Californian Ideology", "", "Cyber-Communism", ""]
    assert len(notes) == 2 and "byline" in notes[0]
    # A chapter named for someone else under a part's title keeps its name.
    essays = [chapter("Americans"), chapter("Edgar Allan Poe and His Circle", 30)]
    assert titled_for_bylines(essays, "Essays", ("Richard Barbrook",)) == (essays, [])
