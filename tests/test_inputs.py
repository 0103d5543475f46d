"""Everything the config names is checked before any work: typed overrides, files, limits, identity."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
import yaml
from conftest import REPO, Workdir
from PIL import Image
from snakemake.cli import parse_config
from snakemake.utils import update_config

from narrator.core.errors import BookError, UserError
from narrator.plan.identity import SOURCE_FILE, check_source, record_source
from narrator.text.ingest import read_book
from narrator.text.limits import LimitError, Limits, check_segment_count
from narrator.workflow.config import check_cover, validate_config

SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
NOVEL = "# Novel\n\n## One\n\nThe lamp was lit at six. Nobody saw it.\n"


def _config(*entries: str) -> dict:
    """The config Snakemake 9 hands the workflow for ``--config entries``, validated by narrator."""
    overrides = parse_config(list(entries))
    config = copy.deepcopy(overrides)
    update_config(config, yaml.safe_load((REPO / "config.yaml").read_text()))
    update_config(config, overrides)
    validate_config(config, SCHEMA, overrides)
    return config


def _one_line(error: pytest.ExceptionInfo[UserError], *parts: str) -> str:
    text = str(error.value)
    assert "\n" not in text
    for part in parts:
        assert part in text
    return text


# --- nested --config values ---------------------------------------------------------------------


def test_nested_overrides_are_typed_and_merged_into_the_defaults() -> None:
    config = _config(
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
    config = _config("engines={espeak: {voice: 'no'}}", "encode={m4b_bitrate: 96k}")
    assert config["engines"]["espeak"]["voice"] == "no"
    assert config["encode"]["m4b_bitrate"] == "96k"


def test_a_nested_number_out_of_range_is_named_as_a_number() -> None:
    with pytest.raises(UserError) as error:
        _config("engines={espeak: {rate: 79}}")
    assert str(error.value) == "config engines.espeak.rate: 79 is less than the minimum of 80"


# --- files the config names ---------------------------------------------------------------------


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


# --- size limits ----------------------------------------------------------------------------------


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
    limits = Limits.from_config(_config())
    assert limits.book_bytes > 3_300_000 * 10 and limits.book_chars > 3_200_000 * 5
    check_segment_count(30_000 * 5, limits)


# --- book identity --------------------------------------------------------------------------------


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


# --- end to end: all of it is refused before any job starts -------------------------------------


@pytest.mark.slow
def test_nested_overrides_reach_the_rendered_book(workdir: Workdir) -> None:
    (workdir.path / "novel.md").write_text(NOVEL)
    workdir.run_book(
        "book=novel.md",
        "loudness={'target': -20, 'true_peak': -1}",
        "pauses={sentence: 0.5}",
        "engines={espeak: {rate: 150}}",
    )
    loudness = json.loads((workdir.results("novel") / "loudness.json").read_text())
    assert (loudness["target_lufs"], loudness["true_peak_ceiling_dbtp"]) == (-20, -1)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("book=folder", "folder: is a directory, not a book file"),
        ("book=pipe.txt", "pipe.txt: is not a regular file"),
        ("cover=cover.png", "cover.png: the cover is not an image"),
        ("lexicon=lexicon.yaml", "lexicon.yaml: not valid YAML (line 2)"),
        ("lexicon=folder", "folder: is a directory, not a lexicon file"),
        ("limits={book_bytes: 100}", "bytes, over the limit of 100 (limits.book_bytes)"),
        ("book_id=My_Book", "config book_id: 'My_Book' does not match"),
    ],
)
def test_bad_inputs_stop_before_any_job(workdir: Workdir, config: str, message: str) -> None:
    (workdir.path / "folder").mkdir()
    os.mkfifo(workdir.path / "pipe.txt")
    (workdir.path / "cover.png").write_text("not a picture")
    (workdir.path / "lexicon.yaml").write_text("Alice: Ah-lees\nCheshire: CHESH: er\nDodo: DOH-doh\n")
    result = workdir.run_book(config, check=False)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("narrator: ") and message in last
    assert "Traceback" not in result.stderr
    assert not (workdir.path / "results").exists()


@pytest.mark.slow
def test_two_books_with_one_file_name_keep_apart(workdir: Workdir) -> None:
    for folder, text in (("a", NOVEL), ("b", NOVEL.replace("six", "seven"))):
        (workdir.path / folder).mkdir()
        (workdir.path / folder / "novel.md").write_text(text)
    workdir.run_book("book=a/novel.md")
    first = workdir.results("novel")
    before = {path: path.read_bytes() for path in first.rglob("*") if path.is_file()}
    refused = workdir.run_book("book=b/novel.md", check=False)
    assert refused.returncode != 0
    last = refused.stderr.strip().splitlines()[-1]
    assert last.startswith(f"narrator: results/novel holds another book, {workdir.path / 'a' / 'novel.md'}")
    assert "book_id" in last
    assert {path: path.read_bytes() for path in first.rglob("*") if path.is_file()} == before
    workdir.run_book("book=b/novel.md", "book_id=other")
    assert (workdir.results("other") / "other.m4b").is_file()
    assert {path: path.read_bytes() for path in first.rglob("*") if path.is_file()} == before
