"""Plan a book: segment it and write the whole catalog before any audio work starts."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from stat import S_ISREG
from typing import Any

from narrator.core import interrupt
from narrator.core.audio import AudioCheckError, check_wav_file
from narrator.core.book import Book
from narrator.core.catalog import (
    BOOK_JSON,
    REPLAN_HINT,
    SEEDS_KEY,
    PlanRecord,
    Row,
    UnprovenCatalog,
    read_plan_record,
    read_planned,
    read_render_seconds,
    sidecar_path,
    wav_file,
    write_catalog,
)
from narrator.core.errors import CatalogError
from narrator.core.language import is_english
from narrator.core.lock import holding
from narrator.core.publish import TEMP_MARK, replace_durably
from narrator.engines import engine_class
from narrator.engines.base import EngineOptions
from narrator.plan.fixes import Fixes, applied, fixes_note, fixes_path
from narrator.plan.identity import file_sha256, record_source, voice_sha256
from narrator.text.credits import with_credits
from narrator.text.ingest import read_book, select_chapters
from narrator.text.lexicon import Lexicon
from narrator.text.limits import Limits, check_segment_count
from narrator.text.normalize import normalize, normalize_title, number_reader
from narrator.text.readers.matter import authors_matter
from narrator.text.segment import Speaker, describe_segmenter, segment_book


def render_key(engine: str, options: EngineOptions, voice: str = "") -> str:
    """Everything besides the text that changes a segment's audio: the options the config set, and
    the digest of the voice files they name (a model updated in place is another voice)."""
    key = f"{engine}:{json.dumps(options.settings(), sort_keys=True)}"
    return f"{key}:{voice}" if voice else key


def segment_ids(texts: list[str], key: str, seeds: list[int | None] | None = None) -> list[str]:
    """Content ids: the same text and voice give the same id, so edits move only what changed.

    A repeated text (a refrain, "Yes.") gets its occurrence number mixed in, so ids stay unique
    and inserting one repeat shifts only the later repeats of that same text. A segment given its
    own seed (another take, narrator.plan.fixes) gets it mixed in, so that take renders.
    """
    seen: Counter[str] = Counter()
    ids = []
    for text, seed in zip(texts, seeds or [None] * len(texts), strict=True):
        seen[text] += 1
        material = f"{key}\x00{text}" + (f"\x00{seen[text]}" if seen[text] > 1 else "")
        material += f"\x00seed {seed}" if seed is not None else ""
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
    #: The SHA-256 of the voice files the options name ("" for a voice pinned by its package).
    voice_sha256: str = ""

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
            voice_sha256=voice_sha256(options.voice_files()),
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
    return speaker(Lexicon.load(settings.lexicon or None), settings.engine, language, settings.urls)


def speaker(lexicon: Lexicon, engine: str, language: str, urls: str) -> Speaker:
    """speaker_for's speaker for a lexicon in hand (the studio previews an entry not yet saved)."""
    phonemes = engine_class(engine).supports_phonemes

    def speak(text: str, *, title: bool = False) -> str:
        normal = normalize_title if title else normalize
        return normal(lexicon.apply(text, phonemes=phonemes), language, urls=urls)

    return speak


#: Segment WAVs live here, relative to the catalog's folder.
SEGMENTS_DIR = "segments"


def plan_rows(book: Book, settings: PlanSettings, fixes: Fixes | None = None) -> list[Row]:
    """The book's segments as catalog rows, with ``fixes`` (one segment's reading or seed) applied."""
    language = settings.language or book.language
    segments = []
    for segment in segment_book(book, settings.budget, speaker_for(settings, language), language):
        interrupt.check()  # a long book plans for minutes: Ctrl-C must not wait for the end
        segments.append(segment)
    spoken, seeds = applied([s.text for s in segments], [s.spoken for s in segments], fixes or Fixes())
    segments = [replace(s, spoken=said) for s, said in zip(segments, spoken, strict=True)]
    key = render_key(settings.engine, settings.options, settings.voice_sha256)
    ids = segment_ids(spoken, key, seeds)
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
    render_seconds = read_render_seconds(catalog_path)
    for row in rows:
        interrupt.check()
        path = wav_file(catalog_path, row)
        adopted = row
        if path.exists():
            try:
                record = check_wav_file(path, segment_id=row.segment_id, text_chars=len(row.spoken))
                adopted = row.marked_completed(record, render_seconds.get(row.segment_id))
            except AudioCheckError:
                path.unlink()
                damaged += 1
        planned.append(adopted)
    return planned, damaged


#: Where a plan keeps the WAVs (and ASR sidecars) of segments its book no longer has, beside
#: segments/: a plan made by mistake (the engine flag forgotten, a pace changed and changed back)
#: would otherwise delete hours of finished work. Each WAV's certificate proves whose it is, so a
#: later plan that has the segment again takes it back instead of rendering it.
ASIDE_DIR = "aside"
#: The most the aside folder holds; the oldest files go first beyond it (a ten-hour book's
#: segments at 22,050 Hz are about 1.6 GB).
ASIDE_LIMIT_BYTES = 2 << 30


def set_aside(segments_dir: Path, aside_dir: Path, keep: set[str]) -> tuple[int, int]:
    """Take back from ``aside_dir`` the files of ``keep`` that segments/ lacks, move there the
    WAVs and sidecars of segments no longer in the book, delete stray temps; return (taken
    back, set aside)."""
    taken_back = 0
    if aside_dir.is_dir():
        for kept in aside_dir.iterdir():
            if kept.name in keep and kept.is_file() and not (segments_dir / kept.name).exists():
                os.replace(kept, segments_dir / kept.name)
                taken_back += 1
    moved = 0
    for path in segments_dir.glob("*"):
        if not path.is_file():
            continue
        if TEMP_MARK in path.name:
            path.unlink()
        elif path.name not in keep:
            aside_dir.mkdir(exist_ok=True)
            os.replace(path, aside_dir / path.name)
            moved += 1
    if aside_dir.is_dir():
        _trim(aside_dir, ASIDE_LIMIT_BYTES)
    return taken_back, moved


def _trim(folder: Path, limit: int) -> None:
    """Delete the oldest files of ``folder`` until it holds at most ``limit`` bytes."""
    files = []
    for path in folder.iterdir():
        info = path.stat()
        if S_ISREG(info.st_mode):
            files.append((info.st_mtime, info.st_size, path))
    total = sum(size for _, size, _ in files)
    for _, size, path in sorted(files):
        if total <= limit:
            return
        total -= size
        path.unlink()


def unread_sections(whole: Book, narrated: Book, credits: bool) -> list[dict[str, Any]]:
    """The author's sections the plan skips (notes, a word about the author, chapters.exclude), for
    the read-along EPUB to show without audio: each with its title, its paragraphs and notes, and
    the catalog's chapter it comes before (one past the last when it comes after them all)."""
    kept = {id(chapter) for chapter in narrated.chapters}
    unread = []
    before = 2 if credits else 1  # the opening credits are the catalog's first chapter
    for chapter in whole.chapters:
        if id(chapter) in kept:
            before += 1
        elif authors_matter(chapter.skipped_by) and any(p.strip() for p in chapter.paragraphs):
            section = {"before": before, "kind": chapter.kind, "title": chapter.title}
            unread.append({**section, "paragraphs": list(chapter.paragraphs), "notes": chapter.notes})
    return unread


def write_book_json(
    book: Book,
    book_json_path: Path,
    language: str,
    record: PlanRecord,
    unread: list[dict[str, Any]],
    seeds: Mapping[str, int],
) -> None:
    """Metadata for later stages (tags, cover, the sections and notes shown unread), written
    atomically beside the catalog; ``seeds``: the segments given their own render seed
    (narrator.plan.fixes), by id."""
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
        "unread": unread,
        "notes": {
            number: chapter.notes for number, chapter in enumerate(book.chapters, start=1) if chapter.notes
        },
        # Where each chapter's paragraphs stand in a source EPUB: the read-along EPUB keeps its text.
        "sources": {
            number: chapter.sources
            for number, chapter in enumerate(book.chapters, start=1)
            if chapter.sources
        },
        "plan": record.as_json(),
        SEEDS_KEY: dict(seeds),
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
    if not is_english(language) and number_reader(language):
        notes.append(
            f"English normalization skipped for {language!r}: whole numbers read by num2words "
            f"{number_reader(language)!r}, the rest left for the voice"
        )
    elif not is_english(language):
        notes.append(
            f"English normalization skipped for {language!r}: num2words has no {language!r}, "
            "so numbers and symbols are left as written for the voice"
        )
    return notes


def write_plan(
    book_path: str | Path, catalog_path: str | Path, book_json_path: str | Path, settings: PlanSettings
) -> str:
    """Read and segment the book, then atomically write its metadata and catalog.

    Already published WAVs of unchanged segments are adopted (from aside/ too); the files of
    segments no longer in the book are set aside.
    """
    catalog_path = Path(catalog_path)
    # Claim the results folder for this book before anything in it is removed.
    source_sha256 = record_source(catalog_path.parent, Path(book_path))
    whole = read_book(book_path, settings.notes, settings.limits)
    book = select_chapters(whole, settings.include, settings.exclude)
    language = settings.language or book.language
    notes = plan_notes(whole, book, language)
    unread = unread_sections(whole, book, settings.credits)
    if settings.credits:
        voice = engine_class(settings.engine).voice_name(settings.options)
        book, credits_note = with_credits(book, language, voice)
        notes.append(credits_note)
    fixes = Fixes.load(fixes_path(book_path))
    rows = plan_rows(book, settings, fixes)
    texts = [row.text for row in rows]
    notes += [note] if (note := fixes_note(texts, fixes)) else []
    if settings.limits is not None:
        check_segment_count(len(rows), settings.limits)
    segments_dir = catalog_path.parent / SEGMENTS_DIR
    segments_dir.mkdir(parents=True, exist_ok=True)
    # A kept segment keeps its ASR sidecar too: it is the evidence of the WAV's check.
    wavs = [wav_file(catalog_path, row) for row in rows]
    taken_back, set_aside_count = set_aside(
        segments_dir, catalog_path.parent / ASIDE_DIR, {p.name for w in wavs for p in (w, sidecar_path(w))}
    )
    rows, damaged = adopt_published(catalog_path, rows)
    adopted = sum(row.completed for row in rows)
    record = PlanRecord.of(rows, source_sha256, settings.digest())
    chosen = applied(texts, [row.spoken for row in rows], fixes)[1]
    seeds = {row.segment_id: seed for row, seed in zip(rows, chosen, strict=True) if seed is not None}
    write_book_json(book, Path(book_json_path), language, record, unread, seeds)
    write_catalog(catalog_path, rows)
    decoded = "" if book.encoding == "utf-8" else f" (text decoded as {book.encoding})"
    summary = (
        f"planned {len(rows)} segments in {len(book.chapters)} chapters{decoded}: {adopted} already "
        f"published ({taken_back} files taken back from {ASIDE_DIR}/), {damaged} damaged WAVs removed, "
        f"{set_aside_count} files of segments no longer in the book set aside in {ASIDE_DIR}/"
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
    except CatalogError as error:
        # A torn or edited catalog: every published WAV certifies itself, so a new plan loses nothing.
        return str(error).removesuffix(f"; {REPLAN_HINT}")
    return None


def outdated_plan(catalog_path: Path, settings: PlanSettings, book_path: Path) -> str | None:
    """How the plan in a results folder differs from what this run would plan, or None.

    Snakemake's params and mtime triggers would re-plan a book whose settings or text changed, but
    not under --rerun-triggers mtime, on a copied results folder, or without .snakemake/: the rest
    of the book would be rendered at the new settings under the old plan, a book of two voices. So
    the plan record (book.json) is compared with the settings and the book's bytes themselves.
    """
    if not catalog_path.exists():
        return None
    try:
        record = read_plan_record(catalog_path)
    except UnprovenCatalog:
        return None  # unproven_plan says what is wrong with it
    if record.settings_sha256 != settings.digest():
        return f"the settings changed since {catalog_path.parent} was planned"
    if record.source_sha256 != file_sha256(book_path):
        return f"{book_path} changed since {catalog_path.parent} was planned"
    return None


def replan_if_unproven(
    results_dir: Path,
    book_id: str,
    dry_run: Callable[[], bool],
    planned: tuple[PlanSettings, Path] | None = None,
) -> str | None:
    """Make Snakemake plan again a book whose plan no longer proves it, or (given ``planned``, the
    book's settings and file) was made from other settings or another text; say so in one line.

    Snakemake does not re-run a job for a missing intermediate file while the final outputs
    stand, so the master goes with the catalog and book.json; the segment WAVs stay, and the new
    plan adopts every one whose certificate proves it is its segment's. A dry run (asked only when
    there is something to repair: it costs a parse of the command line) only says what a real run
    will do. The results lock keeps this away from a run at work on the same folder.
    """
    catalog_path, master = results_dir / "catalog.tsv", results_dir / f"{book_id}.wav"
    problem = unproven_plan(catalog_path, master)
    if problem is None and planned is not None:
        problem = outdated_plan(catalog_path, *planned)
    if problem is None:
        return None
    if dry_run():
        return f"{problem}; a real run re-plans the book (finished segments are kept)"
    with holding(results_dir, "a re-plan"):
        for path in (catalog_path, catalog_path.with_name(BOOK_JSON), master):
            path.unlink(missing_ok=True)
    return f"{problem}; re-planning (finished segments are kept)"
