"""A segment that fails stays queued and fails the run while the rest complete: Coqui's NaN and
out-of-memory faults, and the ASR check in enforce mode failing exactly the sabotaged segment.
"""

from __future__ import annotations

import pytest
from coqui_model import BOOK, NO_ASR, coqui_configfile

from narrator.core.catalog import COMPLETED, QUEUED, read_catalog
from narrator.render import asr

pytestmark = pytest.mark.slow


def test_failing_segments_stay_queued_while_the_rest_complete(workdir, tiny_vits):
    (workdir.path / "tiny.md").write_text(BOOK)
    configfile = coqui_configfile(workdir, tiny_vits, test_faults={"nan": "NANTEXT", "oom_twice": "OOMTWICE"})
    args = ("--cores", "2", "--resources", "gpu=1", "--configfile", configfile, "--config", "book=tiny.md")
    args = (*args, NO_ASR)
    result = workdir.snakemake(*args, check=False)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "NaN or infinite samples" in output
    assert "out of GPU memory twice" in output
    rows = read_catalog(workdir.results("tiny") / "catalog.tsv")
    failed = [row for row in rows if "NANTEXT" in row.spoken or "OOMTWICE" in row.spoken]
    assert len(failed) == 2 and all(row.status == QUEUED for row in failed)
    assert all(row.status == COMPLETED for row in rows if row not in failed)
    assert not (workdir.results("tiny") / "tiny.wav").exists()


@pytest.mark.skipif(not asr.available(), reason="needs the asr extra")
def test_enforce_run_fails_exactly_the_sabotaged_segment(workdir) -> None:
    (workdir.path / "tiny.md").write_text(
        # espeak's voice for "en" reads "Nobody saw it." as Whisper hears "no more disordered"; these
        # sentences are heard right (measured).
        "# Tiny\n\n## One\n\nThe lamp was lit at six. The fog came in over the water.\n\n"
        "## Two\n\nThe fog came in over the harbour. A boat SABOTAGED came home late.\n"
    )
    engines = '{espeak: {test_faults: {reverse: "SABOTAGED"}}}'
    result = workdir.run_book(
        "book=tiny.md", "verify={asr: enforce, tries: 2}", f"engines={engines}", check=False
    )
    assert result.returncode != 0
    rows = read_catalog(workdir.results("tiny") / "catalog.tsv")
    failed = [row for row in rows if row.status != COMPLETED]
    assert [row.text for row in failed] == ["A boat SABOTAGED came home late."]
    output = result.stdout + result.stderr
    # espeak draws no noise: another seed would give the same audio, so it renders once.
    assert f"segment {failed[0].segment_id}: the ASR check failed its one render (espeak" in output
    evidence = asr.read_evidence(workdir.results("tiny") / "catalog.tsv", rows)
    assert [e.row for e in evidence] == [row for row in rows if row.status == COMPLETED]
    assert all(e.score.passed and e.mode == "enforce" for e in evidence)
    # A re-plan after an edit adopts the kept segments' WAVs and keeps their sidecars as evidence.
    book = workdir.path / "tiny.md"
    book.write_text(book.read_text().replace(" SABOTAGED", ""))
    # The same engine options (test_faults is part of every segment id), so the kept ids are the same.
    workdir.snakemake(
        "--cores",
        "1",
        "--until",
        "plan_catalog",
        "--config",
        "engine=espeak",
        "book=tiny.md",
        f"engines={engines}",
    )
    replanned = read_catalog(workdir.results("tiny") / "catalog.tsv")
    kept = asr.read_evidence(workdir.results("tiny") / "catalog.tsv", replanned)
    assert [e.row.segment_id for e in kept] == [e.row.segment_id for e in evidence]
