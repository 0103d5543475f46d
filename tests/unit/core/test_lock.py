"""One run per results folder (narrator/core/lock.py): a second holder is refused in one line naming
the first, and a holder killed with SIGKILL leaves no lock to wait for.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import kill_group

from narrator.core.errors import UserError
from narrator.core.lock import LOCK_NAME, ResultsLock, holding

HOLDER = """
import os, sys, time
from pathlib import Path
from narrator.core.lock import ResultsLock
ResultsLock(Path(sys.argv[1]), "holder").acquire()
if len(sys.argv) > 2:
    ready, told = os.pipe()
    if os.fork() == 0:
        os.write(told, b"x")  # the fork hooks have run in this child: the lock is the parent's alone
        time.sleep(60)  # a forked child outliving its parent
        os._exit(0)
    os.read(ready, 1)
print(os.getpid(), flush=True)
time.sleep(60)
"""


def _start_holder(folder: Path, *fork: str) -> tuple[subprocess.Popen, int]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder), *fork],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    return holder, int(holder.stdout.readline())


def test_a_second_holder_is_refused_with_one_line_naming_the_first(tmp_path):
    holder, pid = _start_holder(tmp_path)
    try:
        with pytest.raises(UserError) as refused, holding(tmp_path, "narrator verify"):
            pass
    finally:
        kill_group(holder)
    record = json.loads((tmp_path / LOCK_NAME).read_text())
    assert record["pid"] == pid and record["cwd"] == os.getcwd() and "-c" in record["command"]
    assert str(refused.value) == (
        f"{tmp_path} is in use by holder (pid {pid}, host {record['host']}, since {record['since']}, "
        f"in {os.getcwd()}); wait for it to finish or stop it, then run again"
    )
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("fork", [(), ("fork",)], ids=["holder", "holder with a forked child"])
def test_a_sigkilled_holder_leaves_no_lock_to_wait_for(tmp_path, fork):
    holder, pid = _start_holder(tmp_path, *fork)
    os.kill(pid, signal.SIGKILL)
    holder.wait()
    try:
        # The file stays, naming the dead holder, but the kernel dropped its lock.
        assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == pid
        with holding(tmp_path, "narrator verify"):
            assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == os.getpid()
    finally:
        kill_group(holder)  # the forked child, if any
    with holding(tmp_path, "again"):
        pass


def test_a_lock_is_held_until_released(tmp_path):
    first = ResultsLock(tmp_path, "first")
    first.acquire()
    with pytest.raises(UserError, match=r"in use by first \(pid"):
        ResultsLock(tmp_path, "second").acquire()
    first.release()
    with holding(tmp_path, "second"):
        pass


@pytest.mark.parametrize("lock_file", [LOCK_NAME, ".catalog.tsv.lock"])
def test_a_folder_where_a_lock_file_belongs_is_one_line(tmp_path: Path, lock_file: str) -> None:
    from narrator.core.catalog import locked

    (tmp_path / lock_file).mkdir()
    with pytest.raises(UserError) as refused:
        if lock_file == LOCK_NAME:
            ResultsLock(tmp_path, "a test").acquire()
        else:
            with locked(tmp_path / "catalog.tsv"):
                pass
    message = str(refused.value)
    assert f"{tmp_path / lock_file} is a folder" in message and "rmdir" in message and "\n" not in message
