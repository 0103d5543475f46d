# Config validation, the book being narrated, and every input function (get_*).
import sys
from pathlib import Path

from narrator import catalog as narrator_catalog
from narrator.config import validate_config
from narrator.engines import engine_class
from narrator.errors import UserError
from narrator.ingest import book_id_for, load_book
from narrator.package import PackageSettings
from narrator.plan import PlanSettings


def fail(message):
    """Stop with one line for a user mistake: no traceback, nothing written under results/."""
    print(f"narrator: {message}", file=sys.stderr)
    sys.exit(1)


try:
    validate_config(config, workflow.source_path("../schemas/config.schema.yaml"))
    ENGINE = engine_class(config["engine"])
    # Hours into a run is too late to learn that a model file or a GPU is missing.
    ENGINE.preflight(config["engines"].get(config["engine"], {}))
    # Reading the book here catches a missing, damaged or empty book before any job starts.
    load_book(
        config["book"], config["chapters"]["include"], config["chapters"]["exclude"]
    )
    if config["lexicon"] and not Path(config["lexicon"]).is_file():
        raise UserError(f"{config['lexicon']}: no such lexicon file")
    if config["cover"] and not Path(config["cover"]).is_file():
        raise UserError(f"{config['cover']}: no such cover image")
except UserError as error:
    fail(str(error))

BOOK_ID = book_id_for(config["book"])
RESULTS = config["results"]
ENGINE_OPTIONS = config["engines"].get(config["engine"], {})
GPUS_PER_RENDER = 1 if ENGINE.device(ENGINE_OPTIONS).startswith("cuda") else 0
PLAN_SETTINGS = PlanSettings.from_config(config)


def run_cluster_job_in_this_process():
    """In a cluster job (--mode remote), run its rules as threads of this one process.

    A cluster job is one Snakemake in --mode remote: it loads no profile and gets no
    --force-use-threads, so its local executor spawns a new `python -m snakemake` per run: job,
    and the Slurm plugin's in-job executor (slurm-jobstep) even starts one srun + Snakemake per
    member of a group. Either way a render group would load its engine once per segment. Here
    the job's members run as threads of this process (one engine load per group), the group's
    --cores bounding how many at once. Both settings are read when execution starts, after this
    file is parsed (execution_settings is still None now), so they are set at that moment.
    """
    from snakemake_interface_executor_plugins.registry import ExecutorPluginRegistry

    execute = workflow.execute

    def execute_here(*args, **kwargs):
        if kwargs["executor_plugin"].name == "slurm-jobstep":
            kwargs["executor_plugin"] = ExecutorPluginRegistry().get_plugin("local")
            kwargs["executor_settings"] = None
            # --jobs 1 from the plugin would run one member at a time; --cores bounds them.
            workflow.global_resources["_nodes"] = None
        workflow.execution_settings.use_threads = True
        return execute(*args, **kwargs)

    workflow.execute = execute_here


def keep_group_components_on_restart():
    """Rebuild render groups from scratch each time Snakemake regroups its jobs.

    Snakemake 9.27.1 caches group jobs by their initial members, and group-components merges
    jobs into those cached objects. A run that starts with the catalog already planned (every
    restart) regroups twice, gets the merged objects back and builds wrong groups: one job
    holding all pending segments beside the 25-segment ones, the same segments submitted twice,
    and an early exit 0 without the book (snakemake/snakemake#1217, #1628). An empty cache makes
    each regrouping start from the jobs themselves.
    """
    from snakemake.dag import DAG

    if getattr(DAG.update_groups, "narrator_fresh_groups", False):
        return
    update_groups = DAG.update_groups

    def update_groups_afresh(self):
        self.group_job_factory.cache.clear()
        return update_groups(self)

    update_groups_afresh.narrator_fresh_groups = True
    DAG.update_groups = update_groups_afresh


keep_group_components_on_restart()
if workflow.remote_exec:
    run_cluster_job_in_this_process()


PACKAGE_SETTINGS = PackageSettings(
    ffmpeg=config["ffmpeg"],
    m4b_bitrate=config["encode"]["m4b_bitrate"],
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
}


wildcard_constraints:
    book="[a-z0-9]+(-[a-z0-9]+)*",
    segment="[0-9a-f]{16}",


def get_final_output():
    """The master WAV, every output the config asks for, and the report's plots."""
    return (
        [f"{RESULTS}/{BOOK_ID}/{BOOK_ID}.wav"]
        + [
            OUTPUT_PATHS[kind].format(results=RESULTS, book=BOOK_ID)
            for kind in config["outputs"]
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
    return [row["wav_path"] for row in narrator_catalog.read_catalog(catalog_path)]
