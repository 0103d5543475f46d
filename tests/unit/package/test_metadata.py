"""The book's tags and cover (narrator/package/metadata.py) as the M4B carries them: the config's
cover, no cover, and no date invented.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hostile_book import PAUSES, ffmpeg, probe

from narrator.package.ffmpeg import parse_ffmetadata, read_back
from narrator.package.m4b import package_m4b
from narrator.package.metadata import PackageSettings


def test_m4b_with_config_cover_and_no_cover(assembled, tmp_path: Path) -> None:
    catalog, book_json, master = assembled
    data = json.loads(book_json.read_text())
    book_json.write_text(json.dumps({**data, "cover": None}))
    m4b = master.with_suffix(".m4b")
    package_m4b(master, catalog, book_json, m4b, PAUSES, PackageSettings())
    assert "(attached pic)" not in probe(m4b)
    tags = parse_ffmetadata(read_back(ffmpeg(), m4b))[0]
    assert "date" not in tags  # the book has no date, and none is invented
    cover = tmp_path / "other cover.jpg"
    subprocess.run(
        [
            ffmpeg(),
            "-loglevel",
            "error",
            "-f",
            "lavfi",
            "-i",
            "color=c=blue:s=16x16",
            "-frames:v",
            "1",
            str(cover),
        ],
        check=True,
    )
    package_m4b(master, catalog, book_json, m4b, PAUSES, PackageSettings(cover=str(cover)))
    assert "mjpeg" in probe(m4b) and "(attached pic)" in probe(m4b)
