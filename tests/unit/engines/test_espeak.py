"""The espeak engine: deterministic, thread-safe, and safe with arbitrary text."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from narrator.engines.base import EngineError
from narrator.engines.espeak import EspeakEngine, EspeakOptions

SENTENCES = [
    "Hello world.",
    "It was the best of times, it was the worst of times.",
    "Call me Ishmael.",
    "The quick brown fox jumps over the lazy dog.",
]


@pytest.fixture(scope="module")
def engine() -> Iterator[EspeakEngine]:
    engine = EspeakEngine.load(EspeakOptions())
    yield engine
    engine.close()


def test_audio_format(engine: EspeakEngine) -> None:
    audio = engine.synthesize("Hello world.", seed=0)
    assert engine.sample_rate == 22050
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert 0.5 < len(audio) / engine.sample_rate < 3.0
    assert 0.05 < np.abs(audio).max() <= 1.0


def test_same_text_same_samples_regardless_of_history(engine: EspeakEngine) -> None:
    # In-process libespeak-ng drifts by a few samples after other utterances; the helper
    # must not.
    first = engine.synthesize(SENTENCES[0], seed=1)
    for other in SENTENCES[1:]:
        engine.synthesize(other, seed=2)
    again = engine.synthesize(SENTENCES[0], seed=3)
    np.testing.assert_array_equal(first, again)


def test_concurrent_matches_sequential(engine: EspeakEngine) -> None:
    sequential = [engine.synthesize(text, seed=0) for text in SENTENCES]
    with ThreadPoolExecutor(max_workers=4) as pool:
        concurrent = list(pool.map(lambda t: engine.synthesize(t, seed=0), SENTENCES * 3))
    for i, audio in enumerate(concurrent):
        np.testing.assert_array_equal(audio, sequential[i % len(SENTENCES)])


@pytest.mark.parametrize(
    "text",
    [
        "She said \"hello\" and 'goodbye'.",
        "tab\there, newline\nthere,\r\nand done.",
        "naïve café — ‘quoted’ «guillemets» 東京",
        "nul\0byte and lone surrogate \ud800 here",
        "<speak>not ssml</speak> [[h@l'oU]]",
    ],
)
def test_awkward_text_synthesizes(engine: EspeakEngine, text: str) -> None:
    audio = engine.synthesize(text, seed=0)
    assert audio.size > engine.sample_rate // 4
    assert np.abs(audio).max() > 0.05


@pytest.mark.parametrize(
    "template",
    [
        "It cost $(touch {canary}) pounds.",
        "It cost `touch {canary}` pounds.",
        "Say '; touch {canary}; echo ' again.",
        'He said "; touch {canary}; echo " twice.',
        "Stop; touch {canary} && echo here.",
        "Write this > {canary} now.",
    ],
)
def test_shell_syntax_in_the_text_is_spoken_never_run(
    engine: EspeakEngine,
    tmp_path: Path,
    template: str,
) -> None:
    # Each payload creates the canary if a shell reads the text: bare, in single or in double quotes.
    canary = tmp_path / "canary"
    audio = engine.synthesize(template.format(canary=canary), seed=0)
    assert audio.size > engine.sample_rate // 2
    assert not canary.exists()


def test_unknown_voice() -> None:
    with pytest.raises(EngineError, match="no voice named 'no-such-voice'") as info:
        EspeakEngine.load(EspeakOptions(voice="no-such-voice"))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("options", [{"rate": 5}, {"pitch": 101}, {"rate": "fast"}, {"voice": 3}])
def test_bad_options(options: dict[str, object]) -> None:
    with pytest.raises(EngineError):
        EspeakEngine.load(EspeakOptions.from_config(options))


def test_options_change_output(engine: EspeakEngine) -> None:
    slow = EspeakEngine.load(EspeakOptions(rate=100, pitch=20))
    try:
        assert len(slow.synthesize("Hello world.", seed=0)) > len(engine.synthesize("Hello world.", seed=0))
    finally:
        slow.close()


def test_restarts_a_dead_helper() -> None:
    engine = EspeakEngine.load(EspeakOptions())
    try:
        before = engine.synthesize("Hello world.", seed=0)
        engine._helper.proc.kill()
        engine._helper.proc.wait()
        np.testing.assert_array_equal(engine.synthesize("Hello world.", seed=0), before)
    finally:
        engine.close()


def test_closed_engine_raises() -> None:
    engine = EspeakEngine.load(EspeakOptions())
    proc = engine._helper.proc
    engine.close()
    assert proc.poll() is not None
    with pytest.raises(EngineError, match="closed"):
        engine.synthesize("Hello.", seed=0)


@pytest.mark.parametrize(
    ("options", "language", "voice"),
    [
        ({}, "fr", "fr"),
        ({"voice": "auto", "rate": 200}, "fr-CA", "fr"),  # no Canadian voice: plain French
        ({"voice": "auto"}, "pt_BR", "pt-BR"),
        ({"voice": "auto"}, "en-US", "en-US"),
        ({"voice": "auto"}, "eng", "en"),  # three-letter tags occur in real EPUBs
        ({"voice": "auto"}, "zh-CN", "cmn"),
        ({"voice": "en-us"}, "en-GB", "en-us"),  # a chosen voice of the language stays
        ({"voice": "fr+f3"}, "fr", "fr+f3"),
    ],
)
def test_voice_follows_the_books_language(options: dict, language: str, voice: str) -> None:
    assert EspeakEngine.for_language(EspeakOptions.from_config(options), language).settings() == {
        **options,
        "voice": voice,
    }


def test_french_book_is_read_by_a_french_voice() -> None:
    sentence = "Le petit chat dort sur le lit."
    french = EspeakEngine.load(EspeakEngine.for_language(EspeakOptions(voice="auto"), "fr"))
    english = EspeakEngine.load(EspeakOptions(voice="en-us"))
    try:
        heard, misread = french.synthesize(sentence, seed=0), english.synthesize(sentence, seed=0)
    finally:
        french.close()
        english.close()
    assert heard.size > french.sample_rate // 2 and np.abs(heard).max() > 0.05
    assert heard.size != misread.size or not np.array_equal(heard, misread)


@pytest.mark.parametrize(
    ("options", "language", "expected"),
    [
        ({"voice": "en-us"}, "fr", ["'fr'", "engines.espeak.voice", "language:", "auto"]),
        ({"voice": "auto"}, "xx", ["no voice for the book's language 'xx'", "language:"]),
        ({"voice": "f3"}, "en", ["no voice named 'f3'", "engines.espeak.voice"]),
    ],
)
def test_a_voice_that_cannot_read_the_book_is_refused_in_one_line(
    options: dict, language: str, expected: list[str]
) -> None:
    with pytest.raises(EngineError) as info:
        EspeakEngine.for_language(EspeakOptions.from_config(options), language)
    assert all(part in str(info.value) for part in expected) and "\n" not in str(info.value)


def test_auto_voice_must_be_resolved_before_loading() -> None:
    with pytest.raises(EngineError, match="for_language"):
        EspeakEngine.load(EspeakOptions(voice="auto"))


def test_a_stopped_helper_is_killed_after_the_timeout_and_the_segment_still_renders(monkeypatch) -> None:
    """SIGSTOP the helper (a stuck process looks the same): the call must not wait for ever."""
    import os
    import signal
    import time

    from narrator.engines import espeak

    engine = EspeakEngine.load(EspeakOptions())
    try:
        expected = engine.synthesize("Hello there.", seed=0)
        monkeypatch.setattr(espeak, "TIMEOUT_S", 1.0)
        stopped = engine._helper.proc
        os.kill(stopped.pid, signal.SIGSTOP)
        started = time.monotonic()
        again = engine.synthesize("Hello there.", seed=0)
        assert time.monotonic() - started < 10
        np.testing.assert_array_equal(again, expected)
        assert stopped.poll() is not None  # killed, and a fresh helper answered
    finally:
        engine.close()
