"""Running the app with uvicorn: in the foreground (``referee serve``) or beside a tournament.

Bound to loopback by default. Another address is allowed with a warning:
whoever can reach it can read every tournament under the folder (results,
game logs, bots' handshake names), though never a key file, and nothing can
be changed through it.
"""

from __future__ import annotations

import errno
import ipaddress
import logging
import pathlib
import socket
import threading
from collections.abc import Callable
from typing import Any

import uvicorn

from referee.web.app import LOOPBACK_HOSTS, create_app

__all__ = [
    "BackgroundServer",
    "ClosingServer",
    "app_config",
    "bind_problem",
    "browser_url",
    "is_loopback",
    "serve",
    "warning_for",
]

log = logging.getLogger(__name__)


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and addresses in 127.0.0.0/8 or ::1."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def browser_url(host: str, port: int, path: str = "/") -> str:
    """The address to open in a browser for a server bound to ``host``:``port``.

    A server bound to every interface (``0.0.0.0``, ``::``, or no host) is shown by
    this machine's name: ``http://0.0.0.0:8000/`` is where it listens, not an
    address another machine's browser can open. IPv6 addresses are bracketed.
    """
    bare = host.strip("[]")
    try:
        wildcard = not bare or ipaddress.ip_address(bare).is_unspecified
    except ValueError:
        wildcard = False
    shown = socket.gethostname() if wildcard else bare
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}{path}"


def warning_for(host: str) -> str | None:
    """What to tell the user before serving on ``host`` (None for loopback)."""
    if is_loopback(host):
        return None
    return (
        f"warning: serving on {host}, not loopback: anyone who can reach this machine can read "
        "every tournament under the folder (results, game logs, bot names); keys are never "
        "served and nothing can be changed, but publish only what you mean to"
    )


class ClosingServer(uvicorn.Server):
    """uvicorn's server, which first tells the app's event streams to end when it stops.

    The app sets ``app.state.closing`` (a :class:`threading.Event`) that its
    streams watch: uvicorn waits for open streams before it exits.
    """

    def handle_exit(self, sig: int, frame: object) -> None:
        self.config.app.state.closing.set()
        super().handle_exit(sig, frame)  # type: ignore[arg-type]


def _config(runs_dir: pathlib.Path, host: str, port: int, *, quiet: bool = False) -> uvicorn.Config:
    app = create_app(runs_dir, allowed_hosts=LOOPBACK_HOSTS if is_loopback(host) else None)
    return app_config(app, host, port, quiet=quiet)


def app_config(app: Any, host: str, port: int, *, quiet: bool = False) -> uvicorn.Config:
    """uvicorn's settings for serving ``app`` on ``host:port`` (``quiet``: warnings only, no access log).

    No proxy headers are trusted and no server header is sent; a stop waits
    two seconds at most for open requests.
    """
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning" if quiet else "info",
        access_log=not quiet,
        lifespan="on",
        timeout_graceful_shutdown=2,
        proxy_headers=False,
        server_header=False,
    )


def bind_problem(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be served (the port in use, an address not of this
    machine), or None; asked before saying "serving on", which uvicorn would
    only contradict afterwards. Port 0 (a free one) always binds."""
    if port == 0:
        return None
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        return f"cannot serve on {host}:{port}: {error.strerror or error}"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as error:
            hint = (
                " (another referee serve or play? choose another --port, or --port 0 for a free one)"
                if error.errno == errno.EADDRINUSE
                else ""
            )
            return f"cannot serve on {host}:{port}: {error.strerror or error}{hint}"
    return None


def serve(runs_dir: pathlib.Path, *, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve ``runs_dir`` until Ctrl-C."""
    ClosingServer(_config(runs_dir, host, port)).run()


class BackgroundServer:
    """The app in a thread of its own, for ``referee tournament --serve``."""

    def __init__(
        self,
        runs_dir: pathlib.Path,
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        self._server = ClosingServer(_config(runs_dir, host, port, quiet=True))
        # uvicorn leaves the signals alone outside the main thread: Ctrl-C stays the runner's.
        self._thread = threading.Thread(target=self._run, name="serve", daemon=True)
        self._on_error = on_error
        self.host, self.port = host, port

    def _run(self) -> None:
        try:
            self._server.run()
        except (OSError, SystemExit) as error:
            # uvicorn exits with code 3 when it cannot start; it has logged why.
            why = "the server did not start" if isinstance(error, SystemExit) else str(error)
            if self._on_error:
                self._on_error(f"cannot serve on {self.host}:{self.port}: {why}")

    @property
    def url(self) -> str:
        return browser_url(self.host, self.port)

    def start(self, timeout: float = 10.0) -> bool:
        """Start serving; True once the server listens."""
        self._thread.start()
        ready = threading.Event()

        def wait() -> None:
            while self._thread.is_alive() and not self._server.started:
                ready.wait(0.05)
            ready.set()

        wait_thread = threading.Thread(target=wait, daemon=True)
        wait_thread.start()
        ready.wait(timeout)
        if self._server.started and self.port == 0:
            self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return bool(self._server.started)

    def stop(self) -> None:
        self._server.config.app.state.closing.set()
        self._server.should_exit = True
        self._thread.join(timeout=5)
