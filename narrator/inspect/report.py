"""Figures for Snakemake's HTML report, from the catalog and loudness.json, and its key figures.

Seven SVG plots: audio minutes per chapter, words per minute of speech per chapter, the render
real-time factor (RTF) of every segment, throughput over the run, the slowest segments, the
loudness before and after assembly against the target, and the ASR check's score of every segment
per chapter (from the segments' sidecars, narrator.render.asr). Only matplotlib's object API is used (no
pyplot): rules run as threads of the Snakemake process, and pyplot's global figure state is not
thread-safe.

The report's landing page (workflow/report/workflow.rst) includes ``summary.rst``: a table of the
book's key figures (book length apart from speech time, pace, loudness, render speed, the ASR
check), the table of ``narrator check``'s rules on the outputs, and the segments heard worst.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib

from narrator.assemble.assemble import read_loudness_report

matplotlib.use("Agg")

from matplotlib.figure import Figure

from narrator.core.catalog import Row, read_catalog, rows_by_chapter
from narrator.core.errors import UserError
from narrator.core.pace import pace_by_chapter, pace_of
from narrator.core.publish import publishing
from narrator.core.timeline import build_timeline, chapter_title
from narrator.inspect.check import CheckResult, check_book
from narrator.inspect.flags import flagged, read_flags
from narrator.inspect.status import clock, master_seconds
from narrator.package.metadata import BookInfo, PackageSettings, book_info
from narrator.render.asr import CER_LIMIT, Evidence, read_evidence, worst

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

#: The plots, by output name, in the order the report lists them.
PLOTS = (
    "chapter_minutes",
    "chapter_pace",
    "render_rtf",
    "throughput",
    "slowest_segments",
    "loudness",
    "asr_scores",
)
#: Audiobooks are narrated at about 150-170 words per minute of speech; the pace plot marks the band.
NARRATION_WPM = (150.0, 170.0)
#: How many segments the slowest-segments chart shows.
SLOWEST = 15
#: How many of the segments heard worst the landing page lists.
WORST_HEARD = 10
#: Fixed salt and no date: the same data gives byte-identical SVGs.
_RC: dict[RcKeyType, object] = {
    "svg.hashsalt": "narrator",
    "font.size": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
SPEECH, PAUSE, BEFORE, AFTER, TARGET = "#3b6ea5", "#a9c4e0", "#b0b0b0", "#3b6ea5", "#c0392b"


def _done(rows: Sequence[Row]) -> list[Row]:
    return [row for row in rows if row.completed and row.seconds]


def _rtf(row: Row) -> float | None:
    """Render seconds per second of audio; None for a segment without a timed render (adopted)."""
    if not row.render_seconds or not row.seconds:
        return None
    return row.render_seconds / row.seconds


def _rtfs(rows: Sequence[Row]) -> list[float]:
    """The RTF of every timed segment, smallest first."""
    return sorted(value for row in _done(rows) if (value := _rtf(row)) is not None)


def _speed(median: float) -> str:
    return f"{1 / median:.0f}x faster than real time" if median > 0 else "instant"


def _render_seconds(row: Row) -> float:
    return row.render_seconds or 0.0


def _completed_at(row: Row) -> float:
    return row.completed_at or 0.0


def _figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def _empty(figure: Figure, message: str) -> Figure:
    axes = figure.add_subplot()
    axes.set_axis_off()
    axes.text(0.5, 0.5, message, ha="center", va="center", transform=axes.transAxes)
    return figure


def _short(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters, with ``$`` escaped (matplotlib reads $...$ as math)."""
    text = " ".join(text.split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text.replace("$", r"\$")


def chapter_minutes(rows: Sequence[Row], pauses: Mapping[str, float] | None = None) -> Figure:
    """Minutes per chapter: speech, plus the pauses the master lays out when every row is rendered."""
    groups = rows_by_chapter(rows)
    order = list(groups)
    titles = [f"{i}. {_short(chapter_title(groups[key][0], i), 40)}" for i, key in enumerate(order, start=1)]
    speech = [sum(row.seconds for row in _done(groups[key])) / 60 for key in order]
    lengths: list[float] | None = None
    if pauses is not None and rows and len(_done(rows)) == len(rows):
        timeline = build_timeline(rows, pauses)
        lengths = [(c.end - c.start) / timeline.rate / 60 for c in timeline.chapters]
    figure = _figure(7.0, max(2.2, 0.32 * len(order) + 1.2))
    if not order:
        return _empty(figure, "no chapters in the catalog")
    axes = figure.add_subplot()
    positions = range(len(order))
    axes.barh(positions, speech, color=SPEECH, label="speech")
    if lengths is not None:
        gaps = [max(total - said, 0.0) for total, said in zip(lengths, speech, strict=True)]
        axes.barh(positions, gaps, left=speech, color=PAUSE, label="pauses")
        figure.legend(loc="outside lower center", ncol=2, frameon=False)
    totals = lengths or speech
    for position, value in zip(positions, totals, strict=True):
        axes.text(value, position, f" {value:.1f}", va="center", fontsize=8)
    axes.set_yticks(list(positions), titles)
    axes.invert_yaxis()
    axes.set_xlabel("minutes of audio" if lengths is None else "minutes of audio (speech + pauses)")
    axes.set_xlim(0, max(totals) * 1.12 or 1)
    book = sum(totals)
    axes.set_title(f"Audio per chapter: {book:.1f} min in {len(order)} chapters", loc="left")
    return figure


def chapter_pace(rows: Sequence[Row]) -> Figure:
    """Words per minute of speech per chapter (pauses not counted), against the narration band."""
    groups = rows_by_chapter(rows)
    paces = pace_by_chapter(rows)
    measured = [(number, key) for number, key in enumerate(groups, start=1) if paces[key].wpm is not None]
    figure = _figure(7.0, max(2.2, 0.32 * len(measured) + 1.4))
    if not measured:
        return _empty(figure, "no speech measured yet")
    axes = figure.add_subplot()
    low, high = NARRATION_WPM
    axes.axvspan(low, high, color=PAUSE, alpha=0.5, label=f"narration pace {low:g}-{high:g}")
    values = [paces[key].wpm or 0.0 for _, key in measured]
    positions = range(len(measured))
    axes.barh(positions, values, color=SPEECH, height=0.6)
    for position, value in zip(positions, values, strict=True):
        axes.text(value, position, f" {value:.0f}", va="center", fontsize=8)
    titles = [f"{number}. {_short(chapter_title(groups[key][0], number), 40)}" for number, key in measured]
    axes.set_yticks(list(positions), titles)
    axes.invert_yaxis()
    axes.set_xlim(0, max(*values, high) * 1.15)
    axes.set_xlabel("words per minute of speech (pauses not counted)")
    figure.legend(loc="outside lower center", frameon=False)
    book = pace_of(rows)
    axes.set_title(f"Pace: {book.wpm or 0.0:.0f} words per minute of speech, {book.words} words", loc="left")
    return figure


def render_rtf(rows: Sequence[Row]) -> Figure:
    """Histogram of RTF = render_seconds / (frames / sample_rate), one value per timed segment."""
    values = _rtfs(rows)
    figure = _figure(7.0, 3.2)
    if not values:
        return _empty(figure, "no timed renders in the catalog")
    axes = figure.add_subplot()
    low, high = values[0], values[-1]
    if low > 0 and high / low > 20:
        bins: Any = [low * (high / low) ** (i / 30) for i in range(31)]
        axes.set_xscale("log")
    else:
        bins = 30
    axes.hist(values, bins=bins, color=SPEECH)
    median = values[len(values) // 2]
    p95 = values[min(len(values) - 1, math.ceil(0.95 * len(values)) - 1)]
    axes.axvline(median, color=TARGET, linestyle="-", linewidth=1, label=f"median {median:.3g}")
    axes.axvline(p95, color=TARGET, linestyle="--", linewidth=1, label=f"95th percentile {p95:.3g}")
    if high >= 1.0:
        axes.axvline(1.0, color="black", linestyle=":", linewidth=1, label="real time (1.0)")
    axes.legend(frameon=False)
    axes.set_xlabel("real-time factor (render seconds per second of audio; lower is faster)")
    axes.set_ylabel("segments")
    axes.set_title(f"Render speed of {len(values)} segments: median {_speed(median)}", loc="left")
    return figure


def throughput(rows: Sequence[Row]) -> Figure:
    """Completed segments and audio minutes against wall-clock time since the first completion."""
    done = sorted((row for row in _done(rows) if row.completed_at is not None), key=_completed_at)
    figure = _figure(7.0, 4.2)
    if len(done) < 2:
        return _empty(figure, "fewer than two timed completions in the catalog")
    start = _completed_at(done[0])
    elapsed = _completed_at(done[-1]) - start
    unit, scale = ("s", 1.0) if elapsed < 120 else ("min", 60.0) if elapsed < 7200 else ("h", 3600.0)
    times = [(_completed_at(row) - start) / scale for row in done]
    span = times[-1] or 1 / scale
    top, bottom = figure.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    count = list(range(1, len(done) + 1))
    audio, total = [], 0.0
    for row in done:
        total += row.seconds / 60
        audio.append(total)
    top.step(times, count, where="post", color=SPEECH, label="segments")
    top.set_ylabel("segments completed", color=SPEECH)
    right = top.twinx()
    right.step(times, audio, where="post", color=TARGET, label="audio minutes")
    right.set_ylabel("audio minutes", color=TARGET)
    right.spines["right"].set_visible(True)
    top.set_title(
        f"Throughput: {len(done)} segments, {audio[-1]:.1f} audio minutes in {clock(elapsed)} wall clock",
        loc="left",
    )
    bins = max(1, min(30, len(done) // 3))
    width = span / bins
    rates = [0.0] * bins
    for when, row in zip(times, done, strict=True):
        rates[min(int(when / width), bins - 1)] += row.seconds
    bottom.bar(
        [width * (i + 0.5) for i in range(bins)],
        [seconds / (width * scale) for seconds in rates],
        width=width * 0.9,
        color=PAUSE,
        edgecolor=SPEECH,
    )
    bottom.set_ylabel("audio-s per wall-s")
    bottom.set_xlabel(f"wall clock ({unit}) since the first completion")
    return figure


def slowest_segments(rows: Sequence[Row], count: int = SLOWEST) -> Figure:
    """The segments that took longest to render, with their RTF and first words."""
    timed = [row for row in _done(rows) if row.render_seconds]
    slowest = sorted(timed, key=_render_seconds, reverse=True)[:count]
    figure = _figure(7.0, max(2.2, 0.3 * len(slowest) + 1.2))
    if not slowest:
        return _empty(figure, "no timed renders in the catalog")
    axes = figure.add_subplot()
    labels = [
        f"ch {row.chapter} #{row.sequence} {row.segment_id[:6]}: {_short(row.text, 34)}" for row in slowest
    ]
    seconds = [_render_seconds(row) for row in slowest]
    positions = range(len(slowest))
    axes.barh(positions, seconds, color=SPEECH)
    for position, row, value in zip(positions, slowest, seconds, strict=True):
        rtf = _rtf(row)
        note = f" {value:.3g} s, {row.seconds:.1f} s audio, RTF {rtf:.3g}" if rtf is not None else ""
        axes.text(value, position, note, va="center", fontsize=7)
    axes.set_yticks(list(positions), labels, fontsize=7)
    axes.invert_yaxis()
    axes.set_xlim(0, max(seconds) * 1.6)
    axes.set_xlabel("render seconds")
    share = sum(seconds) / sum(map(_render_seconds, timed))
    axes.set_title(
        f"The {len(slowest)} slowest of {len(timed)} segments: {share:.0%} of all render time", loc="left"
    )
    return figure


def asr_scores(rows: Sequence[Row], evidence: Sequence[Evidence]) -> Figure:
    """The ASR check's character error rate of every heard segment, one row of dots per chapter;
    flagged segments in red."""
    groups = rows_by_chapter(rows)
    figure = _figure(7.0, max(2.2, 0.32 * len(groups) + 1.4))
    if not evidence:
        return _empty(figure, "no segment was heard (verify.asr off, or the asr extra missing)")
    axes = figure.add_subplot()
    position_of = {key: position for position, key in enumerate(groups)}
    for passed, colour, label in ((True, SPEECH, "passed"), (False, TARGET, "flagged")):
        chosen = [item for item in evidence if item.score.passed is passed]
        if chosen:
            # A fixed spread by sequence keeps dots apart and the SVG byte-identical run to run.
            heights = [position_of[e.row.chapter] + ((e.row.sequence % 7) - 3) * 0.06 for e in chosen]
            axes.scatter([item.score.cer for item in chosen], heights, s=9, color=colour, label=label)
    axes.axvline(CER_LIMIT, color=TARGET, linestyle="--", linewidth=1, label=f"limit {CER_LIMIT:g} (+ slack)")
    titles = [f"{n}. {_short(chapter_title(groups[key][0], n), 40)}" for n, key in enumerate(groups, start=1)]
    axes.set_yticks(list(range(len(groups))), titles)
    axes.invert_yaxis()
    axes.set_xlim(0, max(1.0, *(item.score.cer for item in evidence)) * 1.05)
    axes.set_xlabel("character error rate of what Whisper tiny.en heard against the text")
    figure.legend(loc="outside lower center", frameon=False, ncols=3)
    flagged = sum(not item.score.passed for item in evidence)
    axes.set_title(f"ASR check: {len(evidence)} segments heard, {flagged} flagged", loc="left")
    return figure


def loudness(report: Mapping[str, Any]) -> Figure:
    """Integrated loudness and true peak before and after the book gain, against the targets."""
    figure = _figure(7.0, 3.4)
    left, right = figure.subplots(1, 2)
    panels = (
        (left, "integrated_lufs", "target_lufs", "integrated loudness (LUFS)", "target"),
        (right, "true_peak_dbtp", "true_peak_ceiling_dbtp", "true peak (dBTP)", "ceiling"),
    )
    for axes, key, goal_key, label, goal_name in panels:
        values = [report["before"].get(key), report["after"].get(key)]
        goal = report.get(goal_key)
        known = [value for value in (*values, goal) if value is not None]
        # Bars rise from a floor below every figure, so a taller bar is a louder book.
        floor = math.floor(min(known, default=-30.0) / 5) * 5 - 5
        top = max(known, default=0.0) + (max(known, default=0.0) - floor) * 0.4  # room for the legend
        heights = [0.0 if value is None else value - floor for value in values]
        axes.bar([0, 1], heights, bottom=floor, color=[BEFORE, AFTER], width=0.6)
        for x, value in enumerate(values):
            text = "n/a (silent)" if value is None else f"{value:.2f}"
            axes.text(x, floor if value is None else value, text, ha="center", va="bottom", fontsize=8)
        if goal is not None:
            axes.axhline(goal, color=TARGET, linestyle="--", linewidth=1.2, label=f"{goal_name} {goal:g}")
            axes.legend(loc="upper left", frameon=False)
        axes.set_xticks([0, 1], ["before", "after"])
        axes.set_ylabel(label)
        axes.set_ylim(floor, top)
    gain, limiter = report.get("gain_db", 0.0), report.get("limiter", {})
    share, reduction = limiter.get("limited_share", 0.0), limiter.get("max_reduction_db", 0.0)
    figure.suptitle(
        f"Loudness: gain {gain:+.2f} dB applied to the whole book;"
        f" peaks limited on {share:.1%} of samples, by up to {reduction:.1f} dB",
        x=0.01,
        ha="left",
        fontsize=10,
    )
    return figure


def save_svg(figure: Figure, path: str | Path) -> None:
    """Write the figure as SVG, published by rename (a kill leaves no half-written plot)."""
    buffer = io.BytesIO()
    with matplotlib.rc_context(_RC):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    with publishing(Path(path)) as temp:
        temp.write_bytes(buffer.getvalue())


def _figure_or(value: float | None, unit: str, missing: str) -> str:
    return missing if value is None else f"{value:.2f} {unit}"


def key_figures(
    rows: Sequence[Row], report: Mapping[str, Any], book: BookInfo, evidence: Sequence[Evidence] = ()
) -> list[tuple[str, str]]:
    """The landing page's figures as (label, value) pairs of plain text.

    Book length (the master: speech and pauses) and speech time (the segments alone) are labelled
    apart: a book of 6:39 of speech plays for 7:27.
    """
    done = _done(rows)
    length = master_seconds(report)
    speech = sum(row.seconds for row in done)
    figures = [
        ("Title", book.title),
        ("Author", book.artist or "not given in the book"),
        ("Book length", "unknown" if length is None else f"{clock(length)} with pauses (the master WAV)"),
        ("Speech", f"{clock(speech)} in {len(done)} of {len(rows)} segments (the voice alone, no pauses)"),
        ("Chapters", str(len(rows_by_chapter(rows)))),
    ]
    pace = pace_of(rows)
    if pace.wpm is not None:
        chapters = [wpm for part in pace_by_chapter(rows).values() if (wpm := part.wpm) is not None]
        spread = f"; chapters {min(chapters):.0f} to {max(chapters):.0f}" if len(chapters) > 1 else ""
        figures.append(("Pace", f"{pace.wpm:.0f} words per minute of speech ({pace.words:,} words){spread}"))
    after, limiter = report.get("after", {}), report.get("limiter", {})
    figures.append(
        (
            "Loudness",
            f"{_figure_or(after.get('integrated_lufs'), 'LUFS', 'silent')} integrated"
            f" (target {report['target_lufs']:g} LUFS); true peak"
            f" {_figure_or(after.get('true_peak_dbtp'), 'dBTP', 'n/a')}"
            f" (ceiling {report['true_peak_ceiling_dbtp']:g} dBTP)",
        )
    )
    figures.append(
        (
            "Limiter",
            f"peaks limited on {limiter.get('limited_share', 0.0):.1%} of samples,"
            f" by up to {limiter.get('max_reduction_db', 0.0):.1f} dB",
        )
    )
    rtfs = _rtfs(rows)
    if rtfs:
        median = rtfs[len(rtfs) // 2]
        total = clock(sum(_render_seconds(row) for row in done))
        figures.append(
            (
                "Render speed",
                f"median RTF {median:.3g} ({_speed(median)}); {total} of render time"
                f" summed over {len(rtfs)} timed segments",
            )
        )
    if evidence:
        flagged = sum(not item.score.passed for item in evidence)
        median_cer = sorted(item.score.cer for item in evidence)[len(evidence) // 2]
        heard = f"{len(evidence)} of {len(rows)} segments heard, {flagged} flagged"
        figures.append(("ASR check", f"{heard}; median character error rate {median_cer:.2f}"))
    else:
        figures.append(("ASR check", "no segment heard (verify.asr off, or the asr extra missing)"))
    return figures


#: Characters that mean something to reStructuredText inline markup or lists; escaped in book text.
_RST_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")


def _rst_text(text: str) -> str:
    """Plain text as literal reStructuredText, on one line (titles and file names are the book's)."""
    return _RST_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _list_table(caption: str, header: Sequence[str] | None, rows: Sequence[Sequence[str]]) -> list[str]:
    lines = [f".. list-table:: {caption}"]
    if header is not None:
        lines.append("   :header-rows: 1")
    lines.append("")
    for cells in [header, *rows] if header is not None else rows:
        for index, cell in enumerate(cells):
            lines.append(f"   {'*' if index == 0 else ' '} - {_rst_text(cell)}".rstrip())
    return [*lines, ""]


def summary_rst(
    figures: Sequence[tuple[str, str]],
    checks: Sequence[CheckResult] | str,
    evidence: Sequence[Evidence] = (),
    by_ear: Sequence[tuple[Row, str]] = (),
) -> str:
    """The key figures, the output check, the segments heard worst and those flagged by ear in the
    studio as reStructuredText tables for the landing page.

    ``checks`` is the output check's rows, or why it could not run.
    """
    lines = _list_table("Key figures", None, figures)
    if evidence:
        heard = [
            (
                f"{item.row.chapter}",
                item.row.spoken,
                item.transcript,
                f"{item.score.cer:.2f}",
                item.score.problems() or "pass",
            )
            for item in worst(evidence, WORST_HEARD)
        ]
        header = ("chapter", "text", "heard", "CER", "verdict")
        lines += _list_table("Segments heard worst (narrator check lists them)", header, heard)
    if by_ear:
        noted = [(f"{row.chapter}", row.text, note or "(no note)") for row, note in by_ear]
        lines += _list_table("Segments flagged by ear in the studio", ("chapter", "text", "note"), noted)
    if isinstance(checks, str):
        lines += [f"Output check not run: {_rst_text(checks)}", ""]
        return "\n".join(lines)
    failed = sum(not check.passed for check in checks)
    verdict = f"{len(checks)} rules, {failed} failed" if failed else f"{len(checks)} rules, all passed"
    rows = [
        (check.file, check.rule, check.measured, check.limit, "PASS" if check.passed else "FAIL")
        for check in checks
    ]
    lines += _list_table(
        f"Output check (narrator check): {verdict}", ("file", "rule", "measured", "limit", "result"), rows
    )
    return "\n".join(lines)


def write_summary(
    catalog_path: str | Path, loudness_path: str | Path, book_json: str | Path, summary: str | Path
) -> str:
    """Write the landing page's summary.rst; the output check measures the catalog's folder."""
    rows = read_catalog(catalog_path)
    report = read_loudness_report(loudness_path)
    evidence = read_evidence(catalog_path, rows)
    figures = key_figures(rows, report, book_info(book_json, PackageSettings()), evidence)
    checks: list[CheckResult] | str
    try:
        checks = check_book(Path(catalog_path).parent)
    except UserError as error:  # e.g. no ffmpeg to decode with: the rest of the page still stands
        checks = str(error)
    with publishing(Path(summary)) as temp:
        by_ear = flagged(rows, read_flags(Path(catalog_path).parent))
        temp.write_text(summary_rst(figures, checks, evidence, by_ear), encoding="utf-8")
    if isinstance(checks, str):
        return f"wrote {len(figures)} key figures; output check not run: {checks}"
    failed = sum(not check.passed for check in checks)
    return f"wrote {len(figures)} key figures and the output check ({failed} of {len(checks)} rules failed)"


def write_report_plots(
    catalog_path: str | Path,
    loudness_path: str | Path,
    outputs: Mapping[str, str | Path],
    pauses: Mapping[str, float] | None = None,
) -> str:
    """Draw every plot named in ``outputs`` (keys from PLOTS) from the catalog and loudness.json."""
    rows = read_catalog(catalog_path)
    report = read_loudness_report(loudness_path)
    makers: dict[str, Callable[[], Figure]] = {
        "chapter_minutes": lambda: chapter_minutes(rows, pauses),
        "chapter_pace": lambda: chapter_pace(rows),
        "render_rtf": lambda: render_rtf(rows),
        "throughput": lambda: throughput(rows),
        "slowest_segments": lambda: slowest_segments(rows),
        "loudness": lambda: loudness(report),
        "asr_scores": lambda: asr_scores(rows, read_evidence(catalog_path, rows)),
    }
    for name, path in outputs.items():
        with matplotlib.rc_context(_RC):
            figure = makers[name]()
        save_svg(figure, path)
    return f"drew {len(outputs)} report plots from {len(rows)} segments: {', '.join(outputs)}"
