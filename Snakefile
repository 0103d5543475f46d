# narrator: book in, audiobook out. Plan (checkpoint) -> render one job per segment -> assemble
# the master WAV -> package (M4B, chapter files, subtitles).
import logging
import sys
from pathlib import Path

from snakemake.utils import min_version

from narrator.core.errors import UserError
from narrator.workflow.jobs import start_run

min_version("9.11")

# On a full disk Snakemake's own log file (.snakemake/log/) cannot be written, and Python's logging
# would print a traceback for every line it drops; the lines still reach the terminal.
logging.raiseExceptions = False


# Run from another folder (snakemake -s <path>/Snakefile --directory <elsewhere>) with no config.yaml
# of its own, the one beside this Snakefile is the config.
configfile: "config.yaml" if Path("config.yaml").exists() else workflow.source_path("config.yaml")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/plan.smk"
include: "workflow/rules/render.smk"
include: "workflow/rules/assemble.smk"
include: "workflow/rules/package.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        get_final_output(),


# One run at a time per book's results folder (narrator/core/lock.py), held until this process exits.
# onstart runs only in the main process of a real run: not for a dry run or when nothing is to be
# done, and not in cluster jobs, which Snakemake starts with --no-hooks.
onstart:
    try:
        start_run([Path(RESULTS) / book_id for book_id in SHELF.books])
    except UserError as error:
        fail(str(error))


# A refused book of a shelf fails the run once the others are done, and is named again at the end.
onsuccess:
    if SHELF.refused:
        fail(
            f"{len(SHELF.refused)} book(s) of the shelf refused, the others done: "
            + " | ".join(SHELF.refused)
        )


onerror:
    for refused in SHELF.refused:
        print(f"narrator: {refused}", file=sys.stderr)
