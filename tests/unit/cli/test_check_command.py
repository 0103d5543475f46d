"""`narrator check` on the command line (narrator/cli.py): a folder that is missing, or holds no
outputs, is one line. The checks of a real run's outputs: tests/e2e/test_audiobook_outputs.py.
"""

from __future__ import annotations

from conftest import Workdir


def test_check_of_a_missing_folder_is_one_line(workdir: Workdir) -> None:
    result = workdir.narrator("check", "results/nowhere")
    assert result.returncode == 2
    assert result.stderr.strip() == "narrator: results/nowhere: no such results folder"


def test_check_of_a_folder_without_outputs_is_one_line(workdir: Workdir) -> None:
    (workdir.path / "results" / "empty").mkdir(parents=True)
    result = workdir.narrator("check", "results/empty")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
