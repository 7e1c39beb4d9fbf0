"""Timed calls: every call check-bot makes to the bot, timed, and the watch for a bot that is gone.

:class:`Calls` wraps the bot's :class:`~referee.players.Connection` for the
scripted games; :class:`TimedConnection` is the same connection as the
referee's match runner sees it in the full game. Both record every call, so
the ``timing`` check and the report's table see every answer.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import threading
import time
from collections.abc import Sequence
from typing import Any

from referee.checkbot.report import RpcTiming
from referee.engine import FaultKind
from referee.players import BotFault, BotInfo, Connection

#: The decision RPCs; the others are notifications (and the handshake).
DECISIONS = ("PassCards", "PlayCard", "ChooseMoonScoring")
NOTIFICATIONS = ("StartGame", "DealHand", "EndHand", "EndGame")
#: Consecutive calls without an answer (timeout, crash, unreachable) after
#: which the bot counts as gone and the remaining checks are not run.
GONE_AFTER = 3


class Gone(Exception):
    """The bot stopped answering; the remaining checks are not run."""


class CallFailed(Exception):
    """A call got no usable answer; ``message`` says why, for a failure line."""

    def __init__(self, message: str, *, unimplemented: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.unimplemented = unimplemented


@dataclasses.dataclass(slots=True)
class Call:
    """One call to the bot: how long it took and whether it was answered."""

    rpc: str
    ms: float
    label: str
    ok: bool
    timed_out: bool = False


class Calls:
    """Every call to the bot, timed; and the watch for a bot that is gone."""

    def __init__(self, conn: Connection, move_time_ms: int, notify_timeout_ms: int) -> None:
        self.conn = conn
        self.move_time_ms = move_time_ms
        # Wait well past the move time, to measure slow answers rather than cut them.
        self.decision_timeout_s = (move_time_ms + max(move_time_ms, 1000)) / 1000
        self.notify_timeout_s = notify_timeout_ms / 1000
        self.calls: list[Call] = []
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
        """Call the bot; a failure is a :class:`CallFailed` with a readable message."""
        if self.gone:
            raise Gone(self.gone)
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
            self.record(Call(rpc, ms, label, False, timed_out), fault.kind)
            raise CallFailed(
                describe(fault, timeout), unimplemented=fault.status == "UNIMPLEMENTED"
            ) from None
        except Exception as error:  # a closed channel, a gRPC internal error
            ms = (time.perf_counter() - start) * 1000
            self.record(Call(rpc, ms, label, False), FaultKind.RPC_ERROR)
            raise CallFailed(f"{rpc}: {type(error).__name__}: {error}") from None
        finally:
            with self.lock:
                self.in_flight -= 1
        self.record(Call(rpc, (time.perf_counter() - start) * 1000, label, True), None)
        return reply

    def record(self, call: Call, fault_kind: str | None) -> None:
        with self.lock:
            self.calls.append(call)
            if fault_kind in (FaultKind.TIMEOUT, FaultKind.CRASH, FaultKind.UNAVAILABLE):
                self.failing += 1
                if self.failing >= GONE_AFTER and not self.gone:
                    self.gone = (
                        f"the bot stopped answering ({self.failing} calls in a row "
                        "timed out or found it dead or unreachable)"
                    )
            elif fault_kind is None:
                self.failing = 0

    def decision_ms(self) -> list[float]:
        """The answer times of every answered decision (PassCards, PlayCard, ChooseMoonScoring)."""
        with self.lock:
            return [c.ms for c in self.calls if c.rpc in DECISIONS and c.ok]

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
                    p95_ms=round(p95(good), 2) if good else None,
                    max_ms=round(max(good), 2) if good else None,
                    limit_ms=limit,
                    over=over,
                )
            )
        return out

    def slow_decisions(self) -> list[Call]:
        with self.lock:
            return sorted(
                (
                    c
                    for c in self.calls
                    if c.rpc in DECISIONS and (c.timed_out or (c.ok and c.ms > self.move_time_ms))
                ),
                key=lambda c: -c.ms,
            )


def p95(values: Sequence[float]) -> float:
    """The 95th percentile of ``values`` by nearest rank: 95% of them are at most this.

    >>> p95([float(ms) for ms in range(1, 101)])
    95.0
    >>> p95([1.0, 2.0, 30.0])
    30.0
    """
    if not values:
        raise ValueError("p95 of no values")
    ordered = sorted(values)
    return ordered[math.ceil(0.95 * len(ordered)) - 1]


def describe(fault: BotFault, timeout_s: float) -> str:
    if fault.kind == FaultKind.TIMEOUT:
        return f"no answer within {timeout_s * 1000:.0f} ms"
    if fault.kind == FaultKind.CRASH:
        return f"the bot process died: {fault.message}"
    if fault.kind == FaultKind.UNAVAILABLE:
        return f"the bot is unreachable: {fault.message}"
    if fault.status == "UNIMPLEMENTED":
        return f"{fault.message} (the RPC is not implemented)"
    return fault.message


class TimedConnection(Connection):
    """The bot's connection as the match runner sees it, with every call timed."""

    def __init__(self, calls: Calls, info: BotInfo) -> None:
        self._calls = calls
        self.info = info

    def call(self, rpc: str, request: Any, timeout_s: float) -> Any:
        calls = self._calls
        start = time.perf_counter()
        label = f"full game, {request_label(request)}"
        try:
            reply = calls.conn.call(rpc, request, timeout_s)
        except BotFault as fault:
            ms = (time.perf_counter() - start) * 1000
            calls.record(Call(rpc, ms, label, False, fault.kind == FaultKind.TIMEOUT), None)
            raise
        calls.record(Call(rpc, (time.perf_counter() - start) * 1000, label, True), None)
        return reply


def request_label(request: Any) -> str:
    parts = [f"game {request.game_id}"] if getattr(request, "game_id", "") else []
    if getattr(request, "decision_id", ""):
        parts.append(f"decision {request.decision_id}")
    return ", ".join(parts)
