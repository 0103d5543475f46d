"""The catalog TSV: exact round trips (ours and pandas'), locked concurrent updates, bad files."""

from __future__ import annotations

import multiprocessing
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from narrator.cli import main
from narrator.core.audio import WavRecord
from narrator.core.catalog import (
    COLUMNS,
    COMPLETED,
    QUEUED,
    ROW_COLUMNS,
    SECTOR,
    SLOT_WIDTH,
    Row,
    UnprovenCatalog,
    format_row,
    mark_completed,
    mark_queued,
    read_catalog,
    update_rows,
    write_catalog,
)
from narrator.core.errors import CatalogError
from narrator.engines.espeak import EspeakOptions
from narrator.plan.plan import PlanSettings, plan_rows, write_plan
from narrator.text.ingest import load_book

NASTY_TEXTS = [
    "plain",
    "tab\tinside",
    "\tleading tab",
    "new\nline",
    "ends with newline\n",
    "carriage\rreturn",
    "crlf\r\ninside",
    "\r\n",
    'double "quotes" inside',
    '"leading quote',
    'trailing quote"',
    '""',
    '"',
    "  leading and trailing spaces  ",
    " ",
    "NA",
    "N/A",
    "nan",
    "NaN",
    "null",
    "None",
    "#",
    "# not a comment",
    "",
    "emoji \U0001f600\U0001f468\u200d\U0001f469\u200d\U0001f467",
    "line\u2028separator and para\u2029separator",
    "combining e\u0301 n\u0303 a\u030a",
    "RTL \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 \u200f!",
    "back\\slash \\t \\n",
    "comma, semicolon; pipe | apostrophe's",
    "\x0bvertical\x0cform",
    "1e5",
    "007",
    "True",
]


def _row(index: int, text: str) -> Row:
    return Row(
        segment_id=f"seg{index:04d}",
        sequence=index + 1,
        chapter=1,
        chapter_title=text,
        paragraph=1,
        text=text,
        spoken=text,
        pause_after="sentence",
        wav_path=f"segments/seg{index:04d}.wav",
    )


def _pandas_rows(path: Path) -> list[dict[str, str]]:
    """The catalog as pandas reads it (every value a string), the way the README says to."""
    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    assert tuple(frame.columns) == COLUMNS
    assert all(not pad.strip() for pad in frame["pad"])
    return frame.drop(columns="pad").to_dict("records")


def _as_strings(rows: list[Row]) -> list[dict[str, str]]:
    return [dict(zip(ROW_COLUMNS, format_row(row), strict=True)) for row in rows]


def test_round_trip_of_nasty_texts(tmp_path: Path) -> None:
    path = tmp_path / "catalog.tsv"
    rows = [_row(i, text) for i, text in enumerate(NASTY_TEXTS)]
    write_catalog(path, rows)
    assert read_catalog(path) == rows
    assert _pandas_rows(path) == _as_strings(rows)
    assert [row["text"] for row in _pandas_rows(path)] == NASTY_TEXTS


@pytest.mark.parametrize("text", NASTY_TEXTS)
def test_each_nasty_text_alone_round_trips(tmp_path: Path, text: str) -> None:
    # Alone, a text is also the first and last row, where parsers tend to trip.
    path = tmp_path / "catalog.tsv"
    rows = [_row(0, text)]
    write_catalog(path, rows)
    assert read_catalog(path) == rows
    assert _pandas_rows(path) == _as_strings(rows)


def test_realistic_plan_round_trips_through_pandas(tmp_path: Path) -> None:
    book = tmp_path / "odd-book.md"
    book.write_text(
        "# Odd Book\n\n"
        '## "Quoted" Title \U0001f600\n\n'
        '"Leading quote," she said.\tThen\ttabs.\n\n'
        "NA\n\n"
        "null\n\n"
        "\\#\n\n"
        "Caf\u00e9 cre\u0300me, \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627, "
        "emoji \U0001f468\u200d\U0001f469\u200d\U0001f467 and 'single' quotes.\n\n"
        "## Second\u2028Chapter\n\n"
        'He wrote "#1" on a line\u2028then another; back\\\\slash.\n',
        encoding="utf-8",
    )
    catalog_path = tmp_path / "results" / "odd-book" / "catalog.tsv"
    catalog_path.parent.mkdir(parents=True)
    options = EspeakOptions(voice="en-us", rate=175)
    settings = PlanSettings(engine="espeak", options=options, budget=400)
    summary = write_plan(book, catalog_path, catalog_path.with_name("book.json"), settings)
    assert "planned" in summary
    expected = plan_rows(load_book(book), settings)
    texts = [row.text for row in expected]
    assert "NA" in texts and "null" in texts
    assert "#" not in texts  # decoration only: nothing to say, so no segment
    assert any(text.startswith('"Leading quote,"') for text in texts)
    assert read_catalog(catalog_path) == expected
    assert _pandas_rows(catalog_path) == _as_strings(expected)
    frame = pd.read_csv(catalog_path, sep="\t", dtype=str, keep_default_na=False)
    assert frame["text"].tolist() == texts
    assert frame["chapter_title"].tolist() == [row.chapter_title for row in expected]
    assert len(set(frame["segment_id"])) == len(frame)


# --- concurrent updates ----------------------------------------------------------------------


def _record(index: int) -> WavRecord:
    return WavRecord(frames=1000 + index, sample_rate=22050, sha256=f"{index:064x}")


def _mark_many(path: str, indices: list[int], barrier) -> None:
    barrier.wait()
    for index in indices:
        mark_completed(path, f"seg{index:04d}", _record(index), render_seconds=index / 1000)


def _hundred_rows(path: Path) -> None:
    write_catalog(path, [_row(i, f'Sentence number {i}.\t"q"\n') for i in range(100)])


def _check_all_marked(path: Path) -> None:
    rows = read_catalog(path)
    assert len(rows) == 100
    for index, row in enumerate(rows):
        assert row.segment_id == f"seg{index:04d}"
        assert row.text == f'Sentence number {index}.\t"q"\n'
        assert row.status == COMPLETED, f"lost update for {row.segment_id}"
        assert row.record == _record(index)
        assert row.render_seconds == round(index / 1000, 3)
        assert row.completed_at
    assert len(_pandas_rows(path)) == 100
    # No temp file of an atomic write is left behind.
    assert not [p.name for p in path.parent.iterdir() if ".tmp-" in p.name]


def test_concurrent_processes_lose_no_marks(tmp_path: Path) -> None:
    path = tmp_path / "catalog.tsv"
    _hundred_rows(path)
    context = multiprocessing.get_context("fork")
    workers = 4
    barrier = context.Barrier(workers)
    # Interleaved shares, so neighbouring rows are marked by different processes.
    processes = [
        context.Process(target=_mark_many, args=(str(path), list(range(w, 100, workers)), barrier))
        for w in range(workers)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=60)
    assert [process.exitcode for process in processes] == [0] * workers
    _check_all_marked(path)


def test_concurrent_threads_lose_no_marks(tmp_path: Path) -> None:
    path = tmp_path / "catalog.tsv"
    _hundred_rows(path)
    workers = 4
    barrier = threading.Barrier(workers)
    with ThreadPoolExecutor(workers) as pool:
        futures = [
            pool.submit(_mark_many, str(path), list(range(w, 100, workers)), barrier) for w in range(workers)
        ]
    assert [future.result(timeout=60) for future in futures] == [None] * workers  # re-raises errors
    _check_all_marked(path)


# --- updates and errors ----------------------------------------------------------------------


def test_mark_queued_clears_the_record(tmp_path: Path) -> None:
    path = tmp_path / "catalog.tsv"
    _hundred_rows(path)
    mark_completed(path, "seg0003", _record(3), 1.5)
    mark_completed(path, "seg0004", _record(4), 1.5)
    mark_queued(path, ["seg0003"])
    rows = {row.segment_id: row for row in read_catalog(path)}
    assert rows["seg0003"].status == QUEUED
    assert rows["seg0003"] == _row(3, 'Sentence number 3.\t"q"\n')  # the record is gone
    assert rows["seg0004"].status == COMPLETED


def _slots(data: bytes) -> list[int]:
    """Where each row's slot starts: SLOT_WIDTH bytes before the row's newline."""
    starts = [match.start() for match in re.finditer(rb'\n"seg\d{4}"\t', data)]
    newlines = [*starts[1:], len(data) - 1]
    return [newline - SLOT_WIDTH for newline in newlines]


def test_a_mark_rewrites_only_its_slot_in_place(tmp_path: Path) -> None:
    path = tmp_path / "catalog.tsv"
    write_catalog(path, [_row(i, f"Sentence {i} " + "long " * (i % 40)) for i in range(300)])
    before, inode = path.read_bytes(), path.stat().st_ino
    slots = _slots(before)
    # No slot crosses a sector boundary, so no crash can tear one.
    assert all(start // SECTOR == (start + SLOT_WIDTH - 1) // SECTOR for start in slots)
    mark_completed(path, "seg0123", _record(123), 2.5)
    after = path.read_bytes()
    assert path.stat().st_ino == inode and len(after) == len(before)
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert slots[123] <= changed[0] and changed[-1] < slots[123] + SLOT_WIDTH
    rows = read_catalog(path)
    assert rows[123].record == _record(123) and rows[123].render_seconds == 2.5
    assert [row for i, row in enumerate(rows) if i != 123] == [
        _row(i, f"Sentence {i} " + "long " * (i % 40)) for i in range(300) if i != 123
    ]
    mark_queued(path, ["seg0123"])
    assert path.read_bytes() == before


def test_a_mark_after_a_hand_edit_rewrites_the_catalog_whole(tmp_path: Path) -> None:
    path = tmp_path / "catalog.tsv"
    _hundred_rows(path)
    mark_completed(path, "seg0007", _record(7), 1.0)
    mark_completed(path, "seg0008", _record(8), 1.0)
    # A user re-queues a row by hand in an editor: the row's slot no longer has its width.
    data = path.read_bytes()
    start = data.index(b'"seg0007"')
    edited = data[:start] + data[start:].replace(b'"completed"', b'"queued"', 1)
    path.write_bytes(edited)
    assert read_catalog(path)[7].status == QUEUED
    mark_completed(path, "seg0009", _record(9), 1.0)
    rows = read_catalog(path)
    assert [row.status for row in rows[7:10]] == [QUEUED, COMPLETED, COMPLETED]
    assert rows[9].record == _record(9)
    assert all(start // SECTOR == (start + SLOT_WIDTH - 1) // SECTOR for start in _slots(path.read_bytes()))


def test_marks_in_two_catalogs_with_the_same_ids_stay_apart(tmp_path: Path) -> None:
    # Ids are content hashes: two books share the id of a sentence they share, never its row.
    first, second = tmp_path / "a" / "catalog.tsv", tmp_path / "b" / "catalog.tsv"
    for path, texts in ((first, ["x" * 50, "Shared."]), (second, ["Shared."])):
        path.parent.mkdir()
        write_catalog(
            path, [replace(_row(i, text), segment_id=f"id-{text[:5]}") for i, text in enumerate(texts)]
        )
    mark_completed(first, "id-Share", _record(1), 1.0)
    mark_completed(second, "id-Share", _record(2), 1.0)
    assert read_catalog(first)[1].record == _record(1) and read_catalog(second)[0].record == _record(2)


def test_update_rows_with_unknown_id_raises_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "catalog.tsv"
    _hundred_rows(path)
    before = path.read_bytes()
    with pytest.raises(CatalogError, match="nosuchsegment"):
        update_rows(path, {"seg0001": Row.marked_queued, "nosuchsegment": Row.marked_queued})
    assert path.read_bytes() == before


def test_mark_completed_unknown_id_raises(tmp_path: Path) -> None:
    path = tmp_path / "catalog.tsv"
    _hundred_rows(path)
    with pytest.raises(CatalogError):
        mark_completed(path, "missing", _record(0), 0.1)


@pytest.mark.parametrize(
    "content",
    [
        "id\ttext\nx\ty\n",
        "\t".join(COLUMNS[:-1]) + "\n",
        "\t".join(reversed(COLUMNS)) + "\n",
        ",".join(COLUMNS) + "\n",
        "",
    ],
)
def test_wrong_header_raises(tmp_path: Path, content: str) -> None:
    path = tmp_path / "catalog.tsv"
    path.write_text(content)
    with pytest.raises(CatalogError, match="not a narrator catalog"):
        read_catalog(path)


def test_short_row_raises(tmp_path: Path) -> None:
    path = tmp_path / "catalog.tsv"
    write_catalog(path, [_row(0, "ok")])
    with open(path, "a") as handle:
        handle.write('"seg9"\t"2"\n')
    with pytest.raises(CatalogError, match="malformed"):
        read_catalog(path)


def test_missing_catalog_raises(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="no catalog here"):
        read_catalog(tmp_path / "nope" / "catalog.tsv")


def test_a_catalog_of_the_earlier_layout_asks_for_a_re_plan(tmp_path: Path) -> None:
    # Before in-place marks the catalog had no pad column; a re-plan keeps every finished WAV.
    path = tmp_path / "catalog.tsv"
    lines = [ROW_COLUMNS, format_row(_row(0, "Old."))]
    path.write_text("".join("\t".join(f'"{value}"' for value in line) + "\n" for line in lines))
    with pytest.raises(UnprovenCatalog, match="before in-place marks; run snakemake again to re-plan"):
        read_catalog(path)


def test_a_hand_edited_number_is_one_line_naming_the_row(rendered: Path, capsys) -> None:
    third = read_catalog(rendered)[2]
    record = f'"{third.frames}"\t"{third.sample_rate}"\t"{third.sha256}"'
    hand_edited = f'"12x4"\t"{third.sample_rate}"\t"{third.sha256}"'
    rendered.write_text(rendered.read_text().replace(record, hand_edited))
    with pytest.raises(CatalogError, match=r"row 3 \(segment \w+\) has frames='12x4', not a number"):
        read_catalog(rendered)
    assert main(["status", str(rendered)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "12x4" in err
