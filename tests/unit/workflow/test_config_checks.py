"""Everything the config names is checked before any work: typed overrides, files, limits, identity.

What a real run makes of a bad input: tests/e2e/test_bad_input_stops_the_run.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import validated_config
from PIL import Image
from small_books import NOVEL

from narrator.core.errors import BookError, UserError
from narrator.plan.identity import SOURCE_FILE, check_source, record_source
from narrator.text.ingest import read_book
from narrator.text.limits import LimitError, Limits, check_segment_count
from narrator.workflow.config import check_cover


def _one_line(error: pytest.ExceptionInfo[UserError], *parts: str) -> str:
    text = str(error.value)
    assert "\n" not in text
    for part in parts:
        assert part in text
    return text


def test_nested_overrides_are_typed_and_merged_into_the_defaults() -> None:
    config = validated_config(
        "loudness={'target': -16}",
        "pauses={sentence: 0.5}",
        "engines={espeak: {rate: 150}}",
        "chapters={include: [3, Epilogue]}",
    )
    assert config["loudness"] == {"target": -16, "true_peak": -1.5}
    assert config["pauses"]["sentence"] == 0.5 and config["pauses"]["chapter"] == 2.0
    assert config["engines"]["espeak"] == {"voice": "auto", "rate": 150}
    assert config["engines"]["piper"]["threads"] == 1
    assert config["chapters"] == {"include": [3, "Epilogue"], "exclude": []}


def test_nested_text_stays_text_where_the_schema_wants_text() -> None:
    config = validated_config("engines={espeak: {voice: 'no'}}", "encode={m4b_bitrate: 96k}")
    assert config["engines"]["espeak"]["voice"] == "no"
    assert config["encode"]["m4b_bitrate"] == "96k"


def test_a_nested_number_out_of_range_is_named_as_a_number() -> None:
    with pytest.raises(UserError) as error:
        validated_config("engines={espeak: {rate: 79}}")
    assert str(error.value) == "config engines.espeak.rate: 79 is less than the minimum of 80"


def test_a_folder_or_a_fifo_is_not_a_book(tmp_path: Path) -> None:
    folder = tmp_path / "novel.md"
    folder.mkdir()
    with pytest.raises(BookError) as error:
        read_book(folder)
    _one_line(error, "novel.md: is a directory, not a book file")
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    with pytest.raises(BookError) as error:
        read_book(fifo)
    _one_line(error, "pipe.txt: is not a regular file")


def test_a_cover_must_decode_as_an_image(tmp_path: Path) -> None:
    cover = tmp_path / "cover.png"
    Image.new("RGB", (8, 8), "navy").save(cover)
    check_cover(cover)
    cover.write_bytes(cover.read_bytes()[:40])
    with pytest.raises(UserError) as error:
        check_cover(cover)
    _one_line(error, "cover.png: the cover is not an image")
    with pytest.raises(UserError) as error:
        check_cover(tmp_path)
    _one_line(error, "is a directory, not a cover image")


def test_limits_name_the_figure_and_the_key_to_raise(tmp_path: Path) -> None:
    book = tmp_path / "novel.md"
    book.write_text(NOVEL)
    roomy = Limits(book_bytes=10_000, book_chars=10_000, segments=10)
    assert read_book(book, limits=roomy).chapters
    with pytest.raises(LimitError) as error:
        read_book(book, limits=Limits(book_bytes=20, book_chars=10_000, segments=10))
    _one_line(error, f"has {len(NOVEL)} bytes", "limit of 20 (limits.book_bytes)", "book_bytes: ")
    with pytest.raises(LimitError) as error:
        read_book(book, limits=Limits(book_bytes=10_000, book_chars=20, segments=10))
    _one_line(error, "characters, over the limit of 20 (limits.book_chars)")
    check_segment_count(10, roomy)
    with pytest.raises(LimitError) as error:
        check_segment_count(30_001, roomy)
    _one_line(error, "the plan has 30,001 segments", "(limits.segments)", 'limits="{segments: 30001}"')


def test_default_limits_pass_a_very_long_novel() -> None:
    limits = Limits.from_config(validated_config())
    assert limits.book_bytes > 3_300_000 * 10 and limits.book_chars > 3_200_000 * 5
    check_segment_count(30_000 * 5, limits)


def test_a_results_folder_belongs_to_one_book(tmp_path: Path) -> None:
    results = tmp_path / "results" / "novel"
    first, second, moved = (tmp_path / name / "novel.md" for name in ("a", "b", "c"))
    for path, text in ((first, NOVEL), (second, NOVEL + "\nMore.\n"), (moved, NOVEL)):
        path.parent.mkdir()
        path.write_text(text)
    check_source(results, second, "novel")  # nothing recorded yet
    record_source(results, first)
    assert json.loads((results / SOURCE_FILE).read_text())["path"] == str(first.resolve())
    first.write_text(NOVEL + "\nEdited in place.\n")
    check_source(results, first, "novel")
    check_source(results, moved, "novel")  # same bytes as recorded, elsewhere
    with pytest.raises(UserError) as error:
        check_source(results, second, "novel")
    _one_line(error, f"holds another book, {first.resolve()}, not {second.resolve()}", "book_id=novel-2")
