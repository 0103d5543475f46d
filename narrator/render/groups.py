"""Render groups sized by work: which segments share a cluster submission, and its wall time.

A submission pays a queue wait, a Snakemake start-up (about 10 s) and an engine load, so it should
render minutes of work; a fixed count of segments cannot say how much (an espeak segment renders in
milliseconds, a Kokoro one on a CPU in seconds). A book's pending segments are cut, in reading
order, into runs whose expected render time is ``minutes``: a segment's words times the render
seconds per word, measured on the book's own timed segments, else the engine's real-time factor at
the configured pace. Each run is one Snakemake group, named ``render-<book>-<n>``.

Snakemake asks a group for the sum of its members' ``runtime`` over the rounds it runs them in, in
whole minutes, so one-minute members of a 400-segment group would ask for hours. The group's whole
request rides on its first member instead, and the other members ask for 0: the sum is then the
request whatever the rounds.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from narrator.core.catalog import Row, read_catalog, wav_file
from narrator.core.pace import count_words

#: Timed words needed before the book's own render speed replaces the engine's.
MEASURED_WORDS = 200
#: The wall time a group asks for: its expected render time, as if one segment ran at a time,
#: times this, plus START_SECONDS for the queue's start, Snakemake and the engine load. Too little
#: and Slurm kills the group; too much only delays its start on a busy cluster.
SAFETY = 2.0
START_SECONDS = 300.0


@dataclass(frozen=True)
class GroupSizing:
    #: Expected render minutes per group.
    minutes: float
    #: Most segments in one group, whatever their render time (espeak renders hours of book in 10
    #: minutes, and every member is a Snakemake job the submission must schedule).
    max_segments: int

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> GroupSizing:
        """The config's render_groups keys."""
        groups = config["render_groups"]
        return cls(minutes=float(groups["minutes"]), max_segments=int(groups["max_segments"]))


@dataclass(frozen=True)
class RenderGroups:
    book_id: str
    #: Segment id to its group's number.
    numbers: dict[str, int]
    #: Segment id to the minutes it asks for: its group's request on the first member, else 0.
    minutes: dict[str, int]

    def name(self, segment_id: str) -> str:
        """The group's name; a segment planned into no group (rendered again after the plan
        counted it done) is a group of its own."""
        number = self.numbers.get(segment_id)
        return f"render-{self.book_id}-{segment_id if number is None else number}"

    def runtime(self, segment_id: str) -> int:
        return self.minutes.get(segment_id, wall_minutes(0.0))


def wall_minutes(expected_seconds: float) -> int:
    """Whole minutes a group asks for when it expects to render for ``expected_seconds``."""
    return math.ceil((SAFETY * expected_seconds + START_SECONDS) / 60.0)


def render_seconds_per_word(rows: Sequence[Row], engine_rtf: float, wpm: float) -> float:
    """Expected render seconds per word of text.

    From the book's timed segments once they hold MEASURED_WORDS words (a restart, on the
    cluster's own nodes), else the engine's real-time factor at ``wpm`` words per minute.
    """
    timed = [row for row in rows if row.completed and row.render_seconds is not None]
    words = sum(count_words(row.text) for row in timed)
    if words >= MEASURED_WORDS:
        return sum(row.render_seconds or 0.0 for row in timed) / words
    return engine_rtf * 60.0 / wpm


def plan_render_groups(
    book_id: str,
    rows: Sequence[Row],
    pending: Callable[[Row], bool],
    sizing: GroupSizing,
    seconds_per_word: float,
) -> RenderGroups:
    """Cut the pending rows, in catalog order, into groups of ``sizing.minutes`` of expected work."""
    budget = sizing.minutes * 60.0
    numbers: dict[str, int] = {}
    minutes: dict[str, int] = {}
    number, first, members, expected = 0, "", 0, 0.0
    for row in rows:
        if not pending(row):
            continue
        if members and (expected >= budget or members >= sizing.max_segments):
            minutes[first] = wall_minutes(expected)
            number, members, expected = number + 1, 0, 0.0
        if not members:
            first = row.segment_id
        numbers[row.segment_id] = number
        minutes[row.segment_id] = 0
        members += 1
        expected += max(count_words(row.text), 1) * seconds_per_word
    if members:
        minutes[first] = wall_minutes(expected)
    return RenderGroups(book_id, numbers, minutes)


def book_render_groups(
    book_id: str, catalog_path: Path, sizing: GroupSizing, engine_rtf: float, wpm: float
) -> RenderGroups:
    """The book's render groups, planned once per catalog file in this process.

    A mark updates the catalog in place and leaves the groups as they are; a re-plan writes a new
    file (a rename, so a new inode) and gets new groups.
    """
    try:
        stat = catalog_path.stat()
    except FileNotFoundError:  # a segment asked for by its path before the plan
        return RenderGroups(book_id, {}, {})
    return _planned_groups(book_id, catalog_path, stat.st_dev, stat.st_ino, sizing, engine_rtf, wpm)


@functools.cache
def _planned_groups(
    book_id: str,
    catalog_path: Path,
    _device: int,
    _inode: int,
    sizing: GroupSizing,
    engine_rtf: float,
    wpm: float,
) -> RenderGroups:
    rows = read_catalog(catalog_path)

    def pending(row: Row) -> bool:
        return not row.completed or not wav_file(catalog_path, row).exists()

    return plan_render_groups(book_id, rows, pending, sizing, render_seconds_per_word(rows, engine_rtf, wpm))
