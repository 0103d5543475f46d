"""The M4B (narrator/package/m4b.py): exact chapters, hostile titles, tags, cover and loudness; encoded
in parts cut in silence and joined to the sample; the index first with faststart; and refused for a
master that is not the timeline's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyloudnorm
import pytest
import soundfile as sf
from hostile_book import AUTHORS, BOOK_TITLE, PAUSES, RATE, TARGET, check_m4b, decode, ffmpeg

from narrator.core.catalog import read_catalog
from narrator.core.timeline import build_timeline
from narrator.package import m4b
from narrator.package.ffmpeg import parse_ffmetadata, read_back
from narrator.package.m4b import AAC_FRAME, CUT_MARGIN, encoding_cuts, package_m4b
from narrator.package.metadata import PackageSettings


def test_m4b_has_exact_chapters_hostile_titles_tags_cover_and_loudness(assembled) -> None:
    catalog, book_json, master = assembled
    m4b = master.with_suffix(".m4b")
    summary = package_m4b(master, catalog, book_json, m4b, PAUSES, PackageSettings(year="1999"))
    assert "3 chapters" in summary
    rows = read_catalog(catalog)
    timeline = build_timeline(rows, PAUSES)
    samples = check_m4b(
        m4b, rows, timeline, title=BOOK_TITLE, authors=AUTHORS, year="1999", cover=True, lang="deu"
    )
    assert abs(pyloudnorm.Meter(RATE).integrated_loudness(samples) - TARGET.target) < 0.5
    assert not [p for p in m4b.parent.iterdir() if ".tmp-" in p.name]


def test_m4b_is_encoded_in_parts_cut_in_silence_and_joined_to_the_sample(assembled, monkeypatch) -> None:
    catalog, book_json, master = assembled
    rows = read_catalog(catalog)
    timeline = build_timeline(rows, PAUSES)
    pcm = sf.read(master, dtype="int16")[0]
    assert encoding_cuts(timeline, 1) == []
    cuts = encoding_cuts(timeline, 4)
    assert 1 <= len(cuts) <= 3
    for cut in cuts:
        assert cut % AAC_FRAME == 0 and not np.any(pcm[cut - CUT_MARGIN : cut + CUT_MARGIN])
    whole, parted = master.with_name("whole.m4b"), master.with_name("parted.m4b")
    assert "in 1 part(s)" in package_m4b(master, catalog, book_json, whole, PAUSES, PackageSettings(), 1)
    # Four CPUs to share, whatever this machine has.
    monkeypatch.setattr(m4b, "usable_cpus", lambda: 4)
    summary = package_m4b(master, catalog, book_json, parted, PAUSES, PackageSettings(year="1999"), 4)
    assert f"in {len(cuts) + 1} part(s)" in summary
    samples = check_m4b(
        parted, rows, timeline, title=BOOK_TITLE, authors=AUTHORS, year="1999", cover=True, lang="deu"
    )
    assert len(samples) == timeline.frames  # each part decodes to exactly its share: no frame added
    one_piece = decode(whole)
    assert len(one_piece) == timeline.frames
    # Up to the first cut, the same encoder saw the same samples; after it, the parts' audio is as
    # close to the master as the one-piece encode's, and silent at every cut.
    first = cuts[0]
    assert np.array_equal(samples[:first], one_piece[:first])
    reference = pcm / 32768.0
    parted_error = np.sqrt(np.mean((samples[first:] - reference[first:]) ** 2))
    whole_error = np.sqrt(np.mean((one_piece[first:] - reference[first:]) ** 2))
    assert parted_error < 1.2 * whole_error
    for cut in cuts:
        assert np.max(np.abs(samples[cut - CUT_MARGIN : cut + CUT_MARGIN])) < 1e-3
    assert not [p for p in master.parent.iterdir() if ".tmp-" in p.name]


def top_level_boxes(path: Path) -> list[str]:
    """The types of an MP4 file's top-level boxes, in order."""
    data, position, boxes = path.read_bytes(), 0, []
    while position + 8 <= len(data):
        size = int.from_bytes(data[position : position + 4], "big")
        if size == 1:  # a 64-bit size follows the type
            size = int.from_bytes(data[position + 8 : position + 16], "big")
        boxes.append(data[position + 4 : position + 8].decode("latin-1"))
        position += size if size else len(data)
    return boxes


def test_faststart_puts_the_index_first(assembled) -> None:
    catalog, book_json, master = assembled
    m4b = master.with_suffix(".m4b")
    for faststart in (False, True):
        package_m4b(master, catalog, book_json, m4b, PAUSES, PackageSettings(faststart=faststart))
        boxes = top_level_boxes(m4b)
        assert (boxes.index("moov") < boxes.index("mdat")) == faststart
    assert len(parse_ffmetadata(read_back(ffmpeg(), m4b))[1]) == 3


def test_packaging_refuses_a_master_that_does_not_match_the_timeline(assembled) -> None:
    catalog, book_json, master = assembled
    from narrator.core.errors import CatalogError

    with pytest.raises(CatalogError, match="assemble the book again"):
        package_m4b(
            master,
            catalog,
            book_json,
            master.with_suffix(".m4b"),
            {**PAUSES, "trail": 3.0},
            PackageSettings(),
        )
    assert not master.with_suffix(".m4b").exists()
