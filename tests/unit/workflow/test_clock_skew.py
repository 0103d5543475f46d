"""Modification times from the future are brought back to now (narrator/workflow/clock_skew.py)."""

from __future__ import annotations

import os
import time

from narrator.workflow.clock_skew import bring_back_future_mtimes, describe


def test_only_files_ahead_of_the_clock_are_touched_and_named(tmp_path):
    now = time.time()
    book, results = tmp_path / "book.txt", tmp_path / "results" / "book" / "segments"
    results.mkdir(parents=True)
    ahead, behind, slightly = results / "a.wav", results / "b.wav", results / "c.wav"
    for path, mtime in (
        (book, now + 3600),
        (ahead, now + 2 * 86400),
        (behind, now - 60),
        (slightly, now + 1),
    ):
        path.write_bytes(b"x")
        os.utime(path, (mtime, mtime))
    skewed = bring_back_future_mtimes([book, tmp_path / "results", tmp_path / "missing"], now)
    assert sorted(skewed) == sorted([book, ahead])
    assert book.stat().st_mtime == ahead.stat().st_mtime == now
    assert behind.stat().st_mtime == now - 60 and slightly.stat().st_mtime == now + 1
    assert book.read_bytes() == b"x"
    line = describe(skewed)
    assert line.startswith("2 file(s) had modification times in the future") and "\n" not in line
