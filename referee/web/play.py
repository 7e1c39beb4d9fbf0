"""The web table of ``referee play``: a page per human seat, its live data and its answers.

Each human seat has one secret URL, ``/play/TOKEN`` (the token is the seat's
:attr:`~referee.web.human.HumanPlayer.token`, compared in constant time;
an unknown one is a plain 404). Under it:

=========================  ==================================================================
``/play/TOKEN``             the table (filled in by ``static/play.js``)
``/play/TOKEN/state``       the seat's table as JSON (:meth:`HumanPlayer.table`)
``/play/TOKEN/events``      server-sent events: ``table`` with the table whenever it changes
``/play/TOKEN/answer``      POST, JSON ``{"decision": ID, "cards": [..]}`` (a pass),
                            ``{"decision": ID, "card": C}`` (a play) or ``{"decision": ID,
                            "moon": M}`` (V2); 200 ``{"ok": true}``, or 422 with the engine's
                            ``error`` and ``rule``, 409 for a decision no longer open
``/play/TOKEN/replay``      the game's HTML replay (every hand), once the game is over
=========================  ==================================================================

A seat's page only ever gets that seat's table: its SeatView and public
facts (see :mod:`referee.web.human`). Bound to loopback, the Host header
must be a loopback name (no DNS rebinding), and an answer must be JSON from
the page's own origin.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hmac
import json
import os
import pathlib
import socket
import threading
from collections.abc import AsyncIterator, Callable, Sequence

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Mount, Route

from referee.audit.render_html import render_html
from referee.audit.replay import LogError, load_game
from referee.safetext import shown_text
from referee.web.app import LOOPBACK_HOSTS
from referee.web.human import HumanPlayer
from referee.web.pages import (
    EVENT_STREAM_HEADERS,
    PAGE_CSP,
    REPLAY_CSP,
    host_check,
    json_response,
    page_headers,
    static_files,
    templates,
)
from referee.web.server import ClosingServer, app_config, browser_url, is_loopback

__all__ = ["PlayServer", "create_play_app"]

#: How often an event stream looks for a change of the table.
POLL_S = 0.1
KEEPALIVE_S = 15.0
#: The largest answer body accepted (a pass of a few cards is a hundred bytes).
MAX_ANSWER_BYTES = 4096


def create_play_app(
    players: Sequence[HumanPlayer],
    log_path: pathlib.Path,
    *,
    allowed_hosts: tuple[str, ...] | None = LOOPBACK_HOSTS,
) -> Starlette:
    """The app serving the tables of ``players`` (one per human seat) of the game logged at
    ``log_path``; ``allowed_hosts`` None accepts any Host header (bound beyond loopback)."""
    env = templates()
    closing = threading.Event()

    def seat_of(request: Request) -> HumanPlayer | None:
        token = request.path_params["token"].encode()
        found = None
        for player in players:  # every token compared, in constant time
            if hmac.compare_digest(player.token.encode(), token):
                found = player
        return found

    def missing() -> Response:
        return HTMLResponse(
            "<!DOCTYPE html><title>Not found</title><p>No such table.</p>",
            status_code=404,
            headers=page_headers(PAGE_CSP),
        )

    async def table(request: Request) -> Response:
        player = seat_of(request)
        if player is None:
            return missing()
        body = env.get_template("play.html").render(title="Play Hearts", token=player.token)
        return HTMLResponse(body, headers=page_headers(PAGE_CSP))

    async def state(request: Request) -> Response:
        player = seat_of(request)
        if player is None:
            return json_response({"error": "no such table"}, 404)
        return json_response(player.table())

    async def events(request: Request) -> Response:
        player = seat_of(request)
        if player is None:
            return json_response({"error": "no such table"}, 404)
        return _table_events(request, closing, player)

    async def answer(request: Request) -> Response:
        player = seat_of(request)
        if player is None:
            return json_response({"error": "no such table"}, 404)
        problem = _foreign(request)
        if problem:
            return json_response({"error": problem}, 403)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_ANSWER_BYTES:
                return json_response(
                    {"error": f"an answer is at most {MAX_ANSWER_BYTES} bytes"}, 413
                )
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return json_response({"error": "an answer is a JSON object"}, 400)
        if not isinstance(data, dict) or not isinstance(data.get("decision"), str):
            return json_response({"error": "an answer names its decision"}, 400)
        values = [k for k in ("cards", "card", "moon") if k in data]
        if len(values) != 1:
            return json_response({"error": "an answer has one of cards, card or moon"}, 400)
        refusal = player.answer(data["decision"], data[values[0]])
        if refusal is None:
            return json_response({"ok": True})
        return json_response(refusal.to_dict(), 409 if refusal.stale else 422)

    async def replay(request: Request) -> Response:
        player = seat_of(request)
        if player is None:
            return missing()
        if not player.game_over:  # the replay shows every hand: only once the game is over
            return HTMLResponse(
                "<!DOCTYPE html><title>Not yet</title><p>The replay opens once the game is "
                "over.</p>",
                status_code=409,
                headers=page_headers(PAGE_CSP),
            )
        try:
            game = load_game(log_path)
        except LogError as error:
            return HTMLResponse(
                f"<!DOCTYPE html><title>Damaged log</title><p>{_escape(shown_text(error))}</p>",
                status_code=422,
                headers=page_headers(PAGE_CSP),
            )
        return HTMLResponse(render_html(game), headers=page_headers(REPLAY_CSP))

    static = static_files()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            closing.set()

    app = Starlette(
        routes=[
            Route("/play/{token}", table, methods=["GET"]),
            Route("/play/{token}/state", state, methods=["GET"]),
            Route("/play/{token}/events", events, methods=["GET"]),
            Route("/play/{token}/answer", answer, methods=["POST"]),
            Route("/play/{token}/replay", replay, methods=["GET"]),
            Mount("/static", app=static, name="static"),
        ],
        middleware=host_check(allowed_hosts),
        lifespan=lifespan,
    )
    app.state.closing = closing
    return app


def _escape(text: str) -> str:
    import html

    return html.escape(text)


def _foreign(request: Request) -> str | None:
    """Why an answer does not come from the table's own page (None when it does).

    A JSON body cannot be sent cross-site without the browser asking first
    (CORS), and the browser names the page's origin: another site's page can
    neither send one nor pass for the table.
    """
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return "an answer is sent as application/json"
    origin = request.headers.get("origin")
    if origin is not None:
        host = request.headers.get("host", "")
        if origin not in (f"http://{host}", f"https://{host}"):
            return "an answer comes from the table's own page"
    return None


def _table_events(request: Request, closing: threading.Event, player: HumanPlayer) -> Response:
    """A ``table`` event with the seat's table whenever it changes, until ``closing``."""

    async def stream() -> AsyncIterator[str]:
        seen = None
        quiet = 0.0
        yield "retry: 1000\n\n"
        while not closing.is_set() and not await request.is_disconnected():
            if player.version != seen:
                data = player.table()
                seen = data.get("version")
                quiet = 0.0
                yield f"event: table\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
            await asyncio.sleep(POLL_S)
            quiet += POLL_S
            if quiet >= KEEPALIVE_S:
                quiet = 0.0
                yield ": keep-alive\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream", headers=EVENT_STREAM_HEADERS)


class PlayServer:
    """The tables' app in a thread of its own while the game plays in the caller's."""

    def __init__(
        self,
        players: Sequence[HumanPlayer],
        log_path: pathlib.Path,
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        app = create_play_app(
            players, log_path, allowed_hosts=LOOPBACK_HOSTS if is_loopback(host) else None
        )
        self._server = ClosingServer(app_config(app, host, port, quiet=True))
        self._thread: threading.Thread | None = None
        self._on_error = on_error
        self.error: str | None = None
        self.host, self.port = host, port

    def _run(self, sock: socket.socket) -> None:
        try:
            self._server.run(sockets=[sock])
        except (OSError, SystemExit) as error:
            self.error = f"cannot serve on {self.host}:{self.port}: {error}"
            if self._on_error:
                self._on_error(self.error)

    def url(self, player: HumanPlayer) -> str:
        """The secret address of ``player``'s table."""
        return browser_url(self.host, self.port, f"/play/{player.token}")

    def start(self, timeout: float = 10.0) -> bool:
        """Start serving; True once the server listens (``port`` 0 becomes the one it got).

        The socket is bound here, so that a port in use is a plain message in ``error``.
        """
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        try:
            sock = socket.create_server((self.host.strip("[]"), self.port), family=family)
        except OSError as error:
            # create_server's strerror adds "(while attempting to bind ...)": say it once.
            why = os.strerror(error.errno) if error.errno else str(error)
            hint = " (another referee serve or play? choose another --port, or --port 0 for a free one)"
            self.error = f"cannot serve on {self.host}:{self.port}: {why}" + (
                hint if error.errno == errno.EADDRINUSE else ""
            )
            return False
        self.port = sock.getsockname()[1]
        # uvicorn leaves the signals alone outside the main thread: Ctrl-C stays the game's.
        self._thread = threading.Thread(
            target=self._run, args=(sock,), name="play-serve", daemon=True
        )
        self._thread.start()
        waited = threading.Event()
        for _ in range(int(timeout / 0.05)):
            if self._server.started or not self._thread.is_alive():
                break
            waited.wait(0.05)
        return bool(self._server.started)

    def stop(self) -> None:
        self._server.config.app.state.closing.set()
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
