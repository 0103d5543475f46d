"""Every command the README and docs/ give, run: the workflow commands in a copy of the workflow
(dry runs where they would render a whole novel), the narrator commands on the sample book the
Quick start renders. The install commands are the ones scripts/test.sh (CI) runs.
"""

from __future__ import annotations

import re
import shlex
import shutil

import pytest
from conftest import BOOKS, REPO

pytestmark = pytest.mark.slow

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"```(?:bash|sh)?\n(.*?)```", re.S)
COMMAND = re.compile(r"^(snakemake|narrator|pip|bash|python3?)\b")


def documented_commands() -> list[str]:
    """Each command line of the pages' code blocks, once, its comment cut off."""
    commands = []
    for page in PAGES:
        for block in FENCE.findall(page.read_text(encoding="utf-8")):
            for written in block.splitlines():
                line = written.split("  #")[0].strip()
                if COMMAND.match(line) and not line.startswith("narrator:"):
                    commands.append(line)
    return list(dict.fromkeys(commands))


COMMANDS = documented_commands()


def test_the_pages_give_commands_of_every_kind():
    kinds = {command.split()[0] for command in COMMANDS}
    assert {"snakemake", "narrator", "pip", "bash"} <= kinds, COMMANDS


def test_every_install_command_is_one_that_ci_runs():
    script = (REPO / "scripts" / "test.sh").read_text()
    extras = set(re.search(r"pip install -q -e '\.\[([a-z,]+)\]'", script).group(1).split(","))
    for command in COMMANDS:
        if command.startswith("python3 -m venv"):  # the Quick start: a venv, the package, one run
            assert "pip install -e ." in command
            continue
        if command.startswith("pip install"):
            asked = re.search(r"'\.\[([a-z,]+)\]'", command)
            assert asked and set(asked.group(1).split(",")) <= extras, command
        elif command.startswith("bash "):
            assert command == "bash scripts/test.sh"  # CI's own command, .ci/run


def test_every_workflow_and_narrator_command_runs(workdir):
    # The books the examples name, as real books of the corpus.
    for name, book in (
        ("path/to/novel.txt", "macbeth-pg1533.txt"),
        ("path/to/novel.md", "../../../workflow/resources/sample.md"),
        ("path/to/novel.epub", "progit-1st-ed-pandoc.epub"),
        ("library/earnest.txt", "importance-of-being-earnest-pg844.txt"),
        ("library/spec.epub", "idpf-epub30-spec.epub"),
        ("extra/novel.txt", "legend-land-vol1-pg20170.txt"),
    ):
        (workdir.path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(BOOKS / book, workdir.path / name)
    # The Quick start's run, for real (the sample book, the bundled Piper voice), then the rest.
    quick_start = [c for c in COMMANDS if c.startswith("python3 -m venv")]
    assert quick_start and quick_start[0].endswith("&& snakemake --cores 8 --resources gpu=1")
    workdir.snakemake("--cores", "8", "--resources", "gpu=1")
    ran = 0
    for command in COMMANDS:
        words = shlex.split(command)
        if words[0] == "narrator":
            done = workdir.narrator(*words[1:])
            assert done.returncode == 0, f"{command}: {done.stdout}{done.stderr}"
        elif words[0] == "snakemake":
            # A run of a whole novel (or a cluster submission) is checked as far as a dry run goes:
            # the config, the books, the profile and the plan of jobs.
            real = (
                "--unlock" in words
                or "--report" in words
                or words[1:] == ["--cores", "8", "--resources", "gpu=1"]
            )
            done = workdir.snakemake(*words[1:], *([] if real else ["-n"]), check=False)
            assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
        else:
            continue
        ran += 1
    assert ran >= 10
    assert (workdir.path / "report.html").stat().st_size > 10_000
