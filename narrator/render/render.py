"""Render one segment and publish it so that no crash leaves a WAV the catalog does not vouch for.

Order of the steps, and why:
  1. synthesize in memory;
  2. write a temp file (its name matches no output pattern);
  3. verify the temp file (its certificate names this segment; decodes, rate, mono, not empty,
     not silent, plausible length);
  3a. with verify.asr on, hear the temp file (narrator.render.asr) and score it against the text; in
     enforce mode a failing render is made again from the next seed of a fixed chain (seed_for(text),
     or the seed the plan gave the segment for another take, narrator.plan.fixes; then +1, +2, ...
     up to verify.tries renders), so a rerun takes the same path to the same WAV; then
     write the score and transcript durably to the sidecar segments/<id>.asr.json;
  4. mark the row completed in the catalog, recording the WAV's checksum (durable);
  5. fsync the temp file, rename it onto the output path (atomic), fsync the directory
     (narrator.core.publish, as every stage publishes).

Snakemake considers a segment done exactly when its output WAV exists. Because the mark (4)
comes before the rename (5), a WAV at an output path always has a completed row that records its
checksum. A crash before 4 leaves only a temp file: the row is queued and the WAV missing, and
the restart renders it. A crash between 4 and 5 leaves the row completed and the WAV missing:
Snakemake re-runs the job because the output is missing, and the deterministic render reproduces
the recorded checksum. The opposite order would leave a WAV that Snakemake treats as done beside
a queued row, and assembly would refuse for ever: measured, with a kill between the two steps.

The sidecar is evidence for the mark, not a state: the catalog stays queued/completed. It is
written before the mark, so a completed row's WAV always has its score beside it; a crash between
the sidecar and the mark leaves a sidecar beside a queued row, which the re-render overwrites. A
sidecar names the checksum of the WAV it scored, and readers (narrator check, the report) trust
it only when that is the row's, so a stale one is never shown as a completed segment's score.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import soundfile as sf

from narrator.core import catalog, interrupt
from narrator.core.audio import AudioCheckError, WavRecord, check_wav_file, encode_wav
from narrator.core.errors import UserError
from narrator.core.publish import publishing, replace_durably
from narrator.engines import Engine, get_engine, load_count
from narrator.engines.base import EngineOptions, EngineTimeout, cpu_share
from narrator.render import asr


class RenderError(UserError):
    """A segment rendered to audio that failed verification."""


def seed_for(text: str) -> int:
    """The noise seed of a text: repeated text sounds the same, and renders repeat exactly."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


@dataclass(frozen=True)
class Heard:
    """One render as the ASR check heard it."""

    seed: int
    transcript: str
    score: asr.AsrScore

    def sidecar(self, row: catalog.Row, record: WavRecord, mode: str, renders: int) -> bytes:
        evidence = {
            "segment_id": row.segment_id,
            "sha256": record.sha256,
            "mode": mode,
            "seed": self.seed,
            "renders": renders,
            "text": row.spoken,
            "transcript": self.transcript,
            **self.score.as_json(),
        }
        return json.dumps(evidence, indent=1, ensure_ascii=False).encode() + b"\n"


def _write_verified(temp: Path, voice: Engine, row: catalog.Row, seed: int) -> WavRecord:
    """Render ``row`` with ``seed`` into ``temp`` and verify the file; RenderError if it fails."""
    try:
        samples = voice.synthesize(row.spoken, seed=seed)
    except EngineTimeout as error:
        raise RenderError(f"segment {row.segment_id}: {error}") from None
    temp.write_bytes(encode_wav(samples, voice.sample_rate, row.segment_id))
    try:
        return check_wav_file(
            temp, segment_id=row.segment_id, text_chars=len(row.spoken), sample_rate=voice.sample_rate
        )
    except AudioCheckError as error:
        raise RenderError(f"segment {row.segment_id}: the rendered audio {error}") from None


def _hear(temp: Path, row: catalog.Row, seed: int, check: asr.AsrSettings) -> Heard:
    """What the ASR check hears in the written file (not the engine's floats: the file is the book)."""
    samples, rate = sf.read(temp, dtype="float32")
    transcript, result = asr.hear(
        samples, rate, row.spoken, wpm=check.wpm, device=check.device, threads=check.threads
    )
    return Heard(seed, transcript, result)


def render_segment(
    catalog_path: str | Path,
    segment_id: str,
    wav_path: str | Path,
    *,
    engine: str,
    options: EngineOptions,
    check: asr.AsrSettings | None = None,
) -> str:
    """Synthesize, verify, hear, mark and publish one segment (order: see the module docstring)."""
    interrupt.check()  # jobs already handed to Snakemake's thread pool still start after Ctrl-C
    check = check or asr.AsrSettings()
    row = catalog.segment_row(catalog_path, segment_id)
    voice = get_engine(engine, options)
    # Another take chosen by ear (narrator.plan.fixes) starts elsewhere on the chain.
    planned = catalog.planned_seed(catalog_path, segment_id)
    first_seed = seed_for(row.spoken) if planned is None else planned
    # Another seed is another render only where the engine draws noise; elsewhere it is the same audio.
    seeded = type(voice).seeded(options)
    renders = check.tries if check.mode == "enforce" and seeded else 1
    heard = None
    with publishing(Path(wav_path), many_outputs=True) as temp:
        # Rendering and hearing are the CPU work; the clock starts once a CPU is free, so a
        # segment's render seconds (and the report's real-time factor) never count the queue.
        with cpu_share(type(voice).cpu_threads(options)):
            started = time.monotonic()
            for attempt in range(renders):
                # Engines take 32-bit seeds.
                seed = (first_seed + attempt) % 2**32
                record = _write_verified(temp, voice, row, seed)
                if check.mode == "off":
                    break
                heard = _hear(temp, row, seed, check)
                if heard.score.passed or check.mode == "flag":
                    break
                interrupt.check()
            else:
                assert heard is not None
                tried = (
                    f"{renders} renders (seeds {first_seed} +0..{renders - 1})"
                    if seeded
                    else f"its one render ({engine} draws no noise, so another seed gives the same audio)"
                )
                raise RenderError(
                    f"segment {segment_id}: the ASR check failed {tried}: text {row.spoken!r}, "
                    f"heard {heard.transcript!r}: {heard.score.problems()}"
                )
            seconds = time.monotonic() - started
        if heard is not None:
            replace_durably(
                catalog.sidecar_path(wav_path), heard.sidecar(row, record, check.mode, attempt + 1)
            )
        catalog.mark_completed(catalog_path, segment_id, record, seconds)
        catalog.note_render_seconds(catalog_path, segment_id, seconds)
    if heard is None:
        verdict = check.note or "ASR check off"
    else:
        outcome = "passed" if heard.score.passed else f"FLAGGED ({heard.score.problems()})"
        verdict = (
            f"ASR {check.mode}: cer {heard.score.cer:.3f}, {outcome}, render {attempt + 1}; "
            f"ASR models loaded in this process: {asr.model_count()}"
        )
    return (
        f"segment {segment_id}: {record.seconds:.2f} s of audio in {seconds:.2f} s; {verdict}; "
        f"pid {os.getpid()}, engines loaded in this process: {load_count()}"
    )
