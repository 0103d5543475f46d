"""The process that holds a Coqui model: load once, then answer synthesis requests over a pipe.

It runs apart from Snakemake so that a hung segment can be killed without killing the run, and
so that CUDA memory and torch's threads stay out of the workflow's process.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import Any

import numpy as np


class _InjectedFaults:
    """Test-only failures, keyed by a substring of the text: oom, oom_twice, hang, nan."""

    def __init__(self, faults: Mapping[str, str]) -> None:
        self.faults = dict(faults)
        self.ooms_raised: dict[str, int] = {}

    def before(self, text: str, torch: Any) -> None:
        for kind, needle in self.faults.items():
            if needle not in text:
                continue
            if kind == "hang":
                time.sleep(10**6)
            allowed = {"oom": 1, "oom_twice": 2}.get(kind, 0)
            if self.ooms_raised.get(text, 0) < allowed:
                self.ooms_raised[text] = self.ooms_raised.get(text, 0) + 1
                raise torch.cuda.OutOfMemoryError("CUDA out of memory (injected by test_faults)")

    def after(self, text: str, samples: np.ndarray) -> np.ndarray:
        if "nan" in self.faults and self.faults["nan"] in text:
            return np.full_like(samples, np.nan)
        return samples


def _load(options: Mapping[str, Any], device: str) -> Any:
    from TTS.api import TTS

    if options.get("model_path"):
        tts = TTS(
            model_path=options["model_path"],
            config_path=options.get("config_path"),
            speakers_file_path=options.get("speakers_file"),
            progress_bar=False,
        )
    else:
        tts = TTS(model_name=options["model_name"], progress_bar=False)
    return tts.to(device)


def serve(connection: Connection, options: Mapping[str, Any], device: str) -> None:
    """Load the model, report (ok, sample rate), then synthesize until the pipe closes."""
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        tts = _load(options, device)
    except Exception as error:  # noqa: BLE001 - any load failure is reported to the user as one line
        connection.send(("error", f"cannot load the Coqui model: {error}".splitlines()[0]))
        return
    connection.send(("ready", int(tts.synthesizer.output_sample_rate)))
    faults = _InjectedFaults(options.get("test_faults", {}))
    extra = {key: options[key] for key in ("speaker", "language", "speaker_wav") if options.get(key)}
    while True:
        try:
            text, seed = connection.recv()
        except EOFError:
            return
        connection.send(_synthesize(tts, torch, faults, text, seed, extra))


def _synthesize(tts: Any, torch: Any, faults: _InjectedFaults, text: str, seed: int, extra: dict) -> tuple:
    """One segment; a CUDA out-of-memory error frees the cache and retries once."""
    for attempt in (1, 2):
        torch.manual_seed(seed)
        try:
            faults.before(text, torch)
            samples = np.asarray(tts.tts(text, split_sentences=False, **extra), dtype=np.float32)
            return ("ok", faults.after(text, samples), attempt)
        except torch.cuda.OutOfMemoryError:
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            if attempt == 2:
                return ("error", f"out of GPU memory twice on a {len(text)}-character segment")
    raise AssertionError("unreachable")
