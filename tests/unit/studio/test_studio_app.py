"""The studio's routes on the tiny book (rendered with test tones): the token, the path rules, audio by
segment id, search, and the lexicon's preview and save, checked against what a re-plan re-renders."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import REPO
from tiny_book import SETTINGS, SOURCE

from narrator.core.catalog import read_catalog, sidecar_path, wav_file
from narrator.core.lock import holding
from narrator.plan.plan import write_plan
from narrator.text.lexicon import Lexicon

pytest.importorskip("starlette")
from starlette.testclient import TestClient

from narrator.studio.app import build_app
from narrator.studio.book import Studio

TOKEN = "t0ken"
ARGS = ["--config", "engine=espeak", f"book={SOURCE}"]


@pytest.fixture
def studio(rendered: Path) -> Studio:
    workdir = rendered.parent.parent.parent
    shutil.copy(REPO / "config.yaml", workdir / "config.yaml")
    return Studio(rendered.parent, workdir, ARGS, cores=1)


@pytest.fixture
def client(studio: Studio) -> TestClient:
    return TestClient(build_app(studio, TOKEN))


def get(client: TestClient, url: str, token: str = TOKEN):
    return client.get(f"{url}{'&' if '?' in url else '?'}token={token}")


def test_every_route_refuses_a_request_without_the_token(client, studio):
    segment = studio.rows()[0].segment_id
    urls = ["/", "/chapter/1", "/search?q=x", f"/audio/{segment}", "/static/studio.js", "/api/progress"]
    for url in urls:
        assert client.get(url).status_code == 403, url
        assert get(client, url, token="wrong").status_code == 403, url
        assert get(client, url).status_code == 200, url
    for url in ["/api/lexicon/preview", "/api/lexicon", "/api/render"]:
        assert client.post(url, json={"key": "a", "say": "b"}).status_code == 403, url
    assert studio.render is None


def test_the_book_and_a_chapter_list_their_segments_in_order(client, studio):
    page = get(client, "/").text
    assert "1. One" in page and "2. Two" in page and "studio.js" in page
    chapter = get(client, "/chapter/1").text
    texts = [row.text for row in studio.rows() if row.chapter == 1]
    positions = [chapter.index(f'<span class="text">{text}') for text in texts]
    assert positions == sorted(positions)
    assert get(client, "/chapter/9").status_code == 404


def test_audio_is_served_by_segment_id_only(client, studio):
    row = studio.rows()[1]
    answer = get(client, f"/audio/{row.segment_id}")
    assert answer.headers["content-type"] == "audio/wav"
    assert answer.content == wav_file(studio.catalog, row).read_bytes()
    for trick in [
        "/audio/nope",
        "/audio/..%2Fcatalog.tsv",
        "/audio/%2E%2E%2F%2E%2E%2Ftiny-book.md",
        "/static/..%2Fapp.py",
        "/static/serve.py",
        "/audio/../../tiny-book.md",
    ]:
        assert get(client, trick).status_code == 404, trick


def test_search_finds_text_by_chapter_flagged_and_worst_heard(client, studio):
    page = get(client, "/search?q=FRIEND").text
    assert "1 segments match" in page and "Hello there, friend." in page
    assert "0 segments match" in get(client, "/search?q=friend&chapter=2").text
    assert "0 segments match" in get(client, "/search?q=friend&flagged=1").text
    # Evidence as the ASR check writes it: the road sentence misheard, the rest heard right.
    for row in studio.rows():
        bad = "road" in row.text
        score = {
            "edits": 9 if bad else 0,
            "letters": 40,
            "cer": 0.2 if bad else 0.0,
            "wer": 0.0,
            "missing_tail": 0,
            "repeated": "",
            "passed": not bad,
        }
        transcript = "it was a long rode" if bad else row.text
        heard = {**score, "sha256": row.sha256, "transcript": transcript, "mode": "enforce"}
        sidecar_path(wav_file(studio.catalog, row)).write_text(json.dumps(heard))
    flagged = get(client, "/search?flagged=1").text
    assert "1 segments match" in flagged and "heard: it was a long rode (CER 0.20, flagged)" in flagged
    ordered = get(client, "/search?order=worst").text
    assert "7 segments match" in ordered and ordered.index("winding road") < ordered.index("Hello there")
    assert "1 segments match" in get(client, "/search?q=rode").text


def test_a_lexicon_entry_previews_exactly_what_the_re_plan_renders_again(client, studio, rendered):
    before = {row.segment_id for row in read_catalog(rendered)}
    preview = client.post(f"/api/lexicon/preview?token={TOKEN}", json={"key": "road", "say": "rowed"}).json()
    assert preview["count"] == 1 and preview["changes"][0]["spoken"].startswith("It was a long")
    assert not studio.lexicon_path.exists(), "a preview writes nothing"

    saved = client.post(f"/api/lexicon?token={TOKEN}", json={"key": "road", "say": "rowed"}).json()
    assert saved["count"] == 1 and str(studio.lexicon_path) in saved["note"]
    assert [entry.key for entry in Lexicon.load(studio.lexicon_path).entries] == ["road"]

    settings = dataclasses.replace(SETTINGS, lexicon=str(studio.lexicon_path))
    write_plan(studio.book_path, rendered, rendered.with_name("book.json"), settings)
    new = [row for row in read_catalog(rendered) if row.segment_id not in before]
    assert [row.segment_id for row in new] != [] and len(new) == preview["count"]
    assert new[0].spoken == preview["changes"][0]["spoken"]


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"key": "road", "say": "  "}, "the respelling is empty"),
        ({"key": "", "say": "x"}, "select or type the word"),
        ({"key": "/(road/", "say": "x"}, "invalid regular expression"),
        ({"key": "/a*/", "say": "x"}, "matches empty text"),
        ({"key": "road", "say": "x", "phonemes": "[[ r ]]"}, "must not contain [["),
    ],
)
def test_bad_entries_are_refused_in_one_line_and_nothing_is_written(client, studio, entry, problem):
    for url in ["/api/lexicon/preview", "/api/lexicon"]:
        answer = client.post(f"{url}?token={TOKEN}", json=entry)
        assert answer.status_code == 400 and problem in answer.json()["error"], answer.text
    assert not studio.lexicon_path.exists()


def test_a_saved_key_is_refused_again_and_a_run_holding_the_book_blocks_the_save(client, studio):
    assert client.post(f"/api/lexicon?token={TOKEN}", json={"key": "road", "say": "a"}).status_code == 200
    text = studio.lexicon_path.read_text()
    again = client.post(f"/api/lexicon?token={TOKEN}", json={"key": "road", "say": "b"})
    assert again.status_code == 400 and "already in" in again.json()["error"]
    with holding(studio.results, "snakemake"):
        busy = client.post(f"/api/lexicon?token={TOKEN}", json={"key": "lamp", "say": "b"})
    assert busy.status_code == 400 and "in use by snakemake" in busy.json()["error"]
    assert studio.lexicon_path.read_text() == text


def test_the_re_render_repeats_the_users_run_with_the_lexicon(studio):
    command = studio.command()
    assert command[:3] == [sys.executable, "-m", "snakemake"]
    assert command[3:7] == ["--cores", "1", "--resources", "gpu=1"]
    # No lexicon until the first entry: a lexicon= naming no file would stop the run.
    assert command[7:] == ["--config", "engine=espeak", f"book={SOURCE}"]
    studio.save("road", "rowed", False)
    assert studio.command()[7:] == [
        "--config",
        f"lexicon={studio.lexicon_path}",
        "engine=espeak",
        f"book={SOURCE}",
    ]
    assert studio.progress() == {"state": "idle", "completed": 7, "total": 7, "percent": 100, "log": []}


def test_the_command_serves_on_localhost_with_a_token(studio):
    process = subprocess.Popen(
        [sys.executable, "-m", "narrator", "studio", str(studio.results), "--snakemake-args", " ".join(ARGS)],
        cwd=studio.workdir,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = process.stdout.readline().split(": ", 1)[1].strip()
        assert url.startswith("http://127.0.0.1:")
        with pytest.raises(urllib.error.HTTPError, match="403"):
            urllib.request.urlopen(url.split("?")[0], timeout=10)
        with urllib.request.urlopen(url, timeout=10) as page:
            assert "tiny-book" in page.read().decode()
    finally:
        process.terminate()
        process.wait(10)


def test_without_the_extra_the_command_says_how_to_get_it(monkeypatch, capsys):
    from narrator.cli import main

    monkeypatch.delitem(sys.modules, "narrator.studio.serve", raising=False)
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert main(["studio"]) == 2
    assert capsys.readouterr().err == "narrator: the studio needs its extra: pip install 'narrator[studio]'\n"


def test_edits_from_two_tabs_at_once_both_land(studio):
    words = ["lamp", "road", "friend", "river", "hills", "winding"]
    with ThreadPoolExecutor(len(words)) as pool:
        list(pool.map(lambda word: studio.save(word, f"{word}-ee", False), words))
    assert sorted(entry.key for entry in Lexicon.load(studio.lexicon_path).entries) == sorted(words)


def test_a_render_running_is_followed_not_started_twice(client, studio, monkeypatch):
    monkeypatch.setattr(studio, "command", lambda: [sys.executable, "-c", "import time; time.sleep(2)"])
    first = client.post(f"/api/render?token={TOKEN}").json()
    process = studio.render.process
    second = client.post(f"/api/render?token={TOKEN}").json()
    assert first["state"] == second["state"] == "running" and studio.render.process is process
    process.wait(10)
    assert get(client, "/api/progress").json()["state"] == "done"


def test_an_entry_with_phonemes_and_ignore_case_is_saved_as_a_mapping(client, studio):
    entry = {"key": "ROAD", "say": "rowed", "phonemes": "ɹˈoʊd", "ignore_case": True}
    assert client.post(f"/api/lexicon?token={TOKEN}", json=entry).json()["count"] == 1
    (saved,) = Lexicon.load(studio.lexicon_path).entries
    assert (saved.key, saved.say, saved.phonemes, saved.ignore_case) == ("ROAD", "rowed", "ɹˈoʊd", True)
