"""Coqui by the book's language: a model that can read the book is kept or told its language, one
that cannot is refused in one line naming the setting to change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from narrator.engines.base import EngineError
from narrator.engines.coqui import CoquiEngine, CoquiOptions

XTTS = "tts_models/multilingual/multi-dataset/xtts_v2"


def _multilingual_config(tmp_path: Path) -> Path:
    """A local Coqui checkpoint's config.json naming three languages."""
    path = tmp_path / "config.json"
    path.write_text('{"model": "vits", "languages": ["en", "fr-fr", "pt-br"]}')
    return path


@pytest.mark.parametrize(
    ("options", "language", "expected"),
    [
        ({"model_name": "tts_models/en/ljspeech/vits"}, "en-GB", {}),
        ({"model_name": XTTS}, "fr", {}),  # the hub's languages are not known before download
        ({"model_name": XTTS, "language": "fr"}, "fr-FR", {}),
        ({"config_path": "{multi}"}, "fr", {"language": "fr-fr"}),
        ({"config_path": "{multi}"}, "pt-BR", {"language": "pt-br"}),
    ],
)
def test_coqui_model_that_reads_the_book_is_kept_or_told_its_language(
    tmp_path: Path, options: dict, language: str, expected: dict
) -> None:
    options = {key: value.format(multi=_multilingual_config(tmp_path)) for key, value in options.items()}
    assert CoquiEngine.for_language(CoquiOptions.from_config(options), language).settings() == {
        **options,
        **expected,
    }


@pytest.mark.parametrize(
    ("options", "advice"),
    [
        ({"model_name": "tts_models/en/ljspeech/vits"}, "engines.coqui.model_name"),
        ({"model_name": XTTS, "language": "en"}, "engines.coqui.language"),
        ({"config_path": "{multi}"}, "it has en, fr-fr, pt-br"),
    ],
)
def test_coqui_model_that_cannot_read_the_book_is_refused_in_one_line(
    tmp_path: Path, options: dict, advice: str
) -> None:
    options = {key: value.format(multi=_multilingual_config(tmp_path)) for key, value in options.items()}
    with pytest.raises(EngineError) as info:
        CoquiEngine.for_language(CoquiOptions.from_config(options), "de")
    message = str(info.value)
    assert "'de'" in message and advice in message and "language:" in message and "\n" not in message


def test_a_coqui_model_with_one_language_is_checked_but_never_told_one(tmp_path: Path) -> None:
    """Coqui refuses a language argument unless the model is multilingual (more than one listed)."""
    config = tmp_path / "config.json"
    config.write_text('{"model": "vits", "languages": ["en"]}')
    assert CoquiEngine.for_language(CoquiOptions(config_path=str(config)), "en-US") == CoquiOptions(
        config_path=str(config)
    )
    with pytest.raises(EngineError, match="'fr'"):
        CoquiEngine.for_language(CoquiOptions(config_path=str(config)), "fr")
