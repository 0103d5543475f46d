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


def clean_text(text: str) -> str:
    """Normalise line ends, drop invisible and control characters, keep everything speakable."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _INVISIBLE.sub("", text)
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
