"""A team's browser session on the ladder's pages, and the CSRF tokens of its forms.

A team signs in with its token once; the server then sets a session cookie
(HttpOnly, SameSite=Strict, Secure behind TLS) holding the team's name, when
it was issued and a random nonce, signed with an HMAC key that lives only in
the server process (a restart signs every team out). The token itself is
never kept in the browser. Every form that changes something carries a CSRF
token: an HMAC of the session's nonce, checked in constant time, so a page
on another site can neither read it nor forge it; the sign-in form, before
any session, has a pre-session cookie of its own to bind its token to
(login CSRF).

>>> keys = SessionKeys()
>>> cookie = keys.issue("owls")
>>> keys.team_of(cookie)
'owls'
>>> keys.team_of(cookie[:-1] + ("0" if cookie[-1] != "0" else "1")) is None
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable

__all__ = ["COOKIE", "PRE_COOKIE", "SESSION_S", "SessionKeys"]

#: The session cookie's name, and the sign-in form's pre-session cookie.
COOKIE = "ladder_session"
PRE_COOKIE = "ladder_signin"
#: How long a session lasts.
SESSION_S = 12 * 3600


def _same(given: str, expected: str) -> bool:
    """``given == expected`` in constant time, for any text a client sends.

    As bytes: :func:`hmac.compare_digest` raises on ``str`` with non-ASCII
    characters, which a cookie or form field may hold (a 500, not a refusal).
    """
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode())


class SessionKeys:
    """The server's signing key and what it signs: sessions and CSRF tokens."""

    def __init__(self, key: bytes | None = None, *, now: Callable[[], float] = time.time) -> None:
        self._key = key or secrets.token_bytes(32)
        self._now = now

    def _sign(self, purpose: str, text: str) -> str:
        mac = hmac.new(self._key, f"{purpose}\x00{text}".encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")

    def issue(self, team: str) -> str:
        """A new session cookie's value for ``team``."""
        body = f"{team}:{int(self._now())}:{secrets.token_urlsafe(16)}"
        return f"{body}.{self._sign('session', body)}"

    def _body(self, cookie: str | None) -> list[str] | None:
        if not cookie or "." not in cookie or len(cookie) > 512:
            return None
        body, mac = cookie.rsplit(".", 1)
        if not _same(mac, self._sign("session", body)):
            return None
        fields = body.split(":")
        if len(fields) != 3 or not fields[1].isdigit():
            return None
        if self._now() - int(fields[1]) > SESSION_S:
            return None
        return fields

    def team_of(self, cookie: str | None) -> str | None:
        """The team a session cookie is for, or None (forged, damaged or expired)."""
        fields = self._body(cookie)
        return fields[0] if fields else None

    def csrf(self, cookie: str) -> str:
        """The CSRF token of the forms of the session (or pre-session) ``cookie``."""
        return self._sign("csrf", cookie)

    def csrf_ok(self, cookie: str | None, token: str | None) -> bool:
        """True if ``token`` is the CSRF token of ``cookie`` (both present)."""
        if not cookie or not token:
            return False
        return _same(token, self.csrf(cookie))

    @staticmethod
    def pre_session() -> str:
        """A new pre-session cookie's value (the sign-in form's)."""
        return secrets.token_urlsafe(24)
