"""Running check-bot: build and start the bot as a tournament does, run the checks, report.

:func:`check_bot` is the entry point. The :class:`_Checker` it runs does the
steps that need the bot's process: build, start, handshake; then the checks
(:mod:`~referee.checkbot.checks`), the situations
(:mod:`~referee.checkbot.play`) and the full game
(:mod:`~referee.checkbot.full_game`), and gathers every verdict in report
order. A launched bot is always stopped.
"""

from __future__ import annotations

import contextlib
import logging
import pathlib
import time
import traceback
from collections.abc import Callable, Collection, Sequence
from typing import Any

from referee import __version__, protocol
from referee.checkbot.calls import CallFailed, Calls, Gone
from referee.checkbot.checks import (
    Tallies,
    check_health,
    check_reflection,
    handshake_fields,
    handshake_verdict,
    notifications_verdict,
    tally_verdict,
    timing_verdict,
)
from referee.checkbot.full_game import play_full_game
from referee.checkbot.play import Driver
from referee.checkbot.report import CHECKS, CheckResult, Report, Status
from referee.engine import FaultKind
from referee.folder.layout import MatchLayout
from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.players import BotConnection, BotFault, BotInfo, Connection
from referee.players.build_progress import ProgressHook
from referee.players.builds import build_bot
from referee.players.policy import FaultPolicy, Limits, TimeControl
from referee.players.remote import handshake_info, open_channel
from referee.players.specs import BotSpec
from referee.players.supply import REFUSED_S, BotPool

log = logging.getLogger(__name__)


class _Checker:
    def __init__(
        self,
        spec: BotSpec,
        *,
        out_dir: pathlib.Path,
        move_time_ms: int,
        startup_timeout_s: float,
        seed: int,
        build: bool,
        full_game: bool,
        progress: Callable[[str], None],
        limits: Limits | None = None,
        sandbox: str = "bwrap",
        build_credentials: Collection[str] = (),
        on_build_progress: ProgressHook | None = None,
    ) -> None:
        self.spec = spec
        self.on_build_progress = on_build_progress
        #: The kinds of credentials its build may see (``build.credentials`` of a tournament).
        self.build_credentials = tuple(build_credentials)
        #: A tournament's defaults unless given: the bot is started as a tournament starts it.
        self.limits = limits or Limits()
        self.sandbox = sandbox
        self.pool: BotPool | None = None
        self.out_dir = out_dir
        self.move_time_ms = move_time_ms
        self.startup_timeout_s = startup_timeout_s
        self.seed = seed
        self.build = build
        self.full_game = full_game
        self.progress = progress
        self.time_control = TimeControl(
            move_time_ms=move_time_ms, startup_timeout_ms=int(startup_timeout_s * 1000)
        )
        self.results: dict[str, CheckResult] = {}
        self.tallies = Tallies()
        self.conn: Connection | None = None
        self.calls: Calls | None = None
        self.info: dict[str, Any] | None = None
        #: The handshake as the referee keeps it (printable), for the full game.
        self.bot_info: BotInfo | None = None
        self.skip_reason: str | None = None
        self.logs: list[str] = []

    def result(self, check: str, status: Status, summary: str, details: Sequence[str] = ()) -> None:
        self.record(CheckResult(check, status, summary, list(details)))

    def record(self, result: CheckResult) -> None:
        self.results[result.id] = result

    # Building, starting, the handshake ------------------------------------------

    def run(self) -> None:
        try:
            if self.prepare():
                self.run_checks()
        finally:
            if self.conn is not None:
                with contextlib.suppress(Exception):
                    self.conn.close()
            if self.pool is not None:
                self.pool.close()

    def prepare(self) -> bool:
        """Build and start the bot; False if the remaining checks cannot run."""
        spec = self.spec
        if spec.builtin:
            self.result("start", Status.FAIL, f"{spec.builtin!r} is a built-in bot, not a gRPC bot")
            self.skip_reason = "not a gRPC bot"
            return False
        if spec.build and self.build:
            self.progress(f"building {spec.name}: {spec.build}")
            built = build_bot(
                spec,
                MatchLayout(self.out_dir).builds,
                sandbox=self.sandbox,
                credentials=self.build_credentials,
                hidden=[self.out_dir],
                on_progress=self.on_build_progress,
            )
            if not built.ok:
                tail = built.tail.splitlines()[-8:]
                self.result(
                    "build",
                    Status.FAIL,
                    f"the build failed after {built.seconds:.1f} s (log: {built.log_path})",
                    tail,
                )
                self.skip_reason = "the build failed"
                return False
            self.result("build", Status.PASS, f"built in {built.seconds:.1f} s")
        elif spec.build:
            self.result("build", Status.SKIP, "not built (--no-build)")
        elif spec.command:
            self.result("build", Status.PASS, "no build step")
        else:
            self.result("build", Status.SKIP, "a running bot (host:port): nothing to build")
        return self.start()

    def start(self) -> bool:
        spec, tc = self.spec, self.time_control
        self.progress(f"starting {spec.name}")
        started = time.perf_counter()
        try:
            if spec.address:
                conn: Connection = BotConnection(spec.address)
                self.conn = conn
                conn.wait_serving(self.startup_timeout_s, refused_s=REFUSED_S)
                what = f"answering at {spec.address}"
            else:
                assert spec.command is not None
                # The tournament's own start-up: the same sandbox, limits and deadlines.
                self.pool = BotPool(
                    log_dir=MatchLayout(self.out_dir).bots,
                    time_control=tc,
                    fault_policy=FaultPolicy(max_restarts=3),
                    limits=self.limits,
                    sandbox=self.sandbox,
                    hidden=[self.out_dir],
                )
                logs = self.pool.log_dir
                self.logs = [str(logs / f"{spec.name}.{s}.log") for s in ("stdout", "stderr")]
                player = self.pool.launch(spec)
                bot = player.connection  # type: ignore[attr-defined]
                self.conn = bot
                sandboxed = (spec.sandbox or self.sandbox) == "bwrap"
                what = f"serving (pid {bot.pid}{', sandboxed' if sandboxed else ', no sandbox'})"
        except BotFault as fault:
            if fault.kind == FaultKind.HANDSHAKE:
                self.result("start", Status.PASS, "serving; the handshake was refused")
                message = fault.message.split("; stderr ends:")[0]
                self.result("handshake", Status.FAIL, f"{message}: the referee refuses this bot")
                self.skip_reason = "the referee refuses a bot whose handshake fails"
            else:
                message, _, tail = fault.message.partition("; stderr ends: ")
                lines = [
                    f"stderr: {line}"
                    for line in tail.split(" | ")
                    if line and not line.startswith("--- referee:")
                ]
                self.result("start", Status.FAIL, message, lines)
                self.skip_reason = "the bot did not start"
            return False
        seconds = time.perf_counter() - started
        self.result("start", Status.PASS, f"{what} after {seconds:.2f} s")
        self.calls = Calls(self.conn, self.move_time_ms, tc.notify_timeout_ms)
        return self.handshake()

    def handshake(self) -> bool:
        assert self.calls is not None
        request = pb.HandshakeRequest(
            protocol_version=protocol.PROTOCOL_VERSION, referee_version=__version__
        )
        try:
            reply = self.calls.call("Handshake", request, "handshake")
        except (CallFailed, Gone) as error:
            self.result("handshake", Status.FAIL, str(error))
            self.skip_reason = "the handshake failed"
            return False
        self.info = handshake_fields(reply)
        self.bot_info = handshake_info(reply, name=self.spec.name)
        verdict, accepted = handshake_verdict(reply)
        self.record(verdict)
        if not accepted:
            self.skip_reason = "the referee refuses a bot whose handshake fails"
        return accepted

    # The checks ------------------------------------------------------------------

    def run_checks(self) -> None:
        assert self.calls is not None
        driver = Driver(
            self.calls, self.tallies, bot_name=self.spec.name, move_time_ms=self.move_time_ms
        )
        phases: list[tuple[str, Callable[[], None]]] = [
            ("health and reflection", self.check_services),
            ("scripted hands", lambda: driver.play_scripted(self.seed)),
            ("concurrent games", lambda: driver.play_concurrent(self.seed)),
        ]
        if self.full_game:
            phases.append(("a full game", self.play_full_game))
        for name, phase in phases:
            self.progress(f"checking: {name}")
            try:
                phase()
            except Gone as gone:
                self.skip_reason = str(gone)
                break

    def address(self) -> str | None:
        if self.spec.address:
            return self.spec.address
        return getattr(self.conn, "address", None)  # a LaunchedBot or a BotConnection

    def check_services(self) -> None:
        address = self.address()
        if address is None:
            self.result("health", Status.SKIP, "the bot's address is unknown")
            self.result("reflection", Status.SKIP, "the bot's address is unknown")
            return
        # These calls bypass the bot's connection: a launched bot must be thawed for them.
        thawed = getattr(self.conn, "thawed", contextlib.nullcontext)
        with open_channel(address) as channel, thawed():
            self.record(check_health(channel))
            self.record(check_reflection(channel))

    def play_full_game(self) -> None:
        assert self.calls is not None and self.conn is not None
        self.record(
            play_full_game(
                self.calls,
                bot_name=self.spec.name,
                bot_info=self.bot_info,
                seed=self.seed,
                time_control=self.time_control,
                out_dir=self.out_dir,
            )
        )

    # Verdicts --------------------------------------------------------------------

    def verdicts(self) -> list[CheckResult]:
        """Every check's verdict in report order (a check-bot failure first)."""
        out = [r for check, r in self.results.items() if check not in CHECKS]
        tallies = self.tallies.by_check
        for check in CHECKS:
            if check in self.results:
                out.append(self.results[check])
            elif check == "timing":
                out.append(
                    timing_verdict(
                        self.calls, move_time_ms=self.move_time_ms, skip_reason=self.skip_reason
                    )
                )
            elif check == "notifications":
                out.append(
                    notifications_verdict(
                        tallies.get("notifications"),
                        self.tallies.notified,
                        skip_reason=self.skip_reason,
                    )
                )
            else:
                out.append(
                    tally_verdict(
                        check,
                        tallies.get(check),
                        skip_reason=self.skip_reason,
                        full_game=self.full_game,
                    )
                )
        return out


# Entry point -------------------------------------------------------------------


def _target(spec: BotSpec) -> str:
    if spec.address:
        return spec.address
    if spec.builtin:
        return f"built-in {spec.builtin}"
    if spec.origin not in ("", "command"):
        return f"{spec.origin}: {spec.command}"
    return str(spec.command)


def check_bot(
    spec: BotSpec,
    *,
    out_dir: str | pathlib.Path,
    move_time_ms: int = 1000,
    startup_timeout_s: float = 30.0,
    seed: int = 1,
    build: bool = True,
    full_game: bool = True,
    progress: Callable[[str], None] | None = None,
    limits: Limits | None = None,
    sandbox: str = "bwrap",
    build_credentials: Collection[str] = (),
    on_build_progress: ProgressHook | None = None,
) -> Report:
    """Run every check on the bot ``spec`` and return the report (never raises on bot faults).

    A launched bot is built and started as a tournament does it: in the same
    sandbox, with the same limits (a tournament's defaults unless given); its
    build sees the credentials of ``build_credentials``' kinds only;
    ``on_build_progress`` hears how its build goes (:mod:`referee.players.build_progress`).
    """
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    checker = _Checker(
        spec,
        out_dir=out,
        move_time_ms=move_time_ms,
        startup_timeout_s=startup_timeout_s,
        seed=seed,
        build=build,
        full_game=full_game,
        progress=progress or (lambda _message: None),
        limits=limits,
        sandbox=sandbox,
        build_credentials=build_credentials,
        on_build_progress=on_build_progress,
    )
    try:
        checker.run()
    except Exception as error:  # a check-bot bug: report it, never a traceback
        log.debug("check-bot failed", exc_info=True)
        checker.result(
            "check-bot",
            Status.FAIL,
            f"check-bot itself failed: {type(error).__name__}: {error}",
            traceback.format_exc().strip().splitlines()[-3:],
        )
        checker.skip_reason = checker.skip_reason or "check-bot failed"
    timing = checker.calls.timing(checker.time_control.notify_timeout_ms) if checker.calls else []
    return Report(
        bot=spec.name,
        target=_target(spec),
        move_time_ms=move_time_ms,
        info=checker.info,
        checks=checker.verdicts(),
        timing=timing,
        out_dir=str(out),
        logs=checker.logs,
        seconds=time.perf_counter() - started,
    )
