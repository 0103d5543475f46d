"""A read-along EPUB opened in headless Chromium, as a reading system's web view would: every spine
document parsed as XHTML, every overlay as XML, every ``<text>`` target looked up in the document
Chromium parsed, and every overlay's audio decoded, its duration against the package's
``media:duration``. Prints one line of counts per EPUB; Chromium (Debian's ``chromium``) and
Playwright (the test extra) must be installed.

    python bench/epub_in_chromium.py results/sample/sample.epub [more.epub ...]
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from narrator.inspect.overlays import read_publication
from narrator.package.epub import OPF, ROOT

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_PARSE_ERRORS = (
    "t => new DOMParser().parseFromString(t, 'application/xml').getElementsByTagName('parsererror').length"
)
_DURATION = """src => new Promise(done => { const audio = new Audio(src);
    audio.onloadedmetadata = () => done(audio.duration); audio.onerror = () => done(-1); })"""


def spine_documents(opf: str) -> list[str]:
    hrefs = dict(re.findall(r'<item id="([^"]+)" href="([^"]+)"', opf))
    return [hrefs[idref] for idref in re.findall(r'<itemref idref="([^"]+)"', opf)]


def measure(page: Page, epub: Path) -> str:
    publication = read_publication(epub)
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        with zipfile.ZipFile(epub) as archive:
            archive.extractall(work)
        documents = spine_documents((work / OPF).read_text(encoding="utf-8"))
        unparsed = missing = off = 0
        worst = 0.0
        for document in documents:
            page.goto((work / ROOT / document).as_uri())
            xhtml = page.evaluate("document.contentType") == "application/xhtml+xml"
            unparsed += not xhtml or page.evaluate("document.getElementsByTagName('parsererror').length") > 0
        for overlay in publication.overlays:
            page.goto((work / overlay.document).as_uri())
            targets = [clip.target for clip in overlay.clips]
            missing += page.evaluate("ids => ids.filter(id => !document.getElementById(id)).length", targets)
            smil = (work / overlay.smil).read_text(encoding="utf-8")
            unparsed += page.evaluate(_PARSE_ERRORS, smil) > 0
            duration = page.evaluate(_DURATION, (work / overlay.audio).as_uri())
            if duration < 0:
                off += 1
            else:
                worst = max(worst, abs(duration - overlay.duration))
    return (
        f"{epub}: {len(documents)} spine documents, {len(publication.overlays)} overlays: "
        f"{unparsed} not parsed, {missing} text targets missing, {off} audio files not decoded, "
        f"the others at most {worst * 1e6:.0f} µs off their media:duration"
    )


def main(paths: list[str]) -> None:
    chromium = next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)
    if chromium is None or not paths:
        sys.exit("usage: python bench/epub_in_chromium.py BOOK.epub ... (with chromium installed)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        print(f"Chromium {browser.version}")
        page = browser.new_page()
        for path in paths:
            print(measure(page, Path(path)))
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
