"""BS.1770 loudness and the true-peak limiter (narrator/assemble/loudness.py): the streaming meter
against pyloudnorm, the limiter in any chunks, and its forecast of the limited loudness.
"""

from __future__ import annotations

import numpy as np
import pyloudnorm
import pytest
from hostile_book import RATE, TARGET, measured, peaky_speech
from scipy.signal import resample_poly

from narrator.assemble.loudness import LimiterForecast, LoudnessMeter, TruePeakLimiter, book_gain


@pytest.mark.parametrize("rate", [8000, 22050, 44100, 48000])
def test_streaming_loudness_equals_pyloudnorm(rate: int) -> None:
    rng = np.random.default_rng(rate)
    n = rate * 6 + 777
    t = np.arange(n) / rate
    signal = 0.3 * np.sin(2 * np.pi * 220 * t) * (0.5 + 0.5 * np.sin(2 * np.pi * 0.8 * t))
    signal += 0.05 * rng.standard_normal(n)
    signal[rate : 2 * rate] = 0.0  # silence, gated out
    signal[3 * rate : 4 * rate] *= 0.003  # very quiet, under the relative gate
    meter = LoudnessMeter(rate)
    position = 0
    while position < n:  # ragged chunks, down to one sample
        size = int(rng.integers(1, rate // 2))
        meter.add(signal[position : position + size])
        position += size
    expected = pyloudnorm.Meter(rate).integrated_loudness(signal)
    assert abs(meter.integrated() - expected) < 0.1
    true_peak = 20 * np.log10(np.max(np.abs(resample_poly(signal, 4, 1))))
    assert meter.true_peak_dbtp() == pytest.approx(true_peak, abs=1e-6)


def limited(samples: np.ndarray, ceiling: float, chunk: int) -> tuple[np.ndarray, TruePeakLimiter]:
    limiter = TruePeakLimiter(RATE, ceiling)
    pieces = [limiter.process(samples[start : start + chunk]) for start in range(0, len(samples), chunk)]
    return np.concatenate([*pieces, limiter.flush()]), limiter


def test_limiter_keeps_16_bit_true_peak_under_the_ceiling_in_any_chunks() -> None:
    rng = np.random.default_rng(7)
    hard = np.concatenate(
        [
            np.zeros(1000),
            0.4 * rng.standard_normal(RATE // 2),  # dense peaks, 6 dB over
            0.9 * np.sin(2 * np.pi * 0.45 * np.arange(RATE // 4) + 0.3),  # intersample peaks near Nyquist
            np.zeros(3000),
            0.02 * rng.standard_normal(RATE // 2),  # quiet: far from any peak, untouched
        ]
    )
    hard[1000] = 0.99  # a peak in the first look-ahead of sound
    hard[1000 + RATE // 2 + RATE // 4 + 3000 - 1] = -0.99  # the last sample before the silence
    whole, limiter = limited(hard, -1.5, len(hard))
    for chunk in (1, 777, 1 << 14 | 5):
        assert np.array_equal(limited(hard, -1.5, chunk)[0], whole), chunk
    assert len(whole) == len(hard)
    pcm = np.round(whole * 32768) / 32768
    assert measured(pcm).true_peak_dbtp() <= -1.5
    assert measured(hard).true_peak_dbtp() > 0.5 and limiter.max_reduction_db > 2
    # Aligned: each output sample is its input sample times a gain in (0, 1].
    sound = hard != 0
    ratio = whole[sound] / hard[sound]
    assert np.all(ratio > 0) and np.all(ratio <= 1)
    assert not np.any(whole[~sound]), "silence must stay digital zero"
    quiet = slice(len(hard) - RATE // 4, len(hard))
    assert np.array_equal(whole[quiet], hard[quiet])


def test_limiter_passes_a_signal_under_the_ceiling_bit_for_bit() -> None:
    signal = peaky_speech(40, 3, level=0.01).astype(np.float64)
    assert measured(signal).true_peak_dbtp() < -1.7
    out, limiter = limited(signal, -1.5, 1000)
    assert np.array_equal(out, signal) and limiter.limited_samples == 0 and limiter.max_reduction_db == 0


def test_forecast_predicts_the_limited_loudness_at_any_gain() -> None:
    signal = np.concatenate([peaky_speech(60, seed, 0.02) for seed in range(1, 5)]).astype(np.float64)
    before = measured(signal)
    forecast = LimiterForecast(RATE, -1.5)
    for start in range(0, len(signal), 5000):
        forecast.add(signal[start : start + 5000])
    forecast.finish()
    losses = []
    for gain_db in (0.0, 22.0, 28.0):  # peaks 20 dB under the ceiling: none, 2 and 8 dB over
        out = limited(signal * 10 ** (gain_db / 20), -1.5, 1 << 16)[0]
        expected = before.integrated() + gain_db + forecast.loss_db(gain_db, before.gated_energy())
        assert abs(measured(out).integrated() - expected) < 0.2, gain_db
        losses.append(forecast.loss_db(gain_db, before.gated_energy()))
    assert losses[0] == 0 and losses[2] < losses[1] < 0
    silent = book_gain(measured(np.zeros(RATE)), LimiterForecast(RATE, -1.5), TARGET)
    assert (silent.gain_db, silent.correction_db) == (0.0, 0.0)
