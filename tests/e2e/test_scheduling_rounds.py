"""Snakemake's scheduling rounds in real runs (narrator/workflow/scheduling.py): about one per segment
on a long render, and a binding rate limit still renders every segment.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.slow

#: What Snakemake logs (with --verbose) at each scheduling round that considers ready jobs.
ROUND = re.compile(r"^Ready (?:subsampled )?jobs", re.MULTILINE)


def test_a_long_render_runs_about_one_scheduling_round_per_segment(workdir) -> None:
    # Without the fix every round came back once a second: 30,763 rounds for 4,000 segments.
    sentences = [f"Sentence {n} is short." for n in range(400)]
    (workdir.path / "long.md").write_text("# Long\n\n" + "\n\n".join(sentences) + "\n")
    run = workdir.run_book("book=long.md", "--verbose", target="render_all")
    rounds = len(ROUND.findall(run.stdout + run.stderr))
    segments = len(list((workdir.path / "results" / "long" / "segments").glob("*.wav")))
    assert segments >= len(sentences)
    assert rounds <= 1.2 * segments, f"{rounds} scheduling rounds for {segments} segments"


def test_a_binding_rate_limit_still_renders_every_segment(workdir) -> None:
    # The pending re-evaluation is what starts jobs the limit held back: lose it and the run hangs.
    sentences = [f"Line {n} is here." for n in range(12)]
    (workdir.path / "short.md").write_text("# Short\n\n" + "\n\n".join(sentences) + "\n")
    run = workdir.run_book("book=short.md", "--max-jobs-per-timespan", "3/1s", target="render_all")
    assert "Job rate limit reached" in run.stdout + run.stderr
    segments = list((workdir.path / "results" / "short" / "segments").glob("*.wav"))
    assert len(segments) >= len(sentences)
