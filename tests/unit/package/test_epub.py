"""The read-along EPUB (narrator/package/epub.py): its overlays are the timeline's samples, its text
the catalog's, EPUBCheck accepts it, and narrator check fails one whose clips were moved."""

from __future__ import annotations

import json
import re
import subprocess
import zipfile
from pathlib import Path

import pytest
from hostile_book import PAUSES, RATE, check_overlays, ffmpeg

from narrator.core.catalog import read_catalog
from narrator.core.timeline import build_timeline
from narrator.inspect.check import check_book, check_epub
from narrator.inspect.overlays import epubcheck_command, run_epubcheck, seconds
from narrator.package.epub import clock, package_epub
from narrator.package.metadata import PackageSettings


@pytest.fixture
def epub(assembled) -> tuple[Path, Path]:
    """The hostile book's EPUB and its catalog."""
    catalog, book_json, master = assembled
    output = master.with_suffix(".epub")
    # Two chapters encoded at once, as a rule with threads would.
    package_epub(master, catalog, book_json, output, PAUSES, PackageSettings(), threads=2)
    return output, catalog


@pytest.mark.parametrize("rate", [16000, 22050, 24000, 44100, 48000])
def test_a_clock_value_gives_its_sample_back(rate: int) -> None:
    for frames in [0, 1, rate - 1, rate, 12_345_677, 10 * 3600 * rate + 7]:
        assert round(seconds(clock(frames, rate)) * rate) == frames


def test_every_clip_is_the_timelines_samples_and_holds_its_words(epub) -> None:
    path, catalog = epub
    rows = read_catalog(catalog)
    publication = check_overlays(path, rows, build_timeline(rows, PAUSES))
    # The hostile texts come back as written: escaped in the XHTML, unescaped when read.
    assert any("-->" in (clip.words or "") for overlay in publication.overlays for clip in overlay.clips)


def _rewritten(path: Path, out: Path, member: str, change) -> Path:
    """A copy of the EPUB with ``change`` applied to one member's bytes."""
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w") as target:
        for entry in source.infolist():
            data = source.read(entry)
            target.writestr(entry, change(data) if entry.filename.endswith(member) else data)
    return out


def test_narrator_check_passes_it(epub) -> None:
    results = [result for result in check_book(epub[0].parent) if result.file.endswith((".epub", ".m4a"))]
    assert all(result.passed for result in results), results
    # Every chapter's audio decodes to exactly the samples its overlay's duration gives.
    assert sum(result.rule == "samples" for result in results) == 3


def _shifted(data: bytes) -> bytes:
    """The overlay's second clip moved 10 ms later, its length kept."""
    smil = data.decode()
    pars = smil.split("<par ")
    begin, end = (seconds(value) for value in re.findall(r'clip(?:Begin|End)="([^"]+)"', pars[2]))
    pars[2] = re.sub(r'clipBegin="[^"]+"', f'clipBegin="{begin + 0.01:.6f}s"', pars[2])
    pars[2] = re.sub(r'clipEnd="[^"]+"', f'clipEnd="{end + 0.01:.6f}s"', pars[2])
    return "<par ".join(pars).encode()


@pytest.mark.parametrize(
    ("member", "change", "rules"),
    [
        (
            "c002.smil",
            lambda data: data.replace(b'clipEnd="', b'clipEnd="1', 1),
            {"clips are their segments' samples", "clips in order, none overlapping", "gaps are the pauses"},
        ),
        ("c002.smil", _shifted, {"gaps are the pauses"}),
        ("c002.xhtml", lambda data: data.replace(b'<span id="', b'<span title="', 1), {"clip targets exist"}),
        (
            "c002.xhtml",
            lambda data: data.replace(b"</span>", b" x</span>", 1),
            {"clip texts hold their words"},
        ),
    ],
)
def test_narrator_check_fails_a_clip_off_its_segment(epub, tmp_path: Path, member, change, rules) -> None:
    path, catalog = epub
    rows = read_catalog(catalog)
    frames = build_timeline(rows, PAUSES).frames
    changed = _rewritten(path, tmp_path / "changed.epub", member, change)
    failed = {
        result.rule for result in check_epub(ffmpeg(), changed, rows, frames, RATE) if not result.passed
    }
    # EPUBCheck, where installed, also refuses a <text> whose target is gone.
    assert failed - {"EPUBCheck"} == rules


@pytest.mark.skipif(
    epubcheck_command() is None, reason="EPUBCheck is not installed (scripts/test.sh installs it)"
)
def test_epubcheck_accepts_it_without_a_warning(epub) -> None:
    verdict = run_epubcheck(epub[0])
    assert verdict is not None and verdict.clean, verdict and verdict.messages


def test_what_narrator_skipped_of_the_authors_is_shown_unread_where_it_stood(assembled) -> None:
    catalog, book_json, master = assembled
    data = json.loads(book_json.read_text(encoding="utf-8"))
    data["unread"] = [
        {"before": 1, "kind": "front", "title": "About <the> Author", "paragraphs": ["She & he."]},
        {"before": 3, "kind": "body", "title": "Left out", "paragraphs": ["A verse\nin two lines."]},
        {"before": 4, "kind": "back", "title": "Notes", "paragraphs": ["1. A note.", "2. Another."]},
    ]
    data["unread"][0]["notes"] = [[1, "Her note."]]
    data["notes"] = {"1": [[0, "Under the title."], [1, "A <note> & more."]]}
    book_json.write_text(json.dumps(data), encoding="utf-8")
    output = master.with_suffix(".epub")
    package_epub(master, catalog, book_json, output, PAUSES, PackageSettings())
    with zipfile.ZipFile(output) as archive:
        opf = archive.read("EPUB/package.opf").decode()
        front = archive.read("EPUB/u001.xhtml").decode()
        verse = archive.read("EPUB/u002.xhtml").decode()
        first = archive.read("EPUB/c001.xhtml").decode()
        nav = archive.read("EPUB/nav.xhtml").decode()
    spine = re.findall(r'<itemref idref="([^"]+)"/>', opf)
    assert spine == ["u001", "c001", "c002", "u002", "c003", "u003"]
    # Shown, not read: no overlay, no span for a clip to point at.
    assert '<item id="u001" href="u001.xhtml" media-type="application/xhtml+xml"/>' in opf
    assert '<section epub:type="frontmatter">' in front and "<span" not in front
    assert "<h1>About &lt;the&gt; Author</h1>" in front and "<p>She &amp; he.</p>" in front
    assert "<p>A verse<br/>in two lines.</p>" in verse
    assert '<p>She &amp; he.</p>\n<div class="note">Her note.</div>' in front
    # A chapter's notes, unread, after the paragraph each followed (0: the heading).
    heading, under, paragraph, note = (
        first.index(text) for text in ("<h1>", "Under the title.", "<p>", "A &lt;note&gt; &amp; more.")
    )
    assert heading < under < paragraph < note
    assert nav.index("About &lt;the&gt; Author") < nav.index('href="c001.xhtml"')
    assert nav.index('href="c003.xhtml"') < nav.index(">Notes<")
    results = [result for result in check_book(output.parent) if result.file.endswith((".epub", ".m4a"))]
    assert results and all(result.passed for result in results), results


def test_a_cover_of_no_core_type_is_converted_to_png(assembled, tmp_path: Path) -> None:
    catalog, book_json, master = assembled
    webp = tmp_path / "cover.webp"
    made = subprocess.run(
        [ffmpeg(), "-loglevel", "error", "-i", book_json.with_name("cover.png"), webp], check=False
    )
    if made.returncode != 0:
        pytest.skip("this ffmpeg writes no WebP")
    output = tmp_path / "book.epub"
    package_epub(master, catalog, book_json, output, PAUSES, PackageSettings(cover=str(webp)))
    with zipfile.ZipFile(output) as archive:
        assert [name for name in archive.namelist() if "cover" in name] == ["EPUB/cover.png"]
        opf = archive.read("EPUB/package.opf").decode()
    assert '<item id="cover" href="cover.png" media-type="image/png" properties="cover-image"/>' in opf
