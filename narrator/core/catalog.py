"""The segment catalog: one TSV row per segment, planned whole, then marked in place.

The plan (and ``narrator verify``) writes the whole catalog to a temp file, fsyncs it and
replaces the catalog by rename, so a reader or a crash sees the old catalog or the new one.

A mark rewrites only its row's state, in place: the state columns end every row, and with the
``pad`` column before them they form a fixed-width slot (``SLOT_WIDTH`` bytes before the row's
newline) that the writer lays out never to cross a 512-byte boundary. A mark is then one
``pwrite`` of that slot and one ``fdatasync`` whatever the book's length (bench/marks.py: 0.13 kB
and 0.35 ms a mark at 30,000 segments, where rewriting the catalog wrote 14.8 MB and took 31 ms).
A write within one sector is not torn by a power loss (the assumption PostgreSQL makes for
pg_control), and a write within one page is not torn by a kill (the kernel checks for a fatal
signal only between pages), so a reader or a crash sees the old state or the new one. The
padding makes a planned catalog about 1.35x as large (Alice: 647 kB against 478 kB). Marks take
an exclusive flock on a sibling lock file, so concurrent jobs never lose each other's marks, and
the catalog stays readable by any TSV reader at every moment (pandas sees ``pad`` as spaces).

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
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from narrator.core.audio import WavRecord
from narrator.core.book import Segment
from narrator.core.errors import CatalogError
from narrator.core.lock import open_lock_file
from narrator.core.publish import replace_durably

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
    "pad",
    "status",
    "frames",
    "sample_rate",
    "sha256",
    "render_seconds",
    "completed_at",
)
QUEUED = "queued"
COMPLETED = "completed"
#: The columns that hold a Row's values: all but ``pad``, which holds only spaces.
ROW_COLUMNS = tuple(column for column in COLUMNS if column != "pad")
_PLANNED_COLUMNS = COLUMNS[: COLUMNS.index("pad")]
#: The state a mark changes: the columns after ``pad``, which end every row.
STATE_COLUMNS = COLUMNS[COLUMNS.index("pad") + 1 :]
#: The widest value of each state column: "completed", frames of 10 digits, a rate of 6, a
#: SHA-256, render seconds under a million, and Unix times before the year 2286.
_STATE_WIDTHS = {
    "status": 9,
    "frames": 10,
    "sample_rate": 6,
    "sha256": 64,
    "render_seconds": 10,
    "completed_at": 14,
}
_STATE_VALUE = re.compile(r"[0-9a-z.]*")
#: The widest state, quoted and tab-separated.
_STATE_MAX = sum(width + 2 for width in _STATE_WIDTHS.values()) + len(_STATE_WIDTHS) - 1
#: The bytes a mark rewrites before a row's newline: the end of the pad, a tab, the state.
SLOT_WIDTH = _STATE_MAX + 2
#: The unit a disk writes whole: no slot crosses a multiple of it.
SECTOR = 512


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
#: Under this key book.json holds the segments the plan gave their own render seed (another take,
#: narrator.plan.fixes), by id; the id mixes the seed in, so an id's seed never changes.
SEEDS_KEY = "seeds"
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


def planned_seed(catalog_path: str | Path, segment_id: str) -> int | None:
    """The render seed the plan gave this segment, or None for its text's own (or no book.json)."""
    path = Path(catalog_path).with_name(BOOK_JSON)
    try:
        seed = json.loads(path.read_text(encoding="utf-8")).get(SEEDS_KEY, {}).get(segment_id)
    except FileNotFoundError:
        return None
    except (ValueError, AttributeError) as error:
        raise CatalogError(f"{path} cannot be read ({error}); {REPLAN_HINT}") from None
    return seed if isinstance(seed, int) else None


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
            if header is not None and tuple(header) == ROW_COLUMNS:
                # Marks then rewrote the whole file; a re-plan lays it out anew and keeps every WAV.
                raise UnprovenCatalog(f"{path} has the layout of narrator before in-place marks")
            if header is None or tuple(header) != COLUMNS:
                raise CatalogError(f"{path}: not a narrator catalog (unexpected header)")
            return [_parse(path, f"row {number}", values) for number, values in enumerate(reader, start=1)]
    except FileNotFoundError:
        raise CatalogError(f"{path}: no catalog here; {PLAN_HINT}") from None
    except (csv.Error, UnicodeDecodeError) as error:
        raise CatalogError(f"{path}: the catalog is malformed ({error}); {REPLAN_HINT}") from None


def _parse(path: Path, where: str, values: Sequence[str]) -> Row:
    """A row from its TSV fields; ``where`` names it in errors ("row 12")."""
    if len(values) != len(COLUMNS):
        raise CatalogError(
            f"{path}: the catalog is malformed ({where} has {len(values)} fields); {REPLAN_HINT}"
        )
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
    """The row's TSV fields in ``ROW_COLUMNS`` order, as written (and as pandas reads them with dtype=str)."""
    return [_field(getattr(row, column), column) for column in ROW_COLUMNS]


def _format_lines(lines: Iterable[Sequence[str]]) -> bytes:
    buffer = io.StringIO()
    # Quoting every field keeps tabs, newlines, carriage returns and quotes in text exact, and
    # makes row starts findable without parsing (see _ROW_START).
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerows(lines)
    return buffer.getvalue().encode("utf-8")


_HEADER = _format_lines([COLUMNS])


def _state(row: Row) -> bytes:
    """The row's state columns, quoted and tab-separated as csv writes them."""
    values = [_field(getattr(row, column), column) for column in STATE_COLUMNS]
    for column, value in zip(STATE_COLUMNS, values, strict=True):
        if len(value) > _STATE_WIDTHS[column] or not _STATE_VALUE.fullmatch(value):
            raise CatalogError(
                f"segment {row.segment_id}: {column}={value!r} does not fit the catalog's state"
            )
    return "\t".join(f'"{value}"' for value in values).encode()


def _slot(row: Row) -> bytes:
    """What a mark writes: spaces that end the pad, its closing quote, a tab, and the state."""
    state = _state(row)
    return b" " * (_STATE_MAX - len(state)) + b'"\t' + state


def _format_catalog(rows: Iterable[Row]) -> bytes:
    data = bytearray(_HEADER)
    for row in rows:
        planned = [_field(getattr(row, column), column) for column in _PLANNED_COLUMNS]
        data += _format_lines([planned])[:-1] + b'\t"'
        # Spaces at the start of the pad move a slot that would cross a sector boundary past it.
        offset = len(data) % SECTOR
        if offset + SLOT_WIDTH > SECTOR:
            data += b" " * (SECTOR - offset)
        data += _slot(row) + b"\n"
    return bytes(data)


def write_catalog(path: str | Path, rows: Iterable[Row]) -> None:
    """Replace the whole catalog atomically."""
    replace_durably(Path(path), _format_catalog(rows))


@contextmanager
def locked(path: str | Path) -> Iterator[None]:
    """Hold the catalog's exclusive lock (between processes and between threads alike)."""
    # Each caller opens its own descriptor: flock then excludes other threads of this process too.
    fd = open_lock_file(_lock_path(Path(path)))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


# With every field quoted, a quote inside a field is doubled, so a newline followed by a quoted
# value without quotes, tabs or newlines, then a tab, can only be the start of a row.
_ROW_START = re.compile(rb'\n"[^"\t\n]+"\t')
_SLOT = re.compile(
    rb' *"\t"(?:%b|%b)"(?:\t"[0-9a-f.]*"){%d}' % (QUEUED.encode(), COMPLETED.encode(), len(STATE_COLUMNS) - 1)
)


@dataclass(frozen=True)
class _Layout:
    """Where a catalog file's rows are, by segment id: (first byte, newline)."""

    #: The file's device and inode: a mark keeps them, and every whole rewrite (a rename) changes them.
    identity: tuple[int, int]
    places: dict[str, tuple[int, int]]
    #: Every row ends in a well-formed slot within one sector (false after some hand edits).
    intact: bool


_layouts: dict[Path, _Layout] = {}
_layouts_lock = threading.Lock()


def _slot_intact(data: bytes, newline: int, base: int = 0) -> bool:
    """Whether the row ending at ``data[newline]`` (``data`` read from offset ``base``) has an intact slot."""
    slot = newline - SLOT_WIDTH
    return (
        slot > 0
        and (base + slot) // SECTOR == (base + newline - 1) // SECTOR
        and data[slot - 1 : slot] in (b" ", b'"')
        and _SLOT.fullmatch(data, slot, newline) is not None
    )


def _layout(path: Path, fd: int, fresh: bool) -> _Layout:
    """The file's layout: cached per file, or scanned anew (one read of the whole file)."""
    info = os.fstat(fd)
    identity = (info.st_dev, info.st_ino)
    with _layouts_lock:
        cached = _layouts.get(path)
        if cached is not None and cached.identity == identity and not fresh:
            return cached
        data = os.pread(fd, info.st_size, 0)
        if not data.startswith(_HEADER):
            raise CatalogError(f"{path}: not a narrator catalog (unexpected header)")
        starts = [match.start() + 1 for match in _ROW_START.finditer(data, len(_HEADER) - 1)]
        newlines = [start - 1 for start in starts[1:]] + [len(data) - 1]
        places = {
            data[start + 1 : data.index(b'"', start + 1)].decode(): (start, newline)
            for start, newline in zip(starts, newlines, strict=True)
        }
        intact = all(_slot_intact(data, newline) for newline in newlines)
        _layouts[path] = layout = _Layout(identity, places, intact)
        return layout


def _find(path: Path, fd: int, segment_id: str) -> tuple[Row, int | None]:
    """The segment's row and the offset of its slot (None when the layout is not intact: a hand edit).

    Reads one row, whatever the catalog's size; the whole file only when the cached layout is
    not this file's.
    """
    for fresh in (False, True):
        layout = _layout(path, fd, fresh)
        place = layout.places.get(segment_id)
        if place is None:
            continue
        start, newline = place
        data = os.pread(fd, newline + 1 - start, start)
        if not data.startswith(f'"{segment_id}"\t'.encode()) or not data.endswith(b"\n"):
            continue
        (values,) = csv.reader(io.StringIO(data.decode("utf-8")), delimiter="\t")
        row = _parse(path, "a row", values)
        if layout.intact and _slot_intact(data, len(data) - 1, start):
            return row, start + len(data) - 1 - SLOT_WIDTH
        if fresh:
            return row, None
    raise CatalogError(f"{path}: no row for segment {segment_id}")


def update_rows(path: str | Path, changes: Mapping[str, Callable[[Row], Row]]) -> None:
    """Change rows by segment id, under the lock: each row's slot rewritten in place, then one fdatasync.

    A row whose slot is not intact (the catalog was edited by hand) makes this one atomic rewrite
    of the whole catalog instead, which lays every slot out anew.
    """
    path = Path(path)
    with locked(path):
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            raise CatalogError(f"{path}: no catalog here; {PLAN_HINT}") from None
        try:
            writes = []
            for segment_id, change in changes.items():
                row, slot = _find(path, fd, segment_id)
                if slot is None:
                    _rewrite(path, changes)
                    return
                writes.append((slot, _slot(change(row))))
            for slot, data in writes:
                os.pwrite(fd, data, slot)
            if writes:
                os.fdatasync(fd)
        finally:
            os.close(fd)


def _rewrite(path: Path, changes: Mapping[str, Callable[[Row], Row]]) -> None:
    rows = read_catalog(path)
    missing = set(changes) - {row.segment_id for row in rows}
    if missing:
        raise CatalogError(f"{path}: no row for segment {sorted(missing)[0]}")
    write_catalog(path, [changes[row.segment_id](row) if row.segment_id in changes else row for row in rows])


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


def segment_row(path: str | Path, segment_id: str) -> Row:
    """The current row of one segment, read from its place in the catalog (one row, not the file)."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise CatalogError(f"{path}: no catalog here; {PLAN_HINT}") from None
    try:
        return _find(path, fd, segment_id)[0]
    finally:
        os.close(fd)


#: Beside segments/<id>.wav: what the check heard and its score (narrator.render.render writes it).
SIDECAR_SUFFIX = ".asr.json"


def sidecar_path(wav_path: str | Path) -> Path:
    """The ASR sidecar of a segment WAV: segments/<id>.asr.json."""
    wav_path = Path(wav_path)
    return wav_path.with_name(wav_path.stem + SIDECAR_SUFFIX)


#: Beside catalog.tsv: one "<segment id>\t<render seconds>" line per render, appended. The catalog
#: is rebuilt by every plan (Snakemake deletes it first), and a WAV adopted by the new plan proves
#: its audio but not how long it took; this log keeps that for the report's render speed.
RENDER_TIMES = "render_times.tsv"


def note_render_seconds(catalog_path: str | Path, segment_id: str, seconds: float) -> None:
    """Append a segment's render time to the log (one write of one short line: appends from
    concurrent render jobs do not interleave). A statistic, not a state: no fsync."""
    line = f"{segment_id}\t{seconds:.3f}\n".encode()
    fd = os.open(Path(catalog_path).with_name(RENDER_TIMES), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def read_render_seconds(catalog_path: str | Path) -> dict[str, float]:
    """Each segment's latest render time from the log; torn or foreign lines are skipped."""
    try:
        text = Path(catalog_path).with_name(RENDER_TIMES).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return {}
    times = {}
    for line in text.splitlines():
        segment_id, _, seconds = line.partition("\t")
        try:
            times[segment_id] = float(seconds)
        except ValueError:
            continue
    return times
