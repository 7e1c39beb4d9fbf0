"""The check-bot report: every check's verdict and the answer times of every RPC.

:class:`Report` is what :func:`referee.checkbot.check_bot` returns; its JSON
form (``--format json``) is a versioned contract (docs/check-bot.md), its
text form is for people.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from referee import __version__
from referee.safetext import shown_name, shown_text

__all__ = [
    "CHECKS",
    "REPORT_FORMAT",
    "REPORT_VERSION",
    "CheckResult",
    "Report",
    "RpcTiming",
    "Status",
]

#: The JSON report's format name and version (a contract: bump on change).
REPORT_FORMAT = "hearts-referee/check-bot"
REPORT_VERSION = 1

#: How many failure messages a check shows (the count says how many more).
SHOWN = 5


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
    "timing": "every decision answered within the move time (WARN: p95 above 60% of it)",
}


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
    #: The 95th percentile (nearest rank): 95% of the answers took at most this.
    p95_ms: float | None
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
            return shown_name(value or "")

        def line(value: Any) -> str:
            return shown_text(value)

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
                    "-" if t.p95_ms is None else f"{t.p95_ms:.1f}",
                    "-" if t.max_ms is None else f"{t.max_ms:.1f}",
                    t.limit_ms if t.limit_ms is not None else "-",
                    t.over if t.limit_ms is not None else "",
                ]
                for t in self.timing
            ]
            lines.append(
                tabulate(
                    rows,
                    headers=[
                        "rpc",
                        "calls",
                        "failed",
                        "median ms",
                        "p95 ms",
                        "max ms",
                        "limit ms",
                        "over",
                    ],
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


def shown(lines: list[str], *, more: str = "more") -> list[str]:
    """The first :data:`SHOWN` of ``lines``, then how many more there are."""
    out = lines[:SHOWN]
    if len(lines) > SHOWN:
        out.append(f"... and {len(lines) - SHOWN} {more}")
    return out
