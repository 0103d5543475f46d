"""The studio in a real browser (Debian's chromium driven by Playwright) on the tiny book rendered with
espeak: play a segment to its end and on into the next, search, add a lexicon entry through the page,
re-render, and find only the segments the preview listed rendered again, every other WAV unchanged.

NARRATOR_STUDIO_SCREENSHOT names where to save the chapter view too (docs/studio.png was made so).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tiny_html import BOOK, rows_of

pytestmark = pytest.mark.slow
sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("starlette")

CHROMIUM = shutil.which("chromium")
#: The snakemake arguments the book was made with, besides RUN_ARGS (conftest.Workdir.run_book).
MADE_WITH = f"--config engine=espeak {BOOK}"


def count_ended(page) -> None:
    """Count the player's ``ended`` events, noting where each left it (the next segment resets it)."""
    # After a click the chapter's page may still be loading: its player must be there first.
    page.wait_for_selector("#player", state="attached")
    page.evaluate(
        """window.ended = 0; window.endedAt = [];
        document.getElementById('player').addEventListener('ended', (event) => {
          window.ended++; window.endedAt.push(event.target.currentTime);
        })"""
    )


def re_render(page) -> None:
    """Press re-render and wait for the run to end; it must end done."""
    # A run before left "done" standing until this press is answered: idle until then, then
    # running until the run ends.
    page.evaluate("document.getElementById('render-state').dataset.state = 'idle'")
    page.click("#render-start")
    page.wait_for_function(
        "!['idle', 'running'].includes(document.getElementById('render-state').dataset.state)",
        timeout=300_000,
    )
    assert page.get_attribute("#render-state", "data-state") == "done", page.inner_text("#render-log")


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (scripts/test.sh installs it)")
def test_listen_fix_and_re_render_only_what_changed(tiny, tmp_path):
    tiny.run_book(BOOK)
    results = tiny.results("tiny")
    before = {row.segment_id: (results / row.wav_path).read_bytes() for row in rows_of(tiny)}
    master = (results / "tiny.wav").read_bytes()
    lamp = [row for row in rows_of(tiny) if "lamp" in row.text]
    assert len(lamp) == 1

    studio = subprocess.Popen(
        [sys.executable, "-m", "narrator", "studio", "results/tiny", "--snakemake-args", MADE_WITH],
        cwd=tiny.path,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = studio.stdout.readline().split(": ", 1)[1].strip()
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"]
            )
            page = browser.new_page(viewport={"width": 1000, "height": 600})
            page.goto(url)
            page.get_by_role("link", name="One", exact=False).first.click()
            chapter_url = page.url

            # One segment to its end, then on into the next with the book's pause between.
            count_ended(page)
            segments = page.locator(".segment")
            segments.nth(0).locator(".play").click()
            page.wait_for_function("window.ended >= 1", timeout=30_000)
            assert page.evaluate("window.endedAt[0]") > 0
            page.wait_for_function("document.querySelectorAll('.segment')[1].classList.contains('current')")
            page.keyboard.press("Space")  # pause
            shot = os.environ.get("NARRATOR_STUDIO_SCREENSHOT")
            page.screenshot(path=shot or str(tmp_path / "studio.png"))

            page.fill("header input[name=q]", "lamp")
            page.press("header input[name=q]", "Enter")
            assert page.locator(".segment").count() == 1
            page.goto(chapter_url)

            # Select the word in the text: it becomes the entry's key.
            page.evaluate(
                """() => {
                  const spans = [...document.querySelectorAll('.text')];
                  const node = spans.find(s => s.textContent.includes('lamp')).firstChild;
                  const at = node.textContent.indexOf('lamp');
                  const range = document.createRange(); range.setStart(node, at); range.setEnd(node, at + 4);
                  getSelection().removeAllRanges(); getSelection().addRange(range);
                  document.dispatchEvent(new MouseEvent('mouseup'));
                }"""
            )
            assert page.input_value("#lex-key") == "lamp"
            page.click("#lex-preview")  # an empty respelling is refused, in the page
            page.wait_for_selector("#lex-message.error")
            assert "the respelling is empty" in page.inner_text("#lex-message")
            page.fill("#lex-say", "lamp-ee")
            page.click("#lex-preview")
            page.wait_for_function("document.getElementById('lex-message').dataset.count !== undefined")
            previewed = page.eval_on_selector_all("#lex-changes li", "lis => lis.map(li => li.dataset.id)")
            assert previewed == [lamp[0].segment_id]
            page.click("#lex-save")
            page.wait_for_function("document.getElementById('lex-message').textContent.includes('saved in')")

            re_render(page)
            assert page.evaluate("document.getElementById('render-bar').value") == 100

            after = rows_of(tiny)
            new = [row for row in after if row.segment_id not in before]
            assert len(new) == len(previewed) == 1 and "lamp-ee" in new[0].spoken
            kept = [row for row in after if row.segment_id in before]
            assert len(kept) == len(after) - 1
            for row in kept:
                assert (results / row.wav_path).read_bytes() == before[row.segment_id], row.text
            assert (results / "tiny.wav").read_bytes() != master  # re-assembled with the new take

            # The new take plays.
            page.goto(chapter_url)
            count_ended(page)
            page.locator(f"#s-{new[0].segment_id} .play").click()
            page.wait_for_function("window.ended >= 1", timeout=30_000)

            # One segment's own reading, through its fix controls: only it renders again, and the
            # take before plays beside it.
            other = next(
                row
                for row in after
                if row.chapter == new[0].chapter and row.segment_id != new[0].segment_id and row.paragraph
            )
            fix = page.locator(f"#s-{other.segment_id}")
            fix.locator("summary").click()
            fix.locator(".say").fill("Read this instead.")
            fix.locator(".say-save").click()
            saved = f"#s-{other.segment_id} .fix-message"
            page.wait_for_function(f"document.querySelector('{saved}').textContent.includes('saved in')")
            re_render(page)
            again = rows_of(tiny)
            (read,) = [row for row in again if row.segment_id not in {r.segment_id for r in after}]
            assert read.spoken == "Read this instead." and read.text == other.text
            page.goto(chapter_url)
            count_ended(page)
            page.locator(f"#s-{read.segment_id} .play-previous").click()
            page.wait_for_function("window.ended >= 1", timeout=30_000)
            browser.close()
    finally:
        studio.terminate()
        studio.wait(10)
    assert Path(tiny.path / "tiny.lexicon.yaml").read_text() == "lamp: lamp-ee\n"
