"""SRT and VTT subtitles (narrator/package/subtitles.py), timed from the catalog."""

from __future__ import annotations

import re

from hostile_book import PAUSES, RATE

from narrator.core.catalog import read_catalog
from narrator.core.timeline import build_timeline
from narrator.package.subtitles import timestamp, write_subtitles


def test_subtitles_are_timed_from_the_catalog(assembled) -> None:
    catalog, _, master = assembled
    rows = read_catalog(catalog)
    timeline = build_timeline(rows, PAUSES)
    for kind, separator in (("srt", ","), ("vtt", ".")):
        out = master.with_suffix(f".{kind}")
        write_subtitles(catalog, master, out, PAUSES, kind)
        text = out.read_text(encoding="utf-8")
        if kind == "vtt":
            assert text.startswith("WEBVTT\n\n")
            text = text[len("WEBVTT\n\n") :]
        cues = text.rstrip("\n").split("\n\n")
        assert len(cues) == len(rows)
        for number, (cue, row, span) in enumerate(zip(cues, rows, timeline.spans, strict=True), start=1):
            index, timing, *body = cue.split("\n")
            assert index == str(number)
            start_ms = round(span.start * 1000 / RATE)
            end_ms = round(span.end * 1000 / RATE)
            expected = f"{timestamp(span.start, RATE, separator)} --> {timestamp(span.end, RATE, separator)}"
            assert timing == expected
            h, m, s, ms = map(int, re.split(r"[:,.]", timing.split(" --> ")[0]))
            assert ((h * 60 + m) * 60 + s) * 1000 + ms == start_ms
            h, m, s, ms = map(int, re.split(r"[:,.]", timing.split(" --> ")[1]))
            assert ((h * 60 + m) * 60 + s) * 1000 + ms == end_ms
            raw = "\n".join(line.strip() for line in row.text.split("\n") if line.strip())
            if kind == "vtt":
                raw = raw.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            assert "\n".join(body) == raw
    assert "&lt;b&gt;Tom&lt;/b&gt; &amp; Jerry" in master.with_suffix(".vtt").read_text()
    assert "--&gt;" in master.with_suffix(".vtt").read_text()
