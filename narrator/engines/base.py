"""The one engine interface every text-to-speech backend implements."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from narrator.errors import UserError


class EngineError(UserError):
    """An engine could not load or synthesize; the message is meant for the user."""


class Engine(abc.ABC):
    """A loaded text-to-speech model.

    Engines know nothing of Snakemake or the catalog. ``load`` is called once per process
    (the registry caches the instance), so it may be slow; ``synthesize`` is called once per
    segment, possibly from several threads at once, and must be safe under that.
    ``synthesize`` must be deterministic: the same text, seed and options give the same samples.
    """

    name: ClassVar[str]
    #: Longest text, in characters, the engine renders well in one call.
    max_chars: ClassVar[int]
    #: Whether text may carry inline phonemes as [[ ... ]] (the lexicon's phoneme forms).
    supports_phonemes: ClassVar[bool] = False

    @classmethod
    def device(cls, options: Mapping[str, Any]) -> str:
        """Where this engine runs with these options: "cpu" or "cuda[:N]"; decides the gpu resource."""
        return "cpu"

    @classmethod
    def budget(cls, options: Mapping[str, Any]) -> int:
        """Longest segment, in characters, for these options (a model may have a hard limit)."""
        return cls.max_chars

    @classmethod
    def preflight(cls, options: Mapping[str, Any]) -> None:
        """Cheap checks before planning (files exist, device present); EngineError with one line."""
        return None  # most engines have nothing to check before loading

    @classmethod
    @abc.abstractmethod
    def load(cls, options: Mapping[str, Any]) -> Engine:
        """Load the model once; raise EngineError with a one-line reason on failure."""

    @property
    @abc.abstractmethod
    def sample_rate(self) -> int:
        """Sample rate in Hz of what ``synthesize`` returns."""

    @abc.abstractmethod
    def synthesize(self, text: str, *, seed: int) -> np.ndarray:
        """Render text to mono float32 samples in [-1, 1]; any noise is drawn from ``seed``."""
