"""What a demanding user does to a half-done book, then a real run: change the settings where
Snakemake's own triggers cannot see it, switch back, copy files from a skewed clock, damage
loudness.json or one catalog slot, name the results folder oddly. The book is never mixed from two
plans, finished work is never deleted, and nothing needs more than a run of snakemake.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest
from conftest import read_audio

from narrator.core.catalog import read_catalog, wav_file

pytestmark = pytest.mark.slow

MTIME_ONLY = ("--rerun-triggers", "mtime")


def _ids(work) -> list[str]:
    return [row.segment_id for row in read_catalog(work.results() / "catalog.tsv")]


def _as_if_half_done(work) -> list[str]:
    """Delete every other segment WAV and the master, as a run stopped mid-way leaves them."""
    rows = read_catalog(work.results() / "catalog.tsv")
    lost = rows[::2]
    for row in lost:
        wav_file(work.results() / "catalog.tsv", row).unlink()
    (work.results() / "sample.wav").unlink()
    return [row.segment_id for row in lost]


def test_settings_changed_on_a_half_done_book_replan_it_and_switching_back_costs_nothing(workdir):
    workdir.run_book()
    first_plan = _ids(workdir)
    _as_if_half_done(workdir)
    # Only mtimes decide what Snakemake re-runs here, so only narrator sees that the pace changed.
    faster = workdir.snakemake("all", *MTIME_ONLY, "--cores", "2", "--config", "engine=espeak", "pace=200")
    assert "the settings changed since" in faster.stderr
    second_plan = _ids(workdir)
    assert not set(second_plan) & set(first_plan)  # every segment at the new pace, none at the old
    assert {p.stem for p in (workdir.results() / "segments").glob("*.wav")} == set(second_plan)
    aside = workdir.results() / "aside"
    kept = {p.stem for p in aside.glob("*.wav")}
    assert kept and kept <= set(first_plan)  # the old pace's finished WAVs, set aside, not deleted

    started = len(workdir.rendered_jobs())
    workdir.snakemake("all", *MTIME_ONLY, "--cores", "2", "--config", "engine=espeak")
    assert _ids(workdir) == first_plan
    rendered = workdir.rendered_jobs()[started:]
    assert sorted(rendered) == sorted(set(first_plan) - kept)  # the set-aside half came back as it was


def test_a_voice_option_changed_by_hand_in_book_json_is_caught(workdir):
    """A plan record that does not match the settings (a results folder copied from another config)."""
    workdir.run_book()
    book_json = workdir.results() / "book.json"
    record = json.loads(book_json.read_text())
    record["plan"]["settings_sha256"] = "0" * 64
    book_json.write_text(json.dumps(record))
    again = workdir.run_book(*MTIME_ONLY)
    assert "the settings changed since" in again.stderr
    assert json.loads(book_json.read_text())["plan"]["settings_sha256"] != "0" * 64


def test_future_mtimes_neither_delete_the_master_nor_block_the_run(workdir, reference_book):
    workdir.run_book()
    ahead = time.time() + 2 * 86400
    segment = next((workdir.results() / "segments").glob("*.wav"))
    os.utime(segment, (ahead, ahead))
    (workdir.results() / "sample.wav").unlink()
    skewed = workdir.run_book()
    assert "clock skew" in skewed.stderr and segment.name in skewed.stderr
    assert np.array_equal(read_audio(workdir.results() / "sample.wav")[0], reference_book[0])

    book = workdir.path / "workflow" / "resources" / "sample.md"
    a_year_ahead = time.time() + 365 * 86400
    os.utime(book, (a_year_ahead, a_year_ahead))
    for _ in range(2):
        workdir.run_book()
        for name in ("catalog.tsv", "book.json", "sample.wav", "loudness.json"):
            assert (workdir.results() / name).is_file(), name
    assert book.stat().st_mtime < time.time() + 60


def test_a_damaged_loudness_report_is_named_in_one_line_and_healed_by_a_run(workdir, reference_book):
    workdir.run_book()
    report = workdir.results() / "loudness.json"
    report.write_bytes(report.read_bytes()[:40])
    check = workdir.narrator("check", str(workdir.results()))
    assert "Traceback" not in check.stdout + check.stderr
    assert "loudness.json is damaged" in check.stdout and "run snakemake again" in check.stdout
    healed = workdir.run_book()
    assert "loudness.json is damaged" in healed.stderr and "assembling the book again" in healed.stderr
    json.loads(report.read_text())
    assert np.array_equal(read_audio(workdir.results() / "sample.wav")[0], reference_book[0])


def test_a_torn_catalog_slot_is_replanned_without_a_render(workdir, reference_book):
    workdir.run_book()
    catalog = workdir.results() / "catalog.tsv"
    lines = catalog.read_bytes().split(b"\n")
    tab = lines[5].rfind(b"\t")
    lines[5] = lines[5][:tab] + b"\x00\x00" + lines[5][tab + 1 :]  # half a slot of stray bytes
    catalog.write_bytes(b"\n".join(lines))
    status = workdir.narrator("status")
    assert "malformed" in status.stderr and "run snakemake again to re-plan it" in status.stderr
    started = len(workdir.rendered_jobs())
    healed = workdir.run_book()
    assert "re-planning" in healed.stderr
    assert workdir.rendered_jobs()[started:] == []
    assert np.array_equal(read_audio(workdir.results() / "sample.wav")[0], reference_book[0])


@pytest.mark.parametrize("results", ["out/", "./out", "{absolute}/"])
def test_the_results_folder_may_be_written_any_way(workdir, results):
    folder = results.format(absolute=workdir.path / "elsewhere")
    workdir.run_book(f"results={folder}", target="render_all")
    root = workdir.path / "elsewhere" if "absolute" in results else workdir.path / "out"
    assert (root / "sample" / "catalog.tsv").is_file()
