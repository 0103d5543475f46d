"""`narrator status`'s figures (narrator/inspect/status.py) from a hand-made catalog: bars,
percentages, pace, speech time apart from the book's length, and ETA.
"""

from __future__ import annotations

import pytest
from planned import PLAN, START, make_rows, write_loudness

from narrator.inspect.status import (
    ASCII,
    UNICODE,
    bar,
    book_seconds,
    chapters,
    format_status,
    glyphs_for,
    progress,
    throughput,
)


def test_bar_is_full_only_when_everything_is_done():
    assert bar(7, 10, width=10) == "███████░░░"
    assert bar(0, 10, width=10) == "░" * 10
    assert bar(10, 10, width=10) == "█" * 10
    assert bar(999, 1000, width=10) == "█" * 9 + "░"
    assert bar(0, 0, width=4) == "████"
    assert bar(1, 3, width=6, glyphs=ASCII) == "##----"


def test_chapters_counts_and_titles():
    parts = chapters(make_rows(PLAN))
    assert [(p.number, p.title, p.total, p.completed) for p in parts] == [
        (1, "Chapter 1: The Last Lamp", 10, 10),
        (2, "The Fog", 10, 7),
        (3, "Chapter 3", 10, 0),  # an untitled chapter is named as everywhere else
    ]
    assert parts[1].audio_seconds == pytest.approx(14.0)


def test_pace_and_eta_come_from_the_latest_completions():
    rows = make_rows(PLAN)
    overall = progress(rows)
    assert (overall.completed, overall.total, overall.queued) == (17, 30, 13)
    # One completion every 3 s: 13 left take 39 s.
    assert overall.eta_seconds == pytest.approx(39.0)
    pace = throughput(rows)
    assert pace is not None
    assert pace.window == 17
    assert pace.segments_per_minute == pytest.approx(20.0)
    assert pace.audio_per_second == pytest.approx(2.0 / 3.0)


def test_no_pace_before_two_completions():
    rows = make_rows([("Only", 5, 1)])
    assert throughput(rows) is None
    # One render took 1.5 s: the ETA falls back to the render time.
    assert progress(rows).eta_seconds == pytest.approx(6.0)


def test_format_status_draws_one_bar_per_chapter():
    rows = make_rows(PLAN)
    now = START + 3 * 16 + 30
    text = format_status("results/book/catalog.tsv", rows, now, columns=80)
    lines = text.splitlines()
    assert lines[0] == (
        "results/book/catalog.tsv: 17/30 completed (56.7%), 13 queued; "
        "audio so far 0.01 h (0:00:34); ETA 0:00:39"
    )
    assert lines[1] == "  pace  20.0 segments/min, 0.7 audio-s per wall-s (latest 17); last 0:00:30 ago"
    # 17 segments of two words ("Sentence 3.") and 2 s each: 34 words in 34 s of speech.
    assert lines[2] == "  time  speech so far 0:00:34 at 60 words/min; book length with pauses once assembled"
    assert lines[3] == "  all   ███████████░░░░░░░░░  56%  17/30  0:00:34 of speech"
    assert lines[4] == "  ch  1 ████████████████████ 100%  10/10  Chapter 1: The Last Lamp"
    assert lines[5] == "  ch  2 ██████████████░░░░░░  70%   7/10  The Fog"
    assert lines[6] == "  ch  3 ░░░░░░░░░░░░░░░░░░░░   0%   0/10  Chapter 3"
    assert len(lines) == 7


def test_book_length_is_the_masters_once_it_matches_the_catalog(tmp_path):
    done = make_rows([("One", 4, 4), ("Two", 6, 6)])
    last = START + 3 * 9
    # Not assembled yet: no length, rather than a guess without the pauses.
    assert book_seconds(tmp_path, done) is None
    # A master from before the latest completion is another version of the book.
    write_loudness(tmp_path, 23.5, last - 1)
    assert book_seconds(tmp_path, done) is None
    write_loudness(tmp_path, 23.5, last + 1)
    assert book_seconds(tmp_path, done) == pytest.approx(23.5)
    # A queued row means the master no longer matches the catalog.
    assert book_seconds(tmp_path, make_rows([("One", 4, 4), ("Two", 6, 5)])) is None
    (tmp_path / "loudness.json").write_text("{")  # half-written: no length yet, no crash
    assert book_seconds(tmp_path, done) is None
    # 10 segments of 2 s: 20 s of speech, played in 23.5 s with the pauses.
    lines = format_status("c.tsv", done, last, book=23.5).splitlines()
    assert lines[2] == "  time  speech 0:00:20 at 60 words/min; book 0:00:24 with pauses"


def test_long_titles_are_cut_to_the_terminal_width():
    rows = make_rows([("A very long chapter title that goes on and on and on", 4, 2)])
    for glyphs, mark in ((UNICODE, "…"), (ASCII, "...")):
        last = format_status("c.tsv", rows, START, columns=60, glyphs=glyphs).splitlines()[-1]
        assert len(last) <= 60
        assert last.endswith(mark)
        assert last.startswith(f"  ch  1 {bar(2, 4, glyphs=glyphs)}  50%")


def test_ascii_when_the_output_cannot_encode_blocks():
    assert glyphs_for("utf-8") is UNICODE
    assert glyphs_for("ascii") is ASCII
    assert glyphs_for(None) is ASCII


def test_a_stalled_run_says_so_and_a_slow_segment_does_not():
    rows = make_rows(PLAN)
    last = START + 3 * 16  # one completion every 3 s until then
    assert "stalled" not in format_status("c.tsv", rows, last + 59).splitlines()[1]
    stalled = format_status("c.tsv", rows, last + 77).splitlines()[1]
    assert stalled.startswith("  pace  20.0 segments/min") and "last 0:01:17 ago; stalled:" in stalled
    assert "26 times the usual 0:00:03" in stalled and "ETA does not hold" in stalled
    finished = make_rows([("Only", 3, 3)])
    assert "stalled" not in format_status("c.tsv", finished, START + 3600).splitlines()[1]
