"""What a change renders again in a real run: nothing for a second run, only the new sentences for an
edit of the book, and every segment, by a new process, for a change of a voice option.
"""

from __future__ import annotations

import pytest
from tiny_html import BOOK, rows_of, write_configfile

from narrator.core.catalog import COMPLETED, read_catalog

pytestmark = pytest.mark.slow


def test_second_run_has_nothing_to_do_and_an_edit_rerenders_only_its_segments(workdir):
    workdir.run_book()
    dry = workdir.snakemake("-n", "--config", "engine=espeak")
    assert "Nothing to be done" in dry.stdout + dry.stderr
    before = {row.segment_id: row for row in read_catalog(workdir.results() / "catalog.tsv")}
    rendered_before = len(workdir.rendered_jobs())

    book = workdir.path / "workflow" / "resources" / "sample.md"
    text = book.read_text()
    old = "The Sparrow did not come."
    book.write_text(text.replace(old, "The Sparrow did not come. Nobody spoke. The clock ticked on."))
    workdir.run_book()

    after = read_catalog(workdir.results() / "catalog.tsv")
    new_ids = [row.segment_id for row in after if row.segment_id not in before]
    # Two sentences were added; the unchanged sentence keeps its id and its WAV.
    assert len(new_ids) == 2
    assert all(row.status == COMPLETED for row in after)
    assert sorted(workdir.rendered_jobs()[rendered_before:]) == sorted(new_ids)
    # Segments that left the book are pruned from disk.
    on_disk = {p.stem for p in (workdir.results() / "segments").glob("*.wav")}
    assert on_disk == {row.segment_id for row in after}


def test_a_voice_option_change_rerenders_every_segment(tiny):
    tiny.run_book(BOOK, target="render_all")
    before = rows_of(tiny)
    first_run = tiny.render_pid((row.segment_id for row in before), "tiny")
    started = len(tiny.rendered_jobs())

    faster = write_configfile(tiny, {"engines": {"espeak": {"voice": "auto", "rate": 260}}})
    tiny.run_book(BOOK, target="render_all", configfile=faster)
    after = rows_of(tiny)
    new_ids = [row.segment_id for row in after]
    # Same text, new voice settings: every segment has a new id and was rendered again, by the new run.
    assert [row.text for row in after] == [row.text for row in before]
    assert not set(new_ids) & {row.segment_id for row in before}
    assert sorted(tiny.rendered_jobs()[started:]) == sorted(new_ids)
    assert tiny.render_pid(new_ids, "tiny") != first_run
    assert {path.stem for path in (tiny.results("tiny") / "segments").glob("*.wav")} == set(new_ids)
    # The option reached the voice: faster speech is shorter.
    assert sum(int(row.frames) for row in after) < sum(int(row.frames) for row in before)
