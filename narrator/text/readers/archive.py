"""A zip archive from an untrusted book (EPUB, DOCX, zipped FB2), every size checked.

Sizes are capped by the zip headers before anything is decompressed, and again while reading, so
a zip bomb or lying headers end in one BookError line naming the file.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

from lxml import etree

from narrator.core.errors import BookError, first_line
from narrator.text.readers.xhtml import parse_xhtml

MiB = 1024 * 1024
#: Most bytes the archive may hold once decompressed, by its headers and as actually read.
MAX_TOTAL_BYTES = 512 * MiB
#: Most bytes one member may hold once decompressed.
MAX_MEMBER_BYTES = 128 * MiB
#: A member bigger than MAX_RATIO_MIN_BYTES that compresses better than this is a zip bomb.
MAX_RATIO = 200
MAX_RATIO_MIN_BYTES = MiB
MAX_MEMBERS = 20_000


class Archive:
    """A zip opened with every size checked before and while reading; ``kind`` names it in errors."""

    def __init__(self, path: Path, kind: str) -> None:
        self.path = path
        self.kind = kind
        self.read_total = 0
        a_kind = f"{'an' if kind[:1] in 'AEFIOU' else 'a'} {kind}"
        try:
            self.zip = zipfile.ZipFile(path)
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError) as error:
            raise BookError(
                f"{path}: not {a_kind}: the file is not a readable zip archive ({first_line(error)})"
            ) from None
        if len(infos) > MAX_MEMBERS:
            raise BookError(f"{path}: the {kind} has {len(infos)} files, more than a book needs; refusing it")
        total = 0
        for info in infos:
            total += info.file_size
            if info.file_size > MAX_MEMBER_BYTES or total > MAX_TOTAL_BYTES:
                raise BookError(
                    f"{path}: the {kind} decompresses to too much data (a zip bomb?); refusing it"
                )
            ratio = info.file_size / max(info.compress_size, 1)
            if info.file_size > MAX_RATIO_MIN_BYTES and ratio > MAX_RATIO:
                raise BookError(
                    f"{path}: {info.filename} compresses {ratio:.0f} to 1 (a zip bomb?); refusing the {kind}"
                )
        self.names = {info.filename for info in infos}
        self.lower = {name.lower(): name for name in self.names}

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.zip.close()

    def find(self, name: str) -> str | None:
        """The member's real name (matching case-insensitively if need be), or None."""
        if name in self.names:
            return name
        return self.lower.get(name.lower())

    def read(self, name: str) -> bytes:
        """A member's bytes, reading no more than the caps allow whatever its header says."""
        limit = min(MAX_MEMBER_BYTES, MAX_TOTAL_BYTES - self.read_total)
        chunks, size = [], 0
        try:
            with self.zip.open(name) as stream:
                while chunk := stream.read(min(MiB, limit + 1 - size)):
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > limit:
                        raise BookError(
                            f"{self.path}: {name} decompresses to too much data (a zip bomb?); "
                            f"refusing the {self.kind}"
                        )
        except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, NotImplementedError, OSError) as error:
            raise BookError(
                f"{self.path}: {name} is damaged in the {self.kind} ({first_line(error)})"
            ) from None
        except RuntimeError as error:  # a password-protected member
            raise BookError(
                f"{self.path}: {name} is encrypted; narrator cannot read it ({first_line(error)})"
            ) from None
        self.read_total += size
        return b"".join(chunks)

    def xml(self, name: str) -> etree._Element:
        """A member parsed as XML without DTDs, entities or network."""
        try:
            return parse_xhtml(self.read(name))
        except etree.XMLSyntaxError as error:
            raise BookError(f"{self.path}: {name} is not well-formed XML ({first_line(error)})") from None
