# The run's settings (parsed and checked once, narrator/workflow/bootstrap.py) and every input
# function (get_*).
import sys
from pathlib import Path

from narrator.core.errors import UserError, first_line, out_of_memory


def fail(message):
    """Stop with one line for a user mistake: no traceback, nothing written under results/."""
    print(f"narrator: {message}", file=sys.stderr)
    sys.exit(1)


# Under an address-space limit (ulimit -v, a cluster job's cap) the libraries below may not load.
try:
    from narrator.core import catalog as narrator_catalog
    from narrator.inspect.flags import FLAGS_FILE
    from narrator.plan.fixes import fixes_path
    from narrator.render.groups import book_render_groups
    from narrator.workflow.bootstrap import bootstrap
    from narrator.workflow.cluster import render_group
except (ImportError, MemoryError) as error:
    if not out_of_memory(error):
        raise
    fail(
        f"out of memory while loading narrator's libraries ({first_line(error)}); raise the memory "
        "limit (ulimit -v, the cluster job's mem_mb)"
    )


try:
    RUN = bootstrap(
        config,
        workflow.source_path("../schemas/config.schema.yaml"),
        workflow.config_settings.overwrite_config or {},
        workflow,
    )
except UserError as error:
    fail(str(error))

SHELF = RUN.shelf
RESULTS = RUN.results
# The report's landing page (workflow.rst) includes each book's summary by its folder's name.
config["book_ids"] = list(SHELF.books)

#: Where each configured output lands (besides the master, always made).
OUTPUT_PATHS = {
    "m4b": "{results}/{book}/{book}.m4b",
    "chapters": "{results}/{book}/chapters",
    "srt": "{results}/{book}/{book}.srt",
    "vtt": "{results}/{book}/{book}.vtt",
    "acx": "{results}/{book}/acx",
    "epub": "{results}/{book}/{book}.epub",
}


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
                for kind in RUN.outputs
            ],
            *expand(rules.report_plots.output, book=book_id),
            *expand(rules.report_summary.output, book=book_id),
        ]
    ]


def get_book(wildcards):
    return SHELF[wildcards.book].path


def get_lexicon(wildcards):
    return [config["lexicon"]] if config["lexicon"] else []


def get_fixes(wildcards):
    """The book's fixes file (narrator.plan.fixes), once there is one: editing it re-plans."""
    path = fixes_path(SHELF[wildcards.book].path)
    return [str(path)] if path.exists() else []


def get_flags(wildcards):
    """The book's flags by ear (narrator.inspect.flags), once the studio wrote any."""
    path = Path(RESULTS) / wildcards.book / FLAGS_FILE
    return [str(path)] if path.exists() else []


def get_catalog(wildcards):
    return f"{RESULTS}/{wildcards.book}/catalog.tsv"


def get_master(wildcards):
    return f"{RESULTS}/{wildcards.book}/{wildcards.book}.wav"


def get_book_json(wildcards):
    return f"{RESULTS}/{wildcards.book}/book.json"


def get_cover(wildcards):
    """The config's cover image (the book's own travels with book.json)."""
    return [config["cover"]] if config["cover"] else []


def get_package_inputs(wildcards):
    """What every packaged output is made from: the master, its catalog, book.json and the cover."""
    return {
        "master": get_master(wildcards),
        "catalog": get_catalog(wildcards),
        "book_json": get_book_json(wildcards),
        "cover": get_cover(wildcards),
    }


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
        RUN.render_groups,
        RUN.engine.typical_rtf,
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
