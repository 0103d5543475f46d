"""The read-along EPUB of source EPUBs without an engine: how much of each book's own text keeps its
segments in place, and what EPUBCheck and the overlay check say.

Each book is planned as narrator plans it (espeak settings, credits on), every segment given a
short tone for its WAV, assembled and packaged; the figures are the packaging log's and the checks'.

    python bench/readalong_epub.py [--notes=read] tests/data/books/alice-in-wonderland-pg11.epub [...]
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import soundfile as sf

from narrator.assemble.assemble import assemble_book
from narrator.core.audio import MAX_CHARS_PER_SECOND, encode_wav
from narrator.core.catalog import COMPLETED, read_catalog, write_catalog
from narrator.engines.espeak import EspeakOptions
from narrator.inspect.check import check_epub
from narrator.inspect.overlays import run_epubcheck
from narrator.package.epub import package_epub
from narrator.package.ffmpeg import find_ffmpeg
from narrator.package.metadata import PackageSettings
from narrator.plan.plan import PlanSettings, write_plan

#: Low, to keep the master small: the read-along EPUB takes any rate.
RATE = 8000
PAUSES = {"lead": 0.2, "trail": 0.2, "clause": 0.05, "sentence": 0.1, "paragraph": 0.2, "chapter": 0.5}


def tone(sequence: int, chars: int) -> np.ndarray:
    """As long as the fastest plausible speech of ``chars`` characters, a pitch per segment."""
    t = np.arange(max(1, round((chars / MAX_CHARS_PER_SECOND) * RATE))) / RATE
    return (0.1 * np.sin(2 * np.pi * (200 + sequence % 50) * t)).astype(np.float32)


def packaged(book: Path, folder: Path, notes: str = "drop") -> tuple[Path, Path, str]:
    catalog = folder / "catalog.tsv"
    settings = PlanSettings("espeak", EspeakOptions(), 400, notes=notes, credits=True)
    write_plan(book, catalog, folder / "book.json", settings)
    rows = []
    for row in read_catalog(catalog):
        samples = tone(row.sequence, len(row.spoken))
        data = encode_wav(samples, RATE, row.segment_id)
        wav = folder / row.wav_path
        wav.parent.mkdir(parents=True, exist_ok=True)
        wav.write_bytes(data)
        rows.append(
            replace(
                row,
                status=COMPLETED,
                frames=len(samples),
                sample_rate=RATE,
                sha256=hashlib.sha256(data).hexdigest(),
                completed_at=1.0,
            )
        )
    write_catalog(catalog, rows)
    master = folder / "book.wav"
    assemble_book(catalog, master, PAUSES)
    output = folder / "book.epub"
    log = package_epub(master, catalog, folder / "book.json", output, PAUSES, PackageSettings(), 2, book)
    return output, catalog, log


def main(arguments: list[str]) -> None:
    notes = "read" if "--notes=read" in arguments else "drop"
    for book in (Path(argument) for argument in arguments if argument != "--notes=read"):
        with tempfile.TemporaryDirectory() as work:
            started = time.perf_counter()
            output, catalog, log = packaged(book, Path(work), notes)
            seconds = time.perf_counter() - started
            rows = read_catalog(catalog)
            master_frames = sf.info(Path(work) / "book.wav").frames
            results = check_epub(find_ffmpeg("auto"), output, rows, master_frames, RATE)
            failed = [r for r in results if not r.passed]
            print(f"{book.name} (notes: {notes}): planned and packaged in {seconds:.1f} s")
            print("  " + log.splitlines()[-1])
            for result in results:
                if result.rule in ("EPUBCheck", "clip targets exist", "clip texts hold their words"):
                    print(f"  {result.rule}: {result.measured}")
            print(f"  checks failed: {len(failed)}" + "".join(f"\n    {r}" for r in failed))
            if any(result.rule == "EPUBCheck" for result in failed):
                verdict = run_epubcheck(output)
                print("".join(f"    {line}\n" for line in verdict.messages if verdict is not None))


if __name__ == "__main__":
    main(sys.argv[1:])
