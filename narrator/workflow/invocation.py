"""What the snakemake command line asks for, which Snakemake 9 does not tell a Snakefile at parse time.

``workflow.dryrun`` is known only once the executor is chosen, after the Snakefile has been read,
so the parse-time repair of an unproven plan (narrator.plan.plan.replan_if_unproven) reads the command
line with Snakemake's own parser to keep a dry run from changing anything.
"""

from __future__ import annotations

from collections.abc import Sequence


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
