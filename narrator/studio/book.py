"""One book's results folder as the studio sees it: its rows and evidence, a lexicon entry's preview
and save, and the re-render, run as the workflow the user runs.

Nothing here takes a path from a request: audio is found by segment id in the catalog, and the only
files written are the lexicon (atomically, under the book's lock).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import yaml

from narrator.core.catalog import BOOK_JSON, Row, read_catalog, wav_file
from narrator.core.errors import CatalogError, UserError
from narrator.core.lock import holding
from narrator.core.publish import publishing
from narrator.plan.identity import SOURCE_FILE
from narrator.plan.plan import speaker
from narrator.render.asr import Evidence, read_evidence
from narrator.text.lexicon import Lexicon
from narrator.workflow.invocation import run_config

#: Lines of the render's output the page shows.
LOG_LINES = 12


@dataclass(frozen=True)
class Change:
    """A segment whose spoken text a lexicon entry would change."""

    row: Row
    spoken: str


@dataclass
class Render:
    """The one re-render this studio runs at a time: its process and the tail of its output."""

    process: subprocess.Popen[str]
    log: deque[str] = field(default_factory=lambda: deque(maxlen=LOG_LINES))

    def follow(self, stream: IO[str]) -> None:
        for line in stream:
            self.log.append(line.rstrip())


class Studio:
    """A results folder, and the snakemake command line (run in ``workdir``) that made it."""

    def __init__(self, results: Path, workdir: Path, snakemake_args: list[str], cores: int) -> None:
        self.results = results
        self.catalog = results / "catalog.tsv"
        self.workdir = workdir
        self.snakemake_args = snakemake_args
        self.cores = cores
        self.config = run_config(snakemake_args, workdir)
        self.book_path = Path(json.loads((results / SOURCE_FILE).read_text(encoding="utf-8"))["path"])
        self.language = json.loads((results / BOOK_JSON).read_text(encoding="utf-8"))["language"]
        named = self.config.get("lexicon") or ""
        # With no lexicon yet, the first entry creates one beside the book.
        self.lexicon_path = workdir / named if named else self.book_path.with_suffix(".lexicon.yaml")
        self.render: Render | None = None
        self._rows: list[Row] = []
        self._stamp: tuple[int, int, int] | None = None
        #: Edits from two tabs are serialised here, and against runs by the results folder's lock.
        self._edit = threading.Lock()

    # --- reading -----------------------------------------------------------------------------

    def rows(self) -> list[Row]:
        """The catalog's rows, read again only when the file changed (a mark changes its mtime)."""
        stat = self.catalog.stat() if self.catalog.exists() else None
        stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns) if stat else None
        if stamp is None or stamp != self._stamp:
            self._rows, self._stamp = read_catalog(self.catalog), stamp
        return self._rows

    def evidence(self, rows: list[Row]) -> dict[str, Evidence]:
        return {item.row.segment_id: item for item in read_evidence(self.catalog, rows)}

    def wav(self, segment_id: str) -> bytes | None:
        """A completed segment's WAV, by its id in the catalog; None for any other id."""
        row = next((row for row in self.rows() if row.segment_id == segment_id), None)
        if row is None or not row.completed:
            return None
        return wav_file(self.catalog, row).read_bytes()

    def pauses(self) -> dict[str, float]:
        return {str(name): float(seconds) for name, seconds in self.config["pauses"].items()}

    # --- the lexicon ---------------------------------------------------------------------------

    def _lexicon_with(
        self, key: str, say: str, ignore_case: bool, phonemes: str
    ) -> tuple[str, Lexicon, Lexicon]:
        """The lexicon file's text with the entry added, that lexicon, and the entry alone as one;
        UserError for bad input."""
        if not key.strip():
            raise UserError("select or type the word to respell")
        if not say.strip():
            raise UserError(f"say how to pronounce {key!r}: the respelling is empty")
        old = self.lexicon_path.read_text(encoding="utf-8") if self.lexicon_path.is_file() else ""
        current = Lexicon.load(self.lexicon_path) if old else Lexicon(source=str(self.lexicon_path))
        if key in {entry.key for entry in current.entries}:
            raise UserError(f"{key!r} is already in {self.lexicon_path}; edit it there")
        value: Any = say
        if ignore_case or phonemes:
            # The fields the lexicon takes, only those given (phonemes: engines that take them, Piper).
            value = {"say": say, **({"phonemes": phonemes} if phonemes else {})}
            value |= {"ignore_case": True} if ignore_case else {}
        added = yaml.safe_dump({key: value}, allow_unicode=True, default_flow_style=False, width=1000)
        text = (old if not old or old.endswith("\n") else old + "\n") + added
        alone = Lexicon.from_mapping({key: value}, str(self.lexicon_path))
        entries = (*current.entries, *alone.entries)
        return text, Lexicon(entries, str(self.lexicon_path)), alone

    def changes(self, lexicon: Lexicon, entry: Lexicon) -> list[Change]:
        """Every segment whose spoken text the plan would make different with ``lexicon``, among
        those where the new ``entry`` matches (normalizing every segment of a long book takes seconds)."""
        speak = speaker(lexicon, self.config["engine"], self.language, self.config["urls"])
        changed = []
        for row in self.rows():
            if not entry.entries_matching(row.text):
                continue
            spoken = speak(row.text, title=row.paragraph == 0)
            if spoken != row.spoken:
                changed.append(Change(row, spoken))
        return changed

    def preview(self, key: str, say: str, ignore_case: bool, phonemes: str = "") -> list[Change]:
        return self.changes(*self._lexicon_with(key, say, ignore_case, phonemes)[1:])

    def save(self, key: str, say: str, ignore_case: bool, phonemes: str = "") -> list[Change]:
        """Append the entry to the lexicon file, atomically and under the book's lock."""
        with self._edit, holding(self.results, "narrator studio"):
            text, lexicon, entry = self._lexicon_with(key, say, ignore_case, phonemes)
            changes = self.changes(lexicon, entry)
            with publishing(self.lexicon_path) as temp:
                temp.write_text(text, encoding="utf-8")
                Lexicon.load(temp)  # what the plan will read must load; else the temp is dropped
        return changes

    # --- the re-render -----------------------------------------------------------------------

    def command(self) -> list[str]:
        """The user's run with the studio's lexicon; the book from source.json if the args name another."""
        entries = [f"lexicon={self.lexicon_path}"]
        named = self.config.get("book") or ""
        if not self.config.get("books") and (self.workdir / named).resolve() != self.book_path:
            entries.append(f"book={self.book_path}")
        args = list(self.snakemake_args)
        if "--config" in args:
            # Snakemake keeps only the last --config: add to the user's own.
            at = args.index("--config") + 1
            args[at:at] = entries
        else:
            args += ["--config", *entries]
        return [sys.executable, "-m", "snakemake", "--cores", str(self.cores), "--resources", "gpu=1", *args]

    def start_render(self) -> None:
        """Start the workflow unless this studio's render is still running: then it is followed."""
        with self._edit:
            if self.render is not None and self.render.process.poll() is None:
                return
            process = subprocess.Popen(
                self.command(),
                cwd=self.workdir,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                text=True,
            )
            self.render = Render(process)
            assert process.stdout is not None
            threading.Thread(target=self.render.follow, args=(process.stdout,), daemon=True).start()

    def progress(self) -> dict[str, Any]:
        """The catalog's completed share and the render's state, for the page to poll."""
        try:
            rows = self.rows()
            done, total = sum(row.completed for row in rows), len(rows)
        except CatalogError:
            done, total = 0, 0  # a re-plan replaces the catalog: a moment without one
        state = "idle"
        if self.render is not None:
            code = self.render.process.poll()
            state = "running" if code is None else ("done" if code == 0 else f"failed (exit {code})")
        log = list(self.render.log) if self.render else []
        percent = round(100 * done / total) if total else 0
        return {"state": state, "completed": done, "total": total, "percent": percent, "log": log}
