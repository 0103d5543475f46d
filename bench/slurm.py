"""The same book rendered locally (default profile) and through Slurm (profiles/slurm), compared.

Needs a running Slurm (tests/cluster/slurm-up.sh) and the `cluster` extra. For each run it prints
the wall time, the time per segment, the overhead per segment (wall time minus a plain Python loop
doing the same plan and renders, divided by the segments: what Snakemake, and Slurm, add), the
render phase per segment (first to last completed segment in the catalog), the engine loads
(distinct PIDs in the render logs) and the group jobs (a local run is one process: one "group").
Then the ratio of the overheads, Slurm / local.

    python bench/slurm.py                   # the sample book, espeak
    python bench/slurm.py --segments 500    # a synthetic 500-sentence book
    python bench/slurm.py --cores 2         # CPUs per group job (the profile asks for 4)
    python bench/slurm.py --segments 1000 --cap 25   # also groups of at most 25, side by side

Each is run twice: `render_all` (plan and renders, the loop's work) and `all` (the whole book:
assembly, packaging and the report add a few per-book jobs, each a Slurm submission).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from overhead import copy_workflow, run_loop, synthetic_book

from narrator.core.catalog import read_catalog

REPO = Path(__file__).resolve().parent.parent
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
GROUP_SUBMITTED = re.compile(r"has been submitted with SLURM jobid \d+ \(log: .*/group_render-")
TIMEOUT = 3600


def run(work: Path, command: list[str]) -> tuple[float, str]:
    """Wall seconds and output of a run; a run past TIMEOUT is SIGKILLed (with its Slurm jobs)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        output, _ = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        squeue = ["squeue", "--noheader", "--format", "%i %Z"]
        listing = subprocess.run(squeue, check=False, capture_output=True, text=True, timeout=60).stdout
        jobs = [line.split()[0] for line in listing.splitlines() if line.split()[1:] == [str(work)]]
        if jobs:
            subprocess.run(["scancel", *jobs], check=False, capture_output=True, timeout=60)
        subprocess.run([*SNAKEMAKE, "--unlock"], cwd=work, check=False, capture_output=True, timeout=120)
        raise SystemExit(f"{' '.join(command)}: still running after {TIMEOUT} s") from None
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{output[-3000:]}")
    return time.perf_counter() - start, output


def render_figures(work: Path, book_id: str) -> tuple[int, int, float]:
    """Segments, distinct render PIDs (each loaded the engine once), seconds from first to last WAV."""
    logs = sorted((work / "logs" / "render_segment" / book_id).glob("*.log"))
    pids = set()
    for log in logs:
        line = log.read_text().strip()
        assert line.endswith("engines loaded in this process: 1"), f"{log}: {line}"
        pids.add(re.search(r"; pid (\d+), ", line).group(1))
    # The catalog's completion times (Snakemake touches a cluster job's outputs afterwards, so
    # the WAVs' mtimes are not when they were rendered).
    times = sorted(
        float(row.completed_at) for row in read_catalog(work / "results" / book_id / "catalog.tsv")
    )
    return len(logs), len(pids), times[-1] - times[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, help="a synthetic book of this many sentences")
    parser.add_argument("--cores", type=int, default=1, help="CPUs per Slurm group job (default 1)")
    parser.add_argument(
        "--cap",
        type=int,
        help="also run render_all through Slurm with at most this many segments a group (the groups "
        "were a fixed 25 before they were sized by work), for a side-by-side ratio",
    )
    args = parser.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        # render_all: plan and renders only, what the loop does; all: the whole book.
        runs = [("loop", "")]
        runs += [(mode, target) for target in ("render_all", "all") for mode in ("local", "slurm")]
        if args.cap:
            runs.append((f"slurm-cap{args.cap}", "render_all"))
        for mode, target in runs:
            work = Path(tmp) / f"{mode}-{target}"
            work.mkdir()
            copy_workflow(work)
            if args.segments:
                book, book_id = work / "bench.md", "bench"
                synthetic_book(book, args.segments)
            else:
                book, book_id = REPO / "workflow" / "resources" / "sample.md", "sample"
            if mode == "loop":
                loop_seconds = run_loop(work, book)
                continue
            config = ["--config", f"book={book}", "engine=espeak"]
            if mode.startswith("slurm-cap"):
                config.append(f"render_groups={{minutes: 10, max_segments: {args.cap}}}")
            if mode == "local":
                command = [*SNAKEMAKE, target, "--cores", "8", "--resources", "gpu=1", *config]
            else:
                command = [*SNAKEMAKE, target, "--profile", "profiles/slurm", "--cores", str(args.cores)]
                command += ["--slurm-init-seconds-before-status-checks", "1", "--slurm-no-account", *config]
            wall, output = run(work, command)
            segments, loads, render_span = render_figures(work, book_id)
            groups = len(GROUP_SUBMITTED.findall(output)) if mode.startswith("slurm") else 1
            rows.append((f"{mode} {target}", segments, wall, render_span, loads, groups))

    columns = ("run", "segments", "wall s", "s/seg", "overhead s/seg", "render s/seg", "loads", "groups")
    print("  ".join(f"{name:>16}" for name in (*columns, "loads/group")))
    overheads = []
    for name, segments, wall, render_span, loads, groups in rows:
        overhead = (wall - loop_seconds) / segments
        overheads.append(overhead)
        figures = (name, segments, f"{wall:.1f}", f"{wall / segments:.3f}", f"{overhead:.3f}")
        figures += (f"{render_span / segments:.3f}", loads, groups, f"{loads / groups:.2f}")
        print("  ".join(f"{figure:>16}" for figure in figures))
    print(f"plain loop (plan + renders in one process, no Snakemake): {loop_seconds:.1f} s")
    print(f"overhead per segment, Slurm / local: render_all {overheads[1] / overheads[0]:.1f}x, ", end="")
    print(f"whole book {overheads[3] / overheads[2]:.1f}x")
    if args.cap:
        print(f"render_all through Slurm, groups sized by work / capped at {args.cap}: ", end="")
        print(f"wall {rows[1][2] / rows[4][2]:.2f}x, overhead per segment {overheads[1] / overheads[4]:.2f}x")


if __name__ == "__main__":
    main()
