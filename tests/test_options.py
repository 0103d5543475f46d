"""End to end: the config options that choose what is read, and how, on a four-section HTML book."""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import REPO, Workdir, kill_when, read_audio

from narrator.core.audio import to_pcm16
from narrator.core.catalog import Row, read_catalog, wav_file
from narrator.engines.espeak import EspeakEngine, voice_for_language
from narrator.render.render import seed_for

pytestmark = pytest.mark.slow

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
BOOK = "book=tiny.html"
CATALOG = "results/tiny/catalog.tsv"
#: Entries the book never uses: they change no spoken word, but take the plan a second or more to load.
INERT_LEXICON = {f"Zqv{number:05d}": "never said" for number in range(10000)}


def _with_tiny_book(work: Workdir) -> Workdir:
    (work.path / "tiny.html").write_text(TINY)
    return work


@pytest.fixture
def tiny(workdir: Workdir) -> Workdir:
    return _with_tiny_book(workdir)


def _configfile(work: Workdir, settings: dict) -> str:
    path = work.path / "options.yaml"
    path.write_text(yaml.safe_dump(settings))
    return str(path)


def _rows(work: Workdir) -> list[Row]:
    return read_catalog(work.path / CATALOG)


def _titles(work: Workdir) -> list[str]:
    """The book's chapter titles in the catalog, between the credits that the M4B output turns on."""
    titles = list(dict.fromkeys(row.chapter_title for row in _rows(work)))
    assert (titles[0], titles[-1]) == ("Opening credits", "End credits")
    return titles[1:-1]


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
    configfile = _configfile(tiny, {"chapters": {"include": [], "exclude": [], **chapters}})
    tiny.run_book(BOOK, target=CATALOG, configfile=configfile)
    assert _titles(tiny) == titles
    # The plan log names each section left out, and only those.
    log = (tiny.path / "logs" / "plan_catalog" / "tiny.log").read_text()
    for number, title in enumerate(SECTIONS, start=1):
        assert (f"skipped section {number} {title!r}" in log) == (title not in titles), (title, log)


def test_a_chapter_index_given_with_config_on_the_command_line_is_an_index(tiny):
    # Snakemake hands a nested --config value over as text: "[1]" must still be index 1, not a pattern.
    tiny.run_book(BOOK, "chapters={include: [1], exclude: []}", target=CATALOG)
    assert _titles(tiny) == SECTIONS


def test_a_voice_option_change_rerenders_every_segment(tiny):
    tiny.run_book(BOOK, target="render_all")
    before = _rows(tiny)
    first_run = tiny.render_pid((row.segment_id for row in before), "tiny")
    started = len(tiny.rendered_jobs())

    faster = _configfile(tiny, {"engines": {"espeak": {"voice": "auto", "rate": 260}}})
    tiny.run_book(BOOK, target="render_all", configfile=faster)
    after = _rows(tiny)
    new_ids = [row.segment_id for row in after]
    # Same text, new voice settings: every segment has a new id and was rendered again, by the new run.
    assert [row.text for row in after] == [row.text for row in before]
    assert not set(new_ids) & {row.segment_id for row in before}
    assert sorted(tiny.rendered_jobs()[started:]) == sorted(new_ids)
    assert tiny.render_pid(new_ids, "tiny") != first_run
    assert {path.stem for path in (tiny.results("tiny") / "segments").glob("*.wav")} == set(new_ids)
    # The option reached the voice: faster speech is shorter.
    assert sum(int(row.frames) for row in after) < sum(int(row.frames) for row in before)


@pytest.mark.parametrize("engine", ["espeak", "piper"])
def test_render_jobs_on_the_cpu_ask_for_no_gpu(tiny, engine):
    gpus = tiny.render_job_gpus("--config", f"engine={engine}", BOOK)
    rows = _rows(tiny)
    assert rows and gpus == [0] * len(rows)


def test_language_override_skips_english_normalization_and_picks_the_voice(tiny):
    tiny.run_book(BOOK, "language=de", target="render_all")
    log = (tiny.path / "logs" / "plan_catalog" / "tiny.log").read_text()
    assert "English normalization skipped for 'de'" in log
    rows = _rows(tiny)
    # Read as English, "7 o'clock" would be spoken "seven o'clock".
    assert "The fog came in at 7 o'clock." in [row.spoken for row in rows]
    # espeak's auto voice is German's: each WAV is what that voice says, and not what English says.
    voice = voice_for_language("de")
    assert voice == "de"
    pace = yaml.safe_load((REPO / "config.yaml").read_text())["pace"]
    german, english = (
        EspeakEngine.load(EspeakEngine.for_pace({"voice": name}, pace)) for name in (voice, "en-us")
    )
    try:
        for row in rows:
            wav, rate = read_audio(wav_file(tiny.path / CATALOG, row))
            seed = seed_for(row.spoken)
            assert rate == german.sample_rate
            assert np.array_equal(wav, to_pcm16(german.synthesize(row.spoken, seed=seed))), row.spoken
            assert not np.array_equal(wav, to_pcm16(english.synthesize(row.spoken, seed=seed)))
    finally:
        german.close()
        english.close()


def test_a_kill_while_planning_then_restart_gives_the_identical_book(tmp_path):
    config = (BOOK, "lexicon=inert.yaml")
    runs = {}
    for name in ("uninterrupted", "killed"):
        runs[name] = _with_tiny_book(Workdir(tmp_path / name))
        (runs[name].path / "inert.yaml").write_text(yaml.safe_dump(INERT_LEXICON))
    runs["uninterrupted"].run_book(*config)

    work = runs["killed"]
    # Snakemake marks a job's outputs incomplete when it starts it, and unmarks them when it ends.
    marker = work.path / ".snakemake" / "incomplete" / base64.urlsafe_b64encode(CATALOG.encode()).decode()
    kill_when(work.start_book(*config), marker.exists)
    assert marker.exists() and not (work.path / CATALOG).exists(), "the kill did not land in plan_catalog"
    work.snakemake("--unlock")
    work.run_book(*config)

    master = Path("results/tiny/tiny.wav")
    books = [read_audio(run.path / master)[0] for run in runs.values()]
    assert np.array_equal(books[0], books[1])
    assert not marker.exists()
