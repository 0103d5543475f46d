"""Peak memory of assembling a long book (two streaming passes, loudness and true peak).

For each length it writes a synthetic catalog of certified segment WAVs (speech-like noise, no
TTS engine), then runs narrator.assemble.assemble.assemble_book with the default loudness settings in a
fresh process and reports that process's peak RSS. A streaming assembly keeps the peak nearly
flat: the 10-hour book should need little more than the 1-hour one.

    python bench/memory.py          # 1 and 10 hours
    python bench/memory.py 0.5 2    # other lengths, in hours

Segments are drawn from a pool of distinct WAVs (each row still verified against its checksum),
so building a 10-hour catalog takes seconds; the master itself is written in full (about 1.6 GB
per 10 hours at 22,050 Hz) to a temp folder and removed afterwards.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from narrator.core.audio import encode_wav  # noqa: E402
from narrator.core.catalog import BOOK_JSON, COMPLETED, PlanRecord, Row, write_catalog  # noqa: E402

RATE = 22050
POOL = 48
CHAPTER_SECONDS = 1800
PAUSES = {"lead": 0.5, "trail": 1.0, "sentence": 0.35, "paragraph": 0.8, "chapter": 2.0}


def speech_like(seconds: float, seed: int) -> np.ndarray:
    """Band-limited noise with a syllable rhythm and pauses between words: a crude voice."""
    rng = np.random.default_rng(seed)
    n = round(seconds * RATE)
    t = np.arange(n) / RATE
    noise = np.convolve(rng.standard_normal(n), np.ones(8) / 8, mode="same")
    syllables = np.clip(np.sin(2 * np.pi * 3.5 * t + seed), 0, None) ** 0.5
    return (0.12 * noise / noise.std() * syllables).astype(np.float32)


def build_catalog(folder: Path, hours: float) -> tuple[Path, int]:
    pool_dir = folder / "pool"
    pool_dir.mkdir(parents=True)
    pool = []
    for index in range(POOL):
        seconds = 3.0 + 6.0 * index / POOL
        data = encode_wav(speech_like(seconds, index), RATE, f"{index:016x}")
        path = pool_dir / f"{index:03d}.wav"
        path.write_bytes(data)
        text = "word " * round(seconds * 2.4)  # about 12 characters per second of speech
        pool.append((path, round(seconds * RATE), hashlib.sha256(data).hexdigest(), text.strip()))
    rows, elapsed, chapter = [], 0.0, 1
    while elapsed < hours * 3600:
        path, frames, sha, text = pool[len(rows) % POOL]
        elapsed += frames / RATE
        next_chapter = elapsed // CHAPTER_SECONDS + 1
        pause = "chapter" if next_chapter > chapter else ("paragraph" if len(rows) % 7 == 6 else "sentence")
        # Rows reuse the pool's WAVs, so they carry the pool's ids (a WAV proves its segment id):
        # repeated ids, which assembly does not mind, keep the disk flat with the book's length.
        rows.append(
            Row(
                segment_id=f"{len(rows) % POOL:016x}",
                sequence=len(rows) + 1,
                chapter=chapter,
                chapter_title=f"Chapter {chapter}",
                paragraph=1,
                text=text,
                spoken=text,
                pause_after=pause,
                wav_path=str(path.relative_to(folder)),
                status=COMPLETED,
                frames=frames,
                sample_rate=RATE,
                sha256=sha,
                completed_at=0.0,
            )
        )
        chapter = int(next_chapter)
    rows[-1] = replace(rows[-1], pause_after="end")
    catalog = folder / "catalog.tsv"
    write_catalog(catalog, rows)
    plan = PlanRecord.of(rows, source_sha256="", settings_sha256="")
    catalog.with_name(BOOK_JSON).write_text(json.dumps({"plan": plan.as_json()}))
    return catalog, len(rows)


ASSEMBLE = """
import sys
from narrator.assemble.assemble import assemble_book
from narrator.assemble.loudness import LoudnessTarget
catalog, master, report, pauses = sys.argv[1], sys.argv[2], sys.argv[3], eval(sys.argv[4])
print(assemble_book(catalog, master, pauses, LoudnessTarget(), report))
"""


def peak_rss(code: str, *args: str) -> tuple[float, float, str]:
    """Run Python code in a fresh process: (peak RSS in MB, wall seconds, its stdout)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise SystemExit(f"assembly failed (status {status})")
    return usage.ru_maxrss / 1024, time.perf_counter() - start, output.strip()


def measure(hours: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="narrator-memory-") as scratch:
        folder = Path(scratch)
        catalog, segments = build_catalog(folder, hours)
        master, report = folder / "book.wav", folder / "loudness.json"
        rss, wall, summary = peak_rss(ASSEMBLE, str(catalog), str(master), str(report), repr(PAUSES))
        size = master.stat().st_size
        loudness = json.loads(report.read_text())
    print(f"  {summary}", flush=True)
    return {
        "hours": hours,
        "segments": segments,
        "gb": size / 1e9,
        "seconds": wall,
        "rss": rss,
        "lufs": loudness["after"]["integrated_lufs"],
    }


def main(argv: list[str]) -> None:
    lengths = [float(arg) for arg in argv] or [1.0, 10.0]
    baseline, _, _ = peak_rss("import narrator.assemble.assemble")
    print(f"baseline (python + narrator.assemble.assemble imported): {baseline:.0f} MB peak RSS")
    results = []
    for hours in lengths:
        print(f"assembling a {hours:g}-hour book ...", flush=True)
        result = measure(hours)
        results.append(result)
        print(
            f"{result['hours']:>5g} h  {result['segments']:>6} segments  master {result['gb']:.2f} GB  "
            f"{result['seconds']:7.1f} s  peak RSS {result['rss']:6.0f} MB  ({result['lufs']} LUFS after)",
            flush=True,
        )
    if len(results) >= 2:
        first, last = results[0], results[-1]
        print(
            f"peak RSS ratio {last['hours']:g} h / {first['hours']:g} h: {last['rss'] / first['rss']:.2f} "
            f"(audio ratio {last['hours'] / first['hours']:g}); growth above baseline "
            f"{(last['rss'] - baseline) / max(first['rss'] - baseline, 1e-9):.2f}x"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
