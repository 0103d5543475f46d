"""What the Snakefile does while it is parsed, before any job: one frozen ``Run`` for the rules.

Hours into a run is too late to learn that a model file, a GPU, a lexicon or a book is wrong, or
that this Snakemake's internals differ from the ones narrator patches, so all of it is checked
here, and the config is turned into typed settings once. A user mistake is a UserError (one line,
nothing written under results/); a bug is logged whole in the plan log and named in one line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from narrator.assemble.assemble import reassemble_if_damaged
from narrator.assemble.loudness import LoudnessTarget
from narrator.core.cpus import usable_cpus
from narrator.core.errors import UserError
from narrator.engines import engine_class
from narrator.engines.base import Engine
from narrator.package.chapters import repackage_if_cut
from narrator.package.metadata import PackageSettings
from narrator.plan.plan import replan_if_unproven
from narrator.render.groups import GroupSizing
from narrator.text.ingest import book_id_for
from narrator.text.lexicon import Lexicon
from narrator.workflow.clock_skew import bring_back_future_mtimes, describe
from narrator.workflow.cluster import keep_group_components_on_restart, run_cluster_job_in_this_process
from narrator.workflow.config import check_cover, validate_config
from narrator.workflow.invocation import changes_nothing
from narrator.workflow.jobs import faults_in_one_line, log_bug
from narrator.workflow.scheduling import coalesce_reevaluations, list_remaining_jobs_on_demand
from narrator.workflow.shelf import Shelf, prepare_shelf
from narrator.workflow.snakemake_internals import check_supported

#: Where the plan logs a bug met while the books are read (the plan rule's own log folder).
PLAN_LOGS = Path("logs/plan_catalog")
#: The outputs a preset adds to config["outputs"].
PRESET_OUTPUTS: Mapping[str, tuple[str, ...]] = {"": (), "acx": ("acx",)}


@dataclass(frozen=True)
class Run:
    """Everything the rules need from the config, parsed and checked once."""

    engine: type[Engine[Any]]
    shelf: Shelf
    results: str
    #: 1 for an engine on CUDA, else 0: a book's language changes its voice, never its device.
    gpus_per_render: int
    render_groups: GroupSizing
    package: PackageSettings
    loudness: LoudnessTarget
    #: Parts the M4B is encoded in at once (ffmpeg's AAC encoder uses one CPU): the CPUs of the
    #: machine that plans the jobs, at most 8; Snakemake caps it at --cores.
    m4b_threads: int
    #: The outputs the config and its preset ask for, besides the master (always made).
    outputs: tuple[str, ...]


def bootstrap(
    config: MutableMapping[str, Any],
    schema: str | Path,
    overrides: Mapping[str, Any],
    workflow: Any,
    say: Callable[[str], None] = lambda line: print(f"narrator: {line}", file=sys.stderr),
) -> Run:
    """Check everything a run needs and return it typed; UserError (one line) for any problem.

    ``workflow`` is Snakemake's: its internals are patched here (after a version check), and in a
    cluster job (``workflow.remote_exec``) nothing is re-planned. ``say`` prints a notice.
    """
    try:
        return _bootstrap(config, schema, overrides, workflow, say)
    except UserError:
        raise
    except Exception as error:  # noqa: BLE001 - a bug: one line here, the traceback in the plan log
        book_id = config.get("book_id") or book_id_for(str(config.get("book", "book")))
        log = PLAN_LOGS / f"{book_id}.log"
        raise UserError(log_bug(f"reading {config.get('book')}", error, log)) from None


def _bootstrap(
    config: MutableMapping[str, Any],
    schema: str | Path,
    overrides: Mapping[str, Any],
    workflow: Any,
    say: Callable[[str], None],
) -> Run:
    check_supported()
    validate_config(config, schema, overrides)
    # "out/", "./out" and "out" are one folder; Snakemake matches outputs by their text.
    config["results"] = os.path.normpath(config["results"])
    engine = engine_class(config["engine"])
    options = engine.Options.from_config(config["engines"].get(config["engine"], {}))
    engine.preflight(options)
    # The plan and the packaging read these only after hours of work; read them whole now.
    if config["lexicon"]:
        Lexicon.load(config["lexicon"])
    if config["cover"]:
        check_cover(config["cover"])
    # Every book is read here, so a missing, damaged, empty or oversized one is known before any
    # job starts: the one book stops the run, a shelf's bad book is refused alone.
    shelf = prepare_shelf(config, engine, PLAN_LOGS)
    results = config["results"]
    if not workflow.remote_exec:
        for refused in shelf.refused:
            say(f"{refused}, the other books go on")
        _bring_back_future_mtimes(config, results, shelf, say)
        _heal_results(results, shelf, say)
    _patch_snakemake(workflow)
    return Run(
        engine=engine,
        shelf=shelf,
        results=results,
        gpus_per_render=1 if engine.device(options).startswith("cuda") else 0,
        render_groups=GroupSizing.from_config(config),
        package=PackageSettings.from_config(config),
        loudness=LoudnessTarget.from_config(config),
        m4b_threads=min(8, usable_cpus()),
        outputs=tuple(dict.fromkeys([*config["outputs"], *PRESET_OUTPUTS[config["preset"]]])),
    )


def _bring_back_future_mtimes(
    config: Mapping[str, Any], results: str, shelf: Shelf, say: Callable[[str], None]
) -> None:
    """Every input and output a run compares by mtime: the books, lexicon, cover and results."""
    paths = [Path(config[key]) for key in ("lexicon", "cover") if config[key]]
    for book_id, book in shelf.books.items():
        paths += [Path(book.path), Path(results) / book_id]
    with faults_in_one_line():
        skewed = bring_back_future_mtimes(paths)
    if skewed:
        say(describe(skewed))


def _heal_results(results: str, shelf: Shelf, say: Callable[[str], None]) -> None:
    """Make again a plan that no longer proves its book (a catalog cut short, torn or gone while
    the master stands: left alone, Snakemake says "nothing to be done" or assembles a shorter book),
    or that was made from other settings or another text (left alone, a book of two voices); and
    assemble again a master whose loudness.json is damaged (left alone, every report fails); and
    package again a chapter folder a kill cut short (left alone, it stays short)."""

    def dry_run() -> bool:
        return changes_nothing(sys.argv)

    for book_id, book in shelf.books.items():
        with faults_in_one_line():
            replanning = replan_if_unproven(
                Path(results) / book_id, book_id, dry_run, (book.plan, Path(book.path))
            )
        if replanning:
            say(replanning)
            continue
        with faults_in_one_line():
            reassembling = reassemble_if_damaged(Path(results) / book_id, book_id, dry_run)
        if reassembling:
            say(reassembling)
        with faults_in_one_line():
            repackaging = repackage_if_cut(Path(results) / book_id, dry_run)
        if repackaging:
            say(repackaging)


def _patch_snakemake(workflow: Any) -> None:
    """Snakemake 9 workarounds: scheduling rounds that stay cheap on a long book
    (narrator/workflow/scheduling.py), and grouped render jobs on a cluster (cluster.py)."""
    coalesce_reevaluations()
    list_remaining_jobs_on_demand()
    keep_group_components_on_restart()
    if workflow.remote_exec:
        run_cluster_job_in_this_process(workflow)
