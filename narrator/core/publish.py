"""Publishing outputs by rename, the one way every stage writes a file: temp, fsync, rename, fsync dir.

A temp file is ``.<output name>.tmp-<pid>-<thread><suffix>`` beside the output, hidden, with the
real extension last (so ffmpeg picks the right muxer from the name, though narrator passes ``-f``
anyway). A reader, or a crash, sees the old output or the new one, never a mix. A kill leaves the
temp behind; the next job for the same output removes it, which is safe because one run holds the
results folder (narrator.core.lock) and Snakemake runs one job per output at a time.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

from narrator.core.errors import UserError

#: Marks every in-flight temp name; deliberately matches no workflow output pattern.
TEMP_MARK = ".tmp-"


def temp_path(path: Path, suffix: str | None = None) -> Path:
    """This thread's temp name for ``path`` (``suffix`` defaults to the output's own)."""
    tag = f"{os.getpid()}-{threading.get_ident()}"
    return path.with_name(f".{path.name}{TEMP_MARK}{tag}{path.suffix if suffix is None else suffix}")


def remove_stale(path: Path) -> int:
    """Remove the temp files and folders that earlier (killed) jobs left for this output."""
    return _remove(list(path.parent.glob(f".{glob.escape(path.name)}{TEMP_MARK}*")))


#: Per folder, the temps there when this process first published into it, by output name.
_temps_listed: dict[Path, dict[str, list[Path]]] = {}
_temps_listed_lock = threading.Lock()


def remove_stale_listed_once(path: Path) -> int:
    """``remove_stale`` for a folder of thousands of outputs (a book's segments), from one listing
    of the folder per process instead of one per output.

    A listing per segment made a long book quadratic: 10 ms a listing at 15,000 WAVs, with the
    GIL held, for every segment. One listing finds every temp a killed job left for this process's
    outputs: one run holds the results folder, so they are there before its first render, and any
    later temp is a live job's own (on a cluster, a segment is rendered again only by a later
    group job: a new process).
    """
    with _temps_listed_lock:
        by_output = _temps_listed.get(path.parent)
        if by_output is None:
            by_output = _temps_listed[path.parent] = {}
            with contextlib.suppress(FileNotFoundError):
                for entry in os.scandir(path.parent):
                    if entry.name.startswith(".") and TEMP_MARK in entry.name:
                        output = entry.name[1 : entry.name.index(TEMP_MARK)]
                        by_output.setdefault(output, []).append(Path(entry.path))
        stale = by_output.pop(path.name, [])
    return _remove(stale)


def _remove(temps: list[Path]) -> int:
    for temp in temps:
        if temp.is_dir() and not temp.is_symlink():
            shutil.rmtree(temp, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
    return len(temps)


def fsync_file(path: Path) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def fsync_dir(path: Path) -> None:
    """Make a rename or unlink in this directory survive a power loss."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def publishing(path: Path, *, many_outputs: bool = False) -> Iterator[Path]:
    """Yield a temp path to write; on success fsync it and rename it onto ``path``; else remove it.

    Whatever the body does after writing (verify the temp, record it in the catalog) happens
    before the rename, so the output appears only once all of that is done. Temps that killed
    jobs left for this output are removed first; ``many_outputs``: found by one listing of the
    folder per process (``remove_stale_listed_once``).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if many_outputs:
        remove_stale_listed_once(path)
    else:
        remove_stale(path)
    temp = temp_path(path)
    try:
        yield temp
        fsync_file(temp)
        os.replace(temp, path)
        fsync_dir(path.parent)
    except OSError as error:
        # A failed write or fsync on an open file carries no path; the one-line report needs it.
        if error.filename is None:
            error.filename = str(path)
        raise
    finally:
        temp.unlink(missing_ok=True)


def replace_durably(path: Path, data: bytes) -> None:
    """Publish bytes at ``path`` atomically."""
    with publishing(path) as temp:
        temp.write_bytes(data)


#: Written into a folder published whole: the files it holds. Snakemake empties a directory output
#: before its job runs again, so a kill then leaves a folder cut short that looks up to date.
FOLDER_LISTING = ".narrator-files"


def folder_is_whole(path: Path) -> bool:
    """Whether a folder published by ``publish_dir`` still holds every file it was published with."""
    try:
        names = (path / FOLDER_LISTING).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    return all((path / name).is_file() for name in names)


def publish_dir(temp_dir: Path, path: Path) -> None:
    """Replace the folder ``path`` by ``temp_dir`` (whose files are fsynced here first), with the
    listing ``folder_is_whole`` checks."""
    names = sorted(child.name for child in temp_dir.iterdir())
    (temp_dir / FOLDER_LISTING).write_text("".join(f"{name}\n" for name in names), encoding="utf-8")
    for child in temp_dir.iterdir():
        fsync_file(child)
    fsync_dir(temp_dir)
    if path.exists():
        old = temp_path(path, ".old")
        os.replace(path, old)
        shutil.rmtree(old)
    os.replace(temp_dir, path)
    fsync_dir(path.parent)


def require_file(path: Path, noun: str, error: type[UserError] = UserError) -> None:
    """Refuse anything but a regular file before reading it: a folder, a FIFO (which blocks a read
    for ever), a device."""
    if path.is_dir():
        raise error(f"{path}: is a directory, not a {noun}")
    if not path.exists():
        raise error(f"{path}: no such {noun}")
    if not path.is_file():
        raise error(f"{path}: is not a regular file; give a {noun}")
