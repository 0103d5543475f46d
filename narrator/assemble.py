"""Assemble the book WAV from verified segments only, streaming one segment at a time."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import soundfile as sf

from narrator.audio import SUBTYPE, AudioCheckError, decode_verified, fsync_dir
from narrator.catalog import COMPLETED, Row, read_catalog, recorded
from narrator.errors import CatalogError


def verified_pcm(row: Row) -> np.ndarray:
    """The segment's samples, if its row is completed and its WAV is exactly what the row recorded."""
    if row["status"] != COMPLETED:
        raise AudioCheckError("is not rendered yet (queued)")
    try:
        data = Path(row["wav_path"]).read_bytes()
    except FileNotFoundError:
        raise AudioCheckError("WAV is missing") from None
    found, pcm = decode_verified(data, text_chars=len(row["text"]))
    try:
        promised = recorded(row)
    except ValueError:
        raise AudioCheckError("has a malformed record in the catalog") from None
    if found != promised:
        raise AudioCheckError("WAV differs from what the catalog recorded")
    return pcm


def assemble_book(catalog_path: str | Path, book_path: str | Path, pauses: Mapping[str, float]) -> str:
    """Write the book WAV atomically; return a one-line summary.

    Each segment is followed by the pause its row names (``pause_after``; none after the last).
    Only one segment is in memory at a time. If any segment is not completed and verified,
    nothing is published and one error names them all.
    """
    catalog_path, book_path = Path(catalog_path), Path(book_path)
    rows = read_catalog(catalog_path)
    rate = int(next((row["sample_rate"] for row in rows if row["sample_rate"]), "0")) or 22050
    temp = book_path.with_name(f".{book_path.name}.tmp-{os.getpid()}")
    problems: list[str] = []
    frames = 0
    with sf.SoundFile(temp, "w", rate, 1, SUBTYPE, format="WAV") as book:
        for row in rows:
            try:
                pcm = verified_pcm(row)
                if int(row["sample_rate"]) != rate:
                    raise AudioCheckError(f"has sample rate {row['sample_rate']} Hz, the book {rate} Hz")
            except AudioCheckError as error:
                problems.append(f"{row['segment_id']} {error}")
                continue
            if problems:
                continue  # keep checking, to name every bad segment at once
            silence = np.zeros(round(pauses.get(row["pause_after"], 0.0) * rate), dtype=np.int16)
            book.write(pcm)
            book.write(silence)
            frames += len(pcm) + len(silence)
    if problems:
        temp.unlink()
        shown = "; ".join(problems[:10]) + (f"; and {len(problems) - 10} more" if len(problems) > 10 else "")
        raise CatalogError(
            f"{len(problems)} segment(s) not ready: {shown}. "
            f"Run `narrator verify {catalog_path}`, then snakemake again to re-render them."
        )
    with open(temp, "rb+") as handle:
        os.fsync(handle.fileno())
    os.replace(temp, book_path)
    fsync_dir(book_path.parent)
    return f"assembled {len(rows)} segments into {book_path}: {frames} frames, {frames / rate:.1f} s"
