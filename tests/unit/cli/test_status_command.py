"""`narrator status` on the command line (narrator/cli.py): the summary line, a folder and a real plan,
one-line errors, the book's length beside speech, and --watch on a terminal and on a pipe.
"""

from __future__ import annotations

import argparse
import io
import re
from dataclasses import replace
from pathlib import Path

import pytest
from planned import PLAN, START, make_rows, write_loudness, write_planned

from narrator import cli
from narrator.cli import main
from narrator.core import catalog
from narrator.core.audio import WavRecord
from narrator.core.catalog import Row, read_catalog


def _status_row(index: int, done: bool, completed_at: float) -> Row:
    row = Row(
        segment_id=f"s{index}",
        sequence=index + 1,
        chapter=1,
        chapter_title="",
        paragraph=1,
        text="Some text.",
        spoken="Some text.",
        pause_after="sentence",
        wav_path=f"segments/s{index}.wav",
    )
    if done:
        record = WavRecord(frames=22050 * 30, sample_rate=22050, sha256="0" * 64)
        row = replace(row.marked_completed(record, 2.0), completed_at=completed_at)
    return row


def test_status_prints_counts_percent_and_eta(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "catalog.tsv"
    stamps = [1000.0, 1010.0, 1020.0]
    rows = [_status_row(i, i < 3, stamps[i] if i < 3 else 0.0) for i in range(10)]
    write_planned(path, rows)
    assert main(["status", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    # 7 left at one completion per 10 s of wall clock; 3 x 30 s of audio so far.
    summary = f"{path}: 3/10 completed (30.0%), 7 queued; audio so far 0.03 h (0:01:30); ETA 0:01:10"
    assert out.splitlines()[0] == summary  # then pace and bars (tests/unit/inspect/test_status.py)
    assert main(["status", "--brief", str(path)]) == 0
    assert capsys.readouterr().out == summary + "\n"


def test_status_of_a_folder_and_of_a_real_plan(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog.mark_queued(rendered, [read_catalog(rendered)[0].segment_id])
    total = len(read_catalog(rendered))
    assert main(["status", str(rendered.parent)]) == 0
    out = capsys.readouterr().out
    match = re.search(r"(\d+)/(\d+) completed \((\d+\.\d)%\), (\d+) queued", out)
    assert match and match.groups() == (
        str(total - 1),
        str(total),
        f"{100 * (total - 1) / total:.1f}",
        "1",
    )
    assert re.search(r"ETA (\d+:\d\d:\d\d|unknown)$", out.splitlines()[0])


def test_status_of_a_missing_catalog_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "nonexistent/catalog.tsv"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("narrator: ") and "nonexistent/catalog.tsv" in err
    assert "Traceback" not in err


def test_status_with_no_catalogs_at_all(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "--results", str(tmp_path / "results")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no catalogs" in err


def test_status_command_shows_the_book_length_beside_speech(tmp_path, capsys):
    catalog = tmp_path / "catalog.tsv"
    write_planned(catalog, make_rows([("One", 30, 30)]))
    write_loudness(tmp_path, 70.5, START + 3 * 30)
    assert cli.main(["status", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "  time  speech 0:01:00 at 60 words/min; book 0:01:10 with pauses\n" in out
    assert "  all   ████████████████████ 100%  30/30  0:01:00 of speech\n" in out


class FakeTerminal(io.StringIO):
    encoding = "utf-8"

    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


def _args(catalog: Path, watch: bool) -> argparse.Namespace:
    return argparse.Namespace(
        catalogs=[str(catalog)], results="results", watch=watch, interval=0.0, brief=False
    )


@pytest.mark.parametrize("terminal", [True, False])
def test_watch_redraws_a_terminal_and_appends_to_a_pipe(tmp_path, terminal):
    catalog = tmp_path / "catalog.tsv"
    write_planned(catalog, make_rows(PLAN))
    out = FakeTerminal(terminal)
    cli._status(_args(catalog, watch=True), out=out, rounds=2)
    text = out.getvalue()
    assert text.count(f"{catalog}: 17/30 completed (56.7%), 13 queued") == 2
    if terminal:
        assert text.count(cli.CLEAR) == 2 and text.startswith(cli.CLEAR)
    else:
        assert "\x1b" not in text
        # Two snapshots, each headed by its time, separated by a blank line.
        assert len(re.findall(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d  every 0 s", text, re.M)) == 2
        assert "\n\n" in text


def test_watch_survives_a_catalog_being_replanned(tmp_path):
    out = FakeTerminal(False)
    cli._status(_args(tmp_path / "catalog.tsv", watch=True), out=out, rounds=1)
    assert "no catalog here" in out.getvalue()


def test_status_without_watch_prints_no_escape_codes(tmp_path, capsys):
    catalog = tmp_path / "catalog.tsv"
    write_planned(catalog, make_rows(PLAN))
    assert cli.main(["status", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{catalog}: 17/30 completed (56.7%), 13 queued;")
    assert "\x1b" not in out
    assert "  ch  2 " in out
