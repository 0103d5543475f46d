"""What the snakemake command line asks for, which Snakemake 9 does not tell a Snakefile at parse time.

``workflow.dryrun`` is known only once the executor is chosen, after the Snakefile has been read,
so the parse-time repair of an unproven plan (narrator.plan.plan.replan_if_unproven) reads the command
line with Snakemake's own parser to keep a dry run from changing anything. The studio reads the
config a command line gives the same way, to re-run it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml


def changes_nothing(argv: Sequence[str]) -> bool:
    """True for a dry run, --touch, a report, a lint or a listing: runs that must not alter results."""
    from snakemake.cli import get_argument_parser

    args, _ = get_argument_parser().parse_known_args(list(argv[1:]))
    return bool(
        args.dryrun
        or args.touch
        or args.report
        or args.lint
        or args.summary
        or args.detailed_summary
        or args.list_rules
    )


def run_config(argv: Sequence[str], workdir: Path) -> dict[str, Any]:
    """The config a snakemake command line (without the program name) run in ``workdir`` starts from:
    config.yaml there, then each --configfile, then the --config entries, as Snakemake merges them
    (before narrator's validation, which the run itself does)."""
    from snakemake.cli import get_argument_parser, parse_config
    from snakemake.utils import update_config

    args, _ = get_argument_parser().parse_known_args(list(argv))
    config: dict[str, Any] = {}
    for path in [workdir / "config.yaml", *(workdir / name for name in args.configfile or [])]:
        if path.is_file():
            update_config(config, yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    update_config(config, parse_config(args.config))
    return config
