"""SRT and WebVTT subtitles: one cue per segment, timed by the timeline."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from narrator.core.catalog import Row
from narrator.core.publish import publishing
from narrator.core.timeline import Timeline, book_timeline


def _milliseconds(frames: int, rate: int) -> int:
    return (frames * 1000 + rate // 2) // rate


def timestamp(frames: int, rate: int, separator: str) -> str:
    ms = _milliseconds(frames, rate)
    hours, ms = divmod(ms, 3_600_000)
    minutes, ms = divmod(ms, 60_000)
    seconds, ms = divmod(ms, 1000)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}{separator}{ms:03d}"


def cue_text(text: str, kind: str) -> str:
    """A segment's text as one cue: no blank lines (they end a cue); VTT's &, < and > escaped."""
    lines = [line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    text = "\n".join(line for line in lines if line)
    if kind == "vtt":
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text or "…"


def subtitle_cues(rows: Sequence[Row], timeline: Timeline, kind: str) -> Iterator[str]:
    separator = "," if kind == "srt" else "."
    if kind == "vtt":
        yield "WEBVTT\n\n"
    for number, (row, span) in enumerate(zip(rows, timeline.spans, strict=True), start=1):
        start = timestamp(span.start, timeline.rate, separator)
        end = timestamp(span.end, timeline.rate, separator)
        yield f"{number}\n{start} --> {end}\n{cue_text(row.text, kind)}\n\n"


def write_subtitles(
    catalog_path: str | Path, master: str | Path, output: str | Path, pauses: Mapping[str, float], kind: str
) -> str:
    """One cue per segment, timed from the catalog's frames and the pauses; text is the raw ``text``."""
    if kind not in ("srt", "vtt"):
        raise ValueError(f"unknown subtitle kind {kind!r}")
    output = Path(output)
    rows, timeline = book_timeline(catalog_path, master, pauses)
    with publishing(output) as temp, open(temp, "w", encoding="utf-8", newline="\n") as handle:
        for cue in subtitle_cues(rows, timeline, kind):
            handle.write(cue)
    return f"wrote {len(rows)} {kind.upper()} cues to {output}"
