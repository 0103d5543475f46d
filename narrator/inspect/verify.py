"""Re-check every published WAV against the catalog and re-queue what is damaged."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from narrator.assemble.assemble import verified_pcm
from narrator.core import catalog
from narrator.core.audio import AudioCheckError, check_wav_file
from narrator.core.publish import TEMP_MARK, remove_stale


@dataclass
class VerifyReport:
    checked: int = 0
    requeued: list[str] = field(default_factory=list)
    adopted: list[str] = field(default_factory=list)
    strays_removed: int = 0

    def summary(self) -> str:
        return (
            f"checked {self.checked} segments: {len(self.requeued)} re-queued, "
            f"{len(self.adopted)} adopted, {self.strays_removed} stray temp files removed"
        )


def _checked(catalog_path: Path, row: catalog.Row, report: VerifyReport) -> catalog.Row:
    """The row as its WAV proves it: re-queued, adopted or unchanged (noted in ``report``)."""
    report.checked += 1
    wav = catalog.wav_file(catalog_path, row)
    if row.completed:
        try:
            verified_pcm(catalog_path, row)
        except AudioCheckError:
            wav.unlink(missing_ok=True)
            report.requeued.append(row.segment_id)
            return row.marked_queued()
    elif wav.exists():
        try:
            record = check_wav_file(wav, segment_id=row.segment_id, text_chars=len(row.spoken))
        except AudioCheckError:
            wav.unlink()
            return row
        report.adopted.append(row.segment_id)
        return row.marked_completed(record, None)
    return row


def verify_catalog(catalog_path: str | Path) -> VerifyReport:
    """Make the catalog and the published WAVs agree; the next run re-renders exactly the re-queued.

    A completed row whose WAV is missing, damaged or different is re-queued and its file removed.
    A queued row whose WAV proves itself this segment's (its own certificate) is adopted as
    completed. A catalog that is not its plan's (rows lost, added or moved) is refused: only a
    re-plan can say what the book is. Run it while no snakemake works on this book.
    """
    report = VerifyReport()
    with catalog.locked(catalog_path):
        # Catalog temps that killed writers left; the lock guarantees none is in flight now.
        report.strays_removed += remove_stale(Path(catalog_path))
        rows = catalog.read_planned(catalog_path)
        checked = [_checked(Path(catalog_path), row, report) for row in rows]
        if checked != rows:
            catalog.write_catalog(catalog_path, checked)
        for stray in Path(catalog_path).parent.glob(f"segments/*{TEMP_MARK}*"):
            stray.unlink()
            report.strays_removed += 1
    return report
