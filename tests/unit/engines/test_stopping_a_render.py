"""A render stops at its engine's timeout_s and on Ctrl-C/SIGTERM, whatever the engine is doing
(narrator/engines/base.py: run_onnx, wait_or_stop). Before, Piper's and Kokoro's in-process
onnxruntime calls ran on regardless, and Coqui waited out its whole timeout after a Ctrl-C.
The espeak helper's own timeout: tests/unit/engines/test_espeak.py.
"""

from __future__ import annotations

import threading
import time

import pytest
from planned import one_row_catalog

from narrator.core import interrupt
from narrator.core.catalog import QUEUED, read_catalog, wav_file
from narrator.engines import engine_class
from narrator.engines.base import EngineError, EngineTimeout
from narrator.engines.kokoro import KokoroEngine, KokoroOptions
from narrator.engines.piper import PiperEngine, PiperOptions
from narrator.render.render import RenderError, render_segment

#: Long enough that one render takes seconds on any machine.
LONG = " ".join(["The lamplighter climbed the iron ladder, lit the last lamp and came down again."] * 6)


@pytest.fixture
def stop_requested():
    """Ctrl-C arrives ``delay`` seconds from now (the flag the signal handlers raise); cleared after."""
    timers: list[threading.Timer] = []

    def arrive(delay: float) -> None:
        timers.append(threading.Timer(delay, interrupt._requested.set))
        timers[-1].start()

    yield arrive
    for timer in timers:
        timer.cancel()
    interrupt._requested.clear()


def _stopped_within(render, seconds: float, error: type[Exception]) -> None:
    started = time.monotonic()
    with pytest.raises(error):
        render()
    assert time.monotonic() - started < seconds


def test_piper_stops_at_its_timeout_and_names_it() -> None:
    piper = PiperEngine.load(PiperOptions(timeout_s=0.3))
    with pytest.raises(EngineTimeout, match=r"no audio after 0\.3 s \(the engine's timeout_s\)"):
        piper.synthesize(LONG, seed=1)
    # The engine is whole after a stopped call: the next render is the same as a fresh engine's.
    fresh = PiperEngine.load(PiperOptions()).synthesize("The end.", seed=1)
    assert (piper.synthesize("The end.", seed=1) == fresh).all()


def test_piper_stops_on_ctrl_c_within_a_second(stop_requested) -> None:
    piper = PiperEngine.load(PiperOptions())
    stop_requested(0.3)
    _stopped_within(lambda: piper.synthesize(LONG, seed=1), 1.5, interrupt.Interrupted)


def test_kokoro_stops_at_its_timeout_and_on_ctrl_c(kokoro_files, stop_requested) -> None:
    options = KokoroOptions(**kokoro_files, voice="jf_alpha", language="en-us", device="cpu")
    with pytest.raises(EngineTimeout):
        KokoroEngine.load(options.with_setting("timeout_s", 0.3)).synthesize(LONG, seed=0)
    kokoro = KokoroEngine.load(options)
    stop_requested(0.3)
    _stopped_within(lambda: kokoro.synthesize(LONG, seed=0), 1.5, interrupt.Interrupted)


def test_coqui_stops_a_hung_segment_on_ctrl_c_without_waiting_out_its_timeout(tiny_vits, stop_requested):
    engine = engine_class("coqui")
    coqui = engine.load(
        engine.Options.from_config({**tiny_vits, "timeout_s": 60, "test_faults": {"hang": "HANG"}})
    )
    try:
        stop_requested(0.5)
        _stopped_within(lambda: coqui.synthesize("HANG now.", seed=0), 3.0, interrupt.Interrupted)
    finally:
        coqui.close()


@pytest.mark.parametrize("value", [0, -1, "soon", True])
def test_a_bad_timeout_is_one_line(value) -> None:
    for name in ("piper", "kokoro", "coqui"):
        with pytest.raises(
            EngineError, match=rf"{name} option 'timeout_s' must be a number of seconds above 0"
        ):
            engine_class(name).Options.from_config({"timeout_s": value})


def test_a_segment_past_its_timeout_fails_naming_the_segment(tmp_path) -> None:
    catalog_path, row = one_row_catalog(tmp_path, LONG)
    with pytest.raises(RenderError, match=r"^segment 0123456789abcdef: no audio after 0\.3 s"):
        render_segment(
            catalog_path,
            row.segment_id,
            wav_file(catalog_path, row),
            engine="piper",
            options=PiperOptions(timeout_s=0.3),
        )
    assert [r.status for r in read_catalog(catalog_path)] == [QUEUED]
    assert not wav_file(catalog_path, row).exists()
