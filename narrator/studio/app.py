"""The studio's web app: server-rendered pages, a little plain JavaScript shipped beside this module,
and JSON endpoints for the lexicon and the re-render. Every request must carry the token."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from html import escape
from importlib.resources import files
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from narrator.core.catalog import Row, rows_by_chapter
from narrator.core.errors import UserError
from narrator.core.pace import pace_of
from narrator.render.asr import Evidence, worst
from narrator.studio.book import LISTED, Changes, Studio

#: The only files served besides audio: shipped in the package, named here, never taken from a URL.
STATIC = {"studio.js": "text/javascript", "studio.css": "text/css"}
HELP = (
    "<p class='help'>▶ plays a segment and on through the rest; space: play/pause, ←/→: previous/next; "
    "select a word to respell it below; <em>fix</em> under a segment changes that segment alone.</p>"
)
#: What the page may do to one segment (POST /api/segment/<id>/<action>).
SEGMENT_ACTIONS = ("say", "take", "flag", "unflag", "keep", "revert")
#: The book page's table of chapters.
COLUMNS = ("chapter", "segments", "", "speech", "pace", "flagged")


class TokenRequired(BaseHTTPMiddleware):
    def __init__(self, app: Any, token: str) -> None:
        super().__init__(app)
        self.token = token

    async def dispatch(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        given = request.query_params.get("token", "")
        if not secrets.compare_digest(given.encode(), self.token.encode()):
            return PlainTextResponse("narrator studio: the URL's token is missing or wrong", status_code=403)
        return await call_next(request)


def _page(title: str, token: str, body: str) -> HTMLResponse:
    q = f"token={escape(token)}"
    return HTMLResponse(
        f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<link rel="stylesheet" href="/static/studio.css?{q}"></head>
<body data-token="{escape(token)}"><header><a href="/?{q}">narrator studio</a>
<form action="/search"><input type="hidden" name="token" value="{escape(token)}">
<input name="q" placeholder="search text, spoken, transcripts"> <input name="chapter" size="3"
placeholder="ch."> <label><input type="checkbox" name="flagged" value="1"> flagged</label>
<label><input type="checkbox" name="order" value="worst"> worst-heard first</label>
<button>search</button></form></header>
<main>{body}</main><script src="/static/studio.js?{q}"></script></body></html>"""
    )


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def _fix_controls(row: Row, note: str | None, before: str | None, token: str) -> str:
    """One segment's own controls: its reading, another take, a flag by ear, the take before."""
    flag = (
        f'<div class="flag">flagged by ear: {escape(note or "(no note)")}</div>' if note is not None else ""
    )
    compare = ""
    if before is not None:
        compare = (
            f'<div class="compare" data-previous="/audio/{row.segment_id}/previous?token={escape(token)}">'
            '<button class="play-previous">▶ take before</button> '
            '<button class="keep">keep the new take</button> <button class="revert">go back</button></div>'
        )
    toggle = "unflag" if note is not None else "flag"
    return (
        f"{flag}{compare}<details class='fix'><summary>fix</summary>"
        f"<input class='say' size='50' value='{escape(row.spoken)}' aria-label='what to say'> "
        "<button class='say-save'>say this</button> <button class='take'>another take</button> "
        "<input class='note' placeholder='note' aria-label='note'> "
        f"<button class='{toggle}'>{toggle}</button>"
        "<span class='fix-message' role='status'></span></details>"
    )


def _segment(
    row: Row,
    heard: Evidence | None,
    pause: float,
    token: str,
    note: str | None = None,
    before: str | None = None,
) -> str:
    spoken = "" if row.spoken == row.text else f'<div class="spoken">says: {escape(row.spoken)}</div>'
    asr = ""
    if heard is not None:
        verdict = "passed" if heard.score.passed else "flagged"
        asr = (
            f'<div class="asr {verdict}">heard: {escape(heard.transcript)} '
            f"(CER {heard.score.cer:.2f}, {verdict})</div>"
        )
    audio = f"/audio/{row.segment_id}?token={escape(token)}" if row.completed else ""
    return (
        f'<li class="segment {row.status}" id="s-{row.segment_id}" data-id="{row.segment_id}" '
        f'data-audio="{audio}" data-pause="{pause:g}"><button class="play"'
        f'{"" if audio else " disabled"}>▶</button> <span class="text">{escape(row.text)}</span>'
        f'{spoken}{asr}<div class="meta">{row.status} · {row.seconds:.1f} s · {row.segment_id}</div>'
        f"{_fix_controls(row, note, before, token)}</li>"
    )


def _lexicon_form(studio: Studio) -> str:
    return f"""<section id="lexicon"><h2>Fix a pronunciation</h2>
<p>Select a word in the text, or type it; say how to pronounce it. Saved to
<code>{escape(str(studio.lexicon_path))}</code>.</p>
<input id="lex-key" placeholder="word or /regex/"> → <input id="lex-say" placeholder="respelling">
<input id="lex-phonemes" placeholder="phonemes (IPA; Piper)">
<label><input type="checkbox" id="lex-case"> ignore case</label>
<button id="lex-preview">preview</button> <button id="lex-save">save</button>
<p id="lex-message" role="status"></p><ul id="lex-changes"></ul></section>
<section id="render"><h2>Re-render what changed</h2><button id="render-start">re-render</button>
<progress id="render-bar" max="100" value="0"></progress> <span id="render-state"></span>
<pre id="render-log"></pre></section>"""


def build_app(studio: Studio, token: str) -> Starlette:
    def listing(rows: list[Row], heard: dict[str, Evidence]) -> str:
        """The segments as the page lists them, each with its pause after (seconds) for play-on."""
        pauses, flags, previous = studio.pauses(), studio.flags(), studio.previous()
        return "".join(
            _segment(
                r,
                heard.get(r.segment_id),
                pauses.get(r.pause_after, 0),
                token,
                flags.get(r.segment_id),
                previous.get(r.segment_id),
            )
            for r in rows
        )

    async def book(request: Request) -> Response:
        rows = studio.rows()
        heard = studio.evidence(rows)
        lines = []
        for index, chapter in rows_by_chapter(rows).items():
            done = sum(row.completed for row in chapter)
            pace = pace_of(chapter)
            wpm = f"{pace.wpm:.0f} wpm" if pace.wpm else ""
            flagged = sum(not heard[r.segment_id].score.passed for r in chapter if r.segment_id in heard)
            lines.append(
                f'<tr><td><a href="/chapter/{index}?token={escape(token)}">{index}. '
                f"{escape(chapter[0].chapter_title or '(untitled)')}</a></td><td>{done}/{len(chapter)}</td>"
                f"<td><progress max='{len(chapter)}' value='{done}'></progress></td>"
                f"<td>{_minutes(pace.speech_seconds)}</td><td>{wpm}</td><td>{flagged}</td></tr>"
            )
        head = "".join(f"<th>{name}</th>" for name in COLUMNS)
        body = f"<h1>{escape(studio.results.name)}</h1><table><tr>{head}</tr>{''.join(lines)}</table>"
        return _page(studio.results.name, token, body + _lexicon_form(studio))

    async def chapter(request: Request) -> Response:
        index = request.path_params["index"]
        rows = studio.rows()
        chapter = rows_by_chapter(rows).get(index)
        if chapter is None:
            return PlainTextResponse(f"no chapter {index} in this book", status_code=404)
        items = listing(chapter, studio.evidence(chapter))
        title = f"{index}. {chapter[0].chapter_title}"
        body = f"<h1>{escape(title)}</h1>{HELP}<audio id='player'></audio><ol id='segments'>{items}</ol>"
        return _page(title, token, body + _lexicon_form(studio))

    async def search(request: Request) -> Response:
        query = request.query_params.get("q", "").strip().casefold()
        flagged_only = request.query_params.get("flagged") == "1"
        chapter = request.query_params.get("chapter", "")
        rows = [row for row in studio.rows() if not chapter or str(row.chapter) == chapter]
        heard = studio.evidence(rows)
        if request.query_params.get("order") == "worst":
            # The ASR check's own order (narrator check): failed first, then nearest their limit.
            rows = [item.row for item in worst(list(heard.values()), len(heard))]
        found = []
        by_ear = studio.flags()
        for row in rows:
            evidence = heard.get(row.segment_id)
            misheard = evidence is not None and not evidence.score.passed
            if flagged_only and not misheard and row.segment_id not in by_ear:
                continue
            haystack = f"{row.text}\n{row.spoken}\n{evidence.transcript if evidence else ''}".casefold()
            if query in haystack:
                found.append(row)
        shown = listing(found[:LISTED], heard)
        title = f"{len(found)} segments match {request.query_params.get('q', '')!r}"
        body = f"<h1>{escape(title)}</h1>{HELP}<audio id='player'></audio><ol id='segments'>{shown}</ol>"
        return _page(title, token, body + _lexicon_form(studio))

    async def audio(request: Request) -> Response:
        data = studio.wav(request.path_params["segment_id"])
        if data is None:
            return PlainTextResponse("no rendered segment with that id in the catalog", status_code=404)
        return Response(data, media_type="audio/wav", headers={"Cache-Control": "no-store"})

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return PlainTextResponse("not found", status_code=404)
        return Response(files("narrator.studio").joinpath(name).read_bytes(), media_type=STATIC[name])

    async def entry(request: Request) -> tuple[str, str, bool, str]:
        data = await request.json()
        key, say, phonemes = (str(data.get(name, "")).strip() for name in ("key", "say", "phonemes"))
        return key, say, bool(data.get("ignore_case", False)), phonemes

    def listed(changes: Changes) -> dict[str, Any]:
        shown = [
            {"segment_id": c.row.segment_id, "chapter": c.row.chapter, "text": c.row.text, "spoken": c.spoken}
            for c in changes.listed
        ]
        return {"count": changes.count, "exact": changes.exact, "changes": shown}

    async def preview(request: Request) -> Response:
        try:
            changes = studio.preview(*await entry(request))
        except UserError as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        return JSONResponse(listed(changes))

    async def save(request: Request) -> Response:
        try:
            changes = studio.save(*await entry(request))
        except UserError as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        note = (
            f"saved in {studio.lexicon_path}; the studio's re-render passes lexicon={studio.lexicon_path}, "
            "and so must your own runs (or set lexicon: in your config)"
        )
        return JSONResponse({**listed(changes), "note": note})

    async def one_segment(request: Request) -> Response:
        """A change to one segment, by its id in the catalog: its reading, another take, a flag."""
        segment_id, action = request.path_params["segment_id"], request.path_params["action"]
        if action not in SEGMENT_ACTIONS:
            return PlainTextResponse("not found", status_code=404)
        data = await request.json() if action in ("say", "flag") else {}
        try:
            if action == "say":
                where = studio.say(segment_id, str(data.get("text", "")))
                message = f"saved in {where}: re-render to hear it"
            elif action == "take":
                seed = studio.take(segment_id)
                message = f"seed {seed} saved in {studio.fixes_path}: re-render to hear the new take"
            elif action in ("flag", "unflag"):
                studio.flag(segment_id, str(data.get("note", "")) if action == "flag" else None)
                message = f"{action}ged: narrator check lists the flags"
            else:
                message = studio.settle(segment_id, keep=action == "keep")
        except UserError as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        return JSONResponse({"message": message})

    async def previous_audio(request: Request) -> Response:
        data = studio.previous_audio(request.path_params["segment_id"])
        if data is None:
            return PlainTextResponse("no take before this segment's is kept", status_code=404)
        return Response(data, media_type="audio/wav", headers={"Cache-Control": "no-store"})

    async def render(request: Request) -> Response:
        studio.start_render()
        return JSONResponse(studio.progress())

    async def progress(request: Request) -> Response:
        return JSONResponse(studio.progress())

    routes = [
        Route("/", book),
        Route("/chapter/{index:int}", chapter),
        Route("/search", search),
        Route("/audio/{segment_id}", audio),
        Route("/audio/{segment_id}/previous", previous_audio),
        Route("/static/{name}", static),
        Route("/api/lexicon/preview", preview, methods=["POST"]),
        Route("/api/lexicon", save, methods=["POST"]),
        Route("/api/render", render, methods=["POST"]),
        Route("/api/segment/{segment_id}/{action:str}", one_segment, methods=["POST"]),
        Route("/api/progress", progress),
    ]
    return Starlette(routes=routes, middleware=[Middleware(TokenRequired, token=token)])
