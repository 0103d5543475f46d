"""Plan a book: segment it and write the whole catalog before any audio work starts."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from narrator.audio import AudioCheckError, check_wav_file
from narrator.catalog import Row, completed_fields, queued_fields, write_catalog
from narrator.ingest import read_book
from narrator.segment import segment_book

#: Suffix of in-flight renders; deliberately matches no workflow output pattern.
TEMP_MARK = ".tmp-"


def render_key(engine: str, options: Mapping[str, Any]) -> str:
    """Everything besides the text that changes a segment's audio."""
    return f"{engine}:{json.dumps(dict(options), sort_keys=True)}"


def segment_ids(texts: list[str], key: str) -> list[str]:
    """Content ids: the same text and voice give the same id, so edits move only what changed.

    A repeated text (a refrain, "Yes.") gets its occurrence number mixed in, so ids stay unique
    and inserting one repeat shifts only the later repeats of that same text.
    """
    seen: Counter[str] = Counter()
    ids = []
    for text in texts:
        seen[text] += 1
        material = f"{key}\x00{text}" + (f"\x00{seen[text]}" if seen[text] > 1 else "")
        ids.append(hashlib.sha256(material.encode()).hexdigest()[:16])
    return ids


def plan_rows(book_path: Path, segments_dir: Path, key: str, budget: int) -> list[Row]:
    segments = list(segment_book(read_book(book_path), budget))
    ids = segment_ids([s.text for s in segments], key)
    return [
        {
            "segment_id": segment_id,
            "sequence": str(sequence),
            "chapter": str(segment.chapter),
            "chapter_title": segment.chapter_title,
            "paragraph": str(segment.paragraph),
            "text": segment.text,
            "pause_after": segment.pause_after,
            "wav_path": str(segments_dir / f"{segment_id}.wav"),
            **queued_fields(),
        }
        for sequence, (segment_id, segment) in enumerate(zip(ids, segments, strict=True), start=1)
    ]


def adopt_published(rows: list[Row]) -> tuple[int, int]:
    """Mark completed the rows whose WAV is already published and proves itself whole.

    Damaged ones are removed so they render again. Snakemake deletes a checkpoint's old output
    before re-planning, so after a book edit the previous catalog is gone while unchanged
    segments' WAVs remain; Snakemake will not re-render those, so the new catalog must record
    them or assembly would wait for ever.
    """
    adopted = damaged = 0
    for row in rows:
        path = Path(row["wav_path"])
        if not path.exists():
            continue
        try:
            record = check_wav_file(path, text_chars=len(row["text"]))
        except AudioCheckError:
            path.unlink()
            damaged += 1
            continue
        row.update(completed_fields(record, None))
        adopted += 1
    return adopted, damaged


def remove_leftovers(segments_dir: Path, keep: set[str]) -> int:
    """Delete stray temp files and WAVs of segments no longer in the book."""
    removed = 0
    for path in segments_dir.glob("*"):
        if path.is_file() and (TEMP_MARK in path.name or path.name not in keep):
            path.unlink()
            removed += 1
    return removed


def write_plan(
    book_path: str | Path,
    catalog_path: str | Path,
    *,
    engine: str,
    options: Mapping[str, Any],
    budget: int,
) -> str:
    """Segment the book and atomically write its catalog, adopting already published WAVs."""
    catalog_path = Path(catalog_path)
    segments_dir = catalog_path.parent / "segments"
    rows = plan_rows(Path(book_path), segments_dir, render_key(engine, options), budget)
    segments_dir.mkdir(parents=True, exist_ok=True)
    leftovers = remove_leftovers(segments_dir, {Path(row["wav_path"]).name for row in rows})
    adopted, damaged = adopt_published(rows)
    write_catalog(catalog_path, rows)
    chapters = len({row["chapter"] for row in rows})
    return (
        f"planned {len(rows)} segments in {chapters} chapters: {adopted} already published, "
        f"{damaged} damaged WAVs and {leftovers} leftover files removed"
    )
