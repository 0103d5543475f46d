"""Render one segment and publish it so that no crash leaves a WAV the catalog does not vouch for.

Order of the steps, and why:
  1. synthesize in memory;
  2. write a temp file (its name matches no output pattern) and fsync it;
  3. verify the temp file (decodes, rate, mono, not empty, not silent, plausible length);
  4. mark the row completed in the catalog, recording the WAV's checksum (durable);
  5. rename the temp file onto the output path (atomic) and fsync the directory.

Snakemake considers a segment done exactly when its output WAV exists. Because the mark (4)
comes before the rename (5), a WAV at an output path always has a completed row that records its
checksum. A crash before 4 leaves only a temp file: the row is queued and the WAV missing, and
the restart renders it. A crash between 4 and 5 leaves the row completed and the WAV missing:
Snakemake re-runs the job because the output is missing, and the deterministic render reproduces
the recorded checksum. The opposite order would leave a WAV that Snakemake treats as done beside
a queued row, and assembly would refuse for ever (FACTS.md, measured).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from narrator import catalog
from narrator.audio import AudioCheckError, check_wav_file, encode_wav, fsync_dir, write_durable
from narrator.engines import get_engine, load_count
from narrator.errors import UserError
from narrator.publish import TEMP_MARK


class RenderError(UserError):
    """A segment rendered to audio that failed verification."""


def seed_for(text: str) -> int:
    """The noise seed of a text: repeated text sounds the same, and renders repeat exactly."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def render_segment(
    catalog_path: str | Path,
    segment_id: str,
    wav_path: str | Path,
    *,
    engine: str,
    options: Mapping[str, Any],
) -> str:
    """Synthesize, verify, mark and publish one segment (order: see the module docstring)."""
    wav_path = Path(wav_path)
    for stray in wav_path.parent.glob(f".{wav_path.name}{TEMP_MARK}*"):
        stray.unlink()
    row = catalog.segment_row(catalog_path, segment_id)
    started = time.monotonic()
    voice = get_engine(engine, options)
    samples = voice.synthesize(row["spoken"], seed=seed_for(row["spoken"]))
    temp = wav_path.with_name(f".{wav_path.name}{TEMP_MARK}{os.getpid()}-{threading.get_ident()}")
    try:
        write_durable(temp, encode_wav(samples, voice.sample_rate))
        record = check_wav_file(temp, text_chars=len(row["spoken"]), sample_rate=voice.sample_rate)
    except AudioCheckError as error:
        temp.unlink(missing_ok=True)
        raise RenderError(f"segment {segment_id}: the rendered audio {error}") from None
    seconds = time.monotonic() - started
    catalog.mark_completed(catalog_path, segment_id, record, seconds)
    os.replace(temp, wav_path)
    fsync_dir(wav_path.parent)
    return (
        f"segment {segment_id}: {record.seconds:.2f} s of audio in {seconds:.2f} s; "
        f"pid {os.getpid()}, engines loaded in this process: {load_count()}"
    )
