"""Publishing outputs by rename: temp names that match no output pattern, and their cleanup.

A temp file is ``.<output name>.tmp-<pid><suffix>`` beside the output, hidden, with the real
extension last (so ffmpeg picks the right muxer from the name, though narrator passes ``-f``
anyway). A kill leaves such a file behind; the next job for the same output removes it, which
is safe because Snakemake runs one job per output at a time.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from narrator.audio import fsync_dir

#: Marks every in-flight temp name; deliberately matches no workflow output pattern.
TEMP_MARK = ".tmp-"


def temp_path(path: Path, suffix: str | None = None) -> Path:
    """This process's temp name for ``path`` (``suffix`` defaults to the output's own)."""
    return path.with_name(f".{path.name}{TEMP_MARK}{os.getpid()}{path.suffix if suffix is None else suffix}")


def remove_stale(path: Path) -> int:
    """Remove temp files and folders that earlier (killed) jobs left for this output."""
    removed = 0
    for stale in path.parent.glob(f".{glob.escape(path.name)}{TEMP_MARK}*"):
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()
        removed += 1
    return removed


def fsync_file(path: Path) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


@contextlib.contextmanager
def publishing(path: Path) -> Iterator[Path]:
    """Yield a temp path to write; on success fsync it and rename it onto ``path``; else remove it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(path)
    temp = temp_path(path)
    try:
        yield temp
        fsync_file(temp)
        os.replace(temp, path)
        fsync_dir(path.parent)
    finally:
        temp.unlink(missing_ok=True)


def publish_dir(temp_dir: Path, path: Path) -> None:
    """Replace the folder ``path`` by ``temp_dir`` (whose files are fsynced here first)."""
    for child in temp_dir.iterdir():
        fsync_file(child)
    fsync_dir(temp_dir)
    if path.exists():
        old = temp_path(path, ".old")
        os.replace(path, old)
        shutil.rmtree(old)
    os.replace(temp_dir, path)
    fsync_dir(path.parent)
