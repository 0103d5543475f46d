"""Streaming loudness (ITU-R BS.1770-4 / EBU R128) and true peak, for books too long to hold in memory.

pyloudnorm measures a whole signal at once. This meter applies the same K-weighting filters (built
with pyloudnorm's own filter design) chunk by chunk, carrying the filter state between chunks, keeps
only the mean square energy of each 400 ms gating block (75 % overlap: one value per 100 ms, a few
megabytes for a ten-hour book), and gates them exactly as BS.1770 does at the end. True peak is the
largest sample of a 4x oversampled copy (scipy's polyphase resampler), computed chunk by chunk with
enough overlap that the chunked result equals resampling the whole signal at once.

The master gets one gain to the target; a look-ahead limiter (``TruePeakLimiter``) then takes only the
peaks that gain would lift above the true-peak ceiling. ``LimiterForecast`` is its gain-independent
half, run in the first pass, from which the limited loudness at any gain is known before the second.
"""

from __future__ import annotations

import functools
import math
from array import array
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from pyloudnorm.iirfilter import IIRfilter
from scipy.signal import firwin, lfilter, resample_poly

ABSOLUTE_GATE = -70.0  # LUFS
RELATIVE_GATE = -10.0  # LU below the absolutely gated loudness
BLOCK_SECONDS = 0.4
STEPS_PER_BLOCK = 4  # 75 % overlap
OVERSAMPLE = 4
#: Input samples of context each side of a chunk when oversampling; the resampler's filter spans
#: 10 input samples each side, so 32 leaves the chunked result equal to the whole-signal one.
_TRUE_PEAK_CONTEXT = 32
#: resample_poly's own low-pass for 4x (what it designs when given no filter), designed once: the
#: design cost a twentieth of a master's assembly when resample_poly redid it for every chunk.
_OVERSAMPLE_FILTER = firwin(2 * 10 * OVERSAMPLE + 1, 1.0 / OVERSAMPLE, window=("kaiser", 5.0))


def _k_weighting(rate: int) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """The two K-weighting stages of BS.1770 as pyloudnorm designs them for this rate."""
    stages = (
        IIRfilter(4.0, 1 / np.sqrt(2), 1500.0, rate, "high_shelf"),
        IIRfilter(0.0, 0.5, 38.0, rate, "high_pass"),
    )
    return [(np.asarray(s.b, float), np.asarray(s.a, float), float(s.passband_gain)) for s in stages]


class _KWeighting:
    """The K-weighting filters applied chunk by chunk, their state carried between chunks."""

    def __init__(self, rate: int) -> None:
        self._stages = _k_weighting(rate)
        self._states = [np.zeros(max(len(a), len(b)) - 1) for b, a, _ in self._stages]

    def filter(self, x: np.ndarray) -> np.ndarray:
        y = x
        for index, (b, a, gain) in enumerate(self._stages):
            y, self._states[index] = lfilter(b, a, y, zi=self._states[index])
            y = gain * y
        return y


class _Oversampler:
    """Per input sample, the largest magnitude of the 4x oversampled signal from it to the next one.

    Streamed: each chunk is resampled with the previous samples as left context, and only samples
    with a full right context are answered; the rest wait for the next chunk or ``flush``.
    """

    def __init__(self) -> None:
        self._tail = np.zeros(0)  # the last input samples, context for the next chunk
        self._pending = np.zeros(0)  # samples whose oversampled values still need right context

    def add(self, x: np.ndarray) -> np.ndarray:
        pending = np.concatenate([self._pending, x])
        if len(pending) <= _TRUE_PEAK_CONTEXT:
            self._pending = pending
            return np.zeros(0)
        ready = len(pending) - _TRUE_PEAK_CONTEXT
        rows = self._rows(np.concatenate([self._tail, pending]), len(self._tail), ready)
        self._tail = np.concatenate([self._tail, pending[:ready]])[-_TRUE_PEAK_CONTEXT:]
        self._pending = pending[ready:]
        return rows

    def flush(self) -> np.ndarray:
        """Answer the samples still waiting, as if the signal ended here."""
        if not len(self._pending):
            return np.zeros(0)
        signal = np.concatenate([self._tail, self._pending])
        rows = self._rows(signal, len(self._tail), len(self._pending))
        self._tail = signal[-_TRUE_PEAK_CONTEXT:]
        self._pending = np.zeros(0)
        return rows

    @staticmethod
    def _rows(signal: np.ndarray, offset: int, count: int) -> np.ndarray:
        up = resample_poly(signal, OVERSAMPLE, 1, window=_OVERSAMPLE_FILTER)
        phases = np.abs(up[offset * OVERSAMPLE : (offset + count) * OVERSAMPLE]).reshape(count, OVERSAMPLE)
        # The maximum over the four phases as elementwise maxima of columns: the same values, 17x
        # as fast as numpy's reduction along an axis of length 4 (measured on 32k-sample chunks).
        return functools.reduce(np.maximum, phases.T)


def energy_to_lufs(energy: float) -> float:
    return -0.691 + 10.0 * math.log10(energy) if energy > 0 else -math.inf


def gated_blocks(block_energies: np.ndarray) -> np.ndarray:
    """The mean square energies of the 400 ms blocks that pass both gates (BS.1770-4, eq. 4-7)."""
    energies = np.asarray(block_energies, dtype=np.float64)
    with np.errstate(divide="ignore"):
        loudness = -0.691 + 10.0 * np.log10(energies)
    above_absolute = energies[loudness >= ABSOLUTE_GATE]
    if len(above_absolute) == 0:
        return above_absolute
    relative = energy_to_lufs(float(np.mean(above_absolute))) + RELATIVE_GATE
    return energies[(loudness > relative) & (loudness > ABSOLUTE_GATE)]


def gated_loudness(block_energies: np.ndarray) -> float:
    """Integrated loudness from the mean square energies of the 400 ms blocks."""
    gated = gated_blocks(block_energies)
    return energy_to_lufs(float(np.mean(gated))) if len(gated) else -math.inf


def to_dbfs(amplitude: float) -> float:
    return 20.0 * math.log10(amplitude) if amplitude > 0 else -math.inf


class LoudnessMeter:
    """Feed mono float samples (full scale 1.0) in order with ``add``; read the figures at any time.

    Memory is constant in the length of the signal except for one float per 100 ms of audio.
    """

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self._weighting = _KWeighting(rate)
        self._step = round(BLOCK_SECONDS * rate / STEPS_PER_BLOCK)
        self._partial = 0.0  # energy of the step being filled
        self._partial_count = 0
        self._steps = array("d")  # summed squares per completed 100 ms step: 8 bytes per 100 ms
        self._oversampler = _Oversampler()
        self.true_peak = 0.0
        self.sample_peak = 0.0
        self.samples = 0

    def add(self, samples: np.ndarray) -> None:
        x = np.asarray(samples, dtype=np.float64).reshape(-1)
        if len(x) == 0:
            return
        self.samples += len(x)
        self.sample_peak = max(self.sample_peak, float(np.max(np.abs(x))))
        self._add_energy(x)
        self._add_peak(self._oversampler.add(x))

    def _add_energy(self, x: np.ndarray) -> None:
        y = self._weighting.filter(x)
        squares = y * y
        position = 0
        if self._partial_count:
            take = min(self._step - self._partial_count, len(squares))
            self._partial += float(np.sum(squares[:take]))
            self._partial_count += take
            position = take
            if self._partial_count == self._step:
                self._steps.append(self._partial)
                self._partial, self._partial_count = 0.0, 0
        whole = (len(squares) - position) // self._step
        if whole:
            chunk = squares[position : position + whole * self._step].reshape(whole, self._step)
            self._steps.frombytes(np.sum(chunk, axis=1, dtype=np.float64).tobytes())
            position += whole * self._step
        if position < len(squares):
            self._partial += float(np.sum(squares[position:]))
            self._partial_count += len(squares) - position

    def _add_peak(self, rows: np.ndarray) -> None:
        if len(rows):
            self.true_peak = max(self.true_peak, float(np.max(rows)))

    def block_energies(self) -> np.ndarray:
        """Mean square energy of every complete 400 ms block, one block every 100 ms."""
        steps = np.array(self._steps, dtype=np.float64)  # a copy: the array keeps growing
        if len(steps) < STEPS_PER_BLOCK:
            return np.zeros(0)
        sums = np.convolve(steps, np.ones(STEPS_PER_BLOCK), mode="valid")
        return sums / (STEPS_PER_BLOCK * self._step)

    def gated_energy(self) -> float:
        """K-weighted sum of squares of the audio that passes the gates: each sample counted by the
        share of the four blocks holding it that pass (so a sum over samples, like a limiter's loss)."""
        return float(np.sum(gated_blocks(self.block_energies()))) * self._step

    def integrated(self) -> float:
        """Integrated, gated loudness in LUFS (-inf for silence or under 400 ms of audio)."""
        return gated_loudness(self.block_energies())

    def true_peak_dbtp(self) -> float:
        """True peak in dBTP: the 4x oversampled peak, never below the sample peak."""
        self._add_peak(self._oversampler.flush())
        return to_dbfs(max(self.true_peak, self.sample_peak))


@dataclass(frozen=True)
class LoudnessTarget:
    """Integrated loudness target (LUFS) and true-peak ceiling (dBTP)."""

    target: float = -18.0
    true_peak: float = -1.5

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> LoudnessTarget:
        """The config's loudness keys."""
        loudness = config["loudness"]
        return cls(target=float(loudness["target"]), true_peak=float(loudness["true_peak"]))


@dataclass(frozen=True)
class LimiterSettings:
    """How the true-peak limiter reacts: look-ahead (the attack ramp) and release, in seconds.

    The limiter aims ``margin_db`` under the ceiling: the gain is computed from the true peak of its
    input, and a gain that changes under a peak, then 16-bit rounding, move the output's true peak
    by a few hundredths of a dB.
    """

    lookahead_s: float = 0.005
    release_s: float = 0.08
    margin_db: float = 0.1


#: Samples the limiter and its forecast process at a time: fixed, so that the output does not
#: depend on how the caller chunks the signal (floating-point sums depend on where blocks start).
_LIMITER_BLOCK = 1 << 14


def _sliding_max(values: np.ndarray, width: int) -> np.ndarray:
    """``out[i] = max(values[i : i + width])`` for every full window, in log2(width) passes."""
    span, spans = 1, values
    while span * 2 <= width:
        spans = np.maximum(spans[:-span], spans[span:])  # spans[i] = max(values[i : i + 2 * span])
        span *= 2
    count = len(values) - width + 1
    return np.maximum(spans[:count], spans[width - span : width - span + count])


class _PeakEnvelope:
    """The gain-independent half of the limiter: per sample, in dB, the true peak of the signal
    around it, held over the look-ahead (so the reduction is in place before a peak arrives) and
    then falling at a constant rate in dB (the gain recovers exponentially, by e per ``release_s``).

    Adding a gain in dB to the signal adds it to this envelope, so one pass over the unscaled book
    tells what the limiter will do at any gain. Output lags input by 32 + look-ahead samples;
    ``add`` returns the input samples with their envelope as they become ready, ``flush`` the rest.
    """

    def __init__(self, rate: int, settings: LimiterSettings) -> None:
        self.lookahead = max(1, round(settings.lookahead_s * rate))
        self._release_per_sample = 20.0 / math.log(10.0) / (settings.release_s * rate)
        self._oversampler = _Oversampler()
        self._unprocessed = np.zeros(0)  # input not yet a full block
        self._delayed = np.zeros(0)  # input whose envelope is not known yet
        self._previous_row = 0.0  # oversampled peak from the last sample peaked to the next one
        self._hold_tail = np.zeros(0)  # peak levels still waiting for their look-ahead
        self._last = -math.inf  # envelope of the last sample out

    def add(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self._unprocessed = np.concatenate([self._unprocessed, x])
        ready = len(self._unprocessed) // _LIMITER_BLOCK * _LIMITER_BLOCK
        outputs = [
            self._block(self._unprocessed[start : start + _LIMITER_BLOCK], final=False)
            for start in range(0, ready, _LIMITER_BLOCK)
        ]
        self._unprocessed = self._unprocessed[ready:]
        return _joined(outputs)

    def flush(self) -> tuple[np.ndarray, np.ndarray]:
        """The remaining samples and their envelope, as if the signal were followed by silence."""
        out = self._block(self._unprocessed, final=True)
        self._unprocessed = np.zeros(0)
        return out

    def _block(self, x: np.ndarray, final: bool) -> tuple[np.ndarray, np.ndarray]:
        self._delayed = np.concatenate([self._delayed, x])
        rows = self._oversampler.add(x)
        if final:
            rows = np.concatenate([rows, self._oversampler.flush()])
        # A peak between two samples must lower the gain at both of them.
        start = len(self._hold_tail)
        peak = np.abs(self._delayed[start : start + len(rows)])
        if len(rows):
            peak = np.maximum(np.maximum(peak, rows), np.concatenate([[self._previous_row], rows[:-1]]))
            self._previous_row = float(rows[-1])
        with np.errstate(divide="ignore"):
            level = 20.0 * np.log10(peak)
        pending = np.concatenate([self._hold_tail, level])
        if final:  # silence after the end
            pending = np.concatenate([pending, np.full(self.lookahead, -math.inf)])
        if len(pending) <= self.lookahead:
            self._hold_tail = pending
            return np.zeros(0), np.zeros(0)
        held = _sliding_max(pending, self.lookahead + 1)
        self._hold_tail = pending[len(held) :]
        # Release: envelope[n] = max over k <= n of held[k] - (n - k) * rate, as a running maximum.
        # Offsets count from the block's start, so they stay small whatever the book's length.
        fall = np.arange(len(held)) * self._release_per_sample
        envelope = np.maximum.accumulate(held + fall) - fall
        envelope = np.maximum(envelope, self._last - self._release_per_sample - fall)
        self._last = float(envelope[-1])
        out, self._delayed = self._delayed[: len(held)], self._delayed[len(held) :]
        return out, envelope


def _joined(pairs: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    if not pairs:
        return np.zeros(0), np.zeros(0)
    return np.concatenate([a for a, _ in pairs]), np.concatenate([b for _, b in pairs])


class TruePeakLimiter:
    """Streaming look-ahead limiter that keeps the true peak under ``ceiling_dbtp``.

    ``process`` takes float samples (full scale 1.0) in any chunks and returns the limited samples
    that are ready; ``flush`` returns the rest at the end. Output sample i is input sample i times a
    gain <= 1: nothing moves, and the total count out equals the count in. The gain reduction is the
    envelope's excess over the ceiling (minus the margin), averaged over the look-ahead so that it
    ramps in over that time before a peak and is never less than the peak needs. Silence and
    signals under the ceiling pass unchanged, bit for bit.
    """

    def __init__(self, rate: int, ceiling_dbtp: float, settings: LimiterSettings | None = None) -> None:
        self.rate = rate
        self.settings = settings or LimiterSettings()
        self.threshold_db = ceiling_dbtp - self.settings.margin_db
        self._envelope = _PeakEnvelope(rate, self.settings)
        self._reductions = np.zeros(self._envelope.lookahead)  # the last ones, for the moving average
        # A look-ahead of silence first, dropped from the output, so that a peak in the very first
        # samples is ramped into like any other: its reduction starts before the signal does.
        self._leading = self._envelope.lookahead
        self._envelope.add(np.zeros(self._leading))
        self.limited_samples = 0
        self.max_reduction_db = 0.0

    def process(self, chunk: np.ndarray) -> np.ndarray:
        return self._apply(*self._envelope.add(np.asarray(chunk, dtype=np.float64).reshape(-1)))

    def flush(self) -> np.ndarray:
        return self._apply(*self._envelope.flush())

    def _apply(self, x: np.ndarray, envelope: np.ndarray) -> np.ndarray:
        if not len(x):
            return x
        excess = np.maximum(envelope - self.threshold_db, 0.0)
        window = self._envelope.lookahead + 1
        recent = np.concatenate([self._reductions, excess])
        self._reductions = recent[-(window - 1) :]
        if not np.any(recent):
            skip = min(self._leading, len(x))
            self._leading -= skip
            return x[skip:]
        # Every value in the window ending at a peak holds at least that peak's excess, so the mean
        # does too; sums of non-negative values only grow, so quiet stretches get exactly zero.
        sums = np.concatenate([[0.0], np.cumsum(recent)])
        reduction = (sums[window:] - sums[:-window]) / window
        if self._leading:
            skip = min(self._leading, len(x))
            x, reduction, self._leading = x[skip:], reduction[skip:], self._leading - skip
        self.limited_samples += int(np.count_nonzero(reduction))
        self.max_reduction_db = max(self.max_reduction_db, float(np.max(reduction, initial=0.0)))
        return x * 10.0 ** (-reduction / 20.0)


#: Envelope levels the forecast tells apart (dB re full scale, below: never limited at any sane gain).
_FORECAST_FLOOR_DB = -120.0
_FORECAST_BIN_DB = 0.05
_FORECAST_BINS = round(140.0 / _FORECAST_BIN_DB)


class LimiterForecast:
    """What the limiter will take from the loudness of a book, at any gain, from one pass over it.

    Feed it the unscaled book with ``add`` (as a ``LoudnessMeter`` is fed), then ``finish``. It
    keeps, per 0.05 dB of limiter envelope, the K-weighted energy of the samples at that level
    (constant memory); at a gain G a sample whose envelope plus G passes the limiter's threshold by
    R dB loses the share 1 - 10^(-R/10) of its energy. It approximates: the limiter's moving average
    over the look-ahead is left out (it preserves the reduction's area), and every limited sample is
    taken to lie in blocks that pass the gate (a limited peak is far above the relative gate).
    """

    def __init__(self, rate: int, ceiling_dbtp: float, settings: LimiterSettings | None = None) -> None:
        self.settings = settings or LimiterSettings()
        self.threshold_db = ceiling_dbtp - self.settings.margin_db
        self._envelope = _PeakEnvelope(rate, self.settings)
        self._weighting = _KWeighting(rate)
        self._energy = np.zeros(_FORECAST_BINS)

    def add(self, samples: np.ndarray) -> None:
        self._tally(*self._envelope.add(np.asarray(samples, dtype=np.float64).reshape(-1)))

    def finish(self) -> None:
        self._tally(*self._envelope.flush())

    def _tally(self, x: np.ndarray, envelope: np.ndarray) -> None:
        if not len(x):
            return
        y = self._weighting.filter(x)
        position = (np.maximum(envelope, _FORECAST_FLOOR_DB) - _FORECAST_FLOOR_DB) / _FORECAST_BIN_DB
        bins = np.minimum(position.astype(np.int64), _FORECAST_BINS - 1)
        self._energy += np.bincount(bins, weights=y * y, minlength=_FORECAST_BINS)

    def loss_db(self, gain_db: float, gated_energy: float) -> float:
        """Loudness the limiter takes (LU, <= 0) at this gain, given the meter's ``gated_energy()``."""
        if gated_energy <= 0:
            return 0.0
        levels = _FORECAST_FLOOR_DB + (np.arange(_FORECAST_BINS) + 0.5) * _FORECAST_BIN_DB
        reduction = np.maximum(levels + gain_db - self.threshold_db, 0.0)
        lost = float(np.sum(self._energy * (1.0 - 10.0 ** (-reduction / 10.0))))
        return 10.0 * math.log10(max(1.0 - lost / gated_energy, 1e-12))


#: The most the gain may rise above the plain gain to the target to make up for the limiter: a book
#: whose peaks would need more is squeezed too hard to be worth it, and stays under the target.
MAX_CORRECTION_DB = 6.0


@dataclass(frozen=True)
class BookGain:
    """The gain for the whole book: to the target, plus the correction for what the limiter takes."""

    to_target_db: float
    correction_db: float
    forecast_lufs: float  # the limited loudness the forecast expects at the gain

    @property
    def gain_db(self) -> float:
        return self.to_target_db + self.correction_db


def book_gain(before: LoudnessMeter, forecast: LimiterForecast, goal: LoudnessTarget) -> BookGain:
    """The one gain that brings the limited book to the target loudness; none for a silent book.

    The limiter's loss grows with the gain, so the gain is corrected by the forecast shortfall until
    it stops changing (a few steps: the loss grows more slowly than the gain).
    """
    integrated = before.integrated()
    if not math.isfinite(integrated):
        return BookGain(0.0, 0.0, -math.inf)
    to_target = goal.target - integrated
    gated = before.gated_energy()
    correction = 0.0
    for _ in range(20):
        shortfall = -forecast.loss_db(to_target + correction, gated)
        updated = min(shortfall, MAX_CORRECTION_DB)
        if abs(updated - correction) < 1e-3:
            break
        correction = updated
    forecast_lufs = integrated + to_target + correction + forecast.loss_db(to_target + correction, gated)
    return BookGain(to_target, correction, forecast_lufs)
