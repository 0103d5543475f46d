"""The `narrator` command: status and verify. User mistakes end in one line, not a traceback."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from narrator.errors import UserError
from narrator.status import format_progress, measure
from narrator.verify import verify_catalog


def _catalogs(given: list[str], results: str) -> list[Path]:
    paths = [Path(p) / "catalog.tsv" if Path(p).is_dir() else Path(p) for p in given]
    paths = paths or sorted(Path(results).glob("*/catalog.tsv"))
    if not paths:
        raise UserError(f"no catalogs under {results}/; run snakemake first or name a catalog")
    return paths


def _status(args: argparse.Namespace) -> None:
    while True:
        lines = [format_progress(path, measure(path)) for path in _catalogs(args.catalogs, args.results)]
        print("\n".join(lines), flush=True)
        if not args.watch:
            return
        time.sleep(args.interval)


def _verify(args: argparse.Namespace) -> None:
    for path in _catalogs(args.catalogs, args.results):
        print(f"{path}: {verify_catalog(path).summary()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="narrator", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    status = commands.add_parser("status", help="progress of each book from its catalog")
    status.add_argument("--watch", action="store_true", help="refresh until interrupted")
    status.add_argument("--interval", type=float, default=5.0, help="seconds between refreshes")
    status.set_defaults(run=_status)
    verify = commands.add_parser("verify", help="re-check published WAVs; re-queue damaged ones")
    verify.set_defaults(run=_verify)
    for sub in (status, verify):
        sub.add_argument("catalogs", nargs="*", help="catalog.tsv files or results/<book_id> folders")
        sub.add_argument("--results", default="results", help="where to look when none is named")
    args = parser.parse_args(argv)
    try:
        args.run(args)
    except UserError as error:
        print(f"narrator: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
