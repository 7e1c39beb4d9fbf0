"""Audits of game logs and tournament folders against the engine (``referee verify``).

:func:`verify_log` replays one game log through the engine, record by
record, and stops at the first discrepancy: a deal that is not the seed's, a
pass or play the rules refuse, an offered legal set that is not the engine's,
a fallback move that is not the seeded one (docs/log-format.md), a trick,
hand or game result other than the engine's, fault counts and forfeits that
do not add up, or a record out of place (a missing or extra line). A
damaged file (not JSON, cut short, a wrong header) is reported the same way,
naming the file and line.

:func:`verify_folder` does that for every game of a tournament's output
folder and checks its journal (one ``GameRecord`` per line) against the
logs, and its standings file against standings recomputed from the journal.
With the tournament's key (:mod:`referee.folder.seal`) it first authenticates the
folder: every journal line's MAC, every log's MAC, the deal seeds (the key's
for each place in the schedule) and ``tournament.json``; anything that fails
is refused, naming the file and line. :func:`verify_entry` is the check the
tournament runs on each game before journaling it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import json
import multiprocessing
import os
import pathlib
import signal
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from referee.audit.replay import read_records
from referee.engine import (
    ActionError,
    Card,
    CardNotHeldError,
    FaultKind,
    GameState,
    Phase,
    Rules,
    RulesError,
    card_list,
    deal,
)
from referee.folder import seal
from referee.folder.core import (
    JournalEnd,
    Layout,
    TournamentError,
    TournamentState,
    end_problems,
    entry_problem,
    load_standings,
    state_problem,
)
from referee.match.fallback import FALLBACK_MOON_CHOICE, fallback_pass, fallback_play
from referee.match.gamelog import (
    DealRecord,
    FaultRecord,
    ForfeitRecord,
    GameEndRecord,
    GameHeader,
    HandEndRecord,
    LogError,
    MoonChoiceRecord,
    PassRecord,
    PlayRecord,
    RecordError,
    TrickRecord,
    parse_card_list,
    parse_record,
)

__all__ = [
    "Discrepancy",
    "FolderReport",
    "GameReport",
    "cpu_count",
    "verify_entry",
    "verify_folder",
    "verify_log",
]

_SOURCES = ("bot", "fallback")
#: Faults whose recorded answer the engine can re-check.
_PLAY_FAULTS = {FaultKind.ILLEGAL_CARD, FaultKind.CARD_NOT_HELD}
_PASS_FAULTS = {FaultKind.WRONG_PASS_SIZE, FaultKind.DUPLICATE_CARDS, FaultKind.CARD_NOT_HELD}


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Discrepancy:
    """The first thing found wrong in a game, a journal or a standings file."""

    path: str
    #: 1-based; 0 when the problem is the file as a whole.
    line: int
    message: str
    hand: int | None = None
    trick: int | None = None
    seat: int | None = None

    @property
    def position(self) -> str:
        """``"hand 3, trick 5, seat 2"`` (the parts that are known)."""
        parts = [
            f"{name} {value}"
            for name, value in (("hand", self.hand), ("trick", self.trick), ("seat", self.seat))
            if value is not None
        ]
        return ", ".join(parts)

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        position = self.position
        return f"{where}: {position}: {self.message}" if position else f"{where}: {self.message}"


@dataclasses.dataclass(slots=True, kw_only=True)
class GameReport:
    """The audit of one game log, with the results the log records."""

    path: str
    game_id: str = ""
    records: int = 0
    hands: int = 0
    problem: Discrepancy | None = None
    #: What the log says, in the shape of a journal entry (``GameRecord.to_dict()``).
    summary: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.problem is None


@dataclasses.dataclass(slots=True, kw_only=True)
class FolderReport:
    """The audit of a tournament folder."""

    folder: str
    games: list[GameReport] = dataclasses.field(default_factory=list)
    #: Problems of the journal and the standings (the games' are in ``games``).
    problems: list[Discrepancy] = dataclasses.field(default_factory=list)
    #: Remarks that are not errors (logs of unfinished games, no standings file).
    notes: list[str] = dataclasses.field(default_factory=list)
    journal_entries: int = 0
    standings_checked: str | None = None
    #: The key the folder was authenticated with (a path, or "the key given"); None if none.
    authenticated_with: str | None = None
    #: Game ids of the journal lines refused (their MAC failed).
    refused_games: set[str] = dataclasses.field(default_factory=set)

    @property
    def all_problems(self) -> list[Discrepancy]:
        return [g.problem for g in self.games if g.problem] + self.problems

    @property
    def ok(self) -> bool:
        return not self.all_problems


class _Mismatch(Exception):
    """Raised inside the checker; becomes the game's :class:`Discrepancy`."""

    def __init__(self, message: str, *, seat: int | None = None, trick: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.seat = seat
        self.trick = trick


# One game -------------------------------------------------------------------------


def verify_log(path: str | os.PathLike[str]) -> GameReport:
    """Replay the log at ``path`` through the engine; the report holds the first problem."""
    report = GameReport(path=str(path))
    checker: _Checker | None = None
    line = 0
    try:
        for number, record in read_records(path):
            line = number
            report.records += 1
            if checker is None:
                checker = _Checker(record)
                report.game_id = checker.game_id
            else:
                checker.check(record, line)
        if checker is None:
            raise _Mismatch("empty file: no game header")
        checker.finish()
    except LogError as error:
        report.problem = _from_log_error(error, checker)
    except _Mismatch as error:
        report.problem = _discrepancy(str(path), line, error, checker)
    except (RecordError, RulesError) as error:
        report.problem = _discrepancy(str(path), line, _Mismatch(str(error)), checker)
    except _MALFORMED as error:  # a field of an unexpected shape that no check foresaw
        message = f"a malformed record: {type(error).__name__}: {error}"
        report.problem = _discrepancy(str(path), line, _Mismatch(message), checker)
    if checker is not None:
        report.hands = len(checker.state.hand_results)
        report.summary = checker.summary()
    return report


#: Errors of records whose fields have unexpected shapes.
_MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def _from_log_error(error: LogError, checker: _Checker | None) -> Discrepancy:
    """A read error (not JSON, a bad header) as a discrepancy at its line."""
    message = str(error).removeprefix(f"{error.path}:{error.line}: ")
    hand = checker.position()[0] if checker else None
    return Discrepancy(path=error.path, line=error.line, message=message, hand=hand)


def _discrepancy(path: str, line: int, error: _Mismatch, checker: _Checker | None) -> Discrepancy:
    """The report of a mismatch: its place is the record's unless the error says otherwise."""
    hand, trick = checker.position() if checker else (None, None)
    seat = error.seat
    if seat is None and checker is not None:
        recorded = checker.record.get("seat")
        seat = recorded if isinstance(recorded, int) and not isinstance(recorded, bool) else None
    return Discrepancy(
        path=path,
        line=line,
        message=error.message,
        hand=hand,
        trick=error.trick if error.trick is not None else trick,
        seat=seat,
    )


class _Checker:
    """Walks a game's records in step with the engine."""

    def __init__(self, header: dict[str, Any]) -> None:
        try:
            parsed = GameHeader.from_json(header)
        except RulesError as error:
            raise _Mismatch(f"bad rules in the header: {error}") from None
        self.game_id = str(parsed.game_id)
        self.rules: Rules = parsed.rules
        self.seed = parsed.seed
        seats = parsed.seats
        if len(seats) != self.rules.num_players:
            raise _Mismatch(f"{len(seats)} seats for {self.rules.num_players} players")
        self.bots = [s.bot for s in seats]
        self.max_faults = parsed.max_faults
        self.state = GameState.new(self.rules, self.seed)
        n = self.rules.num_players
        self.faults: list[Counter[str]] = [Counter() for _ in range(n)]
        self.forfeited = [False] * n
        #: A forfeit is written before the record that carries its fault.
        self.forfeit_pending: dict[int, int] = {}
        self.deals = 0
        self.hand_ends = 0
        self.trick_due: int | None = None
        self.ended = False
        self.record: dict[str, Any] = header
        self.line = 1
        #: The lines of the plays of the trick in progress (or just ended).
        self.play_lines: list[int] = []

    # Where we are ---------------------------------------------------------------

    def position(self) -> tuple[int | None, int | None]:
        """(hand, trick) of the current record, for the report."""
        record = self.record
        hand = record.get("hand") if isinstance(record.get("hand"), int) else None
        trick = record.get("trick") if isinstance(record.get("trick"), int) else None
        if record.get("type") == "game":
            return None, None
        if hand is None and not self.ended:
            hand = self.state.hand_number
        return hand, trick

    def expected(self) -> str:
        """The type of the next record, as the engine sees the game."""
        state = self.state
        if self.trick_due is not None:
            return "trick"
        if len(state.hand_results) > self.hand_ends:
            return "hand_end"
        if state.is_over:
            return "end" if self.ended else "game_end"
        if self.deals < state.hand_number:
            return "deal"
        return {Phase.PASSING: "pass", Phase.PLAYING: "play", Phase.MOON_CHOICE: "moon_choice"}[
            state.phase
        ]

    def describe(self, kind: str) -> str:
        """The expected record in words: ``"the play of seat 2 to trick 5"``."""
        state = self.state
        if kind == "trick":
            return f"the end of trick {self.trick_due}"
        if kind == "hand_end":
            return f"the scoring of hand {state.hand_results[self.hand_ends].hand_number}"
        if kind == "deal":
            return f"the deal of hand {state.hand_number}"
        if kind == "pass":
            waiting = ", ".join(str(s) for s in state.to_act())
            return f"a pass (seats {waiting} have not passed)"
        if kind == "play":
            return f"the play of seat {state.current} to trick {state.trick_number + 1}"
        if kind == "moon_choice":
            return f"the moon choice of seat {state.current}"
        if kind == "game_end":
            return "game_end"
        return "nothing more (the game has ended)"

    # Records -------------------------------------------------------------------

    def check(self, record: dict[str, Any], line: int) -> None:
        """Check one record (after the header) against the engine, and apply it."""
        self.record = record
        self.line = line
        kind = record["type"]
        if kind in ("fault", "forfeit"):
            getattr(self, f"_{kind}")(parse_record(record))
            return
        if kind == "game_abort":
            raise _Mismatch(f"the game was aborted: {record.get('reason', '?')}")
        expected = self.expected()
        if kind != expected:
            missing = " (a line missing?)" if kind in _ORDER and expected in _ORDER else ""
            raise _Mismatch(f"expected {self.describe(expected)}, found a {kind} record{missing}")
        getattr(self, f"_{kind}")(parse_record(record))

    def finish(self) -> None:
        """At the end of the file: the game must have ended."""
        if not self.ended:
            raise _Mismatch(
                f"the log ends before the game does: {self.describe(self.expected())} "
                "is missing (a truncated file?)"
            )
        if self.forfeit_pending:
            seat = min(self.forfeit_pending)
            raise _Mismatch("a forfeit with no record of its last fault", seat=seat)

    def _hand(self, record: Any, number: int) -> None:
        """The record belongs to hand ``number``."""
        if record.hand != number:
            raise _Mismatch(f"{record.TYPE} record of hand {record.hand} during hand {number}")

    def _seat(self, record: Any, key: str = "seat") -> int:
        """A seat field that names a seat at this table."""
        seat: int = getattr(record, key)
        if not 0 <= seat < self.state.n:
            raise _Mismatch(f"no seat {seat} at a table of {self.state.n}")
        return seat

    def _deal(self, record: DealRecord) -> None:
        """The deal is the seed's (``deal(rules, seed, hand)``), with the hand's pass direction."""
        state = self.state
        self._hand(record, state.hand_number)
        direction = record.pass_direction.value
        if direction != state.pass_direction.value:
            raise _Mismatch(
                f"pass direction {direction!r}, but hand {state.hand_number} passes "
                f"{state.pass_direction.value}"
            )
        hands = record.hands
        if len(hands) != state.n:
            raise _Mismatch(f"{len(hands)} hands dealt to {state.n} seats")
        dealt = deal(self.rules, self.seed, state.hand_number)
        for seat, (cards, mask) in enumerate(zip(hands, dealt, strict=True)):
            got = set(cards)
            want = set(card_list(mask))
            if got != want or len(cards) != len(want):
                raise _Mismatch(
                    f"the recorded deal is not the seed's: {_diff(got, want)}", seat=seat
                )
        self.deals += 1

    def _pass(self, record: PassRecord) -> None:
        """A legal pass by a seat that has not passed; a fallback is the seeded one."""
        state = self.state
        self._hand(record, state.hand_number)
        seat = self._seat(record)
        if seat not in state.to_act():
            raise _Mismatch("a second pass from this seat", seat=seat)
        cards = list(record.cards)
        self._source(record, seat)
        if record.fault and record.answer is not None:
            self._pass_fault(record, seat, record.fault.kind)
        if record.source == "fallback":
            decision = _decision(record)
            want = fallback_pass(self.seed, decision, state.hands[seat], self.rules.pass_count)
            if sorted(cards) != want:
                raise _Mismatch(
                    f"fallback pass {_cards(cards)}, but the seeded fallback is {_cards(want)}",
                    seat=seat,
                )
        try:
            state.pass_cards(seat, cards)
        except ActionError as error:
            raise _Mismatch(f"illegal pass {_cards(cards)}: {error}", seat=seat) from None

    def _pass_fault(self, record: PassRecord, seat: int, kind: str) -> None:
        """A refused pass: check that the engine refuses the recorded answer too."""
        if kind not in _PASS_FAULTS or record.answer is None:
            return
        try:
            answer = parse_card_list(record.answer, "the refused answer")
        except RecordError:
            return
        trial = self.state.copy()
        try:
            trial.pass_cards(seat, answer)
        except ActionError:
            return
        raise _Mismatch(
            f"a fault of kind {kind}, but the answer {_cards(answer)} is a legal pass", seat=seat
        )

    def _play(self, record: PlayRecord) -> None:
        """The right seat plays a legal card from exactly the engine's legal set."""
        state = self.state
        self._hand(record, state.hand_number)
        trick = record.trick
        if trick != state.trick_number + 1:
            raise _Mismatch(f"a play to trick {trick}, but trick {state.trick_number + 1} is on")
        seat = self._seat(record)
        if seat != state.current:
            raise _Mismatch(
                f"a play by seat {seat}, but seat {state.current} is to play", seat=seat
            )
        legal = list(record.legal)
        want = card_list(state.legal_mask())
        if legal != want:
            raise _Mismatch(
                f"the legal moves offered were {_cards(legal)}, but the engine's are "
                f"{_cards(want)} ({_diff(set(legal), set(want))})",
                seat=seat,
            )
        card = record.card
        self._source(record, seat)
        if record.fault and record.answer is not None:
            self._play_fault(record, seat, record.fault.kind)
        if record.source == "fallback":
            choice = fallback_play(self.seed, _decision(record), state.legal_mask())
            if card != choice:
                raise _Mismatch(
                    f"fallback card {card.symbol()}, but the seeded fallback is {choice.symbol()}",
                    seat=seat,
                )
        tricks = len(state.hand_results), state.trick_number
        if not state.trick_plays:
            self.play_lines = []
        self.play_lines.append(self.line)
        try:
            state.play(card, seat=seat)
        except ActionError as error:
            raise _Mismatch(f"illegal play {card.symbol()}: {error}", seat=seat) from None
        if (len(state.hand_results), state.trick_number) != tricks:
            self.trick_due = trick

    def _play_fault(self, record: PlayRecord, seat: int, kind: str) -> None:
        """A refused card: check that the engine refuses it for the recorded reason."""
        if kind not in _PLAY_FAULTS:
            return
        try:
            answer = Card.parse(str(record.answer))
        except ValueError:
            return
        try:
            self.state.check_play(seat, answer)
        except CardNotHeldError:
            if kind == FaultKind.CARD_NOT_HELD:
                return
        except ActionError:
            if kind == FaultKind.ILLEGAL_CARD:
                return
        else:
            raise _Mismatch(
                f"a fault of kind {kind}, but {answer.symbol()} is a legal play", seat=seat
            )
        raise _Mismatch(
            f"a fault of kind {kind}, but the engine refuses {answer.symbol()} for another reason",
            seat=seat,
        )

    def _trick(self, record: TrickRecord) -> None:
        """The trick just completed: its leader, cards, winner and points are the engine's."""
        done = self.state.last_trick
        assert done is not None and self.trick_due is not None
        self._hand(record, self.hand_ends + 1)
        number = record.trick
        if number != self.trick_due:
            raise _Mismatch(f"the end of trick {number}, but trick {self.trick_due} ended")
        recorded = {
            "leader": record.leader,
            "cards": [str(c) for c in record.cards],
            "winner": record.winner,
            "points": record.points,
        }
        engine = {
            "leader": done.leader,
            "cards": [str(c) for _, c in done.plays],
            "winner": done.winner,
            "points": done.points,
        }
        if recorded["cards"] != engine["cards"]:
            seat, _ = done.plays[_first_index_differing(recorded["cards"], engine["cards"])]
            raise _Mismatch(
                f"the trick's cards are recorded as {_show(recorded['cards'])}, but the plays "
                f"recorded (lines {self.play_lines[0]}-{self.play_lines[-1]}) were "
                f"{_show(engine['cards'])}: seat {seat}'s card differs",
                seat=seat,
                trick=number,
            )
        for key, value in recorded.items():
            if value != engine[key]:
                seat = done.winner if key in ("winner", "points") else None
                raise _Mismatch(
                    f"trick {key} recorded as {_show(value)}, but the engine's is "
                    f"{_show(engine[key])}",
                    seat=seat,
                    trick=number,
                )
        self.trick_due = None

    def _moon_choice(self, record: MoonChoiceRecord) -> None:
        """The shooter's choice (V2 shooter_chooses); a fallback is add_to_others."""
        state = self.state
        self._hand(record, state.hand_number)
        seat = self._seat(record)
        if seat != state.current:
            raise _Mismatch(f"a moon choice by seat {seat}; seat {state.current} shot the moon")
        self._source(record, seat)
        choice = record.choice
        if record.source == "fallback" and choice is not FALLBACK_MOON_CHOICE:
            raise _Mismatch("the fallback moon choice is add_to_others", seat=seat)
        try:
            state.choose_moon_scoring(seat, choice)
        except ActionError as error:
            raise _Mismatch(f"illegal moon choice: {error}", seat=seat) from None

    def _hand_end(self, record: HandEndRecord) -> None:
        """The hand's points, scores, moon and totals are the engine's."""
        result = self.state.hand_results[self.hand_ends]
        self._hand(record, result.hand_number)
        engine = {
            "points": list(result.points),
            "scores": list(result.scores),
            "moon_shooter": result.moon_shooter,
            "moon_scoring": result.moon_scoring.value if result.moon_scoring else None,
            "totals": list(result.totals),
        }
        _compare(record.to_json(), engine, "hand")
        self.hand_ends += 1

    def _game_end(self, record: GameEndRecord) -> None:
        """The outcome is the engine's; the forfeits and fault counts are the log's."""
        outcome = self.state.outcome
        assert outcome is not None
        engine: dict[str, Any] = {
            "scores": list(outcome.scores),
            "placements": list(outcome.placements),
            "winners": list(outcome.winners),
            "hands": outcome.hands_played,
            "forfeited": self.forfeited,
            "faults": [dict(c) for c in self.faults],
        }
        recorded = record.to_json()
        recorded["faults"] = [_fault_counts(f) for f in recorded["faults"]]
        _compare(recorded, engine, "game")
        self.ended = True

    def _fault(self, record: FaultRecord) -> None:
        """A fault outside a decision counts like any other."""
        seat = self._seat(record)
        self._count_fault(seat, record.kind)

    def _forfeit(self, record: ForfeitRecord) -> None:
        """A forfeit comes with the fault that reaches max_faults (the next one recorded)."""
        seat = self._seat(record)
        if self.forfeited[seat]:
            raise _Mismatch("a second forfeit", seat=seat)
        faults = record.faults
        have = sum(self.faults[seat].values())
        if faults != have + 1 or (self.max_faults and faults != self.max_faults):
            raise _Mismatch(
                f"a forfeit at {faults} faults, but the seat had {have} before this one "
                f"(max_faults {self.max_faults})",
                seat=seat,
            )
        self.forfeited[seat] = True
        self.forfeit_pending[seat] = faults

    # Faults and fallbacks --------------------------------------------------------

    def _source(self, record: PassRecord | PlayRecord | MoonChoiceRecord, seat: int) -> None:
        """The move's source agrees with its fault and the seat's forfeit; count the fault."""
        source = record.source
        fault = record.fault
        if source not in _SOURCES:
            raise _Mismatch(f"unknown source {source!r}", seat=seat)
        if fault is not None:
            if source != "fallback":
                raise _Mismatch("a fault, but the bot's move was used", seat=seat)
            self._count_fault(seat, fault.kind)
        elif source == "fallback" and not self.forfeited[seat]:
            raise _Mismatch("a fallback move without a fault (and no forfeit)", seat=seat)
        elif source == "bot" and self.forfeited[seat]:
            raise _Mismatch("a move from a bot that had forfeited", seat=seat)

    def _count_fault(self, seat: int, kind: str) -> None:
        self.faults[seat][kind] += 1
        self.forfeit_pending.pop(seat, None)
        total = sum(self.faults[seat].values())
        if self.max_faults and total >= self.max_faults and not self.forfeited[seat]:
            raise _Mismatch(
                f"fault {total} (max_faults {self.max_faults}) without a forfeit", seat=seat
            )

    # The result --------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """The results as far as the log went, in the journal's terms."""
        state = self.state
        results = state.hand_results
        outcome = state.outcome
        return {
            "game_id": self.game_id,
            "seed": self.seed,
            "bots": self.bots,
            "scores": list(outcome.scores) if outcome else list(state.scores),
            "placements": list(outcome.placements) if outcome else None,
            "winners": list(outcome.winners) if outcome else None,
            "hand_scores": [list(r.scores) for r in results],
            "moons": [sum(1 for r in results if r.moon_shooter == s) for s in range(state.n)],
            "faults": [dict(c) for c in self.faults],
            "forfeited": list(self.forfeited),
        }


def _decision(record: PassRecord | PlayRecord) -> str:
    """The decision id a fallback is seeded with: it must be recorded."""
    if not record.decision:
        raise RecordError(f"{record.TYPE} record has no 'decision'")
    return record.decision


#: Record types that follow one another in a fixed order.
_ORDER = {"deal", "pass", "play", "trick", "moon_choice", "hand_end", "game_end"}


def _compare(record: dict[str, Any], engine: dict[str, Any], what: str) -> None:
    """Raise at the first field of ``record`` that differs from the engine's value."""
    for key, want in engine.items():
        if key not in record:
            raise _Mismatch(f"the {what}'s {key} is not recorded")
        got = record[key]
        if got == want:
            continue
        seat = None
        if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
            seat = _first_index_differing(got, want)
        raise _Mismatch(
            f"the {what}'s {key} recorded as {_show(got)}, but the engine's are {_show(want)}",
            seat=seat,
        )


def _first_index_differing(a: list[Any], b: list[Any]) -> int:
    """The first index where two lists differ (0 if their lengths differ)."""
    if len(a) != len(b):
        return 0
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y), 0)


def _fault_counts(value: Any) -> Any:
    """A seat's ``{kind: count}`` without zero counts, for comparison."""
    if not isinstance(value, dict):
        return value
    return {k: v for k, v in value.items() if v}


def _cards(cards: list[Card]) -> str:
    return " ".join(c.symbol() for c in cards) or "(none)"


def _diff(got: set[Card], want: set[Card]) -> str:
    extra, missing = sorted(got - want), sorted(want - got)
    parts = []
    if extra:
        parts.append(f"has {_cards(extra)} too many")
    if missing:
        parts.append(f"lacks {_cards(missing)}")
    return "; ".join(parts) or "a card repeated"


def _show(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(Card.parse(v).symbol() for v in value)
    return json.dumps(value)


# A tournament folder --------------------------------------------------------------

#: Journal fields compared with what the game's log says.
_JOURNAL_FIELDS = (
    "game_id",
    "seed",
    "bots",
    "scores",
    "placements",
    "winners",
    "hand_scores",
    "moons",
    "faults",
    "forfeited",
)
# The folder's file names, from their one owner.
JOURNAL_NAME = Layout(pathlib.Path()).journal.name
GAMES_DIR = Layout(pathlib.Path()).games.name
STATE_NAME = Layout(pathlib.Path()).state.name
#: The facts of tournament.json that every run entry of the journal repeats under its MAC.
_SEALED_FACTS = ("name", "seed", "config_hash", "participants", "excluded", "games_scheduled")


def verify_entry(path: str | os.PathLike[str], entry: dict[str, Any]) -> GameReport:
    """:func:`verify_log`, and then the results of ``entry`` (a journal line) against the log.

    The tournament runs this on every finished game before journaling it.
    """
    report = verify_log(path)
    if report.ok:
        report.problem = _journal_against_log(pathlib.Path(path), 0, entry, report)
    return report


def verify_folder(
    folder: str | os.PathLike[str],
    *,
    key: bytes | None = None,
    authenticate: bool = True,
    on_start: Callable[[int], None] | None = None,
    on_game: Callable[[GameReport], None] | None = None,
    workers: int = 1,
) -> FolderReport:
    """Verify every game of a tournament folder, its journal and its standings.

    With ``authenticate`` (the default), the journal's line MACs, each game
    log's MAC and the deal seeds are checked with ``key``, by default the
    folder's key file (:mod:`referee.folder.seal`); a folder without a key is then
    a problem, since its results cannot be authenticated. Without
    ``authenticate``, only the rules and the consistency of the files are
    checked. ``on_start`` is told how many games will be replayed, and
    ``on_game`` sees each game's report as it is made, in journal order (for
    progress output).

    The games are independent, so with ``workers`` above 1 they are checked
    in that many processes (:func:`cpu_count` for every core); the report is
    the same, in the same order.
    """
    root = pathlib.Path(folder)
    report = FolderReport(folder=str(root))
    journal_path = root / JOURNAL_NAME
    state = _read_state(root, report)
    if authenticate:
        key = _folder_key(root, key, state, report)
    else:
        key = None
        report.notes.append(
            "not authenticated (no key): the games follow the rules and the files agree, "
            "but a log and journal rewritten consistently would pass too"
        )
    end = JournalEnd()
    everything = _read_journal(journal_path, report, key, end)
    # Its end is checked once the games are (their problems come first in the report), and
    # not at all when the state, the key or a line has failed already (a broken chain).
    check_end = not report.problems
    entries = [(line, e) for line, e in everything if _is_game_entry(e)]
    report.journal_entries = len(entries)
    seen: dict[str, int] = {}
    # The journal in order: a problem found from the journal alone, or a game to check.
    steps: list[Discrepancy | tuple[int, dict[str, Any], pathlib.Path]] = []
    for line, entry in entries:
        game_id = str(entry.get("game_id", ""))
        if game_id in seen:
            steps.append(
                Discrepancy(
                    path=str(journal_path),
                    line=line,
                    message=f"game {game_id} is in the journal twice (also line {seen[game_id]})",
                )
            )
            continue
        seen[game_id] = line
        log = _log_of(root, entry)
        if log is None:
            steps.append(
                Discrepancy(path=str(journal_path), line=line, message=f"game {game_id} has no log")
            )
            continue
        steps.append((line, entry, log))
    jobs = [
        (log, key, journal_path, line, {k: entry.get(k) for k in ("game_id", "log_mac")})
        for step in steps
        if not isinstance(step, Discrepancy)
        for line, entry, log in [step]
    ]
    if on_start:
        on_start(len(jobs))
    with _game_checks(jobs, workers) as games:
        for step in steps:
            if isinstance(step, Discrepancy):
                report.problems.append(step)
                continue
            line, entry, _ = step
            game = next(games)
            report.games.append(game)
            if on_game:
                on_game(game)
            if game.ok:
                problem = _journal_against_log(journal_path, line, entry, game)
                if problem:
                    report.problems.append(problem)
    if check_end:
        _check_end(root, state, end, key, report)
    if key is not None:
        _check_sealed_facts(root, state, everything, report)
        _check_schedule(root, state, key, entries, report)
    _unjournaled_logs(root, seen, report)
    _schedule_note(root, len(seen.keys() | report.refused_games - {""}), report)
    if key is not None and not report.ok:
        report.notes.append("standings not checked: the folder failed authentication")
    else:
        _check_standings(root, [e for _, e in everything], report, key)
    return report


def _read_state(root: pathlib.Path, report: FolderReport) -> dict[str, Any] | None:
    """tournament.json as data, or None (with a note) when there is none."""
    path = root / STATE_NAME
    if not path.is_file():
        report.notes.append(f"no {STATE_NAME}: the schedule and the deal seeds not checked")
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:
        report.problems.append(Discrepancy(path=str(path), line=0, message=f"unreadable: {error}"))
        return None
    if not isinstance(state, dict):
        report.problems.append(Discrepancy(path=str(path), line=0, message="not a JSON object"))
        return None
    problem = state_problem(state)
    if problem:
        report.problems.append(Discrepancy(path=str(path), line=0, message=problem))
        return None
    return state


def _folder_key(
    root: pathlib.Path, key: bytes | None, state: dict[str, Any] | None, report: FolderReport
) -> bytes | None:
    """The key to authenticate with (given, else the folder's); None with a problem if none."""
    where = str(root / seal.KEY_NAME)
    if key is None:
        try:
            key = seal.folder_key(root)
        except seal.SealError as error:
            report.problems.append(Discrepancy(path=where, line=0, message=error.reason))
            return None
        if key is None:
            report.problems.append(
                Discrepancy(
                    path=where,
                    line=0,
                    message=(
                        "no key file, so the journal and the logs cannot be authenticated "
                        "(a folder published without its key): give the key, or check the "
                        "games against the rules only"
                    ),
                )
            )
            return None
    else:
        where = "the key given"
    expected = state.get("key_id") if state else None
    if expected is not None and expected != seal.key_id(key):
        report.problems.append(
            Discrepancy(
                path=str(root / STATE_NAME),
                line=0,
                message=(
                    f"the tournament's key id is {expected}, but {where} has {seal.key_id(key)}: "
                    "not this tournament's key (nothing was authenticated)"
                ),
            )
        )
        return None
    report.authenticated_with = where
    return key


def cpu_count() -> int:
    """The cores this process may run on (its affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: Games handed to a worker process at a time: few enough for a smooth progress line,
#: enough that a game's check (15-25 ms) outweighs the hand-over.
_CHUNK = 8


@contextlib.contextmanager
def _game_checks(
    jobs: list[tuple[pathlib.Path, bytes | None, pathlib.Path, int, dict[str, Any]]],
    workers: int,
) -> Iterator[Iterator[GameReport]]:
    """The reports of :func:`_verify_game` for ``jobs``, in order, from ``workers`` processes."""
    workers = max(1, min(workers, len(jobs)))
    if workers == 1:
        yield (_verify_game_job(job) for job in jobs)
        return
    # Forked workers start at once with the referee imported; a process that runs
    # threads (a server, say) spawns them instead, since forking it is unsafe.
    method = "fork" if threading.active_count() == 1 and os.name == "posix" else "spawn"
    pool = concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context(method), initializer=_leave_ctrl_c
    )
    try:
        yield pool.map(_verify_game_job, jobs, chunksize=_CHUNK)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _leave_ctrl_c() -> None:
    """In a worker: Ctrl-C is the parent's to handle (it stops the pool), not a traceback here."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _verify_game_job(
    job: tuple[pathlib.Path, bytes | None, pathlib.Path, int, dict[str, Any]],
) -> GameReport:
    return _verify_game(*job)


def _verify_game(
    log: pathlib.Path,
    key: bytes | None,
    journal_path: pathlib.Path,
    line: int,
    entry: dict[str, Any],
) -> GameReport:
    """The game's report: its log's MAC (with a key) and then its replay."""
    if key is not None:
        try:
            data = log.read_bytes()
        except OSError as error:
            problem = Discrepancy(path=str(log), line=0, message=f"unreadable: {error.strerror}")
            return GameReport(path=str(log), game_id=str(entry.get("game_id")), problem=problem)
        mac = entry.get("log_mac")
        if not isinstance(mac, str) or mac != seal.log_mac(key, data):
            message = (
                f"refused: the log does not match the MAC journaled for it ({journal_path}:{line}): "
                "it was changed after the game, or comes from another tournament"
            )
            problem = Discrepancy(path=str(log), line=0, message=message)
            return GameReport(path=str(log), game_id=str(entry.get("game_id")), problem=problem)
    return verify_log(log)


def _read_journal(
    path: pathlib.Path, report: FolderReport, key: bytes | None, end: JournalEnd
) -> list[tuple[int, dict[str, Any]]]:
    """The journal's entries (objects); a bad line is a problem (and is skipped).

    With ``key`` every line's MAC is checked (:func:`referee.folder.seal.check_line`):
    a line that fails is refused, and the chain goes on from the MAC it carries,
    so that only the lines changed, or those after a gap, are refused. ``end``
    sees every entry that passed, for :func:`_check_end`.
    """
    if not path.is_file():
        report.problems.append(
            Discrepancy(path=str(path), line=0, message="no journal: not a tournament folder?")
        )
        return []
    entries = []
    previous = ""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            if not raw.endswith(b"\n"):
                report.notes.append(
                    f"{path}:{number}: a torn last line (a kill mid-write), ignored as the "
                    "tournament does; its game is played again on resume"
                )
                break
            mac = seal.line_mac(raw)
            if key is not None:
                try:
                    previous = seal.check_line(key, previous, raw)
                except seal.SealError as error:
                    report.problems.append(
                        Discrepancy(path=str(path), line=number, message=f"refused: {error}")
                    )
                    previous = seal.line_mac(raw) or previous
                    report.refused_games.add(_game_id_of(raw))
                    continue
            try:
                entry = json.loads(raw)
            except (ValueError, RecursionError) as error:
                message = (
                    error.msg if isinstance(error, json.JSONDecodeError) else "too long or deep"
                )
                report.problems.append(
                    Discrepancy(path=str(path), line=number, message=f"not JSON: {message}")
                )
                continue
            if isinstance(entry, dict):
                problem = entry_problem(entry) if isinstance(entry.get("type"), str) else None
                if problem:
                    report.problems.append(
                        Discrepancy(
                            path=str(path),
                            line=number,
                            message=f"a {entry['type']} entry: {problem}",
                        )
                    )
                    continue
                if isinstance(entry.get("type"), str):
                    end.add(number, entry, mac)
                entries.append((number, entry))
    return entries


def _check_end(
    root: pathlib.Path,
    state: dict[str, Any] | None,
    end: JournalEnd,
    key: bytes | None,
    report: FolderReport,
) -> None:
    """A finished tournament's journal must end as ``tournament.json`` records it (not cut).

    Left out (by the caller) when the journal or ``tournament.json`` has
    already failed (a refused line breaks the chain), and here when the state
    could not be read, so the report names the first cause, not its echoes.
    """
    state_path = root / STATE_NAME
    if state is None and state_path.exists():
        return
    parsed = TournamentState.from_dict(state) if state is not None else None
    for path, line, message in end_problems(end, parsed, Layout(root), key):
        report.problems.append(Discrepancy(path=str(path), line=line, message=message))
    if parsed is None or not end.promised or parsed.config.get("gauntlet"):
        return
    scheduled = parsed.games_scheduled
    if scheduled and end.games >= scheduled and end.last_type != "end":
        report.notes.append(
            f"not closed: every one of the {scheduled} scheduled games is in the journal, but no "
            "end entry follows them: the referee stopped before it closed the journal (run the "
            "tournament again to close it), or the end entry was removed and tournament.json "
            "put back to a copy from before the end"
        )


def _game_id_of(raw: bytes) -> str:
    """The game id a journal line claims (for the notes only), or ""."""
    try:
        entry = json.loads(raw)
    except (ValueError, RecursionError):
        return ""
    return str(entry.get("game_id", "")) if _is_game_entry(entry) else ""


def _check_sealed_facts(
    root: pathlib.Path,
    state: dict[str, Any] | None,
    entries: list[tuple[int, dict[str, Any]]],
    report: FolderReport,
) -> None:
    """tournament.json must say what the journal's (authenticated) run entries say."""
    if state is None:
        return
    runs = [(line, e) for line, e in entries if e.get("type") == "run"]
    for line, run in runs:
        for name in _SEALED_FACTS:
            if name in run and run[name] != state.get(name):
                report.problems.append(
                    Discrepancy(
                        path=str(root / STATE_NAME),
                        line=0,
                        message=(
                            f"its {name} {json.dumps(state.get(name))} disagrees with the run "
                            f"entry sealed in {root / JOURNAL_NAME}:{line}: {json.dumps(run[name])}"
                        ),
                    )
                )
                return


def _check_schedule(
    root: pathlib.Path,
    state: dict[str, Any] | None,
    key: bytes,
    entries: list[tuple[int, dict[str, Any]]],
    report: FolderReport,
) -> None:
    """Each game is the schedule's: its place, its seats and its deal seed (from the key)."""
    if state is None:
        return
    from referee.tournament.schedule import make_schedule

    try:
        config = state["config"]
        settings = config["schedule"]
        if config.get("gauntlet"):  # format: gauntlet: its paired schedule
            from referee.tournament.gauntlet import schedule_from_config

            schedule = schedule_from_config(config, seed=state["seed"], key=key).by_id()
        else:
            schedule = make_schedule(
                state.get("participants") or list(config["bots"]),
                table_size=config["rules"]["num_players"],
                deal_sets=settings["deal_sets"],
                duplicate=settings["duplicate"],
                all_permutations=settings["all_permutations"],
                max_tables=settings["max_tables"],
                seed=state["seed"],
                key=key,
            ).by_id()
    except (KeyError, TypeError, ValueError) as error:
        report.problems.append(
            Discrepancy(
                path=str(root / STATE_NAME),
                line=0,
                message=f"cannot make the tournament's schedule from it: {error!r}",
            )
        )
        return
    journal_path = str(root / JOURNAL_NAME)
    for line, entry in entries:
        game_id = entry.get("game_id")
        game = schedule.get(game_id) if isinstance(game_id, str) else None
        if game is None:
            report.problems.append(
                Discrepancy(
                    path=journal_path, line=line, message=f"game {game_id} is not in the schedule"
                )
            )
            continue
        want = {"seed": game.seed, "bots": list(game.bots), **game.meta()}
        for name, value in want.items():
            if name in entry and entry[name] != value:
                what = "the key's deal seed for its place" if name == "seed" else "the schedule's"
                report.problems.append(
                    Discrepancy(
                        path=journal_path,
                        line=line,
                        message=(
                            f"game {game_id}: its {name} {json.dumps(entry[name])} is not "
                            f"{what} ({json.dumps(value)})"
                        ),
                    )
                )
                break


def _is_game_entry(entry: Any) -> bool:
    """A journal line that records a game (other lines: schedule, bots)."""
    return (
        isinstance(entry, dict)
        and entry.get("type", "game") == "game"
        and "game_id" in entry
        and "scores" in entry
    )


def _log_of(root: pathlib.Path, entry: dict[str, Any]) -> pathlib.Path | None:
    """The log of a journal entry: its ``log_path``, or ``games/<id>.jsonl`` (older folders)."""
    candidates = [Layout(root).game_log(str(entry.get("game_id")))]
    log_path = entry.get("log_path")
    if isinstance(log_path, str) and log_path:
        given = pathlib.Path(log_path)
        candidates += [given] if given.is_absolute() else [root / given, given]
    return next((c for c in candidates if c.is_file()), None)


def _journal_against_log(
    path: pathlib.Path, line: int, entry: dict[str, Any], game: GameReport
) -> Discrepancy | None:
    """The first journal field that disagrees with the game's log."""
    for key in _JOURNAL_FIELDS:
        if key not in entry:
            continue
        got, want = _normal(key, entry[key]), _normal(key, game.summary.get(key))
        if got != want:
            return Discrepancy(
                path=str(path),
                line=line,
                message=(
                    f"game {game.game_id}: the journal's {key} {json.dumps(entry[key])} "
                    f"disagree with its log ({game.path}): {json.dumps(game.summary.get(key))}"
                ),
            )
    return None


def _normal(key: str, value: Any) -> Any:
    if key == "faults" and isinstance(value, list):
        return [_fault_counts(v) for v in value]
    if key in ("seed", "game_id"):
        return str(value)
    return value


def _unjournaled_logs(root: pathlib.Path, seen: dict[str, int], report: FolderReport) -> None:
    known = seen.keys() | report.refused_games
    extra = sorted(
        Layout(root).relative(path)
        for game_id, path in Layout(root).game_logs()
        if game_id not in known
    )
    if extra:
        shown = ", ".join(extra[:5]) + (" ..." if len(extra) > 5 else "")
        report.notes.append(
            f"{len(extra)} game log(s) not in the journal (unfinished games, "
            f"played again on resume): {shown}"
        )


def _schedule_note(root: pathlib.Path, games: int, report: FolderReport) -> None:
    """Say so when the tournament's state file schedules games the journal does not have."""
    try:
        state = json.loads((root / STATE_NAME).read_text(encoding="utf-8"))
        scheduled = state.get("games_scheduled")
    except (OSError, ValueError, AttributeError, RecursionError):
        return
    config = state.get("config") if isinstance(state, dict) else None
    gauntlet = isinstance(config, dict) and config.get("gauntlet")
    if isinstance(scheduled, int) and games < scheduled and gauntlet:
        report.notes.append(
            f"a gauntlet: {games} of at most {scheduled} games are in the journal "
            "(it stops when its test decides; referee gauntlet FOLDER shows the result)"
        )
        return
    if isinstance(scheduled, int) and games < scheduled:
        report.notes.append(
            f"unfinished: {games} of {scheduled} scheduled games are in the journal "
            "(run the tournament again to resume it)"
        )


STANDINGS_NAME = Layout(pathlib.Path()).standings_json.name


def _check_standings(
    root: pathlib.Path,
    entries: list[dict[str, Any]],
    report: FolderReport,
    key: bytes | None,
) -> None:
    """Compare the folder's standings file with standings recomputed from the journal."""
    path = root / STANDINGS_NAME
    if not path.is_file():
        report.notes.append(f"no {STANDINGS_NAME}: standings not checked")
        return
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:
        report.problems.append(Discrepancy(path=str(path), line=0, message=f"unreadable: {error}"))
        return
    try:
        fresh = _recompute_standings(root, saved, entries, key)
    except (KeyError, TypeError, ValueError) as error:
        report.problems.append(
            Discrepancy(path=str(path), line=0, message=f"cannot recompute the standings: {error}")
        )
        return
    difference = _first_difference(saved, fresh)
    if difference:
        report.problems.append(
            Discrepancy(
                path=str(path),
                line=0,
                message=f"{difference} (recomputed from the journal)",
            )
        )
    report.standings_checked = str(path)


def _recompute_standings(
    root: pathlib.Path, saved: dict[str, Any], entries: list[dict[str, Any]], key: bytes | None
) -> dict[str, Any]:
    """Standings recomputed from the journal with the saved file's ranking.

    The tournament's own :func:`~referee.tournament.load_standings` is used
    (authenticating with ``key`` when there is one) when the folder has its
    state file; otherwise the bots, name and ranking come from the saved
    standings.
    """
    from referee.stats import standings

    if saved.get("format") != standings.STANDINGS_FORMAT:
        raise ValueError(f"not a {standings.STANDINGS_FORMAT} file")
    if Layout(root).state.is_file():
        try:
            table = load_standings(
                root, ranking=saved["ranking"], key=key, authenticate=key is not None
            )
        except TournamentError as error:
            raise ValueError(str(error)) from None
        return table.to_dict()
    rows = saved["bots"]
    excluded = {r["bot"]: r.get("reason", "") for r in rows if r.get("status") == "build_failed"}
    table = standings.compute_standings(
        entries,
        bots=[r["bot"] for r in rows],
        excluded=excluded,
        ranking=saved["ranking"],
        name=saved.get("tournament", ""),
        games_scheduled=saved.get("games_scheduled"),
    )
    return table.to_dict()


def _first_difference(saved: Any, fresh: Any, where: str = "") -> str | None:
    """Where two JSON values first differ (floats within 1e-6), or None."""
    if isinstance(saved, dict) and isinstance(fresh, dict):
        for key in sorted(set(saved) | set(fresh)):
            if key not in fresh or key not in saved:
                return f"{where}.{key} is only in one of them".lstrip(".")
            found = _first_difference(saved[key], fresh[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(saved, list) and isinstance(fresh, list) and len(saved) == len(fresh):
        for index, (a, b) in enumerate(zip(saved, fresh, strict=True)):
            found = _first_difference(a, b, f"{where}[{index}]")
            if found:
                return found
        return None
    numbers = (int, float)
    if isinstance(saved, numbers) and isinstance(fresh, numbers):
        if abs(saved - fresh) <= 1e-6 * max(1.0, abs(fresh)):
            return None
    elif saved == fresh:
        return None
    return f"{where.lstrip('.')} is {json.dumps(saved)}, but {json.dumps(fresh)}"
