"""One segment's own reading or take, chosen by ear (the studio writes them): ``<book>.fixes.yaml``
beside the book, as ``<book>.lexicon.yaml`` is. A YAML list, one entry a segment::

    - text: It was a long and winding road.      # the segment's text in the book
      say: It was a long and winding rowed.       # what the engine says for this segment only
    - text: Yes.
      occurrence: 3                              # the third segment whose text is "Yes."
      seed: 2718281828                           # render from this seed of the noise chain

An entry names its segment by the book's own text and which occurrence of that text it is, not by
the segment id: the id is a hash of the spoken text and of the take, so the fix itself changes it,
and a lexicon entry changes it again; the book's text stays while the book is not edited. ``say``
is taken as written (no lexicon, no normalization): it is what the voice reads. ``seed`` starts the
segment's render at that seed instead of the one its spoken text gives (narrator.render.render).

The plan applies the file (the catalog's ``spoken`` column shows a reading) and mixes a seed into
the segment's id, so exactly the fixed segments render again. The file lives beside the book, not
the lexicon, because a lexicon may serve a whole shelf while these name one book's segments.
Mistakes raise UserError in one line naming the file and the entry.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from narrator.core.errors import UserError
from narrator.core.publish import require_file

FIXES_SUFFIX = ".fixes.yaml"
#: A segment's name in the file: its text in the book and which occurrence of that text it is.
Key = tuple[str, int]
#: Engines take 32-bit seeds.
SEEDS = 2**32


def fixes_path(book_path: str | Path) -> Path:
    return Path(book_path).with_suffix(FIXES_SUFFIX)


def segment_keys(texts: Iterable[str]) -> list[Key]:
    """Each segment's key, from the book's texts of every segment in reading order."""
    seen: Counter[str] = Counter()
    keys = []
    for text in texts:
        seen[text] += 1
        keys.append((text, seen[text]))
    return keys


@dataclass(frozen=True)
class Fix:
    text: str
    occurrence: int = 1
    #: What to say instead of the plan's reading; "" keeps the plan's.
    say: str = ""
    seed: int | None = None

    @property
    def key(self) -> Key:
        return (self.text, self.occurrence)

    def as_yaml(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"text": self.text}
        entry |= {"occurrence": self.occurrence} if self.occurrence != 1 else {}
        entry |= {"say": self.say} if self.say else {}
        return entry | ({"seed": self.seed} if self.seed is not None else {})


def _entry(item: object, source: str, number: int) -> Fix:
    where = f"{source}: entry {number}"
    if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].strip():
        raise UserError(f"{where}: give the segment's text as text: (see narrator/plan/fixes.py)")
    unknown = set(item) - {"text", "occurrence", "say", "seed"}
    if unknown:
        raise UserError(
            f"{where}: unknown field {sorted(unknown)[0]!r}; the fields are text, occurrence, say, seed"
        )
    occurrence, say, seed = item.get("occurrence", 1), item.get("say", ""), item.get("seed")
    if not isinstance(occurrence, int) or isinstance(occurrence, bool) or occurrence < 1:
        raise UserError(f"{where}: occurrence must be a whole number from 1")
    if not isinstance(say, str):
        raise UserError(f"{where}: say must be text")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < SEEDS):
        raise UserError(f"{where}: seed must be a whole number from 0 to {SEEDS - 1}")
    if not say.strip() and seed is None:
        raise UserError(f"{where}: give say: (what to read) or seed: (another take)")
    return Fix(item["text"], occurrence, say.strip(), seed)


@dataclass(frozen=True)
class Fixes:
    entries: tuple[Fix, ...] = ()
    source: str = "<none>"

    @classmethod
    def load(cls, path: str | Path) -> Fixes:
        """The fixes in the file at ``path``; none when there is no file."""
        path = Path(path)
        if not path.exists():
            return cls(source=str(path))
        require_file(path, "fixes file")
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
            raise UserError(f"{path}: cannot read the fixes: {' '.join(str(error).split())}") from None
        if data is None:
            return cls(source=str(path))
        if not isinstance(data, list):
            raise UserError(f"{path}: the fixes must be a YAML list of entries (see narrator/plan/fixes.py)")
        entries = tuple(_entry(item, str(path), number) for number, item in enumerate(data, start=1))
        keys = Counter(entry.key for entry in entries)
        twice = next((key for key, count in keys.items() if count > 1), None)
        if twice is not None:
            raise UserError(f"{path}: segment {twice[0]!r} (occurrence {twice[1]}) has two entries; keep one")
        return cls(entries, str(path))

    def by_key(self) -> dict[Key, Fix]:
        return {entry.key: entry for entry in self.entries}

    def with_entry(self, key: Key, **fields: Any) -> Fixes:
        """These fixes with the segment's ``say`` or ``seed`` set, its other field and the rest kept."""
        return self.with_fix(key, replace(self.by_key().get(key, Fix(*key)), **fields))

    def with_fix(self, key: Key, fix: Fix | None) -> Fixes:
        """These fixes with the segment's entry replaced by ``fix`` (None: removed)."""
        entries = [entry for entry in self.entries if entry.key != key]
        return replace(self, entries=(*entries, *([fix] if fix is not None else [])))

    def dump(self) -> str:
        head = "# Fixes for single segments (narrator/plan/fixes.py); the studio writes them.\n"
        body = [entry.as_yaml() for entry in self.entries]
        return head + (yaml.safe_dump(body, allow_unicode=True, sort_keys=False, width=1000) if body else "")


def applied(texts: list[str], spoken: list[str], fixes: Fixes) -> tuple[list[str], list[int | None]]:
    """Each segment's spoken text and seed (None: its text's own) with the fixes applied, from the
    book's texts and the plan's readings of every segment in reading order."""
    found = fixes.by_key()
    fixed = [found.get(key) for key in segment_keys(texts)]
    said = [fix.say if fix is not None and fix.say else text for fix, text in zip(fixed, spoken, strict=True)]
    return said, [None if fix is None else fix.seed for fix in fixed]


def fixes_note(texts: list[str], fixes: Fixes) -> str:
    """The plan log's line on the fixes ("" for none): how many were used, and how many name a
    segment the book no longer has (its text edited)."""
    if not fixes.entries:
        return ""
    keys = set(segment_keys(texts))
    unused = sum(entry.key not in keys for entry in fixes.entries)
    note = f"fixes: {len(fixes.entries) - unused} segments read or taken as {fixes.source} says"
    if unused:
        note += (
            f"; {unused} entries name a segment the book no longer has (its text changed) and are not used"
        )
    return note
