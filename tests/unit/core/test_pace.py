"""Pace: words per minute of speech, and the config's pace mapped onto each engine's speed option."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
import yaml
from conftest import REPO

from narrator.core.catalog import COMPLETED, Row
from narrator.core.pace import count_words, pace_by_chapter, pace_of
from narrator.engines import engine_class
from narrator.engines.espeak import EspeakEngine, EspeakOptions
from narrator.engines.kokoro import KokoroEngine
from narrator.engines.piper import PiperEngine
from narrator.plan.plan import PlanSettings, plan_rows
from narrator.text.ingest import load_book

CONFIG_PACE = yaml.safe_load((REPO / "config.yaml").read_text())["pace"]
#: About 130 words of the bundled sample's kind of prose: enough for a pace within a few percent.
PASSAGE = (
    "The lighthouse stood at the end of the long grey spit, where the sea came in from three sides. "
    "Every evening the keeper climbed its ninety-one steps, wound the clockwork, and lit the lamp. "
    "He had done it for twenty years, in fog and gale and on the rare still nights of June. "
    "Ships he would never meet passed by in the dark and read his light like a sentence. "
    "His daughter thought the work was dull, but she counted the ships in a notebook all the same. "
    "One winter a storm tore the roof from the oil store, and the keeper carried the cans up by hand. "
    "By morning the lamp was still burning, and the fishing boats came home one by one."
)


def _row(chapter: int, text: str, seconds: float | None) -> Row:
    planned = Row(chapter, "", 1, text, text, "sentence", f"{chapter:016x}", chapter, "x.wav")
    if seconds is None:
        return planned
    return replace(planned, status=COMPLETED, frames=int(seconds * 1000), sample_rate=1000)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Don't stop: it's well-known.", 4),
        ("In 1865, at 3.30 p.m., she left.", 7),
        ("« Ça va ? » — Oui, très bien.", 5),
        ("", 0),
    ],
)
def test_words_are_counted_as_a_reader_counts_them(text: str, words: int) -> None:
    assert count_words(text) == words


def test_pace_counts_completed_speech_only_per_chapter() -> None:
    rows = [_row(1, "one two three", 1.0), _row(1, "four five six", 2.0), _row(2, "seven eight", None)]
    assert pace_of(rows).wpm == pytest.approx(60.0 * 6 / 3.0)
    chapters = pace_by_chapter(rows)
    assert chapters[1].wpm == pytest.approx(120.0)
    assert chapters[2].wpm is None  # nothing rendered yet: no pace, not zero


@pytest.mark.parametrize("engine", [PiperEngine, EspeakEngine, KokoroEngine])
def test_pace_sets_the_speed_option_and_an_explicit_one_wins(engine: type) -> None:
    option = engine.speed_option
    unset = engine.Options()
    slower, faster = (
        getattr(engine.for_pace(unset, 140), option),
        getattr(engine.for_pace(unset, 180), option),
    )
    # length_scale grows as the voice slows; rate and speed shrink.
    assert (slower > faster) if option == "length_scale" else (slower < faster)
    explicit = {option: 175 if option == "rate" else 1.0}  # a valid setting of each engine's knob
    assert engine.for_pace(engine.Options.from_config(explicit), 140).settings() == explicit


def test_an_engine_without_a_measured_pace_keeps_its_voice() -> None:
    coqui = engine_class("coqui")
    assert coqui.pace_fit is None
    assert coqui.for_pace(coqui.Options(model_name="m"), 160).settings() == {"model_name": "m"}


def _sample_sentences(words: int) -> list[str]:
    """The bundled sample book's first sentences, about ``words`` words of them, as planned."""
    rows = plan_rows(
        load_book(REPO / "workflow/resources/sample.md"), PlanSettings("espeak", EspeakOptions(), 400)
    )
    taken: list[str] = []
    while rows and sum(count_words(text) for text in taken) < words:
        taken.append(rows.pop(0).spoken)
    return taken


@pytest.mark.parametrize("name", ["piper", "espeak"])
def test_the_default_pace_is_an_audiobook_pace(name: str) -> None:
    """The config's pace, rendered: 150-170 words per minute of speech on the sample (Piper read 216
    before pace existed). Pace varies with the text (short words read faster): another passage may
    stray a little further, measured 168.8 (Piper) and 171.0 (espeak) at pace 158."""
    cls = engine_class(name)
    engine = cls.load(
        cls.for_pace(cls.Options.from_config({"voice": "en-us"} if name == "espeak" else {}), CONFIG_PACE)
    )
    for text, (low, high) in (
        (_sample_sentences(150), (150.0, 170.0)),
        (re.split(r"(?<=\.) ", PASSAGE), (145.0, 175.0)),
    ):
        seconds = sum(len(engine.synthesize(s, seed=i)) for i, s in enumerate(text)) / engine.sample_rate
        wpm = 60.0 * sum(count_words(s) for s in text) / seconds
        assert low <= wpm <= high, f"{name} at pace {CONFIG_PACE}: {wpm:.1f} words per minute"
