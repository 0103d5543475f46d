"""The `narrator` command: status, verify, check, requeue and studio. User mistakes end in one line, not a
traceback."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import TextIO

from narrator.core.catalog import Row, read_planned
from narrator.core.errors import CatalogError, UserError
from narrator.core.lock import holding
from narrator.inspect.check import check_book, format_results
from narrator.inspect.flags import flagged, format_flags, read_flags
from narrator.inspect.status import book_seconds, format_progress, format_status, glyphs_for, progress
from narrator.inspect.verify import verify_catalog
from narrator.render.asr import format_evidence, read_evidence, requeue_flagged
from narrator.workflow.jobs import faults_in_one_line

#: Home the cursor and clear the screen (only ever written to a terminal).
CLEAR = "\x1b[H\x1b[2J"


def _catalogs(given: list[str], results: str) -> list[Path]:
    paths = [Path(p) / "catalog.tsv" if Path(p).is_dir() else Path(p) for p in given]
    paths = paths or sorted(Path(results).glob("*/catalog.tsv"))
    if not paths:
        raise UserError(f"no catalogs under {results}/; run snakemake first or name a catalog")
    return paths


def _snapshot(args: argparse.Namespace, out: TextIO) -> str:
    columns = shutil.get_terminal_size().columns
    glyphs = glyphs_for(getattr(out, "encoding", None))
    now = time.time()
    blocks = []
    shelf: list[Row] = []
    catalogs = _catalogs(args.catalogs, args.results)
    for path in catalogs:
        try:
            rows = read_planned(path)
            shelf.extend(rows)
            if args.brief:
                blocks.append(format_progress(path, progress(rows)))
            else:
                book = book_seconds(path.parent, rows)
                blocks.append(format_status(path, rows, now, columns, glyphs, book))
        except CatalogError as error:
            if not args.watch:
                raise
            # Mid-run the catalog can vanish for a moment (a re-plan deletes it first): keep watching.
            blocks.append(f"{path}: {error}")
    if len(catalogs) > 1:
        # The books of a shelf render in one run, so the latest completions of all of them set its pace.
        blocks.append(format_progress(f"shelf of {len(catalogs)} books", progress(shelf)))
    return "\n".join(blocks)


def _status(args: argparse.Namespace, out: TextIO | None = None, rounds: int | None = None) -> None:
    """Print one snapshot, or with --watch one every interval: redrawn in place on a terminal,
    appended (separated by a blank line) when the output is a file or a pipe."""
    out = out or sys.stdout
    terminal = out.isatty()
    shown = 0
    while True:
        text = _snapshot(args, out)
        if args.watch:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            text = f"{stamp}  every {args.interval:g} s; Ctrl-C to stop\n{text}"
            if terminal:
                text = CLEAR + text
            elif shown:
                text = "\n" + text
        print(text, file=out, flush=True)
        shown += 1
        if not args.watch or (rounds is not None and shown >= rounds):
            return
        time.sleep(args.interval)


def _verify(args: argparse.Namespace) -> None:
    for path in _catalogs(args.catalogs, args.results):
        # A run at work on this book would race verify's deletions and re-queues.
        with holding(path.parent, "narrator verify"):
            print(f"{path}: {verify_catalog(path).summary()}")


def _check(args: argparse.Namespace) -> int:
    """Print the table of every output's rules, then the ASR check's flagged and worst segments,
    then the segments flagged by ear in the studio; 1 when any rule fails or any segment is flagged."""
    results = check_book(args.folder)
    print(format_results(results))
    catalog_path = Path(args.folder) / "catalog.tsv"
    # The output rules stand on their own; a folder of outputs without a plan has nothing heard.
    rows = read_planned(catalog_path) if catalog_path.is_file() else []
    evidence = read_evidence(catalog_path, rows)
    if evidence:
        print(f"\n{format_evidence(evidence, len(rows), args.worst)}")
    by_ear = flagged(rows, read_flags(Path(args.folder)))
    if by_ear:
        print(f"\n{format_flags(by_ear)}")
    heard_wrong = any(not item.score.passed for item in evidence)
    return 1 if heard_wrong or by_ear or any(not result.passed for result in results) else 0


def _requeue(args: argparse.Namespace) -> None:
    """Re-queue the segments the ASR check flagged, so that the next run renders them."""
    for path in _catalogs(args.catalogs, args.results):
        # A run at work on this book would race the deletions and the marks.
        with holding(path.parent, "narrator requeue"):
            flagged = requeue_flagged(path)
        ids = ", ".join(item.row.segment_id for item in flagged)
        print(f"{path}: re-queued {len(flagged)} flagged segments{': ' + ids if ids else ''}")
    print(
        'narrator: run snakemake with --config verify="{asr: enforce}" to render them again from the next '
        "seeds (the first seed gives the same audio again)"
    )


def _studio(args: argparse.Namespace) -> int:
    """Serve the studio until Ctrl-C; without the studio extra, say how to get it."""
    try:
        from narrator.studio.serve import find_results, serve
    except ModuleNotFoundError as error:
        if error.name not in ("starlette", "uvicorn"):
            raise
        print("narrator: the studio needs its extra: pip install 'narrator[studio]'", file=sys.stderr)
        return 2
    results = find_results(args.folder, Path(args.results))
    serve(results, Path.cwd(), shlex.split(args.snakemake_args), args.cores, args.host, args.port)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="narrator", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    status = commands.add_parser("status", help="progress of each book from its catalog")
    status.add_argument("--watch", action="store_true", help="refresh until interrupted")
    status.add_argument("--interval", type=float, default=5.0, help="seconds between refreshes")
    status.add_argument("--brief", action="store_true", help="only the one summary line per book")
    status.set_defaults(run=_status)
    verify = commands.add_parser("verify", help="re-check published WAVs; re-queue damaged ones")
    verify.set_defaults(run=_verify)
    requeue = commands.add_parser("requeue", help="re-queue the segments the ASR check flagged")
    requeue.add_argument("--flagged", action="store_true", required=True, help="the flagged segments")
    requeue.set_defaults(run=_requeue)
    for sub in (status, verify, requeue):
        sub.add_argument("catalogs", nargs="*", help="catalog.tsv files or results/<book_id> folders")
        sub.add_argument("--results", default="results", help="where to look when none is named")
    check = commands.add_parser("check", help="measure a book's outputs against their rules (ACX and more)")
    check.add_argument("folder", help="the book's results folder, results/<book_id>")
    check.add_argument("--worst", type=int, default=10, help="how many of the worst-heard segments to list")
    check.set_defaults(run=_check)
    studio = commands.add_parser("studio", help="proof-listen a book in the browser, fix it, re-render that")
    studio.add_argument("folder", nargs="?", help="the book's results folder (default: the only one)")
    studio.add_argument("--results", default="results", help="where to look when none is named")
    studio.add_argument("--host", default="127.0.0.1", help="where to listen (default: this machine)")
    studio.add_argument("--port", type=int, default=0, help="the port (default: any free one)")
    studio.add_argument(
        "--snakemake-args",
        default="",
        help="the arguments of the snakemake run that made the book (--config book=... engine=...), "
        "which the re-render repeats, in this folder",
    )
    studio.add_argument("--cores", type=int, default=os.cpu_count() or 1, help="the re-render's --cores")
    studio.set_defaults(run=_studio)
    args = parser.parse_args(argv)
    try:
        with faults_in_one_line(then="run the command again"):
            code = args.run(args)
    except UserError as error:
        print(f"narrator: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return code or 0


if __name__ == "__main__":
    sys.exit(main())
