"""`narrator verify` on the command line (narrator/cli.py): it reports what it healed, is refused while a
run holds the book, and fails in one line on a read-only file system.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from tiny_book import rows_by_id, truncate_wav

from narrator.cli import main
from narrator.core.catalog import QUEUED, read_catalog
from narrator.core.lock import holding


def test_verify_command_reports_and_heals(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    victim = read_catalog(rendered)[2]
    truncate_wav(rendered, victim)
    assert main(["verify", str(rendered)]) == 0
    assert "1 re-queued" in capsys.readouterr().out
    assert rows_by_id(rendered)[victim.segment_id].status == QUEUED


def test_verify_is_refused_while_a_run_holds_the_book(rendered: Path, capsys) -> None:
    with holding(rendered.parent, "snakemake"):
        assert main(["verify", str(rendered)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is in use by snakemake" in err
    assert main(["verify", str(rendered)]) == 0  # the lock went with its holder


def test_verify_on_a_read_only_file_system_is_one_line(rendered: Path, tiny_disk: Path, capsys) -> None:
    subprocess.run(["umount", str(tiny_disk)], check=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(tiny_disk)], check=True)
    shutil.copytree(rendered.parent, tiny_disk / "tiny-book")
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_disk)], check=True)
    assert main(["verify", str(tiny_disk / "tiny-book")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Read-only file system" in err and "Traceback" not in err
