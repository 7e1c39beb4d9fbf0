"""What every page the referee serves shares: its security headers, its policies, its templates.

``referee serve`` (:mod:`referee.web.app`) and ``referee play``'s tables
(:mod:`referee.web.play`) send the same headers with every response
(:data:`SECURITY_HEADERS`: no sniffing, no referrer, never in a frame), a
page's Content-Security-Policy (:data:`PAGE_CSP`: scripts and styles from the
server only; :data:`REPLAY_CSP` for the self-contained replay page), and
render the same Jinja templates (:func:`templates`), which escape everything
and show a bot's name through :func:`referee.safetext.shown_name`.

>>> page_headers(PAGE_CSP)["X-Frame-Options"]
'DENY'
"""

from __future__ import annotations

from jinja2 import Environment, PackageLoader, select_autoescape

from referee.safetext import shown_name

__all__ = ["PAGE_CSP", "REPLAY_CSP", "SECURITY_HEADERS", "page_headers", "templates"]

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
