"""Engine registry: config name -> engine class, and one loaded instance per process."""

from __future__ import annotations

import importlib
import json
import threading
from typing import Any

from narrator.engines.base import Engine, EngineError, EngineOptions

# Imported lazily so that planning a book never imports onnxruntime or torch.
_ENGINE_CLASSES = {
    "piper": "narrator.engines.piper:PiperEngine",
    "espeak": "narrator.engines.espeak:EspeakEngine",
    "coqui": "narrator.engines.coqui:CoquiEngine",
    "kokoro": "narrator.engines.kokoro:KokoroEngine",
}

_loaded: dict[str, Engine[Any]] = {}
_load_lock = threading.Lock()


def engine_names() -> list[str]:
    return sorted(_ENGINE_CLASSES)


def engine_class(name: str) -> type[Engine[Any]]:
    """The class registered under ``name``; EngineError for an unknown name."""
    try:
        module_name, class_name = _ENGINE_CLASSES[name].split(":")
    except KeyError:
        raise EngineError(f"unknown engine {name!r}; choose one of: {', '.join(engine_names())}") from None
    cls: type[Engine[Any]] = getattr(importlib.import_module(module_name), class_name)
    return cls


def get_engine(name: str, options: EngineOptions) -> Engine[Any]:
    """The process-wide engine for (name, options), loaded on first use and kept resident."""
    key = f"{name}:{json.dumps(options.settings(), sort_keys=True)}"
    with _load_lock:
        engine = _loaded.get(key)
        if engine is None:
            engine = engine_class(name).load(options)
            _loaded[key] = engine
        return engine


def load_count() -> int:
    """How many engines this process has loaded (the render log reports it)."""
    return len(_loaded)


__all__ = [
    "Engine",
    "EngineError",
    "EngineOptions",
    "engine_class",
    "engine_names",
    "get_engine",
    "load_count",
]
