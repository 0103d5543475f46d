"""Chapter files (narrator/package/chapters.py): cut at the timeline, tagged, and safely named."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hostile_book import AUTHORS, BOOK_TITLE, HOSTILE, PAUSES, RATE, decode, ffmpeg

from narrator.core.catalog import read_catalog
from narrator.core.publish import FOLDER_LISTING, folder_is_whole
from narrator.core.timeline import build_timeline
from narrator.package.chapters import (
    CHAPTERS_DIR,
    chapter_filenames,
    package_chapters,
    repackage_if_cut,
    safe_filename,
)
from narrator.package.ffmpeg import parse_ffmetadata, read_back
from narrator.package.metadata import PackageSettings


def stream_tags(path: Path) -> dict[str, str]:
    """The first audio stream's tags (where Ogg keeps them), as ffmetadata."""
    args = [ffmpeg(), "-hide_banner", "-loglevel", "error", "-i", str(path), "-map_metadata", "0:s:a:0"]
    result = subprocess.run([*args, "-f", "ffmetadata", "-"], check=True, capture_output=True)
    return parse_ffmetadata(result.stdout.decode("utf-8"))[0]


@pytest.mark.parametrize(("kind", "frame"), [("opus", 960), ("mp3", 1152)])
def test_chapter_files_are_cut_at_the_timeline_and_tagged(assembled, kind: str, frame: int) -> None:
    catalog, book_json, master = assembled
    out = master.parent / "chapters"
    (out / "stale.txt").parent.mkdir()
    (out / "stale.txt").write_text("an older run")
    package_chapters(
        master, catalog, book_json, out, PAUSES, PackageSettings(chapter_format=kind, year="2000")
    )
    timeline = build_timeline(read_catalog(catalog), PAUSES)
    names = chapter_filenames([c.title for c in timeline.chapters], kind)
    assert sorted(p.name for p in out.iterdir()) == sorted([*names, FOLDER_LISTING])
    rate = 48000 if kind == "opus" else RATE
    master_pcm = sf.read(master, dtype="float64")[0]
    for chapter, name in zip(timeline.chapters, names, strict=True):
        path = out / name
        tags = stream_tags(path) if kind == "opus" else parse_ffmetadata(read_back(ffmpeg(), path))[0]
        assert tags["title"] == chapter.title
        assert tags["album"] == BOOK_TITLE and tags["artist"] == ", ".join(AUTHORS)
        if kind == "mp3":
            assert tags["track"] == f"{chapter.number}/3"
        else:
            assert (tags["track"], tags["TRACKTOTAL"]) == (str(chapter.number), "3")
        decoded = decode(path, rate)
        expected = (chapter.end - chapter.start) * rate / RATE
        assert abs(len(decoded) - expected) <= frame
        if kind == "mp3":  # same rate: the cut itself can be checked against the master
            offset = chapter.speech - chapter.start + 2000  # inside the first segment's sound
            piece = master_pcm[chapter.start + offset : chapter.start + offset + 3000]
            # Lags within a third of a pitch period, so the periodic test voice cannot alias.
            window = decoded[offset - 40 : offset + 3040]
            lag = int(np.argmax(np.correlate(window, piece, mode="valid"))) - 40
            assert abs(lag) <= 2
    assert not [p for p in master.parent.iterdir() if ".tmp-" in p.name]


def test_safe_chapter_file_names() -> None:
    names = chapter_filenames([*HOSTILE, "../../etc/passwd", "  ...  ", "CON: a*b?c|d<e>f"], "opus")
    assert names[0] == "01 - He said Stop = go; #1 back.opus"
    assert names[1] == "02 - Zweites Kapitel Über; die = Brücke #2 und weiter.opus"
    assert names[3] == "04 - etc passwd.opus"
    assert names[4] == "05 - Chapter 5.opus"
    assert names[5] == "06 - CON a b c d e f.opus"
    assert all("/" not in name and "\n" not in name for name in names)
    assert chapter_filenames(["x"] * 100, "mp3")[99] == "100 - x.mp3"
    assert len(safe_filename("ü" * 500, "x").encode()) <= 120


def test_a_chapter_folder_cut_short_by_a_kill_is_packaged_again(assembled) -> None:
    # Snakemake empties a directory output before its job runs; a SIGKILL then left 3 of 5 chapter
    # files, in a folder newer than the master that every later run called up to date.
    catalog, book_json, master = assembled
    out = master.parent / CHAPTERS_DIR
    package_chapters(master, catalog, book_json, out, PAUSES, PackageSettings(chapter_format="opus"))
    assert folder_is_whole(out)
    assert repackage_if_cut(master.parent, lambda: False) is None
    next(p for p in out.iterdir() if p.suffix == ".opus").unlink()
    assert not folder_is_whole(out)
    assert "a real run packages" in (repackage_if_cut(master.parent, lambda: True) or "") and out.exists()
    assert "packaging the chapter files again" in (repackage_if_cut(master.parent, lambda: False) or "")
    assert not out.exists()
