"""espeak-ng engine: fast, small, robotic; driven through a forking helper for determinism.

libespeak-ng carries state from one utterance to the next, so calling it in-process would
make a segment's samples depend on which segments this process rendered before it. The
helper process (``_espeak_worker``) initializes espeak once and forks a fresh child per
utterance, so every utterance starts from the same state; see that module for the protocol.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import select
import struct
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, ClassVar, NamedTuple

import numpy as np

from narrator.core import interrupt
from narrator.core.language import primary_language, same_language
from narrator.engines.base import Engine, EngineError, EngineOptions, language_refused

_HEADER = struct.Struct(">BI")
_LENGTH = struct.Struct(">I")
_WORKER_MODULE = "narrator.engines._espeak_worker"
# Run the helper from the directory that holds the narrator package, so ``-m`` finds this
# copy of it whatever the host's working directory contains.
_IMPORT_ROOT = Path(__file__).resolve().parents[2]

DEFAULT_RATE = 175  # espeak-ng's own, its stretch 1
RATE_RANGE = (80, 450)  # espeakRATE_MINIMUM / espeakRATE_MAXIMUM, words per minute
PITCH_RANGE = (0, 100)
#: The voice option's value (also when unset) that means "espeak-ng's voice for the book's language".
AUTO_VOICE = "auto"
_DEFAULT_PRIORITY = 5  # espeak-ng's, for a "language" line without one; lower is preferred


class _Voice(NamedTuple):
    """One voice file under espeak-ng-data/lang, e.g. roa/pt-BR."""

    identifier: str  # "roa/pt-BR"
    name: str  # "Portuguese (Brazil)"
    languages: tuple[tuple[str, int], ...]  # (("pt-br", 5), ("pt", 6))

    @property
    def file(self) -> str:
        return self.identifier.rsplit("/", 1)[-1]


@functools.cache
def _voices() -> tuple[_Voice, ...]:
    """espeak-ng's language voices, read from the data the helper initializes espeak with."""
    import espeakng_loader  # a path helper only; libespeak-ng is loaded in the helper process

    root = Path(espeakng_loader.get_data_path()) / "lang"
    voices = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        name, languages = path.name, []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            key, *values = line.split() or [""]
            if key == "name" and values:
                name = " ".join(values)
            elif key == "language" and values:
                priority = int(values[1]) if len(values) > 1 and values[1].isdigit() else _DEFAULT_PRIORITY
                languages.append((values[0].lower(), priority))
        voices.append(_Voice(path.relative_to(root).as_posix(), name, tuple(languages)))
    return tuple(voices)


def voice_for_language(language: str) -> str | None:
    """The voice espeak-ng prefers for a BCP 47 tag: the full tag's, else its bare language's."""
    tag = language.strip().lower().replace("_", "-")
    lines = [(priority, voice.file, code) for voice in _voices() for code, priority in voice.languages]
    exact = [(p, file) for p, file, code in lines if code == tag]
    # "fr-CA" has no voice of its own: take the voices listed for plain "fr" (not "fr-be").
    bare = [
        (p, file) for p, file, code in lines if code == primary_language(code) and same_language(code, tag)
    ]
    ranked = sorted(exact or bare)
    return ranked[0][1] if ranked else None


def _named_voice(voice: str) -> _Voice | None:
    """The voice espeak_SetVoiceByName would take: by file, path or name, any "+variant" aside."""
    wanted = voice.split("+", 1)[0].strip().lower()
    names = {v: (v.file.lower(), v.identifier.lower(), v.name.lower()) for v in _voices()}
    return next((v for v, aliases in names.items() if wanted in aliases), None)


def _check_int(key: str, value: object, bounds: tuple[int, int]) -> None:
    low, high = bounds
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high
    ):
        raise EngineError(f"espeak option {key!r} must be an integer from {low} to {high}, got {value!r}")


@dataclass(frozen=True)
class EspeakOptions(EngineOptions):
    """engines.espeak: the voice (auto: the book's language's), its rate and pitch."""

    engine: ClassVar[str] = "espeak"
    #: An espeak-ng voice ("en-us", "fr", "pt-br+f3"), or "auto" (also when unset).
    voice: str | None = None
    #: Words per minute.
    rate: int | None = None
    pitch: int | None = None
    #: Tests only: play backwards the texts that contain ``reverse``.
    test_faults: Mapping[str, str] | None = None

    def check(self) -> None:
        if self.voice is not None and (not isinstance(self.voice, str) or not self.voice.strip()):
            raise EngineError(f"espeak option 'voice' must be a non-empty string, got {self.voice!r}")
        _check_int("rate", self.rate, RATE_RANGE)
        _check_int("pitch", self.pitch, PITCH_RANGE)


#: Longest the helper may take to answer: it renders a 400-character segment in about 0.05 s, so a
#: helper silent this long is stuck or stopped (SIGSTOP), never busy.
TIMEOUT_S = 60.0
#: How often a wait for the helper looks whether the user asked the run to stop.
_POLL_S = 0.25


class _Stuck(EOFError):
    """The helper gave no answer in time."""


def _read_exact(stream: IO[bytes], n: int, deadline: float) -> bytes:
    """``n`` bytes of the helper's output, read from its descriptor (never through the buffer) so
    that waiting can end: at ``deadline``, and on Ctrl-C or SIGTERM (narrator.core.interrupt)."""
    fd, data = stream.fileno(), b""
    while len(data) < n:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _Stuck(f"no answer in {TIMEOUT_S:.0f} s: stuck, or stopped with SIGSTOP; killed it")
        ready, _, _ = select.select([fd], [], [], min(remaining, _POLL_S))
        interrupt.check()
        if ready:
            chunk = os.read(fd, n - len(data))
            if not chunk:
                raise EOFError("espeak helper closed its output")
            data += chunk
    return data


class _Helper:
    """One running helper process and its pipes; not thread-safe on its own."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", _WORKER_MODULE],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=_IMPORT_ROOT,
            )
        except OSError as exc:
            raise EngineError(f"cannot start the espeak helper: {exc}") from exc
        try:
            (self.sample_rate,) = _LENGTH.unpack(self.request(json.dumps(dict(config)).encode()))
        except BaseException:
            self.close()
            raise

    def request(self, payload: bytes) -> bytes:
        """Send one frame and return the reply; EngineError for an error frame."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(_LENGTH.pack(len(payload)) + payload)
            self.proc.stdin.flush()
            deadline = time.monotonic() + TIMEOUT_S
            status, length = _HEADER.unpack(_read_exact(self.proc.stdout, _HEADER.size, deadline))
            body = _read_exact(self.proc.stdout, length, deadline)
        except _Stuck as exc:
            self.proc.kill()  # SIGKILL ends a stopped process too
            self.close()
            raise _HelperDied(f"the espeak helper gave {exc}") from exc
        except (OSError, EOFError, ValueError) as exc:
            raise _HelperDied(f"the espeak helper stopped unexpectedly ({exc})") from exc
        except BaseException:
            # Interrupted mid-exchange (e.g. KeyboardInterrupt): an unread reply may be left
            # in the pipe, so retire this helper; the next call then starts a fresh one.
            self.close()
            raise
        if status != 0:
            raise EngineError(body.decode("utf-8", "replace"))
        return body

    def close(self) -> None:
        _stop(self.proc)


class _HelperDied(EngineError):
    """The helper process is gone; a fresh one may succeed."""


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Close the helper's stdin (it exits on EOF) and reap it; kill it if it lingers."""
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class EspeakEngine(Engine[EspeakOptions]):
    """espeak-ng via the espeakng_loader wheel. Options: voice (auto: the book's language's), rate
    (wpm), pitch (0-100); test_faults (tests only: {reverse: MARKER} plays backwards every text
    containing MARKER, audio the ASR check must refuse)."""

    name: ClassVar[str] = "espeak"
    Options: ClassVar[type[EspeakOptions]] = EspeakOptions
    max_chars: ClassVar[int] = 500
    speed_option: ClassVar[str] = "rate"
    pace_fit: ClassVar[tuple[float, float] | None] = (-0.0243, 0.3223)
    #: The sample book's render seconds over its audio seconds, from the catalog of a render_all.
    typical_rtf: ClassVar[float] = 0.003

    @classmethod
    def seeded(cls, options: EspeakOptions) -> bool:
        return False  # a formant synthesizer: no noise to draw

    def __init__(self, config: dict[str, Any], reverse_marker: str = "") -> None:
        self._config = config
        self._reverse_marker = reverse_marker
        self._lock = threading.Lock()  # one request/response on the pipes at a time
        self._closed = False
        self._helper = _Helper(config)
        self._sample_rate: int = self._helper.sample_rate
        # Reap the helper if the engine is garbage-collected or the interpreter exits;
        # if the host dies outright, the helper still exits on stdin EOF.
        self._finalizer = weakref.finalize(self, _stop, self._helper.proc)

    @classmethod
    def for_language(cls, options: EspeakOptions, language: str) -> EspeakOptions:
        voice = options.voice or AUTO_VOICE
        if voice == AUTO_VOICE:
            picked = voice_for_language(language)
            if picked is None:
                raise EngineError(
                    f"espeak-ng has no voice for the book's language {language!r}; set language: in the "
                    "config if that is wrong, or choose another engine"
                )
            return options.with_setting("voice", picked)
        named = _named_voice(voice)
        if named is None:
            raise EngineError(
                f"espeak-ng has no voice named {voice!r}; set engines.espeak.voice to auto or to one "
                "of its voices (en-us, fr, ...)"
            )
        if named.languages and not any(same_language(code, language) for code, _ in named.languages):
            choose = "engines.espeak.voice (auto picks espeak-ng's own)"
            raise language_refused(cls.name, repr(voice), named.languages[0][0], language, choose)
        return options

    @classmethod
    def voice_name(cls, options: EspeakOptions) -> str:
        return "eSpeak NG"

    @classmethod
    def speed_setting(cls, options: EspeakOptions, stretch: float) -> int:
        low, high = RATE_RANGE
        return min(max(round(DEFAULT_RATE / stretch), low), high)

    @classmethod
    def load(cls, options: EspeakOptions) -> EspeakEngine:
        voice = options.voice or "en-us"
        if voice == AUTO_VOICE:
            raise EngineError("espeak voice 'auto' is picked per book: resolve it with for_language first")
        config = {
            "voice": voice,
            "rate": DEFAULT_RATE if options.rate is None else options.rate,
            "pitch": 50 if options.pitch is None else options.pitch,
        }
        return cls(config, reverse_marker=(options.test_faults or {}).get("reverse", ""))

    @property
    def sample_rate(self) -> int:
        return self._sample_rate

    def synthesize(self, text: str, *, seed: int) -> np.ndarray:
        # seed is unused: espeak-ng is a formant synthesizer with no random noise, and the
        # fork-per-utterance helper already makes output depend on the text alone.
        del seed
        payload = text.encode("utf-8", "replace")  # lone surrogates become '?'
        with self._lock:
            if self._closed:
                raise EngineError("the espeak engine has been closed")
            try:
                pcm = self._helper.request(payload)
            except _HelperDied:
                self._restart()  # once: a fresh helper starts from the same state
                pcm = self._helper.request(payload)
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / np.float32(32768)
        if self._reverse_marker and self._reverse_marker in text:
            return samples[::-1].copy()
        return samples

    def _restart(self) -> None:
        self._finalizer()
        self._helper = _Helper(self._config)
        self._finalizer = weakref.finalize(self, _stop, self._helper.proc)

    def close(self) -> None:
        """Stop the helper process; later synthesize calls raise EngineError."""
        with self._lock:
            self._closed = True
            self._finalizer()
