"""The report's plots and landing page (narrator/inspect/report.py), from hand-made catalogs: SVG,
reproducible and labelled plots, key figures, and the summary's tables. A real run's report, opened
in a browser: tests/e2e/test_report_page.py.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace
from pathlib import Path

from docutils.core import publish_parts
from planned import PLAN, make_rows
from report_svg import svg_texts

from narrator.inspect.check import CheckResult
from narrator.inspect.report import PLOTS, key_figures, summary_rst, write_report_plots, write_summary
from narrator.package.metadata import BookInfo

LOUDNESS = {
    "frames": 1_554_525,  # 70.5 s: the hand-made book with its pauses
    "sample_rate": 22050,
    "target_lufs": -18.0,
    "true_peak_ceiling_dbtp": -1.5,
    "before": {"integrated_lufs": -21.25, "true_peak_dbtp": -0.23},
    "gain_db": 3.75,
    "limiter": {"limited_share": 0.0812, "limited_seconds": 5.73, "max_reduction_db": 4.6},
    "after": {"integrated_lufs": -18.02, "true_peak_dbtp": -1.6},
}


def _plots(tmp_path: Path, rows: list, loudness: dict, pauses: dict | None) -> dict[str, Path]:
    from narrator.core.catalog import write_catalog

    tmp_path.mkdir(parents=True, exist_ok=True)
    catalog, figures = tmp_path / "catalog.tsv", tmp_path / "loudness.json"
    write_catalog(catalog, rows)
    figures.write_text(json.dumps(loudness))
    outputs = {name: tmp_path / "report" / f"{name}.svg" for name in PLOTS}
    summary = write_report_plots(catalog, figures, outputs, pauses)
    assert summary.startswith(f"drew {len(PLOTS)} report plots from {len(rows)} segments")
    return outputs


def test_plots_from_a_hand_made_catalog_are_svg_and_reproducible(tmp_path):
    rows = make_rows([(title, total, total) for title, total, _ in PLAN])
    first = _plots(tmp_path / "a", rows, LOUDNESS, {"sentence": 0.35, "lead": 0.5})
    second = _plots(tmp_path / "b", rows, LOUDNESS, {"sentence": 0.35, "lead": 0.5})
    for name in PLOTS:
        svg = first[name].read_text()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg, name
        assert first[name].read_bytes() == second[name].read_bytes(), f"{name} differs between two draws"
    assert not list((tmp_path / "a" / "report").glob(".*")), "a temp file was left behind"
    shown = svg_texts(tmp_path / "a" / "report")
    # 10 segments of 2 s and 10 sentence pauses of 0.35 s per chapter: 23.5 s each, 70.5 s in all.
    for label in ("1. Chapter 1: The Last Lamp", "2. The Fog", "3. Chapter 3", "0.4", "speech", "pauses"):
        assert label in shown["chapter_minutes"], label
    assert "Audio per chapter: 1.2 min in 3 chapters" in shown["chapter_minutes"]
    # Each segment took 1.5 s to render 2 s of audio, one finished every 3 s.
    assert "Render speed of 30 segments: median 1x faster than real time" in shown["render_rtf"]
    assert "median 0.75" in shown["render_rtf"]
    assert "Throughput: 30 segments, 1.0 audio minutes in 0:01:27 wall clock" in shown["throughput"]
    assert "The 15 slowest of 30 segments: 50% of all render time" in shown["slowest_segments"]
    assert "ch 1 #1 000000: Sentence 0." in shown["slowest_segments"]
    assert "1.5 s, 2.0 s audio, RTF 0.75" in shown["slowest_segments"]
    for label in ("-21.25", "-18.02", "-0.23", "-1.60", "target -18", "ceiling -1.5"):
        assert label in shown["loudness"], label
    title = "Loudness: gain +3.75 dB applied to the whole book; peaks limited on 8.1% of samples, by up to"
    assert f"{title} 4.6 dB" in shown["loudness"]
    # Two words a segment ("Sentence 3.") in 2 s each: 60 words per minute in every chapter.
    assert "Pace: 60 words per minute of speech, 60 words" in shown["chapter_pace"]
    for label in (
        "1. Chapter 1: The Last Lamp",
        "2. The Fog",
        "3. Chapter 3",
        "60",
        "narration pace 150-170",
    ):
        assert label in shown["chapter_pace"], label


BOOK = BookInfo(
    title="Lamps *and* `Fog` | 1. _Part_", authors=("A. Writer", "B. Other"), language="en", cover=None
)


def test_key_figures_label_book_length_apart_from_speech():
    rows = make_rows([(title, total, total) for title, total, _ in PLAN])
    assert key_figures(rows, LOUDNESS, BOOK) == [
        ("Title", BOOK.title),
        ("Author", "A. Writer, B. Other"),
        ("Book length", "0:01:10 with pauses (the master WAV)"),
        ("Speech", "0:01:00 in 30 of 30 segments (the voice alone, no pauses)"),
        ("Chapters", "3"),
        ("Pace", "60 words per minute of speech (60 words); chapters 60 to 60"),
        ("Loudness", "-18.02 LUFS integrated (target -18 LUFS); true peak -1.60 dBTP (ceiling -1.5 dBTP)"),
        ("Limiter", "peaks limited on 8.1% of samples, by up to 4.6 dB"),
        (
            "Render speed",
            "median RTF 0.75 (1x faster than real time); 0:00:45 of render time"
            " summed over 30 timed segments",
        ),
        ("ASR check", "no segment heard (verify.asr off, or the asr extra missing)"),
    ]
    # Mid-run: speech so far, chapters at their own pace, no render figures without timed renders.
    partial = make_rows(PLAN)
    partial[0] = replace(partial[0], text="One two three four five six seven eight.")
    untimed = [replace(row, render_seconds=None) for row in partial]
    figures = dict(key_figures(untimed, {**LOUDNESS, "after": {}}, replace(BOOK, authors=())))
    assert figures["Speech"] == "0:00:34 in 17 of 30 segments (the voice alone, no pauses)"
    assert figures["Pace"] == "71 words per minute of speech (40 words); chapters 60 to 78"
    assert figures["Author"] == "not given in the book"
    assert figures["Loudness"].startswith("silent integrated (target -18 LUFS); true peak n/a")
    assert "Render speed" not in figures


def _html(rst: str) -> str:
    """The text of the HTML that Snakemake's report makes of reStructuredText (docutils, default settings)."""
    return html.unescape(re.sub(r"<[^>]+>", " ", publish_parts(rst, writer="html")["body"]))


def test_summary_is_two_tables_with_the_books_text_taken_literally():
    checks = [
        CheckResult("book.wav", "true peak", "-1.60 dBTP", "<= -1.5 dBTP", True),
        CheckResult("acx/01 - *One*.mp3", "RMS", "-23.00 dB", "-23 to -18 dB", False),
    ]
    summary = summary_rst([("Title", BOOK.title), ("Pace", "60 words per minute")], checks)
    shown = " ".join(_html(summary).split())
    assert "Key figures Title Lamps *and* `Fog` | 1. _Part_ Pace 60 words per minute" in shown
    assert "Output check (narrator check): 2 rules, 1 failed" in shown
    assert "file rule measured limit result" in shown
    assert "book.wav true peak -1.60 dBTP <= -1.5 dBTP PASS" in shown
    assert "acx/01 - *One*.mp3 RMS -23.00 dB -23 to -18 dB FAIL" in shown
    skipped = " ".join(_html(summary_rst([("Title", "T")], "no ffmpeg: install ffmpeg")).split())
    assert "Output check not run: no ffmpeg: install ffmpeg" in skipped


def test_summary_without_a_master_says_the_check_did_not_run(tmp_path):
    from narrator.core.catalog import write_catalog

    write_catalog(tmp_path / "catalog.tsv", make_rows([("One", 3, 3)]))
    (tmp_path / "loudness.json").write_text(json.dumps(LOUDNESS))
    (tmp_path / "book.json").write_text(json.dumps({"title": "One *Book*", "authors": ["A. Writer"]}))
    summary = tmp_path / "report" / "summary.rst"
    said = write_summary(
        tmp_path / "catalog.tsv", tmp_path / "loudness.json", tmp_path / "book.json", summary
    )
    assert said.startswith("wrote 10 key figures; output check not run: ")
    shown = " ".join(_html(summary.read_text()).split())
    assert "Title One *Book* Author A. Writer" in shown
    assert "Output check not run:" in shown and "no master WAV" in shown


def test_plots_survive_a_partial_catalog_and_a_silent_book(tmp_path):
    silent = {**LOUDNESS, "before": {"integrated_lufs": None, "true_peak_dbtp": None}}
    rows = make_rows(PLAN)
    # Dollar signs would be TeX math to matplotlib; unbalanced ones must not break a label.
    rows[0] = replace(rows[0], text="It cost $5, then $6 and a $", chapter_title="Price: $ and _^")
    _plots(tmp_path, rows, silent, {"sentence": 0.35})
    shown = svg_texts(tmp_path / "report")
    # 17 of 30 segments rendered: speech only (no pauses until the book is complete), 34 s in all.
    assert "Audio per chapter: 0.6 min in 3 chapters" in shown["chapter_minutes"]
    assert "minutes of audio" in shown["chapter_minutes"] and "pauses" not in shown["chapter_minutes"]
    assert "1. Price: $ and _^" in shown["chapter_minutes"]
    assert "ch 1 #1 000000: It cost $5, then $6 and a $" in shown["slowest_segments"]
    assert "Throughput: 17 segments, 0.6 audio minutes in 0:00:48 wall clock" in shown["throughput"]
    assert shown["loudness"].count("n/a (silent)") == 2
    # Nothing rendered yet: every plot still draws (saying so) instead of failing.
    _plots(tmp_path / "none", make_rows([("Only", 3, 0)]), LOUDNESS, None)
    shown = svg_texts(tmp_path / "none" / "report")
    assert "Audio per chapter: 0.0 min in 1 chapters" in shown["chapter_minutes"]
    assert "no timed renders in the catalog" in shown["render_rtf"]
    assert "fewer than two timed completions in the catalog" in shown["throughput"]
    assert "no timed renders in the catalog" in shown["slowest_segments"]
