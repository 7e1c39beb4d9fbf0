"""The checks: each a small function that turns what was seen into one :class:`CheckResult`.

The handshake, health and reflection checks judge one answer each. The
situation checks (``pass-left``, ``first-trick-void``, ...) count every
decision of their situation in a :class:`Tallies`, filled in by the games
(:mod:`referee.checkbot.play`); :func:`tally_verdict` turns a check's tally
into its verdict. ``notifications`` and ``timing`` have verdicts of their own.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2

from referee import protocol
from referee.checkbot.calls import DECISIONS, NOTIFICATIONS, Calls, p95
from referee.checkbot.report import SHOWN, CheckResult, Status, shown
from referee.pb.hearts.v1 import hearts_pb2 as pb

SERVICE = "hearts.v1.HeartsBot"


# The handshake, health and reflection ------------------------------------------


def handshake_fields(reply: pb.HandshakeResponse) -> dict[str, Any]:
    """What the bot said in its handshake, as the report keeps it."""
    return {
        "name": reply.name,
        "version": reply.version,
        "author": reply.author,
        "language": reply.language,
        "protocol_version": reply.protocol_version,
    }


def handshake_verdict(reply: pb.HandshakeResponse) -> tuple[CheckResult, bool]:
    """The ``handshake`` check, and whether the referee accepts the bot (its protocol version)."""
    said = ", ".join(f"{k} {v!r}" for k, v in handshake_fields(reply).items())
    if reply.protocol_version != protocol.PROTOCOL_VERSION:
        return CheckResult(
            "handshake",
            Status.FAIL,
            f"protocol_version is {reply.protocol_version}, not "
            f"{protocol.PROTOCOL_VERSION}: the referee refuses this bot",
            [said],
        ), False
    missing = [f for f in ("name", "version", "author") if not getattr(reply, f)]
    if "name" in missing:
        return CheckResult(
            "handshake",
            Status.FAIL,
            "the handshake has no name (HandshakeResponse.name is empty)",
            [said],
        ), True
    if missing:
        return CheckResult("handshake", Status.WARN, f"{' and '.join(missing)} empty; {said}"), True
    return CheckResult("handshake", Status.PASS, said), True


def check_health(channel: grpc.Channel) -> CheckResult:
    """``health``: grpc.health.v1 Health/Check says SERVING."""
    stub = health_pb2_grpc.HealthStub(channel)
    statuses = health_pb2.HealthCheckResponse.ServingStatus
    try:
        reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=2.0)
    except grpc.RpcError as error:
        code = error.code()  # type: ignore[attr-defined]
        if code == grpc.StatusCode.UNIMPLEMENTED:
            return CheckResult(
                "health",
                Status.FAIL,
                "no grpc.health.v1.Health service (UNIMPLEMENTED): serve it and set "
                "SERVING once the bot is ready; the referee waits for it",
            )
        return CheckResult("health", Status.FAIL, f"Health/Check failed: {code.name}")
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        return CheckResult(
            "health",
            Status.FAIL,
            f"Health/Check says {statuses.Name(reply.status)}, not SERVING",
        )
    note = ""
    try:
        named = stub.Check(health_pb2.HealthCheckRequest(service=SERVICE), timeout=2.0)
        note = f"; {SERVICE}: {statuses.Name(named.status)}"
    except grpc.RpcError as error:
        note = f"; {SERVICE}: {error.code().name}"  # type: ignore[attr-defined]
    return CheckResult("health", Status.PASS, f"SERVING{note}")


def check_reflection(channel: grpc.Channel) -> CheckResult:
    """``reflection``: server reflection (v1 or v1alpha) lists hearts.v1.HeartsBot."""
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
        if SERVICE in services:
            return CheckResult(
                "reflection", Status.PASS, f"grpc.reflection.{version} lists {SERVICE}"
            )
        problems.append(f"{version} lists {', '.join(services) or 'nothing'}")
    return CheckResult(
        "reflection",
        Status.WARN,
        f"no server reflection listing {SERVICE} ({'; '.join(problems)}): "
        "`grpcurl -plaintext HOST:PORT list` will not work",
    )


# The situation checks ----------------------------------------------------------


@dataclasses.dataclass(slots=True)
class Tally:
    """What one check saw: judged decisions and the problems among them."""

    seen: int = 0
    failures: list[str] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    infos: list[str] = dataclasses.field(default_factory=list)
    #: Added to the summary; unlike infos, they do not make the check INFO.
    notes: list[str] = dataclasses.field(default_factory=list)
    example: str = ""


class Tallies:
    """Every check's tally, and the notifications the bot accepted; thread-safe."""

    def __init__(self) -> None:
        self.by_check: dict[str, Tally] = {}
        self.notified: dict[str, int] = {}
        self.lock = threading.Lock()

    def add(
        self,
        checks: Iterable[str | None],
        *,
        fail: str | None = None,
        warn: str | None = None,
        info: str | None = None,
        example: str | None = None,
    ) -> None:
        """Count one judged answer towards each of ``checks`` (each once; None is no check)."""
        with self.lock:
            for check in dict.fromkeys(c for c in checks if c):
                t = self.by_check.setdefault(check, Tally())
                t.seen += 1
                if fail:
                    t.failures.append(fail)
                if warn:
                    t.warnings.append(warn)
                if info and info not in t.infos:
                    t.infos.append(info)
                if example and not t.example:
                    t.example = example

    def note(self, check: str, note: str) -> None:
        with self.lock:
            self.by_check.setdefault(check, Tally()).notes.append(note)

    def accepted(self, rpc: str) -> None:
        """The bot accepted one notification ``rpc``."""
        with self.lock:
            self.notified[rpc] = self.notified.get(rpc, 0) + 1


def not_run(check: str, skip_reason: str | None) -> CheckResult:
    return CheckResult(check, Status.SKIP, f"not run: {skip_reason or 'not run'}")


def tally_verdict(
    check: str, tally: Tally | None, *, skip_reason: str | None, full_game: bool
) -> CheckResult:
    """A situation check's verdict from its tally."""
    t = tally
    if t is None or t.seen == 0:
        if skip_reason or (check == "full-game" and not full_game):
            if check == "full-game" and not full_game and not skip_reason:
                return CheckResult(check, Status.SKIP, "not run (--no-full-game)")
            return not_run(check, skip_reason)
        return CheckResult(check, Status.WARN, "the situation did not come up (a check-bot bug?)")
    noun = "answer" if t.seen == 1 else "answers"
    if t.failures:
        return CheckResult(
            check, Status.FAIL, f"{len(t.failures)} of {t.seen} {noun} wrong", shown(t.failures)
        )
    if t.warnings:
        return CheckResult(check, Status.WARN, t.warnings[0], t.warnings[1:SHOWN])
    if t.infos:
        return CheckResult(check, Status.INFO, "; ".join(t.infos))
    example = f" (e.g. {t.example})" if t.example else ""
    notes = "".join(f"; {n}" for n in t.notes)
    return CheckResult(check, Status.PASS, f"{t.seen} {noun}, all correct{example}{notes}")


def notifications_verdict(
    tally: Tally | None, notified: dict[str, int], *, skip_reason: str | None
) -> CheckResult:
    """``notifications``: every StartGame, DealHand, EndHand and EndGame was accepted."""
    t = tally
    if t is None or t.seen == 0:
        return not_run("notifications", skip_reason)
    counts = ", ".join(f"{rpc} {notified.get(rpc, 0)}" for rpc in NOTIFICATIONS)
    if t.failures:
        return CheckResult(
            "notifications",
            Status.FAIL,
            f"{len(t.failures)} of {t.seen} notifications failed (accepted: {counts}); "
            "answering with the empty response is always correct",
            shown(t.failures),
        )
    unsent = [rpc for rpc in NOTIFICATIONS if not notified.get(rpc)]
    if unsent:
        why = f": {skip_reason}" if skip_reason else ""
        return CheckResult(
            "notifications",
            Status.WARN,
            f"accepted {counts}; {', '.join(unsent)} not sent{why}",
        )
    return CheckResult("notifications", Status.PASS, f"all accepted: {counts}")


#: A bot whose decisions' p95 is above this share of the move time gets a
#: ``timing`` WARN: in a tournament other bots and games share the machine.
NEAR_MOVE_TIME = 0.6


def timing_verdict(
    calls: Calls | None, *, move_time_ms: int, skip_reason: str | None
) -> CheckResult:
    """``timing``: every decision answered within the move time.

    A FAIL names the decisions that took longer. With none, the check is a
    WARN (never a failure) when the 95th percentile of the decisions' answer
    times is above :data:`NEAR_MOVE_TIME` of the move time: such a bot passes
    alone on an idle machine but times out once it shares the CPU.
    """
    if calls is None:
        return not_run("timing", skip_reason)
    slow = calls.slow_decisions()
    decisions = [c for c in calls.calls if c.rpc in DECISIONS]
    if not decisions:
        return not_run("timing", skip_reason)
    limit = move_time_ms
    if slow:
        lines = [
            f"{c.rpc}: {'no answer after' if c.timed_out else 'answered after'} "
            f"{c.ms:.0f} ms [{c.label}]"
            for c in slow
        ]
        return CheckResult(
            "timing",
            Status.FAIL,
            f"{len(slow)} of {len(decisions)} decisions took longer than the move time "
            f"({limit} ms)",
            shown(lines),
        )
    answered = calls.decision_ms()
    if not answered:
        return not_run("timing", skip_reason)
    worst, p95_ms = max(answered), p95(answered)
    seen = (
        f"{len(decisions)} decisions, p95 {p95_ms:.1f} ms, slowest {worst:.1f} ms "
        f"(move time {limit} ms)"
    )
    if p95_ms > NEAR_MOVE_TIME * limit:
        near = sum(1 for ms in answered if ms > NEAR_MOVE_TIME * limit)
        return CheckResult(
            "timing",
            Status.WARN,
            f"{seen}: p95 is {p95_ms / limit:.0%} of the move time, above "
            f"{NEAR_MOVE_TIME:.0%}; answer well inside it",
            [
                f"{near} of {len(answered)} decisions took over {NEAR_MOVE_TIME:.0%} of the "
                "move time; in a tournament other bots and games share the CPU, and a "
                "decision late by a moment is a timeout fault (docs/protocol.md, Timing)"
            ],
        )
    return CheckResult("timing", Status.PASS, seen)
