"""The config's choices reach a real run: chapters.include and exclude choose the catalog's chapters
(and the plan log names each one left out), a chapter index given with --config stays an index,
and nested --config overrides reach the rendered book.
"""

from __future__ import annotations

import json

import pytest
from conftest import Workdir
from small_books import NOVEL
from tiny_html import BOOK, CATALOG, SECTIONS, titles_of, write_configfile

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("chapters", "titles"),
    [
        ({}, ["One", "Two", "Three"]),
        ({"include": [1]}, ["Contents", "One", "Two", "Three"]),
        ({"include": ["^contents$"]}, ["Contents", "One", "Two", "Three"]),
        ({"exclude": [3]}, ["One", "Three"]),
        ({"exclude": ["^t"]}, ["One"]),
        ({"include": [1], "exclude": ["one|two"]}, ["Contents", "Three"]),
    ],
)
def test_chapters_include_and_exclude_choose_the_catalogs_chapters(tiny, chapters, titles):
    configfile = write_configfile(tiny, {"chapters": {"include": [], "exclude": [], **chapters}})
    tiny.run_book(BOOK, target=CATALOG, configfile=configfile)
    assert titles_of(tiny) == titles
    # The plan log names each section left out, and only those.
    log = (tiny.path / "logs" / "plan_catalog" / "tiny.log").read_text()
    for number, title in enumerate(SECTIONS, start=1):
        assert (f"skipped section {number} {title!r}" in log) == (title not in titles), (title, log)


def test_a_chapter_index_given_with_config_on_the_command_line_is_an_index(tiny):
    # Snakemake hands a nested --config value over as text: "[1]" must still be index 1, not a pattern.
    tiny.run_book(BOOK, "chapters={include: [1], exclude: []}", target=CATALOG)
    assert titles_of(tiny) == SECTIONS


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
