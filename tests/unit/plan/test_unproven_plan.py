"""A catalog must prove its whole book, and every WAV its own segment (narrator/plan/plan.py).

Each test reproduces a defect found by trying narrator as a user would: on the code before these
checks, a catalog that lost rows gave a silently shorter book, and a swapped WAV was adopted.
What a real run makes of it: tests/e2e/test_damaged_results_heal.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tiny_book import BOOK, PAUSES, SETTINGS, SOURCE, master_of

from narrator.assemble.assemble import assemble_book
from narrator.cli import main
from narrator.core import catalog
from narrator.core.catalog import COMPLETED, read_catalog, wav_file, write_catalog
from narrator.core.errors import CatalogError
from narrator.inspect.verify import verify_catalog
from narrator.plan.plan import replan_if_unproven, unproven_plan, write_plan


@pytest.fixture
def book(tmp_path: Path, planned: Path) -> Path:
    """The tiny book's source, as ``planned`` wrote it."""
    return tmp_path / SOURCE


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda rows: rows[:-2], "rows were lost"),
        (lambda rows: rows[1:], "rows were lost"),
        (lambda rows: [*rows, rows[0]], "rows were added"),
        (lambda rows: [rows[1], rows[0], *rows[2:]], "plan's order"),
    ],
    ids=["tail-cut", "head-cut", "row-added", "rows-swapped"],
)
def test_a_catalog_that_is_not_its_plan_is_refused_everywhere(
    rendered: Path, change, problem, capsys
) -> None:
    write_catalog(rendered, change(read_catalog(rendered)))
    with pytest.raises(CatalogError, match=problem):
        assemble_book(rendered, master_of(rendered), PAUSES)
    assert not master_of(rendered).exists()
    with pytest.raises(CatalogError, match=problem):
        verify_catalog(rendered)
    assert main(["status", str(rendered)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and problem in err and "run snakemake again to re-plan" in err


def test_a_catalog_without_its_plan_record_is_refused(rendered: Path) -> None:
    rendered.with_name("book.json").unlink()
    with pytest.raises(CatalogError, match=r"book\.json is missing"):
        assemble_book(rendered, master_of(rendered), PAUSES)


def test_a_lost_row_is_re_planned_and_the_book_comes_out_whole(rendered: Path, book: Path) -> None:
    assemble_book(rendered, master_of(rendered), PAUSES)
    whole = master_of(rendered).read_bytes()
    write_catalog(rendered, read_catalog(rendered)[:-3])
    problem = unproven_plan(rendered, master_of(rendered))
    assert problem is not None and "rows were lost" in problem

    results = rendered.parent
    said = replan_if_unproven(results, "tiny-book", lambda: True) or ""
    assert "rows were lost; a real run re-plans" in said and rendered.exists()
    said = replan_if_unproven(results, "tiny-book", lambda: False) or ""
    assert "rows were lost; re-planning" in said
    assert not rendered.exists() and not master_of(rendered).exists()
    summary = write_plan(book, rendered, rendered.with_name("book.json"), SETTINGS)
    rows = read_catalog(rendered)
    assert f"{len(rows)} already published" in summary  # every WAV adopted, nothing to render
    assert all(row.status == COMPLETED for row in rows)
    assert unproven_plan(rendered, master_of(rendered)) is None
    assemble_book(rendered, master_of(rendered), PAUSES)
    assert master_of(rendered).read_bytes() == whole


def test_a_missing_catalog_beside_a_master_is_unproven(rendered: Path) -> None:
    assert unproven_plan(rendered, master_of(rendered)) is None
    assemble_book(rendered, master_of(rendered), PAUSES)
    rendered.unlink()
    assert "is missing" in (unproven_plan(rendered, master_of(rendered)) or "")
    fresh = rendered.parent.parent / "new-book" / "catalog.tsv"
    assert unproven_plan(fresh, fresh.with_name("new-book.wav")) is None  # before the first plan


def test_a_swapped_wav_is_not_adopted_by_a_re_plan(rendered: Path, book: Path) -> None:
    rows = read_catalog(rendered)
    source, victim = rows[0], rows[3]
    shutil.copyfile(wav_file(rendered, source), wav_file(rendered, victim))
    book.write_text(BOOK.replace("The end.", "The very end."))  # any edit re-plans the book

    summary = write_plan(book, rendered, rendered.with_name("book.json"), SETTINGS)

    after = {row.segment_id: row for row in read_catalog(rendered)}
    assert after[victim.segment_id].status == catalog.QUEUED
    assert not wav_file(rendered, victim).exists()
    assert after[source.segment_id].status == COMPLETED
    assert "1 damaged WAVs" in summary


def test_a_re_plan_keeps_the_adopted_segments_render_seconds(rendered: Path) -> None:
    # Snakemake deletes the catalog before a re-plan; before, every adopted row lost its render
    # time and the report its render speed.
    rendered.unlink()
    with rendered.with_name(catalog.RENDER_TIMES).open("a") as log:
        log.write("torn line without a tab\n")
    write_plan(rendered.parent.parent.parent / SOURCE, rendered, rendered.with_name("book.json"), SETTINGS)
    rows = read_catalog(rendered)
    assert rows and all(row.status == COMPLETED and row.render_seconds == 0.25 for row in rows)
