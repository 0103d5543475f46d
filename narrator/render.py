"""Render one segment and publish it so that no crash leaves a WAV the catalog does not vouch for.

Order of the steps, and why:
  1. synthesize in memory;
  2. write a temp file (its name matches no output pattern);
  3. verify the temp file (its certificate names this segment; decodes, rate, mono, not empty,
     not silent, plausible length);
  4. mark the row completed in the catalog, recording the WAV's checksum (durable);
  5. fsync the temp file, rename it onto the output path (atomic), fsync the directory
     (narrator.publish, as every stage publishes).

Snakemake considers a segment done exactly when its output WAV exists. Because the mark (4)
comes before the rename (5), a WAV at an output path always has a completed row that records its
checksum. A crash before 4 leaves only a temp file: the row is queued and the WAV missing, and
the restart renders it. A crash between 4 and 5 leaves the row completed and the WAV missing:
Snakemake re-runs the job because the output is missing, and the deterministic render reproduces
the recorded checksum. The opposite order would leave a WAV that Snakemake treats as done beside
a queued row, and assembly would refuse for ever: measured, with a kill between the two steps.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from narrator import catalog, interrupt
from narrator.audio import AudioCheckError, check_wav_file, encode_wav
from narrator.engines import get_engine, load_count
from narrator.errors import UserError
from narrator.publish import publishing


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
    interrupt.check()  # jobs already handed to Snakemake's thread pool still start after Ctrl-C
    row = catalog.segment_row(catalog_path, segment_id)
    started = time.monotonic()
    voice = get_engine(engine, options)
    samples = voice.synthesize(row.spoken, seed=seed_for(row.spoken))
    with publishing(Path(wav_path)) as temp:
        temp.write_bytes(encode_wav(samples, voice.sample_rate, segment_id))
        try:
            record = check_wav_file(
                temp, segment_id=segment_id, text_chars=len(row.spoken), sample_rate=voice.sample_rate
            )
        except AudioCheckError as error:
            raise RenderError(f"segment {segment_id}: the rendered audio {error}") from None
        seconds = time.monotonic() - started
        catalog.mark_completed(catalog_path, segment_id, record, seconds)
    return (
        f"segment {segment_id}: {record.seconds:.2f} s of audio in {seconds:.2f} s; "
        f"pid {os.getpid()}, engines loaded in this process: {load_count()}"
    )
