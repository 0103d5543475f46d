"""Per-segment cost of the workflow against a plain in-process loop over the same catalog.

For each N it builds a synthetic N-sentence book, then plans and renders it with espeak
  (a) through Snakemake with the default profile (the README's command, stopped before assembly), and
  (b) in one Python process calling the same plan and render functions, 8 renders at once.
The difference divided by N is what Snakemake adds per segment. Prints one row per N.

    python bench/overhead.py            # N = 500 2000 4000
    python bench/overhead.py 500 1000   # other sizes
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: Render jobs at once: the README's --cores 8.
JOBS = 8
WORDS = ("amber", "basin", "cedar", "delta", "ember", "fable", "garnet", "harbor", "island", "juniper")


def synthetic_book(path: Path, segments: int) -> None:
    """N distinct sentences, ten to a paragraph, twenty paragraphs to a chapter."""
    lines = []
    for index in range(segments):
        if index % 200 == 0:
            lines.append(f"\n## Chapter {index // 200 + 1}\n")
        words = " ".join(WORDS[(index + k) % len(WORDS)] for k in range(6))
        lines.append(f"Sentence {index} tells of the {words}.")
        if index % 10 == 9:
            lines.append("")
    path.write_text("# Bench\n" + "\n".join(lines) + "\n")


def copy_workflow(target: Path) -> None:
    for name in ("Snakefile", "config.yaml", "workflow", "profiles"):
        source = REPO / name
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, target / name)


def run_workflow(work: Path, book: Path) -> tuple[float, float, int]:
    """Wall seconds in all, seconds to the first published WAV, and peak RSS in MB."""
    # Rendering only: assembly and packaging are per book, not per segment, and the loop has none.
    command = [sys.executable, "-m", "snakemake", "render_all"]
    command += ["--cores", str(JOBS), "--resources", "gpu=1", "--quiet", "all"]
    command += ["--config", f"book={book}", "engine=espeak"]
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    segments = work / "results" / "bench" / "segments"
    first = None
    while process.poll() is None:
        if first is None and segments.exists() and any(segments.glob("*.wav")):
            first = time.perf_counter() - start
        time.sleep(0.01)
    total = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"workflow failed: {process.stderr.read().decode()[-2000:]}")
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    return total, first or total, peak_mb


def run_loop(work: Path, book: Path) -> float:
    """The same plan, render and mark calls in one process, without Snakemake, as many at once as
    the workflow runs (threads of one process, as --force-use-threads runs them)."""
    code = f"""
import time, yaml
from concurrent.futures import ThreadPoolExecutor
from narrator.engines import engine_class
from narrator.plan.plan import PlanSettings, write_plan
from narrator.core.catalog import read_catalog, wav_file
from narrator.render.render import render_segment
config = yaml.safe_load(open("config.yaml"))
espeak = engine_class("espeak")
configured = espeak.Options.from_config(config["engines"]["espeak"])
options = espeak.for_pace(espeak.for_language(configured, "en"), config["pace"])
start = time.perf_counter()
catalog = "loop/bench/catalog.tsv"
budget = min(config["max_chars"], espeak.max_chars)
write_plan({str(book)!r}, catalog, "loop/bench/book.json", PlanSettings("espeak", options, budget))
def render(row):
    render_segment(catalog, row.segment_id, wav_file(catalog, row), engine="espeak", options=options)
with ThreadPoolExecutor({JOBS}) as pool:
    list(pool.map(render, read_catalog(catalog)))
print(time.perf_counter() - start)
"""
    command = [sys.executable, "-c", code]
    result = subprocess.run(command, cwd=work, capture_output=True, text=True, check=True)
    return float(result.stdout.strip())


def main(sizes: list[int]) -> None:
    columns = ("N", "workflow s", "loop s", "overhead ms/seg", "first render s", "peak RSS MB")
    print("  ".join(f"{name:>15}" for name in columns))
    for segments in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            copy_workflow(work)
            book = work / "bench.md"
            synthetic_book(book, segments)
            loop_seconds = run_loop(work, book)
            total, first, peak_mb = run_workflow(work, book)
            overhead_ms = 1000 * (total - loop_seconds) / segments
            figures = (segments, f"{total:.1f}", f"{loop_seconds:.1f}", f"{overhead_ms:.1f}", f"{first:.1f}")
            print("  ".join(f"{figure:>15}" for figure in (*figures, peak_mb)))
            sys.stdout.flush()


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [500, 2000, 4000])
