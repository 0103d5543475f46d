"""Kindle books (.mobi, .azw3, .azw): converted to EPUB by calibre's ebook-convert, then read as EPUB.

The file's MOBI header is checked first, so a DRM-protected book is refused in one line without
calibre. calibre runs with an argument list (no shell sees the path), on the file's absolute path
(a name starting with "-" would read as an option), into a temporary folder, under a time limit.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

from narrator.core.book import Book
from narrator.core.errors import BookError
from narrator.text.readers.epub import read_epub

#: Longest a conversion may take; calibre converts a novel in seconds.
CONVERT_SECONDS = 600
_INSTALL = (
    "reading Kindle books needs calibre's ebook-convert on the PATH: install calibre "
    "(apt install calibre, brew install --cask calibre, or https://calibre-ebook.com/download)"
)
# A DRM-protected KFX book (Kindle's newest format) starts so.
_KFX_DRM = b"\xeaDRMION\xee"
_PALM_TYPES = {b"BOOKMOBI", b"TEXtREAd"}


def _check_header(path: Path) -> None:
    """Refuse a file that is not a MOBI/AZW3 book, or whose text is encrypted (DRM)."""
    with path.open("rb") as stream:
        head = stream.read(96)
        if head.startswith(_KFX_DRM):
            raise BookError(f"{path}: the Kindle book is DRM-protected (KFX); narrator cannot read it")
        if len(head) < 86 or head[60:68] not in _PALM_TYPES:
            raise BookError(f"{path}: not a Kindle book: no MOBI header (a KFX or damaged file?)")
        (record0,) = struct.unpack(">I", head[78:82])
        stream.seek(record0 + 12)
        encryption = stream.read(2)
    if len(encryption) < 2:
        raise BookError(f"{path}: the Kindle book is damaged: its first record is missing")
    if struct.unpack(">H", encryption)[0] != 0:
        raise BookError(f"{path}: the Kindle book is DRM-protected; narrator cannot read it")


def read_kindle(path: Path, notes: str = "drop") -> Book:
    _check_header(path)
    converter = shutil.which("ebook-convert")
    if converter is None:
        raise BookError(f"{path}: {_INSTALL}")
    with tempfile.TemporaryDirectory(prefix="narrator-kindle-") as folder:
        epub = Path(folder) / "book.epub"
        # calibre's GUI libraries must not look for a display.
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
        try:
            done = subprocess.run(
                [converter, str(path.resolve()), str(epub)],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=CONVERT_SECONDS,
                env=env,
                check=False,
                cwd=folder,
            )
        except subprocess.TimeoutExpired:
            raise BookError(
                f"{path}: calibre's ebook-convert took over {CONVERT_SECONDS} s; refusing the Kindle book"
            ) from None
        if done.returncode != 0 or not epub.is_file():
            output = f"{done.stdout}\n{done.stderr}"
            if "DRM" in output:
                raise BookError(f"{path}: the Kindle book is DRM-protected; narrator cannot read it")
            last = next((line.strip() for line in reversed(output.splitlines()) if line.strip()), "")
            raise BookError(f"{path}: calibre's ebook-convert could not convert the Kindle book ({last})")
        try:
            book = read_epub(epub, notes)
        except BookError as error:  # named after the user's file, not the temporary EPUB
            raise BookError(str(error).replace(str(epub), str(path))) from None
    note = f"{path.name}: converted to EPUB by calibre's ebook-convert"
    return replace(book, notes=(note, *book.notes))
