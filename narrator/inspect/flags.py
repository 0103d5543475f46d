"""Segments flagged by ear in the studio, each with a note: ``<results>/<book_id>/flags.yaml``.

A flag is on a take: it names the segment by id, and the id changes when the segment renders again
(its own reading, another take, a lexicon entry), so a fixed segment's flag drops out of what
``narrator check`` and the report list. The studio writes the file whole, atomically, under the
book's lock, keeping only flags on segments the catalog still has.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from narrator.core.catalog import Row
from narrator.core.errors import UserError
from narrator.core.publish import publishing, require_file

FLAGS_FILE = "flags.yaml"


def read_flags(folder: Path) -> dict[str, str]:
    """The note of every flagged segment, by segment id; none without the file."""
    path = folder / FLAGS_FILE
    if not path.exists():
        return {}
    require_file(path, "flags file")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        return {str(item["segment_id"]): str(item.get("note") or "") for item in data}
    except (OSError, UnicodeDecodeError, yaml.YAMLError, TypeError, KeyError) as error:
        raise UserError(f"{path}: cannot read the flags ({' '.join(str(error).split())})") from None


def write_flags(folder: Path, flags: Mapping[str, str], rows: Sequence[Row]) -> None:
    """Replace the flags file with ``flags`` on the segments of ``rows``, with each one's text for people."""
    entries = [
        {
            "segment_id": row.segment_id,
            "chapter": row.chapter,
            "text": row.text,
            "note": flags[row.segment_id],
        }
        for row in rows
        if row.segment_id in flags
    ]
    with publishing(folder / FLAGS_FILE) as temp:
        temp.write_text(
            yaml.safe_dump(entries, allow_unicode=True, sort_keys=False, width=1000), encoding="utf-8"
        )


def flagged(rows: Sequence[Row], flags: Mapping[str, str]) -> list[tuple[Row, str]]:
    """The flagged segments among ``rows``, in reading order, with their notes."""
    return [(row, flags[row.segment_id]) for row in rows if row.segment_id in flags]


def format_flags(found: Sequence[tuple[Row, str]]) -> str:
    lines = [f"{len(found)} segments flagged by ear in the studio:"]
    lines += [
        f"  ch. {row.chapter} {row.segment_id}: {row.text!r}: {note or '(no note)'}" for row, note in found
    ]
    return "\n".join(lines)
