"""The ladder's web service: the upload API, the ladder's live pages, and the team's own pages.

One Starlette app, served by uvicorn (:func:`serve`, :class:`LadderServer`).
The ladder's folder is an ordinary tournament folder, so the pages of
``referee serve`` (:func:`referee.web.app.create_app`: standings, games,
replays, their JSON and events) are mounted as they are; this app adds:

=========================================  ===============================================
``POST /api/submissions?bot=BOT``          upload a ``.tar.gz`` (``Authorization: Bearer``)
``GET /api/submissions/ID``                a submission's status, for its own team
                                           (``?after=STATE&wait=S``: once it changes)
``GET /api/limits``                        the upload limits
``GET /api/ladder``                        the ladder: every bot, its versions, ratings
``GET /api/ladder/events``                 server-sent ``update`` events when it changes
``GET /ladder``                            the ladder page (updates by itself)
``GET /ladder/teams/TEAM``                 a team's bots and versions with their status
``GET|POST /ladder/signin``, ``POST        a team signs in with its token (session cookie)
/ladder/signout``
``GET /ladder/me``                         the team's submissions, reasons, upload form
``POST /ladder/me/upload?bot=BOT``         the form's upload (session and CSRF token)
``GET /ladder/me/submissions/ID/log``,     its build log and check-bot report (text)
``.../check``
=========================================  ===============================================

What a team sends is untrusted: the body is counted as it arrives and
refused past ``submissions.max_upload_bytes`` (never buffered whole in
memory), unpacked by :mod:`referee.ladder.unpack`; tokens are checked by
:meth:`LadderDB.authenticate` (constant time, failures rate-limited per
client address); uploads are rate-limited per team (the database) and one
at a time per team (here). Everything shown is escaped (Jinja's autoescape,
``safetext``); the security headers and CSP are ``referee serve``'s.
See docs/ladder.md (the threat model of the upload surface).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib.resources
import json
import logging
import os
import pathlib
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol
from urllib.parse import parse_qs, quote

import uvicorn
from jinja2 import ChoiceLoader, Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from referee.folder.layout import Layout
from referee.ladder.config import LadderConfig
from referee.ladder.db import (
    AuthError,
    LadderDB,
    LadderDBError,
    NameRefused,
    RateLimited,
    Submission,
    Team,
)
from referee.ladder.service import UploadDesk
from referee.ladder.sessions import COOKIE, PRE_COOKIE, SESSION_S, SessionKeys
from referee.ladder.unpack import ARCHIVE_TYPE, UnpackLimits, UploadRefused, unpack
from referee.safetext import shown_name, shown_text
from referee.sandbox import safepath
from referee.web.app import LOOPBACK_HOSTS, create_app
from referee.web.index import Catalog, FolderIndex
from referee.web.server import app_config, browser_url, is_loopback

__all__ = ["Ladder", "LadderServer", "LadderSite", "create_ladder_app", "serve", "warning_for"]

log = logging.getLogger(__name__)

#: The most bytes of a sign-in or sign-out form's body.
_FORM_BYTES = 4096
#: The most bytes of a build log or check report shown (its end).
_SHOWN_FILE_BYTES = 512 * 1024
_EVENT_POLL_S = 0.5
#: The longest a status request waits for a change, and how often it looks.
_LONG_POLL_S = 25.0
_STATE_POLL_S = 0.1
_KEEPALIVE_S = 15.0
_SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
_PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: A build log or report: text, never run or framed.
_TEXT_CSP = "default-src 'none'; sandbox; frame-ancestors 'none'"


class Ladder(Protocol):
    """What the web service needs of a ladder: :class:`referee.ladder.service.Ladder`'s
    interface for the web (and :class:`LadderSite`'s, for tests)."""

    config: LadderConfig
    db: LadderDB

    @property
    def layout(self) -> Layout: ...

    def authenticate(self, token: str | None, client: str) -> Team: ...

    def unpack_limits(self) -> UnpackLimits: ...

    def begin_submission(self, team: Team, bot: str) -> Submission: ...

    def submission_folder(self, submission_id: int) -> pathlib.Path: ...

    def upload_received(self, submission_id: int) -> Submission: ...

    def upload_refused(self, submission_id: int, reason: str) -> Submission: ...


@dataclasses.dataclass
class LadderSite(UploadDesk):
    """A :class:`Ladder` made of its parts, without the service's threads (the web's tests);
    it takes uploads by :class:`~referee.ladder.service.UploadDesk`'s code, as the service."""

    root: pathlib.Path
    db: LadderDB
    config: LadderConfig
    on_received: Callable[[], None] | None = None

    @property
    def layout(self) -> Layout:
        return Layout(self.root)

    def _received(self) -> None:
        if self.on_received is not None:
            self.on_received()


class _Refusal(Exception):
    """A request refused, with its HTTP status and the message for the submitter."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


def _env() -> Environment:
    env = Environment(
        loader=ChoiceLoader(
            [
                PackageLoader("referee.ladder", "templates"),
                PackageLoader("referee.web", "templates"),
            ]
        ),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["name"] = shown_name
    env.filters["text"] = shown_text
    return env


def _headers(csp: str = _PAGE_CSP) -> dict[str, str]:
    return {**_SECURITY_HEADERS, "Content-Security-Policy": csp, "Cache-Control": "no-store"}


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return Response(
        body,
        status_code=status,
        media_type="application/json",
        headers={**_SECURITY_HEADERS, "Cache-Control": "no-store", **(headers or {})},
    )


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _bearer(request: Request) -> str | None:
    value = request.headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class _Uploads:
    """The body of one upload, counted as it arrives and kept on disk, and its unpacking."""

    def __init__(self, ladder: Ladder) -> None:
        self.ladder = ladder
        self.limits = ladder.unpack_limits()
        self._busy: set[str] = set()
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def one_at_a_time(self, team: str) -> Any:
        with self._lock:
            if team in self._busy:
                raise _Refusal(
                    429,
                    f"team {team!r} has an upload in progress; wait for it to finish",
                    {"Retry-After": "5"},
                )
            self._busy.add(team)
        try:
            yield
        finally:
            with self._lock:
                self._busy.discard(team)

    async def receive(self, request: Request, team: Team) -> dict[str, Any]:
        """Take the upload in ``request`` as a new version of the team's bot ``?bot=``."""
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != ARCHIVE_TYPE:
            raise _Refusal(415, f"send the bot folder as a .tar.gz ({ARCHIVE_TYPE}), not {kind!r}")
        cap = self.limits.compressed_bytes
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > cap):
            raise _Refusal(413, f"the upload is over the limit of {cap} bytes compressed")
        bot = request.query_params.get("bot", "")
        with self.one_at_a_time(team.name):
            try:
                sub = await run_in_threadpool(self.ladder.begin_submission, team, bot)
            except RateLimited as error:
                retry = {"Retry-After": f"{error.retry_after_s:.0f}"}
                raise _Refusal(429, str(error), retry) from None
            except NameRefused as error:
                status = 403 if "another team" in str(error) else 400
                raise _Refusal(status, str(error)) from None
            except AuthError as error:
                raise _Refusal(401, str(error)) from None
            with tempfile.TemporaryFile() as body:
                size = 0
                try:
                    async for chunk in request.stream():
                        size += len(chunk)
                        if size > cap:
                            raise UploadRefused(
                                f"the upload is over the limit of {cap} bytes compressed"
                            )
                        body.write(chunk)
                    body.seek(0)
                    folder = self.ladder.submission_folder(sub.id)
                    await run_in_threadpool(unpack, body, folder, self.limits, compressed_size=size)
                except UploadRefused as error:
                    await run_in_threadpool(self.ladder.upload_refused, sub.id, str(error))
                    status = 413 if "over the limit" in str(error) else 422
                    raise _Refusal(status, str(error)) from None
                except BaseException:  # a client gone mid-body, a server error
                    with contextlib.suppress(LadderDBError):
                        self.ladder.upload_refused(sub.id, "the upload did not complete")
                    raise
            sub = await run_in_threadpool(self.ladder.upload_received, sub.id)
        log.info("submission %s: %s from team %s (%d bytes)", sub.id, sub.player, team.name, size)
        return sub.to_dict()


def create_ladder_app(
    ladder: Ladder,
    *,
    allowed_hosts: tuple[str, ...] | None = LOOPBACK_HOSTS,
    follow: bool = True,
    keys: SessionKeys | None = None,
) -> Starlette:
    """The ladder's app: the upload API and pages, with ``referee serve``'s pages mounted.

    ``follow`` starts the folder's watcher thread with the app (tests may
    call ``app.state.catalog.refresh_all()`` instead); ``allowed_hosts``
    None accepts any Host header (behind a reverse proxy).
    """
    root = ladder.layout.root.resolve()
    catalog = Catalog(root)
    tournament = create_app(root, catalog=catalog, allowed_hosts=None, follow=False)
    env = _env()
    keys = keys or SessionKeys()
    uploads = _Uploads(ladder)
    db = ladder.db
    closing = tournament.state.closing

    def folder() -> FolderIndex | None:
        found = catalog.folders()
        return found[0] if found else None

    def page(template: str, status: int = 200, **context: Any) -> HTMLResponse:
        index = folder()
        if index is not None:
            context.setdefault("t", index.snapshot)
            context.setdefault("tid", quote(index.id))
        context.setdefault("ladder_name", ladder.config.name)
        text = env.get_template(template).render(**context)
        return HTMLResponse(text, status_code=status, headers=_headers())

    def error_page(status: int, message: str) -> HTMLResponse:
        return page("ladder_error.html", status, title="Refused", message=message)

    async def api_team(request: Request) -> Team:
        try:
            return await run_in_threadpool(ladder.authenticate, _bearer(request), _client(request))
        except RateLimited as error:
            raise _Refusal(429, str(error), {"Retry-After": f"{error.retry_after_s:.0f}"}) from None
        except AuthError as error:
            raise _Refusal(401, str(error), {"WWW-Authenticate": "Bearer"}) from None

    async def session_team(request: Request) -> Team | None:
        name = keys.team_of(request.cookies.get(COOKIE))
        if name is None:
            return None
        try:
            team = await run_in_threadpool(db.team, name)
        except LadderDBError:
            return None
        return None if team.revoked else team

    def same_origin(request: Request) -> bool:
        """False when the browser says a POST came from another site's page (``Origin``);
        a defence besides the CSRF token, which is checked whatever this says."""
        origin = request.headers.get("origin")
        if origin is None or origin == "null":  # no-referrer pages' forms send "null"
            return True  # the CSRF token decides
        host = request.headers.get("host", "")
        return origin.split("://", 1)[-1] == host

    async def form_fields(request: Request) -> dict[str, str]:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > _FORM_BYTES:
                raise _Refusal(413, "the form is too large")
        fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=8)
        return {k: v[0] for k, v in fields.items()}

    # The API ------------------------------------------------------------------------------

    async def api_submit(request: Request) -> Response:
        team = await api_team(request)
        return _json(await uploads.receive(request, team), 201)

    async def api_submission(request: Request) -> Response:
        """``?after=STATE&wait=S``: answer once the state is another than ``after``, or
        after ``S`` seconds (at most :data:`_LONG_POLL_S`), so a client sees every change."""
        team = await api_team(request)
        sub = await own_submission(team, request.path_params["id"])
        after = request.query_params.get("after")
        try:
            wait = min(_LONG_POLL_S, max(0.0, float(request.query_params.get("wait", "0"))))
        except ValueError:
            raise _Refusal(400, "wait is a number of seconds") from None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while after is not None and sub.state == after and loop.time() < deadline:
            if closing.is_set() or await request.is_disconnected():
                break
            await asyncio.sleep(_STATE_POLL_S)
            sub = await run_in_threadpool(db.submission, sub.id)
        return _json(sub.to_dict(private=True))

    async def api_limits(request: Request) -> Response:
        limits = uploads.limits
        return _json({**dataclasses.asdict(limits), "described": limits.describe()})

    async def own_submission(team: Team, number: str) -> Any:
        try:
            sub = await run_in_threadpool(db.submission, int(number))
        except (ValueError, LadderDBError):
            sub = None
        if sub is None or sub.team != team.name:  # another team's looks like none at all
            raise _Refusal(404, f"no submission {shown_name(number)} of team {team.name!r}")
        return sub

    async def api_ladder(request: Request) -> Response:
        return _json(await run_in_threadpool(ladder_data))

    seen_version: list[Any] = [0.0, None]  # when it was last read, and what it was
    version_lock = threading.Lock()

    def version() -> tuple[Any, ...]:
        """Changes when a game is journaled or a submission changes state."""
        index = folder()
        states = hash(tuple((s.id, s.state) for s in db.submissions()))
        return (index.snapshot.version if index else -1, states)

    def shared_version() -> tuple[Any, ...]:
        """:func:`version` read at most twice per :data:`_EVENT_POLL_S`, however many event
        streams are open (each would otherwise query the database)."""
        with version_lock:
            now = time.monotonic()
            if seen_version[1] is None or now - seen_version[0] >= _EVENT_POLL_S / 2:
                seen_version[:] = [now, version()]
            return seen_version[1]

    def ladder_data() -> dict[str, Any]:
        from referee.ladder.pages import ladder_view

        index = folder()
        return ladder_view(db, index.snapshot if index else None, version=list(version()))

    async def api_events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            seen, quiet = None, 0.0
            yield "retry: 2000\n\n"
            while not closing.is_set() and not await request.is_disconnected():
                current = await run_in_threadpool(shared_version)
                if current != seen:
                    seen, quiet = current, 0.0
                    yield f"event: update\ndata: {json.dumps({'version': list(current)})}\n\n"
                await asyncio.sleep(_EVENT_POLL_S)
                quiet += _EVENT_POLL_S
                if quiet >= _KEEPALIVE_S:
                    quiet = 0.0
                    yield ": keep-alive\n\n"

        headers = {**_SECURITY_HEADERS, "Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    # The pages ----------------------------------------------------------------------------

    async def home(request: Request) -> Response:
        return RedirectResponse("/ladder", status_code=303, headers=_SECURITY_HEADERS)

    async def ladder_page(request: Request) -> Response:
        data = await run_in_threadpool(ladder_data)
        team = await session_team(request)
        return page("ladder.html", title=ladder.config.name, view=data, team=team)

    async def team_page(request: Request) -> Response:
        name = request.path_params["team"]
        data = await run_in_threadpool(ladder_data)
        bots = [b for b in data["bots"] if b["team"] == name]
        known = any(t.name == name for t in await run_in_threadpool(db.teams))
        if not known:
            return error_page(404, "No such team.")
        return page("ladder_team.html", title=f"team {name}", team_name=name, bots=bots, view=data)

    def cookie_flags(request: Request) -> dict[str, Any]:
        https = request.url.scheme == "https" or request.headers.get("x-forwarded-proto") == "https"
        return {"httponly": True, "samesite": "strict", "secure": https, "path": "/"}

    async def signin_page(request: Request, message: str = "", status: int = 200) -> Response:
        pre = keys.pre_session()
        response = page(
            "ladder_signin.html", status, title="Sign in", csrf=keys.csrf(pre), message=message
        )
        response.set_cookie(PRE_COOKIE, pre, max_age=3600, **cookie_flags(request))
        return response

    async def signin(request: Request) -> Response:
        if request.method == "GET":
            return await signin_page(request)
        fields = await form_fields(request)
        if not same_origin(request) or not keys.csrf_ok(
            request.cookies.get(PRE_COOKIE), fields.get("csrf")
        ):
            return error_page(403, "The form's CSRF token is missing or wrong: reload the page.")
        try:
            team = await run_in_threadpool(
                ladder.authenticate, fields.get("token", "").strip() or None, _client(request)
            )
        except RateLimited as error:
            return await signin_page(request, str(error), 429)
        except AuthError as error:
            return await signin_page(request, f"Not signed in: {error}.", 401)
        response = RedirectResponse("/ladder/me", status_code=303, headers=_SECURITY_HEADERS)
        response.set_cookie(
            COOKIE, keys.issue(team.name), max_age=SESSION_S, **cookie_flags(request)
        )
        response.delete_cookie(PRE_COOKIE, path="/")
        return response

    async def signout(request: Request) -> Response:
        fields = await form_fields(request)
        cookie = request.cookies.get(COOKIE)
        if not same_origin(request) or not keys.csrf_ok(cookie, fields.get("csrf")):
            return error_page(403, "The form's CSRF token is missing or wrong: reload the page.")
        response = RedirectResponse("/ladder", status_code=303, headers=_SECURITY_HEADERS)
        response.delete_cookie(COOKIE, path="/")
        return response

    async def me(request: Request) -> Response:
        team = await session_team(request)
        if team is None:
            return RedirectResponse("/ladder/signin", status_code=303, headers=_SECURITY_HEADERS)
        subs = await run_in_threadpool(lambda: db.submissions(team=team.name))
        return page(
            "ladder_me.html",
            title=f"team {team.name}",
            team=team,
            submissions=[s.to_dict(private=True) for s in reversed(subs)],
            csrf=keys.csrf(request.cookies[COOKIE]),
            limits=uploads.limits.describe(),
        )

    async def me_upload(request: Request) -> Response:
        team = await session_team(request)
        if team is None:
            raise _Refusal(401, "not signed in (or the session expired): sign in again")
        token = request.headers.get("x-csrf-token")
        if not same_origin(request) or not keys.csrf_ok(request.cookies.get(COOKIE), token):
            raise _Refusal(403, "the form's CSRF token is missing or wrong: reload the page")
        return _json(await uploads.receive(request, team), 201)

    async def me_file(request: Request) -> Response:
        team = await session_team(request)
        if team is None:
            return RedirectResponse("/ladder/signin", status_code=303, headers=_SECURITY_HEADERS)
        sub = await own_submission(team, request.path_params["id"])
        which = request.path_params["which"]
        relative = {"log": sub.build_log, "check": sub.check_report}.get(which)
        if relative is None:
            return error_page(404, "No such page.")
        text = await run_in_threadpool(_read_recorded, root, relative)
        if text is None:
            text = "(not written yet)" if sub.state != "rejected" else "(none was written)"
        return Response(text, media_type="text/plain; charset=utf-8", headers=_headers(_TEXT_CSP))

    # Errors -------------------------------------------------------------------------------

    def refusal_response(request: Request, refusal: _Refusal) -> Response:
        if request.url.path.startswith("/api/") or request.url.path == "/ladder/me/upload":
            return _json({"error": refusal.message}, refusal.status, refusal.headers)
        response = error_page(refusal.status, refusal.message)
        response.headers.update(refusal.headers)
        return response

    def guarded(handler: Any) -> Any:
        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except _Refusal as refusal:
                return refusal_response(request, refusal)

        return run

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

    static = StaticFiles(directory=str(importlib.resources.files("referee.ladder") / "static"))
    middleware = []
    if allowed_hosts is not None:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    app = Starlette(
        routes=[
            Route("/", home, methods=["GET"]),
            Route("/api/submissions", guarded(api_submit), methods=["POST"]),
            Route("/api/submissions/{id}", guarded(api_submission), methods=["GET"]),
            Route("/api/ladder", guarded(api_ladder), methods=["GET"]),
            Route("/api/limits", guarded(api_limits), methods=["GET"]),
            Route("/api/ladder/events", api_events, methods=["GET"]),
            Route("/ladder", guarded(ladder_page), methods=["GET"]),
            Route("/ladder/teams/{team}", guarded(team_page), methods=["GET"]),
            Route("/ladder/signin", guarded(signin), methods=["GET", "POST"]),
            Route("/ladder/signout", guarded(signout), methods=["POST"]),
            Route("/ladder/me", guarded(me), methods=["GET"]),
            Route("/ladder/me/upload", guarded(me_upload), methods=["POST"]),
            Route("/ladder/me/submissions/{id}/{which}", guarded(me_file), methods=["GET"]),
            Mount("/ladder/static", app=static, name="ladder-static"),
            Mount("/", app=_read_only(tournament)),
        ],
        middleware=middleware,
        lifespan=lifespan,
    )
    app.state.catalog = catalog
    app.state.closing = closing
    app.state.keys = keys
    return app


def _read_only(app: Any) -> Any:
    """``app`` (referee serve's pages) behind a refusal of every method but GET and HEAD,
    which also answers a POST to one of the ladder's GET pages (the router falls through)."""

    async def guard(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD"):
            response = Response(
                "read-only: only GET",
                status_code=405,
                headers={**_SECURITY_HEADERS, "Allow": "GET"},
            )
            await response(scope, receive, send)
            return
        await app(scope, receive, send)

    return guard


def _read_recorded(root: pathlib.Path, relative: str) -> str | None:
    """A file the ladder recorded under ``root`` (a build log, a report), read without
    following a link; its last :data:`_SHOWN_FILE_BYTES` as text, or None if missing."""
    if not relative:
        return None
    try:
        names = safepath.parts(relative)
        with safepath.open_folder(root, "/".join(names[:-1]) or None) as parent:
            fd = os.open(names[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
            with os.fdopen(fd, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                handle.seek(max(0, size - _SHOWN_FILE_BYTES))
                data = handle.read(_SHOWN_FILE_BYTES)
    except OSError:
        return None
    text = data.decode("utf-8", "replace")
    return ("…\n" if size > _SHOWN_FILE_BYTES else "") + text


def warning_for(host: str) -> str | None:
    """What to tell the organiser before serving a ladder on ``host`` (None for loopback)."""
    if is_loopback(host):
        return None
    return (
        f"warning: serving the ladder on {host}, not loopback: anyone who can reach it reads "
        "its pages and can try tokens; teams upload with their tokens, which plain http "
        "carries unencrypted: put a reverse proxy with TLS in front (docs/ladder.md)"
    )


def _config(ladder: Ladder, host: str, port: int, *, quiet: bool = False) -> uvicorn.Config:
    """uvicorn settings for the ladder: referee serve's (:func:`.app_config`), bigger h11 events."""
    app = create_ladder_app(ladder, allowed_hosts=LOOPBACK_HOSTS if is_loopback(host) else None)
    config = app_config(app, host, port, quiet=quiet)
    # An upload streams through request.stream(); h11's own limit is for headers.
    config.h11_max_incomplete_event_size = 64 * 1024
    return config


class _Server(uvicorn.Server):
    """uvicorn's server, which first tells the event streams to end when it stops."""

    def handle_exit(self, sig: int, frame: object) -> None:
        self.config.app.state.closing.set()
        super().handle_exit(sig, frame)  # type: ignore[arg-type]


def serve(ladder: Ladder, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve the ladder's API and pages in the foreground until Ctrl-C."""
    _Server(_config(ladder, host, port)).run()


class LadderServer:
    """The ladder's app in a thread of its own (beside the service loop, and for tests)."""

    def __init__(
        self, ladder: Ladder, *, host: str = "127.0.0.1", port: int = 8000, quiet: bool = True
    ) -> None:
        self._server = _Server(_config(ladder, host, port, quiet=quiet))
        # uvicorn leaves the signals alone outside the main thread.
        self._thread = threading.Thread(target=self._server.run, name="ladder-web", daemon=True)
        self.host, self.port = host, port

    @property
    def url(self) -> str:
        return browser_url(self.host, self.port, "")

    def start(self, timeout: float = 10.0) -> bool:
        """Start serving; True once the server listens."""
        self._thread.start()
        waited = 0.0
        while self._thread.is_alive() and not self._server.started and waited < timeout:
            threading.Event().wait(0.05)
            waited += 0.05
        if self._server.started and self.port == 0:
            self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return bool(self._server.started)

    def stop(self) -> None:
        self._server.config.app.state.closing.set()
        self._server.should_exit = True
        self._thread.join(timeout=5)
