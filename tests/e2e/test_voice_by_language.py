"""Voice by language in real runs: the pre-flight refuses a voice that cannot read the book, the
config's language wins over the book's, and espeak reads with the voice of the book's (or the
config's) language, whose samples every WAV then holds.
"""

from __future__ import annotations

import zipfile

import numpy as np
import pytest
import yaml
from conftest import REPO, Workdir, read_audio
from tiny_html import BOOK, CATALOG, rows_of

from narrator.core.audio import to_pcm16
from narrator.core.catalog import read_catalog, wav_file
from narrator.engines.espeak import EspeakEngine, EspeakOptions, voice_for_language
from narrator.plan.plan import render_key, segment_ids
from narrator.render.render import seed_for

pytestmark = pytest.mark.slow

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


def test_config_language_wins_over_the_books(french: Workdir) -> None:
    result = french.snakemake(
        "-n", "--cores", "1", "--config", "book=matin.epub", "engine=piper", "language=en"
    )
    assert "plan_catalog" in result.stdout


def test_espeak_plans_and_renders_a_french_book_with_a_french_voice(french: Workdir) -> None:
    french.snakemake(
        "--cores", "2", "render_all", "--config", "book=matin.epub", "engine=espeak", AUTO_ESPEAK
    )
    rows = read_catalog(french.results("matin") / "catalog.tsv")
    # The voice picked for fr, at config.yaml's pace.
    pace = yaml.safe_load((REPO / "config.yaml").read_text())["pace"]
    options = EspeakEngine.for_pace(EspeakOptions(voice="fr"), pace)
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


def test_language_override_skips_english_normalization_and_picks_the_voice(tiny):
    tiny.run_book(BOOK, "language=de", target="render_all")
    log = (tiny.path / "logs" / "plan_catalog" / "tiny.log").read_text()
    assert "English normalization skipped for 'de'" in log
    rows = rows_of(tiny)
    # Read as English, "7 o'clock" would be spoken "seven o'clock"; read as German, the number is.
    assert "The fog came in at sieben o'clock." in [row.spoken for row in rows]
    # espeak's auto voice is German's: each WAV is what that voice says, and not what English says.
    voice = voice_for_language("de")
    assert voice == "de"
    pace = yaml.safe_load((REPO / "config.yaml").read_text())["pace"]
    german, english = (
        EspeakEngine.load(EspeakEngine.for_pace(EspeakOptions(voice=name), pace)) for name in (voice, "en-us")
    )
    try:
        for row in rows:
            wav, rate = read_audio(wav_file(tiny.path / CATALOG, row))
            seed = seed_for(row.spoken)
            assert rate == german.sample_rate
            assert np.array_equal(wav, to_pcm16(german.synthesize(row.spoken, seed=seed))), row.spoken
            assert not np.array_equal(wav, to_pcm16(english.synthesize(row.spoken, seed=seed)))
    finally:
        german.close()
        english.close()
