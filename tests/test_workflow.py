"""End to end: real Snakemake runs of the sample book with the espeak engine."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from conftest import REPO, read_audio

from narrator.core.catalog import COMPLETED, read_catalog, wav_file
from narrator.core.timeline import build_timeline

pytestmark = pytest.mark.slow


def test_sample_book_renders_completely_with_one_engine_load(reference_book):
    data, rate, rows, work = reference_book
    assert rows and all(row.status == COMPLETED for row in rows)
    # The sample's three chapters between the credits that the default M4B output turns on.
    titles = list(dict.fromkeys(row.chapter_title for row in rows))
    assert len(titles) == 5 and (titles[0], titles[-1]) == ("Opening credits", "End credits")
    pauses = yaml.safe_load((REPO / "config.yaml").read_text())["pauses"]
    # Lead pad, each segment and the pause after it, trail pad: the one layout (narrator.core.timeline).
    timeline = build_timeline(rows, pauses)
    assert len(data) == timeline.frames
    assert (
        timeline.frames
        == timeline.lead
        + sum(int(row.frames) + round(pauses.get(row.pause_after, 0) * rate) for row in rows)
        + timeline.trail
    )
    logs = (work.path / "logs" / "render_segment" / "sample").glob("*.log")
    assert sorted(log.stem for log in logs) == sorted(row.segment_id for row in rows)
    # Every job ran in one process (one pid in all logs), which loaded the engine once and kept it.
    work.render_pid(row.segment_id for row in rows)


def test_status_command_reports_progress(reference_book):
    *_, work = reference_book
    result = work.narrator("status")
    assert result.returncode == 0, result.stderr
    assert "completed (100.0%), 0 queued" in result.stdout
    assert "audio so far 0.0" in result.stdout or "audio so far 0.1" in result.stdout


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


def _book(work):
    return read_audio(work.results() / "sample.wav")[0]


def _as_if_killed_before_assembly(work):
    """A crash mid-run happens before the book exists; the forced states below assume that."""
    (work.results() / "sample.wav").unlink()


def test_published_wav_with_queued_row_is_named_then_healed_by_verify(workdir, reference_book):
    workdir.run_book()
    catalog = workdir.results() / "catalog.tsv"
    rows = read_catalog(catalog)
    victim = rows[5].segment_id
    from narrator.core.catalog import mark_queued

    mark_queued(catalog, [victim])
    failed = workdir.run_book(check=False)
    assert failed.returncode != 0
    assert victim in failed.stderr + failed.stdout
    assert "narrator verify" in failed.stderr + failed.stdout
    healed = workdir.narrator("verify")
    assert "1 adopted" in healed.stdout, healed.stdout + healed.stderr
    workdir.run_book()
    assert np.array_equal(_book(workdir), reference_book[0])


def test_completed_row_with_missing_wav_is_rerendered(workdir, reference_book):
    workdir.run_book()
    rows = read_catalog(workdir.results() / "catalog.tsv")
    missing = [rows[3], rows[20]]
    for row in missing:
        wav_file(workdir.results() / "catalog.tsv", row).unlink()
    _as_if_killed_before_assembly(workdir)
    started = len(workdir.rendered_jobs())
    workdir.run_book()
    assert sorted(workdir.rendered_jobs()[started:]) == sorted(r.segment_id for r in missing)
    assert np.array_equal(_book(workdir), reference_book[0])


def test_stray_temp_files_are_ignored_and_cleaned(workdir, reference_book):
    workdir.run_book()
    rows = read_catalog(workdir.results() / "catalog.tsv")
    segments = workdir.results() / "segments"
    victim = wav_file(workdir.results() / "catalog.tsv", rows[7])
    victim.unlink()
    stray_of_victim = segments / f".{victim.name}.tmp-999-1"
    stray_of_victim.write_bytes(b"RIFF partial")
    stray_other = segments / f".{rows[9].segment_id}.wav.tmp-999-2"
    stray_other.write_bytes(b"RIFF partial")
    _as_if_killed_before_assembly(workdir)
    workdir.run_book()
    assert not stray_of_victim.exists()
    assert np.array_equal(_book(workdir), reference_book[0])
    result = workdir.narrator("verify")
    assert "1 stray temp files removed" in result.stdout
    assert not stray_other.exists()


def test_wav_truncated_behind_the_catalogs_back_is_named_then_rerendered(workdir, reference_book):
    workdir.run_book()
    rows = read_catalog(workdir.results() / "catalog.tsv")
    victim = rows[11]
    wav = wav_file(workdir.results() / "catalog.tsv", victim)
    wav.write_bytes(wav.read_bytes()[:1000])
    failed = workdir.run_book(check=False)
    assert failed.returncode != 0
    assert victim.segment_id in failed.stderr + failed.stdout
    result = workdir.narrator("verify")
    assert "1 re-queued" in result.stdout
    started = len(workdir.rendered_jobs())
    workdir.run_book()
    assert workdir.rendered_jobs()[started:] == [victim.segment_id]
    assert np.array_equal(_book(workdir), reference_book[0])


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("book=empty.txt", "has no text to speak"),
        ("book=binary.txt", "binary file"),
        ("book=nowhere.txt", "no such book file"),
        ("engine=festival", "is not one of"),
        ("book=notes.pdf", "unsupported book format"),
    ],
)
def test_bad_input_is_one_clear_line_and_writes_nothing(workdir, config, message):
    (workdir.path / "empty.txt").write_text("  \n\n")
    (workdir.path / "binary.txt").write_bytes(bytes(range(256)) * 4)
    (workdir.path / "notes.pdf").write_bytes(b"%PDF-1.4")
    result = workdir.snakemake(*["--cores", "1", "--config", config], check=False)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("narrator: ") and message in last
    assert "Traceback" not in result.stderr
    assert not (workdir.path / "results").exists()


def test_default_piper_engine_renders_identically_in_two_separate_runs(tmp_path):
    """The bundled voice, end to end, twice: seeded noise makes the books sample-identical."""
    from conftest import Workdir

    books = []
    for name in ("first", "second"):
        work = Workdir(tmp_path / name)
        (work.path / "short.md").write_text(
            "# Short\n\n## One\n\nThe lamp was lit at six. Nobody saw it.\n\n## Two\n\nThe fog came in.\n"
        )
        work.snakemake("--cores", "2", "--resources", "gpu=1", "--config", "book=short.md")
        rows = read_catalog(work.results("short") / "catalog.tsv")
        assert all(row.status == COMPLETED for row in rows)
        assert len([row for row in rows if not row.chapter_title.endswith("credits")]) == 5
        books.append(read_audio(work.results("short") / "short.wav")[0])
    assert len(books[0]) > 22050 * 3
    assert np.array_equal(books[0], books[1])
