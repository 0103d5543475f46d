"""How fast the studio answers on a long book: the book page, a chapter page, a segment's audio,
a lexicon preview, and one segment's reading and flag saved, on a 30,000-segment catalog
(bench/marks.py's rows: 100 chapters of 300).

The first request reads the catalog; later ones reuse it until the file changes (a mark). Each
figure is the best of five requests through Starlette's TestClient, the first read printed apart.

    python bench/studio.py            # 30,000 segments
    python bench/studio.py 100000
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from marks import rows
from starlette.testclient import TestClient

from narrator.core.audio import encode_wav
from narrator.core.catalog import COMPLETED, write_catalog
from narrator.studio.app import build_app
from narrator.studio.book import Studio

REPO = Path(__file__).resolve().parent.parent
TOKEN = "bench"


def book(folder: Path, count: int) -> Studio:
    """A results folder of ``count`` completed segments, one WAV on disk (the one the bench plays)."""
    results = folder / "results" / "bench"
    (results / "segments").mkdir(parents=True)
    done = [
        dataclasses.replace(row, status=COMPLETED, frames=22_050 * 3, sample_rate=22_050, sha256="ab" * 32)
        for row in rows(count)
    ]
    write_catalog(results / "catalog.tsv", done)
    wav = encode_wav(np.zeros(22_050 * 3, dtype=np.float32), 22_050, done[0].segment_id)
    (results / done[0].wav_path).write_bytes(wav)
    (folder / "bench.md").write_text("# Bench\n")
    (results / "source.json").write_text(json.dumps({"path": str(folder / "bench.md"), "sha256": ""}))
    (results / "book.json").write_text(json.dumps({"language": "en"}))
    shutil.copy(REPO / "config.yaml", folder / "config.yaml")
    return Studio(results, folder, ["--config", "engine=espeak"], cores=1)


def best_ms(client: TestClient, method: str, url: str, **kwargs) -> float:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        answer = client.request(method, url, **kwargs)
        times.append(1000 * (time.perf_counter() - start))
        assert answer.status_code == 200, answer.text
    return min(times)


def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        studio = book(Path(tmp), count)
        client = TestClient(build_app(studio, TOKEN))
        start = time.perf_counter()
        client.get(f"/?token={TOKEN}")
        first = 1000 * (time.perf_counter() - start)
        segment, last = studio.rows()[0].segment_id, studio.rows()[-1].segment_id
        figures = {
            "book page, first (reads the catalog)": first,
            "book page": best_ms(client, "GET", f"/?token={TOKEN}"),
            "chapter page (300 segments)": best_ms(client, "GET", f"/chapter/1?token={TOKEN}"),
            "a segment's audio": best_ms(client, "GET", f"/audio/{segment}?token={TOKEN}"),
            "search (every segment matches)": best_ms(client, "GET", f"/search?q=times&token={TOKEN}"),
            "lexicon preview (one segment changes)": best_ms(
                client, "POST", f"/api/lexicon/preview?token={TOKEN}", json={"key": "1234", "say": "one two"}
            ),
            "lexicon preview (every segment changes)": best_ms(
                client, "POST", f"/api/lexicon/preview?token={TOKEN}", json={"key": "worst", "say": "wurst"}
            ),
            "one segment's reading saved": best_ms(
                client, "POST", f"/api/segment/{last}/say?token={TOKEN}", json={"text": "Said otherwise."}
            ),
            "one segment flagged": best_ms(
                client, "POST", f"/api/segment/{last}/flag?token={TOKEN}", json={"note": "too fast"}
            ),
        }
    print(f"{count} segments")
    for what, ms in figures.items():
        print(f"  {what:42} {ms:8.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30_000)
