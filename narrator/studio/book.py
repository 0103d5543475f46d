"""One book's results folder as the studio sees it: its rows and evidence, a lexicon entry's preview
and save, one segment's reading, another take, flags by ear, the previous take to compare, and the
re-render, run as the workflow the user runs.

Nothing here takes a path from a request: audio is found by segment id in the catalog (a previous
take by the id this studio recorded), and the only files written are the lexicon, the fixes beside
the book (narrator.plan.fixes), and flags.yaml and takes.json in the results folder, each atomically
and under the book's lock.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import yaml

from narrator.core.catalog import BOOK_JSON, Row, planned_seed, read_catalog, sidecar_path, wav_file
from narrator.core.errors import CatalogError, UserError
from narrator.core.lock import holder, holding
from narrator.core.publish import publishing, replace_durably
from narrator.engines import engine_class
from narrator.inspect.flags import read_flags, write_flags
from narrator.plan.fixes import SEEDS, Fix, Fixes, Key, fixes_path, segment_keys
from narrator.plan.identity import SOURCE_FILE
from narrator.plan.plan import ASIDE_DIR, SEGMENTS_DIR, speaker
from narrator.render.asr import Evidence, read_evidence
from narrator.render.render import seed_for
from narrator.text.lexicon import Lexicon
from narrator.workflow.invocation import run_config

#: Lines of the render's output the page shows.
LOG_LINES = 12
#: The most changes a lexicon preview normalizes and lists.
LISTED = 200


def _name(key: Key) -> str:
    """A segment's key as takes.json names it."""
    return json.dumps(list(key), ensure_ascii=False)


def _json(path: Path) -> dict[str, Any]:
    """A JSON object this studio or the render wrote; {} when there is none yet."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise UserError(f"{path} cannot be read ({error}); delete it") from None
    return data if isinstance(data, dict) else {}


#: Beside the catalog: for a segment given its own reading or take here, the take it had before
#: (by id) and the fix it had before, so the page can play the old take beside the new and revert.
TAKES_FILE = "takes.json"
#: Where the plan keeps the WAV of a take it replaced (narrator.plan.plan.ASIDE_DIR), or segments/.
TAKE_FOLDERS = (SEGMENTS_DIR, ASIDE_DIR)
_SEGMENT_ID = re.compile(r"[0-9a-f]{16}")


@dataclass(frozen=True)
class Change:
    """A segment whose spoken text a lexicon entry would change."""

    row: Row
    spoken: str


@dataclass(frozen=True)
class Changes:
    """What a lexicon entry would change: the first ``listed`` exactly, and how many in all."""

    listed: list[Change]
    count: int
    #: False when ``count`` counts the segments whose text the lexicon rewrites, of which only the
    #: listed ones were normalized (normalization seldom folds two rewrites into one reading).
    exact: bool


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
        self.fixes_path = fixes_path(self.book_path)
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
    ) -> tuple[str, Lexicon, Lexicon, Lexicon]:
        """The lexicon file's text with the entry added, the lexicon now, with the entry, and the
        entry alone as one; UserError for bad input."""
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
        return text, current, Lexicon(entries, str(self.lexicon_path)), alone

    def changes(self, current: Lexicon, lexicon: Lexicon, entry: Lexicon) -> Changes:
        """The segments whose spoken text the plan would make different with ``lexicon`` (``current``
        plus the new ``entry``). Only segments where the entry matches are looked at, and normalizing
        is what costs (0.3 ms a segment): the first LISTED changes are normalized, the rest counted by
        whether the lexicon rewrites their text."""
        speak = speaker(lexicon, self.config["engine"], self.language, self.config["urls"])
        phonemes = engine_class(self.config["engine"]).supports_phonemes
        listed: list[Change] = []
        count, exact = 0, True
        # A segment given its own reading (narrator.plan.fixes) says it whatever the lexicon says.
        fixed = {key for key, fix in Fixes.load(self.fixes_path).by_key().items() if fix.say}
        rows = self.rows()
        for row, key in zip(rows, segment_keys(row.text for row in rows), strict=True):
            if key in fixed or not entry.finds(row.text):
                continue
            if len(listed) < LISTED:
                spoken = speak(row.text, title=row.paragraph == 0)
                if spoken != row.spoken:
                    listed.append(Change(row, spoken))
                    count += 1
            elif lexicon.apply(row.text, phonemes=phonemes) != current.apply(row.text, phonemes=phonemes):
                count += 1
                exact = False
        return Changes(listed, count, exact)

    def preview(self, key: str, say: str, ignore_case: bool, phonemes: str = "") -> Changes:
        return self.changes(*self._lexicon_with(key, say, ignore_case, phonemes)[1:])

    def save(self, key: str, say: str, ignore_case: bool, phonemes: str = "") -> Changes:
        """Append the entry to the lexicon file, atomically and under the book's lock."""
        with self._edit, holding(self.results, "narrator studio"):
            text, current, lexicon, entry = self._lexicon_with(key, say, ignore_case, phonemes)
            changes = self.changes(current, lexicon, entry)
            with publishing(self.lexicon_path) as temp:
                temp.write_text(text, encoding="utf-8")
                Lexicon.load(temp)  # what the plan will read must load; else the temp is dropped
        return changes

    # --- one segment: its reading, another take, a flag ----------------------------------------

    def segment(self, segment_id: str) -> tuple[Row, Key]:
        """The catalog's row of ``segment_id`` and its key in the fixes file; UserError for another id."""
        rows = self.rows()
        for row, key in zip(rows, segment_keys(row.text for row in rows), strict=True):
            if row.segment_id == segment_id:
                return row, key
        raise UserError(f"no segment {segment_id!r} in this book's plan; reload the page")

    def _fix(self, segment_id: str, **fields: Any) -> str:
        """Set the segment's reading or seed in the fixes file, atomically and under the book's lock,
        remembering the take it had before; the file's path."""
        with self._edit, holding(self.results, "narrator studio"):
            row, key = self.segment(segment_id)
            fixes = Fixes.load(self.fixes_path)
            takes = self._takes()
            # The first take kept is the one compared: a second fix before keeping does not replace it.
            name = _name(key)
            if name not in takes:
                before = fixes.by_key().get(key)
                takes[name] = {"previous": row.segment_id, "fix": before.as_yaml() if before else None}
            with publishing(self.fixes_path) as temp:
                temp.write_text(fixes.with_entry(key, **fields).dump(), encoding="utf-8")
                Fixes.load(temp)  # what the plan will read must load; else the temp is dropped
            self._write_takes(takes)
        return str(self.fixes_path)

    def say(self, segment_id: str, text: str) -> str:
        """Make the segment read ``text`` (as written) instead of the plan's reading."""
        if not text.strip():
            raise UserError("type what the voice should say for this segment: the reading is empty")
        return self._fix(segment_id, say=" ".join(text.split()))

    def take(self, segment_id: str) -> int:
        """Ask for the next seed of the segment's chain after the one its WAV was rendered from; the seed."""
        name = self.config["engine"]
        engine = engine_class(name)
        if not engine.seeded(engine.Options.from_config(self.config["engines"].get(name, {}))):
            raise UserError(
                f"{name} draws no noise: another take would be identical; change the reading instead"
            )
        row, key = self.segment(segment_id)
        used = planned_seed(self.catalog, segment_id)
        used = seed_for(row.spoken) if used is None else used
        if row.completed:
            # In enforce mode the ASR check may have kept a later seed of the chain: its sidecar says.
            heard = _json(sidecar_path(wav_file(self.catalog, row)))
            if heard.get("sha256") == row.sha256 and isinstance(heard.get("seed"), int):
                used = heard["seed"]
        pending = Fixes.load(self.fixes_path).by_key().get(key)
        if pending is not None and pending.seed is not None:
            used = max(used, pending.seed)
        seed = (used + 1) % SEEDS
        self._fix(segment_id, seed=seed)
        return seed

    def flags(self) -> dict[str, str]:
        return read_flags(self.results)

    def flag(self, segment_id: str, note: str | None) -> None:
        """Flag the segment by ear with ``note``, or (None) unflag it; under the book's lock."""
        with self._edit, holding(self.results, "narrator studio"):
            self.segment(segment_id)
            flags = read_flags(self.results)
            if note is None:
                flags.pop(segment_id, None)
            else:
                flags[segment_id] = " ".join(note.split())
            write_flags(self.results, flags, self.rows())

    # --- the take before: play it beside the new one, keep the new or go back ------------------

    def _takes(self) -> dict[str, Any]:
        return _json(self.results / TAKES_FILE)

    def _write_takes(self, takes: dict[str, Any]) -> None:
        replace_durably(self.results / TAKES_FILE, json.dumps(takes, indent=1, ensure_ascii=False).encode())

    def previous(self) -> dict[str, str]:
        """For each segment re-rendered since its reading or take was changed here, the id of the take
        before, by the new take's id: the page offers both while the old WAV is still kept."""
        takes = self._takes()
        if not takes:
            return {}
        rows = self.rows()
        found = {}
        for row, key in zip(rows, segment_keys(row.text for row in rows), strict=True):
            before = takes.get(_name(key), {}).get("previous")
            if before and before != row.segment_id and row.completed and self.previous_wav(before):
                found[row.segment_id] = before
        return found

    def previous_wav(self, segment_id: str) -> Path | None:
        """The kept WAV of a take this studio recorded, in segments/ or aside/; None once it is gone."""
        if not _SEGMENT_ID.fullmatch(segment_id):
            return None
        for folder in TAKE_FOLDERS:
            path = self.results / folder / f"{segment_id}.wav"
            if path.is_file():
                return path
        return None

    def previous_audio(self, segment_id: str) -> bytes | None:
        """The WAV of the take before ``segment_id``'s, when the page offers it; else None."""
        before = self.previous().get(segment_id)
        path = self.previous_wav(before) if before else None
        return path.read_bytes() if path else None

    def settle(self, segment_id: str, keep: bool) -> str:
        """Keep the new take (forget the old), or go back: the fix before is restored, so the next
        render plans the old take's id again and takes its WAV back from aside/ without rendering."""
        with self._edit, holding(self.results, "narrator studio"):
            _, key = self.segment(segment_id)
            takes = self._takes()
            name = _name(key)
            if name not in takes:
                raise UserError("this segment has no earlier take to compare; reload the page")
            recorded = takes.pop(name)
            if not keep:
                fix = recorded.get("fix")
                fixes = Fixes.load(self.fixes_path).with_fix(key, Fix(**fix) if fix else None)
                with publishing(self.fixes_path) as temp:
                    temp.write_text(fixes.dump(), encoding="utf-8")
            self._write_takes(takes)
        return "kept the new take" if keep else "went back to the take before; re-render to restore it"

    # --- the re-render -----------------------------------------------------------------------

    def command(self) -> list[str]:
        """The user's run with the studio's lexicon (once there is one; the fixes beside the book are
        found by the plan); the book from source.json if the args name another."""
        named = self.config.get("lexicon") or self.lexicon_path.is_file()
        entries = [f"lexicon={self.lexicon_path}"] if named else []
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
        """Start the workflow unless a run is at work on the book: this studio's render, or one started
        elsewhere (it holds the book's lock); that one is followed instead."""
        with self._edit:
            if self.render is not None and self.render.process.poll() is None:
                return
            if holder(self.results) is not None:
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
        code = self.render.process.poll() if self.render is not None else None
        if self.render is not None:
            state = "running" if code is None else ("done" if code == 0 else f"failed (exit {code})")
        log = list(self.render.log) if self.render else []
        if code is not None or self.render is None:
            # Not this studio's run: another at work on the book holds its lock (snakemake's own
            # .snakemake/locks outlive a killed run, the book's flock does not).
            elsewhere = holder(self.results)
            if elsewhere is not None:
                state, log = (
                    "running elsewhere",
                    [f"the book is in use by {elsewhere}; following its progress"],
                )
        percent = round(100 * done / total) if total else 0
        return {"state": state, "completed": done, "total": total, "percent": percent, "log": log}
