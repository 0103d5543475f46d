"""Each engine, through real Snakemake, renders the same book again sample for sample: Piper (the
bundled voice, with seeded noise) in two separate runs, and Coqui (a tiny random-weight VITS) and
Kokoro (the real int8 weights) re-rendering every segment in a new process with one engine load.
The Coqui and Kokoro tests skip where their extra is missing (never on CI).
"""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from conftest import Workdir, read_audio
from coqui_model import CLEAN_BOOK, NO_ASR, coqui_configfile

from narrator.core.catalog import COMPLETED, read_catalog, wav_file

pytestmark = pytest.mark.slow


def test_default_piper_engine_renders_identically_in_two_separate_runs(tmp_path):
    """The bundled voice, end to end, twice: seeded noise makes the books sample-identical."""
    books = []
    for name in ("first", "second"):
        work = Workdir(tmp_path / name)
        (work.path / "short.md").write_text(
            "# Short\n\n## One\n\nThe lamp was lit at six. Nobody saw it.\n\n## Two\n\nThe fog came in.\n"
        )
        work.snakemake("--cores", "2", "--resources", "gpu=1", "--config", "book=short.md")
        rows = read_catalog(work.results("short") / "catalog.tsv")
        assert all(row.status == COMPLETED for row in rows)
        assert len([row for row in rows if not row.chapter_title.endswith("credits")]) == 5
        books.append(read_audio(work.results("short") / "short.wav")[0])
    assert len(books[0]) > 22050 * 3
    assert np.array_equal(books[0], books[1])


def test_end_to_end_through_snakemake_one_load_and_identical_rerender(workdir, tiny_vits):
    (workdir.path / "tiny.md").write_text(CLEAN_BOOK)
    configfile = coqui_configfile(workdir, tiny_vits)
    args = ("--cores", "2", "--resources", "gpu=1", "--configfile", configfile, "--config", "book=tiny.md")
    args = (*args, NO_ASR)
    workdir.snakemake(*args)
    results = workdir.results("tiny")
    rows = read_catalog(results / "catalog.tsv")
    assert rows and all(row.status == COMPLETED for row in rows)
    ids = [row.segment_id for row in rows]
    first_run = workdir.render_pid(ids, "tiny")  # one process rendered every segment, with one load
    book = (results / "tiny.wav").read_bytes()
    for row in rows:
        wav_file(results / "catalog.tsv", row).unlink()
    (results / "tiny.wav").unlink()
    workdir.snakemake(*args)
    # Every segment was rendered again, all in one new process with one load.
    assert workdir.render_pid(ids, "tiny") != first_run
    assert [r.sha256 for r in read_catalog(results / "catalog.tsv")] == [r.sha256 for r in rows]
    assert (results / "tiny.wav").read_bytes() == book


def test_a_book_renders_end_to_end_deterministically(workdir, kokoro_files: dict[str, str]) -> None:
    (workdir.path / "tiny.md").write_text("# Tiny\n\n## One\n\nThe lamp was lit. Nobody saw it.\n")
    kokoro = {**kokoro_files, "voice": "jf_alpha", "device": "cpu"}
    engines = yaml.safe_dump({"kokoro": kokoro}, default_flow_style=True).strip()
    # The ASR check (auto: enforce for kokoro) has its own tests (tests/unit/render/test_asr.py); off
    # here, where a Japanese voice reads English, so this test stays about the engine and its time
    # stays short.
    no_asr = "verify={asr: 'off', tries: 1}"
    args = ("--cores", "2", "--config", "engine=kokoro", f"engines={engines}", "book=tiny.md", no_asr)
    workdir.snakemake(*args)
    results = workdir.results("tiny")
    segments = sorted((results / "segments").glob("*.wav"))
    assert len(segments) >= 2 and (results / "tiny.m4b").is_file()
    first_run = workdir.render_pid([path.stem for path in segments], "tiny")  # one process, one load
    book = (results / "tiny.wav").read_bytes()
    for path in [*segments, results / "tiny.wav"]:
        path.unlink()
    workdir.snakemake(*args)
    assert workdir.render_pid([path.stem for path in segments], "tiny") != first_run
    assert (results / "tiny.wav").read_bytes() == book
