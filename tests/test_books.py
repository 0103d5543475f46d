"""Real books in: sentence-splitting accuracy on Alice, and the Alice EPUB end to end with a lexicon."""

from __future__ import annotations

import pytest
from conftest import alice_path

from narrator.core.catalog import COMPLETED, read_catalog
from narrator.text.ingest import load_book
from narrator.text.segment import split_sentences

# Hand-checked sentence starts of eight Alice paragraphs, by (chapter index, paragraph index).
HAND_SPLIT = {
    (0, 0): ["Alice was beginning"],
    (0, 5): ["Either the well", "First, she tried", "She took down a jar"],
    (4, 10): ["“Well, perhaps your feelings"],
    (6, 20): ["The Hatter was the first", "“What day of the month"],
    (8, 2): ["“When I’m a Duchess,”", "Soup does very well", "I only wish people"],
    (10, 6): ["“Stupid things!” Alice began"],
    (2, 1): ["The first question", "Indeed, she had"],
    (5, 12): ["“Are you to get in", "“That’s the first question"],
}


def _boundaries(starts: list[str], paragraph: str) -> set[int]:
    return {paragraph.index(start) for start in starts[1:]}


def test_sentence_splitting_accuracy_on_alice():
    """pysbd against hand-checked passages: boundary precision and recall, printed and bounded."""
    book = load_book(alice_path())
    found_total = expected_total = true_positive = 0
    for (chapter, index), starts in HAND_SPLIT.items():
        paragraph = book.chapters[chapter].paragraphs[index]
        expected = _boundaries(starts, paragraph)
        found = _boundaries([s[:20] for s in split_sentences(paragraph)], paragraph)
        true_positive += len(expected & found)
        expected_total += len(expected)
        found_total += len(found)
    precision, recall = true_positive / found_total, true_positive / expected_total
    print(f"pysbd on Alice: precision {precision:.2f}, recall {recall:.2f} over {expected_total} boundaries")
    # Measured: 5 of 6 found boundaries right (a quote ending in "!" before "Alice began" is
    # split), 5 of 7 found (boundaries after an em-dash interruption are missed).
    assert precision >= 0.8
    assert recall >= 0.7


@pytest.mark.slow
def test_alice_epub_end_to_end_and_a_lexicon_edit_rerenders_only_its_segments(workdir):
    book = str(alice_path())
    # The whole novel, read fast: at the default pace its 2.5 hours of audio took 12 of CI's 30
    # minutes to render, assemble and encode twice; the pace changes no step this test checks.
    fast = "pace=300"
    workdir.run_book(f"book={book}", fast)
    results = workdir.results("alice-in-wonderland-pg11")
    rows = read_catalog(results / "catalog.tsv")
    assert all(row.status == COMPLETED for row in rows)
    titles = [title for _, title in sorted({(row.chapter, row.chapter_title) for row in rows})]
    # The twelve chapters between the credits the M4B output turns on.
    assert len(titles) == 14 and (titles[0], titles[-1]) == ("Opening credits", "End credits")
    assert titles[1] == "CHAPTER I. Down the Rabbit-Hole"
    assert titles[-2] == "CHAPTER XII. Alice’s Evidence"
    opening = " ".join(row.text for row in rows if row.chapter == 1)
    assert (
        opening == "Alice's Adventures in Wonderland. By Lewis Carroll. Read by eSpeak NG, a synthetic voice."
    )
    assert not any("Gutenberg" in row.text for row in rows)

    affected = {row.segment_id for row in rows if "Cheshire" in row.spoken}
    assert 5 <= len(affected) < 50
    (workdir.path / "lexicon.yaml").write_text("Cheshire: Chesh-er\n")
    started = len(workdir.rendered_jobs())
    # Renders only: the lexicon changes segments, and the first run already made the whole book.
    workdir.run_book(f"book={book}", fast, "lexicon=lexicon.yaml", target="render_all")
    rerendered = workdir.rendered_jobs()[started:]
    after = read_catalog(results / "catalog.tsv")
    assert len(rerendered) == len(affected)
    assert {row.segment_id for row in after if "Chesh-er" in row.spoken} == set(rerendered)
    assert all(row.status == COMPLETED for row in after)
