"""Every corpus book comes out as its expectations say, but for the misses its entry records.

The expectations are written from each book itself (tests/data/books/corpus.yaml); ``misses`` is
what narrator does not yet meet, word for word, so a fix and a regression both fail here until the
entry is brought up to date. bench/corpus.py prints the same checks as a pass count.
"""

from __future__ import annotations

import re
import shutil

import pytest
import yaml
from conftest import BOOKS
from corpus_expectations import failures, plan

from narrator.text.readers.titles import bare_number

CORPUS = yaml.safe_load((BOOKS / "corpus.yaml").read_text(encoding="utf-8"))["books"]


# Markup (a tag as HTML writes one: a name, then name=value attributes) and licence text that no
# spoken segment of any book may carry; "< /dev/null" or an RFC's "<token, defined in ...>" is text.
NEVER_SPOKEN = re.compile(
    r"</?[a-z][a-z0-9:-]*(\s+[a-z:-]+(=(\"[^\"]*\"|'[^']*'|[^\s>]+))?)*\s*/?>"
    r"|\bclass=\"|Project Gutenberg(-tm)? Licen[cs]e",
    re.IGNORECASE,
)


@pytest.mark.parametrize("entry", CORPUS, ids=[entry["file"] for entry in CORPUS])
def test_a_book_misses_only_what_its_entry_records(entry: dict) -> None:
    if entry.get("requires") and shutil.which(entry["requires"]) is None:
        pytest.skip(f"{entry['file']} is read through {entry['requires']}, which is not installed")
    assert failures(entry, BOOKS) == entry.get("misses", [])
    if any(miss.startswith("refused: ") for miss in entry.get("misses", [])):
        return  # a refused book plans nothing, so nothing of it is spoken
    planned = plan(BOOKS / entry["file"])
    if not entry.get("markup_in_text"):
        assert not NEVER_SPOKEN.search(planned.spoken), NEVER_SPOKEN.search(planned.spoken)
    assert not [title for title in planned.titles if bare_number(title) is not None]


def test_the_corpus_spans_producers_and_languages_and_keeps_books_unseen() -> None:
    assert len({entry["file"] for entry in CORPUS}) == len(CORPUS)
    assert all((BOOKS / entry["file"]).is_file() for entry in CORPUS)
    assert sum(bool(entry.get("held_out")) for entry in CORPUS) >= 3
    languages = {entry["language"].split("-")[0] for entry in CORPUS}
    assert {"en", "fr", "de", "pt", "sv", "nl", "ru", "es", "fi"} <= languages
