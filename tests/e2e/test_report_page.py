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
from pathlib import Path

import pytest
import soundfile as sf
from report_svg import svg_texts

from narrator.core.catalog import read_catalog
from narrator.core.pace import pace_of
from narrator.inspect.report import PLOTS
from narrator.inspect.status import clock

pytestmark = pytest.mark.slow

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
