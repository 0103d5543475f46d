"""Coqui TTS engine (the maintained `coqui-tts` package): VITS, XTTS and friends, CPU or CUDA.

The model lives in one worker process per engine, loaded once and reused for every segment.
A segment that hangs past ``timeout_s`` is killed with its worker, reported, and the worker is
started again; a CUDA out-of-memory error is retried once after freeing the cache.
"""

from __future__ import annotations

import json
import multiprocessing
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from narrator.core import interrupt
from narrator.core.language import same_language
from narrator.engines._coqui_worker import serve
from narrator.engines.base import (
    Engine,
    EngineError,
    EngineOptions,
    EngineTimeout,
    language_refused,
    timeout_of,
    wait_or_stop,
)

#: XTTS warns above ~250 characters for English and degrades; other models take a sentence or two.
XTTS_MAX_CHARS = 250
LOAD_TIMEOUT_S = 600.0


def _torch() -> Any:
    """torch, or a one-line hint when the coqui extra is not installed."""
    try:
        import torch
    except ImportError:
        raise EngineError("the coqui engine needs its extra: pip install -e '.[coqui]'") from None
    return torch


def _config_json(options: CoquiOptions) -> dict[str, Any]:
    path = options.config_path
    if not path:
        return {}
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise EngineError(f"coqui config_path {path}: cannot read it ({error})") from None


def _model_language(options: CoquiOptions, config: Mapping[str, Any]) -> tuple[str, str]:
    """The one language the model is set to speak, if known, and the option that decides it."""
    if options.language:
        return options.language, "engines.coqui.language"
    parts = (options.model_name or "").split("/")
    if len(parts) == 4 and parts[1] != "multilingual":  # hub names: type/language/dataset/model
        return parts[1], "engines.coqui.model_name"
    if len(config.get("languages") or []) == 1:
        return str(config["languages"][0]), "engines.coqui.model_path"
    if config.get("use_phonemes") and config.get("phoneme_language"):
        return str(config["phoneme_language"]), "engines.coqui.model_path"
    return "", ""


@dataclass(frozen=True)
class CoquiOptions(EngineOptions):
    """engines.coqui: model_name, or model_path + config_path (+ speakers_file); the voice; where."""

    engine: ClassVar[str] = "coqui"
    #: A Coqui hub model (downloaded when online).
    model_name: str | None = None
    #: A local checkpoint (.pth) and its config.json.
    model_path: str | None = None
    config_path: str | None = None
    speakers_file: str | None = None
    speaker: str | None = None
    #: A reference voice for XTTS.
    speaker_wav: str | None = None
    language: str | None = None
    #: auto, cpu, cuda or cuda:N.
    device: str | None = None
    timeout_s: float | None = None
    max_chars: int | None = None
    #: Tests only: fail on texts containing these substrings (oom, oom_twice, hang, nan).
    test_faults: Mapping[str, str] | None = None

    def check(self) -> None:
        timeout_of(self.timeout_s, "coqui")

    def voice_files(self) -> list[Path]:
        named = (self.model_path, self.config_path, self.speakers_file, self.speaker_wav)
        return [Path(path).expanduser() for path in named if path]


class CoquiEngine(Engine[CoquiOptions]):
    name: ClassVar[str] = "coqui"
    Options: ClassVar[type[CoquiOptions]] = CoquiOptions
    max_chars: ClassVar[int] = 400

    def __init__(self, options: CoquiOptions, device: str) -> None:
        # The worker is another process: it gets the options as the config set them.
        self._options = options.settings()
        self._device = device
        self._timeout = timeout_of(options.timeout_s, "coqui")
        self._lock = threading.Lock()
        self.loads = 0
        self._start()

    @classmethod
    def device(cls, options: CoquiOptions) -> str:
        wanted = options.device or "auto"
        if wanted != "auto":
            return wanted
        return "cuda" if _torch().cuda.is_available() else "cpu"

    @classmethod
    def cpu_threads(cls, options: CoquiOptions) -> int:
        return 0  # its one worker process renders one call at a time and queues the rest itself

    @classmethod
    def budget(cls, options: CoquiOptions) -> int:
        if options.max_chars:
            return options.max_chars
        model = f"{options.model_name or ''} {_config_json(options).get('model', '')}".lower()
        return XTTS_MAX_CHARS if "xtts" in model else cls.max_chars

    @classmethod
    def preflight(cls, options: CoquiOptions) -> None:
        if not options.model_name and not options.model_path:
            raise EngineError("coqui needs engines.coqui.model_name, or model_path and config_path")
        for key in ("model_path", "config_path", "speakers_file", "speaker_wav"):
            path = getattr(options, key)
            if path and not Path(path).exists():
                raise EngineError(f"coqui {key} not found: {path}")
        if options.model_path and not options.config_path:
            raise EngineError("coqui model_path needs config_path too")
        config = _config_json(options)
        languages = config.get("languages") or []
        if options.language and languages and options.language not in languages:
            raise EngineError(f"coqui model has no language {options.language!r}; it has {languages}")
        speakers_file = options.speakers_file
        if options.speaker and speakers_file:
            speakers = json.loads(Path(speakers_file).read_text())
            if options.speaker not in speakers:
                raise EngineError(f"coqui speaker {options.speaker!r} is not in {speakers_file}")
        device = cls.device(options)
        if device.startswith("cuda"):
            torch = _torch()
            index = int(device.partition(":")[2] or 0)
            available = torch.cuda.device_count()
            if index >= available:
                raise EngineError(f"coqui device {device} is not available ({available} CUDA devices)")

    @classmethod
    def for_language(cls, options: CoquiOptions, language: str) -> CoquiOptions:
        config = _config_json(options)
        languages = [str(code) for code in config.get("languages") or []]
        # Coqui's own test (TTS.api.TTS.is_multi_lingual): XTTS, or more than one language listed;
        # a model with one takes no language argument at all.
        multilingual = "xtts" in str(config.get("model", "")) or len(languages) > 1
        if not options.language and multilingual:
            # A multilingual model reads the book's language when it has it (XTTS needs one named).
            matching = [code for code in languages if same_language(code, language)]
            if not matching:
                raise EngineError(
                    f"the coqui model has no language for the book's {language!r} (it has "
                    f"{', '.join(languages)}): choose another model, or set language: in the config "
                    "if the book's is wrong"
                )
            tag = language.lower().replace("_", "-")
            return options.with_setting("language", max(matching, key=lambda code: code.lower() == tag))
        speaks, choose = _model_language(options, config)
        if speaks and not same_language(speaks, language):
            model = options.model_name or Path(str(options.model_path)).name
            raise language_refused(cls.name, model, speaks, language, choose)
        return options

    @classmethod
    def voice_name(cls, options: CoquiOptions) -> str:
        return options.speaker or "Coqui"

    @classmethod
    def load(cls, options: CoquiOptions) -> CoquiEngine:
        cls.preflight(options)
        return cls(options, cls.device(options))

    def _start(self) -> None:
        # spawn, not fork: the host is a multi-threaded Snakemake process.
        context = multiprocessing.get_context("spawn")
        self._connection, child = context.Pipe()
        self._process = context.Process(target=serve, args=(child, self._options, self._device), daemon=True)
        self._process.start()
        child.close()
        self.loads += 1
        if not self._connection.poll(LOAD_TIMEOUT_S):
            self._stop()
            raise EngineError(f"the Coqui model did not load within {LOAD_TIMEOUT_S:.0f} s")
        status, value = self._receive()
        if status != "ready":
            self._stop()
            raise EngineError(value)
        self._rate = int(value)

    def _receive(self) -> tuple:
        try:
            return self._connection.recv()
        except (EOFError, OSError):
            self._stop()
            raise EngineError("the Coqui worker process died") from None

    def _stop(self) -> None:
        self._connection.close()
        self._process.kill()
        self._process.join()

    @property
    def sample_rate(self) -> int:
        return self._rate

    def synthesize(self, text: str, *, seed: int) -> np.ndarray:
        with self._lock:
            self._connection.send((text, seed))
            deadline = time.monotonic() + self._timeout
            if not wait_or_stop(self._connection.poll, deadline, self._stop):
                # A hung model cannot be interrupted from outside: its process is killed; a fresh
                # one is started for the next segment unless the run is stopping.
                interrupt.check()
                self._start()
                raise EngineTimeout(f"a {len(text)}-character segment hung; killed after {self._timeout:g} s")
            reply = self._receive()
        if reply[0] == "error":
            raise EngineError(reply[1])
        return reply[1]

    def close(self) -> None:
        self._stop()
