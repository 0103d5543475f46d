"""The Coqui engine on a tiny random-weight VITS built here (tests/coqui_model.py), loaded through
Coqui's public API.

No model can be downloaded in tests or CI, so the hub path (model_name) is not exercised; the
local-checkpoint path uses Coqui's real loading code end to end.
"""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest
from coqui_model import require_coqui

from narrator.engines._coqui_worker import serve
from narrator.engines.base import EngineError
from narrator.engines.coqui import CoquiEngine, CoquiOptions

require_coqui()

TEXT = "The lamp was lit at six o'clock, and nobody saw it."


@pytest.fixture(scope="module")
def engine(tiny_vits):
    loaded = CoquiEngine.load(CoquiOptions.from_config(tiny_vits))
    yield loaded
    loaded.close()


def test_loads_once_and_renders_deterministically(engine):
    first = engine.synthesize(TEXT, seed=7)
    again = engine.synthesize(TEXT, seed=7)
    other = engine.synthesize(TEXT, seed=8)
    assert engine.sample_rate == 22050
    assert first.dtype == np.float32 and 1.0 < len(first) / 22050 < 10.0
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)
    assert engine.loads == 1


def test_out_of_memory_once_is_retried_with_the_same_seed(tiny_vits, engine):
    text, options = f"{TEXT} OOM-ONCE", {**tiny_vits, "test_faults": {"oom": "OOM-ONCE"}}
    # The worker as CoquiEngine starts it, talked to directly: its replies name the attempt that worked.
    context = multiprocessing.get_context("spawn")
    host, child = context.Pipe()
    worker = context.Process(target=serve, args=(child, options, "cpu"), daemon=True)
    worker.start()
    child.close()
    try:
        assert host.recv()[0] == "ready"
        replies = []
        for _ in range(2):
            host.send((text, 1))
            replies.append(host.recv())
    finally:
        host.close()
        worker.kill()
        worker.join()
    (status, retried, attempt), (_, again, next_attempt) = replies
    # The injected OOM failed the first attempt, the retry succeeded; the next request needed one try.
    assert (status, attempt, next_attempt) == ("ok", 2, 1)
    # The retry seeds afresh: the same samples as a render that met no OOM.
    expected = engine.synthesize(text, seed=1)
    np.testing.assert_array_equal(retried, expected)
    np.testing.assert_array_equal(again, expected)
    # Through the engine: the same samples, and the model was not restarted for it.
    faulty = CoquiEngine.load(CoquiOptions.from_config(options))
    try:
        np.testing.assert_array_equal(faulty.synthesize(text, seed=1), expected)
        assert faulty.loads == 1
    finally:
        faulty.close()


def test_out_of_memory_twice_fails_naming_the_length(tiny_vits):
    engine = CoquiEngine.load(
        CoquiEngine.Options.from_config({**tiny_vits, "test_faults": {"oom_twice": "OOM-TWICE"}})
    )
    try:
        text = f"{TEXT} OOM-TWICE"
        with pytest.raises(EngineError, match=f"out of GPU memory twice on a {len(text)}-character segment"):
            engine.synthesize(text, seed=1)
        assert len(engine.synthesize(TEXT, seed=1)) > 0  # the engine carries on
    finally:
        engine.close()


def test_a_hang_is_killed_by_the_timeout_and_the_model_restarted(tiny_vits):
    engine = CoquiEngine.load(
        CoquiEngine.Options.from_config({**tiny_vits, "timeout_s": 3, "test_faults": {"hang": "HANG"}})
    )
    try:
        with pytest.raises(EngineError, match="hung; killed after 3 s"):
            engine.synthesize(f"{TEXT} HANG", seed=1)
        assert len(engine.synthesize(TEXT, seed=1)) > 0
        assert engine.loads == 2
    finally:
        engine.close()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"model_path": "nowhere/model.pth", "config_path": "nowhere/config.json"}, "model_path not found"),
        ({}, "needs engines.coqui.model_name"),
        ({"device": "cuda:3"}, "device cuda:3 is not available"),
    ],
)
def test_preflight_errors_are_one_line(tiny_vits, options, message):
    merged = {**tiny_vits, **options} if options else {}
    with pytest.raises(EngineError) as error:
        CoquiEngine.preflight(CoquiOptions.from_config(merged))
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_missing_coqui_extra_is_one_line(tiny_vits, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "torch", None)  # import torch now fails
    with pytest.raises(EngineError, match=r"needs its extra: pip install -e '\.\[coqui\]'"):
        CoquiEngine.preflight(CoquiEngine.Options.from_config({**tiny_vits, "device": "auto"}))
