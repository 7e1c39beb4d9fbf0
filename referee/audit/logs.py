"""Audits of game logs against the engine: :func:`verify_log` and :func:`verify_entry`.

:func:`verify_log` replays one game log through the engine, record by
record, and stops at the first discrepancy: a deal that is not the seed's, a
pass or play the rules refuse, an offered legal set that is not the engine's,
a fallback move that is not the seeded one (docs/log-format.md), a trick,
hand or game result other than the engine's, fault counts and forfeits that
do not add up, or a record out of place (a missing or extra line). A
damaged file (not JSON, cut short, a wrong header) is reported the same way,
naming the file and line.

:func:`verify_entry` is the check the tournament runs on each game before
journaling it: the log's replay, and the journal entry's results against it.

This module knows game logs only (it imports the engine, :mod:`referee.match.gamelog`
and :mod:`referee.match.fallback`, nothing of tournaments or their folders), so
the tournament runner can use it without the folder audit
(:mod:`referee.audit.folder`) and what that reads.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
from collections import Counter
from typing import Any

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
    read_log,
)

__all__ = [
    "Discrepancy",
    "GameReport",
    "journal_against_log",
    "verify_entry",
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
        for number, record in read_log(path):
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


# A game's journal entry -----------------------------------------------------------

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


def verify_entry(path: str | os.PathLike[str], entry: dict[str, Any]) -> GameReport:
    """:func:`verify_log`, and then the results of ``entry`` (a journal line) against the log.

    The tournament runs this on every finished game before journaling it.
    """
    report = verify_log(path)
    if report.ok:
        report.problem = journal_against_log(pathlib.Path(path), 0, entry, report)
    return report


def journal_against_log(
    path: pathlib.Path, line: int, entry: dict[str, Any], game: GameReport
) -> Discrepancy | None:
    """The first field of ``entry`` (a journal line, ``path:line``) that disagrees with ``game``.

    ``game`` is the report of the entry's log (:func:`verify_log`); None when they agree.
    """
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
