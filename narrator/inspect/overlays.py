"""The read-along EPUB read back as a reading system would: its overlays' clips in reading order,
the words each clip's text target holds, and EPUBCheck's verdict on the whole."""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import subprocess
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree

from lxml import etree

from narrator.core.errors import UserError
from narrator.text.readers.xhtml import parse_xhtml, unspoken

_NS = {
    "opf": "http://www.idpf.org/2007/opf",
    "container": "urn:oasis:names:tc:opendocument:xmlns:container",
    "smil": "http://www.w3.org/ns/SMIL",
}
#: A SMIL clock value: a timecount ("12.5s", "250ms", "3min", "1h") or a full or partial clock.
_TIMECOUNT = re.compile(r"(\d+(?:\.\d+)?)(h|min|s|ms)?")
_UNITS = {"h": 3600.0, "min": 60.0, "s": 1.0, "ms": 0.001, None: 1.0}
#: EPUBCheck's summary line (4.x and 5.x).
_SUMMARY = re.compile(r"Messages: (\d+) fatals? / (\d+) errors? / (\d+) warnings?")


def seconds(value: str) -> float:
    """A SMIL clock value in seconds."""
    value = value.strip()
    if ":" in value:
        total = 0.0
        for part in value.split(":"):
            total = total * 60 + float(part)
        return total
    match = _TIMECOUNT.fullmatch(value)
    if match is None:
        raise ValueError(f"not a SMIL clock value: {value!r}")
    return float(match[1]) * _UNITS[match[2]]


@dataclass(frozen=True)
class OverlayClip:
    #: The id of the element the clip highlights.
    target: str
    #: That element's words as a reader reads them (no page number or note marker), whitespace
    #: folded (a line break as a space); None when it is missing.
    words: str | None
    begin: float
    end: float


@dataclass(frozen=True)
class Overlay:
    """One spine document's media overlay."""

    document: str
    #: The SMIL document (its path in the zip).
    smil: str
    #: The audio its clips play (its path in the zip).
    audio: str
    #: The package's media:duration for this overlay, in seconds.
    duration: float
    clips: tuple[OverlayClip, ...]


@dataclass(frozen=True)
class Publication:
    overlays: tuple[Overlay, ...]
    #: The package's total media:duration, in seconds.
    duration: float


def folded(text: str) -> str:
    return " ".join(text.split())


def _read_text(element: etree._Element) -> Iterator[str]:
    """The element's text a reader reads: not a page number, a note marker or a note it holds."""
    if unspoken(element, drop_notes=True):
        return
    yield element.text or ""
    for child in element:
        if isinstance(child.tag, str):
            yield from _read_text(child)
        yield child.tail or ""


def _words_by_id(document: bytes) -> dict[str, str]:
    root = parse_xhtml(document)
    # Each piece of text on its own, so that the words on either side of a <br/> stay apart.
    return {
        element.get("id", ""): folded(" ".join(_read_text(element)))
        for element in root.iter()
        if isinstance(element.tag, str)
    }


def _resolve(base: str, href: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), unquote(href)))


def read_publication(path: str | Path) -> Publication:
    """The EPUB's overlays in spine order; UserError when it is not an EPUB with overlays."""
    try:
        with zipfile.ZipFile(path) as epub:
            container = ElementTree.fromstring(epub.read("META-INF/container.xml"))
            rootfile = container.find(".//container:rootfile", _NS)
            opf_path = rootfile.get("full-path", "") if rootfile is not None else ""
            opf = ElementTree.fromstring(epub.read(opf_path))
            items = {item.get("id"): item for item in opf.iterfind(".//opf:manifest/opf:item", _NS)}
            durations = {
                meta.get("refines", "").lstrip("#"): seconds(meta.text or "")
                for meta in opf.iterfind(".//opf:metadata/opf:meta[@property='media:duration']", _NS)
            }
            overlays = []
            for itemref in opf.iterfind(".//opf:spine/opf:itemref", _NS):
                item = items[itemref.get("idref")]
                overlay_id = item.get("media-overlay")
                if overlay_id is None:
                    continue
                document = _resolve(opf_path, item.get("href", ""))
                words = _words_by_id(epub.read(document))
                smil_path = _resolve(opf_path, items[overlay_id].get("href", ""))
                smil = ElementTree.fromstring(epub.read(smil_path))
                clips, audios = [], set()
                for par in smil.iterfind(".//smil:par", _NS):
                    text, audio = par.find("smil:text", _NS), par.find("smil:audio", _NS)
                    if text is None or audio is None:
                        raise UserError(f"{path}: {smil_path} has a <par> without its text or audio")
                    target_document, _, target = _resolve(smil_path, text.get("src", "")).partition("#")
                    found = words.get(target) if target_document == document else None
                    begin, end = seconds(audio.get("clipBegin", "0s")), seconds(audio.get("clipEnd", "0s"))
                    clips.append(OverlayClip(target, found, begin, end))
                    audios.add(_resolve(smil_path, audio.get("src", "")))
                if len(audios) != 1:
                    raise UserError(
                        f"{path}: {smil_path} plays {len(audios)} audio files, not its chapter's one"
                    )
                overlays.append(
                    Overlay(document, smil_path, audios.pop(), durations[overlay_id], tuple(clips))
                )
            return Publication(tuple(overlays), durations[""])
    except (zipfile.BadZipFile, KeyError, ValueError, ElementTree.ParseError, etree.XMLSyntaxError) as error:
        raise UserError(f"{path}: not a read-along EPUB ({type(error).__name__}: {error})") from None


def epubcheck_command() -> list[str] | None:
    """How to run EPUBCheck here, or None when it is not installed."""
    found = shutil.which("epubcheck")
    if found is None:
        return None
    jar = os.path.realpath(found)
    # Debian's /usr/bin/epubcheck is the jar itself, run through binfmt_misc, which a container
    # often lacks: run it with java instead.
    if jar.endswith(".jar"):
        java = shutil.which("java")
        return None if java is None else [java, "-jar", jar]
    return [found]


@dataclass(frozen=True)
class EpubcheckVerdict:
    fatals: int
    errors: int
    warnings: int
    #: Its ERROR, FATAL and WARNING lines.
    messages: tuple[str, ...]

    @property
    def clean(self) -> bool:
        return self.fatals == self.errors == self.warnings == 0

    def __str__(self) -> str:
        return f"{self.fatals} fatals / {self.errors} errors / {self.warnings} warnings"


def run_epubcheck(path: str | Path) -> EpubcheckVerdict | None:
    """EPUBCheck's counts and messages for the EPUB, or None when EPUBCheck is not installed."""
    command = epubcheck_command()
    if command is None:
        return None
    result = subprocess.run(
        [*command, os.fspath(path)], capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False
    )
    output = result.stdout + result.stderr
    summary = _SUMMARY.search(output)
    if summary is None:
        tail = " | ".join(output.strip().splitlines()[-3:])
        raise UserError(f"EPUBCheck gave no verdict on {path} (exit {result.returncode}): {tail}")
    messages = tuple(line for line in output.splitlines() if line.startswith(("FATAL", "ERROR", "WARNING")))
    fatals, errors, warnings = (int(count) for count in summary.groups())
    return EpubcheckVerdict(fatals, errors, warnings, messages)
