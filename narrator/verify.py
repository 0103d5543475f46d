"""Re-check every published WAV against the catalog and re-queue what is damaged."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from narrator import catalog
from narrator.assemble import verified_pcm
from narrator.audio import AudioCheckError, check_wav_file
from narrator.publish import TEMP_MARK


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


def verify_catalog(catalog_path: str | Path) -> VerifyReport:
    """Make the catalog and the published WAVs agree; the next run re-renders exactly the re-queued.

    A completed row whose WAV is missing, damaged or different is re-queued and its file removed.
    A queued row whose WAV proves itself whole (its own certificate) is adopted as completed.
    Run it while no snakemake works on this book.
    """
    report = VerifyReport()
    changes: dict[str, catalog.Row] = {}
    with catalog.locked(catalog_path):
        rows = catalog.read_catalog(catalog_path)
        for row in rows:
            report.checked += 1
            wav = Path(row["wav_path"])
            if row["status"] == catalog.COMPLETED:
                try:
                    verified_pcm(row)
                except AudioCheckError:
                    wav.unlink(missing_ok=True)
                    changes[row["segment_id"]] = catalog.queued_fields()
                    report.requeued.append(row["segment_id"])
            elif wav.exists():
                try:
                    record = check_wav_file(wav, text_chars=len(row["spoken"]))
                except AudioCheckError:
                    wav.unlink()
                    continue
                changes[row["segment_id"]] = catalog.completed_fields(record, None)
                report.adopted.append(row["segment_id"])
        for row in rows:
            row.update(changes.get(row["segment_id"], {}))
        if changes:
            catalog.write_catalog(catalog_path, rows)
        for stray in Path(catalog_path).parent.glob(f"segments/*{TEMP_MARK}*"):
            stray.unlink()
            report.strays_removed += 1
    return report
