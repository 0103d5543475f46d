"""The four-section HTML book the end-to-end option tests run: a contents page (skipped by default)
and three chapters. tests/conftest.py writes it into a workdir as the ``tiny`` fixture.
"""

from __future__ import annotations

import yaml
from conftest import Workdir

from narrator.core.catalog import Row, read_catalog

#: About the smallest book with a choice in it: a contents page (skipped by default), three chapters.
TINY = """<html><head><title>The Tiny Book</title></head><body>
<h1>The Tiny Book</h1>
<h2>Contents</h2>
<p>One. Two. Three.</p>
<h2>One</h2>
<p>The lamp was lit at six. Nobody saw it.</p>
<h2>Two</h2>
<p>The fog came in at 7 o'clock.</p>
<h2>Three</h2>
<p>The boat came home at last.</p>
</body></html>
"""
SECTIONS = ["Contents", "One", "Two", "Three"]
#: The --config entry that narrates it, and the catalog it plans.
BOOK = "book=tiny.html"
CATALOG = "results/tiny/catalog.tsv"


def with_tiny_book(work: Workdir) -> Workdir:
    (work.path / "tiny.html").write_text(TINY)
    return work


def write_configfile(work: Workdir, settings: dict) -> str:
    path = work.path / "options.yaml"
    path.write_text(yaml.safe_dump(settings))
    return str(path)


def rows_of(work: Workdir) -> list[Row]:
    return read_catalog(work.path / CATALOG)


def titles_of(work: Workdir) -> list[str]:
    """The book's chapter titles in the catalog, between the credits that the M4B output turns on."""
    titles = list(dict.fromkeys(row.chapter_title for row in rows_of(work)))
    assert (titles[0], titles[-1]) == ("Opening credits", "End credits")
    return titles[1:-1]
