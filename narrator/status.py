"""Progress of a book from its catalog alone: counts, audio so far, and an ETA."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from narrator.catalog import COMPLETED, read_catalog

#: How many recent completions estimate the current throughput.
RECENT = 50


@dataclass(frozen=True)
class Progress:
    total: int
    completed: int
    audio_seconds: float
    eta_seconds: float | None

    @property
    def queued(self) -> int:
        return self.total - self.completed

    @property
    def percent(self) -> float:
        return 100.0 * self.completed / self.total if self.total else 100.0


def measure(catalog_path: str | Path) -> Progress:
    rows = read_catalog(catalog_path)
    done = [row for row in rows if row["status"] == COMPLETED]
    audio = sum(int(row["frames"]) / int(row["sample_rate"]) for row in done)
    remaining = len(rows) - len(done)
    return Progress(len(rows), len(done), audio, _eta(done, remaining))


def _eta(done: list[dict[str, str]], remaining: int) -> float | None:
    """Seconds left at the pace of the latest completions (wall clock, so parallelism counts)."""
    if remaining == 0:
        return 0.0
    stamps = sorted(float(row["completed_at"]) for row in done if row["completed_at"])[-RECENT:]
    if len(stamps) >= 2 and stamps[-1] > stamps[0]:
        return remaining * (stamps[-1] - stamps[0]) / (len(stamps) - 1)
    renders = [float(row["render_seconds"]) for row in done if row["render_seconds"]]
    return remaining * sum(renders) / len(renders) if renders else None


def _clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def format_progress(catalog_path: str | Path, progress: Progress) -> str:
    eta = "unknown" if progress.eta_seconds is None else _clock(progress.eta_seconds)
    return (
        f"{catalog_path}: {progress.completed}/{progress.total} completed ({progress.percent:.1f}%), "
        f"{progress.queued} queued; audio so far {progress.audio_seconds / 3600:.2f} h "
        f"({_clock(progress.audio_seconds)}); ETA {eta}"
    )
