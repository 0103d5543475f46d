"""Which book a results folder holds, so two books whose files share a name never share a folder.

The plan records the book it read in ``<results>/<book_id>/source.json``: its resolved path and
the SHA-256 of its bytes. Before anything runs, a book whose id names that folder must be the
same book: the same path (so editing a book in place is fine) or the same bytes (a moved file, a
second checkout). Otherwise its plan would delete the other book's finished WAVs.

source.json is not a Snakemake output: Snakemake deletes a checkpoint's outputs before running it
again, which would erase the record just when it is needed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from narrator.core.errors import UserError
from narrator.core.publish import replace_durably

SOURCE_FILE = "source.json"


def file_sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@lru_cache(maxsize=64)
def _stat_sha256(path: Path, size: int, mtime_ns: int) -> str:
    """file_sha256, once per process for a file as it stands (a shelf's books share one voice)."""
    return file_sha256(path)


def voice_sha256(files: Iterable[Path]) -> str:
    """One digest of a voice's files' bytes ("" for none). A file that cannot be read is named instead:
    the engine's preflight refuses it in one line."""
    digest = hashlib.sha256()
    named = False
    for path in files:
        named = True
        try:
            stat = path.stat()
            digest.update(_stat_sha256(path.resolve(), stat.st_size, stat.st_mtime_ns).encode())
        except OSError:
            digest.update(f"unreadable {path}".encode())
    return digest.hexdigest() if named else ""


def record_source(results_dir: Path, book_path: Path) -> str:
    """Write, atomically, which book ``results_dir`` holds; return the book's SHA-256."""
    book = book_path.resolve()
    record = {"path": str(book), "sha256": file_sha256(book)}
    replace_durably(results_dir / SOURCE_FILE, json.dumps(record, indent=2).encode() + b"\n")
    return record["sha256"]


def check_source(results_dir: Path, book_path: Path, book_id: str) -> None:
    """Refuse, in one line, a book whose results folder holds another book; no record, no check."""
    record_path = results_dir / SOURCE_FILE
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
        recorded_path, recorded_sha256 = record["path"], record["sha256"]
    except FileNotFoundError:
        return
    except (OSError, ValueError, TypeError, KeyError):
        raise UserError(
            f"{record_path} is damaged; delete it if {results_dir} holds {book_path}, "
            "or set book_id to give this book its own folder"
        ) from None
    book = book_path.resolve()
    if recorded_path == str(book) or recorded_sha256 == file_sha256(book):
        return
    raise UserError(
        f"{results_dir} holds another book, {recorded_path}, not {book}; give this one its own "
        f"folder with book_id (--config book_id={book_id}-2) or move the results away"
    )
