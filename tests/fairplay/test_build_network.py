"""Fair play III, hole 5: a build reaches the package registries and nothing else.

Two parts:

- the proxy's decisions (:func:`referee.sandbox.buildnet.decide`) and its serving
  (:class:`referee.sandbox.buildnet.BuildProxy`), with a fake resolver and a fake
  connector, so no test depends on what a name resolves to here;
- the attack, in a real tournament: the test starts listeners on the host
  (loopback, on an ephemeral port and on 443 or 80 when it may bind one; a
  local non-loopback address; an abstract Unix socket), and a bot whose build
  (``attacks/build_net.py``) tries each of them directly and through its proxy.
  Sandboxed, no listener sees a connection, the build log says why each
  request was refused, the build still reaches the registry, and the honest
  bots play without a fault. Without the sandbox the same build reaches the
  loopback listener: the test can see the attack work.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import pathlib
import re
import secrets
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator

import pytest

from referee.sandbox import buildnet
from referee.sandbox.buildnet import AllowList, BuildProxy, Refused, decide
from referee.tournament.config import ConfigError, load_config
from tests.helpers import require_sandbox

ROOT = pathlib.Path(__file__).resolve().parents[2]
ATTACK = pathlib.Path(__file__).resolve().parent / "attacks" / "build_net.py"
HEURISTIC = ROOT / "sample_bots" / "python" / "heuristic"
REGISTRY_URL = "https://pypi.org/simple/pip/"

ALLOW = AllowList.of([*buildnet.DEFAULT_REGISTRIES, "*.example.org", "151.101.0.223"])


def resolver(table: dict[str, list[str]]) -> buildnet.Resolver:
    """A fake resolver: names from ``table``, anything else unknown."""

    def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return table[host]

    return resolve


PUBLIC = resolver(
    {
        "pypi.org": ["151.101.0.223", "2a04:4e42::223"],
        "files.pythonhosted.org": ["151.101.1.63"],
        "mirror.example.org": ["203.0.113.7"],
    }
)


# Decisions ---------------------------------------------------------------------------------


def test_a_registry_on_the_allow_list_gets_its_addresses() -> None:
    assert decide("pypi.org", 443, ALLOW, PUBLIC) == ["151.101.0.223", "2a04:4e42::223"]
    assert decide("files.pythonhosted.org", 80, ALLOW, PUBLIC) == ["151.101.1.63"]


def test_a_name_off_the_allow_list_is_refused_before_it_is_resolved() -> None:
    asked: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return ["151.101.0.223"]

    for host in ("evil.test", "localhost", "pypi.org.evil.test", "example.org", "xpypi.org"):
        with pytest.raises(
            Refused, match=r"not on the build network's allow-list \(build\.registries\)"
        ):
            decide(host, 443, ALLOW, resolve)
    assert asked == []


def test_ip_literals_are_refused_unless_the_allow_list_names_them() -> None:
    for host in ("127.0.0.1", "10.0.0.1", "8.8.8.8", "[::1]", "::1", "2a04:4e42::223"):
        with pytest.raises(Refused, match="is an IP address"):
            decide(host, 443, ALLOW, PUBLIC)
    assert decide("151.101.0.223", 443, ALLOW, PUBLIC) == ["151.101.0.223"]


@pytest.mark.parametrize("port", [0, 22, 53, 2375, 3128, 6379, 8080, 8265, 10001, 65535])
def test_only_ports_443_and_80_are_reached(port: int) -> None:
    with pytest.raises(Refused, match=f"port {port} is not allowed"):
        decide("pypi.org", port, ALLOW, PUBLIC)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",  # loopback: Ray's dashboard, referee serve
        "127.1.2.3",
        "0.0.0.0",  # "this host": Linux connects it to loopback
        "10.1.2.3",  # private
        "172.16.0.9",
        "192.168.1.1",
        "100.64.0.1",  # shared (CGNAT, overlay VPNs)
        "169.254.169.254",  # link-local: the clouds' metadata service
        "192.0.0.8",
        "198.18.0.1",
        "224.0.0.1",  # multicast
        "255.255.255.255",  # broadcast
        "240.0.0.1",  # reserved
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "fd12:3456::1",
        "fec0::1",
        "ff02::1",
        "::ffff:127.0.0.1",  # IPv4-mapped
        "::ffff:10.0.0.1",
        "2002:7f00:1::1",  # 6to4 of 127.0.0.1
        "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
        "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo with a private client (127.0.0.1)
    ],
)
def test_a_listed_name_that_resolves_inside_is_refused(address: str) -> None:
    resolve = resolver({"mirror.example.org": [address]})
    with pytest.raises(
        Refused, match="never reach this machine's own addresses, loopback, or private"
    ):
        decide("mirror.example.org", 443, ALLOW, resolve)
    assert not buildnet.is_outside(address)


def test_an_address_of_this_machine_is_refused() -> None:
    # A service listening on every interface answers on the machine's public address too.
    resolve = resolver({"mirror.example.org": ["151.101.0.9", "151.101.0.10"]})
    mine = {"151.101.0.9"}
    assert decide("mirror.example.org", 443, ALLOW, resolve, mine.__contains__) == ["151.101.0.10"]
    mine.add("151.101.0.10")
    with pytest.raises(Refused, match="never reach this machine's own addresses"):
        decide("mirror.example.org", 443, ALLOW, resolve, mine.__contains__)


def test_this_machine_is_told_by_its_interfaces() -> None:
    assert buildnet.is_this_host("127.0.0.1")
    assert not buildnet.is_this_host("151.101.0.223")  # Fastly's (PyPI), no interface of ours
    address = local_address()
    if address is not None:
        assert buildnet.is_this_host(address), address


def test_of_a_mixed_answer_only_the_outside_addresses_are_kept() -> None:
    resolve = resolver({"mirror.example.org": ["127.0.0.1", "151.101.0.223", "10.0.0.1"]})
    assert decide("mirror.example.org", 443, ALLOW, resolve) == ["151.101.0.223"]


def test_addresses_outside_this_host_are_reached() -> None:
    # Global addresses, and documentation ranges (this machine's registries sit behind one).
    for address in (
        "151.101.0.223",
        "8.8.8.8",
        "2a04:4e42::223",
        "203.0.113.80",
        "64:ff9b::808:808",
    ):
        assert buildnet.is_outside(address), address


def test_a_wildcard_matches_names_under_its_domain_only() -> None:
    resolve = resolver({"a.example.org": ["151.101.0.1"], "b.c.example.org": ["151.101.0.2"]})
    assert decide("a.example.org", 443, ALLOW, resolve) == ["151.101.0.1"]
    assert decide("B.C.Example.Org.", 443, ALLOW, resolve) == ["151.101.0.2"]
    for host in ("example.org", "evilexample.org", "example.org.evil.test"):
        with pytest.raises(Refused):
            decide(host, 443, ALLOW, resolve)


def test_names_compare_without_case_or_a_final_dot() -> None:
    assert decide("PyPI.org.", 443, ALLOW, PUBLIC) == ["151.101.0.223", "2a04:4e42::223"]


def test_a_name_that_does_not_resolve_is_refused() -> None:
    with pytest.raises(Refused, match=r"cannot resolve repo\.maven\.apache\.org"):
        decide("repo.maven.apache.org", 443, ALLOW, PUBLIC)


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("https://pypi.org", "without a scheme"),
        ("pypi.org:443", "without a scheme, port or path"),
        ("pypi.org/simple", "without a scheme, port or path"),
        ("", "is not a host name"),
        ("a..b", "is not a host name"),
        ("-a.org", "is not a host name"),
        ("a.*.org", "is not a host name"),
        ("127.0.0.1", "an address of this host or a local network"),
        ("::1", "an address of this host or a local network"),
        (443, "expected a host name, got int"),
    ],
)
def test_allow_list_entries_are_checked(entry: object, problem: str) -> None:
    assert problem in buildnet.host_problem(entry)
    with pytest.raises(ValueError):
        AllowList.of([entry])  # type: ignore[list-item]


def test_the_defaults_cover_every_kit_registry() -> None:
    for host in ("pypi.org", "files.pythonhosted.org", "index.crates.io", "static.crates.io"):
        assert host in buildnet.DEFAULT_REGISTRIES
    for host in (
        "proxy.golang.org",
        "sum.golang.org",
        "registry.npmjs.org",
        "repo.maven.apache.org",
    ):
        assert host in buildnet.DEFAULT_REGISTRIES
    assert all(buildnet.host_problem(h) == "" for h in buildnet.DEFAULT_REGISTRIES)


# The config key ------------------------------------------------------------------------------


def _config(folder: pathlib.Path, build: str) -> pathlib.Path:
    path = folder / "t.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            bots:
              a: random
              b: heuristic
              c: random
              d: heuristic
            {build}
            """
        )
    )
    return path


def test_build_registries_defaults_and_additions(tmp_path: pathlib.Path) -> None:
    assert load_config(_config(tmp_path, "")).build.registries == buildnet.DEFAULT_REGISTRIES
    config = load_config(_config(tmp_path, "build: {registries: [defaults, repo.example.org]}"))
    assert config.build.registries == (*buildnet.DEFAULT_REGISTRIES, "repo.example.org")
    config = load_config(_config(tmp_path, "build: {registries: []}"))
    assert config.build.registries == ()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("pypi.org", r"build\.registries: expected a list of host names, got 'pypi.org'"),
        (
            "[pypi.org, 'https://x.org']",
            r"build\.registries\[1\]: expected a host name without a scheme",
        ),
        ("[127.0.0.1]", r"build\.registries\[0\]: '127.0.0.1' is an address of this host"),
    ],
)
def test_a_bad_build_registries_entry_names_the_key(
    tmp_path: pathlib.Path, value: str, message: str
) -> None:
    path = _config(tmp_path, f"build: {{registries: {value}}}")
    with pytest.raises(ConfigError, match=re.escape(str(path)) + ": " + message):
        load_config(path)


# The proxy, served -----------------------------------------------------------------------


class Upstream:
    """A stand-in registry on loopback that records what it received and answers."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.received: list[bytes] = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                data = b""
                with contextlib.suppress(OSError):
                    while b"\r\n\r\n" not in data:
                        chunk = conn.recv(4096)
                        if not chunk:
                            break
                        data += chunk
                self.received.append(data)
                with contextlib.suppress(OSError):
                    conn.sendall(self.answer)

    def close(self) -> None:
        self.sock.close()


@dataclasses.dataclass
class Served:
    """A proxy whose checked connections to 151.101.0.223 land on a loopback stand-in."""

    proxy: BuildProxy
    upstream: Upstream
    #: The proxy's log lines.
    lines: list[str]
    #: The (address, port) pairs it connected to.
    dialled: list[tuple[str, int]]


@pytest.fixture
def served(tmp_path: pathlib.Path) -> Iterator[Served]:
    upstream = Upstream(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    lines: list[str] = []
    dialled: list[tuple[str, int]] = []

    def connect(address: tuple[str, int], timeout_s: float) -> socket.socket:
        dialled.append(address)
        assert address[0] == "151.101.0.223", address
        return socket.create_connection(("127.0.0.1", upstream.port), timeout=timeout_s)

    proxy = BuildProxy(ALLOW, tmp_path / "p.sock", lines.append, resolve=PUBLIC, connect=connect)
    with proxy:
        yield Served(proxy, upstream, lines, dialled)
    upstream.close()


def _ask(proxy: BuildProxy, request: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(proxy.path))
        sock.sendall(request)
        data = b""
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return data
            data += chunk


def test_connect_to_a_registry_is_tunnelled(served: Served) -> None:
    answer = _ask(
        served.proxy, b"CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\nHELLO\r\n\r\n"
    )
    assert answer.startswith(b"HTTP/1.1 200 Connection established\r\n\r\n")
    assert answer.endswith(b"ok")
    assert served.upstream.received == [b"HELLO\r\n\r\n"]  # the bytes after the head, passed on
    assert served.dialled == [("151.101.0.223", 443)]
    assert served.proxy.passed["pypi.org:443"] == 1


def test_plain_http_is_forwarded_in_origin_form(served: Served) -> None:
    answer = _ask(
        served.proxy,
        b"GET http://pypi.org/simple/pip/ HTTP/1.1\r\nHost: pypi.org\r\n"
        b"Proxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\n\r\n",
    )
    assert answer.endswith(b"ok")
    (request,) = served.upstream.received
    assert request.startswith(b"GET /simple/pip/ HTTP/1.1\r\n")
    assert b"Host: pypi.org" in request and b"Connection: close" in request
    assert b"Proxy-" not in request
    assert served.dialled == [("151.101.0.223", 80)]


@pytest.mark.parametrize(
    ("request_line", "reason"),
    [
        (b"CONNECT 127.0.0.1:8265 HTTP/1.1", "port 8265 is not allowed"),
        (b"CONNECT 127.0.0.1:443 HTTP/1.1", "127.0.0.1 is an IP address"),
        (b"CONNECT localhost:443 HTTP/1.1", "localhost is not on the build network's allow-list"),
        (b"GET http://evil.test/ HTTP/1.1", "evil.test is not on the build network's allow-list"),
        (b"GET http://mirror.example.org:8080/x HTTP/1.1", "port 8080 is not allowed"),
    ],
)
def test_a_refusal_is_a_403_with_the_reason_and_a_line_in_the_log(
    served: Served, request_line: bytes, reason: str
) -> None:
    answer = _ask(served.proxy, request_line + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 403 Forbidden\r\n")
    assert reason.encode() in answer
    assert any(
        line.startswith("build network: refused") and reason in line for line in served.lines
    ), served.lines
    assert served.dialled == [] and served.upstream.received == []


def test_what_is_not_http_gets_a_400(served: Served) -> None:
    assert _ask(served.proxy, b"SSH-2.0-OpenSSH_9.6\r\n\r\n").startswith(
        b"HTTP/1.1 400 Bad Request"
    )
    assert _ask(served.proxy, b"GET /etc/passwd HTTP/1.1\r\n\r\n").startswith(
        b"HTTP/1.1 400 Bad Request"
    )
    assert served.dialled == []


def test_closing_writes_a_summary_and_removes_the_socket(tmp_path: pathlib.Path) -> None:
    lines: list[str] = []
    proxy = BuildProxy.in_new_folder(ALLOW, tmp_path, lines.append)
    with proxy:
        folder = proxy.path.parent
        assert proxy.path.is_socket()
        _ask(proxy, b"CONNECT 10.0.0.1:443 HTTP/1.1\r\n\r\n")
    assert not folder.exists()
    assert lines[-1] == "build network: reached nothing; refused 1 request(s): 10.0.0.1:443 (1)"


def test_nothing_is_logged_after_the_build_ended(tmp_path: pathlib.Path) -> None:
    """The build's log is closed once the proxy is: a request still being decided is not logged
    (its descriptor could be another file's by then)."""
    resolving, release = threading.Event(), threading.Event()

    def slow(host: str, port: int) -> list[str]:
        resolving.set()
        release.wait(10)
        return ["127.0.0.1"]

    lines: list[str] = []
    proxy = BuildProxy(ALLOW, tmp_path / "p.sock", lines.append, resolve=slow)
    proxy.start()
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(str(proxy.path))
    client.sendall(b"CONNECT pypi.org:443 HTTP/1.1\r\n\r\n")
    assert resolving.wait(10)
    proxy.close()
    ended = list(lines)
    release.set()
    client.close()
    for thread in threading.enumerate():
        if thread.name == "build-proxy-connection":
            thread.join(10)  # it has decided, and refused
    assert proxy.refused["pypi.org:443"] == 1
    assert lines == ended and lines[-1].startswith("build network: reached nothing")


# Through the machine's own proxy -----------------------------------------------------------


def test_the_machines_proxy_is_read_from_the_referees_environment() -> None:
    found = buildnet.HostProxy.from_env(
        {
            "https_proxy": "http://ann:p%40ss@proxy.corp.test:8080",
            "no_proxy": "localhost,.corp.test",
        }
    )
    assert found is not None
    assert (found.host, found.port) == ("proxy.corp.test", 8080)
    assert found.authorization == "Basic YW5uOnBAc3M="  # ann:p@ss
    assert found.bypasses("mirror.corp.test") and found.bypasses("localhost")
    assert not found.bypasses("pypi.org")
    plain = buildnet.HostProxy.from_env({"HTTPS_PROXY": "proxy.corp.test:3128"})
    assert plain == buildnet.HostProxy("proxy.corp.test", 3128)
    for env in ({}, {"https_proxy": " "}, {"https_proxy": "socks5://proxy.corp.test:1080"}):
        assert buildnet.HostProxy.from_env(env) is None


class FakeHostProxy:
    """The organiser's proxy, on loopback: records each request head, then tunnels or answers."""

    def __init__(self) -> None:
        self.heads: list[bytes] = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn, contextlib.suppress(OSError):
                conn.settimeout(5)
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(4096)
                self.heads.append(data)
                if data.startswith(b"CONNECT "):
                    conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    if conn.recv(4096) == b"PING":
                        conn.sendall(b"PONG")
                else:
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")


@pytest.fixture
def via_host_proxy(tmp_path: pathlib.Path) -> Iterator[tuple[BuildProxy, FakeHostProxy]]:
    fake = FakeHostProxy()
    # Nothing resolves here (as behind many corporate proxies): the machine's proxy resolves.
    proxy = BuildProxy(
        ALLOW,
        tmp_path / "p.sock",
        lambda line: None,
        resolve=resolver({"mirror.example.org": ["127.0.0.1"]}),
        host_proxy=buildnet.HostProxy("127.0.0.1", fake.port, "Basic c2VjcmV0"),
    )
    with proxy:
        yield proxy, fake
    fake.sock.close()


def _tunnel(proxy: BuildProxy, target: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(proxy.path))
        sock.sendall(b"CONNECT " + target + b" HTTP/1.1\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                return head
            head += chunk
        if not head.startswith(b"HTTP/1.1 200 "):
            return head
        sock.sendall(b"PING")
        return head + sock.recv(4096)


def test_allowed_connections_go_through_the_machines_proxy(
    via_host_proxy: tuple[BuildProxy, FakeHostProxy],
) -> None:
    proxy, fake = via_host_proxy
    assert _tunnel(proxy, b"pypi.org:443").endswith(b"\r\n\r\nPONG")
    (head,) = fake.heads
    assert head.startswith(b"CONNECT pypi.org:443 HTTP/1.1\r\n")
    assert b"Proxy-Authorization: Basic c2VjcmV0\r\n" in head
    answer = _ask(proxy, b"GET http://pypi.org/simple/ HTTP/1.1\r\nHost: pypi.org\r\n\r\n")
    assert answer.endswith(b"ok")
    assert fake.heads[1].startswith(b"GET http://pypi.org:80/simple/ HTTP/1.1\r\n")
    assert b"Proxy-Authorization: Basic c2VjcmV0\r\n" in fake.heads[1]


def test_the_machines_proxy_never_hears_a_refused_request(
    via_host_proxy: tuple[BuildProxy, FakeHostProxy],
) -> None:
    proxy, fake = via_host_proxy
    for target in (b"evil.test:443", b"127.0.0.1:443", b"pypi.org:22", b"mirror.example.org:443"):
        assert _tunnel(proxy, target).startswith(b"HTTP/1.1 403 Forbidden"), target
    assert fake.heads == []


# The attack, in a real tournament ---------------------------------------------------------


class Listener:
    """A listener on the host that counts connections and answers each with a token."""

    def __init__(self, sock: socket.socket, token: bytes) -> None:
        self.sock = sock
        self.token = token
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    @classmethod
    def tcp(cls, host: str, port: int, token: bytes) -> Listener | None:
        try:
            sock = socket.create_server((host, port))
        except OSError:
            return None
        return cls(sock, token)

    @classmethod
    def abstract(cls, name: str, token: bytes) -> Listener:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind("\0" + name)
        sock.listen(16)
        return cls(sock, token)

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn, contextlib.suppress(OSError):
                conn.sendall(self.token + b"\r\n\r\n")

    def close(self) -> None:
        self.sock.close()


def local_address() -> str | None:
    """An address of this host that is not loopback, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: it only picks a route
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def registry_reachable() -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("pypi.org", 443), timeout=15):
        return True
    return False


@pytest.fixture
def listeners() -> Iterator[dict[str, Listener]]:
    token = f"BUILD-NET-{secrets.token_hex(8)}".encode()
    found: dict[str, Listener] = {}
    loopback = Listener.tcp("127.0.0.1", 0, token)
    assert loopback is not None
    found["loopback"] = loopback
    # A port a build may ask its proxy for: 443, or 80 (when this user may bind one).
    for port in (443, 80):
        web = Listener.tcp("127.0.0.1", port, token)
        if web is not None:
            found["web"] = web
            break
    address = local_address()
    local = Listener.tcp(address, 0, token) if address else None
    if local is not None:
        found["local"] = local
    found["abstract"] = Listener.abstract(f"hearts-build-net-{secrets.token_hex(6)}", token)
    try:
        yield found
    finally:
        for listener in found.values():
            listener.close()


def _tournament(folder: pathlib.Path, listeners: dict[str, Listener], sandbox: str) -> pathlib.Path:
    attacker = folder / "attacker"
    attacker.mkdir(parents=True)
    shutil.copy(ATTACK, attacker / "build_net.py")
    shutil.copy(HEURISTIC / "bot.py", attacker / "bot.py")
    net = {
        "token": listeners["loopback"].token.decode(),
        "loopback_port": listeners["loopback"].port,
        "abstract_name": listeners["abstract"].sock.getsockname()[1:].decode(),
        "registry": REGISTRY_URL if sandbox == "bwrap" else "",
    }
    if "web" in listeners:
        net["loopback_web_port"] = listeners["web"].port
    if "local" in listeners:
        net["local_address"] = listeners["local"].sock.getsockname()[0]
        net["local_port"] = listeners["local"].port
    (attacker / "net.json").write_text(json.dumps(net))
    (attacker / "bot.yaml").write_text(
        "name: build-net-attacker\nversion: 1.0.0\nlanguage: Python\n"
        'build: "python3 build_net.py || /usr/bin/python3 build_net.py"\n'
        'run: "{python} bot.py --address {address}"\n'
    )
    config = folder / "t.yaml"
    config.write_text(
        textwrap.dedent(
            f"""\
            name: build-net
            seed: 2026
            bots:
              attacker: attacker
              honest: {HEURISTIC}
              random: random
              heuristic: heuristic
            rules: {{target_score: 30}}
            schedule: {{deal_sets: 1}}
            concurrency: 1
            sandbox: {sandbox}
            # localhost on the allow-list: its address, not its name, must stop it.
            build: {{registries: [defaults, localhost]}}
            """
        )
    )
    return config


def _play(config: pathlib.Path) -> tuple[subprocess.CompletedProcess[str], pathlib.Path]:
    out = config.parent / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "referee.cli", "tournament", str(config), "--out", str(out), "-q"],
        cwd=config.parent,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return proc, out


def _verdicts(log: str) -> dict[str, str]:
    return dict(re.findall(r"^ATTACK build-net (\S+): (\w+):", log, re.M))


def _rows(out: pathlib.Path) -> dict[str, dict[str, object]]:
    standings = json.loads((out / "standings.json").read_text())
    return {row["bot"]: row for row in standings["bots"]}


@pytest.mark.slow
def test_a_build_cannot_reach_the_host(
    tmp_path: pathlib.Path, listeners: dict[str, Listener]
) -> None:
    require_sandbox()
    if not registry_reachable():
        pytest.skip("the build network test needs the package registries: pypi.org:443 unreachable")
    proc, out = _play(_tournament(tmp_path, listeners, "bwrap"))
    log = (out / "builds" / "attacker.build.log").read_text(errors="replace")
    text = f"referee stderr:\n{proc.stderr[-3000:]}\nbuild log:\n{log[-6000:]}"
    assert proc.returncode == 0, text
    # No listener saw a connection, and every part of the attack ran and failed.
    assert {name: lst.connections for name, lst in listeners.items()} == dict.fromkeys(listeners, 0)
    verdicts = _verdicts(log)
    parts = ["direct-loopback", "proxy-connect-loopback", "proxy-connect-localhost"]
    parts += ["direct-abstract"]
    if "web" in listeners:
        parts += ["direct-loopback-web", "proxy-connect-127.0.0.1-web"]
        parts += ["proxy-connect-localhost-web", "proxy-get-localhost-web"]
    if "local" in listeners:
        parts += ["direct-local", "proxy-connect-local"]
    assert {p: verdicts.get(p) for p in parts} == dict.fromkeys(parts, "FAILED"), text
    # The build log says why each request through the proxy was refused.
    port = listeners["loopback"].port
    assert f"refused 'CONNECT 127.0.0.1:{port}': port {port} is not allowed" in log, text
    if "web" in listeners:
        web = listeners["web"].port
        assert f"refused 'CONNECT 127.0.0.1:{web}': 127.0.0.1 is an IP address" in log, text
        assert re.search(
            rf"refused 'CONNECT localhost:{web}': localhost resolves to [0-9a-f.:, ]*127\.0\.0\.1",
            log,
        ), text
        assert f"refused 'GET http://localhost:{web}/'" in log, text
    # The registry is still there for the build, and the honest bots play unharmed.
    assert verdicts.get("registry") == "REACHED", text
    rows = _rows(out)
    for bot in ("honest", "random", "heuristic", "attacker"):
        assert rows[bot]["faults"] == {} and rows[bot]["forfeits"] == 0, (bot, rows[bot], text)
    assert rows["attacker"]["status"] == "ok", (rows["attacker"], text)


@pytest.mark.slow
def test_without_the_sandbox_the_build_reaches_the_host(
    tmp_path: pathlib.Path, listeners: dict[str, Listener]
) -> None:
    """The control: on the host's network the same build reaches the listeners (so the test
    above can see an attack that works)."""
    proc, out = _play(_tournament(tmp_path, listeners, "none"))
    log = (out / "builds" / "attacker.build.log").read_text(errors="replace")
    assert proc.returncode == 0, proc.stderr[-3000:] + log
    verdicts = _verdicts(log)
    assert verdicts.get("direct-loopback") == "SUCCEEDED", log
    assert verdicts.get("direct-abstract") == "SUCCEEDED", log
    assert listeners["loopback"].connections >= 1 and listeners["abstract"].connections >= 1
