"""The web application of ``referee serve``: pages, their JSON, live events and replays.

A Starlette app, served by uvicorn (:mod:`referee.web.server`). Read-only:
every route is GET (HEAD); nothing under the served folder is written. Only
what the index knows can be reached: a tournament is found by its id in the
:class:`~referee.web.index.Catalog`, a game by its id in the journal, and
its log through the journal's ``log_path``, checked to stay inside the
folder (and against its MAC with the folder's key); the static files come
from the package. The key file is never served.

Pages (HTML, filled in by ``static/serve.js`` from the JSON routes):

=================================  =============================================
``/``                              the tournaments, with status and progress
``/t/ID``                          standings, confidence intervals, head to head
``/t/ID/bots/BOT``                 one bot: charts, head to head, faults, slowest, worst analysed
``/t/ID/games``                    the game list, filterable (``?bot=&faults=&moons=&result=``)
``/t/ID/games/GAME``               the replay viewer (``referee replay --html``)
``/t/ID/gauntlet``                 the sequential test's LLR over games
=================================  =============================================

JSON: ``/api/tournaments``, ``/api/t/ID`` (standings), ``/api/t/ID/bots/BOT``,
``/api/t/ID/games``, ``/api/t/ID/gauntlet``. Live: ``/api/events`` and
``/api/t/ID/events`` (server-sent events: ``update`` with the new version).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import pathlib
import threading
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Mount, Route

from referee.analysis.marks import Marks
from referee.audit.render_html import render_html
from referee.audit.replay import LogError, load_game
from referee.folder import seal
from referee.safetext import shown_name, shown_text
from referee.web.analysis import BotAnalyses
from referee.web.index import FILTERS, Catalog, FolderIndex, Snapshot, filter_games, game_index
from referee.web.pages import (
    EVENT_STREAM_HEADERS,
    PAGE_CSP,
    REPLAY_CSP,
    SECURITY_HEADERS,
    host_check,
    json_response,
    page_headers,
    static_files,
    templates,
)

__all__ = ["LOOPBACK_HOSTS", "create_app"]

#: Host headers accepted when bound to loopback (a page on another site cannot
#: reach the server through a DNS name of its own: DNS rebinding).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
#: Games per page of the game list (at most).
PAGE = 200
#: How often an event stream looks for changes, and sends a comment to keep alive.
EVENT_POLL_S = 0.5
KEEPALIVE_S = 15.0


def create_app(
    runs_dir: pathlib.Path,
    *,
    catalog: Catalog | None = None,
    allowed_hosts: tuple[str, ...] | None = LOOPBACK_HOSTS,
    follow: bool = True,
) -> Starlette:
    """The app serving every tournament folder under ``runs_dir``.

    ``follow`` starts the catalog's watcher thread with the app (tests may
    drive :meth:`Catalog.refresh_all` themselves instead); ``allowed_hosts``
    None accepts any Host header (a server bound beyond loopback).
    """
    catalog = catalog or Catalog(runs_dir)
    env = templates()
    #: Set when the server stops, so that the event streams end (uvicorn waits for them).
    closing = threading.Event()
    #: referee analyze's files beside the logs, read when they change.
    analyses = BotAnalyses()

    def page(template: str, status: int = 200, **context: Any) -> HTMLResponse:
        html = env.get_template(template).render(**context)
        return HTMLResponse(html, status_code=status, headers=page_headers(PAGE_CSP))

    def not_found(what: str) -> HTMLResponse:
        return page("error.html", 404, title="Not found", message=what)

    async def index(request: Request) -> Response:
        return page("index.html", title="Tournaments", root=catalog.root.name)

    async def api_tournaments(request: Request) -> Response:
        return json_response(
            {
                "version": catalog.version,
                "tournaments": [f.snapshot.summary() for f in catalog.folders()],
            }
        )

    async def tournament(request: Request) -> Response:
        found = catalog.resolve(request.path_params["rest"])
        if found is None:
            return not_found("No such tournament.")
        folder, rest = found
        parts = rest.split("/") if rest else []
        snap = folder.snapshot
        context = {"t": snap, "tid": folder.id}
        if not parts:
            return page("standings.html", title=snap.name, **context)
        if parts == ["games"]:
            return page("games.html", title=f"{snap.name}: games", filters=FILTERS, **context)
        if parts == ["gauntlet"]:
            return page("gauntlet.html", title=f"{snap.name}: gauntlet", **context)
        if len(parts) == 2 and parts[0] == "bots":
            if not _known_bot(snap, parts[1]):
                return not_found("No such bot in this tournament.")
            return page("bot.html", title=f"{snap.name}: {parts[1]}", bot=parts[1], **context)
        if len(parts) == 2 and parts[0] == "games":
            return _replay(folder, parts[1], not_found, analyses)
        return not_found("No such page.")

    async def api(request: Request) -> Response:
        found = catalog.resolve(request.path_params["rest"])
        if found is None:
            return json_response({"error": "no such tournament"}, 404)
        folder, rest = found
        parts = rest.split("/") if rest else []
        snap = folder.snapshot
        if not parts:
            return json_response(_standings(snap))
        if parts == ["events"]:
            return _events(request, closing, lambda: folder.snapshot.version, _event_data(folder))
        if parts == ["games"]:
            return _games(snap, request)
        if parts == ["gauntlet"]:
            return json_response({**_head(snap), "gauntlet": snap.gauntlet})
        if len(parts) == 2 and parts[0] == "bots":
            data = _bot(snap, parts[1])
            if data is not None:  # its worst decisions, from referee analyze's files
                name = _bot_name(snap, parts[1]) or parts[1]
                data["analysis"] = analyses.of_bot(folder.layout.root, snap.games, name)
            return (
                json_response(data)
                if data is not None
                else json_response({"error": "no such bot"}, 404)
            )
        return json_response({"error": "not found"}, 404)

    async def events(request: Request) -> Response:
        return _events(
            request, closing, lambda: catalog.version, lambda: {"version": catalog.version}
        )

    static = static_files()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if follow:
            catalog.start()
        try:
            yield
        finally:
            closing.set()
            if follow:
                catalog.stop()

    app = Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/api/tournaments", api_tournaments, methods=["GET"]),
            Route("/api/events", events, methods=["GET"]),
            Route("/api/t/{rest:path}", api, methods=["GET"]),
            Route("/t/{rest:path}", tournament, methods=["GET"]),
            Mount("/static", app=static, name="static"),
        ],
        middleware=host_check(allowed_hosts),
        lifespan=lifespan,
        exception_handlers={404: _not_found_handler(page), 405: _not_allowed},
    )
    app.state.catalog = catalog
    app.state.closing = closing
    return app


def _not_found_handler(page: Any) -> Any:
    async def handler(request: Request, exc: Exception) -> Response:
        if request.url.path.startswith("/api/"):
            return json_response({"error": "not found"}, 404)
        return page("error.html", 404, title="Not found", message="No such page.")

    return handler


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return Response(
        "read-only: only GET", status_code=405, headers={**SECURITY_HEADERS, "Allow": "GET"}
    )


def _bot_name(snap: Snapshot, shown: str) -> str | None:
    """The bot a URL names: by its name, or by its name as the pages show it (printable)."""
    rows = snap.standings["bots"] if snap.standings else []
    names = [*snap.bots, *(r["bot"] for r in rows)]
    if shown in names:
        return shown
    return next((n for n in names if shown_name(n) == shown), None)


def _known_bot(snap: Snapshot, bot: str) -> bool:
    return _bot_name(snap, bot) is not None


def _head(snap: Snapshot) -> dict[str, Any]:
    return snap.summary() | {
        "missing_logs": snap.missing_logs,
        "standings_games": snap.standings_games,
        "scan": snap.scan,
    }


def _standings(snap: Snapshot) -> dict[str, Any]:
    standings = snap.standings
    if standings is not None:
        standings = _printable_standings(standings)
    return {**_head(snap), "standings": standings}


def _printable_standings(data: dict[str, Any]) -> dict[str, Any]:
    """The standings' strings made printable (names, reasons, notes, fault kinds)."""

    bots = []
    for row in data["bots"]:
        row = dict(row)
        row["bot"] = shown_name(row["bot"])
        row["reason"] = shown_text(row.get("reason", ""))
        row["notes"] = [shown_text(n) for n in row.get("notes", [])]
        row["faults"] = {shown_name(k): v for k, v in row.get("faults", {}).items()}
        bots.append(row)
    h2h = {
        shown_name(a): {shown_name(b): cell for b, cell in row.items()}
        for a, row in data.get("head_to_head", {}).items()
    }
    return {
        **data,
        "tournament": shown_name(data.get("tournament", "")),
        "bots": bots,
        "head_to_head": h2h,
    }


def _bot(snap: Snapshot, shown: str) -> dict[str, Any] | None:
    bot = _bot_name(snap, shown)
    if bot is None:
        return None
    standings = _printable_standings(snap.standings) if snap.standings else None
    row = None
    if snap.standings:
        for raw, shown in zip(snap.standings["bots"], standings["bots"], strict=True):
            if raw["bot"] == bot:
                row = shown
    h2h = {}
    if snap.standings:
        h2h = snap.standings.get("head_to_head", {}).get(bot, {})
    order = [r["bot"] for r in snap.standings["bots"]] if snap.standings else []
    return {
        **_head(snap),
        "bot": shown_name(bot),
        "row": row,
        "head_to_head": [
            {"opponent": shown_name(o), **h2h[o]} for o in order if o in h2h and o != bot
        ],
        **(snap.bots.get(bot) or {}),
    }


def _games(snap: Snapshot, request: Request) -> Response:
    query = request.query_params
    chosen = {k: query.get(k, "") for k in FILTERS}
    for key, value in chosen.items():
        if value not in FILTERS[key]:
            return json_response(
                {"error": f"{key} must be one of {', '.join(FILTERS[key][1:])}"}, 400
            )
    bot = query.get("bot", "")
    bot = (_bot_name(snap, bot) or bot) if bot else ""
    try:
        offset = max(0, int(query.get("offset", "0")))
        limit = min(PAGE, max(1, int(query.get("limit", str(PAGE)))))
    except ValueError:
        return json_response({"error": "offset and limit are numbers"}, 400)
    rows = filter_games(snap.games, bot=bot, **chosen)
    return json_response(
        {
            **_head(snap),
            "total": len(rows),
            "offset": offset,
            "games": [r.to_dict() for r in rows[offset : offset + limit]],
            "bots": sorted(
                shown_name(b)
                for b in {*snap.bots, *(r["bot"] for r in (snap.standings or {}).get("bots", []))}
            ),
        }
    )


def _replay(folder: FolderIndex, game_id: str, not_found: Any, analyses: BotAnalyses) -> Response:
    snap = folder.snapshot
    row = game_index(snap.games, game_id)
    if row is None or row.log is None:
        return not_found("No such game in this tournament's journal.")
    path = folder.layout.root / row.log
    root = folder.layout.root.resolve()
    if not path.resolve().is_relative_to(root) or not path.is_file():
        return not_found("This game's log is missing.")
    data = path.read_bytes()
    if snap.authenticated:
        key = seal.folder_key(folder.layout.root)
        if key is None or row.log_mac != seal.log_mac(key, data):
            return HTMLResponse(
                "<!DOCTYPE html><title>Refused</title><p>This game's log does not match the "
                "MAC in the journal: it was changed after the game.</p>",
                status_code=409,
                headers=page_headers(PAGE_CSP),
            )
    try:
        game = load_game(path)
    except LogError as error:
        message = shown_text(error)
        return HTMLResponse(
            f"<!DOCTYPE html><title>Damaged log</title><p>{html.escape(message)}</p>",
            status_code=422,
            headers=page_headers(PAGE_CSP),
        )
    marks = Marks.of(analyses.file(path))  # the analysed decisions, when analysed
    base = f"/t/{quote(folder.id)}"
    links = [("← games", f"{base}/games"), ("standings", base)]
    return HTMLResponse(
        render_html(game, marks=marks, links=links), headers=page_headers(REPLAY_CSP)
    )


def _event_data(folder: FolderIndex) -> Any:
    def data() -> dict[str, Any]:
        snap = folder.snapshot
        return {
            "version": snap.version,
            "games_played": snap.games_played,
            "standings_games": snap.standings_games,
            "status": snap.status,
        }

    return data


def _events(request: Request, closing: threading.Event, version: Any, data: Any) -> Response:
    """A stream of ``update`` events, one whenever ``version()`` changes, until ``closing``."""

    async def stream() -> AsyncIterator[str]:
        seen = None
        quiet = 0.0
        yield "retry: 2000\n\n"
        while not closing.is_set() and not await request.is_disconnected():
            current = version()
            if current != seen:
                seen = current
                quiet = 0.0
                yield f"event: update\ndata: {json.dumps(data())}\n\n"
            await asyncio.sleep(EVENT_POLL_S)
            quiet += EVENT_POLL_S
            if quiet >= KEEPALIVE_S:
                quiet = 0.0
                yield ": keep-alive\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream", headers=EVENT_STREAM_HEADERS)
