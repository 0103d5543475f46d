# Config validation, the book being narrated, and every input function (get_*).
import sys
from pathlib import Path

from narrator import catalog as narrator_catalog
from narrator.config import validate_config
from narrator.engines import engine_class
from narrator.errors import UserError
from narrator.ingest import book_id_for, read_book


def fail(message):
    """Stop with one line for a user mistake: no traceback, nothing written under results/."""
    print(f"narrator: {message}", file=sys.stderr)
    sys.exit(1)


try:
    validate_config(config, workflow.source_path("../schemas/config.schema.yaml"))
    ENGINE = engine_class(config["engine"])
    # Reading the book here catches a missing, binary or non-UTF-8 book before any job starts.
    read_book(config["book"])
except UserError as error:
    fail(str(error))

BOOK_ID = book_id_for(config["book"])
RESULTS = config["results"]
ENGINE_OPTIONS = config["engines"].get(config["engine"], {})
GPUS_PER_RENDER = 1 if ENGINE.device(ENGINE_OPTIONS) == "cuda" else 0


wildcard_constraints:
    book="[a-z0-9]+(-[a-z0-9]+)*",
    segment="[0-9a-f]{16}",


def get_final_output():
    return f"{RESULTS}/{BOOK_ID}/{BOOK_ID}.wav"


def get_book(wildcards):
    if wildcards.book != BOOK_ID:
        raise ValueError(
            f"results/{wildcards.book} is not the configured book ({BOOK_ID})"
        )
    return config["book"]


def get_catalog(wildcards):
    return f"{RESULTS}/{wildcards.book}/catalog.tsv"


def get_segment_wavs(wildcards):
    """Every segment WAV of the book, known once the plan checkpoint has written the catalog."""
    catalog_path = checkpoints.plan_catalog.get(book=wildcards.book).output.catalog
    return [row["wav_path"] for row in narrator_catalog.read_catalog(catalog_path)]
