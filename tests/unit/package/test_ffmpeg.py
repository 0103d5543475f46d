"""Calling ffmpeg (narrator/package/ffmpeg.py): ffmetadata escaping that round-trips through ffmpeg
itself, and finding the binary.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hostile_book import BOOK_TITLE, HOSTILE, ffmpeg

from narrator.package.ffmpeg import (
    FfmpegError,
    MetaChapter,
    Metadata,
    escape,
    ffmetadata_args,
    find_ffmpeg,
    format_ffmetadata,
    parse_ffmetadata,
)


def test_ffmetadata_escaping_round_trips_through_ffmpeg(tmp_path: Path) -> None:
    hostile = [*HOSTILE, BOOK_TITLE, "=;#\\", " leading and trailing ", "tab\there", "line\r\nbreak", "end\\"]
    assert escape("a=b;c#d\\e\nf") == "a\\=b\\;c\\#d\\\\e\\\nf"
    metadata = Metadata(
        tags={f"key{i}": value for i, value in enumerate(hostile)},
        chapters=[MetaChapter(0, 10, {"title": hostile[0]}), MetaChapter(10, 20, {"title": "ends in \\"})],
    )
    text = format_ffmetadata(metadata)
    # Values ending in a backslash travel as arguments: ffmpeg's reader would misread them.
    extra = ffmetadata_args(metadata)
    ends = [f"key{i}={v}" for i, v in enumerate(hostile) if v.endswith("\\")]
    assert extra == [
        *(arg for tag in ends for arg in ("-metadata", tag)),
        "-metadata:c:1",
        "title=ends in \\",
    ]
    expected = {f"key{i}": value.replace("\r\n", "\n") for i, value in enumerate(hostile)}
    assert parse_ffmetadata(text)[0] == {k: v for k, v in expected.items() if not v.endswith("\\")}
    source = tmp_path / "in.txt"
    source.write_text(text, encoding="utf-8")
    args = [ffmpeg(), "-loglevel", "error", "-i", str(source), *extra, "-f", "ffmetadata", "-"]
    tags, chapters = parse_ffmetadata(subprocess.run(args, check=True, capture_output=True).stdout.decode())
    assert {key: tags[key] for key in expected} == expected
    assert [c["title"] for c in chapters] == [hostile[0], "ends in \\"]


def test_find_ffmpeg() -> None:
    assert Path(find_ffmpeg("auto")).is_file()
    assert find_ffmpeg(sys.executable) == sys.executable  # any path is taken as given
    with pytest.raises(FfmpegError, match="not an executable ffmpeg"):
        find_ffmpeg("/nonexistent/ffmpeg")
