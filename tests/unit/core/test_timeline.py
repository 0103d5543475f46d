"""The timeline (narrator/core/timeline.py): the pads, pauses and chapters of the master, from the catalog."""

from __future__ import annotations

from pathlib import Path

from hostile_book import HOSTILE, PAUSES, RATE, make_book

from narrator.core.catalog import read_catalog
from narrator.core.timeline import build_timeline


def test_timeline_lays_out_pads_pauses_and_chapters(tmp_path: Path) -> None:
    catalog, _ = make_book(tmp_path)
    rows = read_catalog(catalog)
    timeline = build_timeline(rows, PAUSES)
    assert timeline.rate == RATE and timeline.lead == round(0.5 * RATE) and timeline.trail == RATE
    position = timeline.lead
    for row, span in zip(rows, timeline.spans, strict=True):
        assert span.start == position and span.end - span.start == int(row.frames)
        assert span.pause == round(PAUSES.get(row.pause_after, 0) * RATE)
        position = span.end + span.pause
    assert timeline.spans[-1].pause == 0  # 'end' names no pause
    assert timeline.frames == position + timeline.trail
    assert [c.title for c in timeline.chapters] == [t.strip() for t in HOSTILE]
    assert [(c.first_row, c.last_row) for c in timeline.chapters] == [(0, 2), (3, 5), (6, 7)]
    assert [c.speech for c in timeline.chapters] == [timeline.spans[i].start for i in (0, 3, 6)]
    assert [c.start for c in timeline.chapters] == [0, timeline.spans[3].start, timeline.spans[6].start]
    assert [c.end for c in timeline.chapters] == [
        timeline.spans[3].start,
        timeline.spans[6].start,
        timeline.frames,
    ]
