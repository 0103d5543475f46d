"""Plan a book: segment it and write the whole catalog before any audio work starts."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from narrator.core import interrupt
from narrator.core.audio import AudioCheckError, check_wav_file
from narrator.core.book import Book
from narrator.core.catalog import (
    BOOK_JSON,
    PlanRecord,
    Row,
    UnprovenCatalog,
    read_planned,
    sidecar_path,
    wav_file,
    write_catalog,
)
from narrator.core.language import is_english
from narrator.core.lock import holding
from narrator.core.publish import TEMP_MARK, replace_durably
from narrator.engines import engine_class
from narrator.engines.base import EngineOptions
from narrator.plan.identity import record_source
from narrator.text.credits import with_credits
from narrator.text.ingest import read_book, select_chapters
from narrator.text.lexicon import Lexicon
from narrator.text.limits import Limits, check_segment_count
from narrator.text.normalize import normalize, normalize_title
from narrator.text.segment import Speaker, describe_segmenter, segment_book


def render_key(engine: str, options: EngineOptions) -> str:
    """Everything besides the text that changes a segment's audio: the options the config set."""
    return f"{engine}:{json.dumps(options.settings(), sort_keys=True)}"


def segment_ids(texts: list[str], key: str) -> list[str]:
    """Content ids: the same text and voice give the same id, so edits move only what changed.

    A repeated text (a refrain, "Yes.") gets its occurrence number mixed in, so ids stay unique
    and inserting one repeat shifts only the later repeats of that same text.
    """
    seen: Counter[str] = Counter()
    ids = []
    for text in texts:
        seen[text] += 1
        material = f"{key}\x00{text}" + (f"\x00{seen[text]}" if seen[text] > 1 else "")
        ids.append(hashlib.sha256(material.encode()).hexdigest()[:16])
    return ids


@dataclass(frozen=True)
class PlanSettings:
    """Everything from the config that decides the segments and their spoken text."""

    engine: str
    options: EngineOptions
    budget: int
    #: Path of a pronunciation lexicon (YAML), or "" for none.
    lexicon: str = ""
    #: Chapters to force in or out, by 1-based index or title pattern (see ingest.select_chapters).
    include: tuple[int | str, ...] = ()
    exclude: tuple[int | str, ...] = ()
    #: Language of the text, overriding the book's own metadata when set.
    language: str = ""
    #: Footnotes and figure captions: "drop" them, or "read" them after their paragraph.
    notes: str = "drop"
    #: Web addresses: say their "host", or "skip" them.
    urls: str = "host"
    #: Size limits on the book and its plan; None checks none.
    limits: Limits | None = None
    #: Opening and closing credits (narrator.text.credits) around the book.
    credits: bool = False

    @classmethod
    def from_config(cls, config: Mapping[str, Any], options: EngineOptions) -> PlanSettings:
        """Settings from the validated workflow config and a book's engine options (voice and speed
        resolved for it, narrator.workflow.shelf); the engine may lower the segment budget."""
        engine = config["engine"]
        return cls(
            engine=engine,
            options=options,
            budget=min(config["max_chars"], engine_class(engine).budget(options)),
            lexicon=config["lexicon"],
            include=tuple(config["chapters"]["include"]),
            exclude=tuple(config["chapters"]["exclude"]),
            language=config["language"],
            notes=config["notes"],
            urls=config["urls"],
            limits=Limits.from_config(config),
            credits=wants_credits(config),
        )

    def digest(self) -> str:
        """A digest of every setting, recorded with the plan (the engine's options as the config set them)."""
        settings = {**asdict(self), "options": self.options.settings()}
        return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()


def wants_credits(config: Mapping[str, Any]) -> bool:
    """credits: on, off, or auto: on for the outputs a listener plays as a book (M4B, ACX files)."""
    if config["credits"] != "auto":
        return bool(config["credits"] == "on")
    return bool({"m4b", "acx"} & set(config["outputs"])) or config.get("preset") == "acx"


def speaker_for(settings: PlanSettings, language: str) -> Speaker:
    """Lexicon on the book's own words first, then normalization (which leaves [[ phonemes ]] alone)."""
    lexicon = Lexicon.load(settings.lexicon or None)
    phonemes = engine_class(settings.engine).supports_phonemes

    def speak(text: str, *, title: bool = False) -> str:
        normal = normalize_title if title else normalize
        return normal(lexicon.apply(text, phonemes=phonemes), language, urls=settings.urls)

    return speak


#: Segment WAVs live here, relative to the catalog's folder.
SEGMENTS_DIR = "segments"


def plan_rows(book: Book, settings: PlanSettings) -> list[Row]:
    language = settings.language or book.language
    segments = []
    for segment in segment_book(book, settings.budget, speaker_for(settings, language), language):
        interrupt.check()  # a long book plans for minutes: Ctrl-C must not wait for the end
        segments.append(segment)
    ids = segment_ids([s.spoken for s in segments], render_key(settings.engine, settings.options))
    return [
        Row(
            **vars(segment),
            segment_id=segment_id,
            sequence=sequence,
            wav_path=f"{SEGMENTS_DIR}/{segment_id}.wav",
        )
        for sequence, (segment_id, segment) in enumerate(zip(ids, segments, strict=True), start=1)
    ]


def adopt_published(catalog_path: Path, rows: list[Row]) -> tuple[list[Row], int]:
    """The rows, those whose WAV is already published and proves itself this segment's completed;
    and how many damaged, swapped or foreign WAVs were removed so that they render again.

    Snakemake deletes a checkpoint's old output before re-planning, so after a book edit the
    previous catalog is gone while unchanged segments' WAVs remain; Snakemake will not re-render
    those, so the new catalog must record them or assembly would wait for ever.
    """
    planned, damaged = [], 0
    for row in rows:
        interrupt.check()
        path = wav_file(catalog_path, row)
        adopted = row
        if path.exists():
            try:
                record = check_wav_file(path, segment_id=row.segment_id, text_chars=len(row.spoken))
                adopted = row.marked_completed(record, None)
            except AudioCheckError:
                path.unlink()
                damaged += 1
        planned.append(adopted)
    return planned, damaged


def remove_leftovers(segments_dir: Path, keep: set[str]) -> int:
    """Delete stray temp files, and WAVs and sidecars of segments no longer in the book."""
    removed = 0
    for path in segments_dir.glob("*"):
        if path.is_file() and (TEMP_MARK in path.name or path.name not in keep):
            path.unlink()
            removed += 1
    return removed


def write_book_json(book: Book, book_json_path: Path, language: str, record: PlanRecord) -> None:
    """Metadata for later stages (tags, cover), written atomically beside the catalog."""
    cover_name = None
    if book.cover is not None:
        cover_name = f"cover.{book.cover.extension}"
        replace_durably(book_json_path.with_name(cover_name), book.cover.data)
    metadata = {
        "title": book.title,
        "authors": list(book.authors),
        "date": book.date,
        "language": language,
        "cover": cover_name,
        "encoding": book.encoding,
        "chapters": [{"index": i, "title": c.title} for i, c in enumerate(book.chapters, start=1)],
        "plan": record.as_json(),
    }
    replace_durably(book_json_path, json.dumps(metadata, indent=2, ensure_ascii=False).encode() + b"\n")


def plan_notes(book: Book, narrated: Book, language: str) -> list[str]:
    """What the plan log says besides the counts: recovered files, skipped sections, language."""
    notes = [f"read: {note}" for note in book.notes]
    kept = {id(chapter) for chapter in narrated.chapters}
    for index, chapter in enumerate(book.chapters, start=1):
        if id(chapter) not in kept:
            why = chapter.skipped_by or "chapters.exclude"
            notes.append(
                f"skipped section {index} {chapter.title or '(untitled)'!r} ({why}); "
                f"chapters.include: [{index}] reads it"
            )
    notes.append(f"sentences split by {describe_segmenter(language)}")
    if not is_english(language):
        notes.append(f"English normalization skipped for {language!r}: numbers are left for the voice")
    return notes


def write_plan(
    book_path: str | Path, catalog_path: str | Path, book_json_path: str | Path, settings: PlanSettings
) -> str:
    """Read and segment the book, then atomically write its metadata and catalog.

    Already published WAVs of unchanged segments are adopted; leftovers are removed.
    """
    catalog_path = Path(catalog_path)
    # Claim the results folder for this book before anything in it is removed.
    source_sha256 = record_source(catalog_path.parent, Path(book_path))
    whole = read_book(book_path, settings.notes, settings.limits)
    book = select_chapters(whole, settings.include, settings.exclude)
    language = settings.language or book.language
    notes = plan_notes(whole, book, language)
    if settings.credits:
        voice = engine_class(settings.engine).voice_name(settings.options)
        book, credits_note = with_credits(book, language, voice)
        notes.append(credits_note)
    rows = plan_rows(book, settings)
    if settings.limits is not None:
        check_segment_count(len(rows), settings.limits)
    segments_dir = catalog_path.parent / SEGMENTS_DIR
    segments_dir.mkdir(parents=True, exist_ok=True)
    # A kept segment keeps its ASR sidecar too: it is the evidence of the WAV's check.
    wavs = [wav_file(catalog_path, row) for row in rows]
    leftovers = remove_leftovers(segments_dir, {p.name for w in wavs for p in (w, sidecar_path(w))})
    rows, damaged = adopt_published(catalog_path, rows)
    adopted = sum(row.completed for row in rows)
    record = PlanRecord.of(rows, source_sha256, settings.digest())
    write_book_json(book, Path(book_json_path), language, record)
    write_catalog(catalog_path, rows)
    decoded = "" if book.encoding == "utf-8" else f" (text decoded as {book.encoding})"
    summary = (
        f"planned {len(rows)} segments in {len(book.chapters)} chapters{decoded}: {adopted} already "
        f"published, {damaged} damaged WAVs and {leftovers} leftover files removed"
    )
    return "\n".join([summary, *notes])


def unproven_plan(catalog_path: Path, master_path: Path) -> str | None:
    """Why the plan in a results folder no longer proves its book, or None when it does.

    None too before the first plan. A catalog that is missing while the book's outputs remain, or
    that lost, gained or reordered rows, would otherwise give "nothing to be done" or a silently
    shorter book.
    """
    book_json = catalog_path.with_name(BOOK_JSON)
    if not catalog_path.exists():
        outputs = [path for path in (book_json, master_path) if path.exists()]
        return f"{catalog_path} is missing beside {outputs[0]}" if outputs else None
    try:
        read_planned(catalog_path)
    except UnprovenCatalog as error:
        return error.problem
    return None


def replan_if_unproven(results_dir: Path, book_id: str, dry_run: Callable[[], bool]) -> str | None:
    """Make Snakemake plan again a book whose plan no longer proves it; say so in one line.

    Snakemake does not re-run a job for a missing intermediate file while the final outputs
    stand, so the master goes with the catalog and book.json; the segment WAVs stay, and the new
    plan adopts every one whose certificate proves it is its segment's. A dry run (asked only when
    there is something to repair: it costs a parse of the command line) only says what a real run
    will do. The results lock keeps this away from a run at work on the same folder.
    """
    catalog_path, master = results_dir / "catalog.tsv", results_dir / f"{book_id}.wav"
    problem = unproven_plan(catalog_path, master)
    if problem is None:
        return None
    if dry_run():
        return f"{problem}; a real run re-plans the book (finished segments are kept)"
    with holding(results_dir, "a re-plan"):
        for path in (catalog_path, catalog_path.with_name(BOOK_JSON), master):
            path.unlink(missing_ok=True)
    return f"{problem}; re-planning (finished segments are kept)"
