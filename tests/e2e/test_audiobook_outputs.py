"""Every output of a real run, on a small book with hostile chapter titles rendered with espeak: the
M4B, chapter files, subtitles, read-along EPUB and ACX MP3s agree with the catalog and the config,
narrator check passes them and fails a broken one, changed settings re-assemble without rendering,
and a SIGKILL during assembly or packaging is survived.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np
import pyloudnorm
import pytest
import soundfile as sf
import yaml
from conftest import Workdir, kill_group
from hostile_book import RATE, check_m4b, check_overlays, decode, ffmpeg, png
from mutagen.id3 import ID3
from mutagen.mp3 import MP3, BitrateMode

from narrator.assemble.loudness import LoudnessMeter
from narrator.core.catalog import read_catalog
from narrator.core.timeline import build_timeline
from narrator.inspect import check as check_module
from narrator.inspect.check import check_book, check_epub, check_master, decoded_blocks, format_results
from narrator.inspect.overlays import run_epubcheck
from narrator.package import acx
from narrator.package.chapters import chapter_filenames
from narrator.package.ffmpeg import find_ffmpeg, run_ffmpeg
from narrator.package.subtitles import timestamp

pytestmark = pytest.mark.slow

BOOK = """# The "Quoted" = Book; #1

## First: "Quotes" = signs; #hash

The lamp was lit at six. Nobody saw it.

## Zweites Kapitel — Über die Brücke

The fog came in. It stayed all night.

## Third; and last = end

Morning came.
"""


def configure(work: Workdir, **changes) -> dict:
    path = work.path / "config.yaml"
    config = yaml.safe_load(path.read_text())
    for key, value in changes.items():
        if isinstance(value, dict):
            config[key].update(value)
        else:
            config[key] = value
    path.write_text(yaml.safe_dump(config, allow_unicode=True))
    return config


def check_workflow_outputs(work: Workdir, config: dict) -> None:
    """Every configured output is complete and agrees with the catalog and the config."""
    results = work.results("book")
    rows = read_catalog(results / "catalog.tsv")
    timeline = build_timeline(rows, config["pauses"])
    master = sf.read(results / "book.wav", dtype="float64")[0]
    assert len(master) == timeline.frames
    report = json.loads((results / "loudness.json").read_text())
    target = config["loudness"]["target"]
    assert report["target_lufs"] == target
    # The configs below pick targets that espeak's peaks allow, so the limiter has nothing to do.
    assert report["limiter"]["limited_share"] == 0, report
    assert abs(pyloudnorm.Meter(RATE).integrated_loudness(master) - target) < 0.5
    assert report["after"]["true_peak_dbtp"] <= config["loudness"]["true_peak"] + 0.05
    titles = [row.chapter_title for row in rows]
    assert any('"' in t for t in titles) and any("=" in t and ";" in t and "#" in t for t in titles)
    book = json.loads((results / "book.json").read_text())
    if "m4b" in config["outputs"]:
        samples = check_m4b(
            results / "book.m4b",
            rows,
            timeline,
            title=book["title"],
            authors=book["authors"],
            year=str(config["year"]),
            cover=bool(config["cover"]),
            lang="eng",
        )
        assert abs(pyloudnorm.Meter(RATE).integrated_loudness(samples) - target) < 0.5
    for kind in ("srt", "vtt"):
        if kind in config["outputs"]:
            cues = (
                (results / f"book.{kind}").read_text().removeprefix("WEBVTT\n\n").rstrip("\n").split("\n\n")
            )
            separator = "," if kind == "srt" else "."
            assert [c.split("\n")[1] for c in cues] == [
                f"{timestamp(s.start, RATE, separator)} --> {timestamp(s.end, RATE, separator)}"
                for s in timeline.spans
            ]
    if "chapters" in config["outputs"]:
        extension = config["encode"]["chapter_format"]
        names = chapter_filenames([c.title for c in timeline.chapters], extension)
        # Snakemake keeps a hidden .snakemake_timestamp in a directory output.
        assert sorted(
            p.name for p in (results / "chapters").iterdir() if not p.name.startswith(".")
        ) == sorted(names)
        for name in names:
            assert len(decode(results / "chapters" / name)) > 0
    if "epub" in config["outputs"]:
        check_epub_output(results / "book.epub", rows, timeline, book, config)
    assert not [p.name for p in results.iterdir() if ".tmp-" in p.name]


def check_epub_output(epub: Path, rows, timeline, book: dict, config: dict) -> None:
    """The read-along EPUB: EPUBCheck accepts it without a warning, its clips are the timeline's
    samples, each chapter's audio decodes to them, and it carries the book's metadata and cover."""
    verdict = run_epubcheck(epub)
    assert verdict is not None, "EPUBCheck is not installed (scripts/test.sh installs it)"
    assert verdict.clean, verdict.messages
    check_overlays(epub, rows, timeline)
    assert all(result.passed for result in check_epub(ffmpeg(), epub, rows, timeline.frames, RATE))
    with zipfile.ZipFile(epub) as archive:
        opf = archive.read("EPUB/package.opf").decode()
    assert f"<dc:title>{escape(book['title'])}</dc:title>" in opf
    assert all(f"<dc:creator>{escape(author)}</dc:creator>" in opf for author in book["authors"])
    assert f"<dc:date>{config['year']}</dc:date>" in opf
    assert ('properties="cover-image"' in opf) == bool(config["cover"])


@pytest.fixture(scope="module")
def packaged(tmp_path_factory: pytest.TempPathFactory):
    """A small book with hostile chapter titles, rendered once with every output."""
    work = Workdir(tmp_path_factory.mktemp("package") / "work")
    (work.path / "book.md").write_text(BOOK, encoding="utf-8")
    (work.path / "cover.png").write_bytes(png())
    config = configure(
        work,
        book="book.md",
        engine="espeak",
        outputs=["m4b", "chapters", "srt", "vtt", "epub"],
        cover="cover.png",
        year=2001,
        # espeak peaks about 21 dB above its loudness: -18 LUFS would be capped by the -1.5 dBTP ceiling.
        loudness={"target": -24.0},
    )
    work.run_book()
    return work, config


def test_workflow_makes_every_output_from_the_catalog(packaged) -> None:
    work, config = packaged
    check_workflow_outputs(work, config)
    rows = read_catalog(work.results("book") / "catalog.tsv")
    assert sorted(work.rendered_jobs()) == sorted(row.segment_id for row in rows)
    for rule in ("assemble_book", "package_m4b", "package_chapters", "package_subtitles", "package_epub"):
        assert list((work.path / "logs" / rule).glob("*.log")), rule


def test_changing_pauses_loudness_and_outputs_reassembles_without_rendering(packaged) -> None:
    work, config = packaged
    rendered = len(work.rendered_jobs())
    before = sf.info(str(work.results("book") / "book.wav")).frames
    config = configure(
        work,
        pauses={"lead": 1.25, "sentence": 0.7, "chapter": 3.0},
        loudness={"target": -26.0},
        outputs=["m4b", "vtt", "epub"],
        encode={"m4b_bitrate": "48k"},
    )
    result = work.run_book()
    assert len(work.rendered_jobs()) == rendered, "a render job ran"
    assert "plan_catalog" not in result.stderr
    assert sf.info(str(work.results("book") / "book.wav")).frames != before
    check_workflow_outputs(work, config)
    dry = work.snakemake("-n")
    assert "Nothing to be done" in dry.stdout + dry.stderr


SLOW_FFMPEG = """#!{python}
# Test stand-in for ffmpeg: the first call writes half a file where ffmpeg would write its output
# and hangs (to be killed mid-packaging); later calls run the real ffmpeg.
import os, sys, time
marker = {marker!r}
if not os.path.exists(marker):
    open(marker, "w").close()
    with open(sys.argv[-1], "wb") as handle:
        handle.write(b"\\x00\\x00\\x00\\x18ftypM4B partial output")
    time.sleep(120)
os.execv({real!r}, [{real!r}, *sys.argv[1:]])
"""


def _kill_when(process: subprocess.Popen, ready, deadline: float = 60.0) -> bool:
    start = time.monotonic()
    while process.poll() is None and time.monotonic() - start < deadline:
        if ready():
            break
        time.sleep(0.001)
    hit = process.poll() is None
    kill_group(process)
    return hit


def test_sigkill_during_assembly_or_packaging_then_restart(packaged) -> None:
    work, config = packaged
    results = work.results("book")
    rendered = len(work.rendered_jobs())

    # 1. Kill as soon as assembly starts writing (a long trailing pad keeps it busy for a while).
    config = configure(
        work, loudness={"target": -25.0}, outputs=["m4b", "srt", "chapters"], pauses={"trail": 30.0}
    )
    process = work.start_book()
    assert _kill_when(process, lambda: any(".tmp-" in p.name for p in results.iterdir()))
    work.snakemake("--unlock")
    work.run_book()
    check_workflow_outputs(work, config)

    # 2. Kill mid-packaging, while a partial output sits under its temp name.
    marker = work.path / "ffmpeg-called"
    wrapper = work.path / "slow-ffmpeg"
    wrapper.write_text(SLOW_FFMPEG.format(python=sys.executable, marker=str(marker), real=ffmpeg()))
    wrapper.chmod(0o755)
    config = configure(work, loudness={"target": -27.0}, ffmpeg=str(wrapper))
    process = work.start_book()
    assert _kill_when(process, lambda: marker.exists() and any(".tmp-" in p.name for p in results.iterdir()))
    assert [p for p in results.iterdir() if ".tmp-" in p.name], "no partial output at the kill"
    work.snakemake("--unlock")
    work.run_book()  # the same command and config as the killed run
    check_workflow_outputs(work, config)
    assert len(work.rendered_jobs()) == rendered, "a render job ran"


ACX_RULES = {
    "sample rate (Hz)",
    "channels",
    "bitrate (kbps)",
    "bitrate mode",
    "RMS",
    "peak",
    "noise floor",
    "head room tone",
    "tail room tone",
}


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Workdir:
    """BOOK with the ACX preset, beside an M4B and chapter files."""
    work = Workdir(tmp_path_factory.mktemp("check") / "work")
    (work.path / "book.md").write_text(BOOK, encoding="utf-8")
    configure(work, book="book.md", outputs=["m4b", "chapters"], preset="acx")
    work.run_book()
    return work


def acx_files(work: Workdir) -> list[Path]:
    return sorted((work.results("book") / "acx").glob("*.mp3"))


def test_check_passes_every_rule_of_the_book(book: Workdir) -> None:
    result = book.narrator("check", "results/book")
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FAIL" not in result.stdout
    rows = check_book(book.results("book"))
    assert all(row.passed for row in rows)
    for path in acx_files(book):
        assert {row.rule for row in rows if row.file == f"acx/{path.name}"} == ACX_RULES
    checked = {row.file for row in rows}
    assert {"book.wav", "book.m4b", "chapters/"} <= checked


def test_the_master_check_takes_the_assembly_figures_only_for_the_samples_measured(
    book: Workdir, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = book.results("book")
    master, loudness = folder / "book.wav", folder / "loudness.json"
    meters: list[int] = []

    def counted(rate: int) -> LoudnessMeter:
        meters.append(rate)
        return LoudnessMeter(rate)

    monkeypatch.setattr(check_module, "LoudnessMeter", counted)
    recorded = check_master(master, loudness)
    assert meters == [] and [row.rule for row in recorded] == ["integrated loudness", "true peak"]
    # Measured afresh, the same samples give the same rows.
    report = json.loads(loudness.read_text(encoding="utf-8"))
    del report["pcm_sha256"]
    (tmp_path / "loudness.json").write_text(json.dumps(report), encoding="utf-8")
    assert check_master(master, tmp_path / "loudness.json") == recorded and len(meters) == 1
    # One sample changed: the checksum no longer matches, and the master is measured.
    pcm, rate = sf.read(master, dtype="int16")
    pcm[len(pcm) // 2] ^= 1
    sf.write(tmp_path / "book.wav", pcm, rate, subtype="PCM_16")
    check_master(tmp_path / "book.wav", loudness)
    assert len(meters) == 2


def test_acx_files_are_44k_mono_192k_cbr_one_per_chapter_and_tagged(book: Workdir) -> None:
    rows = read_catalog(book.results("book") / "catalog.tsv")
    pauses = yaml.safe_load((book.path / "config.yaml").read_text())["pauses"]
    chapters = build_timeline(rows, pauses).chapters
    titles = [chapter.title for chapter in chapters]
    assert [p.name for p in acx_files(book)] == chapter_filenames(titles, "mp3")
    for number, (path, title) in enumerate(zip(acx_files(book), titles, strict=True), start=1):
        info = MP3(path).info
        assert (info.sample_rate, info.channels, info.bitrate_mode) == (44100, 1, BitrateMode.CBR)
        assert round(info.bitrate / 1000) == 192
        tags = ID3(path)
        assert str(tags["TIT2"]) == title
        assert str(tags["TRCK"]) == f"{number}/{len(titles)}"
        assert str(tags["TLAN"]) == "eng"
        assert str(tags["TALB"]).startswith('The "Quoted" = Book')


def reencode(source: Path, target: Path, change: Callable[[np.ndarray], np.ndarray], *encode: str) -> None:
    """Decode an ACX file, change its samples, and encode it again (44.1 kHz mono 192k unless told)."""
    samples = change(np.concatenate(list(decoded_blocks(find_ffmpeg(), source, acx.SAMPLE_RATE))))

    def feed(stdin, data: np.ndarray) -> None:
        stdin.write(data.astype("<f4").tobytes())

    args = ["-f", "f32le", "-ar", str(acx.SAMPLE_RATE), "-ac", "1", "-i", "pipe:0"]
    args += ["-c:a", "libmp3lame", "-b:a", "192k", *encode, "-f", "mp3", str(target)]
    run_ffmpeg(find_ffmpeg(), args, feed=partial(feed, data=samples))


BROKEN = {
    "6 dB too loud": (lambda s: s * 2.0, (), "peak"),
    "128 kbps": (lambda s: s, ("-b:a", "128k"), "bitrate (kbps)"),
    "22.05 kHz": (lambda s: s, ("-ar", "22050"), "sample rate (Hz)"),
    "head cut": (lambda s: s[round((acx.HEAD_S - 0.05) * acx.SAMPLE_RATE) :], (), "head room tone"),
    "loud noise": (
        lambda s: s + np.random.default_rng(1).normal(0.0, 0.01, len(s)),
        (),
        "noise floor",
    ),
}


@pytest.mark.parametrize("breakage", BROKEN)
def test_check_fails_a_file_that_breaks_a_rule(book: Workdir, tmp_path: Path, breakage: str) -> None:
    change, encode, rule = BROKEN[breakage]
    folder = tmp_path / "book"
    (folder / "acx").mkdir(parents=True)
    reencode(acx_files(book)[0], folder / "acx" / "01 - broken.mp3", change, *encode)
    rows = check_book(folder)
    failed = {row.rule for row in rows if not row.passed}
    assert rule in failed, format_results(rows)
    result = book.narrator("check", str(folder))
    assert result.returncode == 1 and "FAIL" in result.stdout
