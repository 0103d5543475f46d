# Config validation, the book being narrated, and every input function (get_*).
import sys
from pathlib import Path

from narrator import catalog as narrator_catalog
from narrator.asr import resolve as resolve_asr
from narrator.config import check_cover, validate_config
from narrator.engines import engine_class
from narrator.errors import UserError
from narrator.identity import check_source
from narrator.ingest import book_id_for, load_book
from narrator.lexicon import Lexicon
from narrator.limits import Limits
from narrator.package import PackageSettings
from narrator.cluster import (
    keep_group_components_on_restart,
    run_cluster_job_in_this_process,
)
from narrator.invocation import changes_nothing
from narrator.plan import PlanSettings, replan_if_unproven
from narrator.workflow import faults_in_one_line, log_bug


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
    BOOK_ID = config["book_id"] or book_id_for(config["book"])
    # The report's landing page (workflow.rst) names the book's folder by it.
    config["book_id"] = BOOK_ID
    ENGINE = engine_class(config["engine"])
    # Hours into a run is too late to learn that a model file or a GPU is missing.
    ENGINE.preflight(config["engines"].get(config["engine"], {}))
    # Reading the book here catches a missing, damaged, empty or oversized book before any job starts.
    book_language = load_book(
        config["book"],
        config["chapters"]["include"],
        config["chapters"]["exclude"],
        config["notes"],
        Limits.from_config(config),
    ).language
    # Another book's results under this id would be deleted by this book's plan.
    check_source(Path(config["results"]) / BOOK_ID, Path(config["book"]), BOOK_ID)
    # An English voice reading a French book is gibberish: refuse that now, or let an engine
    # that picks its voice by language pick it here, so the plan and the renders share it.
    config["engines"][config["engine"]] = ENGINE.for_language(
        config["engines"].get(config["engine"], {}),
        config["language"] or book_language,
    )
    # The pace becomes the engine's own speed option here, so it is part of every render key.
    config["engines"][config["engine"]] = ENGINE.for_pace(
        config["engines"][config["engine"]], config["pace"]
    )
    # A missing asr extra for an explicit verify.asr is one line now, not one per render job.
    ASR_CHECK = resolve_asr(
        config["verify"],
        config["engine"],
        config["language"] or book_language,
        ENGINE.device(config["engines"][config["engine"]]),
        int(config["engines"][config["engine"]].get("threads", 1)),
    )
    # The plan and the packaging read these only after hours of work; read them whole now.
    if config["lexicon"]:
        Lexicon.load(config["lexicon"])
    if config["cover"]:
        check_cover(config["cover"])
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
ENGINE_OPTIONS = config["engines"].get(config["engine"], {})
GPUS_PER_RENDER = 1 if ENGINE.device(ENGINE_OPTIONS).startswith("cuda") else 0
PLAN_SETTINGS = PlanSettings.from_config(config)

# A plan that no longer proves its book (a catalog cut short or gone while the master stands) is
# made again: left alone, Snakemake says "nothing to be done" or assembles a shorter book.
if not workflow.remote_exec:
    try:
        with faults_in_one_line():
            replanning = replan_if_unproven(
                Path(RESULTS) / BOOK_ID, BOOK_ID, lambda: changes_nothing(sys.argv)
            )
    except UserError as error:
        fail(str(error))
    if replanning:
        print(f"narrator: {replanning}", file=sys.stderr)


# Two Snakemake 9.27.1 workarounds for grouped render jobs on a cluster (narrator/cluster.py).
keep_group_components_on_restart()
if workflow.remote_exec:
    run_cluster_job_in_this_process(workflow)


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
    """The master WAV, every output the config asks for, and the report's plots."""
    return (
        [f"{RESULTS}/{BOOK_ID}/{BOOK_ID}.wav"]
        + [
            OUTPUT_PATHS[kind].format(results=RESULTS, book=BOOK_ID)
            for kind in OUTPUT_KINDS
        ]
        + expand(rules.report_plots.output, book=BOOK_ID)
    )


def get_book(wildcards):
    if wildcards.book != BOOK_ID:
        raise ValueError(
            f"results/{wildcards.book} is not the configured book ({BOOK_ID})"
        )
    return config["book"]


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


def get_segment_wavs(wildcards):
    """Every segment WAV of the book, known once the plan checkpoint has written the catalog."""
    book = getattr(wildcards, "book", BOOK_ID)  # render_all has no wildcards
    catalog_path = checkpoints.plan_catalog.get(book=book).output.catalog
    return [
        str(narrator_catalog.wav_file(catalog_path, row))
        for row in narrator_catalog.read_catalog(catalog_path)
    ]
