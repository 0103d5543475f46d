"""`snakemake --report report.html` after a real run: a self-contained page whose seven plots render,
under a landing page that shows the book's key figures and the output check.

The page is opened in headless Chromium, which clicks through the report as a reader would (each
category in the menu, then each result's view button) and records every plot image it was shown.
Chromium is a Debian package (`apt-get install -y --no-install-recommends chromium`); on CI (CI set)
a missing Chromium fails the test instead of skipping it.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
import soundfile as sf
from docutils.core import publish_parts

from narrator.core.catalog import read_catalog
from narrator.core.pace import pace_of
from narrator.inspect.check import CheckResult
from narrator.inspect.report import PLOTS, key_figures, summary_rst, write_report_plots, write_summary
from narrator.inspect.status import clock
from narrator.package.metadata import BookInfo

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CATEGORIES = {
    "Audio": {"chapter_minutes", "chapter_pace", "loudness", "asr_scores"},
    "Rendering": {"render_rtf", "throughput", "slowest_segments"},
}

#: Injected before </body> of a copy of the report: clicks through the menu like a reader and writes
#: what it saw into <pre id="narrator-check"> for --dump-dom.
DRIVER = """
<script id="narrator-driver">
(function () {
  const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const byText = (selector, text) =>
    Array.from(document.querySelectorAll(selector)).find((node) => node.textContent.trim() === text);
  async function drive() {
    const seen = { landing: "", menu: [], plots: [], errors: [] };
    try {
      await wait(500);
      seen.landing = document.body.innerText;
      seen.menu = Array.from(document.querySelectorAll("#app li > a")).map((a) => a.textContent.trim());
      for (const category of Object.keys(categories).sort()) {
        const item = byText("#app li > a", category);
        if (!item) { seen.errors.push("no menu item " + category); continue; }
        item.click();
        await wait(300);
        // The landing page's own tables (docutils') stay on the page; only result rows have a button.
        for (const row of Array.from(document.querySelectorAll("#app table:not(.docutils) tbody tr"))) {
          const label = row.querySelector("td").textContent.trim();
          row.querySelector("td:last-child a").click();  // the eye button: show the result
          await wait(300);
          const path = app.state.resultPath;
          const img = Array.from(document.querySelectorAll("#app img")).find(
            (node) => !node.closest("nav") && path && node.getAttribute("src") === results[path].data_uri);
          if (!img) { seen.errors.push("no image shown for " + label); continue; }
          try { await img.decode(); } catch (error) { seen.errors.push(label + ": " + error); }
          seen.plots.push({
            category: category, label: label, path: path, name: results[path].name,
            mime: img.src.slice(5, img.src.indexOf(";")), width: img.naturalWidth, height: img.naturalHeight,
          });
        }
        const home = document.querySelector("#app nav ol li a");
        if (home) { home.click(); } else { app.setView({ navbarMode: "menu" }); }
        await wait(300);
      }
      const show = SHOW;
      if (show) {
        app.setView({ content: "img", contentPath: results[show].data_uri, resultPath: show,
                      navbarMode: "subcategory", category: CATEGORY, subcategory: "Other" });
        await wait(300);
      }
    } catch (error) {
      seen.errors.push(String(error && error.stack || error));
    }
    const out = document.createElement("pre");
    out.id = "narrator-check";
    out.style.display = "none";
    out.textContent = JSON.stringify(seen);
    document.body.appendChild(out);
  }
  window.addEventListener("load", drive);
})();
</script>
"""


def find_chromium() -> str | None:
    """$CHROMIUM if set (a name or a path), else the first browser of CHROMIUM_NAMES on PATH."""
    names = [os.environ["CHROMIUM"]] if os.environ.get("CHROMIUM") else CHROMIUM_NAMES
    return next((found for name in names if (found := shutil.which(name))), None)


def chromium_flags(profile: Path) -> list[str]:
    return [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        # Resolve no host at all: anything the page fetched from outside would fail to load.
        "--host-resolver-rules=MAP * ~NOTFOUND",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=10000",
    ]


def drive_report(
    chromium: str, report: Path, work: Path, *, show: str = "", screenshot: Path | None = None
) -> dict:
    """Open a copy of the report with the driver injected; return what the driver saw."""
    category = next((name for name, plots in CATEGORIES.items() if Path(show).stem in plots), "")
    page = work / "driven-report.html"
    driver = DRIVER.replace("SHOW", json.dumps(show)).replace("CATEGORY", json.dumps(category))
    head, body_end, tail = report.read_text(encoding="utf-8").rpartition("</body>")
    assert body_end, f"{report} has no </body>"
    page.write_text(head + driver + body_end + tail, encoding="utf-8")
    action = [f"--screenshot={screenshot}", "--window-size=1400,900"] if screenshot else ["--dump-dom"]
    result = subprocess.run(
        [chromium, *chromium_flags(work / "chromium-profile"), *action, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, f"chromium failed ({result.returncode}):\n{result.stderr[-3000:]}"
    if screenshot:
        return {}
    found = re.search(r'<pre id="narrator-check"[^>]*>(.*?)</pre>', result.stdout, re.S)
    assert found, f"the page did not finish loading:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module")
def chromium() -> str:
    found = find_chromium()
    if found is None:
        message = "chromium is not installed (apt-get install -y --no-install-recommends chromium)"
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(f"{message}; CI must run this test")
        pytest.skip(message)
    return found


@pytest.mark.slow
def test_report_is_self_contained_and_shows_every_plot(workdir, chromium, tmp_path):
    workdir.run_book()
    plots = workdir.results() / "report"
    assert sorted(path.stem for path in plots.glob("*.svg")) == sorted(PLOTS)
    # The plots are part of the run: nothing is left to do, and rendering does not depend on them.
    dry = workdir.snakemake("-n", "--config", "engine=espeak")
    assert "Nothing to be done" in dry.stdout + dry.stderr

    made = workdir.snakemake("--report", "report.html", "--config", "engine=espeak")
    report = workdir.path / "report.html"
    assert report.is_file(), made.stderr
    page = report.read_text(encoding="utf-8")
    # Self-contained: no script, stylesheet or image is loaded from anywhere else.
    assert not re.search(r"<(script|img|iframe)[^>]+src=[\"']?(https?:)?//", page)
    assert not re.search(r"<link[^>]+href=[\"']?(https?:)?//", page)
    for name in PLOTS:  # each plot embedded in the page itself
        assert re.search(rf'"data_uri": "data:image/svg\+xml;[^"]*filename={name}\.svg;base64,', page)

    seen = drive_report(chromium, report, tmp_path)
    assert seen["errors"] == []
    # The first page a reader sees holds the key figures, book length and speech time apart.
    results = workdir.results()
    figures = json.loads((results / "loudness.json").read_text())
    rows = read_catalog(results / "catalog.tsv")
    master = sf.info(str(results / "sample.wav"))
    assert figures["frames"] == master.frames
    pace = pace_of(rows)
    landing = seen["landing"]
    for shown in (
        "Key figures",
        "The Lamplighter of Harrow Quay",
        f"{clock(master.frames / master.samplerate)} with pauses (the master WAV)",
        f"{clock(sum(row.seconds for row in rows))} in {len(rows)} of {len(rows)} segments",
        f"{pace.wpm:.0f} words per minute of speech ({pace.words:,} words)",
        f"{figures['after']['integrated_lufs']:.2f} LUFS integrated (target {figures['target_lufs']:g} LUFS)",
        f"true peak {figures['after']['true_peak_dbtp']:.2f} dBTP",
        f"peaks limited on {figures['limiter']['limited_share']:.1%} of samples",
        f"summed over {len(rows)} timed segments",
        "Output check (narrator check): 3 rules, all passed",  # master loudness, true peak, M4B length
        "sample.m4b",
    ):
        assert shown in landing, (shown, landing[:3000])
    assert 150 <= pace.wpm <= 170, pace
    assert {"Audio", "Rendering"} <= set(seen["menu"])
    shown = {Path(plot["name"]).stem: plot for plot in seen["plots"]}
    assert set(shown) == set(PLOTS)
    for name, plot in shown.items():
        assert name in CATEGORIES[plot["category"]]
        assert plot["mime"] == "image/svg+xml"
        # The browser decoded each SVG into a real picture (matplotlib's are several hundred px wide).
        assert plot["width"] > 300 and plot["height"] > 100, plot


@pytest.mark.slow
def test_plots_of_a_real_run_show_its_chapters_segments_and_loudness(reference_book):
    *_, rows, work = reference_book
    shown = svg_texts(work.results() / "report")
    titles = list(dict.fromkeys(row.chapter_title for row in rows))
    book = ["Chapter 1: The Last Lamp", "Chapter 2: The Fog", "Chapter 3: Tamsin"]
    assert titles == ["Opening credits", *book, "End credits"]
    assert [f"{number}. {title}" for number, title in enumerate(titles, start=1)] == [
        text for text in shown["chapter_minutes"] if re.match(r"\d+\. ", text)
    ]
    total = re.compile(r"Audio per chapter: \d+\.\d min in 5 chapters")
    assert any(total.fullmatch(text) for text in shown["chapter_minutes"])
    count = len(rows)
    assert any(text.startswith(f"Render speed of {count} segments: median ") for text in shown["render_rtf"])
    assert any(text.startswith(f"Throughput: {count} segments, ") for text in shown["throughput"])
    assert any(text.startswith(f"The 15 slowest of {count} segments: ") for text in shown["slowest_segments"])
    # The loudness plot shows the figures assembly measured and applied, as loudness.json has them.
    figures = json.loads((work.results() / "loudness.json").read_text())
    measured = [
        figures[when][key] for key in ("integrated_lufs", "true_peak_dbtp") for when in ("before", "after")
    ]
    limiter = figures["limiter"]
    gain = (
        f"gain {figures['gain_db']:+.2f} dB applied to the whole book; peaks limited on"
        f" {limiter['limited_share']:.1%} of samples, by up to {limiter['max_reduction_db']:.1f} dB"
    )
    chapter_pace = re.compile(r"Pace: (\d+) words per minute of speech, [\d,]+ words")
    assert any(chapter_pace.fullmatch(text) for text in shown["chapter_pace"]), shown["chapter_pace"]
    assert "narration pace 150-170" in shown["chapter_pace"]
    for label in (
        *(f"{value:.2f}" for value in measured),
        f"target {figures['target_lufs']:g}",
        f"ceiling {figures['true_peak_ceiling_dbtp']:g}",
        f"Loudness: {gain}",
    ):
        assert label in shown["loudness"], (label, shown["loudness"])


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


def svg_texts(folder: Path) -> dict[str, list[str]]:
    """The texts each plot in the folder shows, by name.

    matplotlib draws text as glyph outlines, each after an XML comment holding the text it draws.
    """
    shown = {}
    for name in PLOTS:
        svg = (folder / f"{name}.svg").read_text()
        shown[name] = [html.unescape(text).strip() for text in re.findall(r"<!-- (.*?) -->", svg, re.S)]
    return shown


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
    from test_status import PLAN, make_rows

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
    from test_status import PLAN, make_rows

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
    from test_status import make_rows

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
    from test_status import PLAN, make_rows

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
