"""Modification times from the future, brought back to now before Snakemake compares them.

Snakemake decides what to re-run by comparing mtimes, and after each job it refuses an output older
than one of its inputs ("clock skew") and deletes it. A file stamped ahead of this machine's clock
(``cp -p`` from another machine, an NFS server whose clock runs fast) then deletes the finished
master on every run until the clock catches up, and a book file from the future re-plans it on
every run. An mtime is only a time: setting it to now changes no byte of any file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

#: How far ahead an mtime may be before it counts as skew: filesystems round times to 2 s (FAT)
#: or to the server's clock tick.
TOLERANCE_S = 2.0


def _files(paths: Iterable[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            for folder, _, names in os.walk(path):
                for name in names:
                    yield Path(folder) / name
        elif path.is_file():
            yield path


def bring_back_future_mtimes(paths: Iterable[Path], now: float | None = None) -> list[Path]:
    """Set to ``now`` the mtime of every file in ``paths`` (folders walked) that is ahead of it;
    return those files."""
    now = time.time() if now is None else now
    skewed = []
    for path in _files(paths):
        try:
            if path.stat().st_mtime > now + TOLERANCE_S:
                os.utime(path, (now, now))
                skewed.append(path)
        except FileNotFoundError:  # removed meanwhile: nothing to compare any more
            continue
    return skewed


def describe(skewed: list[Path]) -> str:
    """One line naming the files whose mtimes were in the future."""
    shown = ", ".join(str(path) for path in skewed[:3]) + (
        f" and {len(skewed) - 3} more" if len(skewed) > 3 else ""
    )
    return f"{len(skewed)} file(s) had modification times in the future (clock skew), now set to now: {shown}"
