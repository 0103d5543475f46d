"""Temps that killed jobs left: removed per output, and for a folder of many outputs from one
listing per process (narrator/core/publish.py)."""

from __future__ import annotations

import os
from pathlib import Path

from narrator.core import publish
from narrator.core.publish import publishing, remove_stale, remove_stale_listed_once


def _stale(folder: Path, output: str, tag: str) -> Path:
    temp = folder / f".{output}.tmp-{tag}.wav"
    temp.write_bytes(b"RIFF partial")
    return temp


def test_each_output_removes_only_its_own_stale_temps(tmp_path: Path):
    a = _stale(tmp_path, "a.wav", "11-1")
    b = _stale(tmp_path, "b.wav", "12-1")
    assert remove_stale(tmp_path / "a.wav") == 1
    assert not a.exists() and b.exists()


def test_a_folder_of_many_outputs_is_listed_once_per_process(tmp_path: Path, monkeypatch):
    listings = []
    scandir = os.scandir

    def counted(path):
        listings.append(path)
        return scandir(path)

    monkeypatch.setattr(publish.os, "scandir", counted)
    stale_a = [_stale(tmp_path, "a.wav", tag) for tag in ("11-1", "11-2")]
    stale_b = _stale(tmp_path, "b.wav", "12-1")
    (tmp_path / "c.wav").write_bytes(b"a published output")

    assert remove_stale_listed_once(tmp_path / "a.wav") == 2
    assert not any(temp.exists() for temp in stale_a) and stale_b.exists()
    assert remove_stale_listed_once(tmp_path / "b.wav") == 1
    assert not stale_b.exists()
    assert remove_stale_listed_once(tmp_path / "c.wav") == 0
    assert (tmp_path / "c.wav").exists()
    assert listings == [tmp_path]


def test_publishing_one_of_many_outputs_replaces_what_a_killed_job_left(tmp_path: Path):
    folder = tmp_path / "segments"
    folder.mkdir()
    stale = _stale(folder, "a.wav", "99-1")
    with publishing(folder / "a.wav", many_outputs=True) as temp:
        temp.write_bytes(b"whole")
    assert (folder / "a.wav").read_bytes() == b"whole"
    assert sorted(path.name for path in folder.iterdir()) == ["a.wav"]
    assert not stale.exists()
