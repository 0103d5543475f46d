"""The sample book through real Snakemake with espeak: every segment rendered by one process that
loaded the engine once, the master laid out as the timeline says, and narrator status on the result.
"""

from __future__ import annotations

import pytest
import yaml
from conftest import REPO

from narrator.core.catalog import COMPLETED
from narrator.core.timeline import build_timeline
from narrator.inspect.check import check_book

pytestmark = pytest.mark.slow


def test_sample_book_renders_completely_with_one_engine_load(reference_book):
    data, rate, rows, work = reference_book
    assert rows and all(row.status == COMPLETED for row in rows)
    # The sample's three chapters between the credits that the default M4B output turns on.
    titles = list(dict.fromkeys(row.chapter_title for row in rows))
    assert len(titles) == 5 and (titles[0], titles[-1]) == ("Opening credits", "End credits")
    pauses = yaml.safe_load((REPO / "config.yaml").read_text())["pauses"]
    # Lead pad, each segment and the pause after it, trail pad: the one layout (narrator.core.timeline).
    timeline = build_timeline(rows, pauses)
    assert len(data) == timeline.frames
    assert (
        timeline.frames
        == timeline.lead
        + sum(int(row.frames) + round(pauses.get(row.pause_after, 0) * rate) for row in rows)
        + timeline.trail
    )
    logs = (work.path / "logs" / "render_segment" / "sample").glob("*.log")
    assert sorted(log.stem for log in logs) == sorted(row.segment_id for row in rows)
    # Every job ran in one process (one pid in all logs), which loaded the engine once and kept it.
    work.render_pid(row.segment_id for row in rows)


def test_status_command_reports_progress(reference_book):
    *_, work = reference_book
    result = work.narrator("status")
    assert result.returncode == 0, result.stderr
    assert "completed (100.0%), 0 queued" in result.stdout
    assert "audio so far 0.0" in result.stdout or "audio so far 0.1" in result.stdout


def test_the_sample_book_makes_a_read_along_epub_that_epubcheck_accepts(reference_book):
    *_, work = reference_book
    # Another output re-packages only: no segment renders again.
    started = len(work.rendered_jobs())
    work.run_book("outputs=[m4b,srt,epub]")
    assert len(work.rendered_jobs()) == started
    checked = check_book(work.results("sample"))
    assert [r for r in checked if r.file == "sample.epub" and r.rule == "EPUBCheck"], (
        "EPUBCheck not installed"
    )
    assert not [r for r in checked if not r.passed], [r for r in checked if not r.passed]
