"""How Piper's rendering scales with CPUs here, and what the render jobs' CPU slots save, in one run.

The same sentences (the opening of A Tale of Two Cities, as bench/scale.py reads it) and the same
voice and pace, rendered in one process:
  - one call at a time with one intra-op thread, then with two (what the Piper CLI does);
  - two one-thread calls at once (two render jobs);
  - eight one-thread calls at once (the README's --cores 8), with and without narrator's CPU slots
    (narrator.engines.base.cpu_share, at most CPUs / threads calls at once).
It prints each time and its speed-up over one thread. On 2 CPUs it tells whether parallel render
jobs can beat the CLI's two threads, and what eight jobs cost over two.

    python bench/threads.py               # 600 words
    python bench/threads.py --words 300
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pysbd
import yaml
from scale import REPO, excerpt

from narrator.core.cpus import usable_cpus
from narrator.engines import engine_class
from narrator.engines.base import cpu_share

Slot = Callable[[int], contextlib.AbstractContextManager[None]]


def timed_render(threads: int, at_once: int, sentences: list[str], slot: Slot) -> float:
    """Seconds to render every sentence with a new ``threads``-thread engine, ``at_once`` calls at a time."""
    piper = engine_class("piper")
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    configured = piper.Options.from_config({**config["engines"]["piper"], "threads": threads})
    options = piper.for_pace(configured, config["pace"])
    engine = piper.load(options)

    def render(sentence: str) -> None:
        with slot(threads):
            engine.synthesize(sentence, seed=1)

    start = time.perf_counter()
    with ThreadPoolExecutor(at_once) as pool:
        list(pool.map(render, sentences))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=600)
    args = parser.parse_args()
    segmenter = pysbd.Segmenter(language="en", clean=False)
    sentences = [s for line in excerpt(args.words).splitlines() for s in segmenter.segment(line)]

    def no_slot(_: int) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    runs = {
        "1 call at a time, 1 thread": (1, 1, no_slot),
        "1 call at a time, 2 threads": (2, 1, no_slot),
        "2 calls at once, 1 thread each": (1, 2, no_slot),
        "8 calls at once, 1 thread each": (1, 8, no_slot),
        "8 jobs through the CPU slots": (1, 8, cpu_share),
    }
    print(f"{len(sentences)} sentences, {usable_cpus()} CPUs")
    times = {
        name: timed_render(threads, at_once, sentences, slot)
        for name, (threads, at_once, slot) in runs.items()
    }
    single = times["1 call at a time, 1 thread"]
    for name, seconds in times.items():
        print(f"{name:>32}  {seconds:6.1f} s  speed-up {single / seconds:.2f}x")


if __name__ == "__main__":
    main()
