"""Sentence splitting, budget cutting and pause kinds of segments."""

from __future__ import annotations

import itertools
import random
import threading

import pytest

from narrator.core.book import PAUSES, Book, Chapter
from narrator.text.segment import describe_segmenter, segment_book, split_sentences, split_to_budget


def _words(text: str) -> list[str]:
    return text.split()


# --- sentences -------------------------------------------------------------------------------


def test_abbreviations_do_not_end_sentences() -> None:
    paragraph = (
        "Mr. Smith met Dr. Jones at 5 p.m. on Monday. They talked about pets, e.g. cats and dogs. "
        "Then they left."
    )
    assert split_sentences(paragraph) == [
        "Mr. Smith met Dr. Jones at 5 p.m. on Monday.",
        "They talked about pets, e.g. cats and dogs.",
        "Then they left.",
    ]


def test_plain_sentences_split_and_keep_their_punctuation() -> None:
    assert split_sentences("Is it? Yes! It is.") == ["Is it?", "Yes!", "It is."]


TECHNICAL = [
    ("He's an expert .NET developer. Next.", ["He's an expert .NET developer.", "Next."]),
    ("I like .NET. It works.", ["I like .NET.", "It works."]),
    ("The .NET Framework and .NET Core differ.", ["The .NET Framework and .NET Core differ."]),
    ("Write a .gitignore file. Done.", ["Write a .gitignore file.", "Done."]),
    ("We use ASP.NET MVC and Node.js here.", ["We use ASP.NET MVC and Node.js here."]),
    ("Install Node.js. Then run it.", ["Install Node.js.", "Then run it."]),
    ("Upgrade to v2.0 or v10.4.1 now. Done.", ["Upgrade to v2.0 or v10.4.1 now.", "Done."]),
    ("Version v2.0. It is new.", ["Version v2.0.", "It is new."]),
    ("Languages, e.g. Python, i.e. code, are fine.", ["Languages, e.g. Python, i.e. code, are fine."]),
    ("Apples, pears, etc. are fruit. Yes.", ["Apples, pears, etc. are fruit.", "Yes."]),
    ("React vs. Angular is old. Yes.", ["React vs. Angular is old.", "Yes."]),
]


@pytest.mark.parametrize(("paragraph", "sentences"), TECHNICAL, ids=[t for t, _ in TECHNICAL])
def test_technical_words_with_dots_end_no_sentence(paragraph: str, sentences: list[str]) -> None:
    assert split_sentences(paragraph, "en-US") == sentences


def test_a_run_of_stops_stays_with_its_sentence() -> None:
    # pysbd's Arabic rules cut ".." into "." and ".", and a piece without a word is never read.
    assert split_sentences("في صمت وهدوء.. بعيداً عن الإعلام.", "ar") == [
        "في صمت وهدوء..",
        "بعيداً عن الإعلام.",
    ]


@pytest.mark.parametrize("paragraph", ["", " ", "\n\t ", "\u2028"])
def test_blank_paragraph_has_no_sentences(paragraph: str) -> None:
    assert split_sentences(paragraph) == []


def test_blank_paragraphs_are_ignored_by_segment_book() -> None:
    book = Book("B", (Chapter("", ("", "   ", "Hello there.", "\n")),))
    segments = list(segment_book(book, budget=100))
    assert [(s.text, s.pause_after, s.paragraph) for s in segments] == [("Hello there.", "end", 3)]


def test_blank_paragraph_after_title_is_ignored() -> None:
    book = Book("B", (Chapter("One", ("  ", "Hi.")), Chapter("Two", ("Bye.", ""))))
    segments = list(segment_book(book, budget=100))
    assert [(s.text, s.pause_after) for s in segments] == [
        ("One", "paragraph"),
        ("Hi.", "chapter"),
        ("Two", "paragraph"),
        ("Bye.", "end"),
    ]


# --- which splitter a language gets -------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "described"),
    [
        ("en", "pysbd 'en'"),
        ("en-US", "pysbd 'en'"),
        ("EN_gb", "pysbd 'en'"),
        ("de-AT", "pysbd 'de'"),
        ("sv", "generic (pysbd has no 'sv')"),
        ("pt_BR", "generic (pysbd has no 'pt')"),
        ("fi-FI", "generic (pysbd has no 'fi')"),
        ("", "generic (no language tag)"),
    ],
)
def test_the_primary_subtag_picks_the_splitter(language: str, described: str) -> None:
    assert describe_segmenter(language) == described


@pytest.mark.parametrize("language", ["en-US", "en_GB", "EN"])
def test_a_regional_english_tag_splits_like_english(language: str) -> None:
    paragraph = "Mr. Smith met Dr. Jones at 5 p.m. on Monday. Then they left."
    assert split_sentences(paragraph, language) == split_sentences(paragraph, "en")


GENERIC = [
    (
        "sv",
        "Hon sa: Det är bra. Han kom kl. 5 t.ex. i går. Det var 3 st. äpplen, bl.a. röda. "
        "Sen gick de hem! Eller? sa hon. Hr. Berg och J. Ek kom… Sedan gick de.",
        [
            "Hon sa: Det är bra.",
            "Han kom kl. 5 t.ex. i går.",
            "Det var 3 st. äpplen, bl.a. röda.",
            "Sen gick de hem!",
            "Eller? sa hon.",
            "Hr. Berg och J. Ek kom…",
            "Sedan gick de.",
        ],
    ),
    (
        "pt-BR",
        "Ele disse: Sr. Silva chegou às 5h. O Dr. João foi embora, i.e. saiu. Foi bom? Sim. «Não!» Ela riu.",
        [
            "Ele disse: Sr. Silva chegou às 5h.",
            "O Dr. João foi embora, i.e. saiu.",
            "Foi bom?",
            "Sim.",
            "«Não!»",
            "Ela riu.",
        ],
    ),
    (
        "fi",
        "Hän sanoi: ”Tämä on hyvä.” Esim. kissa ja koira. Se oli 5. päivä. Mitä? Ei mitään.",
        ["Hän sanoi: ”Tämä on hyvä.”", "Esim. kissa ja koira.", "Se oli 5. päivä.", "Mitä?", "Ei mitään."],
    ),
]


@pytest.mark.parametrize(("language", "paragraph", "sentences"), GENERIC, ids=[g[0] for g in GENERIC])
def test_languages_pysbd_lacks_get_the_generic_splitter(
    language: str, paragraph: str, sentences: list[str]
) -> None:
    assert split_sentences(paragraph, language) == sentences


def test_the_generic_splitter_keeps_every_character() -> None:
    paragraph = "Ett. Två?  Tre!\u201d Fyra."
    assert "".join(split_sentences(paragraph, "sv")).replace(" ", "") == paragraph.replace(" ", "")


# --- split_to_budget -------------------------------------------------------------------------

LONG = (
    "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of "
    "foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season of "
    "Light, it was the season of Darkness, it was the spring of hope, it was the winter of despair."
)


@pytest.mark.parametrize("budget", [40, 57, 80, 120])
def test_every_piece_fits_the_budget_and_words_survive(budget: int) -> None:
    pieces = split_to_budget(LONG, budget)
    assert len(pieces) > 1
    assert all(0 < len(piece) <= budget for piece in pieces)
    assert _words(" ".join(pieces)) == _words(LONG)
    assert all(piece == piece.strip() for piece in pieces)


def test_short_sentence_is_one_piece() -> None:
    assert split_to_budget("  Call me Ishmael.  ", 400) == ["Call me Ishmael."]


def test_prefers_clause_punctuation_over_a_later_space() -> None:
    sentence = "The rain fell on the roofs of the town, and the wind howled through the empty streets."
    pieces = split_to_budget(sentence, 60)
    # A space at 59 would fit too, but the comma (at 39) is a better place to breathe.
    assert pieces[0] == "The rain fell on the roofs of the town,"
    assert _words(" ".join(pieces)) == _words(sentence)


@pytest.mark.parametrize("mark", [";", ":", "\u2014", "\u2013", ")"])
def test_other_clause_marks_are_cut_points(mark: str) -> None:
    sentence = f"aaaa bbbb cccc dddd eeee{mark} ffff gggg hhhh iiii jjjj kkkk llll"
    pieces = split_to_budget(sentence, 40)
    assert pieces[0] == f"aaaa bbbb cccc dddd eeee{mark}"


def test_a_very_early_clause_break_loses_to_a_space_near_the_budget() -> None:
    sentence = "Oh, " + " ".join(["word"] * 30)
    pieces = split_to_budget(sentence, 60)
    assert pieces[0] != "Oh,"
    assert len(pieces[0]) > 50


def test_falls_back_to_whitespace_and_fills_each_piece() -> None:
    rng = random.Random(7)
    words = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(1, 12))) for _ in range(200)]
    sentence = " ".join(words)
    budget = 50
    pieces = split_to_budget(sentence, budget)
    assert all(len(piece) <= budget for piece in pieces)
    assert _words(" ".join(pieces)) == words
    for piece, following in itertools.pairwise(pieces):
        # Greedy: the next word would not have fitted.
        assert len(piece) + 1 + len(following.split()[0]) > budget


def test_never_cuts_inside_a_word_random_sentences() -> None:
    rng = random.Random(1234)
    alphabet = "abcdefghijklmnopqrstuvwxyzé'"
    for _ in range(200):
        words = [
            "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 15)))
            + rng.choice(["", "", "", ",", ";", ":", ")", "\u2014"])
            for _ in range(rng.randint(1, 60))
        ]
        sentence = " ".join(words)
        budget = rng.randint(20, 120)
        pieces = split_to_budget(sentence, budget)
        assert _words(" ".join(pieces)) == words
        assert all(len(piece) <= budget for piece in pieces)


def test_a_word_longer_than_the_budget_stays_whole() -> None:
    word = "x" * 70
    pieces = split_to_budget(f"short words {word} more words here", 30)
    assert word in pieces
    assert all(len(p) <= 30 for p in pieces if p != word)
    assert _words(" ".join(pieces)) == ["short", "words", word, "more", "words", "here"]


def test_huge_unpunctuated_paragraph_segments_within_budget() -> None:
    rng = random.Random(99)
    words = []
    while sum(len(w) + 1 for w in words) < 20_000:
        words.append("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))))
    paragraph = " ".join(words)[:20_000].rsplit(" ", 1)[0]
    assert 19_900 < len(paragraph) <= 20_000
    segments = list(segment_book(Book("B", (Chapter("", (paragraph,)),)), budget=400))
    assert len(segments) >= 50
    assert all(len(s.text) <= 400 for s in segments)
    assert _words(" ".join(s.text for s in segments)) == _words(paragraph)
    assert [s.pause_after for s in segments] == ["clause"] * (len(segments) - 1) + ["end"]


# --- pause kinds -----------------------------------------------------------------------------


def test_pause_after_kinds() -> None:
    long_sentence = "Alpha beta gamma delta, epsilon zeta eta theta, iota kappa lambda mu."
    book = Book(
        "Book",
        (
            Chapter("Chapter One", ("First sentence. Second sentence.", long_sentence)),
            Chapter("Chapter Two", ("Only one.",)),
        ),
    )
    segments = list(segment_book(book, budget=30))
    got = [(s.chapter, s.paragraph, s.text, s.pause_after) for s in segments]
    assert got == [
        (1, 0, "Chapter One", "paragraph"),
        (1, 1, "First sentence.", "sentence"),
        (1, 1, "Second sentence.", "paragraph"),
        (1, 2, "Alpha beta gamma delta,", "clause"),
        (1, 2, "epsilon zeta eta theta,", "clause"),
        (1, 2, "iota kappa lambda mu.", "chapter"),
        (2, 0, "Chapter Two", "paragraph"),
        (2, 1, "Only one.", "end"),
    ]
    assert all(s.pause_after in PAUSES for s in segments)
    assert [s.chapter_title for s in segments] == ["Chapter One"] * 6 + ["Chapter Two"] * 2


def test_long_title_is_split_with_clause_pauses() -> None:
    title = "A very long chapter title, which goes on and on, far past the budget"
    segments = list(segment_book(Book("B", (Chapter(title, ("Text.",)),)), budget=30))
    title_segments = [s for s in segments if s.paragraph == 0]
    assert len(title_segments) > 1
    assert [s.pause_after for s in title_segments] == ["clause"] * (len(title_segments) - 1) + ["paragraph"]
    assert _words(" ".join(s.text for s in title_segments)) == _words(title)
    assert segments[-1].pause_after == "end"


def test_single_segment_book_ends_with_end() -> None:
    segments = list(segment_book(Book("B", (Chapter("", ("Hi.",)),)), budget=100))
    assert [(s.text, s.pause_after) for s in segments] == [("Hi.", "end")]


def test_books_segmented_at_once_in_threads_split_as_they_do_alone() -> None:
    # A shelf plans its books as threads of one process, and pysbd's Segmenter is shared.
    paragraphs = [
        f"Paragraph {n} opens here. Mr. Hale said it was late, and the lamp was lit at six. "
        f"Then the fog came in over the water! Did anyone see it? Nobody did, not even Dr. Lee."
        for n in range(40)
    ]
    alone = [split_sentences(paragraph) for paragraph in paragraphs]
    start = threading.Barrier(4)

    def split_all(results: list[list[str]]) -> None:
        start.wait()
        results.extend(split_sentences(paragraph) for paragraph in paragraphs)

    for _ in range(10):
        outcomes: list[list[list[str]]] = [[] for _ in range(4)]
        threads = [threading.Thread(target=split_all, args=(outcome,)) for outcome in outcomes]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert all(outcome == alone for outcome in outcomes)
