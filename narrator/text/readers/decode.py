"""Bytes to clean text: encoding detection, and removal of what no engine should see."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import chardet

from narrator.core.errors import BookError

# Format controls and zero-width characters are invisible and only confuse engines.
_INVISIBLE = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\u00ad]")

# A line or paragraph of nothing but asterisks, dashes, dots and the like is a scene break.
SCENE_BREAK = re.compile(r"^[\s*#~\-_=.•·⁂✻✽✶❦]+$")


# A banner typed letter-spaced ("Ü d v ö z ö l j ü k   a   V I M - o k t a t ó b a n"): letters
# one space apart, four or more (fewer may be words of one letter: Czech "a v s"), words two
# spaces apart or more.
_SPACED_RUN = re.compile(r"(?<!\S)[^\W\d_](?: (?:[^\W\d_]|-)){3,}(?!\S)")
_WORD_GAP = re.compile(r" {2,}")


def _unspaced(line: str) -> str:
    """The line with its letter-spaced words joined, when it is set letter-spaced."""
    if not _SPACED_RUN.search(line):
        return line
    indent = line[: len(line) - len(line.lstrip())]
    groups = _WORD_GAP.split(line.strip())
    if len(groups) == 1 and not _SPACED_RUN.fullmatch(groups[0]):
        return line  # single spaces between words: prose with a run of one-letter words in it
    return indent + " ".join(g.replace(" ", "") if _SPACED_RUN.fullmatch(g) else g for g in groups)


# A template's tag or placeholder on a line of its own: Liquid's "{% capture colOne %}" and
# "{{ colOne | markdownify }}" (Jekyll), Hugo's "{{< figure … >}}", "<<Blank lines inserted here by
# startup of help-with-tutorial>>". What renders the file fills them in; they are never text.
TEMPLATE_LINE = re.compile(r"^[ \t]*(\{%-?.*?-?%\}|\{\{.*?\}\}|<<[^<>\n]+>>)[ \t]*$", re.MULTILINE)


def clean_text(text: str) -> str:
    """Normalise line ends, drop invisible and control characters, join letter-spaced words; keep
    everything speakable."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _INVISIBLE.sub("", text)
    text = "\n".join(_unspaced(line) for line in text.split("\n"))
    return "".join(c for c in text if c in "\n\t" or unicodedata.category(c) != "Cc")


def squash(text: str) -> str:
    """Collapse runs of whitespace to one space."""
    return re.sub(r"\s+", " ", text).strip()


def decode_text(path: Path, data: bytes) -> tuple[str, str]:
    """Decode a text file, detecting its encoding when it is not UTF-8; returns (text, encoding)."""
    if b"\x00" in data[:65536] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise BookError(f"{path}: looks like a binary file, not a text book")
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    # chardet, unlike charset-normalizer, weighs English letter statistics: cp1252 English was
    # read as cp1250 by charset-normalizer 3.5 (measured), turning "crème" into "crčme".
    encoding = chardet.detect(data)["encoding"]
    if encoding is None:
        raise BookError(f"{path}: cannot tell the text encoding; save it as UTF-8 and run again")
    try:
        return data.decode(encoding), encoding.lower()
    except (UnicodeDecodeError, LookupError):
        raise BookError(f"{path}: cannot decode the text as {encoding}; save it as UTF-8") from None
