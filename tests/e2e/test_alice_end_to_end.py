"""Project Gutenberg's Alice EPUB through a real run: its twelve chapters between the credits, no
Gutenberg text spoken, a read-along EPUB of the source's own pages, and a lexicon edit that renders
again only the segments it changes.
"""

from __future__ import annotations

import zipfile

import pytest
from conftest import alice_path

from narrator.core.catalog import COMPLETED, read_catalog
from narrator.inspect.check import check_book
from narrator.inspect.overlays import read_publication

pytestmark = pytest.mark.slow


def test_alice_epub_end_to_end_and_a_lexicon_edit_rerenders_only_its_segments(workdir):
    book = str(alice_path())
    # The whole novel, read fast: at the default pace its 2.5 hours of audio took 12 of CI's 30
    # minutes to render, assemble and encode twice; the pace changes no step this test checks.
    fast = "pace=300"
    workdir.run_book(f"book={book}", fast, "outputs=[m4b,srt,epub]")
    results = workdir.results("alice-in-wonderland-pg11")
    # The read-along EPUB: EPUBCheck accepts it with no message, and its clips are the timeline's samples.
    checked = check_book(results)
    assert [r for r in checked if r.file.endswith(".epub") and r.rule == "EPUBCheck"], (
        "EPUBCheck not installed"
    )
    assert not [r for r in checked if not r.passed], [r for r in checked if not r.passed]
    # It keeps the source's own documents, stylesheets and cover image; every chapter's words are
    # highlighted in them but the credits', which only narrator says.
    publication = read_publication(results / "alice-in-wonderland-pg11.epub")
    documents = [overlay.document for overlay in publication.overlays]
    assert documents[0] == "EPUB/c001.xhtml" and documents[-1] == "EPUB/c014.xhtml"
    assert all(document.startswith("EPUB/src/OEBPS/") for document in documents[1:-1])
    assert len(set(documents[1:-1])) == 12
    with zipfile.ZipFile(results / "alice-in-wonderland-pg11.epub") as epub:
        names = set(epub.namelist())
        chapter = epub.read(documents[1]).decode()
    assert {
        "EPUB/src/OEBPS/pgepub.css",
        "EPUB/src/OEBPS/0.css",
        "EPUB/src/OEBPS/5763489575526147435_cover.jpg",
    } <= names
    assert 'href="0.css"' in chapter and "<i>" in chapter and "DTD XHTML 1.1" not in chapter
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
