"""The Coqui engine on a tiny random-weight VITS built here, loaded through Coqui's public API.

No model can be downloaded in tests or CI, so the hub path (model_name) is not exercised; the
local-checkpoint path uses Coqui's real loading code end to end.
"""

from __future__ import annotations

import multiprocessing
import os

import numpy as np
import pytest
import yaml

from narrator.core.catalog import COMPLETED, QUEUED, read_catalog, wav_file
from narrator.engines.base import EngineError

if not os.environ.get("CI"):
    pytest.importorskip("TTS", reason="the coqui extra is not installed (pip install -e '.[coqui]')")

from coqui_model import build_tiny_vits

from narrator.engines._coqui_worker import serve
from narrator.engines.coqui import CoquiEngine

TEXT = "The lamp was lit at six o'clock, and nobody saw it."


@pytest.fixture(scope="session")
def tiny_vits(tmp_path_factory):
    model, config = build_tiny_vits(tmp_path_factory.mktemp("tiny-vits"))
    return {"model_path": str(model), "config_path": str(config), "device": "cpu"}


@pytest.fixture(scope="module")
def engine(tiny_vits):
    loaded = CoquiEngine.load(tiny_vits)
    yield loaded
    loaded.close()


def test_loads_once_and_renders_deterministically(engine):
    first = engine.synthesize(TEXT, seed=7)
    again = engine.synthesize(TEXT, seed=7)
    other = engine.synthesize(TEXT, seed=8)
    assert engine.sample_rate == 22050
    assert first.dtype == np.float32 and 1.0 < len(first) / 22050 < 10.0
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)
    assert engine.loads == 1


def test_out_of_memory_once_is_retried_with_the_same_seed(tiny_vits, engine):
    text, options = f"{TEXT} OOM-ONCE", {**tiny_vits, "test_faults": {"oom": "OOM-ONCE"}}
    # The worker as CoquiEngine starts it, talked to directly: its replies name the attempt that worked.
    context = multiprocessing.get_context("spawn")
    host, child = context.Pipe()
    worker = context.Process(target=serve, args=(child, options, "cpu"), daemon=True)
    worker.start()
    child.close()
    try:
        assert host.recv()[0] == "ready"
        replies = []
        for _ in range(2):
            host.send((text, 1))
            replies.append(host.recv())
    finally:
        host.close()
        worker.kill()
        worker.join()
    (status, retried, attempt), (_, again, next_attempt) = replies
    # The injected OOM failed the first attempt, the retry succeeded; the next request needed one try.
    assert (status, attempt, next_attempt) == ("ok", 2, 1)
    # The retry seeds afresh: the same samples as a render that met no OOM.
    expected = engine.synthesize(text, seed=1)
    np.testing.assert_array_equal(retried, expected)
    np.testing.assert_array_equal(again, expected)
    # Through the engine: the same samples, and the model was not restarted for it.
    faulty = CoquiEngine.load(options)
    try:
        np.testing.assert_array_equal(faulty.synthesize(text, seed=1), expected)
        assert faulty.loads == 1
    finally:
        faulty.close()


def test_out_of_memory_twice_fails_naming_the_length(tiny_vits):
    engine = CoquiEngine.load({**tiny_vits, "test_faults": {"oom_twice": "OOM-TWICE"}})
    try:
        text = f"{TEXT} OOM-TWICE"
        with pytest.raises(EngineError, match=f"out of GPU memory twice on a {len(text)}-character segment"):
            engine.synthesize(text, seed=1)
        assert len(engine.synthesize(TEXT, seed=1)) > 0  # the engine carries on
    finally:
        engine.close()


def test_a_hang_is_killed_by_the_timeout_and_the_model_restarted(tiny_vits):
    engine = CoquiEngine.load({**tiny_vits, "timeout_s": 3, "test_faults": {"hang": "HANG"}})
    try:
        with pytest.raises(EngineError, match="hung; killed after 3 s"):
            engine.synthesize(f"{TEXT} HANG", seed=1)
        assert len(engine.synthesize(TEXT, seed=1)) > 0
        assert engine.loads == 2
    finally:
        engine.close()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"model_path": "nowhere/model.pth", "config_path": "nowhere/config.json"}, "model_path not found"),
        ({}, "needs engines.coqui.model_name"),
        ({"device": "cuda:3"}, "device cuda:3 is not available"),
    ],
)
def test_preflight_errors_are_one_line(tiny_vits, options, message):
    merged = {**tiny_vits, **options} if options else {}
    with pytest.raises(EngineError) as error:
        CoquiEngine.preflight(merged)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_missing_coqui_extra_is_one_line(tiny_vits, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "torch", None)  # import torch now fails
    with pytest.raises(EngineError, match=r"needs its extra: pip install -e '\.\[coqui\]'"):
        CoquiEngine.preflight({**tiny_vits, "device": "auto"})


def _coqui_config(workdir, tiny_vits, **extra):
    path = workdir.path / "coqui.yaml"
    path.write_text(yaml.safe_dump({"engine": "coqui", "engines": {"coqui": {**tiny_vits, **extra}}}))
    return str(path)


BOOK = (
    "# Tiny\n\n## One\n\nThe lamp was lit at six. Nobody saw it.\n\n"
    "## Two\n\nThe fog came in. NANTEXT appears here. A boat OOMTWICE came home.\n"
)
#: tiny_vits is untrained: its audio is not speech, so the ASR check (enforce for coqui) is off.
NO_ASR = "verify={asr: 'off', tries: 1}"
#: The book without the words that inject faults.
CLEAN_BOOK = BOOK.replace("NANTEXT", "Fog").replace("OOMTWICE", "slowly")


@pytest.mark.slow
def test_end_to_end_through_snakemake_one_load_and_identical_rerender(workdir, tiny_vits):
    (workdir.path / "tiny.md").write_text(CLEAN_BOOK)
    configfile = _coqui_config(workdir, tiny_vits)
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


@pytest.mark.slow
def test_failing_segments_stay_queued_while_the_rest_complete(workdir, tiny_vits):
    (workdir.path / "tiny.md").write_text(BOOK)
    configfile = _coqui_config(workdir, tiny_vits, test_faults={"nan": "NANTEXT", "oom_twice": "OOMTWICE"})
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


#: Loaded first in the Snakemake process (via PYTHONPATH): torch answers as if CUDA were there or not.
FAKE_CUDA = """import torch

torch.cuda.is_available = lambda: {present}
torch.cuda.device_count = lambda: {count}
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("device", "cuda", "gpus"),
    [("cuda", True, 1), ("auto", True, 1), ("auto", False, 0), ("cpu", True, 0)],
)
def test_render_jobs_ask_for_a_gpu_exactly_when_the_model_runs_on_cuda(
    workdir, tiny_vits, tmp_path, device, cuda, gpus
):
    fake = tmp_path / "fake-cuda"
    fake.mkdir()
    (fake / "sitecustomize.py").write_text(FAKE_CUDA.format(present=cuda, count=int(cuda)))
    paths = [str(fake), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    (workdir.path / "tiny.md").write_text(CLEAN_BOOK)
    configfile = _coqui_config(workdir, {**tiny_vits, "device": device})
    gpus_per_job = workdir.render_job_gpus("--configfile", configfile, "--config", "book=tiny.md", env=env)
    assert gpus_per_job == [gpus] * len(read_catalog(workdir.results("tiny") / "catalog.tsv"))
