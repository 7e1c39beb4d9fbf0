"""``referee check-bot``: a compliance checker for bot authors.

It starts (or connects to) one bot and drives it through scripted situations,
talking hearts.v1 directly so that each situation is exactly the one wanted.
The engine deals the hands, plays the other seats, builds every request
(:mod:`referee.protocol`) and judges every answer against the rules. The
result is a :class:`Report`: one :class:`CheckResult` per check, PASS, FAIL,
WARN, INFO or SKIP, with the reason, and the answer times of every RPC.

The situations are real hands played from the deal, the bot playing its seat
throughout (so a bot that keeps state sees a consistent game): crafted deals
force the rare situations (void in clubs on the first trick, only hearts and
Q♠, a moon), a four-hand game covers the pass directions, games of 3, 5, 6 and
7 players cover V6, eight games are played at once on the one bot process,
and a last game goes through the referee's own match runner. Every decision
is classified by its situation (first lead, void discard, ...) and each
situation is a check. See docs/check-bot.md.

Nothing here raises on a misbehaving bot: crashes, hangs, errors and bad
answers become FAILs with a message, and a launched bot is always stopped.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import enum
import logging
import pathlib
import random
import statistics
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2

from referee import __version__, protocol
from referee.bots import BotPool, BotSpec, build_bot
from referee.engine import (
    HEARTS,
    QUEEN_OF_SPADES,
    SUIT_MASKS,
    ActionError,
    Card,
    CardNotHeldError,
    CardSet,
    GameState,
    IllegalMoveError,
    MoonScoring,
    PassDirection,
    Phase,
    Rules,
    SeatView,
    card_list,
    deal,
    parse_cards,
)
from referee.gamelog import read_log
from referee.match import GameSpec, play_game
from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.players import (
    BotConnection,
    BotFault,
    BotInfo,
    Connection,
    FaultKind,
    RemotePlayer,
    builtin_player,
)
from referee.players.remote import handshake_info
from referee.policy import FaultPolicy, Limits, TimeControl
from referee.safetext import printable

__all__ = ["CHECKS", "CheckResult", "Report", "Status", "check_bot"]

log = logging.getLogger(__name__)

#: The JSON report's format name and version (a contract: bump on change).
REPORT_FORMAT = "hearts-referee/check-bot"
REPORT_VERSION = 1


class Status(enum.Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    WARN = "WARN"
    INFO = "INFO"
    SKIP = "SKIP"


#: Every check, in report order: id -> what it checks.
CHECKS: dict[str, str] = {
    "build": "the bot folder's build step succeeds",
    "start": "the bot starts and serves (or, for host:port, answers)",
    "handshake": "Handshake names the bot (name, version, author) and says protocol_version 1",
    "health": "the grpc.health.v1 Health service says SERVING",
    "reflection": "server reflection lists hearts.v1.HeartsBot (grpcurl works)",
    "pass-left": "hand 1 passes left (R2): `count` distinct held cards; then plays with them",
    "pass-right": "hand 2 passes right (R2): `count` distinct held cards; then plays with them",
    "pass-across": "hand 3 passes across (R2): `count` distinct held cards; then plays with them",
    "pass-hold": "hand 4 is a hold hand (R2): DealHand HOLD accepted, play without PassCards",
    "players-3": "3 players (V6): 17 cards each, 2♦ out; passes and plays a whole game",
    "players-5": "5 players (V6): 10 cards each, 2♦ 2♣ out, 3♣ leads; passes and plays",
    "players-6": "6 players (V6): 8 cards each; passes and plays a whole game",
    "players-7": "7 players (V6): 7 cards each; passes and plays a whole game",
    "first-lead": "leads the first trick with its only legal card, the lowest club (R3)",
    "first-trick-follow": "follows clubs on the first trick (R4)",
    "first-trick-void": "void in clubs on the first trick: no heart and no Q♠ while it has other cards (R5)",
    "first-trick-only-points": "void in clubs on the first trick holding only hearts and Q♠: any of them (R5)",
    "void-discard": "void in the led suit after the first trick: any card, Q♠ and hearts too (R4)",
    "lead-hearts-unbroken": "leads no heart before hearts are broken (R6)",
    "lead-only-hearts": "leads a heart when it holds only hearts, hearts not broken (R6)",
    "follow-suit": "follows the led suit after the first trick (R4)",
    "moon": "ChooseMoonScoring after shooting the moon (V2 shooter_chooses) answers a valid choice",
    "notifications": "StartGame, DealHand, EndHand and EndGame are accepted",
    "concurrent": "8 games at once on the one bot process, each answered legally for its own game",
    "full-game": "a full game through the referee's match runner (target 50): zero faults",
    "timing": "every decision answered within the move time",
}

#: The decision RPCs; the others are notifications (and the handshake).
DECISIONS = ("PassCards", "PlayCard", "ChooseMoonScoring")
NOTIFICATIONS = ("StartGame", "DealHand", "EndHand", "EndGame")
_SERVICE = "hearts.v1.HeartsBot"
#: Consecutive calls without an answer (timeout, crash, unreachable) after
#: which the bot counts as gone and the remaining checks are not run.
_GONE_AFTER = 3
_POINT_CARDS = HEARTS | 1 << QUEEN_OF_SPADES
#: How many failure messages a check shows (the count says how many more).
_SHOWN = 5
#: The most characters the text report shows of a handshake field and of a message line.
_NAME_CHARS = 64
_LINE_CHARS = 1000


# Results -----------------------------------------------------------------------


@dataclasses.dataclass(slots=True)
class CheckResult:
    """The verdict of one check."""

    id: str
    status: Status
    #: One line: what was seen.
    summary: str
    #: The failures (or warnings) one per line, with where they happened.
    details: list[str] = dataclasses.field(default_factory=list)

    @property
    def title(self) -> str:
        return CHECKS.get(self.id, self.id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status.value,
            "summary": self.summary,
            "details": list(self.details),
        }


@dataclasses.dataclass(slots=True)
class RpcTiming:
    """The answer times of one RPC (successful calls; failed ones counted apart)."""

    rpc: str
    calls: int
    failed: int
    median_ms: float | None
    max_ms: float | None
    #: The limit it is judged against (move time for decisions), or None.
    limit_ms: int | None
    #: Calls slower than the limit (failed calls that timed out included).
    over: int

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(slots=True)
class Report:
    """What check-bot found out about one bot."""

    bot: str
    target: str
    move_time_ms: int
    info: dict[str, Any] | None
    checks: list[CheckResult]
    timing: list[RpcTiming]
    out_dir: str
    logs: list[str]
    seconds: float

    @property
    def ok(self) -> bool:
        """True when no check failed (warnings and infos are fine)."""
        return not any(c.status is Status.FAIL for c in self.checks)

    def counts(self) -> dict[str, int]:
        return {s.value: sum(1 for c in self.checks if c.status is s) for s in Status}

    def check(self, check_id: str) -> CheckResult:
        return next(c for c in self.checks if c.id == check_id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "referee_version": __version__,
            "bot": self.bot,
            "target": self.target,
            "handshake": self.info,
            "move_time_ms": self.move_time_ms,
            "ok": self.ok,
            "counts": self.counts(),
            "checks": [c.to_dict() for c in self.checks],
            "timing": [t.to_dict() for t in self.timing],
            "out_dir": self.out_dir,
            "logs": list(self.logs),
            "seconds": round(self.seconds, 2),
        }

    def text(self) -> str:
        """The report for people: one line per check, failures below it, then times.

        The bot's handshake fields and every message (which may quote the
        bot's error details or stderr) are shown :func:`printable`: one line
        each, no terminal escapes.
        """
        from tabulate import tabulate

        def name(value: Any) -> str:
            return printable(str(value or ""), _NAME_CHARS)

        def line(value: Any) -> str:
            return printable(str(value), _LINE_CHARS)

        lines = []
        who = name(self.bot)
        if self.info:
            i = self.info
            who = f"{name(i.get('name')) or who} {name(i.get('version'))}".strip()
            extra = ", ".join(x for x in (name(i.get("language")), name(i.get("author"))) if x)
            if extra:
                who += f" ({extra})"
        lines.append(f"check-bot {who}: {line(self.target)}")
        lines.append(f"move time {self.move_time_ms} ms; output in {line(self.out_dir)}")
        lines.append("")
        width = max(len(c.id) for c in self.checks)
        for c in self.checks:
            lines.append(f"{c.status.value:<4}  {c.id:<{width}}  {line(c.summary)}")
            for d in c.details:
                lines.append(f"{'':<4}  {'':<{width}}    - {line(d)}")
        if self.timing:
            lines.append("")
            rows = [
                [
                    t.rpc,
                    t.calls,
                    t.failed or "",
                    "-" if t.median_ms is None else f"{t.median_ms:.1f}",
                    "-" if t.max_ms is None else f"{t.max_ms:.1f}",
                    t.limit_ms if t.limit_ms is not None else "-",
                    t.over if t.limit_ms is not None else "",
                ]
                for t in self.timing
            ]
            lines.append(
                tabulate(
                    rows,
                    headers=["rpc", "calls", "failed", "median ms", "max ms", "limit ms", "over"],
                    tablefmt="simple",
                    disable_numparse=True,
                )
            )
        lines.append("")
        counts = self.counts()
        parts = [f"{counts[s.value]} {s.value.lower()}" for s in Status if counts[s.value]]
        verdict = "PASS" if self.ok else "FAIL"
        lines.append(f"{verdict}: {', '.join(parts)} ({self.seconds:.1f} s)")
        for path in self.logs:
            lines.append(f"bot output: {line(path)}")
        return "\n".join(lines)


# Bookkeeping while the checks run ----------------------------------------------


class _Gone(Exception):
    """The bot stopped answering; the remaining checks are not run."""


class _CallFailed(Exception):
    def __init__(self, message: str, *, unimplemented: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.unimplemented = unimplemented


@dataclasses.dataclass(slots=True)
class _Tally:
    """What one check saw: judged decisions and the problems among them."""

    seen: int = 0
    failures: list[str] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    infos: list[str] = dataclasses.field(default_factory=list)
    #: Added to the summary; unlike infos, they do not make the check INFO.
    notes: list[str] = dataclasses.field(default_factory=list)
    example: str = ""


@dataclasses.dataclass(slots=True)
class _Call:
    rpc: str
    ms: float
    label: str
    ok: bool
    timed_out: bool = False


class _Calls:
    """Every call to the bot, timed; and the watch for a bot that is gone."""

    def __init__(self, conn: Connection, move_time_ms: int, notify_timeout_ms: int) -> None:
        self.conn = conn
        self.move_time_ms = move_time_ms
        # Wait well past the move time, to measure slow answers rather than cut them.
        self.decision_timeout_s = (move_time_ms + max(move_time_ms, 1000)) / 1000
        self.notify_timeout_s = notify_timeout_ms / 1000
        self.calls: list[_Call] = []
        self.lock = threading.Lock()
        self.failing = 0
        self.gone: str | None = None
        self.in_flight = 0
        self.max_in_flight = 0

    def timeout_s(self, rpc: str) -> float:
        if rpc in DECISIONS:
            return self.decision_timeout_s
        if rpc == "Handshake":
            return max(self.notify_timeout_s, 5.0)
        return self.notify_timeout_s

    def call(self, rpc: str, request: Any, label: str, *, timeout_s: float | None = None) -> Any:
        """Call the bot; a failure is a :class:`_CallFailed` with a readable message."""
        if self.gone:
            raise _Gone(self.gone)
        timeout = timeout_s if timeout_s is not None else self.timeout_s(rpc)
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        start = time.perf_counter()
        try:
            reply = self.conn.call(rpc, request, timeout)
        except BotFault as fault:
            ms = (time.perf_counter() - start) * 1000
            timed_out = fault.kind == FaultKind.TIMEOUT
            self._record(_Call(rpc, ms, label, False, timed_out), fault.kind)
            raise _CallFailed(
                _describe(fault, timeout), unimplemented=fault.status == "UNIMPLEMENTED"
            ) from None
        except Exception as error:  # a closed channel, a gRPC internal error
            ms = (time.perf_counter() - start) * 1000
            self._record(_Call(rpc, ms, label, False), FaultKind.RPC_ERROR)
            raise _CallFailed(f"{rpc}: {type(error).__name__}: {error}") from None
        finally:
            with self.lock:
                self.in_flight -= 1
        self._record(_Call(rpc, (time.perf_counter() - start) * 1000, label, True), None)
        return reply

    def _record(self, call: _Call, fault_kind: str | None) -> None:
        with self.lock:
            self.calls.append(call)
            if fault_kind in (FaultKind.TIMEOUT, FaultKind.CRASH, FaultKind.UNAVAILABLE):
                self.failing += 1
                if self.failing >= _GONE_AFTER and not self.gone:
                    self.gone = (
                        f"the bot stopped answering ({self.failing} calls in a row "
                        "timed out or found it dead or unreachable)"
                    )
            elif fault_kind is None:
                self.failing = 0

    def timing(self, notify_timeout_ms: int) -> list[RpcTiming]:
        with self.lock:
            calls = list(self.calls)
        order = ["Handshake", *NOTIFICATIONS, *DECISIONS]
        out = []
        for rpc in sorted({c.rpc for c in calls}, key=lambda r: (order.index(r), r)):
            mine = [c for c in calls if c.rpc == rpc]
            good = [c.ms for c in mine if c.ok]
            limit = (
                self.move_time_ms
                if rpc in DECISIONS
                else notify_timeout_ms
                if rpc in NOTIFICATIONS
                else None
            )
            over = sum(
                1 for c in mine if limit is not None and (c.timed_out or (c.ok and c.ms > limit))
            )
            out.append(
                RpcTiming(
                    rpc=rpc,
                    calls=len(mine),
                    failed=len(mine) - len(good),
                    median_ms=round(statistics.median(good), 2) if good else None,
                    max_ms=round(max(good), 2) if good else None,
                    limit_ms=limit,
                    over=over,
                )
            )
        return out

    def slow_decisions(self) -> list[_Call]:
        with self.lock:
            return sorted(
                (
                    c
                    for c in self.calls
                    if c.rpc in DECISIONS and (c.timed_out or (c.ok and c.ms > self.move_time_ms))
                ),
                key=lambda c: -c.ms,
            )


def _describe(fault: BotFault, timeout_s: float) -> str:
    if fault.kind == FaultKind.TIMEOUT:
        return f"no answer within {timeout_s * 1000:.0f} ms"
    if fault.kind == FaultKind.CRASH:
        return f"the bot process died: {fault.message}"
    if fault.kind == FaultKind.UNAVAILABLE:
        return f"the bot is unreachable: {fault.message}"
    if fault.status == "UNIMPLEMENTED":
        return f"{fault.message} (the RPC is not implemented)"
    return fault.message


class _TimedConnection(Connection):
    """The bot's connection as the match runner sees it, with every call timed."""

    def __init__(self, calls: _Calls, info: BotInfo) -> None:
        self._calls = calls
        self.info = info

    def call(self, rpc: str, request: Any, timeout_s: float) -> Any:
        calls = self._calls
        start = time.perf_counter()
        label = f"full game, {_request_label(request)}"
        try:
            reply = calls.conn.call(rpc, request, timeout_s)
        except BotFault as fault:
            ms = (time.perf_counter() - start) * 1000
            calls._record(_Call(rpc, ms, label, False, fault.kind == FaultKind.TIMEOUT), None)
            raise
        calls._record(_Call(rpc, (time.perf_counter() - start) * 1000, label, True), None)
        return reply


def _request_label(request: Any) -> str:
    parts = [f"game {request.game_id}"] if getattr(request, "game_id", "") else []
    if getattr(request, "decision_id", ""):
        parts.append(f"decision {request.decision_id}")
    return ", ".join(parts)


# The games the bot plays -------------------------------------------------------


@dataclasses.dataclass(slots=True)
class _Game:
    """One game the bot plays in ``seat``; the engine plays the other seats."""

    game_id: str
    state: GameState
    seat: int
    #: Checks every decision and notification of the game counts towards.
    checks: tuple[str, ...] = ()
    #: Checks by hand number: that hand's DealHand, PassCards and first PlayCard.
    hand_checks: dict[int, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    #: Cards the other seats play when legal, in order of preference.
    script: dict[int, list[Card]] = dataclasses.field(default_factory=dict)
    max_hands: int = 1
    #: Eight concurrent games meet here before their first PlayCard.
    barrier: threading.Barrier | None = None
    burst: dict[str, tuple[int, int]] | None = None
    waited: bool = False


def _crafted(rules: Rules, fixed: dict[int, str], seed: int) -> GameState:
    """A hold hand where some seats hold the given cards; the rest is dealt at random."""
    masks = [int(CardSet.parse(fixed.get(s, ""))) for s in range(rules.num_players)]
    taken = 0
    for m in masks:
        taken |= m
    rest = card_list(rules.deck & ~taken)
    random.Random(seed).shuffle(rest)
    for s in range(rules.num_players):
        while masks[s].bit_count() < rules.cards_per_player:
            masks[s] |= 1 << rest.pop()
    return GameState.from_hands(masks, rules, pass_direction=PassDirection.HOLD, seed=seed)


def _situation(view: SeatView) -> tuple[str | None, str]:
    """The check a play decision belongs to, and the situation in words."""
    trick = view.trick_number
    plays = view.current_trick.plays
    hand = int(view.hand)
    if not plays:
        if trick == 1:
            return "first-lead", "leading the first trick"
        if not view.hearts_broken and hand & HEARTS:
            if hand & ~HEARTS:
                return "lead-hearts-unbroken", f"leading trick {trick}, hearts not broken"
            return "lead-only-hearts", f"leading trick {trick} holding only hearts, not broken"
        return None, f"leading trick {trick}"
    suit = plays[0][1].suit
    name = suit.word
    if trick == 1 and not view.rules.points_on_first_trick:
        if hand & SUIT_MASKS[suit]:
            return "first-trick-follow", f"on the first trick, following {name}"
        if hand & _POINT_CARDS and hand & ~_POINT_CARDS:
            return "first-trick-void", f"on the first trick, void in {name}"
        if hand & _POINT_CARDS:
            return (
                "first-trick-only-points",
                f"on the first trick, void in {name}, holding only hearts and Q♠",
            )
        return None, f"on the first trick, void in {name}"
    if hand & SUIT_MASKS[suit]:
        return "follow-suit", f"on trick {trick}, following {name}"
    return "void-discard", f"on trick {trick}, void in {name}"


def _judge_play(state: GameState, seat: int, reply: pb.PlayCardResponse) -> tuple[str | None, Any]:
    """(problem, card): what is wrong with a PlayCard answer, or None and the card."""
    if not reply.HasField("card"):
        return "answered without a card (PlayCardResponse.card is not set)", None
    try:
        card = protocol.card_from_pb(reply.card)
    except protocol.MalformedAnswer as error:
        return f"answered a malformed card: {error}", None
    legal = state.legal_moves(seat)
    try:
        state.check_play(seat, card)
    except CardNotHeldError:
        hand = CardSet(state.hands[seat]).symbols()
        return f"answered {card.symbol()}, which it does not hold (hand: {hand})", None
    except IllegalMoveError as error:
        reason = str(error)
        if error.rule:
            reason = f"{error.rule}: {reason.replace(f' ({error.rule})', '')}"
        return (
            f"answered {card.symbol()}, which is not in legal_moves ({reason}); "
            f"legal: {legal.symbols()}",
            None,
        )
    except ActionError as error:
        return f"answered {card.symbol()}, which the rules refuse: {error}", None
    return None, card


def _judge_pass(reply: pb.PassCardsResponse, hand: int, count: int) -> tuple[str | None, Any]:
    """(problem, cards): what is wrong with a PassCards answer, or None and the cards."""
    answered = list(reply.cards)
    if len(answered) != count:
        shown = " ".join(_pb_card_text(c) for c in answered[:20])
        return f"answered {len(answered)} cards ({shown}); `count` is {count} (R2)", None
    try:
        cards = protocol.cards_from_pb(answered)
    except protocol.MalformedAnswer as error:
        return f"answered a malformed card: {error}", None
    text = " ".join(c.symbol() for c in cards)
    if len(set(cards)) != len(cards):
        twice = next(c for c in cards if cards.count(c) > 1)
        return f"answered {twice.symbol()} twice ({text}); the cards must be distinct (R2)", None
    not_held = [c for c in cards if not hand >> c & 1]
    if not_held:
        missing = " ".join(c.symbol() for c in not_held)
        return f"answered {text}, but does not hold {missing}", None
    return None, cards


def _pb_card_text(card: pb.Card) -> str:
    try:
        return protocol.card_from_pb(card).symbol()
    except protocol.MalformedAnswer:
        return f"(suit {card.suit}, rank {card.rank})"


# The checker -------------------------------------------------------------------


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
    ) -> None:
        self.spec = spec
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
        self.tallies: dict[str, _Tally] = {}
        self.tally_lock = threading.Lock()
        self.conn: Connection | None = None
        self.calls: _Calls | None = None
        self.info: dict[str, Any] | None = None
        #: The handshake as the referee keeps it (printable), for the full game.
        self.bot_info: BotInfo | None = None
        self.notified: dict[str, int] = {}
        self.skip_reason: str | None = None
        self.logs: list[str] = []

    # Recording -----------------------------------------------------------------

    def result(self, check: str, status: Status, summary: str, details: Sequence[str] = ()) -> None:
        self.results[check] = CheckResult(check, status, summary, list(details))

    def tally(
        self,
        checks: Iterable[str | None],
        *,
        fail: str | None = None,
        warn: str | None = None,
        info: str | None = None,
        example: str | None = None,
    ) -> None:
        with self.tally_lock:
            for check in dict.fromkeys(c for c in checks if c):
                t = self.tallies.setdefault(check, _Tally())
                t.seen += 1
                if fail:
                    t.failures.append(fail)
                if warn:
                    t.warnings.append(warn)
                if info and info not in t.infos:
                    t.infos.append(info)
                if example and not t.example:
                    t.example = example

    # Running -------------------------------------------------------------------

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
                self.out_dir / "builds",
                sandbox=self.sandbox,
                disk_bytes=self.limits.disk_bytes,
                hidden=[self.out_dir],
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
                conn.wait_serving(self.startup_timeout_s)
                what = f"answering at {spec.address}"
            else:
                assert spec.command is not None
                # The tournament's own start-up: the same sandbox, limits and deadlines.
                self.pool = BotPool(
                    log_dir=self.out_dir / "bots",
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
        self.calls = _Calls(self.conn, self.move_time_ms, tc.notify_timeout_ms)
        return self.handshake()

    def handshake(self) -> bool:
        assert self.calls is not None
        request = pb.HandshakeRequest(
            protocol_version=protocol.PROTOCOL_VERSION, referee_version=__version__
        )
        try:
            reply = self.calls.call("Handshake", request, "handshake")
        except (_CallFailed, _Gone) as error:
            self.result("handshake", Status.FAIL, str(error))
            self.skip_reason = "the handshake failed"
            return False
        self.info = {
            "name": reply.name,
            "version": reply.version,
            "author": reply.author,
            "language": reply.language,
            "protocol_version": reply.protocol_version,
        }
        self.bot_info = handshake_info(reply, name=self.spec.name)
        shown = ", ".join(f"{k} {v!r}" for k, v in self.info.items())
        if reply.protocol_version != protocol.PROTOCOL_VERSION:
            self.result(
                "handshake",
                Status.FAIL,
                f"protocol_version is {reply.protocol_version}, not "
                f"{protocol.PROTOCOL_VERSION}: the referee refuses this bot",
                [shown],
            )
            self.skip_reason = "the referee refuses a bot whose handshake fails"
            return False
        missing = [f for f in ("name", "version", "author") if not getattr(reply, f)]
        if "name" in missing:
            self.result(
                "handshake",
                Status.FAIL,
                "the handshake has no name (HandshakeResponse.name is empty)",
                [shown],
            )
        elif missing:
            self.result(
                "handshake",
                Status.WARN,
                f"{' and '.join(missing)} empty; {shown}",
            )
        else:
            self.result("handshake", Status.PASS, shown)
        return True

    def run_checks(self) -> None:
        phases: list[tuple[str, Callable[[], None]]] = [
            ("health and reflection", self.check_services),
            ("scripted hands", self.play_scripted),
            ("concurrent games", self.play_concurrent),
        ]
        if self.full_game:
            phases.append(("a full game", self.play_full_game))
        for name, phase in phases:
            self.progress(f"checking: {name}")
            try:
                phase()
            except _Gone as gone:
                self.skip_reason = str(gone)
                break

    # Health and reflection ------------------------------------------------------

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
        with grpc.insecure_channel(address) as channel:
            self.check_health(channel)
            self.check_reflection(channel)

    def check_health(self, channel: grpc.Channel) -> None:
        stub = health_pb2_grpc.HealthStub(channel)
        statuses = health_pb2.HealthCheckResponse.ServingStatus
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=2.0)
        except grpc.RpcError as error:
            code = error.code()  # type: ignore[attr-defined]
            if code == grpc.StatusCode.UNIMPLEMENTED:
                self.result(
                    "health",
                    Status.FAIL,
                    "no grpc.health.v1.Health service (UNIMPLEMENTED): serve it and set "
                    "SERVING once the bot is ready; the referee waits for it",
                )
            else:
                self.result("health", Status.FAIL, f"Health/Check failed: {code.name}")
            return
        if reply.status != health_pb2.HealthCheckResponse.SERVING:
            self.result(
                "health",
                Status.FAIL,
                f"Health/Check says {statuses.Name(reply.status)}, not SERVING",
            )
            return
        note = ""
        try:
            named = stub.Check(health_pb2.HealthCheckRequest(service=_SERVICE), timeout=2.0)
            note = f"; {_SERVICE}: {statuses.Name(named.status)}"
        except grpc.RpcError as error:
            note = f"; {_SERVICE}: {error.code().name}"  # type: ignore[attr-defined]
        self.result("health", Status.PASS, f"SERVING{note}")

    def check_reflection(self, channel: grpc.Channel) -> None:
        problems = []
        for version in ("v1", "v1alpha"):
            method = f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo"
            # v1 and v1alpha have the same messages on the wire.
            info = channel.stream_stream(
                method,
                request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
            )
            try:
                replies = info(
                    iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=2.0
                )
                services = [s.name for r in replies for s in r.list_services_response.service]
            except grpc.RpcError as error:
                problems.append(f"{version}: {error.code().name}")  # type: ignore[attr-defined]
                continue
            if _SERVICE in services:
                self.result(
                    "reflection", Status.PASS, f"grpc.reflection.{version} lists {_SERVICE}"
                )
                return
            problems.append(f"{version} lists {', '.join(services) or 'nothing'}")
        self.result(
            "reflection",
            Status.WARN,
            f"no server reflection listing {_SERVICE} ({'; '.join(problems)}): "
            "`grpcurl -plaintext HOST:PORT list` will not work",
        )

    # Playing -------------------------------------------------------------------

    def scripted_games(self) -> list[_Game]:
        seed = self.seed
        games = [
            _Game(
                "check-passing",
                GameState.new(Rules(target_score=200), seed),
                seat=1,
                max_hands=4,
                hand_checks={
                    1: ("pass-left",),
                    2: ("pass-right",),
                    3: ("pass-across",),
                    4: ("pass-hold",),
                },
            )
        ]
        for n in (3, 5, 6, 7):
            games.append(
                _Game(
                    f"check-players-{n}",
                    GameState.new(Rules(num_players=n, target_score=1), seed),
                    seat=n - 1,
                    checks=(f"players-{n}",),
                    max_hands=3,
                )
            )
        four = Rules()
        crafted: list[tuple[str, int, dict[int, str], dict[int, str], Rules]] = [
            ("first-lead", 2, {2: "2C"}, {}, four),
            # V6: with 2♣ out of the deck, the lowest club leads (R3).
            ("first-lead-5-players", 3, {3: "3C"}, {}, Rules(num_players=5)),
            ("first-trick-follow", 1, {0: "2C", 1: "5C 9C KC"}, {}, four),
            (
                "first-trick-void",
                3,
                {0: "2C", 3: "QS KS AS 4S 6S 8S 2H 5H 9H AH 3D 7D TD"},
                {},
                four,
            ),
            (
                "first-trick-only-points",
                1,
                {0: "2C", 1: "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"},
                {},
                four,
            ),
            # Seat 2 wins trick 1 with A♣ and leads 2♦: the bot has no diamonds.
            (
                "void-discard",
                1,
                {0: "2C", 1: "3C 4C 2S 3S 4S 5S QS 2H 3H 4H 5H 6H 7H", 2: "AC 2D"},
                {2: "AC 2D"},
                four,
            ),
            # The bot's only club is A♣: it wins trick 1 and leads trick 2.
            (
                "lead-hearts-unbroken",
                1,
                {0: "2C", 1: "AC 2H 3H 4H 5H 6H 2D 3D 4D 2S 3S 4S 5S"},
                {},
                four,
            ),
            (
                "lead-only-hearts",
                1,
                {0: "2C", 1: "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"},
                {},
                four,
            ),
            # The top four of three suits and A♥ win every trick: a moon, whatever is played.
            (
                "moon",
                1,
                {0: "2C", 1: "AC KC QC JC AD KD QD JD AS KS QS JS AH"},
                {},
                Rules(moon_scoring=MoonScoring.SHOOTER_CHOOSES),
            ),
        ]
        for number, (check, seat, fixed, script, rules) in enumerate(crafted):
            games.append(
                _Game(
                    f"check-{check}",
                    _crafted(rules, fixed, seed * 100 + number),
                    seat=seat,
                    checks=(f"players-{rules.num_players}",) if rules.num_players != 4 else (),
                    script={s: parse_cards(cards) for s, cards in script.items()},
                )
            )
        return games

    def play_scripted(self) -> None:
        for game in self.scripted_games():
            self.drive(game)

    def play_concurrent(self) -> None:
        count = 8
        barrier = threading.Barrier(count)
        burst: dict[str, tuple[int, int]] = {}
        games = []
        for i in range(count):
            rules = Rules()
            seed = self.seed * 1000 + 100 + i
            state = GameState.from_hands(
                deal(rules, seed, 1), rules, pass_direction=PassDirection.HOLD, seed=seed
            )
            games.append(
                _Game(
                    f"check-concurrent-{i + 1}",
                    state,
                    seat=i % 4,
                    checks=("concurrent",),
                    barrier=barrier,
                    burst=burst,
                )
            )
        started = time.perf_counter()

        def play(game: _Game) -> None:
            try:
                self.drive(game)
            finally:
                barrier.abort()  # a game that ends early must not hold the others up

        with concurrent.futures.ThreadPoolExecutor(count) as pool:
            errors = [f.exception() for f in [pool.submit(play, g) for g in games]]
        seconds = time.perf_counter() - started
        for error in errors:
            if error is not None:
                raise error
        with self.tally_lock:
            t = self.tallies.setdefault("concurrent", _Tally())
            t.notes.append(
                f"{count} hands played at once in {seconds:.2f} s, "
                f"up to {self.calls.max_in_flight} requests in flight"
            )

    def drive(self, game: _Game) -> None:
        """Play ``game`` from its current hand: the bot's seat asked, the others by the engine."""
        assert self.calls is not None
        state, seat = game.state, game.seat
        rng = random.Random(f"check-bot/{game.game_id}")
        names = [self.spec.name if s == seat else f"engine-{s}" for s in range(state.n)]
        self.notify(
            game,
            "StartGame",
            protocol.start_game_request(game.game_id, seat, names, state.rules),
            game.checks,
        )
        hands = 0
        while not state.is_over and hands < game.max_hands:
            hand = state.hand_number
            hand_checks = (*game.checks, *game.hand_checks.get(hand, ()))
            self.notify(
                game,
                "DealHand",
                protocol.deal_hand_request(game.game_id, state.view(seat)),
                hand_checks,
            )
            if state.phase is Phase.PASSING:
                for s in state.to_act():
                    if s == seat:
                        cards = self.ask_pass(game, hand_checks, rng)
                    else:
                        cards = rng.sample(card_list(state.hands[s]), state.rules.pass_count)
                    state.pass_cards(s, cards)
            first_play = True
            while state.hand_number == hand and not state.is_over:
                s = state.current
                if state.phase is Phase.PLAYING:
                    if s == seat:
                        checks = hand_checks if first_play else game.checks
                        card = self.ask_play(game, checks, rng)
                        first_play = False
                    else:
                        card = self.engine_play(game, rng)
                    state.play(card)
                elif state.phase is Phase.MOON_CHOICE:
                    choice = self.ask_moon(game) if s == seat else MoonScoring.ADD_TO_OTHERS
                    state.choose_moon_scoring(s, choice)
            result = state.hand_results[-1]
            self.notify(
                game,
                "EndHand",
                protocol.end_hand_request(game.game_id, seat, result),
                game.checks,
            )
            hands += 1
        if state.is_over:
            assert state.outcome is not None
            self.notify(
                game,
                "EndGame",
                protocol.end_game_request(game.game_id, seat, state.outcome, False),
                game.checks,
            )

    def engine_play(self, game: _Game, rng: random.Random) -> Card:
        state = game.state
        legal = state.legal_mask()
        for card in game.script.get(state.current, ()):
            if legal >> card & 1:
                return card
        return rng.choice(card_list(legal))

    def notify(self, game: _Game, rpc: str, request: Any, checks: Iterable[str]) -> None:
        assert self.calls is not None
        where = f"game {game.game_id}, seat {game.seat}"
        if rpc in ("DealHand", "EndHand"):
            where += f", hand {request.hand_number}"
        try:
            self.calls.call(rpc, request, where)
        except _CallFailed as failure:
            self.tally(("notifications", *checks), fail=f"{rpc} ({where}): {failure.message}")
            return
        with self.tally_lock:
            self.notified[rpc] = self.notified.get(rpc, 0) + 1
        self.tally(("notifications", *checks))

    def ask_pass(self, game: _Game, checks: Sequence[str], rng: random.Random) -> list[Card]:
        assert self.calls is not None
        state, seat = game.state, game.seat
        view = state.view(seat)
        count = state.rules.pass_count
        hand = int(state.hands[seat])
        where = f"game {game.game_id}, hand {view.hand_number}, seat {seat}"
        what = f"PassCards, passing {view.pass_direction.value} ({state.n} players)"
        request = protocol.pass_request(
            game.game_id, view, f"h{view.hand_number}-pass-s{seat}", self.move_time_ms, 0
        )
        try:
            reply = self.calls.call("PassCards", request, where)
        except _CallFailed as failure:
            self.tally(checks, fail=f"{what}: {failure.message} [{where}]")
            return rng.sample(card_list(hand), count)
        problem, cards = _judge_pass(reply, hand, count)
        if problem:
            self.tally(checks, fail=f"{what}: {problem} [{where}]")
            return rng.sample(card_list(hand), count)
        self.tally(checks, example=f"passed {' '.join(c.symbol() for c in cards)}")
        return list(cards)

    def ask_play(self, game: _Game, checks: Sequence[str], rng: random.Random) -> Card:
        assert self.calls is not None
        state, seat = game.state, game.seat
        view = state.view(seat)
        situation, described = _situation(view)
        where = (
            f"game {game.game_id}, hand {view.hand_number}, trick {view.trick_number}, seat {seat}"
        )
        request = protocol.play_request(
            game.game_id,
            view,
            f"h{view.hand_number}-t{view.trick_number}-s{seat}",
            self.move_time_ms,
            0,
        )
        checks = (situation, *checks)
        legal = int(view.legal_moves)
        burst = None
        if game.barrier is not None and game.burst is not None and not game.waited:
            # The first PlayCard of every concurrent game goes out at the same moment.
            game.waited = True
            burst = game.burst
            burst[game.game_id] = (legal, int(view.hand))
            with contextlib.suppress(threading.BrokenBarrierError):
                game.barrier.wait(timeout=30)
        try:
            reply = self.calls.call("PlayCard", request, where)
        except _CallFailed as failure:
            self.tally(checks, fail=f"PlayCard {described}: {failure.message} [{where}]")
            return rng.choice(card_list(legal))
        problem, card = _judge_play(state, seat, reply)
        if problem:
            hint = ""
            if burst is not None and reply.HasField("card"):
                hint = _mixed_up_hint(game.game_id, reply.card, burst)
            self.tally(checks, fail=f"PlayCard {described}: {problem}{hint} [{where}]")
            return rng.choice(card_list(legal))
        self.tally(checks, example=f"answered {card.symbol()} of {view.legal_moves.symbols()}")
        return card

    def ask_moon(self, game: _Game) -> MoonScoring:
        assert self.calls is not None
        state, seat = game.state, game.seat
        view = state.view(seat)
        where = f"game {game.game_id}, hand {view.hand_number}, seat {seat}"
        request = protocol.moon_scoring_request(
            game.game_id, view, f"h{view.hand_number}-moon-s{seat}", self.move_time_ms, 0
        )
        checks = ("moon", *game.checks)
        try:
            reply = self.calls.call("ChooseMoonScoring", request, where)
        except _CallFailed as failure:
            if failure.unimplemented:
                self.tally(
                    checks,
                    info="ChooseMoonScoring is not implemented (UNIMPLEMENTED): the referee "
                    "scores the moon add_to_others, the documented default",
                )
            else:
                self.tally(checks, fail=f"ChooseMoonScoring: {failure.message} [{where}]")
            return MoonScoring.ADD_TO_OTHERS
        try:
            choice = protocol.moon_choice_from_pb(reply.choice)
        except protocol.MalformedAnswer as error:
            self.tally(checks, fail=f"ChooseMoonScoring: {error} [{where}]")
            return MoonScoring.ADD_TO_OTHERS
        self.tally(checks, example=f"chose {choice.value}")
        return choice

    # The full game ---------------------------------------------------------------

    def play_full_game(self) -> None:
        assert self.calls is not None and self.conn is not None
        if self.calls.gone:
            raise _Gone(self.calls.gone)
        info = self.bot_info or BotInfo(name=self.spec.name)
        player = RemotePlayer(_TimedConnection(self.calls, info))
        others = ["heuristic", "random", "heuristic"]
        spec = GameSpec(
            game_id=f"check-bot-game-{self.seed}",
            seed=self.seed,
            bots=(self.spec.name, *others),
            rules=Rules(target_score=50),
            time_control=self.time_control,
            fault_policy=FaultPolicy(),
        )
        log_path = self.out_dir / "game.jsonl"
        try:
            record = play_game(spec, [player, *(builtin_player(o) for o in others)], log_path)
        except Exception as error:
            self.result(
                "full-game",
                Status.FAIL,
                f"the game could not finish: {type(error).__name__}: {error} (log: {log_path})",
            )
            return
        faults = record.faults[0]
        where = f"{len(record.hand_scores)} hands, {record.decisions[0]} decisions; log {log_path}"
        if not faults:
            self.result(
                "full-game",
                Status.PASS,
                f"zero faults; {where}; placed {record.placements[0]} with {record.scores[0]}",
            )
            return
        total = sum(faults.values())
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(faults.items()))
        details = []
        for _, r in read_log(log_path):
            if r.get("seat") != 0:
                continue
            if "fault" in r:
                at = f"hand {r['hand']}" + (f", trick {r['trick']}" if "trick" in r else "")
                answer = f" (answered {r['answer']})" if "answer" in r else ""
                details.append(f"{r['type']} {at}: {r['fault']['message']}{answer}")
            elif r.get("type") == "fault":
                details.append(f"{r['during']} in hand {r['hand']}: {r['message']}")
        forfeit = "; forfeited the game" if record.forfeited[0] else ""
        shown = details[:_SHOWN]
        if len(details) > _SHOWN:
            shown.append(f"... and {len(details) - _SHOWN} more in the log")
        self.result("full-game", Status.FAIL, f"{total} faults ({kinds}){forfeit}; {where}", shown)

    # Verdicts ----------------------------------------------------------------------

    def verdicts(self) -> list[CheckResult]:
        out = [r for check, r in self.results.items() if check not in CHECKS]
        for check in CHECKS:
            if check in self.results:
                out.append(self.results[check])
            elif check == "timing":
                out.append(self.timing_verdict())
            elif check == "notifications":
                out.append(self.notifications_verdict())
            else:
                out.append(self.tally_verdict(check))
        return out

    def not_run(self, check: str) -> CheckResult:
        reason = self.skip_reason or "not run"
        return CheckResult(check, Status.SKIP, f"not run: {reason}")

    def tally_verdict(self, check: str) -> CheckResult:
        t = self.tallies.get(check)
        if t is None or t.seen == 0:
            if self.skip_reason or (check == "full-game" and not self.full_game):
                if check == "full-game" and not self.full_game and not self.skip_reason:
                    return CheckResult(check, Status.SKIP, "not run (--no-full-game)")
                return self.not_run(check)
            return CheckResult(
                check, Status.WARN, "the situation did not come up (a check-bot bug?)"
            )
        noun = "answer" if t.seen == 1 else "answers"
        if t.failures:
            shown = t.failures[:_SHOWN]
            if len(t.failures) > _SHOWN:
                shown.append(f"... and {len(t.failures) - _SHOWN} more")
            return CheckResult(
                check, Status.FAIL, f"{len(t.failures)} of {t.seen} {noun} wrong", shown
            )
        if t.warnings:
            return CheckResult(check, Status.WARN, t.warnings[0], t.warnings[1:_SHOWN])
        if t.infos:
            return CheckResult(check, Status.INFO, "; ".join(t.infos))
        example = f" (e.g. {t.example})" if t.example else ""
        notes = "".join(f"; {n}" for n in t.notes)
        return CheckResult(check, Status.PASS, f"{t.seen} {noun}, all correct{example}{notes}")

    def notifications_verdict(self) -> CheckResult:
        t = self.tallies.get("notifications")
        if t is None or t.seen == 0:
            return self.not_run("notifications")
        counts = ", ".join(f"{rpc} {self.notified.get(rpc, 0)}" for rpc in NOTIFICATIONS)
        if t.failures:
            shown = t.failures[:_SHOWN]
            if len(t.failures) > _SHOWN:
                shown.append(f"... and {len(t.failures) - _SHOWN} more")
            return CheckResult(
                "notifications",
                Status.FAIL,
                f"{len(t.failures)} of {t.seen} notifications failed (accepted: {counts}); "
                "answering with the empty response is always correct",
                shown,
            )
        unsent = [rpc for rpc in NOTIFICATIONS if not self.notified.get(rpc)]
        if unsent:
            why = f": {self.skip_reason}" if self.skip_reason else ""
            return CheckResult(
                "notifications",
                Status.WARN,
                f"accepted {counts}; {', '.join(unsent)} not sent{why}",
            )
        return CheckResult("notifications", Status.PASS, f"all accepted: {counts}")

    def timing_verdict(self) -> CheckResult:
        if self.calls is None:
            return self.not_run("timing")
        slow = self.calls.slow_decisions()
        decisions = [c for c in self.calls.calls if c.rpc in DECISIONS]
        if not decisions:
            return self.not_run("timing")
        limit = self.move_time_ms
        if slow:
            shown = [
                f"{c.rpc}: {'no answer after' if c.timed_out else 'answered after'} "
                f"{c.ms:.0f} ms [{c.label}]"
                for c in slow[:_SHOWN]
            ]
            if len(slow) > _SHOWN:
                shown.append(f"... and {len(slow) - _SHOWN} more")
            return CheckResult(
                "timing",
                Status.FAIL,
                f"{len(slow)} of {len(decisions)} decisions took longer than the move time "
                f"({limit} ms)",
                shown,
            )
        worst = max(c.ms for c in decisions if c.ok) if any(c.ok for c in decisions) else 0.0
        return CheckResult(
            "timing",
            Status.PASS,
            f"{len(decisions)} decisions, slowest {worst:.1f} ms (move time {limit} ms)",
        )


def _mixed_up_hint(game_id: str, card: pb.Card, burst: dict[str, tuple[int, int]]) -> str:
    """Whether a bad answer of a concurrent game fits another game's request."""
    try:
        c = protocol.card_from_pb(card)
    except protocol.MalformedAnswer:
        return ""
    for other, (legal, _hand) in sorted(burst.items()):
        if other != game_id and legal >> c & 1:
            return f" (it is legal in the request of {other}, sent at the same time: answers mixed up?)"
    return ""


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
) -> Report:
    """Run every check on the bot ``spec`` and return the report (never raises on bot faults).

    A launched bot is built and started as a tournament does it: in the same
    sandbox, with the same limits (a tournament's defaults unless given).
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
