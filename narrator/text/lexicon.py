"""A pronunciation lexicon: how to say the words an engine gets wrong, loaded from YAML.

A lexicon file (one per book, or a global one) is a YAML mapping from what the book says to
what the engine should say::

    # words: whole-word, case-sensitive by default
    Cheshire: CHESH-er                           # spoken replacement
    Alice: {say: Ah-lees, phonemes: "ˈælɪs"}     # phoneme form used by engines that take phonemes
    /\\bDr\\.?\\s+Who\\b/: Doctor Who               # a key between slashes is a regular expression
    Hermione: {say: her-MY-oh-nee, ignore_case: true}
    /(\\d+) ?mph/i: \\1 miles per hour

Keys:

* A plain key is a word or phrase, matched whole: "Alice" matches in "Alice's" but not in
  "Malice"; the boundary check applies only at an end of the key that is a letter, digit or
  underscore ("Dr." also matches before a space). A space in the key matches any run of
  whitespace. Keys are case-sensitive unless the entry sets ``ignore_case: true``.
* A key written ``/pattern/`` (optionally ``/pattern/i``, ignoring case) is a regular expression
  (Python's syntax, run by the ``regex`` module), searched as written; its ``say`` may use ``\\1``
  or ``\\g<name>`` for its groups. One search may take at most ``MATCH_SECONDS``: a pattern
  that backtracks without end, such as ``(a|a)+$`` on a long run of a's, is refused by name
  instead of hanging the plan.
* Keys are taken exactly as written: YAML does not turn ``yes``, ``No`` or ``1st`` into other
  values. A key may appear once.

Values: a string is what to say; a mapping has ``say`` (required), and optionally
``phonemes`` (IPA, as espeak-ng writes it, for engines that take phonemes) and ``ignore_case``.

``apply`` rewrites all entries in one left-to-right pass over the original text: at each
position the longest match wins (ties: a plain key before a regex, then the longer key, then
the key's text), and replaced text is never matched again, so "Dr. Who" -> "Doctor Who" is not
then rewritten by an entry for "Doctor". With ``phonemes=True``, an entry with phonemes becomes
Piper's inline phoneme block ``[[ ˈælɪs ]]``; otherwise, and for entries without phonemes, its
``say`` text.

``fingerprint()`` is a stable hash of the entries for provenance records. Segment ids do not
use it: they come from the spoken text itself, so editing one entry re-renders only the
segments whose text it changes.

Mistakes (a missing file, bad YAML, a file that is not a mapping, an invalid or runaway regular
expression, an entry without ``say``) raise ``narrator.core.errors.UserError`` with one line
naming the file and the key (or, for bad YAML, the line).
"""  # noqa: RUF002 - the IPA example is meant

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex
import yaml

from narrator.core.errors import UserError
from narrator.core.publish import require_file

__all__ = ["MATCH_SECONDS", "Entry", "Lexicon"]

#: The longest one search of one entry may take; a sane pattern takes microseconds on a paragraph.
MATCH_SECONDS = 1.0

_REGEX_KEY = re.compile(r"^/(?P<pattern>.+)/(?P<flags>i?)$", re.DOTALL)
_FIELDS = ("say", "phonemes", "ignore_case")
_TRUE, _FALSE = {"true", "yes", "on"}, {"false", "no", "off"}
# \1 .. \99 or \g<name> / \g<1> in a regex entry's replacement.
_GROUP_REFERENCE = re.compile(r"\\(?:(\d{1,2})|g<(\w+)>)")


class _EntryProblem(Exception):
    def __init__(self, key: str, problem: str) -> None:
        super().__init__(problem)
        self.key = key
        self.problem = problem


@dataclass(frozen=True)
class Entry:
    """One lexicon entry: what to find (``key``, as written) and what to say instead."""

    key: str
    say: str
    phonemes: str | None
    ignore_case: bool
    is_regex: bool
    pattern: regex.Pattern[str]

    def replacement(self, match: regex.Match[str], *, phonemes: bool) -> str:
        if phonemes and self.phonemes:
            return f"[[ {self.phonemes} ]]"
        if not self.is_regex:
            return self.say
        return _GROUP_REFERENCE.sub(lambda ref: match.group(_group(ref)) or "", self.say)

    def canonical(self) -> list[Any]:
        return [self.key, self.say, self.phonemes, self.ignore_case]


def _group(reference: re.Match[str]) -> int | str:
    number, name = reference.groups()
    if number is not None:
        return int(number)
    return int(name) if name.isdigit() else name


def _priority(entry: Entry) -> tuple[bool, int, str]:
    return (entry.is_regex, -len(entry.key), entry.key)


def _flag(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise _EntryProblem(key, f"ignore_case must be true or false, not {value!r}")


def _entry(key: Any, value: Any) -> Entry:
    if not isinstance(key, str) or not key.strip():
        raise _EntryProblem(str(key), "a key must be a non-empty word, phrase or /regular expression/")
    phonemes: str | None = None
    ignore_case = False
    if isinstance(value, Mapping):
        unknown = [str(field) for field in value if field not in _FIELDS]
        if unknown:
            raise _EntryProblem(key, f"unknown field {unknown[0]!r} (fields: {', '.join(_FIELDS)})")
        say = value.get("say")
        phonemes = value.get("phonemes")
        if "ignore_case" in value:
            ignore_case = _flag(key, value["ignore_case"])
    elif value is None or isinstance(value, str):
        say = value
    else:
        raise _EntryProblem(key, "the value must be what to say, or a mapping with 'say'")
    if not isinstance(say, str) or not say.strip():
        raise _EntryProblem(key, "missing 'say': what to say instead")
    if phonemes is not None:
        if not isinstance(phonemes, str) or not phonemes.strip():
            raise _EntryProblem(key, "'phonemes' must be non-empty text")
        if "[[" in phonemes or "]]" in phonemes:
            raise _EntryProblem(key, "'phonemes' must not contain [[ or ]]")
        phonemes = phonemes.strip()

    slashed = _REGEX_KEY.match(key)
    if slashed:
        flags = regex.IGNORECASE if (ignore_case or slashed["flags"]) else 0
        try:
            pattern = regex.compile(slashed["pattern"], flags)
        except regex.error as error:
            raise _EntryProblem(key, f"invalid regular expression: {error}") from None
        if pattern.fullmatch(""):
            raise _EntryProblem(key, "the regular expression matches empty text")
        for reference in _GROUP_REFERENCE.finditer(say):
            group = _group(reference)
            known = group <= pattern.groups if isinstance(group, int) else group in pattern.groupindex
            if not known:
                raise _EntryProblem(
                    key, f"'say' refers to group {reference.group()}, which the expression lacks"
                )
        return Entry(key, say, phonemes, bool(flags), True, pattern)

    words = r"\s+".join(re.escape(word) for word in key.split())
    before = r"(?<!\w)" if re.match(r"\w", key.strip()) else ""
    after = r"(?!\w)" if re.search(r"\w$", key.strip()) else ""
    pattern = regex.compile(before + words + after, regex.IGNORECASE if ignore_case else 0)
    return Entry(key, say, phonemes, ignore_case, False, pattern)


# --- YAML: keys exactly as written ----------------------------------------------------------------


class _Loader(yaml.SafeLoader):
    """A safe loader whose mapping keys and scalar values stay the text the user wrote."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> dict[str, Any]:
    loader.flatten_mapping(node)
    result: dict[str, Any] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise _EntryProblem(
                f"line {key_node.start_mark.line + 1}", "a key must be a word, not a list or mapping"
            )
        key = key_node.value
        if key in result:
            raise _EntryProblem(key, f"appears twice (again on line {key_node.start_mark.line + 1})")
        if isinstance(value_node, yaml.ScalarNode):
            result[key] = None if value_node.tag == "tag:yaml.org,2002:null" else value_node.value
        else:
            result[key] = loader.construct_object(value_node, deep=True)
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _one_line(text: object) -> str:
    """``text`` (a message or an exception) on one line, each run of whitespace as one space."""
    return " ".join(str(text).split())


class Lexicon:
    """Entries to apply to segment text before it is spoken; see the module docstring."""

    def __init__(self, entries: tuple[Entry, ...] = (), source: str = "<mapping>") -> None:
        self.entries = tuple(sorted(entries, key=_priority))
        self.source = source

    # --- building ------------------------------------------------------------------------------

    @classmethod
    def from_mapping(cls, mapping: Mapping[Any, Any], source: str = "<mapping>") -> Lexicon:
        if not isinstance(mapping, Mapping):
            kind = type(mapping).__name__
            raise UserError(f"{source}: a lexicon must be a mapping of words to what to say, not a {kind}")
        entries = []
        for key, value in mapping.items():
            try:
                entries.append(_entry(key, value))
            except _EntryProblem as problem:
                raise UserError(f"{source}: entry {problem.key!r}: {_one_line(problem.problem)}") from None
        return cls(tuple(entries), source)

    @classmethod
    def load(cls, path: str | Path | None) -> Lexicon:
        """The lexicon in the YAML file at ``path``; an empty one for None or an empty file."""
        if path is None:
            return cls(source="<none>")
        source = str(path)
        require_file(Path(path), "lexicon file")
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise UserError(f"{source}: cannot read the lexicon: {_one_line(error)}") from None
        try:
            data = yaml.load(text, Loader=_Loader)  # a SafeLoader subclass
        except _EntryProblem as problem:
            raise UserError(f"{source}: entry {problem.key!r}: {_one_line(problem.problem)}") from None
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f" (line {mark.line + 1})" if mark is not None else ""
            reason = getattr(error, "problem", None) or str(error)
            raise UserError(f"{source}: not valid YAML{where}: {_one_line(reason)}") from None
        if data is None:
            return cls(source=source)
        return cls.from_mapping(data, source)

    # --- using ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return f"Lexicon({self.source!r}, {len(self.entries)} entries)"

    def _search(self, entry: Entry, text: str, start: int) -> regex.Match[str] | None:
        try:
            return entry.pattern.search(text, start, timeout=MATCH_SECONDS)
        except TimeoutError:
            raise UserError(
                f"{self.source}: entry {entry.key!r}: the regular expression ran over {MATCH_SECONDS:g} s "
                "on one text, backtracking without end (as nested repeats like (a|a)+ do); simplify it"
            ) from None

    def _matches(self, text: str) -> Iterator[tuple[Entry, regex.Match[str]]]:
        """The (entry, match) pairs ``apply`` replaces, left to right, never overlapping."""
        following = [self._search(entry, text, 0) for entry in self.entries]
        while True:
            starts = [m.start() for m in following if m is not None]
            if not starts:
                return
            start = min(starts)
            best: tuple[Entry, regex.Match[str]] | None = None
            for entry, m in zip(self.entries, following, strict=True):
                # Entries are in priority order, so on equal length the first one stays.
                longer = m is not None and m.end() > (best[1].end() if best else start)
                if m is not None and m.start() == start and longer:
                    best = (entry, m)
            resume = start + 1
            if best is not None:
                yield best
                resume = best[1].end()
            for index, m in enumerate(following):
                if m is not None and m.start() < resume:
                    following[index] = self._search(self.entries[index], text, resume)

    def apply(self, text: str, *, phonemes: bool) -> str:
        """``text`` with every entry's matches replaced, in one pass."""
        if not self.entries:
            return text
        pieces = []
        done = 0
        for entry, m in self._matches(text):
            pieces += [text[done : m.start()], entry.replacement(m, phonemes=phonemes)]
            done = m.end()
        pieces.append(text[done:])
        return "".join(pieces)

    def finds(self, text: str) -> bool:
        """Whether any entry matches in ``text``: one search per entry, cheaper than ``apply``."""
        return any(self._search(entry, text, 0) is not None for entry in self.entries)

    def entries_matching(self, text: str) -> list[str]:
        """Keys (as written) of the entries ``apply`` would use on ``text``, in order of first use."""
        return list(dict.fromkeys(entry.key for entry, _ in self._matches(text)))

    def fingerprint(self) -> str:
        """A stable SHA-256 of the entries, independent of their order in the file."""
        canonical = json.dumps(
            [entry.canonical() for entry in self.entries], ensure_ascii=False, separators=(",", ":")
        )
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
