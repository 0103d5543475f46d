"""ffmpeg: finding the binary, writing ffmetadata files, and running it (argument lists only, no shell).

A system ``ffmpeg`` on PATH is preferred; otherwise the binary of the ``imageio-ffmpeg`` wheel is
used, so a fresh machine needs nothing but pip.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import IO

from narrator.core.audio import master_blocks, pcm_bytes
from narrator.core.errors import UserError

AUTO = "auto"


class FfmpegError(UserError):
    """ffmpeg is missing or failed; the message carries the end of its output."""


def find_ffmpeg(setting: str = AUTO) -> str:
    """The ffmpeg to run: ``setting`` if it is a path or command, else PATH's, else imageio-ffmpeg's."""
    if setting and setting != AUTO:
        found = shutil.which(setting)
        if found is None:
            raise FfmpegError(f"config ffmpeg: {setting!r} is not an executable ffmpeg")
        return found
    found = shutil.which("ffmpeg")
    if found is not None:
        return found
    try:
        import imageio_ffmpeg
    except ImportError:
        raise FfmpegError("no ffmpeg: install ffmpeg, or pip install imageio-ffmpeg") from None
    try:
        return imageio_ffmpeg.get_ffmpeg_exe()
    except RuntimeError as error:
        raise FfmpegError(f"no ffmpeg: {error}") from None


def run_ffmpeg(
    ffmpeg: str,
    args: Sequence[str | os.PathLike[str]],
    feed: Callable[[IO[bytes]], None] | None = None,
) -> None:
    """Run ffmpeg with an argument list (never a shell) and wait for it.

    ``feed``, if given, writes ffmpeg's standard input (e.g. raw PCM for ``-i pipe:0``). ffmpeg's
    messages go to a temp file, never a pipe that could fill up and block it; if it fails, the end
    of them is in the FfmpegError.
    """
    arguments = [os.fspath(arg) for arg in args]
    command = [ffmpeg, "-hide_banner", "-nostats", "-loglevel", "error", "-y", *arguments]
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL if feed is None else subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        try:
            if feed is not None and process.stdin is not None:
                try:
                    feed(process.stdin)
                except BrokenPipeError:
                    pass  # ffmpeg stopped reading: its exit status and messages say why
                finally:
                    with contextlib.suppress(BrokenPipeError):
                        process.stdin.close()
        finally:
            code = process.wait()
        if code != 0:
            log.seek(0)
            messages = log.read().decode("utf-8", errors="replace").strip().splitlines()
            tail = " | ".join(messages[-5:]) or "no message"
            raise FfmpegError(f"ffmpeg failed (exit {code}): {tail}")


def read_back(ffmpeg: str, path: str | os.PathLike[str]) -> str:
    """The file's global metadata and chapters as ffmetadata text (``ffmpeg -i path -f ffmetadata -``)."""
    result = subprocess.run(
        [ffmpeg, "-hide_banner", "-loglevel", "error", "-i", os.fspath(path), "-f", "ffmetadata", "-"],
        check=False,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    if result.returncode != 0:
        raise FfmpegError(f"ffmpeg could not read {path}: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout.decode("utf-8")


# --- ffmetadata ---------------------------------------------------------------------------------
#
# ffmpeg's ffmetadata format (doc/metadata): the file starts with ";FFMETADATA1"; each line is
# key=value; "=", ";", "#", "\" and newlines in keys and values are escaped with a backslash (a
# newline as a backslash followed by the newline itself). Chapters are [CHAPTER] sections with
# TIMEBASE, START and END (integers in that timebase) and their own key=value lines.
#
# Two quirks of ffmpeg's reader shape what goes in the file:
# * a carriage return ends a line even when escaped, so CR and CRLF become LF in every value;
# * it decides where a line ends by looking only at the previous character, so a value ending in
#   an (escaped) backslash would swallow the line after it. Such values are left out of the file
#   and given as -metadata / -metadata:c:N arguments instead (argument lists, never a shell).

_SPECIAL = "=;#\\\n"
HEADER = ";FFMETADATA1"


def clean(text: str) -> str:
    """A value as it will be stored: carriage returns become newlines."""
    return str(text).replace("\r\n", "\n").replace("\r", "\n")


def escape(text: str) -> str:
    """Escape a key or value for an ffmetadata file."""
    return "".join("\\" + char if char in _SPECIAL else char for char in clean(text))


def _in_file(value: str) -> bool:
    return not clean(value).endswith("\\")


@dataclass(frozen=True)
class MetaChapter:
    start: int
    end: int
    tags: Mapping[str, str]


@dataclass(frozen=True)
class Metadata:
    """Global tags and chapters (times in units of ``timebase`` seconds)."""

    tags: Mapping[str, str] = field(default_factory=dict)
    chapters: Sequence[MetaChapter] = ()
    timebase: Fraction = Fraction(1, 1000)


def _present(tags: Mapping[str, str]) -> Iterable[tuple[str, str]]:
    # An empty value would be dropped by ffmpeg anyway.
    return ((key, clean(value)) for key, value in tags.items() if value is not None and str(value) != "")


def _lines(tags: Mapping[str, str]) -> Iterable[str]:
    return (f"{escape(key)}={escape(value)}" for key, value in _present(tags) if _in_file(value))


def format_ffmetadata(metadata: Metadata) -> str:
    """The ffmetadata file (without the values that ``ffmetadata_args`` carries)."""
    lines = [HEADER, *_lines(metadata.tags)]
    for chapter in metadata.chapters:
        lines += [
            "[CHAPTER]",
            f"TIMEBASE={metadata.timebase.numerator}/{metadata.timebase.denominator}",
            f"START={chapter.start}",
            f"END={chapter.end}",
            *_lines(chapter.tags),
        ]
    return "\n".join(lines) + "\n"


def ffmetadata_args(metadata: Metadata) -> list[str]:
    """Output options for the values an ffmetadata file cannot carry (see above)."""
    args = []
    for key, value in _present(metadata.tags):
        if not _in_file(value):
            args += ["-metadata", f"{key}={value}"]
    for index, chapter in enumerate(metadata.chapters):
        for key, value in _present(chapter.tags):
            if not _in_file(value):
                args += [f"-metadata:c:{index}", f"{key}={value}"]
    return args


def write_ffmetadata(path: Path, metadata: Metadata) -> Path:
    path.write_text(format_ffmetadata(metadata), encoding="utf-8")
    return path


def parse_ffmetadata(text: str) -> tuple[dict[str, str], list[dict[str, str]]]:
    """Global tags and one dict per chapter (with TIMEBASE, START, END) from ffmetadata text."""
    logical: list[str] = []
    current: list[str] = []
    escaped = False
    for char in text:
        if escaped:
            current.append("\\" + char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "\n":
            logical.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        logical.append("".join(current))

    def split(line: str) -> tuple[str, str]:
        parts: list[str] = []
        buffer: list[str] = []
        index = 0
        while index < len(line):
            if line[index] == "\\" and index + 1 < len(line):
                buffer.append(line[index + 1])
                index += 2
                continue
            if line[index] == "=" and not parts:
                parts.append("".join(buffer))
                buffer = []
            else:
                buffer.append(line[index])
            index += 1
        return (parts[0], "".join(buffer)) if parts else ("".join(buffer), "")

    tags: dict[str, str] = {}
    chapters: list[dict[str, str]] = []
    section: dict[str, str] = tags
    for line in logical:
        if not line or line.startswith((";", "#")):
            continue
        if line == "[CHAPTER]":
            section = {}
            chapters.append(section)
            continue
        if line.startswith("[") and line.endswith("]"):
            section = {}  # a [STREAM] section: not needed here
            continue
        key, value = split(line)
        section[key] = value
    return tags, chapters


def pcm_input(rate: int) -> list[str]:
    """ffmpeg's input options for what ``feed_master`` writes: mono 16-bit PCM at the master's rate."""
    return ["-f", "s16le", "-ar", str(rate), "-ac", "1"]


def feed_master(stdin: IO[bytes], *, master: Path, start: int, end: int) -> None:
    """Stream samples [start, end) of the master into ffmpeg's stdin as raw 16-bit PCM."""
    for block in master_blocks(master, start, end):
        stdin.write(pcm_bytes(block))
