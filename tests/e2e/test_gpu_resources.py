"""What render jobs ask Snakemake for, in a dry run of the planned book: a GPU exactly when the model
runs on CUDA (Coqui, with torch told there is or is not one), and none for the CPU engines.
"""

from __future__ import annotations

import os

import pytest
from coqui_model import CLEAN_BOOK, coqui_configfile
from tiny_html import BOOK, rows_of

from narrator.core.catalog import read_catalog

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("engine", ["espeak", "piper"])
def test_render_jobs_on_the_cpu_ask_for_no_gpu(tiny, engine):
    gpus = tiny.render_job_gpus("--config", f"engine={engine}", BOOK)
    rows = rows_of(tiny)
    assert rows and gpus == [0] * len(rows)


#: Loaded first in the Snakemake process (via PYTHONPATH): torch answers as if CUDA were there or not.
FAKE_CUDA = """import torch

torch.cuda.is_available = lambda: {present}
torch.cuda.device_count = lambda: {count}
"""


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
    configfile = coqui_configfile(workdir, {**tiny_vits, "device": device})
    gpus_per_job = workdir.render_job_gpus("--configfile", configfile, "--config", "book=tiny.md", env=env)
    assert gpus_per_job == [gpus] * len(read_catalog(workdir.results("tiny") / "catalog.tsv"))
