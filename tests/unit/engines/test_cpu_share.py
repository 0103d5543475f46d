"""cpu_share: render jobs, threads of one Snakemake process, run no more model calls at once than CPUs."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from narrator.engines import base, engine_class


def most_at_once(threads: int, callers: int = 8) -> int:
    """How many of ``callers`` concurrent calls were inside cpu_share(threads) at the same moment."""
    lock, inside, peak = threading.Lock(), [0], [0]

    def call(_: int) -> None:
        with base.cpu_share(threads):
            with lock:
                inside[0] += 1
                peak[0] = max(peak[0], inside[0])
            time.sleep(0.05)
            with lock:
                inside[0] -= 1

    with ThreadPoolExecutor(callers) as pool:
        list(pool.map(call, range(callers)))
    return peak[0]


@pytest.fixture
def two_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "usable_cpus", lambda: 2)
    monkeypatch.setattr(base, "_cpu_slots", {})


@pytest.mark.usefixtures("two_cpus")
@pytest.mark.parametrize(("threads", "expected"), [(1, 2), (2, 1), (4, 1), (0, 8)])
def test_calls_at_once_are_cpus_over_threads(threads: int, expected: int) -> None:
    # 8 render jobs (--cores 8) on 2 CPUs: one-thread calls run two at a time, two-thread calls one
    # at a time, a call wider than the machine still runs, and GPU calls (0) never wait.
    assert most_at_once(threads) == expected


def test_usable_cpus_follow_the_process_affinity() -> None:
    assert base.usable_cpus() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize(
    ("engine", "options", "threads"),
    [
        ("piper", {}, 1),
        ("piper", {"threads": 2}, 2),
        ("espeak", {}, 1),
        ("kokoro", {"device": "cpu", "threads": 3}, 3),
        ("kokoro", {"device": "cuda"}, 0),
        ("coqui", {"device": "cpu"}, 0),
    ],
)
def test_each_engine_says_how_many_cpus_a_call_keeps_busy(engine: str, options: dict, threads: int) -> None:
    assert engine_class(engine).cpu_threads(engine_class(engine).Options.from_config(options)) == threads
