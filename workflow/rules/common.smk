# Config validation, the book being narrated, and every input function (get_*).
import sys
from pathlib import Path

from narrator.core import catalog as narrator_catalog
from narrator.workflow.config import check_cover, validate_config
from narrator.engines import engine_class
from narrator.core.cpus import usable_cpus
from narrator.core.errors import UserError
from narrator.text.ingest import book_id_for
from narrator.text.lexicon import Lexicon
from narrator.package.metadata import PackageSettings
from narrator.workflow.cluster import (
    keep_group_components_on_restart,
    render_group,
    run_cluster_job_in_this_process,
)
from narrator.render.groups import GroupSizing, book_render_groups
from narrator.workflow.invocation import changes_nothing
from narrator.plan.plan import replan_if_unproven
from narrator.workflow.scheduling import coalesce_reevaluations, list_remaining_jobs_on_demand
from narrator.workflow.shelf import prepare_shelf
from narrator.workflow.jobs import faults_in_one_line, log_bug


def fail(message):
    """Stop with one line for a user mistake: no traceback, nothing written under results/."""
    print(f"narrator: {message}", file=sys.stderr)
    sys.exit(1)


try:
    validate_config(
        config,
        workflow.source_path("../schemas/config.schema.yaml"),
        workflow.config_settings.overwrite_config or {},
    )
    ENGINE = engine_class(config["engine"])
    # Hours into a run is too late to learn that a model file or a GPU is missing.
    ENGINE.preflight(config["engines"].get(config["engine"], {}))
    # The plan and the packaging read these only after hours of work; read them whole now.
    if config["lexicon"]:
        Lexicon.load(config["lexicon"])
    if config["cover"]:
        check_cover(config["cover"])
    # Every book is read here, so a missing, damaged, empty or oversized one is known before any
    # job starts: the one book stops the run, a shelf's bad book is refused alone.
    SHELF = prepare_shelf(config, ENGINE, Path("logs/plan_catalog"))
except UserError as error:
    fail(str(error))
except Exception as error:  # a bug: one line here, the traceback in the plan log
    fail(
        log_bug(
            f"reading {config['book']}",
            error,
            Path("logs/plan_catalog")
            / f"{config.get('book_id') or book_id_for(config['book'])}.log",
        )
    )

RESULTS = config["results"]
# The report's landing page (workflow.rst) includes each book's summary by its folder's name.
config["book_ids"] = list(SHELF.books)
# A book's language changes its voice, never where the engine runs.
GPUS_PER_RENDER = (
    1
    if ENGINE.device(config["engines"].get(config["engine"], {})).startswith("cuda")
    else 0
)

# A plan that no longer proves its book (a catalog cut short or gone while the master stands) is
# made again: left alone, Snakemake says "nothing to be done" or assembles a shorter book.
if not workflow.remote_exec:
    for refused in SHELF.refused:
        print(f"narrator: {refused}, the other books go on", file=sys.stderr)
    for book_id in SHELF.books:
        try:
            with faults_in_one_line():
                replanning = replan_if_unproven(
                    Path(RESULTS) / book_id, book_id, lambda: changes_nothing(sys.argv)
                )
        except UserError as error:
            fail(str(error))
        if replanning:
            print(f"narrator: {replanning}", file=sys.stderr)


# Snakemake 9.27.1 workarounds: scheduling rounds that stay cheap on a long book
# (narrator/workflow/scheduling.py), and grouped render jobs on a cluster (narrator/workflow/cluster.py).
coalesce_reevaluations()
list_remaining_jobs_on_demand()
keep_group_components_on_restart()
if workflow.remote_exec:
    run_cluster_job_in_this_process(workflow)
RENDER_GROUP_SIZING = GroupSizing(**config["render_groups"])


PACKAGE_SETTINGS = PackageSettings(
    ffmpeg=config["ffmpeg"],
    m4b_bitrate=config["encode"]["m4b_bitrate"],
    m4b_aac_coder=config["encode"]["m4b_aac_coder"],
    faststart=config["encode"]["faststart"],
    chapter_format=config["encode"]["chapter_format"],
    chapter_bitrate=config["encode"]["chapter_bitrate"],
    year=str(config["year"] or ""),
    cover=config["cover"] or "",
)
#: Parts the M4B is encoded in at once (ffmpeg's AAC encoder uses one CPU): the CPUs of the machine
#: that plans the jobs, at most 8; Snakemake caps it at --cores, and a cluster job asks for as many.
M4B_THREADS = min(8, usable_cpus())

#: Where each configured output lands (besides the master, always made).
OUTPUT_PATHS = {
    "m4b": "{results}/{book}/{book}.m4b",
    "chapters": "{results}/{book}/chapters",
    "srt": "{results}/{book}/{book}.srt",
    "vtt": "{results}/{book}/{book}.vtt",
    "acx": "{results}/{book}/acx",
}
#: The outputs a preset adds to config["outputs"].
PRESET_OUTPUTS = {"": [], "acx": ["acx"]}
OUTPUT_KINDS = list(
    dict.fromkeys([*config["outputs"], *PRESET_OUTPUTS[config["preset"]]])
)


wildcard_constraints:
    book="[a-z0-9]+(-[a-z0-9]+)*",
    segment="[0-9a-f]{16}",


def get_final_output():
    """Each book's master WAV, every output the config asks for, and the report's plots."""
    return [
        path
        for book_id in SHELF.books
        for path in [
            f"{RESULTS}/{book_id}/{book_id}.wav",
            *[
                OUTPUT_PATHS[kind].format(results=RESULTS, book=book_id)
                for kind in OUTPUT_KINDS
            ],
            *expand(rules.report_plots.output, book=book_id),
            *expand(rules.report_summary.output, book=book_id),
        ]
    ]


def get_book(wildcards):
    return SHELF[wildcards.book].path


def get_lexicon(wildcards):
    return [config["lexicon"]] if config["lexicon"] else []


def get_catalog(wildcards):
    return f"{RESULTS}/{wildcards.book}/catalog.tsv"


def get_master(wildcards):
    return f"{RESULTS}/{wildcards.book}/{wildcards.book}.wav"


def get_book_json(wildcards):
    return f"{RESULTS}/{wildcards.book}/book.json"


def get_cover(wildcards):
    """The config's cover image (the book's own travels with book.json)."""
    return [config["cover"]] if config["cover"] else []


def segment_wavs(book_id):
    """Every segment WAV of a book, known once the plan checkpoint has written the catalog."""
    catalog_path = checkpoints.plan_catalog.get(book=book_id).output.catalog
    return [
        str(narrator_catalog.wav_file(catalog_path, row))
        for row in narrator_catalog.read_catalog(catalog_path)
    ]


def get_segment_wavs(wildcards):
    return segment_wavs(wildcards.book)


def render_groups_of(wildcards):
    return book_render_groups(
        wildcards.book,
        Path(get_catalog(wildcards)),
        RENDER_GROUP_SIZING,
        ENGINE.typical_rtf,
        config["pace"],
    )


def get_render_group(wildcards):
    """The segment's render group: a run of the book's segments sized by work (narrator/render/groups.py)."""
    return render_group(workflow, render_groups_of(wildcards).name(wildcards.segment))


def get_render_runtime(wildcards):
    """Minutes of wall time: the group's whole request on its first member, 0 on the others."""
    return render_groups_of(wildcards).runtime(wildcards.segment)


def get_shelf_segment_wavs(wildcards):
    """Every segment WAV of every book of the run (render_all)."""
    return [wav for book_id in SHELF.books for wav in segment_wavs(book_id)]
