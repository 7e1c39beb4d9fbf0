"""A build step that tries to reach the referee's machine (standard library only).

Fair play III, hole 5: run as a bot's ``build`` (``python3 build_net.py``), it
reads ``net.json`` beside it, which names the listeners the test started on
the host, and tries each way a build could reach them:

- ``direct-*``: a plain TCP connection to ``127.0.0.1:PORT`` or to a local
  address of the host, and a connection to an abstract Unix socket (those
  belong to a network namespace, like loopback ports);
- ``proxy-*``: through the build's proxy (``HTTPS_PROXY``): ``CONNECT`` to the
  loopback address, to ``localhost`` (a name on the test's allow-list that
  resolves to loopback) and to the local address, and a plain ``GET
  http://localhost:PORT/``.

A listener answers every connection with the test's token; a part SUCCEEDED
only if that token came back. Each part prints one line,
``ATTACK build-net PART: SUCCEEDED|FAILED: detail``, which the test reads from
the build log. The ``registry`` part fetches a package index through the
proxy (``REACHED`` or ``UNREACHED``): the build network still does its job.
The build exits 0 whatever happened, so the bot plays.
"""

from __future__ import annotations

import json
import os
import pathlib
import socket
import sys
import urllib.parse
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
CONFIG = json.loads((HERE / "net.json").read_text())
TOKEN = CONFIG["token"].encode()
TIMEOUT_S = 10.0


def report(part: str, succeeded: bool, detail: str) -> None:
    verdict = "SUCCEEDED" if succeeded else "FAILED"
    print(f"ATTACK build-net {part}: {verdict}: {detail}"[:500], flush=True)


def heard_token(sock: socket.socket) -> bool:
    """True if the listener at the other end sent the test's token."""
    sock.settimeout(TIMEOUT_S)
    data = b""
    try:
        while TOKEN not in data and len(data) < 4096:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return TOKEN in data


def direct(part: str, host: str, port: int) -> None:
    try:
        with socket.create_connection((host, port), timeout=TIMEOUT_S) as sock:
            report(part, heard_token(sock), f"connected to {host}:{port}")
    except OSError as error:
        report(part, False, f"{host}:{port}: {error}")


def abstract(part: str, name: str) -> None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect("\0" + name)
        report(part, heard_token(sock), f"connected to the abstract socket {name}")
    except OSError as error:
        report(part, False, f"abstract socket {name}: {error}")
    finally:
        sock.close()


def proxy_address() -> tuple[str, int] | None:
    url = os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy")
    if not url:
        return None
    parsed = urllib.parse.urlsplit(url)
    return parsed.hostname or "127.0.0.1", parsed.port or 80


def through_proxy(part: str, request: str) -> None:
    """Send ``request`` (a CONNECT or a proxied GET) to the proxy; did the listener answer?"""
    proxy = proxy_address()
    if proxy is None:
        report(part, False, "no proxy in the environment (not sandboxed?)")
        return
    try:
        with socket.create_connection(proxy, timeout=TIMEOUT_S) as sock:
            sock.sendall(request.encode())
            sock.settimeout(TIMEOUT_S)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                data += chunk
            status = data.split(b"\r\n", 1)[0].decode(errors="replace")
            reached = TOKEN in data or (status.split(" ")[1:2] == ["200"] and heard_token(sock))
            report(part, reached, f"{request.splitlines()[0]!r}: the proxy said {status!r}")
    except OSError as error:
        report(part, False, f"{request.splitlines()[0]!r}: {error}")


def registry(url: str) -> None:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            size = len(response.read())
        print(f"ATTACK build-net registry: REACHED: {url} ({size} bytes)", flush=True)
    except Exception as error:  # any failure is the answer
        print(f"ATTACK build-net registry: UNREACHED: {url}: {error}", flush=True)


def main() -> int:
    port = CONFIG["loopback_port"]
    direct("direct-loopback", "127.0.0.1", port)
    through_proxy("proxy-connect-loopback", f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n")
    through_proxy("proxy-connect-localhost", f"CONNECT localhost:{port} HTTP/1.1\r\n\r\n")
    web = CONFIG.get("loopback_web_port")
    if web:
        direct("direct-loopback-web", "127.0.0.1", web)
        for host in ("127.0.0.1", "localhost"):
            through_proxy(f"proxy-connect-{host}-web", f"CONNECT {host}:{web} HTTP/1.1\r\n\r\n")
        through_proxy(
            "proxy-get-localhost-web",
            f"GET http://localhost:{web}/ HTTP/1.1\r\nHost: localhost:{web}\r\n\r\n",
        )
    local = CONFIG.get("local_address")
    if local:
        direct("direct-local", local, CONFIG["local_port"])
        through_proxy(
            "proxy-connect-local", f"CONNECT {local}:{CONFIG['local_port']} HTTP/1.1\r\n\r\n"
        )
    abstract("direct-abstract", CONFIG["abstract_name"])
    if CONFIG.get("registry"):
        registry(CONFIG["registry"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
