"""Voice by language: the pre-flight refuses a voice that cannot read the book, or picks one that can."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import REPO, Workdir, read_audio

from narrator.core.audio import to_pcm16
from narrator.core.catalog import read_catalog, wav_file
from narrator.engines.base import EngineError
from narrator.engines.coqui import CoquiEngine
from narrator.engines.espeak import EspeakEngine
from narrator.plan.plan import render_key, segment_ids

# --- engines on their own ---------------------------------------------------------------------------

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
    assert CoquiEngine.for_language(options, language) == {**options, **expected}


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
        CoquiEngine.for_language(options, "de")
    message = str(info.value)
    assert "'de'" in message and advice in message and "language:" in message and "\n" not in message


# --- the pre-flight of a real run -----------------------------------------------------------------

CONTAINER = (
    '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
    '<rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles>'
    "</container>"
)
PACKAGE = (
    '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/"><metadata><dc:title>Le Matin</dc:title>'
    "<dc:language>fr</dc:language></metadata>"
    '<manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>'
    '<spine><itemref idref="c1"/></spine></package>'
)
PAGE = (
    '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Un</title>'
    "</head><body><h1>Chapitre un</h1><p>Il faisait beau ce matin-là.</p></body></html>"
)
#: The espeak voice the config leaves to the book (config.yaml may still name en-us).
AUTO_ESPEAK = 'engines={"espeak": {"voice": "auto"}}'


@pytest.fixture
def french(workdir: Workdir) -> Workdir:
    """A workdir holding matin.epub, a one-chapter book whose OPF says dc:language fr."""
    with zipfile.ZipFile(workdir.path / "matin.epub", "w") as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        archive.writestr("META-INF/container.xml", CONTAINER)
        archive.writestr("content.opf", PACKAGE)
        archive.writestr("c1.xhtml", PAGE)
    return workdir


@pytest.mark.slow
def test_english_piper_voice_on_a_french_book_stops_in_one_line(french: Workdir) -> None:
    result = french.snakemake(
        "-n", "--cores", "1", "--config", "book=matin.epub", "engine=piper", check=False
    )
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("narrator: ") and "'fr'" in last
    assert "engines.piper.model" in last and "language:" in last
    assert "Traceback" not in result.stderr
    assert not (french.path / "results").exists()


@pytest.mark.slow
def test_config_language_wins_over_the_books(french: Workdir) -> None:
    result = french.snakemake(
        "-n", "--cores", "1", "--config", "book=matin.epub", "engine=piper", "language=en"
    )
    assert "plan_catalog" in result.stdout


@pytest.mark.slow
def test_espeak_plans_and_renders_a_french_book_with_a_french_voice(french: Workdir) -> None:
    french.snakemake(
        "--cores", "2", "render_all", "--config", "book=matin.epub", "engine=espeak", AUTO_ESPEAK
    )
    rows = read_catalog(french.results("matin") / "catalog.tsv")
    # The voice picked for fr, at config.yaml's pace.
    pace = yaml.safe_load((REPO / "config.yaml").read_text())["pace"]
    options = EspeakEngine.for_pace({"voice": "fr"}, pace)
    # The plan's ids carry the picked voice, and the render jobs spoke with it.
    assert [row.segment_id for row in rows] == segment_ids(
        [row.spoken for row in rows], render_key("espeak", options)
    )
    voice = EspeakEngine.load(options)
    try:
        for row in rows:
            data, rate = read_audio(wav_file(french.results("matin") / "catalog.tsv", row))
            assert rate == voice.sample_rate
            np.testing.assert_array_equal(data, to_pcm16(voice.synthesize(row.spoken, seed=0)))
    finally:
        voice.close()


def test_a_coqui_model_with_one_language_is_checked_but_never_told_one(tmp_path: Path) -> None:
    """Coqui refuses a language argument unless the model is multilingual (more than one listed)."""
    config = tmp_path / "config.json"
    config.write_text('{"model": "vits", "languages": ["en"]}')
    assert CoquiEngine.for_language({"config_path": str(config)}, "en-US") == {"config_path": str(config)}
    with pytest.raises(EngineError, match="'fr'"):
        CoquiEngine.for_language({"config_path": str(config)}, "fr")
