"""The books a run narrates, each read and given its voice before any job starts.

Without ``books`` a run narrates ``book``, and any problem with it stops the run in one line, as
before. With ``books`` (a folder, a glob, or a list of folders, globs and files) it narrates a
whole shelf in one DAG, each book into ``<results>/<book_id>/`` under its own lock, catalog and
crash safety. A book that cannot be narrated (missing, damaged, empty, in a language the voice
cannot read, or named like a book already on the shelf) is refused alone, in one line, and the
others go on; such a book never gets a job, so its plan can never delete a folder's work.
"""

from __future__ import annotations

import glob
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from narrator.core.errors import UserError
from narrator.engines.base import Engine, EngineOptions
from narrator.plan.identity import check_source
from narrator.plan.plan import PlanSettings
from narrator.render.asr import AsrSettings, resolve
from narrator.text.ingest import book_id_for, load_book
from narrator.text.limits import Limits
from narrator.text.readers import READERS, book_suffix
from narrator.workflow.jobs import log_bug


@dataclass(frozen=True)
class ShelfBook:
    """One book of the run, ready to plan: where it is, its folder's name and how it is voiced."""

    book_id: str
    path: str
    plan: PlanSettings
    asr: AsrSettings

    @property
    def options(self) -> EngineOptions:
        """The engine's options for this book: the voice for its language, the speed for the pace."""
        return self.plan.options


@dataclass
class Shelf:
    """The books of a run by book_id, and one line for each book refused."""

    books: dict[str, ShelfBook] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)

    def __getitem__(self, book_id: str) -> ShelfBook:
        book = self.books.get(book_id)
        if book is None:
            raise ValueError(f"{book_id} is not a book of this run ({', '.join(self.books)})")
        return book


def shelf_paths(books: str | list[str]) -> list[Path]:
    """The book files ``books`` names, in order, each once: a folder's books (sorted by name, not
    recursive), a glob's matches that are books, a book file as given (checked when it is read);
    UserError for an entry that names none of these, such as a mistyped folder."""
    paths: list[Path] = []
    for entry in [books] if isinstance(books, str) else books:
        path = Path(entry)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if book_suffix(p) in READERS and p.is_file())
            if not found:
                raise UserError(f"books: {entry} holds no book ({', '.join(READERS)} files)")
        elif glob.has_magic(entry):
            found = sorted(Path(p) for p in glob.glob(entry) if book_suffix(Path(p)) in READERS)
            if not found:
                raise UserError(f"books: {entry!r} matches no book ({', '.join(READERS)} files)")
        elif book_suffix(path) in READERS:
            found = [path]  # a missing or unreadable book is refused alone when it is read
        else:
            what = "no such folder" if not path.exists() else "not a folder, glob or book file"
            raise UserError(f"books: {entry}: {what} ({', '.join(READERS)} files)")
        paths.extend(found)
    return list(dict.fromkeys(paths))


def asr_threads(options: EngineOptions) -> int:
    """The CPUs the ASR check may use beside a render: the engine's own threads option, else 1."""
    threads = getattr(options, "threads", None)
    return threads if isinstance(threads, int) and threads > 0 else 1


def prepare_book(config: Mapping[str, Any], engine: type[Engine[Any]], path: Path, book_id: str) -> ShelfBook:
    """Read ``path`` whole (a missing, damaged, empty or oversized book is refused now, not after
    hours), check its folder holds no other book, and resolve its voice, pace and ASR check."""
    chapters, limits = config["chapters"], Limits.from_config(config)
    book = load_book(path, chapters["include"], chapters["exclude"], config["notes"], limits)
    # Another book's results under this id would be deleted by this book's plan.
    check_source(Path(config["results"]) / book_id, path, book_id)
    language = config["language"] or book.language
    # An English voice reading a French book is gibberish: refuse it now, or let an engine that picks
    # its voice by language pick it here, so the plan and the renders share it. The pace becomes the
    # engine's own speed option, so it is part of every render key.
    configured = engine.Options.from_config(config["engines"].get(config["engine"], {}))
    voiced = engine.for_language(configured, language)
    options = engine.for_pace(voiced, config["pace"])
    # The ASR check's length test needs the pace, where the voice was set to it.
    wpm = config["pace"] if options != voiced else None
    # A missing asr extra for an explicit verify.asr is one line now, not one per render job.
    asr = resolve(
        config["verify"], config["engine"], language, engine.device(options), asr_threads(options), wpm
    )
    return ShelfBook(book_id, str(path), PlanSettings.from_config(config, options), asr)


def prepare_shelf(config: Mapping[str, Any], engine: type[Engine[Any]], bug_log_dir: Path) -> Shelf:
    """The run's books. One book (``book``): UserError for any problem. A shelf (``books``): each
    bad book refused in ``Shelf.refused``, its bug's traceback in ``bug_log_dir``; UserError only
    when the shelf itself is wrong or no book on it can be narrated."""
    if not config["books"]:
        book_id = config["book_id"] or book_id_for(config["book"])
        return Shelf({book_id: prepare_book(config, engine, Path(config["book"]), book_id)})
    if config["book_id"] or config["cover"]:
        raise UserError(
            "book_id and cover name one book's folder and cover; with books, each book is named after "
            "its file and uses its own cover"
        )
    shelf = Shelf()
    for path in shelf_paths(config["books"]):
        book_id = book_id_for(path)
        taken = shelf.books.get(book_id)
        if taken is not None:
            shelf.refused.append(
                f"{path}: refused: its results folder would be {book_id}/, which is {taken.path}'s; "
                "rename one of the two files"
            )
            continue
        try:
            shelf.books[book_id] = prepare_book(config, engine, path, book_id)
        except UserError as error:
            shelf.refused.append(f"{error}; refused")
        except Exception as error:  # noqa: BLE001 - a bug on one book must not stop the shelf
            message = log_bug(f"reading {path}", error, bug_log_dir / f"{book_id}.log")
            shelf.refused.append(f"{message}; refused")
    if not shelf.books:
        raise UserError(f"no book of books: {config['books']} can be narrated: {' | '.join(shelf.refused)}")
    return shelf
