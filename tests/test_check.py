"""ACX output and `narrator check`, on a tiny book rendered once with espeak (real audio throughout)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import yaml
from conftest import Workdir
from mutagen.id3 import ID3
from mutagen.mp3 import MP3, BitrateMode
from test_package import BOOK, configure

from narrator.assemble.loudness import LoudnessMeter
from narrator.core.catalog import read_catalog
from narrator.core.timeline import build_timeline
from narrator.inspect import check as check_module
from narrator.inspect.check import check_book, check_master, decoded_blocks, format_results
from narrator.package import acx
from narrator.package.chapters import chapter_filenames
from narrator.package.ffmpeg import find_ffmpeg, run_ffmpeg

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
    """The three-chapter book of test_package, with the ACX preset beside an M4B and chapter files."""
    work = Workdir(tmp_path_factory.mktemp("check") / "work")
    (work.path / "book.md").write_text(BOOK, encoding="utf-8")
    configure(work, book="book.md", outputs=["m4b", "chapters"], preset="acx")
    work.run_book()
    return work


def acx_files(work: Workdir) -> list[Path]:
    return sorted((work.results("book") / "acx").glob("*.mp3"))


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


def test_check_of_a_missing_folder_is_one_line(workdir: Workdir) -> None:
    result = workdir.narrator("check", "results/nowhere")
    assert result.returncode == 2
    assert result.stderr.strip() == "narrator: results/nowhere: no such results folder"


def test_check_of_a_folder_without_outputs_is_one_line(workdir: Workdir) -> None:
    (workdir.path / "results" / "empty").mkdir(parents=True)
    result = workdir.narrator("check", "results/empty")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
