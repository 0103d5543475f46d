"""The master WAV's loudness (narrator/assemble/assemble.py): gained to the target and reported, a peaky
book limited under the true-peak ceiling, measured on a second thread without changing a bit, and
written as RF64 past 4 GiB.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pyloudnorm
import pytest
import soundfile as sf
from hostile_book import PAUSES, RATE, TARGET, decode, make_book, measured, peaky_speech

from narrator.assemble import assemble as assemble_module
from narrator.assemble.assemble import assemble_book, wav_format
from narrator.core.catalog import read_catalog
from narrator.core.timeline import build_timeline
from narrator.package.m4b import AAC_FRAME, package_m4b
from narrator.package.metadata import PackageSettings


def test_master_is_gained_to_the_target_and_reported(tmp_path: Path) -> None:
    catalog, _ = make_book(tmp_path, level=0.02)
    master, report = tmp_path / "book.wav", tmp_path / "loudness.json"
    summary = assemble_book(catalog, master, PAUSES, TARGET, report)
    timeline = build_timeline(read_catalog(catalog), PAUSES)
    pcm, rate = sf.read(master, dtype="float64")
    assert rate == RATE and len(pcm) == timeline.frames
    assert abs(pyloudnorm.Meter(rate).integrated_loudness(pcm) - TARGET.target) < 0.1
    figures = json.loads(report.read_text())
    assert figures["target_lufs"] == TARGET.target
    assert figures["before"]["integrated_lufs"] < -30
    assert abs(figures["after"]["integrated_lufs"] - TARGET.target) < 0.05
    assert figures["gain_db"] == pytest.approx(TARGET.target - figures["before"]["integrated_lufs"], abs=0.01)
    # Peaks stay under the ceiling at this gain: the limiter does nothing and nothing is corrected.
    assert figures["limiter_correction_db"] == 0 and figures["gain_db"] == figures["gain_to_target_db"]
    assert figures["limiter"]["limited_share"] == 0 and figures["limiter"]["max_reduction_db"] == 0
    assert "LUFS" in summary and "limiter on 0.00% of samples" in summary
    # The pads and pauses stay digital silence; the speech sits exactly where the timeline says.
    assert not np.any(pcm[: timeline.lead]) and not np.any(pcm[timeline.frames - timeline.trail :])
    first = timeline.spans[0]
    assert np.any(pcm[first.start : first.start + 100]) and not np.any(
        pcm[first.end : first.end + first.pause]
    )


def test_limiter_lands_a_peaky_book_on_the_target_under_the_ceiling(tmp_path: Path) -> None:
    catalog, _ = make_book(tmp_path, voice=peaky_speech)
    plain, master, report = tmp_path / "plain.wav", tmp_path / "book.wav", tmp_path / "loudness.json"
    assemble_book(catalog, plain, PAUSES)  # no loudness: the book as laid out
    summary = assemble_book(catalog, master, PAUSES, TARGET, report)
    figures = json.loads(report.read_text())
    before = figures["before"]
    # One gain under the ceiling, as before the limiter, would have left the book 3 LU or more short.
    assert before["true_peak_dbtp"] + TARGET.target - before["integrated_lufs"] - TARGET.true_peak > 3
    pcm = sf.read(master, dtype="float64")[0]
    assert abs(pyloudnorm.Meter(RATE).integrated_loudness(pcm) - TARGET.target) < 0.5
    assert abs(figures["after"]["integrated_lufs"] - TARGET.target) < 0.2
    assert measured(pcm).true_peak_dbtp() <= TARGET.true_peak
    assert figures["after"]["true_peak_dbtp"] <= TARGET.true_peak
    limiter = figures["limiter"]
    assert 0 < limiter["limited_share"] < 0.2 and limiter["max_reduction_db"] > 3
    assert limiter["limited_seconds"] == pytest.approx(limiter["limited_share"] * len(pcm) / RATE, abs=0.01)
    assert figures["limiter_correction_db"] > 0
    assert f"up to {limiter['max_reduction_db']} dB" in summary
    # Sample-aligned with the book as laid out: same length, silence where it is silent, and each
    # sample the laid-out one times the gain and a limiter gain in (0, 1].
    raw = sf.read(plain, dtype="float64")[0]
    assert len(pcm) == len(raw)
    assert not np.any(pcm[raw == 0])
    sound = raw != 0
    ratio = pcm[sound] / (raw[sound] * 10 ** (figures["gain_db"] / 20))
    assert np.all(ratio >= 0) and np.all(ratio <= 1 + 1 / np.abs(raw[sound] * 32768))


class _Synchronous:
    """assemble's ``_InOrder`` as one thread runs it: each item measured as it is submitted."""

    def __init__(self, consume) -> None:
        self.submit = consume

    def __enter__(self) -> _Synchronous:
        return self

    def __exit__(self, *_: object) -> None:
        return None


def test_measuring_on_a_second_thread_changes_no_bit(tmp_path: Path, monkeypatch) -> None:
    catalog, _ = make_book(tmp_path, voice=peaky_speech)
    outputs = {}
    for name in ("threaded", "one thread"):
        if name == "one thread":
            monkeypatch.setattr(assemble_module, "_InOrder", _Synchronous)
        master, report = tmp_path / f"{name}.wav", tmp_path / f"{name}.json"
        assemble_book(catalog, master, PAUSES, TARGET, report)
        outputs[name] = (master.read_bytes(), report.read_text())
    assert outputs["threaded"] == outputs["one thread"]
    assert json.loads(outputs["threaded"][1])["limiter"]["limited_share"] > 0  # the limiter was at work


def test_the_meter_thread_takes_every_piece_in_order_and_never_falls_far_behind() -> None:
    seen: list[int] = []

    def slow(item: np.ndarray) -> None:
        time.sleep(0.002 * (int(item[0]) % 3))
        seen.append(int(item[0]))

    with assemble_module._InOrder(slow) as meter:
        for index in range(40):
            meter.submit(np.array([index]))
            assert index + 1 - len(seen) <= assemble_module._METER_LAG
    assert seen == list(range(40))


def test_a_meter_error_reaches_the_assembly_and_a_failed_assembly_stops_the_meter() -> None:
    def failing(item: np.ndarray) -> None:
        if item[0] == 3:
            raise ValueError("bad block")

    with pytest.raises(ValueError, match="bad block"), assemble_module._InOrder(failing) as meter:
        for index in range(5):
            meter.submit(np.array([index]))
    seen: list[int] = []

    def slow(item: np.ndarray) -> None:
        time.sleep(0.05)
        seen.append(int(item[0]))

    with pytest.raises(RuntimeError, match="disk gone"), assemble_module._InOrder(slow) as meter:
        for index in range(6):
            meter.submit(np.array([index]))
        raise RuntimeError("disk gone")
    assert len(seen) < 6  # what was still queued is dropped, not measured for nothing
    assert not [thread for thread in threading.enumerate() if thread.name.startswith("loudness")]


def test_a_master_over_4_gib_is_written_as_rf64_and_still_packages(tmp_path: Path, monkeypatch) -> None:
    assert wav_format(2**31 - 4096) == "WAV"  # just under 4 GiB of 16-bit samples
    assert wav_format(2**31) == "RF64"
    monkeypatch.setattr(assemble_module, "RIFF_LIMIT", 1000)  # pretend this tiny book is huge
    catalog, book_json = make_book(tmp_path)
    master = tmp_path / "book.wav"
    assemble_book(catalog, master, PAUSES, TARGET, tmp_path / "loudness.json")
    assert master.read_bytes()[:4] == b"RF64"
    m4b = tmp_path / "book.m4b"
    package_m4b(master, catalog, book_json, m4b, PAUSES, PackageSettings(year="2001"))
    samples = decode(m4b)
    assert abs(len(samples) - build_timeline(read_catalog(catalog), PAUSES).frames) <= AAC_FRAME
