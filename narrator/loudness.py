"""Streaming loudness (ITU-R BS.1770-4 / EBU R128) and true peak, for books too long to hold in memory.

pyloudnorm measures a whole signal at once. This meter applies the same K-weighting filters (built
with pyloudnorm's own filter design) chunk by chunk, carrying the filter state between chunks, keeps
only the mean square energy of each 400 ms gating block (75 % overlap: one value per 100 ms, a few
megabytes for a ten-hour book), and gates them exactly as BS.1770 does at the end. True peak is the
largest sample of a 4x oversampled copy (scipy's polyphase resampler), computed chunk by chunk with
enough overlap that the chunked result equals resampling the whole signal at once.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass

import numpy as np
from pyloudnorm.iirfilter import IIRfilter
from scipy.signal import lfilter, resample_poly

ABSOLUTE_GATE = -70.0  # LUFS
RELATIVE_GATE = -10.0  # LU below the absolutely gated loudness
BLOCK_SECONDS = 0.4
STEPS_PER_BLOCK = 4  # 75 % overlap
OVERSAMPLE = 4
#: Input samples of context each side of a chunk when oversampling; the resampler's filter spans
#: 10 input samples each side, so 32 leaves the chunked result equal to the whole-signal one.
_TRUE_PEAK_CONTEXT = 32


def _k_weighting(rate: int) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """The two K-weighting stages of BS.1770 as pyloudnorm designs them for this rate."""
    stages = (
        IIRfilter(4.0, 1 / np.sqrt(2), 1500.0, rate, "high_shelf"),
        IIRfilter(0.0, 0.5, 38.0, rate, "high_pass"),
    )
    return [(np.asarray(s.b, float), np.asarray(s.a, float), float(s.passband_gain)) for s in stages]


def energy_to_lufs(energy: float) -> float:
    return -0.691 + 10.0 * math.log10(energy) if energy > 0 else -math.inf


def gated_loudness(block_energies: np.ndarray) -> float:
    """Integrated loudness from the mean square energies of the 400 ms blocks (BS.1770-4, eq. 4-7)."""
    energies = np.asarray(block_energies, dtype=np.float64)
    with np.errstate(divide="ignore"):
        loudness = -0.691 + 10.0 * np.log10(energies)
    above_absolute = energies[loudness >= ABSOLUTE_GATE]
    if len(above_absolute) == 0:
        return -math.inf
    relative = energy_to_lufs(float(np.mean(above_absolute))) + RELATIVE_GATE
    gated = energies[(loudness > relative) & (loudness > ABSOLUTE_GATE)]
    return energy_to_lufs(float(np.mean(gated))) if len(gated) else -math.inf


def to_dbfs(amplitude: float) -> float:
    return 20.0 * math.log10(amplitude) if amplitude > 0 else -math.inf


class LoudnessMeter:
    """Feed mono float samples (full scale 1.0) in order with ``add``; read the figures at any time.

    Memory is constant in the length of the signal except for one float per 100 ms of audio.
    """

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self._stages = _k_weighting(rate)
        self._states = [np.zeros(max(len(a), len(b)) - 1) for b, a, _ in self._stages]
        self._step = round(BLOCK_SECONDS * rate / STEPS_PER_BLOCK)
        self._partial = 0.0  # energy of the step being filled
        self._partial_count = 0
        self._steps = array("d")  # summed squares per completed 100 ms step: 8 bytes per 100 ms
        self._peak_tail = np.zeros(0)  # the last input samples, context for the next chunk
        self._peak_pending = np.zeros(0)  # samples whose oversampled values still need right context
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
        self._add_peak(x)

    def _add_energy(self, x: np.ndarray) -> None:
        y = x
        for index, (b, a, gain) in enumerate(self._stages):
            y, self._states[index] = lfilter(b, a, y, zi=self._states[index])
            y = gain * y
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

    def _add_peak(self, x: np.ndarray) -> None:
        # Oversample pending+new samples with left context (the previous samples) and keep only the
        # output of samples that have a full right context; the rest waits for the next chunk.
        context = _TRUE_PEAK_CONTEXT
        pending = np.concatenate([self._peak_pending, x])
        if len(pending) <= context:
            self._peak_pending = pending
            return
        ready = len(pending) - context
        self._oversample_peak(np.concatenate([self._peak_tail, pending]), len(self._peak_tail), ready)
        self._peak_tail = np.concatenate([self._peak_tail, pending[:ready]])[-context:]
        self._peak_pending = pending[ready:]

    def _oversample_peak(self, signal: np.ndarray, offset: int, count: int) -> None:
        up = resample_poly(signal, OVERSAMPLE, 1)
        region = up[offset * OVERSAMPLE : (offset + count) * OVERSAMPLE]
        if len(region):
            self.true_peak = max(self.true_peak, float(np.max(np.abs(region))))

    def _flush_peak(self) -> None:
        if len(self._peak_pending):
            signal = np.concatenate([self._peak_tail, self._peak_pending])
            self._oversample_peak(signal, len(self._peak_tail), len(self._peak_pending))
            self._peak_tail = signal[-_TRUE_PEAK_CONTEXT:]
            self._peak_pending = np.zeros(0)

    def block_energies(self) -> np.ndarray:
        """Mean square energy of every complete 400 ms block, one block every 100 ms."""
        steps = np.array(self._steps, dtype=np.float64)  # a copy: the array keeps growing
        if len(steps) < STEPS_PER_BLOCK:
            return np.zeros(0)
        sums = np.convolve(steps, np.ones(STEPS_PER_BLOCK), mode="valid")
        return sums / (STEPS_PER_BLOCK * self._step)

    def integrated(self) -> float:
        """Integrated, gated loudness in LUFS (-inf for silence or under 400 ms of audio)."""
        return gated_loudness(self.block_energies())

    def true_peak_dbtp(self) -> float:
        """True peak in dBTP: the 4x oversampled peak, never below the sample peak."""
        self._flush_peak()
        return to_dbfs(max(self.true_peak, self.sample_peak))


@dataclass(frozen=True)
class LoudnessTarget:
    """Integrated loudness target (LUFS) and true-peak ceiling (dBTP)."""

    target: float = -18.0
    true_peak: float = -1.5


def book_gain(integrated: float, true_peak: float, goal: LoudnessTarget) -> tuple[float, str]:
    """One gain in dB for the whole book, and what limited it (``target`` or ``true_peak``).

    The gain reaches the target loudness unless that would push the true peak above the ceiling.
    A silent book gets no gain.
    """
    if not math.isfinite(integrated):
        return 0.0, "silence"
    to_target = goal.target - integrated
    to_ceiling = goal.true_peak - true_peak if math.isfinite(true_peak) else math.inf
    return (to_target, "target") if to_target <= to_ceiling else (to_ceiling, "true_peak")
