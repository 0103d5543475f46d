"""Render groups sized by work (narrator/render/groups.py): where a book's pending segments are cut, what
each group asks Slurm for, where the render speed comes from, and when a book's groups are planned
again."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from narrator.core.audio import WavRecord
from narrator.core.catalog import COMPLETED, Row, mark_completed, read_catalog, wav_file, write_catalog
from narrator.engines import engine_class
from narrator.render.groups import (
    MEASURED_WORDS,
    GroupSizing,
    book_render_groups,
    plan_render_groups,
    render_seconds_per_word,
    wall_minutes,
)

RATE = 22050


def _rows(words: list[int]) -> list[Row]:
    """One queued row per entry, with that many words of text."""
    return [
        Row(
            segment_id=f"{index:016x}",
            sequence=index + 1,
            chapter=1,
            chapter_title="One",
            paragraph=index,
            text=" ".join(["word"] * count) + ".",
            spoken=" ".join(["word"] * count) + ".",
            pause_after="sentence",
            wav_path=f"segments/{index:016x}.wav",
        )
        for index, count in enumerate(words)
    ]


def _completed(row: Row, audio_seconds: float, render_seconds: float) -> Row:
    return replace(
        row,
        status=COMPLETED,
        frames=round(audio_seconds * RATE),
        sample_rate=RATE,
        sha256="0" * 64,
        render_seconds=render_seconds,
        completed_at=1_800_000_000.0,
    )


def _members(groups, rows: list[Row]) -> list[list[int]]:
    """Indexes of the rows in each group, groups in order."""
    by_number: dict[int, list[int]] = {}
    for index, row in enumerate(rows):
        if row.segment_id in groups.numbers:
            by_number.setdefault(groups.numbers[row.segment_id], []).append(index)
    return [by_number[number] for number in sorted(by_number)]


def test_groups_hold_equal_work_so_long_segments_make_smaller_groups():
    # 1 s per word; a group closes once it holds 60 s: 60 one-word segments or 2 of 30 words.
    rows = _rows([1] * 120 + [30] * 6)
    groups = plan_render_groups("book", rows, lambda row: True, GroupSizing(1.0, 1000), 1.0)

    assert [len(members) for members in _members(groups, rows)] == [60, 60, 2, 2, 2]
    assert groups.name(rows[0].segment_id) == "render-book-0"
    assert groups.name(rows[-1].segment_id) == "render-book-4"


def test_a_group_asks_for_its_whole_wall_time_on_its_first_member_only():
    rows = _rows([1] * 120 + [30] * 6)
    groups = plan_render_groups("book", rows, lambda row: True, GroupSizing(1.0, 1000), 1.0)

    for members in _members(groups, rows):
        asked = [groups.runtime(rows[index].segment_id) for index in members]
        # Snakemake sums the members' runtime over the rounds it runs them in: only the first asks.
        assert asked[0] == wall_minutes(60.0) == 7 and not any(asked[1:]), asked
    # Twice the expected render time, plus 5 minutes to start: 60 s expected asks for 7 minutes.
    assert wall_minutes(0.0) == 5 and wall_minutes(600.0) == 25


def test_max_segments_caps_a_group_whatever_its_work():
    rows = _rows([1] * 10)
    groups = plan_render_groups("book", rows, lambda row: True, GroupSizing(60.0, 4), 1.0)

    assert [len(members) for members in _members(groups, rows)] == [4, 4, 2]


def test_only_pending_segments_are_grouped_and_the_first_pending_one_asks():
    rows = _rows([10] * 6)
    done = {rows[0].segment_id, rows[3].segment_id}

    def pending(row: Row) -> bool:
        return row.segment_id not in done

    groups = plan_render_groups("book", rows, pending, GroupSizing(1.0, 1000), 1.0)

    assert _members(groups, rows) == [[1, 2, 4, 5]]
    assert groups.runtime(rows[1].segment_id) == wall_minutes(40.0)
    # A segment planned into no group (rendered again after all) is a group of its own.
    assert groups.name(rows[0].segment_id) == f"render-book-{rows[0].segment_id}"
    assert groups.runtime(rows[0].segment_id) == wall_minutes(0.0)


def test_render_speed_comes_from_the_books_timed_segments_once_there_are_enough_words():
    rows = _rows([10] * 40)
    # Without timed segments: the engine's real-time factor at the configured pace.
    assert render_seconds_per_word(rows, 0.5, 120.0) == 0.25
    # Timed segments short of MEASURED_WORDS words do not count yet.
    few = [_completed(row, 4.0, 8.0) for row in rows[:5]] + rows[5:]
    assert render_seconds_per_word(few, 0.5, 120.0) == 0.25
    # Enough of them: their render seconds per word (8 s for 10 words), whatever the prior.
    count = MEASURED_WORDS // 10
    timed = [_completed(row, 4.0, 8.0) for row in rows[:count]] + rows[count:]
    assert render_seconds_per_word(timed, 0.5, 120.0) == 0.8


def test_each_engine_declares_a_measured_real_time_factor_and_unmeasured_ones_assume_real_time():
    assert engine_class("espeak").typical_rtf < engine_class("piper").typical_rtf < 1.0
    assert engine_class("kokoro").typical_rtf < 1.0
    assert engine_class("coqui").typical_rtf == 1.0


def test_a_books_groups_are_planned_once_per_catalog_file(tmp_path: Path):
    catalog = tmp_path / "catalog.tsv"
    rows = _rows([10] * 8)
    write_catalog(catalog, rows)
    sizing = GroupSizing(1.0, 3)
    first = book_render_groups("book", catalog, sizing, 1.0, 60.0)
    assert [len(members) for members in _members(first, rows)] == [3, 3, 2]

    # A mark rewrites the catalog in place: the run's groups stay as they were.
    wav = wav_file(catalog, rows[0])
    wav.parent.mkdir()
    wav.write_bytes(b"")
    record = WavRecord(frames=RATE, sample_rate=RATE, sha256="0" * 64)
    mark_completed(catalog, rows[0].segment_id, record, 1.0)
    assert read_catalog(catalog)[0].completed
    assert book_render_groups("book", catalog, sizing, 1.0, 60.0) is first

    # A new plan is a new file (written aside, then renamed): its pending segments are grouped anew.
    write_catalog(catalog, read_catalog(catalog))
    again = book_render_groups("book", catalog, sizing, 1.0, 60.0)
    assert [len(members) for members in _members(again, rows)] == [3, 3, 1]

    # A segment asked for before any plan is a group of its own.
    os.remove(catalog)
    assert book_render_groups("book", catalog, sizing, 1.0, 60.0).numbers == {}
