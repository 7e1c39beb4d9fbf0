"""The build network: a build reaches the package registries, and nothing else.

A sandboxed build runs in a network namespace of its own (bwrap
``--unshare-net``), whose only interface is its own loopback. Its one way
out is a Unix socket that :class:`BuildProxy` serves in the referee, for that
build, while it runs. Inside the sandbox a small bridge
(``buildnet_bridge.py``) listens on ``127.0.0.1:`` :data:`BRIDGE_PORT` and
forwards every connection to that socket, and the build's environment names
``http://127.0.0.1:PORT`` as its proxy (:func:`proxy_env`).

The proxy speaks HTTP ``CONNECT`` (what every package manager uses for
``https://``) and plain HTTP forwarding (``GET http://host/...``). It lets a
request through only when (:func:`decide`):

- the port is 443 or 80;
- the host is a name on the allow-list (``build.registries``; exact names, or
  ``*.example.org`` for every name under ``example.org``); an IP address only
  if the allow-list names it;
- the name resolves (the proxy resolves it itself, and connects to the
  address it checked) to at least one address outside this host and its local
  networks (:data:`INSIDE`): never loopback, private, link-local, shared
  (CGNAT), multicast, reserved or unspecified, nor an IPv6 address that embeds
  one (IPv4-mapped, 6to4, NAT64, Teredo), nor any address of this machine's
  own interfaces (:func:`is_this_host`).

Every refusal is written to the build's log (so its author sees why), and
the build's tool gets ``403 Forbidden`` with the same reason. Where the
referee's machine itself reaches the internet through a proxy (its
``https_proxy``, :class:`HostProxy`), the allowed connections go through that
one; the build never sees it.

Standard library only, threads: it needs nothing but the pip install and no root.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import dataclasses
import errno
import ipaddress
import os
import pathlib
import re
import socket
import tempfile
import threading
import urllib.parse
from collections.abc import Callable, Iterable, Mapping, Sequence

__all__ = [
    "BRIDGE_PORT",
    "DEFAULT_REGISTRIES",
    "PORTS",
    "AllowList",
    "BuildProxy",
    "HostProxy",
    "Refused",
    "decide",
    "host_problem",
    "is_outside",
    "is_this_host",
    "proxy_env",
]

#: The hosts a build reaches by default: the registries of the starter kits' tools.
DEFAULT_REGISTRIES: tuple[str, ...] = (
    # PyPI (pip, uv)
    "pypi.org",
    "files.pythonhosted.org",
    # crates.io (cargo's sparse index, the API and the downloads)
    "crates.io",
    "index.crates.io",
    "static.crates.io",
    # the Go module proxy and checksum database; toolchain downloads go there too
    "proxy.golang.org",
    "sum.golang.org",
    "storage.googleapis.com",
    # npm
    "registry.npmjs.org",
    # Maven Central
    "repo.maven.apache.org",
    "repo1.maven.org",
)

#: The ports a build may connect to (HTTPS and HTTP).
PORTS: frozenset[int] = frozenset({443, 80})

#: The port the bridge listens on inside a build's own network namespace (always free there).
BRIDGE_PORT = 3128

#: How long the proxy waits for a request's head, and for a silent connection.
HEAD_TIMEOUT_S = 30.0
IDLE_TIMEOUT_S = 300.0
#: How long it waits for a registry to accept a connection.
CONNECT_TIMEOUT_S = 30.0
#: Connections one build may hold open at once (each costs the referee two threads).
MAX_CONNECTIONS = 64
#: The longest request head the proxy reads.
MAX_HEAD_BYTES = 64 * 1024
#: Refusals written to one build's log; later ones are counted in the summary only.
MAX_LOGGED_REFUSALS = 50

#: ``resolve(host, port)``: the host's addresses, as strings (raises OSError when it cannot).
Resolver = Callable[[str, int], Sequence[str]]
#: ``connect((address, port), timeout_s)``: a connected socket (:func:`socket.create_connection`).
Connector = Callable[[tuple[str, int], float], socket.socket]

_LABEL = r"(?!-)[a-z0-9-]{1,63}(?<!-)"
_HOST_NAME = re.compile(rf"^(\*\.)?{_LABEL}(\.{_LABEL})*$")
# 64:ff9b::/96 (RFC 6052): an IPv4 address behind NAT64.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")

#: Addresses a build never reaches: this host (loopback, "this network", which
#: Linux connects to loopback), its local networks (private, shared/CGNAT, link-local
#: with the clouds' metadata services, unique and site local), and what is no single
#: host's (multicast, broadcast, reserved). Not refused: the documentation ranges
#: (192.0.2.0/24, ...), which the internet does not route and which some sandboxed
#: networks use for their way out to the registries (the machine this referee is
#: tested on resolves pypi.org to 203.0.113.80).
INSIDE: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = tuple(
    ipaddress.ip_network(net)
    for net in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "::/127",
        "100::/64",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
        "ff00::/8",
    )
)


class Refused(Exception):
    """A request the build network does not let through; the message says why."""


def _normal(host: str) -> str:
    """A host as written in a request or an allow-list, compared: lower case, no brackets or final dot."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host.rstrip(".")


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def host_problem(entry: object) -> str:
    """'' if ``entry`` can be on the allow-list, else what is wrong with it (for config errors)."""
    if not isinstance(entry, str):
        return f"expected a host name, got {type(entry).__name__}"
    host = _normal(entry)
    if _ip(host) is not None:
        return (
            "" if is_outside(host) else f"{entry!r} is an address of this host or a local network"
        )
    if ":" in host or "/" in host:
        return f"expected a host name without a scheme, port or path, got {entry!r}"
    if len(host) > 253 or not _HOST_NAME.match(host):
        return f"{entry!r} is not a host name (letters, digits, '-' and '.', or '*.' first)"
    return ""


def is_outside(address: str) -> bool:
    """True unless ``address`` leads to this host or its local networks (:data:`INSIDE`).

    An IPv6 address that embeds an IPv4 one (IPv4-mapped, 6to4, NAT64,
    Teredo) is judged by that one too.
    """
    ip = _ip(address)
    if ip is None:
        return False
    if any(ip in net for net in INSIDE if net.version == ip.version):
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        embedded: list[ipaddress.IPv4Address] = []
        if ip.ipv4_mapped is not None:
            embedded.append(ip.ipv4_mapped)
        if ip.sixtofour is not None:
            embedded.append(ip.sixtofour)
        if ip.teredo is not None:
            embedded += list(ip.teredo)
        if ip in _NAT64:
            embedded.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        return all(is_outside(str(v4)) for v4 in embedded)
    return True


def is_this_host(address: str) -> bool:
    """True if ``address`` is one of this machine's own (a socket can be bound to it).

    A service listening on every interface answers on the machine's public
    address too; an address no interface has cannot be bound
    (``EADDRNOTAVAIL``). Where the kernel lets anything be bound
    (``net.ipv4.ip_nonlocal_bind``), every address looks like this host's and
    the build network refuses everything: it fails closed.
    """
    ip = _ip(address)
    if ip is None:
        return False
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((str(ip), 0))
    except OSError as error:
        return error.errno != errno.EADDRNOTAVAIL
    return True


@dataclasses.dataclass(frozen=True, slots=True)
class AllowList:
    """The hosts a build may reach: exact names, and ``*.domain`` for names under a domain."""

    names: frozenset[str]
    #: Domains from ``*.domain`` entries (without the ``*.``).
    domains: frozenset[str] = frozenset()

    @classmethod
    def of(cls, entries: Iterable[str]) -> AllowList:
        """The allow-list of ``entries`` (checked with :func:`host_problem`)."""
        names: set[str] = set()
        domains: set[str] = set()
        for entry in entries:
            problem = host_problem(entry)
            if problem:
                raise ValueError(problem)
            host = _normal(entry)
            if host.startswith("*."):
                domains.add(host[2:])
            else:
                names.add(host)
        return cls(frozenset(names), frozenset(domains))

    def allows(self, host: str) -> bool:
        host = _normal(host)
        if host in self.names:
            return True
        return _ip(host) is None and any(host.endswith("." + d) for d in self.domains)


def system_resolver(host: str, port: int) -> list[str]:
    """The host's addresses from the system's resolver, in its order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    out: list[str] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        if sockaddr[0] not in out:
            out.append(str(sockaddr[0]))
    return out


def decide(
    host: str,
    port: int,
    allow: AllowList,
    resolve: Resolver = system_resolver,
    this_host: Callable[[str], bool] = is_this_host,
    *,
    must_resolve: bool = True,
) -> list[str]:
    """The addresses a build's request for ``host:port`` may connect to, or :class:`Refused`.

    Only addresses outside this host and its networks are returned, in the
    resolver's order; the caller connects to them and to nothing else (no
    second lookup), so a name cannot change its answer between the check and
    the connection. With ``must_resolve=False`` (the machine's own proxy will
    resolve it), a name that does not resolve here gives ``[]`` rather than a
    refusal; one that does is checked all the same.
    """
    host = _normal(host)
    if port not in PORTS:
        raise Refused(f"port {port} is not allowed (builds reach ports 443 and 80 only)")
    if not host:
        raise Refused("no host given")
    if not allow.allows(host):
        if _ip(host) is not None:
            raise Refused(
                f"{host} is an IP address; builds reach registries by their names "
                "on the allow-list (build.registries)"
            )
        raise Refused(f"{host} is not on the build network's allow-list (build.registries)")
    if _ip(host) is not None:
        addresses = [host]
    else:
        try:
            addresses = list(resolve(host, port))
        except (OSError, UnicodeError) as error:
            if not must_resolve:
                return []
            raise Refused(f"cannot resolve {host}: {error}") from None
    outside = [a for a in addresses if is_outside(a) and not this_host(a)]
    if not outside:
        shown = ", ".join(addresses[:4]) or "no address"
        raise Refused(
            f"{host} resolves to {shown}: builds never reach this machine's own "
            "addresses, loopback, or private, link-local or other local ones"
        )
    return outside


@dataclasses.dataclass(frozen=True, slots=True)
class HostProxy:
    """The proxy this machine reaches the internet through (the referee's ``https_proxy``).

    Where the organiser's machine has one, the build network's allowed
    connections go through it (``CONNECT``), as the referee's other traffic
    does; the build itself never sees it or its password.
    """

    host: str
    port: int
    #: The ``Proxy-Authorization`` value, from the URL's user and password ('' without).
    authorization: str = ""
    #: ``no_proxy``'s entries: hosts (and domains) reached directly.
    bypass: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> HostProxy | None:
        """The proxy of ``env`` (the referee's environment): ``https_proxy``, then ``HTTPS_PROXY``.

        Only an ``http://`` proxy (the usual kind) is used; None without one.
        """
        env = os.environ if env is None else env
        url = env.get("https_proxy") or env.get("HTTPS_PROXY") or ""
        if not url.strip():
            return None
        parsed = urllib.parse.urlsplit(url.strip() if "://" in url else f"http://{url.strip()}")
        if parsed.scheme != "http" or not parsed.hostname:
            return None
        try:
            port = parsed.port or 80
        except ValueError:
            return None
        authorization = ""
        if parsed.username is not None:
            user = urllib.parse.unquote(parsed.username)
            password = urllib.parse.unquote(parsed.password or "")
            token = base64.b64encode(f"{user}:{password}".encode()).decode()
            authorization = f"Basic {token}"
        bypass = env.get("no_proxy") or env.get("NO_PROXY") or ""
        entries = tuple(_normal(e).lstrip("*").lstrip(".") for e in bypass.split(",") if e.strip())
        return cls(parsed.hostname, port, authorization, entries)

    def bypasses(self, host: str) -> bool:
        """True if ``no_proxy`` says ``host`` is reached directly."""
        host = _normal(host)
        return any(e == "" or host == e or host.endswith("." + e) for e in self.bypass)


def proxy_env(port: int = BRIDGE_PORT) -> dict[str, str]:
    """The environment that sends a build's tools through the bridge on ``127.0.0.1:port``.

    pip, npm, cargo, Go and curl read the proxy variables; Java reads only its
    system properties, so ``MAVEN_OPTS`` carries them (Maven 3 honours them).
    """
    url = f"http://127.0.0.1:{port}"
    java = (
        f"-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort={port} "
        f"-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort={port} "
        "-Dhttp.nonProxyHosts=localhost|127.0.0.1"
    )
    env = {name: url for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY")}
    env.update({name.lower(): url for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY")})
    env["NO_PROXY"] = env["no_proxy"] = "localhost,127.0.0.1,::1"
    env["npm_config_proxy"] = env["npm_config_https_proxy"] = url
    env["MAVEN_OPTS"] = java
    return env


# The proxy ---------------------------------------------------------------------------------


class _Reply(Exception):
    """Answer the build's tool with ``status`` and this message, then close."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


class BuildProxy:
    """One build's way out: an allow-list proxy on a Unix socket, served by threads.

    ``with BuildProxy(allow, path, log) as proxy:`` listens on ``path`` (its
    folder is bind-mounted into the build's sandbox) until the block ends;
    ``log(line)`` gets one line per refusal (the build's log) and a summary
    at the end. ``resolve`` is the name resolver and ``connect`` makes the
    connection to a checked address (tests give fake ones).
    """

    def __init__(
        self,
        allow: AllowList,
        path: str | os.PathLike[str],
        log: Callable[[str], None],
        *,
        resolve: Resolver = system_resolver,
        connect: Connector = socket.create_connection,
        this_host: Callable[[str], bool] = is_this_host,
        host_proxy: HostProxy | None = None,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
    ) -> None:
        self.allow = allow
        self.path = pathlib.Path(path)
        self.log = log
        self.resolve = resolve
        self.connect = connect
        self.this_host = this_host
        self.host_proxy = host_proxy
        self.connect_timeout_s = connect_timeout_s
        #: "host:port" -> how many connections were let through, and how many refused.
        self.passed: collections.Counter[str] = collections.Counter()
        self.refused: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()
        self._own_folder = False
        self._log_lock = threading.Lock()
        self._muted = False

    @classmethod
    def in_new_folder(
        cls, allow: AllowList, base: str | os.PathLike[str], log: Callable[[str], None]
    ) -> BuildProxy:
        """A proxy whose socket lies in a fresh folder under ``base``, removed when it closes.

        The folder is what the build's sandbox binds, so it holds nothing else.
        It goes out through this machine's own proxy if the referee has one
        (:meth:`HostProxy.from_env`).
        """
        folder = tempfile.mkdtemp(prefix="bn-", dir=base)
        proxy = cls(
            allow, pathlib.Path(folder) / "proxy.sock", log, host_proxy=HostProxy.from_env()
        )
        proxy._own_folder = True
        return proxy

    def __enter__(self) -> BuildProxy:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        listener.bind(str(self.path))
        listener.listen(64)
        self._listener = listener
        self._thread = threading.Thread(target=self._accept, name="build-proxy", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop listening, cut every open connection, and write the summary to the log."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
        with self._lock:
            for conn in list(self._open):
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(5)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        if self._own_folder:
            with contextlib.suppress(OSError):
                self.path.parent.rmdir()
        with self._log_lock:
            self.log(self.summary())
            # A connection still being made when the build ended logs nothing more: the log's
            # file is closed after this (and its descriptor may be another file's by then).
            self._muted = True

    def _emit(self, line: str) -> None:
        with self._log_lock:
            if not self._muted:
                self.log(line)

    def summary(self) -> str:
        """One line: what the build reached, and what it was refused."""

        def counts(counter: collections.Counter[str]) -> str:
            return ", ".join(f"{k} ({n})" for k, n in sorted(counter.items())) or "nothing"

        return (
            f"build network: reached {counts(self.passed)}; "
            f"refused {sum(self.refused.values())} request(s)"
            + (f": {counts(self.refused)}" if self.refused else "")
        )

    # Serving ----------------------------------------------------------------------------

    def _accept(self) -> None:
        assert self._listener is not None
        while not self._closed.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                full = len(self._open) >= MAX_CONNECTIONS * 2
                if not full:
                    self._open.add(conn)
            if full:
                self._refuse_quietly(conn)
                continue
            threading.Thread(
                target=self._serve, args=(conn,), name="build-proxy-connection", daemon=True
            ).start()

    def _refuse_quietly(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError):
            conn.sendall(_response("503 Service Unavailable", "too many open connections"))
        conn.close()
        self._note_refusal("(too many connections)", "too many open connections")

    def _track(self, sock: socket.socket, add: bool) -> None:
        with self._lock:
            if add:
                self._open.add(sock)
            else:
                self._open.discard(sock)

    def _serve(self, conn: socket.socket) -> None:
        upstream: socket.socket | None = None
        try:
            conn.settimeout(HEAD_TIMEOUT_S)
            head, rest = _read_head(conn)
            method, target, version, headers = _parse_head(head)
            if method == "CONNECT":
                host, port = _split_host_port(target, None)
                upstream, _ = self._connect(host, port, f"CONNECT {target}", tunnel=True)
                conn.sendall(f"{version} 200 Connection established\r\n\r\n".encode())
                if rest:
                    upstream.sendall(rest)
            else:
                host, port, path = _absolute_url(target)
                upstream, via = self._connect(host, port, f"{method} {target}", tunnel=False)
                extra: list[tuple[str, str]] = []
                if via is not None:  # the machine's proxy takes the absolute form
                    path = f"http://{_authority(host, port)}{path}"
                    if via.authorization:
                        extra.append(("Proxy-Authorization", via.authorization))
                upstream.sendall(_forwarded_head(method, path, version, headers, extra) + rest)
            self._pipe(conn, upstream)
        except _Reply as reply:
            with contextlib.suppress(OSError):
                conn.sendall(_response(reply.status, str(reply)))
        except OSError:
            pass
        finally:
            for sock in (conn, upstream):
                if sock is not None:
                    self._track(sock, False)
                    sock.close()

    def _connect(
        self, host: str, port: int, request: str, *, tunnel: bool
    ) -> tuple[socket.socket, HostProxy | None]:
        """A connection to an allowed ``host:port``, and the machine's proxy if it goes through it.

        Through the machine's proxy, a ``tunnel`` is already open (its
        ``CONNECT`` answered 200); a plain request is then sent to it whole.
        """
        where = f"{_normal(host)}:{port}"
        via = self.host_proxy
        if via is not None and via.bypasses(host):
            via = None
        try:
            addresses = decide(
                host, port, self.allow, self.resolve, self.this_host, must_resolve=via is None
            )
        except Refused as refusal:
            self._note_refusal(where, f"refused {request[:200]!r}: {refusal}")
            raise _Reply("403 Forbidden", f"the build network refused {where}: {refusal}") from None
        if via is not None:
            return self._through_host_proxy(via, host, port, where, tunnel=tunnel), via
        failure: OSError | None = None
        for address in addresses:
            try:
                sock = self.connect((address, port), self.connect_timeout_s)
            except OSError as error:
                failure = error
                continue
            sock.settimeout(IDLE_TIMEOUT_S)
            self._track(sock, True)
            with self._lock:
                self.passed[where] += 1
            return sock, None
        self._emit(f"build network: cannot connect to {where}: {failure}")
        raise _Reply("502 Bad Gateway", f"cannot connect to {where}: {failure}")

    def _through_host_proxy(
        self, via: HostProxy, host: str, port: int, where: str, *, tunnel: bool
    ) -> socket.socket:
        try:
            sock = self.connect((via.host, via.port), self.connect_timeout_s)
        except OSError as error:
            self._emit(f"build network: cannot reach this machine's proxy for {where}: {error}")
            raise _Reply("502 Bad Gateway", f"cannot reach the proxy: {error}") from None
        self._track(sock, True)
        if tunnel:
            lines = [
                f"CONNECT {_authority(host, port)} HTTP/1.1",
                f"Host: {_authority(host, port)}",
            ]
            if via.authorization:
                lines.append(f"Proxy-Authorization: {via.authorization}")
            try:
                sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
                head, rest = _read_head(sock)
            except (OSError, _Reply) as error:
                self._emit(f"build network: this machine's proxy failed for {where}: {error}")
                raise _Reply("502 Bad Gateway", f"the proxy failed: {error}") from None
            status = head.split(b"\r\n", 1)[0].decode("latin-1")
            if status.split(" ")[1:2] != ["200"] or rest:
                self._emit(
                    f"build network: this machine's proxy answered {status[:100]!r} for {where}"
                )
                raise _Reply("502 Bad Gateway", f"the proxy answered {status[:100]!r}")
        sock.settimeout(IDLE_TIMEOUT_S)
        with self._lock:
            self.passed[where] += 1
        return sock

    def _note_refusal(self, where: str, line: str) -> None:
        with self._lock:
            self.refused[where] += 1
            logged = sum(self.refused.values()) <= MAX_LOGGED_REFUSALS
        if logged:
            self._emit(f"build network: {line}")

    def _pipe(self, client: socket.socket, upstream: socket.socket) -> None:
        """Copy both ways until both sides have finished (each half-close passed on)."""
        client.settimeout(IDLE_TIMEOUT_S)
        other = threading.Thread(target=_copy, args=(upstream, client), daemon=True)
        other.start()
        _copy(client, upstream)
        other.join()


def _copy(source: socket.socket, sink: socket.socket) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


# HTTP, just enough -----------------------------------------------------------------------


def _read_head(conn: socket.socket) -> tuple[bytes, bytes]:
    """The request head (up to the blank line) and whatever came after it."""
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > MAX_HEAD_BYTES:
            raise _Reply("431 Request Header Fields Too Large", "the request head is too long")
        chunk = conn.recv(65536)
        if not chunk:
            raise OSError("closed before the request head ended")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _parse_head(head: bytes) -> tuple[str, str, str, list[tuple[str, str]]]:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise _Reply("400 Bad Request", f"not an HTTP/1 request line: {lines[0][:100]!r}")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            raise _Reply("400 Bad Request", f"not a header line: {line[:100]!r}")
        headers.append((name.strip(), value.strip()))
    return parts[0].upper(), parts[1], parts[2], headers


def _split_host_port(authority: str, default: int | None) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` too); the default port if there is none and one is given."""
    if authority.startswith("["):
        host, _, after = authority[1:].partition("]")
        port_text = after[1:] if after.startswith(":") else ""
    elif authority.count(":") == 1:
        host, _, port_text = authority.partition(":")
    else:
        host, port_text = authority, ""
    if not port_text:
        if default is None:
            raise _Reply("400 Bad Request", f"no port in {authority[:100]!r}")
        return host, default
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise _Reply("400 Bad Request", f"not a port: {port_text[:20]!r}")
    return host, int(port_text)


def _authority(host: str, port: int) -> str:
    host = _normal(host)
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _absolute_url(target: str) -> tuple[str, int, str]:
    """Host, port and path of a proxied ``http://`` request's target."""
    if not target.lower().startswith("http://"):
        raise _Reply(
            "400 Bad Request",
            f"expected CONNECT or an http:// URL, got {target[:100]!r}",
        )
    rest = target[len("http://") :]
    authority, slash, path = rest.partition("/")
    authority = authority.rpartition("@")[2]
    host, port = _split_host_port(authority, 80)
    return host, port, "/" + path if slash else "/"


# Hop-by-hop headers of RFC 9110 and the proxy's own: never passed on to a registry.
_HOP_HEADERS = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authorization",
        "proxy-authenticate",
        "proxy-connection",
        "te",
        "trailer",
        "upgrade",
    }
)


def _forwarded_head(
    method: str,
    path: str,
    version: str,
    headers: list[tuple[str, str]],
    extra: Sequence[tuple[str, str]] = (),
) -> bytes:
    """The request as it is passed on: one request, then the connection closes.

    The build's hop-by-hop and proxy headers are dropped; ``extra`` (the
    machine's proxy's credentials) is added after.
    """
    kept = [(n, v) for n, v in headers if n.lower() not in _HOP_HEADERS] + list(extra)
    lines = [f"{method} {path} {version}", *(f"{n}: {v}" for n, v in kept), "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _response(status: str, message: str) -> bytes:
    body = (message + "\n").encode()
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
