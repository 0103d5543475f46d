"""Faults around crashes: the catalog must prove the whole book and every WAV its own segment.

Each test reproduces a defect found by trying narrator as a user would: on the code before these
checks, a catalog that lost rows gave a silently shorter book, a swapped WAV was adopted, a moved
results folder lost track of its WAVs, and catalog temps survived every later run.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import kill_group, read_audio
from test_assemble_verify import BOOK, PAUSES, render

from narrator.assemble.assemble import assemble_book
from narrator.cli import main
from narrator.core import catalog
from narrator.core.catalog import COMPLETED, read_catalog, wav_file, write_catalog
from narrator.core.errors import CatalogError
from narrator.core.lock import holding
from narrator.inspect.verify import verify_catalog
from narrator.plan.plan import PlanSettings, replan_if_unproven, unproven_plan, write_plan

SETTINGS = PlanSettings(engine="espeak", options={"voice": "en-us"}, budget=60)


@pytest.fixture
def book(tmp_path: Path) -> Path:
    path = tmp_path / "tiny-book.md"
    path.write_text(BOOK)
    return path


@pytest.fixture
def rendered(tmp_path: Path, book: Path) -> Path:
    catalog_path = tmp_path / "results" / "tiny-book" / "catalog.tsv"
    write_plan(book, catalog_path, catalog_path.with_name("book.json"), SETTINGS)
    for seed, row in enumerate(read_catalog(catalog_path)):
        render(catalog_path, row, seed)
    return catalog_path


def _master(catalog_path: Path) -> Path:
    return catalog_path.with_name("tiny-book.wav")


# --- the catalog proves the whole book --------------------------------------------------------


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
        assemble_book(rendered, _master(rendered), PAUSES)
    assert not _master(rendered).exists()
    with pytest.raises(CatalogError, match=problem):
        verify_catalog(rendered)
    assert main(["status", str(rendered)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and problem in err and "run snakemake again to re-plan" in err


def test_a_catalog_without_its_plan_record_is_refused(rendered: Path) -> None:
    rendered.with_name("book.json").unlink()
    with pytest.raises(CatalogError, match=r"book\.json is missing"):
        assemble_book(rendered, _master(rendered), PAUSES)


def test_a_lost_row_is_re_planned_and_the_book_comes_out_whole(rendered: Path, book: Path) -> None:
    assemble_book(rendered, _master(rendered), PAUSES)
    whole = _master(rendered).read_bytes()
    write_catalog(rendered, read_catalog(rendered)[:-3])
    problem = unproven_plan(rendered, _master(rendered))
    assert problem is not None and "rows were lost" in problem

    results = rendered.parent
    said = replan_if_unproven(results, "tiny-book", lambda: True) or ""
    assert "rows were lost; a real run re-plans" in said and rendered.exists()
    said = replan_if_unproven(results, "tiny-book", lambda: False) or ""
    assert "rows were lost; re-planning" in said
    assert not rendered.exists() and not _master(rendered).exists()
    summary = write_plan(book, rendered, rendered.with_name("book.json"), SETTINGS)
    rows = read_catalog(rendered)
    assert f"{len(rows)} already published" in summary  # every WAV adopted, nothing to render
    assert all(row.status == COMPLETED for row in rows)
    assert unproven_plan(rendered, _master(rendered)) is None
    assemble_book(rendered, _master(rendered), PAUSES)
    assert _master(rendered).read_bytes() == whole


def test_a_missing_catalog_beside_a_master_is_unproven(rendered: Path) -> None:
    assert unproven_plan(rendered, _master(rendered)) is None
    assemble_book(rendered, _master(rendered), PAUSES)
    rendered.unlink()
    assert "is missing" in (unproven_plan(rendered, _master(rendered)) or "")
    fresh = rendered.parent.parent / "new-book" / "catalog.tsv"
    assert unproven_plan(fresh, fresh.with_name("new-book.wav")) is None  # before the first plan


# --- a WAV proves its segment -----------------------------------------------------------------


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


def test_verify_re_queues_a_swapped_wav(rendered: Path) -> None:
    rows = read_catalog(rendered)
    shutil.copyfile(wav_file(rendered, rows[0]), wav_file(rendered, rows[3]))
    report = verify_catalog(rendered)
    assert report.requeued == [rows[3].segment_id]


# --- a results folder can move ----------------------------------------------------------------


def test_a_moved_results_folder_verifies_and_assembles(rendered: Path, tmp_path: Path) -> None:
    assemble_book(rendered, _master(rendered), PAUSES)
    whole = _master(rendered).read_bytes()
    moved = tmp_path / "elsewhere" / "tiny-book"
    moved.parent.mkdir()
    rendered.parent.rename(moved)
    catalog_path = moved / "catalog.tsv"
    assert verify_catalog(catalog_path).requeued == []
    assemble_book(catalog_path, moved / "tiny-book.wav", PAUSES)
    assert (moved / "tiny-book.wav").read_bytes() == whole


# --- temps of killed writers ------------------------------------------------------------------


def test_catalog_temps_are_removed_by_verify_and_by_the_next_whole_write(rendered: Path) -> None:
    # Only whole writes (the plan, verify, a mark after a hand edit) make temps; marks write in place.
    stale = [rendered.with_name(f".catalog.tsv.tmp-{pid}-1") for pid in (11, 12)]
    for path in stale:
        path.write_bytes(b"half a catalog")
    assert verify_catalog(rendered).strays_removed == 2
    assert not any(path.exists() for path in stale)

    stale[0].write_bytes(b"half a catalog")
    catalog.mark_queued(rendered, [read_catalog(rendered)[0].segment_id])
    assert stale[0].exists()
    catalog.write_catalog(rendered, read_catalog(rendered))
    assert not stale[0].exists()


# --- a full disk ------------------------------------------------------------------------------


def test_a_master_that_cannot_fit_is_refused_naming_the_disk(rendered: Path, tiny_disk: Path) -> None:
    master = tiny_disk / "tiny-book.wav"
    (tiny_disk / "filler").write_bytes(b"\0" * (1024 * 1024 - 64 * 1024))
    with pytest.raises(OSError, match="No space left on device") as caught:
        assemble_book(rendered, master, PAUSES)
    assert caught.value.errno == errno.ENOSPC
    assert caught.value.filename == str(master)
    assert sorted(path.name for path in tiny_disk.iterdir()) == ["filler"]  # no temp left behind
    assert verify_catalog(rendered).requeued == []  # the segments are untouched


# --- end to end: a run re-plans what the catalog no longer proves ------------------------------


@pytest.mark.slow
def test_a_run_re_plans_a_cut_or_deleted_catalog_and_the_book_is_whole(workdir, reference_book) -> None:
    samples, _, rows, _ = reference_book
    workdir.run_book()
    results = workdir.results()
    catalog_path, master = results / "catalog.tsv", results / "sample.wav"
    assert len(workdir.rendered_jobs()) == len(rows)

    write_catalog(catalog_path, read_catalog(catalog_path)[:-9])  # lost at a row boundary
    cut = catalog_path.read_bytes()
    dry = workdir.snakemake("-n", "--cores", "1", "--config", "engine=espeak")
    assert "rows were lost" in dry.stderr and "a real run re-plans" in dry.stderr
    assert catalog_path.read_bytes() == cut and master.exists()  # a dry run changes nothing

    rerun = workdir.run_book()
    assert "rows were lost; re-planning" in rerun.stderr
    assert np.array_equal(read_audio(master)[0], samples)
    assert len(read_catalog(catalog_path)) == len(rows)

    catalog_path.unlink()
    rerun = workdir.run_book()
    assert "is missing" in rerun.stderr and "re-planning" in rerun.stderr
    assert np.array_equal(read_audio(master)[0], samples)
    assert len(workdir.rendered_jobs()) == len(rows)  # every WAV was adopted: nothing rendered again


@pytest.mark.slow
def test_ctrl_c_stops_a_long_plan(workdir) -> None:
    # About 8 MB of text plans for tens of seconds; before the stop flag, Snakemake waited for the
    # plan to finish after the first Ctrl-C, and the catalog appeared anyway.
    paragraph = "It was a bright cold day in April, and the clocks were striking thirteen. " * 8
    chapters = [f"## Chapter {n}\n\n" + "\n\n".join([paragraph] * 100) for n in range(1, 141)]
    book = workdir.path / "long-book.md"
    book.write_text("# A Long Book\n\n" + "\n\n".join(chapters))
    log = workdir.path / "logs" / "plan_catalog" / "long-book.log"
    process = workdir.start_book(f"book={book}")
    try:
        while process.poll() is None and not log.exists():
            time.sleep(0.05)
        time.sleep(0.5)
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=120)
    finally:
        kill_group(process)
    assert process.returncode != 0
    assert not (workdir.results("long-book") / "catalog.tsv").exists()
    assert "interrupted by the user" in log.read_text()


# --- verify beside a run, and on a read-only folder --------------------------------------------


def test_verify_is_refused_while_a_run_holds_the_book(rendered: Path, capsys) -> None:
    with holding(rendered.parent, "snakemake"):
        assert main(["verify", str(rendered)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is in use by snakemake" in err
    assert main(["verify", str(rendered)]) == 0  # the lock went with its holder


def test_verify_on_a_read_only_file_system_is_one_line(rendered: Path, tiny_disk: Path, capsys) -> None:
    subprocess.run(["umount", str(tiny_disk)], check=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(tiny_disk)], check=True)
    shutil.copytree(rendered.parent, tiny_disk / "tiny-book")
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_disk)], check=True)
    assert main(["verify", str(tiny_disk / "tiny-book")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Read-only file system" in err and "Traceback" not in err


def test_a_hand_edited_number_is_one_line_naming_the_row(rendered: Path, capsys) -> None:
    third = read_catalog(rendered)[2]
    record = f'"{third.frames}"\t"{third.sample_rate}"\t"{third.sha256}"'
    hand_edited = f'"12x4"\t"{third.sample_rate}"\t"{third.sha256}"'
    rendered.write_text(rendered.read_text().replace(record, hand_edited))
    with pytest.raises(CatalogError, match=r"row 3 \(segment \w+\) has frames='12x4', not a number"):
        read_catalog(rendered)
    assert main(["status", str(rendered)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "12x4" in err


@pytest.mark.slow
def test_a_re_plan_on_a_read_only_results_folder_is_one_line(workdir, tiny_disk: Path) -> None:
    # book.json without its catalog is an unproven plan: the run must take the lock and remove it.
    (tiny_disk / "sample").mkdir()
    (tiny_disk / "sample" / "book.json").write_text("{}")
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_disk)], check=True)
    result = workdir.run_book(f"results={tiny_disk}", check=False)
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.startswith("narrator: ")]
    assert len(lines) == 1 and "Read-only file system" in lines[0], result.stderr
    assert "Traceback" not in result.stderr
