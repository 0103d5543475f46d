"""Coqui TTS engine (the maintained `coqui-tts` package): VITS, XTTS and friends, CPU or CUDA.

The model lives in one worker process per engine, loaded once and reused for every segment.
A segment that hangs past ``timeout_s`` is killed with its worker, reported, and the worker is
started again; a CUDA out-of-memory error is retried once after freeing the cache.
"""

from __future__ import annotations

import json
import multiprocessing
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from narrator.core.language import same_language
from narrator.engines._coqui_worker import serve
from narrator.engines.base import Engine, EngineError, language_refused

#: XTTS warns above ~250 characters for English and degrades; other models take a sentence or two.
XTTS_MAX_CHARS = 250
DEFAULT_TIMEOUT_S = 300.0
LOAD_TIMEOUT_S = 600.0


def _torch() -> Any:
    """torch, or a one-line hint when the coqui extra is not installed."""
    try:
        import torch
    except ImportError:
        raise EngineError("the coqui engine needs its extra: pip install -e '.[coqui]'") from None
    return torch


def _config_json(options: Mapping[str, Any]) -> dict[str, Any]:
    path = options.get("config_path")
    if not path:
        return {}
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise EngineError(f"coqui config_path {path}: cannot read it ({error})") from None


def _model_language(options: Mapping[str, Any], config: Mapping[str, Any]) -> tuple[str, str]:
    """The one language the model is set to speak, if known, and the option that decides it."""
    if options.get("language"):
        return str(options["language"]), "engines.coqui.language"
    parts = str(options.get("model_name", "")).split("/")
    if len(parts) == 4 and parts[1] != "multilingual":  # hub names: type/language/dataset/model
        return parts[1], "engines.coqui.model_name"
    if len(config.get("languages") or []) == 1:
        return str(config["languages"][0]), "engines.coqui.model_path"
    if config.get("use_phonemes") and config.get("phoneme_language"):
        return str(config["phoneme_language"]), "engines.coqui.model_path"
    return "", ""


class CoquiEngine(Engine):
    """Options: model_name, or model_path + config_path (+ speakers_file); speaker, speaker_wav,
    language; device (auto, cpu, cuda, cuda:N); timeout_s; max_chars; test_faults (tests only)."""

    name: ClassVar[str] = "coqui"
    max_chars: ClassVar[int] = 400

    def __init__(self, options: Mapping[str, Any], device: str) -> None:
        self._options = dict(options)
        self._device = device
        self._timeout = float(options.get("timeout_s", DEFAULT_TIMEOUT_S))
        self._lock = threading.Lock()
        self.loads = 0
        self._start()

    @classmethod
    def device(cls, options: Mapping[str, Any]) -> str:
        wanted = options.get("device", "auto")
        if wanted != "auto":
            return wanted
        return "cuda" if _torch().cuda.is_available() else "cpu"

    @classmethod
    def cpu_threads(cls, options: Mapping[str, Any]) -> int:
        return 0  # its one worker process renders one call at a time and queues the rest itself

    @classmethod
    def budget(cls, options: Mapping[str, Any]) -> int:
        if options.get("max_chars"):
            return int(options["max_chars"])
        model = f"{options.get('model_name', '')} {_config_json(options).get('model', '')}".lower()
        return XTTS_MAX_CHARS if "xtts" in model else cls.max_chars

    @classmethod
    def preflight(cls, options: Mapping[str, Any]) -> None:
        if not options.get("model_name") and not options.get("model_path"):
            raise EngineError("coqui needs engines.coqui.model_name, or model_path and config_path")
        for key in ("model_path", "config_path", "speakers_file", "speaker_wav"):
            if options.get(key) and not Path(options[key]).exists():
                raise EngineError(f"coqui {key} not found: {options[key]}")
        if options.get("model_path") and not options.get("config_path"):
            raise EngineError("coqui model_path needs config_path too")
        config = _config_json(options)
        languages = config.get("languages") or []
        if options.get("language") and languages and options["language"] not in languages:
            raise EngineError(f"coqui model has no language {options['language']!r}; it has {languages}")
        speakers_file = options.get("speakers_file")
        if options.get("speaker") and speakers_file:
            speakers = json.loads(Path(speakers_file).read_text())
            if options["speaker"] not in speakers:
                raise EngineError(f"coqui speaker {options['speaker']!r} is not in {speakers_file}")
        device = cls.device(options)
        if device.startswith("cuda"):
            torch = _torch()
            index = int(device.partition(":")[2] or 0)
            available = torch.cuda.device_count()
            if index >= available:
                raise EngineError(f"coqui device {device} is not available ({available} CUDA devices)")

    @classmethod
    def for_language(cls, options: Mapping[str, Any], language: str) -> dict[str, Any]:
        config = _config_json(options)
        languages = [str(code) for code in config.get("languages") or []]
        # Coqui's own test (TTS.api.TTS.is_multi_lingual): XTTS, or more than one language listed;
        # a model with one takes no language argument at all.
        multilingual = "xtts" in str(config.get("model", "")) or len(languages) > 1
        if not options.get("language") and multilingual:
            # A multilingual model reads the book's language when it has it (XTTS needs one named).
            matching = [code for code in languages if same_language(code, language)]
            if not matching:
                raise EngineError(
                    f"the coqui model has no language for the book's {language!r} (it has "
                    f"{', '.join(languages)}): choose another model, or set language: in the config "
                    "if the book's is wrong"
                )
            tag = language.lower().replace("_", "-")
            return {**options, "language": max(matching, key=lambda code: code.lower() == tag)}
        speaks, choose = _model_language(options, config)
        if speaks and not same_language(speaks, language):
            model = options.get("model_name") or Path(str(options.get("model_path"))).name
            raise language_refused(cls.name, str(model), speaks, language, choose)
        return dict(options)

    @classmethod
    def voice_name(cls, options: Mapping[str, Any]) -> str:
        return str(options.get("speaker") or "Coqui")

    @classmethod
    def load(cls, options: Mapping[str, Any]) -> CoquiEngine:
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
            if not self._connection.poll(self._timeout):
                # A hung model cannot be interrupted from outside: kill its process, start afresh.
                self._stop()
                self._start()
                raise EngineError(f"a {len(text)}-character segment hung; killed after {self._timeout:g} s")
            reply = self._receive()
        if reply[0] == "error":
            raise EngineError(reply[1])
        return reply[1]

    def close(self) -> None:
        self._stop()
