"""Hand-made catalogs with the plan record that assembly, status and verify check them against, and
the rows of a part-rendered book that status and the report draw."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from narrator.core.catalog import BOOK_JSON, COMPLETED, PlanRecord, Row, write_catalog


def write_planned(catalog_path: Path, rows: Sequence[Mapping[str, str]]) -> None:
    """Write the catalog and a book.json whose plan record vouches for exactly these rows."""
    write_catalog(catalog_path, rows)
    plan = PlanRecord.of(rows, source_sha256="", settings_sha256="")
    catalog_path.with_name(BOOK_JSON).write_text(json.dumps({"plan": plan.as_json()}))


def one_row_catalog(folder: Path, text: str) -> tuple[Path, Row]:
    """A planned catalog in ``folder`` (made here) of one queued segment of ``text``."""
    row = Row(
        chapter=1,
        chapter_title="One",
        paragraph=1,
        text=text,
        spoken=text,
        pause_after="paragraph",
        segment_id="0123456789abcdef",
        sequence=1,
        wav_path="segments/0123456789abcdef.wav",
    )
    catalog_path = folder / "catalog.tsv"
    folder.mkdir(parents=True, exist_ok=True)
    write_planned(catalog_path, [row])
    return catalog_path, row


RATE = 22050
START = 1_800_000_000.0


def make_rows(plan: list[tuple[str, int, int]]) -> list[Row]:
    """Rows for chapters given as (title, segments, completed); 2 s of audio each, one done per 3 s."""
    rows: list[Row] = []
    finished = 0
    for chapter, (title, total, completed) in enumerate(plan, start=1):
        for index in range(total):
            done = index < completed
            row = Row(
                segment_id=f"{len(rows):016x}",
                sequence=len(rows) + 1,
                chapter=chapter,
                chapter_title=title,
                paragraph=index,
                text=f"Sentence {index}.",
                spoken=f"Sentence {index}.",
                pause_after="sentence",
                wav_path=f"segments/{len(rows):016x}.wav",
            )
            if done:
                row = replace(
                    row,
                    status=COMPLETED,
                    frames=2 * RATE,
                    sample_rate=RATE,
                    sha256="0" * 64,
                    render_seconds=1.5,
                    completed_at=START + 3 * finished,
                )
                finished += 1
            rows.append(row)
    return rows


PLAN = [("Chapter 1: The Last Lamp", 10, 10), ("The Fog", 10, 7), ("", 10, 0)]


def write_loudness(folder: Path, seconds: float, mtime: float) -> None:
    """loudness.json as assembly writes it beside the master (only the length matters here)."""
    path = folder / "loudness.json"
    path.write_text(json.dumps({"frames": round(seconds * RATE), "sample_rate": RATE, "target_lufs": -18.0}))
    os.utime(path, (mtime, mtime))
