"""The fixes file (narrator.plan.fixes): its mistakes refused in one line naming the entry, and an
entry whose segment the book no longer has named in the plan log, not used."""

from __future__ import annotations

import dataclasses

import pytest
from tiny_book import SETTINGS

from narrator.core.catalog import read_catalog
from narrator.core.errors import UserError
from narrator.plan.fixes import Fix, Fixes, fixes_path, segment_keys
from narrator.plan.plan import write_plan


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("text: x\n", "must be a YAML list"),
        ("- say: x\n", "entry 1: give the segment's text"),
        ("- {text: a, say: b}\n- {text: a, sai: b}\n", "entry 2: unknown field 'sai'"),
        ("- {text: a}\n", "give say: (what to read) or seed: (another take)"),
        ("- {text: a, seed: -1}\n", "seed must be a whole number from 0 to 4294967295"),
        ("- {text: a, occurrence: 0, say: b}\n", "occurrence must be a whole number from 1"),
        ("- {text: a, say: b}\n- {text: a, seed: 3}\n", "has two entries; keep one"),
        ("- [text\n", "cannot read the fixes"),
    ],
)
def test_a_bad_fixes_file_is_refused_in_one_line(tmp_path, text, problem):
    path = tmp_path / "book.fixes.yaml"
    path.write_text(text)
    with pytest.raises(UserError, match=r"^[^\n]+$") as error:
        Fixes.load(path)
    assert str(error.value).startswith(str(path)) and problem in str(error.value)


def test_entries_are_named_by_text_and_occurrence_and_survive_a_dump(tmp_path):
    assert segment_keys(["Yes.", "No.", "Yes."]) == [("Yes.", 1), ("No.", 1), ("Yes.", 2)]
    fixes = Fixes().with_entry(("Yes.", 2), say="Yes!").with_entry(("Yes.", 2), seed=7)
    assert fixes.entries == (Fix("Yes.", 2, "Yes!", 7),)
    path = tmp_path / "book.fixes.yaml"
    path.write_text(fixes.dump())
    assert Fixes.load(path).entries == fixes.entries
    assert Fixes.load(tmp_path / "none.fixes.yaml").entries == ()


def test_an_entry_for_text_the_book_lost_is_named_in_the_plan_log_and_unused(planned):
    book = planned.parent.parent.parent / "tiny-book.md"
    fixes_path(book).write_text("- {text: The end., say: The very end.}\n- {text: Gone., say: x}\n")
    log = write_plan(book, planned, planned.with_name("book.json"), dataclasses.replace(SETTINGS))
    assert "fixes: 1 segments read or taken as" in log
    assert "1 entries name a segment the book no longer has (its text changed) and are not used" in log
    assert [row.spoken for row in read_catalog(planned) if row.text == "The end."] == ["The very end."]
