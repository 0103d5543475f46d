"""The studio's changes to one segment on the tiny book (rendered with test tones): its own reading
and another take, each kept in the fixes file across re-plans and re-rendering exactly that segment;
a flag by ear that narrator check and the report list; the take before played beside the new one,
kept or gone back to; and a run started elsewhere followed, not doubled."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest
from conftest import REPO
from hostile_book import TARGET
from tiny_book import PAUSES, SETTINGS, SOURCE, master_of, render

from narrator.core.catalog import read_catalog, wav_file
from narrator.core.lock import holding
from narrator.engines.espeak import EspeakEngine
from narrator.inspect.flags import FLAGS_FILE, flagged, read_flags
from narrator.inspect.report import summary_rst
from narrator.plan.fixes import Fixes
from narrator.plan.plan import write_plan
from narrator.render.render import render_segment, seed_for

pytest.importorskip("starlette")
from starlette.testclient import TestClient

from narrator.studio.app import build_app
from narrator.studio.book import Studio

TOKEN = "t0ken"


@pytest.fixture
def studio(rendered):
    workdir = rendered.parent.parent.parent
    shutil.copy(REPO / "config.yaml", workdir / "config.yaml")
    return Studio(rendered.parent, workdir, ["--config", "engine=espeak", f"book={SOURCE}"], cores=1)


@pytest.fixture
def client(studio):
    return TestClient(build_app(studio, TOKEN))


def post(client, segment_id, action, body=None):
    return client.post(f"/api/segment/{segment_id}/{action}?token={TOKEN}", json=body or {})


def replan(studio, lexicon=""):
    """What the re-render's plan does (the fixes file is found beside the book)."""
    settings = dataclasses.replace(SETTINGS, lexicon=lexicon)
    return write_plan(studio.book_path, studio.catalog, studio.catalog.with_name("book.json"), settings)


def road(studio):
    return next(row for row in studio.rows() if "winding road" in row.text)


def test_one_segments_reading_re_renders_it_alone_and_outlives_re_plans(client, studio):
    row = road(studio)
    before = {r.segment_id for r in studio.rows()}
    for bad, problem in [("  ", "the reading is empty"), ("x", "no segment")]:
        segment = "0123456789abcdef" if bad == "x" else row.segment_id
        answer = post(client, segment, "say", {"text": bad})
        assert answer.status_code == 400 and problem in answer.json()["error"], answer.text
    assert not studio.fixes_path.exists(), "a refusal writes nothing"

    said = "It was a long and winding rowed,"
    answer = post(client, row.segment_id, "say", {"text": said})
    assert answer.status_code == 200 and str(studio.fixes_path) in answer.json()["message"]
    assert [(f.text, f.say) for f in Fixes.load(studio.fixes_path).entries] == [(row.text, said)]
    assert "fixes: 1 segments read or taken" in replan(studio)
    new = [r for r in read_catalog(studio.catalog) if r.segment_id not in before]
    assert [r.spoken for r in new] == [said] and new[0].text == row.text
    # A lexicon entry that changes the segment's text later leaves its own reading in place.
    lexicon = studio.book_path.with_name("words.yaml")
    lexicon.write_text("winding: wine-ding\nhills: hillz\n")
    replan(studio, str(lexicon))
    kept = next(r for r in read_catalog(studio.catalog) if r.text == row.text)
    assert kept.spoken == said and kept.segment_id == new[0].segment_id


def test_another_take_renders_the_next_seed_and_is_refused_where_seeds_change_nothing(
    client, studio, monkeypatch
):
    row = road(studio)
    refused = post(client, row.segment_id, "take")
    assert refused.status_code == 400
    assert refused.json()["error"] == (
        "espeak draws no noise: another take would be identical; change the reading instead"
    )
    assert not studio.fixes_path.exists()

    monkeypatch.setattr(EspeakEngine, "seeded", classmethod(lambda cls, options: True))
    assert post(client, row.segment_id, "take").status_code == 200
    (fix,) = Fixes.load(studio.fixes_path).entries
    assert fix.seed == seed_for(row.spoken) + 1 and fix.say == ""
    before = {r.segment_id for r in studio.rows()}
    replan(studio)
    after = read_catalog(studio.catalog)
    (new,) = [r for r in after if r.segment_id not in before]
    assert new.spoken == row.spoken and len(after) == len(before)
    book = json.loads(studio.catalog.with_name("book.json").read_text())
    assert book["seeds"] == {new.segment_id: fix.seed}

    seeds = []
    synthesize = EspeakEngine.synthesize

    def recording(self, text, *, seed):
        seeds.append(seed)
        return synthesize(self, text, seed=seed)

    monkeypatch.setattr(EspeakEngine, "synthesize", recording)
    render_segment(
        studio.catalog,
        new.segment_id,
        wav_file(studio.catalog, new),
        engine="espeak",
        options=SETTINGS.options,
    )
    assert seeds == [fix.seed]
    # The take after that one, and a re-plan, keep the chain going.
    assert post(client, new.segment_id, "take").status_code == 200
    assert Fixes.load(studio.fixes_path).entries[0].seed == fix.seed + 1


def test_a_flag_by_ear_is_listed_by_the_page_narrator_check_and_the_report(client, studio, capsys):
    from narrator.assemble.assemble import assemble_book
    from narrator.cli import main

    row = road(studio)
    assert post(client, "0123456789abcdef", "flag", {"note": "x"}).status_code == 400
    assert not (studio.results / FLAGS_FILE).exists()
    assert post(client, row.segment_id, "flag", {"note": "  too  fast "}).status_code == 200
    assert read_flags(studio.results) == {row.segment_id: "too fast"}
    assert "flagged by ear: too fast" in client.get(f"/chapter/1?token={TOKEN}").text
    assert "1 segments match" in client.get(f"/search?flagged=1&token={TOKEN}").text

    assemble_book(studio.catalog, master_of(studio.catalog), PAUSES, TARGET, studio.results / "loudness.json")
    assert main(["check", str(studio.results)]) == 1
    out = capsys.readouterr().out
    assert (
        f"1 segments flagged by ear in the studio:\n  ch. 1 {row.segment_id}: {row.text!r}: too fast" in out
    )
    summary = summary_rst([("a", "b")], "none", (), flagged(studio.rows(), read_flags(studio.results)))
    assert "Segments flagged by ear in the studio" in summary and "too fast" in summary

    assert post(client, row.segment_id, "unflag").status_code == 200
    assert read_flags(studio.results) == {}
    assert main(["check", str(studio.results)]) == 0


def test_the_take_before_plays_beside_the_new_and_going_back_renders_nothing(client, studio):
    row = road(studio)
    old_wav = wav_file(studio.catalog, row).read_bytes()
    post(client, row.segment_id, "say", {"text": "A long and winding road."})
    post(client, row.segment_id, "say", {"text": "A long, long road."})  # still compared with the first
    replan(studio)
    new = next(r for r in read_catalog(studio.catalog) if r.text == row.text)
    assert new.segment_id != row.segment_id and not new.completed
    assert client.get(f"/audio/{new.segment_id}/previous?token={TOKEN}").status_code == 404
    render(studio.catalog, new, seed=1)
    assert client.get(f"/audio/{new.segment_id}/previous?token={TOKEN}").content == old_wav
    page = client.get(f"/chapter/1?token={TOKEN}").text
    assert f"/audio/{new.segment_id}/previous" in page and "keep the new take" in page

    assert post(client, new.segment_id, "revert").status_code == 200
    assert Fixes.load(studio.fixes_path).entries == ()
    replan(studio)
    back = next(r for r in read_catalog(studio.catalog) if r.text == row.text)
    assert back.segment_id == row.segment_id and back.completed, "taken back from aside/, not rendered"
    assert wav_file(studio.catalog, back).read_bytes() == old_wav
    assert (
        post(client, back.segment_id, "keep").json()["error"].startswith("this segment has no earlier take")
    )


def test_keeping_the_new_take_forgets_the_old(client, studio):
    row = road(studio)
    post(client, row.segment_id, "say", {"text": "A long road."})
    replan(studio)
    new = next(r for r in read_catalog(studio.catalog) if r.text == row.text)
    render(studio.catalog, new, seed=1)
    assert post(client, new.segment_id, "keep").json() == {"message": "kept the new take"}
    assert client.get(f"/audio/{new.segment_id}/previous?token={TOKEN}").status_code == 404
    assert Fixes.load(studio.fixes_path).entries[0].say == "A long road."


def test_a_run_started_elsewhere_is_followed_and_not_started_again(client, studio):
    with holding(studio.results, "snakemake"):
        progress = client.post(f"/api/render?token={TOKEN}").json()
        assert progress["state"] == "running elsewhere" and "in use by snakemake" in progress["log"][0]
        assert studio.render is None
    assert client.get(f"/api/progress?token={TOKEN}").json()["state"] == "idle"
