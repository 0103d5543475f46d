"""The ASR check (narrator.render.asr) on the real Whisper tiny.en weights: correct audio passes, each kind
of broken audio is caught, enforce mode's retry chain repeats exactly, and flagged segments are
listed and re-queued. The model loads once for the module (process-wide cache). A real run that
fails exactly the sabotaged segment: tests/e2e/test_failing_segments.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import REPO
from planned import one_row_catalog

from narrator.cli import main as narrator_main
from narrator.core.catalog import COMPLETED, QUEUED, read_catalog, wav_file
from narrator.engines import engine_class, get_engine
from narrator.engines.espeak import EspeakEngine, EspeakOptions
from narrator.engines.piper import PiperOptions
from narrator.inspect import report
from narrator.render import asr
from narrator.render.render import RenderError, render_segment, seed_for

pytestmark = pytest.mark.skipif(not asr.available(), reason="needs the asr extra")
SENTENCES = (
    "Every evening at a quarter past six, Edda Vine climbed the iron ladder and lit the last lamp.",
    "The guidebooks did not mention it, and the tourists who came for the fish market never looked up.",
    "He was a kind man, and he meant the question kindly.",
)
#: What a voice stuck in a loop says again and again after SENTENCES[0].
LOOPED = "climbed the iron ladder and lit the last lamp."
#: The default pace, as the workflow turns it into each engine's speed option.
PACE = yaml.safe_load((REPO / "config.yaml").read_text())["pace"]


def voice(name: str):
    engine = engine_class(name)
    options = engine.for_pace(
        engine.Options.from_config({"voice": "en-us"} if name == "espeak" else {}), PACE
    )
    return get_engine(name, options)


def heard(samples: np.ndarray, rate: int, text: str) -> asr.AsrScore:
    return asr.hear(samples, rate, text, wpm=PACE)[1]


@pytest.mark.parametrize("engine", ["piper", "espeak"])
def test_correct_audio_passes(engine: str) -> None:
    engine_voice = voice(engine)
    for text in SENTENCES:
        result = heard(engine_voice.synthesize(text, seed=seed_for(text)), engine_voice.sample_rate, text)
        assert result.passed, (text, result)


def test_a_failing_first_hearing_is_heard_again_with_silence_ahead(monkeypatch) -> None:
    # Whisper tiny.en heard only "Chapter 6." in Piper's audio of Alice's sixth chapter title on one
    # machine and heard it whole on another (CTranslate2's kernels differ by CPU), so a stand-in
    # plays the first hearing's slip; the second hearing is real Whisper on the padded audio.
    piper, text = (
        get_engine("piper", PiperOptions(threads=1, length_scale=1.549)),
        "CHAPTER six. Pig and Pepper",
    )
    samples = piper.synthesize(text, seed=seed_for(text))
    whisper, hearings = asr.transcribe, []

    def first_cut_short(audio: np.ndarray, rate: int, **options: object) -> str:
        hearings.append(audio)
        return "Chapter 6." if len(hearings) == 1 else whisper(audio, rate, **options)

    monkeypatch.setattr(asr, "transcribe", first_cut_short)
    transcript, result = asr.hear(samples, piper.sample_rate, text)
    assert result.passed and "pepper" in transcript.lower()
    lead = round(asr.LEAD_SILENCE_S * piper.sample_rate)
    assert len(hearings) == 2 and not hearings[1][:lead].any()
    assert np.array_equal(hearings[1][lead:], samples)
    # The silence never rescues the wrong audio: both hearings fail, and the first is reported.
    hearings.clear()
    other = "The fog came in over the water."
    transcript, result = asr.hear(piper.synthesize(other, seed=seed_for(other)), piper.sample_rate, text)
    assert not result.passed and transcript == "Chapter 6." and len(hearings) == 2


def test_whisper_slips_are_tolerated_and_folded() -> None:
    # Heard by Whisper tiny.en in correct Piper audio of the sample (bench/asr.py).
    assert asr.score("The ladder had nineteen rungs.", "The latter had 19 runs.").passed
    assert asr.words("Don't colour 3 things!") == ["do", "not", "color", "three", "things"]
    assert asr.score("It cost five dollars.", "It cost $5.").cer == 0


def test_every_kind_of_broken_audio_is_caught() -> None:
    piper = voice("piper")
    rate = piper.sample_rate
    text, other = SENTENCES[0], SENTENCES[1]
    good = piper.synthesize(text, seed=seed_for(text))
    noise = np.random.default_rng(7).normal(0, 0.01, len(good)).astype(np.float32)
    broken = {
        "reversed": good[::-1].copy(),
        "truncated to half": good[: len(good) // 2],
        "another segment's audio": piper.synthesize(other, seed=seed_for(other)),
        "a voice stuck in a loop": np.concatenate(
            [good, *(piper.synthesize(LOOPED, seed=n) for n in (1, 2, 3)), good[-rate // 2 :]]
        ),
        "silence padded with noise": np.concatenate([np.zeros(rate, np.float32), noise]),
    }
    verdicts = {kind: heard(samples, rate, text) for kind, samples in broken.items()}
    assert not [kind for kind, result in verdicts.items() if result.passed], verdicts
    assert verdicts["truncated to half"].missing_tail >= asr.TAIL_LETTERS
    # By its length, whatever Whisper wrote down: on some CPUs its int8 kernels leave the repeats
    # out of the transcript, which then matches the text.
    assert verdicts["a voice stuck in a loop"].overlong
    assert asr.score(
        text, text, voiced=asr.voiced_seconds(broken["a voice stuck in a loop"], rate), wpm=PACE
    ).overlong


def test_correct_audio_is_never_too_long_for_its_text() -> None:
    # The length check's margin on correct audio of every English voice here, from a three-word
    # title to the longest sentence, at the pace the voices were set to.
    texts = ("CHAPTER II.", "The lamp caught.", *SENTENCES)
    for engine in ("piper", "espeak"):
        engine_voice = voice(engine)
        for text in texts:
            samples = engine_voice.synthesize(text, seed=seed_for(text))
            voiced = asr.voiced_seconds(samples, engine_voice.sample_rate)
            assert 0 < voiced < 0.8 * asr.longest_plausible_seconds(asr.words(text), PACE), (
                engine,
                text,
                voiced,
            )
    # A voice left at its own speed gives the check no pace: no length verdict.
    assert not asr.score(texts[0], texts[0], voiced=60.0, wpm=None).overlong


def test_names_and_scripts_whisper_cannot_write_are_not_errors() -> None:
    text = (
        "Ünïcödé names appeared in the visitors' book: Zoë, Søren, Łukasz, and a traveller who "
        "signed only 李明."
    )
    # What Whisper tiny.en heard in Kokoro's correct audio of it (issue: a Kokoro book failed here).
    transcript = (
        "Uniko de names appeared in the visitors book. Zoe, Soren Lukas, and a traveler who signed "
        "only Chinese little Chinese letter."
    )
    assert asr.words("Zoë, Søren, Łukasz") == ["zoe", "soren", "lukasz"]
    assert asr.words("signed 李明 here") == ["signed", asr.UNHEARD, "here"]
    result = asr.score(text, transcript)
    assert result.passed and result.cer < 0.1, result
    # Only what stood in for the name is left out: a wrong word elsewhere still counts.
    assert asr.score(text, transcript.replace("visitors book", "harbour gate")).edits > result.edits


def _render(folder: Path, text: str, reverse: str, mode: str = "enforce") -> str:
    catalog_path, row = one_row_catalog(folder, text)
    check = asr.AsrSettings(mode=mode, tries=2)
    options = EspeakOptions(voice="en-us", test_faults={"reverse": reverse})
    try:
        return render_segment(
            catalog_path,
            row.segment_id,
            wav_file(catalog_path, row),
            engine="espeak",
            options=options,
            check=check,
        )
    except RenderError as error:
        return f"error: {error}"


def test_an_engine_without_noise_is_rendered_once(tmp_path: Path) -> None:
    # Another seed gives espeak's same audio: enforce fails the segment after one render, not three.
    failed = _render(tmp_path / "fail", SENTENCES[2], reverse="kind man")
    assert "the ASR check failed its one render (espeak draws no noise" in failed and "seeds" not in failed


def test_enforce_retry_chain_is_deterministic(tmp_path: Path, monkeypatch) -> None:
    # espeak stands in for an engine that draws noise (Coqui, Piper): its reverse fault then fails
    # every seed of the chain alike.
    monkeypatch.setattr(EspeakEngine, "seeded", classmethod(lambda cls, options: True))
    text = SENTENCES[2]
    failed = [_render(tmp_path / f"fail{n}", text, reverse="kind man") for n in (1, 2)]
    # The same seeds, the same transcript, the same one line, and nothing published or marked.
    assert failed[0] == failed[1] and failed[0].startswith("error: segment 0123456789abcdef: ")
    assert f"seeds {seed_for(text)} +0..1" in failed[0] and "\n" not in failed[0]
    assert [r.status for r in read_catalog(tmp_path / "fail1" / "catalog.tsv")] == [QUEUED]
    assert not list((tmp_path / "fail1" / "segments").glob("*"))
    passed = [_render(tmp_path / f"pass{n}", text, reverse="NOT IN THE TEXT") for n in (1, 2)]
    assert all("ASR enforce: cer" in line and "passed, render 1" in line for line in passed)
    sidecars = [
        json.loads((tmp_path / f"pass{n}/segments/0123456789abcdef.asr.json").read_text()) for n in (1, 2)
    ]
    assert sidecars[0] == sidecars[1] and sidecars[0]["seed"] == seed_for(text)
    row = read_catalog(tmp_path / "pass1" / "catalog.tsv")[0]
    assert row.status == COMPLETED and sidecars[0]["sha256"] == row.sha256


def test_flagged_segments_are_listed_and_requeued_in_one_command(tmp_path: Path, capsys) -> None:
    text = SENTENCES[2]
    summary = _render(tmp_path / "book", text, reverse="kind man", mode="flag")
    assert "ASR flag: cer" in summary and "FLAGGED" in summary
    catalog_path = tmp_path / "book" / "catalog.tsv"
    (row,) = read_catalog(catalog_path)
    (evidence,) = asr.read_evidence(catalog_path, [row])
    assert row.status == COMPLETED and not evidence.score.passed
    listing = asr.format_evidence([evidence], planned=1, count=5)
    assert listing.startswith("ASR check: 1 of 1 segments heard, 1 flagged")
    assert f"text:  {text}" in listing and "FLAGGED: " in listing
    # The report: the segment in the landing page's table of the worst heard, and in the plot.
    assert "Segments heard worst" in report.summary_rst([("Title", "t")], "not run", [evidence])
    report.save_svg(report.asr_scores([row], [evidence]), tmp_path / "asr_scores.svg")
    assert "ASR check: 1 segments heard, 1 flagged" in (tmp_path / "asr_scores.svg").read_text()
    assert narrator_main(["requeue", "--flagged", str(tmp_path / "book")]) == 0
    assert "re-queued 1 flagged segments: 0123456789abcdef" in capsys.readouterr().out
    assert [r.status for r in read_catalog(catalog_path)] == [QUEUED]
    assert not list((tmp_path / "book" / "segments").glob("0123456789abcdef*"))


def test_mode_per_engine_language_and_extra(monkeypatch) -> None:
    def mode(asked: object, engine: str = "piper", language: str = "en") -> asr.AsrSettings:
        return asr.resolve({"asr": asked, "tries": 3}, engine, language, "cpu", 1)

    assert [mode("auto", engine).mode for engine in ("coqui", "kokoro", "piper", "espeak")] == [
        "enforce",
        "flag",
        "off",
        "off",
    ]
    assert mode(False).mode == "off"  # YAML's bare off
    french = mode("enforce", "kokoro", "fr-FR")
    assert french.mode == "off" and "English only" in french.note and "'fr-FR'" in french.note
    monkeypatch.setattr(asr, "available", lambda: False)
    assert mode("auto", "kokoro").mode == "off" and "not installed" in mode("auto", "kokoro").note
    with pytest.raises(asr.AsrError, match=r"verify.asr: flag needs the asr extra"):
        mode("flag")
