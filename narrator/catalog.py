"""The segment catalog: one TSV row per segment, written atomically, updated under a lock.

Every write goes to a temp file, is fsynced, and replaces the catalog by rename, so a reader
(or a crash) sees either the old catalog or the new one, never a mix. Updates take an exclusive
flock on a sibling lock file around read-change-write, so concurrent jobs never lose each
other's marks.

WAV paths are relative to the catalog's folder, so a results folder can be moved or mounted
elsewhere (a cluster node, a laptop) and still verify and assemble.

The plan also records what the catalog must be (``PlanRecord``, in book.json beside it): the
number of rows and a digest of the segment ids in order. A catalog that lost, gained or
reordered rows, or that belongs to another plan, fails ``read_planned`` instead of giving a
silently shorter book.
"""

from __future__ import annotations

import csv
import fcntl
import hashlib
import io
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from narrator.audio import WavRecord
from narrator.errors import CatalogError
from narrator.publish import replace_durably
from narrator.segment import Segment

COLUMNS = (
    "segment_id",
    "sequence",
    "chapter",
    "chapter_title",
    "paragraph",
    "text",
    "spoken",
    "pause_after",
    "wav_path",
    "status",
    "frames",
    "sample_rate",
    "sha256",
    "render_seconds",
    "completed_at",
)
QUEUED = "queued"
COMPLETED = "completed"


@dataclass(frozen=True)
class Row(Segment):
    """One row of the catalog: a planned segment, its id, its WAV and its state, typed.

    Only this module parses and formats the TSV.
    """

    segment_id: str
    sequence: int
    wav_path: str
    status: str = QUEUED
    #: What the published WAV holds; None (empty in the TSV) while the row is queued.
    frames: int | None = None
    sample_rate: int | None = None
    sha256: str = ""
    #: Seconds the render took; None for a WAV adopted rather than rendered.
    render_seconds: float | None = None
    #: Unix time of the mark.
    completed_at: float | None = None

    @property
    def completed(self) -> bool:
        return self.status == COMPLETED

    @property
    def seconds(self) -> float:
        """Seconds of audio in the published WAV (0 while queued)."""
        return self.frames / self.sample_rate if self.frames and self.sample_rate else 0.0

    @property
    def record(self) -> WavRecord | None:
        """The WAV record a completed row promises."""
        if not self.completed or self.frames is None or self.sample_rate is None:
            return None
        return WavRecord(frames=self.frames, sample_rate=self.sample_rate, sha256=self.sha256)

    def marked_completed(self, record: WavRecord, render_seconds: float | None) -> Row:
        return replace(
            self,
            status=COMPLETED,
            frames=record.frames,
            sample_rate=record.sample_rate,
            sha256=record.sha256,
            render_seconds=None if render_seconds is None else round(render_seconds, 3),
            completed_at=round(time.time(), 3),
        )

    def marked_queued(self) -> Row:
        return replace(
            self,
            status=QUEUED,
            frames=None,
            sample_rate=None,
            sha256="",
            render_seconds=None,
            completed_at=None,
        )


#: The plan's metadata beside the catalog; it holds the PlanRecord under "plan".
BOOK_JSON = "book.json"
#: What to do about a missing catalog, or one that does not match its plan.
PLAN_HINT = "run snakemake to plan the book (finished segments are kept)"
REPLAN_HINT = "run snakemake again to re-plan it (finished segments are kept)"


def wav_file(catalog_path: str | Path, row: Row) -> Path:
    """Where a row's WAV is: its path is relative to the catalog's folder."""
    return Path(catalog_path).parent / row.wav_path


@dataclass(frozen=True)
class PlanRecord:
    """What a plan promises its catalog holds, and what it was made from."""

    segments: int
    ids_sha256: str
    source_sha256: str
    settings_sha256: str

    @staticmethod
    def ids_digest(segment_ids: Iterable[str]) -> str:
        return hashlib.sha256("\n".join(segment_ids).encode()).hexdigest()

    @classmethod
    def of(cls, rows: Sequence[Row], source_sha256: str, settings_sha256: str) -> PlanRecord:
        ids = [row.segment_id for row in rows]
        return cls(len(ids), cls.ids_digest(ids), source_sha256, settings_sha256)

    def as_json(self) -> dict[str, str | int]:
        return asdict(self)

    def mismatch(self, rows: Sequence[Row]) -> str | None:
        """How the rows differ from this plan, or None when they are exactly its segments in order."""
        ids = [row.segment_id for row in rows]
        if len(ids) < self.segments:
            return f"has {len(ids)} rows but its plan has {self.segments}: rows were lost"
        if len(ids) > self.segments:
            return f"has {len(ids)} rows but its plan has {self.segments}: rows were added"
        if self.ids_digest(ids) == self.ids_sha256:
            return None
        if len(set(ids)) < len(ids):
            return "repeats segment ids"
        return "does not hold its plan's segments in its plan's order (rows moved, or another plan's catalog)"


class UnprovenCatalog(CatalogError):
    """The catalog is not exactly what its plan recorded; only a re-plan can say what the book is."""

    def __init__(self, problem: str) -> None:
        super().__init__(f"{problem}; {REPLAN_HINT}")
        self.problem = problem


def read_plan_record(catalog_path: str | Path) -> PlanRecord:
    """The record the plan wrote beside the catalog."""
    path = Path(catalog_path).with_name(BOOK_JSON)
    try:
        return PlanRecord(**json.loads(path.read_text(encoding="utf-8"))["plan"])
    except FileNotFoundError:
        raise UnprovenCatalog(f"{path} is missing, so the catalog cannot be checked") from None
    except (ValueError, KeyError, TypeError) as error:
        raise UnprovenCatalog(f"{path} has no valid plan record ({error})") from None


def read_planned(catalog_path: str | Path) -> list[Row]:
    """All rows, after checking they are exactly the segments the plan recorded, in order."""
    rows = read_catalog(catalog_path)
    problem = read_plan_record(catalog_path).mismatch(rows)
    if problem is not None:
        raise UnprovenCatalog(f"{catalog_path} {problem}")
    return rows


def _lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


def read_catalog(path: str | Path) -> list[Row]:
    """All rows, typed; a malformed catalog or value is one CatalogError naming it."""
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle, delimiter="\t")
            header = next(reader, None)
            if header is None or tuple(header) != COLUMNS:
                raise CatalogError(f"{path}: not a narrator catalog (unexpected header)")
            return [_parse(path, f"row {number}", values) for number, values in enumerate(reader, start=1)]
    except FileNotFoundError:
        raise CatalogError(f"{path}: no catalog here; {PLAN_HINT}") from None
    except (csv.Error, UnicodeDecodeError) as error:
        raise CatalogError(f"{path}: the catalog is malformed ({error})") from None


def _parse(path: Path, where: str, values: Sequence[str]) -> Row:
    """A row from its TSV fields; ``where`` names it in errors ("row 12")."""
    if len(values) != len(COLUMNS):
        raise CatalogError(f"{path}: the catalog is malformed ({where} has {len(values)} fields)")
    fields = dict(zip(COLUMNS, values, strict=True))

    def number_in(column: str, kind: type[int] | type[float]) -> Any:
        value = fields[column]
        if not value:
            return None
        try:
            return kind(value)
        except ValueError:
            raise CatalogError(
                f"{path}: {where} (segment {fields['segment_id']}) has {column}={value!r}, not a "
                f"number; restore the catalog, or delete it and {REPLAN_HINT}"
            ) from None

    return Row(
        segment_id=fields["segment_id"],
        sequence=number_in("sequence", int) or 0,
        chapter=number_in("chapter", int) or 0,
        chapter_title=fields["chapter_title"],
        paragraph=number_in("paragraph", int) or 0,
        text=fields["text"],
        spoken=fields["spoken"],
        pause_after=fields["pause_after"],
        wav_path=fields["wav_path"],
        status=fields["status"],
        frames=number_in("frames", int),
        sample_rate=number_in("sample_rate", int),
        sha256=fields["sha256"],
        render_seconds=number_in("render_seconds", float),
        completed_at=number_in("completed_at", float),
    )


def _field(value: str | float | None, column: str) -> str:
    if value is None:
        return ""
    if column in ("render_seconds", "completed_at"):
        return f"{value:.3f}"
    return str(value)


def format_row(row: Row) -> list[str]:
    """The row's TSV fields in column order, as written (and as pandas reads them with dtype=str)."""
    return [_field(getattr(row, column), column) for column in COLUMNS]


def _format_lines(lines: Iterable[Sequence[str]]) -> bytes:
    buffer = io.StringIO()
    # Quoting every field keeps tabs, newlines, carriage returns and quotes in text exact, and
    # makes row starts findable without parsing (see _ROW_START).
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerows(lines)
    return buffer.getvalue().encode("utf-8")


def _format_rows(rows: Iterable[Row]) -> bytes:
    return _format_lines(format_row(row) for row in rows)


_HEADER = _format_lines([COLUMNS])


def write_catalog(path: str | Path, rows: Iterable[Row]) -> None:
    """Replace the whole catalog atomically."""
    replace_durably(Path(path), _HEADER + _format_rows(rows))


@contextmanager
def locked(path: str | Path) -> Iterator[None]:
    """Hold the catalog's exclusive lock (between processes and between threads alike)."""
    # Each caller opens its own descriptor: flock then excludes other threads of this process too.
    with open(_lock_path(Path(path)), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# With every field quoted, a quote inside a field is doubled, so a newline followed by a quoted
# value without quotes, tabs or newlines, then a tab, can only be the start of a row.
_ROW_START = re.compile(rb'\n"[^"\t\n]+"\t')


def update_rows(path: str | Path, changes: Mapping[str, Callable[[Row], Row]]) -> None:
    """Change rows by segment id, under the lock, as one atomic rewrite.

    Only the changed rows are parsed and re-encoded; the rest is copied as bytes, which keeps a
    mark cheap even for catalogs of many thousands of rows.
    """
    path = Path(path)
    with locked(path):
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CatalogError(f"{path}: no catalog here; {PLAN_HINT}") from None
        if not data.startswith(_HEADER):
            raise CatalogError(f"{path}: not a narrator catalog (unexpected header)")
        for segment_id, change in changes.items():
            # The header's own newline precedes the first row, so every row start is "\n"-led.
            start = data.find(b'\n"' + segment_id.encode() + b'"\t', len(_HEADER) - 1) + 1
            if start == 0:
                raise CatalogError(f"{path}: no row for segment {segment_id}")
            following = _ROW_START.search(data, start)
            end = following.start() + 1 if following else len(data)
            (values,) = csv.reader(io.StringIO(data[start:end].decode("utf-8")), delimiter="\t")
            row = change(_parse(path, "a row", values))
            data = data[:start] + _format_rows([row]) + data[end:]
        replace_durably(path, data)


def mark_completed(path: str | Path, segment_id: str, record: WavRecord, render_seconds: float) -> None:
    update_rows(path, {segment_id: lambda row: row.marked_completed(record, render_seconds)})


def mark_queued(path: str | Path, segment_ids: Iterable[str]) -> None:
    update_rows(path, dict.fromkeys(segment_ids, Row.marked_queued))


def rows_by_chapter(rows: Iterable[Row]) -> dict[int, list[Row]]:
    """Rows grouped by chapter, chapters in reading order (the catalog's rows already are)."""
    groups: dict[int, list[Row]] = {}
    for row in rows:
        groups.setdefault(row.chapter, []).append(row)
    return groups


_segment_cache: dict[str, Row] = {}
_segment_cache_lock = threading.Lock()


def segment_row(path: str | Path, segment_id: str) -> Row:
    """The row of one segment, from a per-process cache of the catalog.

    Segment ids are content hashes, so a cached row's text can never be stale; a miss
    (a new book plan) reloads the catalog once.
    """
    with _segment_cache_lock:
        row = _segment_cache.get(segment_id)
        if row is None:
            _segment_cache.update({r.segment_id: r for r in read_catalog(path)})
            row = _segment_cache.get(segment_id)
        if row is None:
            raise CatalogError(f"{path}: segment {segment_id} is not in the catalog")
        return row
