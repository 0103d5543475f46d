"""PiperEngine: seeded noise makes it deterministic while the noise stays in effect."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from narrator.engines.base import EngineError
from narrator.engines.piper import PiperEngine

TEXT = "The quick brown fox jumps over the lazy dog. It was late."


@pytest.fixture(scope="module")
def engine() -> PiperEngine:
    return PiperEngine.load({})


def test_same_seed_gives_same_samples(engine: PiperEngine) -> None:
    first = engine.synthesize(TEXT, seed=7)
    second = engine.synthesize(TEXT, seed=7)
    assert engine.sample_rate == 22050
    assert first.dtype == np.float32 and first.ndim == 1
    assert np.abs(first).max() <= 1.0
    assert 2.0 < first.size / engine.sample_rate < 8.0  # two short sentences
    np.testing.assert_array_equal(first, second)


def test_different_seed_gives_different_samples(engine: PiperEngine) -> None:
    a = engine.synthesize(TEXT, seed=1)
    b = engine.synthesize(TEXT, seed=2)
    n = min(a.size, b.size)
    assert a.size != b.size or not np.array_equal(a[:n], b[:n])


def test_concurrent_threads_match_sequential(engine: PiperEngine) -> None:
    jobs = [("Hello there.", 1), ("A second, different line.", 2), ("Hello there.", 3), ("Good night.", 4)]
    sequential = [engine.synthesize(text, seed=seed) for text, seed in jobs]
    with ThreadPoolExecutor(max_workers=2) as pool:
        concurrent = list(pool.map(lambda job: engine.synthesize(job[0], seed=job[1]), jobs))
    for s, c in zip(sequential, concurrent, strict=True):
        np.testing.assert_array_equal(s, c)


def test_short_noise_buffer_is_retried_without_changing_audio(
    engine: PiperEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = engine.synthesize("Hello there.", seed=5)
    monkeypatch.setattr(PiperEngine, "frames_per_id", 0.1)  # far too few frames: forces a retry
    np.testing.assert_array_equal(engine.synthesize("Hello there.", seed=5), expected)


def test_missing_model_is_a_one_line_engine_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.onnx"
    with pytest.raises(EngineError) as info:
        PiperEngine.load({"model": str(missing)})
    assert str(missing) in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("language", ["en", "en-GB", "en_US", "eng"])
def test_bundled_voice_reads_english_books(language: str) -> None:
    assert PiperEngine.for_language({"length_scale": 1.0}, language) == {"length_scale": 1.0}


def test_bundled_voice_refuses_a_french_book_in_one_line() -> None:
    with pytest.raises(EngineError) as info:
        PiperEngine.for_language({}, "fr")
    message = str(info.value)
    assert "'fr'" in message and "engines.piper.model" in message and "language:" in message
    assert "en_US" in message and "\n" not in message


def test_a_voice_of_the_books_language_is_accepted(tmp_path: Path) -> None:
    # Only the voice's .onnx.json is read for the check; the model itself is not loaded.
    model = tmp_path / "fr_FR-test-medium.onnx"
    model.write_bytes(b"")
    Path(f"{model}.json").write_text('{"language": {"code": "fr_FR"}, "espeak": {"voice": "fr"}}')
    assert PiperEngine.for_language({"model": str(model)}, "fr-CA") == {"model": str(model)}
    with pytest.raises(EngineError, match="speaks 'fr_FR'"):
        PiperEngine.for_language({"model": str(model)}, "en")
