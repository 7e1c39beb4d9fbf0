#!/usr/bin/env python3
"""The referee's cost per decision beside a raw gRPC call; Go kit throughput against a baseline.

    python bench/referee.py [--games 10] [--bots random,heuristic,random,heuristic]
        [--only referee,starts,go] [--baseline COMMIT] [--rounds 5] [--go-games 16]
        [--go-lifetime game|table|run] [--go-same-bots] [--quick] [--profile]

Three parts (``--only`` picks some; ``--quick`` is a smoke run of about a
minute on a quiet machine: 2 games, 2 starts, 1 round of 4 Go games). The
figures of issue 27's done-when are printed last, under THE FIGURES, each
beside its reference from the same run and its goal:

1. the referee process's **CPU per decision / one echo call's CPU** (goal
   <= 1.3), sandboxed and not;
2. the **wall time the referee adds per decision** over an echo to four idle
   servers, with its spread over the games (no goal: round trips vary by
   more than it between process instances);
3. the **Go kit's games per minute per core** at concurrency 1 and 2 against
   the baseline commit's (goal >= 1.5x), with both trees' CPU per decision;
4. what **sandboxing** costs per decision (held at <= 5%) and what a
   **sandboxed start** adds (held at <= 50 ms);
5. what **freezing** costs per decision (default against pondering, <= 3%;
   issue 23 reads it: measured as before).

**referee** (the Python sample bots), interleaved game by game, in three modes:

- **sandboxed over Unix sockets** (the default: bots in bubblewrap, serving on
  ``{address}``) and **unsandboxed over TCP loopback** (``sandbox: none``,
  ``{port}``): the same games, the same bots, each beside echo servers on
  the same transport.
- **sandboxed, pondering** (``limits.ponder: true``): the sandboxed games
  again with bots that are never frozen. The other two modes are the
  default, where the machine has a cgroup freezer: each bot's CPU time is
  read when its answer arrives and when its next call starts, and a bot
  that used CPU in between is frozen between its calls from then on
  (referee.sandbox.freezer); figure 5 is what that costs per decision,
  watched against pondering, game by game, in percent and in ms, with the
  bots that got frozen (the sample bots are idle between their calls: none
  should be). A frozen bot's calls add the thaw before each call (which
  wakes every thread of the bot), the freeze after it, and its game's
  passes asked one seat at a time.

In each mode:

- **referee**: full games (default rules) between four Python sample bots,
  sample_bots/python/random and /heuristic twice each, each a separate
  process launched by the referee (BotPool -> LaunchedBot), played by
  referee.match.runner.play_game. The wall figure is **the wall time of
  play_game divided by the decisions** (passes + plays + moon choices): it
  charges the referee for everything it does in a game: the notification
  RPCs (StartGame, DealHand, EndHand, EndGame), the engine, the views, the
  protocol conversions, the log. The CPU figure is **this process's CPU
  time** (``time.process_time``: every thread of it, gRPC's included) from
  the game's start to 50 ms after its end (so that work the game leaves
  running, a notification not waited for, is counted too), minus the echo
  calls', per decision. The mean "ms" of the log's play records (one
  PlayCard decision as the referee times it) is printed too.
- **echo**: a raw gRPC unary round trip between two Python processes: this
  process calls a minimal echo server process (a generic handler returning
  its 4-byte request; the same grpcio and the same thread-pool server as
  referee.botkit, called through the referee's own channel,
  referee.players.remote.open_channel). One echo call, then one to **four
  servers** (after seat s plays, server s: the bots' access pattern, four
  idle processes), is made after every play of the games above (from the
  log's on_event hook, timed separately on both clocks and taken off the
  game's), so that the echo is measured under the same conditions as the
  referee: the same load, the same process, servers that idle between calls
  as the bots do. Figure 2 is each game's wall time per decision minus its
  own four-server echo. The echo's CPU is the same clock over each call; as a check that the referee's
  threads did not work inside those windows (their CPU would be taken off
  the referee and put on the echo), 200 calls to the four servers in turn are
  timed again alone after each game, and figure 1 is given both ways (the
  referee's CPU then is the game's minus that cost per call); the goal is met
  only if both are. The back-to-back figure (500 calls in a row, a hot
  server) is printed for reference.
- **referee alone**: the same games against four in-process "instant" bots
  behind the gRPC player class (no transport, no thought): the referee's own
  work per decision.

**starts**: a bot's start (launch, serve, handshake) timed sandboxed and not,
alternately, ``--starts`` times each: after the referee part's games, from
its modes' pools (as before); without that part, from pools of their own.
Beside the wall time, the CPU of each start and stop: this process's and its
children's (the supervisor, bubblewrap and the bot), which is what a
``bot_lifetime: game`` tournament pays four times a game.

**go**: four Go kit bots (each tree's sample_bots/go, built once into a
temporary copy; ``--go-same-bots``: this tree's for both; skipped, saying so,
without Go) play tournaments through the real runner, as ``referee
tournament`` does, with this tree's referee and with a ``git worktree`` of
``--baseline`` (default b6c745a, the code before issue 27), alternately; see
bench/referee_go.py. The worktree is removed at the end,
also on Ctrl-C or SIGTERM.

The figures are medians over games (over rounds for the Go kit). Figures taken
on a loaded machine are noisy; compare only variants measured in one run.

``--profile`` runs one more game under cProfile and prints the referee's
hottest functions.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import io
import math
import os
import pathlib
import pstats
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent import futures
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# grpcio's client chosen before grpcio starts, as the referee's command line does
# (referee/__init__.py), so that the echo and the games use the referee's client.
import referee  # noqa: E402

referee.choose_grpc_client()

import grpc  # noqa: E402
from referee_go import BASELINE, GoFigures, cores, go_throughput, in_turn_first  # noqa: E402

from referee.engine import Rules  # noqa: E402
from referee.match.gamelog import read_log  # noqa: E402
from referee.match.runner import GameSpec, play_game  # noqa: E402
from referee.pb.hearts.v1 import hearts_pb2 as pb  # noqa: E402
from referee.players import BotInfo, RemotePlayer  # noqa: E402
from referee.players.commands import free_port  # noqa: E402
from referee.players.policy import FaultPolicy, Limits, TimeControl  # noqa: E402
from referee.players.remote import Connection, open_channel  # noqa: E402
from referee.players.specs import parse_bot  # noqa: E402
from referee.players.supply import BotPool  # noqa: E402
from referee.sandbox import cgroups, freezer, spawn  # noqa: E402
from referee.sandbox.cgroups import freezer_support  # noqa: E402

ECHO_METHOD = "/bench.Echo/Echo"
_SHM = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
PAYLOAD = b"ping"
#: Seconds the CPU clock of a game runs on after it (see play_one).
SETTLE_S = 0.05
#: Echo calls timed alone after each game (echo_cpu_alone).
ALONE_CALLS = 200
#: Seconds this process's CPU is read with nothing to do (referee_part).
IDLE_S = 1.0


def serve_echo(address: str) -> None:
    """The echo server process: returns every request as it came."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    handler = grpc.method_handlers_generic_handler(
        "bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(lambda request, _: request)}
    )
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(address)
    server.start()
    print("ready", flush=True)
    parent = os.getppid()
    while os.getppid() == parent:  # the benchmark is gone (even killed): stop too
        time.sleep(0.2)
    server.stop(None)


class Echo:
    """A client of an echo server process that it starts and stops."""

    def __init__(self, unix: bool = False) -> None:
        self.folder = None
        if unix:
            self.folder = tempfile.mkdtemp(prefix="echo-", dir=_SHM)
            address = f"unix:{self.folder}/echo.sock"
        else:
            address = f"127.0.0.1:{free_port()}"
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve-echo", address],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise SystemExit("the echo server did not start")
        self.channel = open_channel(address)  # the referee's channel options: the same client
        self.call = self.channel.unary_unary(ECHO_METHOD)
        grpc.channel_ready_future(self.channel).result(timeout=10)
        for _ in range(200):  # warm up
            self.call(PAYLOAD, timeout=5)

    def batch(self, calls: int) -> float:
        """Mean ms of ``calls`` back-to-back round trips (a hot server)."""
        start = time.perf_counter()
        for _ in range(calls):
            self.call(PAYLOAD, timeout=5)
        return (time.perf_counter() - start) * 1000 / calls

    def close(self) -> None:
        self.channel.close()
        self.proc.terminate()
        self.proc.wait(5)
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)


class InstantConnection(Connection):
    """A bot with no transport and no thought: answers the first legal card at once."""

    def __init__(self) -> None:
        self.info = BotInfo(name="instant")

    def call(self, rpc: str, request: Any, timeout_s: float) -> Any:
        if rpc == "PlayCard":
            return pb.PlayCardResponse(card=request.legal_moves[0])
        if rpc == "PassCards":
            return pb.PassCardsResponse(cards=request.hand[: request.count])
        return None


def bot_spec(folder: str, name: str, sandbox: str) -> Any:
    """A sample bot: its folder (sandboxed, {address}), or its command with {port} (none)."""
    path = ROOT / "sample_bots" / "python" / folder
    if sandbox == "bwrap":
        return parse_bot(str(path), name=name)
    spec = parse_bot(f"{{python}} {path / 'bot.py'} --port {{port}}", name=name)
    return dataclasses.replace(spec, sandbox="none")


def start_bots(pool: BotPool, folders: list[str], sandbox: str) -> list:
    specs = [bot_spec(f, f"{f}-{seat}", sandbox) for seat, f in enumerate(folders)]
    players = pool.start_all(specs, stand_in=False)
    return [players[s.name] for s in specs]


@dataclasses.dataclass
class Starts:
    """Bot starts by mode: each one's wall time, and the CPU of it and its stop."""

    seconds: dict[str, list[float]]
    cpu_s: dict[str, list[float]]


def _cpu_with_children(sandboxed: bool) -> float:
    """CPU seconds of this process, of its children that have ended (and theirs), of the
    supervisors' fork server with the supervisors it reaped; ``sandboxed``, of the bots'
    cgroups too.

    A sandboxed bot is killed with its pid namespace, and its own CPU never reaches its
    supervisor's reaped children's time (a Python sample bot: 280 ms by its handshake, by
    its cgroup's clock; 20-40 ms in the reaped time). An unsandboxed bot is reaped, and
    its cgroup's time would count it twice. Bubblewrap is in both (a few ms a start).
    """
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    reaped = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    return reaped + _fork_server_cpu() + (_bots_cgroups_cpu() if sandboxed else 0.0)


def _bots_cgroups_cpu() -> float:
    """CPU seconds of every bot cgroup so far, from the cgroup that holds them (whose
    clock keeps the time of the children removed since): every referee's bots on this
    machine, one more reason to run the benchmark alone."""
    found = cgroups.Cgroup.parents()
    clock = freezer.CpuClock.of(cgroups.Cgroup(*found)) if found else None
    if clock is None:
        return 0.0
    try:
        return (clock.ns() or 0) / 1e9
    finally:
        clock.close()


def _fork_server_cpu() -> float:
    """The fork server's CPU seconds and its reaped children's (0 before it starts)."""
    server = spawn._server
    if server is None:
        return 0.0
    try:
        with open(f"/proc/{server.process.pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return 0.0
    # The fields after the command's last ')': utime 14, stime 15, cutime 16, cstime 17.
    fields = stat[stat.rfind(b")") + 2 :].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _wait_reaped(pid: int | None, wait_s: float = 2.0) -> None:
    """Until ``pid`` is gone from /proc (reaped), for at most ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while pid is not None and os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.001)


def start_times(pools: dict[str, BotPool], folder: str, times: int) -> Starts:
    """Start one bot (launch, serve, handshake) and stop it, both kinds in turn first."""
    out = Starts({mode: [] for mode in pools}, {mode: [] for mode in pools})
    for i in range(times):
        for mode, pool in in_turn_first(pools.items(), i + 1):
            spec = bot_spec(folder, f"start-{mode}-{i}", mode)
            cpu = _cpu_with_children(mode == "bwrap")
            started = time.perf_counter()
            player = pool.launch(spec)
            out.seconds[mode].append(time.perf_counter() - started)
            supervisor_pid = player.connection.pid
            pool.stop(player)  # waits for the supervisor's exit
            _wait_reaped(supervisor_pid)  # by the fork server: its CPU is counted by then
            out.cpu_s[mode].append(_cpu_with_children(mode == "bwrap") - cpu)
    return out


def play_one(
    players: list,
    seed: int,
    log_dir: pathlib.Path,
    bots: tuple[str, ...],
    echo: Echo | None = None,
    echoes: list[Echo] | None = None,
) -> dict:
    """Play one game; with ``echo``/``echoes``, make echo calls after every play.

    The echo calls are timed on their own and their time is taken off the
    game's wall time and CPU time.
    """
    spec = GameSpec(
        game_id=f"bench-{seed}",
        seed=seed,
        bots=bots,
        rules=Rules(),
        time_control=TimeControl(move_time_ms=5000),
        fault_policy=FaultPolicy(),
    )
    one_s: list[float] = []
    four_s: list[float] = []
    echo_cpu_s: list[float] = []

    def on_event(kind: str, record: dict) -> None:
        if kind != "play" or echo is None:
            return
        cpu = time.process_time()
        start = time.perf_counter()
        echo.call(PAYLOAD, timeout=5)
        middle = time.perf_counter()
        if echoes:
            echoes[record["seat"]].call(PAYLOAD, timeout=5)
            four_s.append(time.perf_counter() - middle)
        one_s.append(middle - start)
        echo_cpu_s.append(time.process_time() - cpu)

    start, cpu = time.perf_counter(), time.process_time()
    record = play_game(spec, players, log_dir / f"game-{seed}.jsonl", on_event=on_event)
    wall_ms = (time.perf_counter() - start - sum(one_s) - sum(four_s)) * 1000
    # What the game left running (a notification not waited for, a log flush) is the
    # referee's CPU too: the CPU clock stops a moment after the game, the wall clock at once.
    time.sleep(SETTLE_S)
    game_cpu_ms = (time.process_time() - cpu) * 1000
    cpu_ms = game_cpu_ms - sum(echo_cpu_s) * 1000
    plays = [r["ms"] for _, r in read_log(record.log_path) if r["type"] == "play"]
    assert all(not f for f in record.faults), record.faults
    decisions = sum(record.decisions)
    calls = len(one_s) * (2 if echoes else 1)
    return {
        "wall_ms": wall_ms,
        "decisions": decisions,
        "per_decision": wall_ms / decisions,
        "play_ms": statistics.fmean(plays),
        "cpu_ms": cpu_ms / decisions,
        "game_cpu_ms": game_cpu_ms,
        "echo_calls": calls,
        "echo_ms": statistics.fmean(one_s) * 1000 if one_s else math.nan,
        "echo4_ms": statistics.fmean(four_s) * 1000 if four_s else math.nan,
        "added4_ms": wall_ms / decisions - statistics.fmean(four_s) * 1000 if four_s else math.nan,
        "echo_cpu_ms": sum(echo_cpu_s) * 1000 / calls if calls else math.nan,
    }


def echo_cpu_alone(echoes: list[Echo], calls: int) -> float:
    """The process's CPU ms per echo call with nothing else running: the four servers in turn.

    The check on the echo calls timed inside a game, whose CPU window may also
    hold work the referee left running in its threads.
    """
    cpu = time.process_time()
    for n in range(calls):
        echoes[n % len(echoes)].call(PAYLOAD, timeout=5)
    return (time.process_time() - cpu) * 1000 / calls


class Mode:
    """One way of running the bots: their pool, players, echo servers and figures."""

    def __init__(
        self, sandbox: str, tmp: pathlib.Path, folders: list[str], *, ponder: bool = False
    ) -> None:
        self.sandbox = sandbox
        self.closed = False
        self.label = "sandboxed, Unix socket" if sandbox == "bwrap" else "no sandbox, TCP"
        if ponder:
            self.label += ", pondering (never frozen)"
        unix = sandbox == "bwrap"
        self.echo = Echo(unix)
        self.echoes = [Echo(unix) for _ in range(4)]
        name = sandbox + ("-ponder" if ponder else "")
        self.pool = BotPool(
            log_dir=tmp / name / "bots",
            time_control=TimeControl(move_time_ms=5000),
            limits=Limits(ponder=ponder),
            sandbox=sandbox,
        )
        self.tmp = tmp / name
        self.players = start_bots(self.pool, folders, sandbox)
        self.bots = tuple(p.info.name + f"@{s}" for s, p in enumerate(self.players))
        self.games: list[dict] = []
        self.hot: list[float] = []
        self.alone: list[float] = []  # echo_cpu_alone after each game
        play_one(self.players, 0, self.tmp, self.bots, self.echo, self.echoes)  # warm up

    def play(self, game: int) -> dict:
        self.hot.append(self.echo.batch(500))
        g = play_one(self.players, game, self.tmp, self.bots, self.echo, self.echoes)
        self.alone.append(echo_cpu_alone(self.echoes, ALONE_CALLS))
        # The referee's CPU with the echo calls' cost as measured alone (the check).
        g["cpu_alone_ms"] = (g["game_cpu_ms"] - g["echo_calls"] * self.alone[-1]) / g["decisions"]
        self.games.append(g)
        return g

    def cpu_ratios(self) -> tuple[float, float]:
        """The referee's CPU per decision / one echo call's: echo timed in the games, alone."""
        in_game = self.median("cpu_ms") / self.median("echo_cpu_ms")
        return in_game, self.median("cpu_alone_ms") / statistics.median(self.alone)

    def median(self, key: str) -> float:
        return statistics.median(g[key] for g in self.games)

    def frozen(self) -> list[str]:
        """The referee's lines, in its bots' stderr logs, that say a bot is frozen from then on."""
        return [
            line
            for log in sorted((self.tmp / "bots").glob("**/*.stderr.log"))
            for line in log.read_text(errors="replace").splitlines()
            if line.startswith("--- referee:") and "frozen between its calls" in line
        ]

    def close(self) -> None:
        """Stop the bots and echo servers (once: a second call does nothing)."""
        if self.closed:
            return
        self.closed = True
        self.pool.close()
        for e in [self.echo, *self.echoes]:
            e.close()


PARTS = ("referee", "starts", "go")
#: The goals of the done-when (issue 27) and the figures held from before.
CPU_GOAL, SANDBOX_GOAL, START_GOAL_MS, FREEZING_GOAL = 1.3, 0.05, 50, 0.03


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The options; ``--quick`` sets smaller defaults for those not given."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, help="Python bot games per mode (default 10)")
    parser.add_argument(
        "--bots",
        default="random,heuristic,random,heuristic",
        help="the sample bots by seat, folders of sample_bots/python (default: %(default)s)",
    )
    parser.add_argument("--starts", type=int, help="bot starts timed per kind (default 8)")
    parser.add_argument(
        "--only",
        default=",".join(PARTS),
        help=f"the parts to run, comma-separated, of {', '.join(PARTS)} (default: all)",
    )
    parser.add_argument(
        "--baseline",
        default=BASELINE,
        metavar="COMMIT",
        help="the commit the Go kit throughput is compared with (default: %(default)s)",
    )
    parser.add_argument("--rounds", type=int, help="Go kit rounds, old and new in turn first (5)")
    parser.add_argument("--go-games", type=int, help="games per Go kit tournament run (16)")
    parser.add_argument(
        "--go-lifetime",
        choices=["game", "table", "run"],
        help="the Go kit runs' bot_lifetime (default: the config's default, game)",
    )
    parser.add_argument(
        "--go-same-bots",
        action="store_true",
        help="both trees play this tree's Go kit (the referee's code alone; default: each its own)",
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run of about a minute")
    parser.add_argument("--profile", action="store_true", help="profile one more game")
    parser.add_argument("--serve-echo", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    quick = args.quick
    defaults = {"games": (2, 10), "starts": (2, 8), "rounds": (1, 5), "go_games": (4, 16)}
    for key, (small, full) in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, small if quick else full)
        if getattr(args, key) < 1:
            parser.error(f"--{key.replace('_', '-')} must be at least 1")
    args.parts = tuple(p.strip() for p in args.only.split(",") if p.strip())
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown or not args.parts:
        parser.error(f"--only {args.only}: the parts are {', '.join(PARTS)}")
    return args


def referee_part(
    args: argparse.Namespace, tmp: pathlib.Path
) -> tuple[dict[str, Mode], float, float]:
    """The Python bot games of the three modes, game by game, and the instant bots'."""
    folders = args.bots.split(",")
    modes: dict[str, Mode] = {}
    alone: list[float] = []
    try:
        for name, sandbox, ponder in (("bwrap", "bwrap", False), ("none", "none", False)):
            modes[name] = Mode(sandbox, tmp, folders, ponder=ponder)
        modes["ponder"] = Mode("bwrap", tmp, folders, ponder=True)
        # This process with nothing to do: the channels and servers of all three modes are
        # open (a tournament's referee has only its bots'), and gRPC's threads wake anyway.
        cpu = time.process_time()
        time.sleep(IDLE_S)
        idle_ms_per_s = (time.process_time() - cpu) * 1000 / IDLE_S
        instant = [RemotePlayer(InstantConnection()) for _ in range(4)]
        bots = modes["none"].bots
        for game in range(1, args.games + 1):
            for mode in in_turn_first(modes.values(), game):
                g = mode.play(game)
                print(
                    f"  game {game} ({mode.label}): {g['decisions']} decisions, "
                    f"{g['per_decision']:.3f} ms/decision; echo {g['echo_ms']:.3f} ms",
                    file=sys.stderr,
                )
            alone.append(play_one(instant, game, tmp, bots)["per_decision"])
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            play_one(modes["bwrap"].players, 999, tmp, modes["bwrap"].bots)
            profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
            print(out.getvalue())
    except BaseException:
        for mode in modes.values():
            mode.close()
        raise
    return modes, statistics.median(alone), idle_ms_per_s


def starts_part(args: argparse.Namespace, tmp: pathlib.Path, modes: dict[str, Mode]) -> Starts:
    """Bot starts, sandboxed and not, alternately.

    After the referee part, from its modes' pools, as this figure was always
    measured; without it, from pools of their own, each warmed up by one start.
    """
    folder = args.bots.split(",")[0]
    if modes:
        return start_times({m: modes[m].pool for m in ("bwrap", "none")}, folder, args.starts)
    pools = {
        mode: BotPool(
            log_dir=tmp / "starts" / mode,
            time_control=TimeControl(move_time_ms=5000),
            limits=Limits(),
            sandbox=mode,
        )
        for mode in ("bwrap", "none")
    }
    try:
        start_times(pools, folder, 1)  # warm up: a pool's first start is slower
        return start_times(pools, folder, args.starts)
    finally:
        for pool in pools.values():
            pool.close()


def spread(values: list[float], digits: int = 3) -> str:
    """Quartiles and extremes: ``q1..q3 (min..max)``."""
    if len(values) < 2:
        return f"one game: {values[0]:.{digits}f}"
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return (
        f"quartiles {q1:.{digits}f}..{q3:.{digits}f}, "
        f"games {min(values):.{digits}f}..{max(values):.{digits}f}"
    )


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def report_modes(modes: dict[str, Mode], alone_ms: float, idle_ms_per_s: float) -> list[str]:
    """Print each mode's figures; the summary's lines of the referee part."""
    for mode in modes.values():
        echo_ms, echo4_ms = mode.median("echo_ms"), mode.median("echo4_ms")
        per_decision = mode.median("per_decision")
        print(f"\n{mode.label}:")
        print(
            f"  raw gRPC echo round trip (Python -> Python):      {echo_ms:.3f} ms "
            f"(back to back: {statistics.median(mode.hot):.3f} ms)"
        )
        print(f"  raw gRPC echo, four servers in the bots' order:   {echo4_ms:.3f} ms")
        print(f"  referee, game wall time / decisions:              {per_decision:.3f} ms")
        print(
            f"  referee, PlayCard decision (log 'ms', mean):      {mode.median('play_ms'):.3f} ms"
        )
        print(
            f"  referee process CPU time per decision:            {mode.median('cpu_ms'):.3f} ms "
            f"(an echo call: {mode.median('echo_cpu_ms'):.3f} ms in the games, "
            f"{statistics.median(mode.alone):.3f} ms alone)"
        )
    print(f"\nreferee alone (instant in-process bots):            {alone_ms:.3f} ms per decision")
    pace = modes["bwrap"].median("per_decision")
    print(
        f"this process idle (every mode's channels open):    {idle_ms_per_s:.2f} ms CPU a second,"
        f" {idle_ms_per_s * pace / 1000:.4f} ms per decision at the games' pace (counted in "
        "the referee's CPU)"
    )
    lines = []
    for key, label in (("bwrap", "sandboxed, Unix"), ("none", "no sandbox, TCP")):
        mode = modes[key]
        in_game, by_alone = mode.cpu_ratios()
        lines.append(
            f"  referee process CPU per decision / one echo call's CPU ({label}): "
            f"{in_game:.2f} ({mode.median('cpu_ms'):.3f} / {mode.median('echo_cpu_ms'):.3f} ms,"
            f" echo timed in the games); {by_alone:.2f} ({mode.median('cpu_alone_ms'):.3f} / "
            f"{statistics.median(mode.alone):.3f} ms, echo timed alone) "
            f"[<= {CPU_GOAL}, both: {verdict(max(in_game, by_alone) <= CPU_GOAL)}]"
        )
    for key, label in (("bwrap", "sandboxed, Unix"), ("none", "no sandbox, TCP")):
        mode = modes[key]
        added = [g["added4_ms"] for g in mode.games]
        lines.append(
            f"  wall time the referee adds per decision over an echo to four idle servers "
            f"({label}): {statistics.median(added):.3f} ms ({spread(added)}; each game "
            f"against its own echo calls) [no goal: the round trips vary too much]"
        )
    boxed, bare = modes["bwrap"], modes["none"]
    cost = boxed.median("per_decision") / bare.median("per_decision") - 1
    paired = [
        b["per_decision"] / n["per_decision"] - 1
        for b, n in zip(boxed.games, bare.games, strict=True)
    ]
    lines.append(
        f"  sandboxing per decision (sandboxed/Unix vs none/TCP): {cost:+.1%} "
        f"(games {min(paired):+.1%}..{max(paired):+.1%}) "
        f"[<= +{SANDBOX_GOAL:.0%}: {verdict(cost <= SANDBOX_GOAL)}]"
    )
    pondering = modes["ponder"]
    freezing = boxed.median("per_decision") / pondering.median("per_decision") - 1
    freezing_paired = [
        b["per_decision"] / p["per_decision"] - 1
        for b, p in zip(boxed.games, pondering.games, strict=True)
    ]
    added_ms = boxed.median("per_decision") - pondering.median("per_decision")
    caught = boxed.frozen()
    lines.append(
        f"  freezing per decision (default vs pondering, sandboxed): {freezing:+.1%} "
        f"({added_ms:+.3f} ms; games {min(freezing_paired):+.1%}..{max(freezing_paired):+.1%}; "
        f"bots frozen: {len(caught)} of 4, for CPU used between their calls) "
        f"[<= +{FREEZING_GOAL:.0%}: {verdict(freezing <= FREEZING_GOAL)}]"
    )
    lines.extend(f"    {line}" for line in caught)
    return lines


def report_starts(starts: Starts) -> list[str]:
    boxed, bare = (statistics.median(starts.seconds[m]) * 1000 for m in ("bwrap", "none"))
    cpu_boxed, cpu_bare = (statistics.median(starts.cpu_s[m]) * 1000 for m in ("bwrap", "none"))
    cost = boxed - bare
    return [
        f"  a sandboxed start adds: {cost:+.0f} ms (median start {boxed:.0f} ms sandboxed, "
        f"{bare:.0f} ms not: launch, serve, handshake) "
        f"[<= {START_GOAL_MS} ms: {verdict(cost <= START_GOAL_MS)}]",
        f"    CPU of a start and its stop (this process and its children: the supervisor, "
        f"bubblewrap, the bot; a sandboxed bot's from its cgroup): {cpu_boxed:.0f} ms sandboxed, {cpu_bare:.0f} ms not "
        f"(medians of {len(starts.cpu_s['bwrap'])})",
    ]


def _load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # a SIGTERM cleans up as Ctrl-C does (the worktree, the bots)


def main() -> None:
    args = parse_args()
    if args.serve_echo is not None:
        serve_echo(args.serve_echo)
        return
    signal.signal(signal.SIGTERM, _interrupt)
    load_at_start = _load()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-referee-"))
    modes: dict[str, Mode] = {}
    starts: Starts | None = None
    go: GoFigures | None = None
    try:
        if "referee" in args.parts:
            modes, alone_ms, idle_ms_per_s = referee_part(args, tmp)
        if "starts" in args.parts:
            starts = starts_part(args, tmp, modes)
        for mode in modes.values():
            mode.close()  # before the Go kit part: its bots would only load the machine
        if "go" in args.parts:
            go = go_throughput(
                tmp,
                baseline=args.baseline,
                rounds=args.rounds,
                games=args.go_games,
                lifetime=args.go_lifetime,
                same_bots=args.go_same_bots,
            )
    except KeyboardInterrupt:
        raise SystemExit("interrupted: nothing measured is printed") from None
    finally:
        for mode in modes.values():
            mode.close()
        shutil.rmtree(tmp, ignore_errors=True)

    decisions = sum(g["decisions"] for m in modes.values() for g in m.games)
    games = (
        f"{args.games} games per mode, {decisions} decisions, bots {args.bots}; " if modes else ""
    )
    frozen = freezer_support() or "bots frozen between their calls once they use CPU there"
    print(
        f"grpcio {grpc.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs "
        f"({cores()} usable), parts {','.join(args.parts)}; {games}load average "
        f"{load_at_start} at the start, {_load()} at the end; {frozen}"
    )
    summary: list[str] = []
    if modes:
        summary += report_modes(modes, alone_ms, idle_ms_per_s)
    if starts is not None:
        summary += report_starts(starts)
    if go is not None:
        summary += go.report()
        for side, where in go.files.items():
            summary.append(f"    the {side} tree's referee: {where}")
    print("\nTHE FIGURES (goals in brackets):")
    for line in summary:
        print(line)


if __name__ == "__main__":
    main()
