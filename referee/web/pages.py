"""What every page the referee serves shares: its security headers, its policies, its templates.

``referee serve`` (:mod:`referee.web.app`) and ``referee play``'s tables
(:mod:`referee.web.play`) send the same headers with every response
(:data:`SECURITY_HEADERS`: no sniffing, no referrer, never in a frame), a
page's Content-Security-Policy (:data:`PAGE_CSP`: scripts and styles from the
server only; :data:`REPLAY_CSP` for the self-contained replay page), and
render the same Jinja templates (:func:`templates`), which escape everything
and show a bot's name through :func:`referee.safetext.shown_name`. JSON
answers (:func:`json_response`) and event streams (:data:`EVENT_STREAM_HEADERS`)
are never cached; :func:`host_check` refuses a Host header that is not
loopback's (DNS rebinding) and :func:`static_files` serves the scripts and
styles of ``referee/web/static``.

>>> page_headers(PAGE_CSP)["X-Frame-Options"]
'DENY'
"""

from __future__ import annotations

import importlib.resources
import json
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import Response
from starlette.staticfiles import StaticFiles

from referee.safetext import shown_name

__all__ = [
    "EVENT_STREAM_HEADERS",
    "PAGE_CSP",
    "REPLAY_CSP",
    "SECURITY_HEADERS",
    "host_check",
    "json_response",
    "page_headers",
    "static_files",
    "templates",
]

#: Sent with every response.
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
#: A page's policy: its scripts, styles and data from the server only, never in a frame.
PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: The replay page is one self-contained file with its script and styles inline.
REPLAY_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

#: An event stream's: never cached, and never buffered by a proxy in between.
EVENT_STREAM_HEADERS = {**SECURITY_HEADERS, "Cache-Control": "no-store", "X-Accel-Buffering": "no"}


def page_headers(csp: str) -> dict[str, str]:
    """The headers of an HTML page under the policy ``csp``."""
    return {**SECURITY_HEADERS, "Content-Security-Policy": csp}


def templates() -> Environment:
    """The pages' templates (``referee/web/templates``), autoescaped, with the ``name`` filter."""
    env = Environment(
        loader=PackageLoader("referee.web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["name"] = shown_name
    return env


def json_response(data: Any, status: int = 200) -> Response:
    """``data`` as compact JSON (no NaN, which is not JSON), never cached."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    headers = {**SECURITY_HEADERS, "Cache-Control": "no-store"}
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def host_check(allowed_hosts: tuple[str, ...] | None) -> list[Middleware]:
    """The middleware that answers 400 to a Host header not in ``allowed_hosts`` (None: any)."""
    if allowed_hosts is None:
        return []
    return [Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))]


def static_files() -> StaticFiles:
    """The pages' scripts, styles and vendored Chart.js (``referee/web/static``)."""
    return StaticFiles(directory=str(importlib.resources.files("referee.web") / "static"))
