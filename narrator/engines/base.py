"""The one engine interface every text-to-speech backend implements."""

from __future__ import annotations

import abc
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, ClassVar, Generic, Self, TypeVar

import numpy as np

from narrator.core import interrupt
from narrator.core.cpus import usable_cpus
from narrator.core.errors import UserError


class EngineError(UserError):
    """An engine could not load or synthesize; the message is meant for the user."""


class EngineTimeout(EngineError):
    """A segment's render ran past the engine's timeout_s and was stopped."""


#: How long one segment may render before it is stopped (the engines' timeout_s option): a hung
#: model must not hold a whole run, and the slowest engine here (Kokoro on one CPU thread, RTF
#: about 0.7) renders a 30-second segment in well under a minute.
DEFAULT_TIMEOUT_S = 300.0
#: How often a waiting render looks at its deadline and at Ctrl-C/SIGTERM.
WATCH_INTERVAL_S = 0.25


def wait_or_stop(done: Any, deadline: float, stop: Any) -> bool:
    """Wait until ``done(timeout)`` says the work finished (True), or until ``deadline``
    (time.monotonic()) passes or the user asks the run to stop: then call ``stop()`` and return
    False. Checked every WATCH_INTERVAL_S, so Ctrl-C stops a render within a fraction of a second."""
    while not interrupt.requested() and (left := deadline - time.monotonic()) > 0:
        if done(min(WATCH_INTERVAL_S, left)):
            return True
    stop()
    return False


def run_onnx(session: Any, outputs: Any, feeds: Mapping[str, Any], deadline: float, timeout_s: float) -> Any:
    """``session.run`` that stops at ``deadline`` or on Ctrl-C/SIGTERM: onnxruntime cannot be
    interrupted from outside, but a watcher can set the call's RunOptions.terminate, which it
    checks between operators. Interrupted, or EngineTimeout, when it was stopped."""
    import onnxruntime

    run_options = onnxruntime.RunOptions()
    finished = threading.Event()

    def terminate() -> None:
        run_options.terminate = True

    watcher = threading.Thread(target=wait_or_stop, args=(finished.wait, deadline, terminate), daemon=True)
    watcher.start()
    try:
        return session.run(outputs, dict(feeds), run_options)
    except Exception:
        if not run_options.terminate:
            raise
        interrupt.check()
        raise EngineTimeout(f"no audio after {timeout_s:g} s (the engine's timeout_s); stopped it") from None
    finally:
        finished.set()
        watcher.join()


def timeout_of(value: Any, engine: str) -> float:
    """A timeout_s option's value: a number of seconds above 0, DEFAULT_TIMEOUT_S when unset."""
    if value is None:
        return DEFAULT_TIMEOUT_S
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise EngineError(f"{engine} option 'timeout_s' must be a number of seconds above 0, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class EngineOptions:
    """An engine's options, typed, as the config sets them: None where it leaves one unset.

    Each engine subclasses it with its own fields (as Piper's SynthesisConfig), parsed once by
    ``from_config`` where the config is read. ``settings`` gives back exactly what was set: the
    render key hashes it, so segment ids are those of the config's own mapping.
    """

    #: The engine's name, for messages.
    engine: ClassVar[str] = ""

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> Self:
        """The options of the config's ``engines.<name>`` mapping; EngineError for an unknown key
        or a value of the wrong type or range (``check``)."""
        known = [option.name for option in fields(cls)]
        unknown = sorted(set(raw) - set(known))
        if unknown:
            raise EngineError(
                f"unknown {cls.engine} option(s) {', '.join(unknown)}; known: {', '.join(known)}"
            )
        options = cls(**raw)
        options.check()
        return options

    def check(self) -> None:
        """Raise EngineError with one line for a value of the wrong type or range."""

    def settings(self) -> dict[str, Any]:
        """The options that are set, by name (for the render key and an engine's worker process)."""
        return {
            option.name: value for option in fields(self) if (value := getattr(self, option.name)) is not None
        }

    def voice_files(self) -> list[Path]:
        """The files these options name that make the voice (model, config, voices, reference audio):
        their bytes are part of every segment's identity, so a voice changed in place re-renders."""
        return []

    def with_setting(self, name: str, value: Any) -> Self:
        """These options with ``name`` set to ``value``."""
        return replace(self, **{name: value})


def language_refused(engine: str, voice: str, speaks: str, language: str, choose: str) -> EngineError:
    """The one line for a voice that cannot read the book's language, naming both ways out."""
    return EngineError(
        f"the book's language is {language!r} but the {engine} voice {voice} speaks {speaks!r}: choose "
        f"a voice for {language!r} with {choose}, or set language: in the config if the book's is wrong"
    )


def onnx_session_options(onnxruntime: Any, threads: int) -> Any:
    """onnxruntime session options for one render job: ``threads`` intra-op threads, none idle-spinning."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle pool threads would otherwise spin, stealing CPU from parallel Snakemake jobs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


_cpu_slots: dict[int, threading.BoundedSemaphore] = {}
_cpu_slots_lock = threading.Lock()


@contextmanager
def cpu_share(threads: int) -> Iterator[None]:
    """Hold one of this process's slots for a model call that keeps ``threads`` CPUs busy.

    Render jobs run as threads of one Snakemake process, as many at once as ``--cores`` allows, and
    the README's ``--cores 8`` exceeds most CPUs: on 2 CPUs, eight concurrent one-thread Piper runs
    rendered 600 words 10% slower than two (measured side by side, `snakemake render_all` at
    ``--cores 8`` against ``--cores 2``). So at most CPUs / threads calls run at once and the rest
    wait their turn. ``threads`` 0 is a call whose work is elsewhere (a GPU): it never waits.
    """
    if threads < 1:
        yield
        return
    with _cpu_slots_lock:
        slots = _cpu_slots.get(threads)
        if slots is None:
            slots = _cpu_slots[threads] = threading.BoundedSemaphore(max(1, usable_cpus() // threads))
    with slots:
        yield


OptionsT = TypeVar("OptionsT", bound=EngineOptions)


class Engine(abc.ABC, Generic[OptionsT]):
    """A loaded text-to-speech model.

    Engines know nothing of Snakemake or the catalog. ``load`` is called once per process
    (the registry caches the instance), so it may be slow; ``synthesize`` is called once per
    segment, possibly from several threads at once, and must be safe under that.
    ``synthesize`` must be deterministic: the same text, seed and options give the same samples.
    """

    name: ClassVar[str]
    #: The engine's options class: ``engine.Options.from_config(config["engines"][name])``.
    Options: ClassVar[type[EngineOptions]]
    #: Longest text, in characters, the engine renders well in one call.
    max_chars: ClassVar[int]
    #: Whether text may carry inline phonemes as [[ ... ]] (the lexicon's phoneme forms).
    supports_phonemes: ClassVar[bool] = False
    #: The option that sets how fast the voice speaks; "" for none.
    speed_option: ClassVar[str] = ""
    #: How long the default voice takes per word, measured by bench/pace.py at two speeds: a word
    #: takes ``fixed + stretched * stretch`` seconds of speech, where stretch 1 is the engine's
    #: neutral speed and 2 twice as slow. None where no voice could be measured; ``pace`` then
    #: leaves the voice at its own speed.
    pace_fit: ClassVar[tuple[float, float] | None] = None
    #: Render seconds per second of audio of one call with the default options, measured here;
    #: it sizes cluster render groups until a book's own segments are timed (narrator/render/groups.py).
    #: 1.0 (real time) where no voice could be measured: groups then come out smaller and ask for
    #: more wall time, never less.
    typical_rtf: ClassVar[float] = 1.0

    @classmethod
    def device(cls, options: OptionsT) -> str:
        """Where this engine runs with these options: "cpu" or "cuda[:N]"; decides the gpu resource."""
        return "cpu"

    @classmethod
    def cpu_threads(cls, options: OptionsT) -> int:
        """CPUs one ``synthesize`` call keeps busy with these options; 0 where its work runs elsewhere."""
        return 1

    @classmethod
    def seeded(cls, options: OptionsT) -> bool:
        """Whether ``synthesize``'s seed changes the samples with these options (noise drawn from it)."""
        return True

    @classmethod
    def budget(cls, options: OptionsT) -> int:
        """Longest segment, in characters, for these options (a model may have a hard limit)."""
        return cls.max_chars

    @classmethod
    def preflight(cls, options: OptionsT) -> None:
        """Cheap checks before planning (files exist, device present); EngineError with one line."""
        return None  # most engines have nothing to check before loading

    @classmethod
    def for_language(cls, options: OptionsT, language: str) -> OptionsT:
        """These options made to read ``language`` (BCP 47), before planning.

        An engine whose voice follows the language fills that voice in here, so the plan's
        render key and every render job see the same options; a voice that cannot read the
        language is refused with one EngineError line (see ``language_refused``).
        """
        return options  # an engine that cannot tell its voice's language does not block

    @classmethod
    def voice_name(cls, options: OptionsT) -> str:
        """The voice's name as the opening credits say it."""
        return cls.name.capitalize()

    @classmethod
    def for_pace(cls, options: OptionsT, wpm: float) -> OptionsT:
        """These options with the speed option set so the voice speaks ``wpm`` words per minute,
        unless the options set it themselves (an explicit setting wins)."""
        if cls.pace_fit is None or getattr(options, cls.speed_option) is not None:
            return options
        fixed, stretched = cls.pace_fit
        stretch = max((60.0 / wpm - fixed) / stretched, 0.1)
        return options.with_setting(cls.speed_option, cls.speed_setting(options, stretch))

    @classmethod
    def speed_setting(cls, options: OptionsT, stretch: float) -> float | int:
        """The speed option's value that slows the voice by ``stretch`` (see ``pace_fit``)."""
        raise NotImplementedError(f"{cls.name} has a pace_fit but no speed_setting")

    @classmethod
    @abc.abstractmethod
    def load(cls, options: OptionsT) -> Engine[OptionsT]:
        """Load the model once; raise EngineError with a one-line reason on failure."""

    @property
    @abc.abstractmethod
    def sample_rate(self) -> int:
        """Sample rate in Hz of what ``synthesize`` returns."""

    @abc.abstractmethod
    def synthesize(self, text: str, *, seed: int) -> np.ndarray:
        """Render text to mono float32 samples in [-1, 1]; any noise is drawn from ``seed``."""
