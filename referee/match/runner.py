"""The match runner: play one game from a :class:`GameSpec` and return its :class:`GameRecord`.

:func:`play_game` is self-contained: given the spec (plain data, JSON-ready)
and a player per seat, it runs the authoritative engine, asks each bot for its
decisions under the time control, applies the fault policy, writes the game
log as it goes, and returns the result record. Tournaments call it once per
game, in worker processes or threads; a distributed runner can ship specs to
its workers the same way.

Fault policy (fixed before play, recorded in the log header): a timeout, an
illegal or malformed answer, an RPC error or a dead process is recorded as a
fault of its kind and the seat gets a fallback move, a choice among the legal
moves seeded by the game seed and the decision id, so the game goes on. After
``max_faults`` faults in a game, the seat is played by the fallback for the
rest of it and has forfeited the game.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import datetime
import logging
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from referee import __version__
from referee.engine import (
    Card,
    GameState,
    MoonScoring,
    Phase,
    Rules,
    card_list,
)
from referee.engine.errors import ActionError
from referee.match.fallback import (
    FALLBACK_MOON_CHOICE,
    fallback_pass,
    fallback_play,
    moon_decision,
    pass_decision,
    play_decision,
)
from referee.match.gamelog import (
    DealRecord,
    Fault,
    FaultRecord,
    ForfeitRecord,
    GameAbortRecord,
    GameEndRecord,
    GameHeader,
    GameLogWriter,
    HandEndRecord,
    LogRecord,
    MoonChoiceRecord,
    PassRecord,
    PlayRecord,
    SeatInfo,
    TrickRecord,
)
from referee.players.base import BotFault, BotInfo, Deadline, FaultKind, Player
from referee.players.policy import FaultPolicy, TimeControl

__all__ = ["GameRecord", "GameSpec", "play_game"]

log = logging.getLogger(__name__)

# Remote bots are called at once where the game allows it: passing is
# simultaneous (R2), and the notifications (StartGame, DealHand, EndHand,
# EndGame) of the seats are independent, so a table waits for its slowest bot
# rather than for the sum of its bots' round trips.
_CALL_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=32, thread_name_prefix="calls")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class GameSpec:
    """Everything that defines one game, as plain data."""

    game_id: str
    seed: int | str
    #: The bot ids by seat (tournament names, or names given on the command line).
    bots: tuple[str, ...]
    rules: Rules = dataclasses.field(default_factory=Rules)
    time_control: TimeControl = dataclasses.field(default_factory=TimeControl)
    fault_policy: FaultPolicy = dataclasses.field(default_factory=FaultPolicy)
    #: Anything the caller wants in the log header (tournament, table, rotation).
    meta: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: A clock of its own for some seats, by seat (a human's generous one: ``referee play``);
    #: the other seats play under ``time_control``. Recorded in the header's time control.
    seat_time_controls: dict[int, TimeControl] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.bots) != self.rules.num_players:
            raise ValueError(
                f"game {self.game_id}: {len(self.bots)} bots for {self.rules.num_players} seats"
            )
        for seat in self.seat_time_controls:
            if not 0 <= seat < self.rules.num_players:
                raise ValueError(f"game {self.game_id}: a time control for no seat ({seat})")

    def to_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "seed": self.seed,
            "bots": list(self.bots),
            "rules": self.rules.to_dict(),
            "time_control": self.time_control.to_dict(),
            "fault_policy": self.fault_policy.to_dict(),
            "meta": self.meta,
            "seat_time_controls": {
                str(s): tc.to_dict() for s, tc in self.seat_time_controls.items()
            },
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameSpec:
        return cls(
            game_id=data["game_id"],
            seed=data["seed"],
            bots=tuple(data["bots"]),
            rules=Rules.from_dict(data["rules"]),
            time_control=TimeControl(**data["time_control"]),
            fault_policy=FaultPolicy(**data["fault_policy"]),
            meta=dict(data.get("meta", {})),
            seat_time_controls={
                int(s): TimeControl(**tc) for s, tc in data.get("seat_time_controls", {}).items()
            },
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class GameRecord:
    """The result of one game: what standings and journals are made of."""

    game_id: str
    seed: int | str
    bots: tuple[str, ...]
    #: Final totals by seat.
    scores: tuple[int, ...]
    #: Placement by seat (1 = first; ties share).
    placements: tuple[int, ...]
    winners: tuple[int, ...]
    #: What each seat scored in each hand (after moon scoring), hand by hand.
    hand_scores: tuple[tuple[int, ...], ...]
    #: Moons shot, by seat.
    moons: tuple[int, ...]
    #: Faults by seat, as {kind: count}.
    faults: tuple[dict[str, int], ...]
    forfeited: tuple[bool, ...]
    #: Decisions asked of each seat, and the time they took in all (ms).
    decisions: tuple[int, ...]
    think_ms: tuple[float, ...]
    log_path: str
    duration_s: float
    meta: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        for key, value in data.items():
            if isinstance(value, tuple):
                data[key] = [list(v) if isinstance(v, tuple) else v for v in value]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in fields}
        for key in (
            "bots",
            "scores",
            "placements",
            "winners",
            "moons",
            "forfeited",
            "decisions",
            "think_ms",
        ):
            values[key] = tuple(values[key])
        values["hand_scores"] = tuple(tuple(h) for h in values["hand_scores"])
        values["faults"] = tuple(dict(f) for f in values["faults"])
        return cls(**values)


class _Seat:
    """The referee's bookkeeping for one seat in one game."""

    def __init__(self, seat: int, bot: str, player: Player, tc: TimeControl) -> None:
        self.seat = seat
        self.bot = bot
        self.player = player
        #: This seat's clock: the game's, or its own (GameSpec.seat_time_controls).
        self.tc = tc
        self.bank_ms = tc.time_bank_ms
        self.faults: collections.Counter[str] = collections.Counter()
        self.forfeited = False
        self.decisions = 0
        self.think_ms = 0.0

    @property
    def fault_count(self) -> int:
        return sum(self.faults.values())


class _Game:
    def __init__(
        self,
        spec: GameSpec,
        players: Sequence[Player],
        writer: GameLogWriter,
        on_event: Callable[[str, dict[str, Any]], None] | None,
    ) -> None:
        self.spec = spec
        self.tc = spec.time_control
        self.policy = spec.fault_policy
        self.state = GameState.new(spec.rules, spec.seed)
        self.writer = writer
        self.on_event = on_event
        self.seats = [
            _Seat(s, bot, player, spec.seat_time_controls.get(s, spec.time_control))
            for s, (bot, player) in enumerate(zip(spec.bots, players, strict=True))
        ]

    # Recording -----------------------------------------------------------------

    def write(self, record: LogRecord) -> None:
        # The writer makes the line in its own thread (see play_game), unless on_event
        # needs the JSON object now: a human seat follows the game by it before its turn.
        if self.on_event is None:
            self.writer.write(record)
            return
        data = record.to_json()
        self.writer.write(data)
        self.on_event(record.TYPE, data)

    def fault(self, seat: _Seat, kind: str, message: str) -> Fault:
        seat.faults[kind] += 1
        log.info(
            "game %s seat %d (%s): %s: %s", self.spec.game_id, seat.seat, seat.bot, kind, message
        )
        if (
            not seat.forfeited
            and self.policy.max_faults
            and seat.fault_count >= self.policy.max_faults
        ):
            seat.forfeited = True
            self.write(
                ForfeitRecord(
                    seat=seat.seat,
                    hand=self.state.hand_number,
                    faults=seat.fault_count,
                    reason=f"{seat.fault_count} faults (max_faults {self.policy.max_faults})",
                )
            )
        return Fault(kind, message[:500])

    # Asking bots ---------------------------------------------------------------

    def deadline(self, seat: _Seat) -> Deadline:
        move, bank = seat.tc.move_time_ms, seat.bank_ms
        return Deadline(move, bank, (move + bank + seat.tc.grace_ms) / 1000)

    def ask(
        self, seat: _Seat, question: Callable[[Deadline], Any]
    ) -> tuple[Any, float, BotFault | None]:
        """Ask ``seat``; returns (answer, ms, fault). Charges the time bank."""
        deadline = self.deadline(seat)
        start = time.perf_counter()
        try:
            answer = question(deadline)
            fault = None
        except BotFault as error:
            answer, fault = None, error
        except Exception as error:
            answer = None
            fault = BotFault(
                FaultKind.MALFORMED, f"unusable answer: {type(error).__name__}: {error}"
            )
        ms = (time.perf_counter() - start) * 1000
        seat.decisions += 1
        seat.think_ms += ms
        overrun = ms - deadline.move_time_ms
        if fault is None and overrun > deadline.time_bank_ms + seat.tc.grace_ms:
            answer, fault = None, BotFault(FaultKind.TIMEOUT, f"answered after {ms:.0f} ms")
        if fault is not None and fault.kind == FaultKind.TIMEOUT:
            seat.bank_ms = 0
        elif overrun > 0:
            seat.bank_ms = max(0, seat.bank_ms - round(overrun))
        return answer, ms, fault

    def notify_all(
        self, during: str, call: Callable[[_Seat, float], None], *, forfeited: bool = False
    ) -> None:
        """Send one notification to every seat at once; faults are recorded in seat order.

        ``forfeited=True`` sends it to forfeited seats too, best effort. Remote
        bots are called concurrently (one of them from this thread); in-process
        players are called here.
        """
        timeout_s = self.tc.notify_timeout_ms / 1000
        seats = [seat for seat in self.seats if forfeited or not seat.forfeited]
        remote = [seat for seat in seats if seat.player.out_of_process]
        errors: dict[int, Exception | concurrent.futures.Future | None] = {
            seat.seat: _CALL_POOL.submit(_notify_one, call, seat, timeout_s) for seat in remote[1:]
        }
        for seat in seats:
            if seat.seat not in errors:
                errors[seat.seat] = _notify_one(call, seat, timeout_s)
        for seat in seats:
            error = errors[seat.seat]
            if isinstance(error, concurrent.futures.Future):
                error = error.result()
            if error is None or seat.forfeited:
                continue  # a forfeited seat's faults no longer count
            if isinstance(error, BotFault):
                fault = self.fault(seat, error.kind, error.message)
            else:
                fault = self.fault(seat, FaultKind.RPC_ERROR, f"{type(error).__name__}: {error}")
            self.write_fault(seat, during, fault)

    def _recorded_time_control(self) -> dict[str, Any]:
        """The header's time control: the game's, and under ``seats`` any seat's own."""
        recorded: dict[str, Any] = self.tc.to_dict()
        if self.spec.seat_time_controls:
            recorded["seats"] = {
                str(s): tc.to_dict() for s, tc in sorted(self.spec.seat_time_controls.items())
            }
        return recorded

    def write_fault(self, seat: _Seat, during: str, fault: Fault) -> None:
        self.write(
            FaultRecord(
                seat=seat.seat,
                during=during,
                hand=self.state.hand_number,
                kind=fault.kind,
                message=fault.message,
            )
        )

    # The game ------------------------------------------------------------------

    def run(self) -> GameRecord:
        started = time.perf_counter()
        spec, state = self.spec, self.state
        self.write(
            GameHeader(
                referee_version=__version__,
                game_id=spec.game_id,
                seed=spec.seed,
                rules=spec.rules,
                seats=tuple(_seat_info(s.seat, s.bot, s.player.info) for s in self.seats),
                time_control=self._recorded_time_control(),
                fault_policy=self.policy.to_dict(),
                meta=spec.meta,
                started_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            )
        )
        names = [s.bot for s in self.seats]
        self.notify_all(
            "StartGame",
            lambda seat, t: seat.player.start_game(spec.game_id, seat.seat, names, spec.rules, t),
        )
        while not state.is_over:
            self.start_hand()
            hand = state.hand_number
            if state.phase is Phase.PASSING:
                self.passing()
            while state.hand_number == hand and not state.is_over:
                if state.phase is Phase.PLAYING:
                    self.play_one()
                elif state.phase is Phase.MOON_CHOICE:
                    self.moon_choice()
            self.end_hand()
        outcome = state.outcome
        assert outcome is not None
        # EndGame goes to every seat, forfeited ones too (they learn it from the
        # request), before game_end, so that game_end is the log's last line and
        # counts the faults of EndGame.
        self.notify_all(
            "EndGame",
            lambda seat, t: seat.player.end_game(
                spec.game_id, seat.seat, outcome, seat.forfeited, t
            ),
            forfeited=True,
        )
        self.write(
            GameEndRecord(
                scores=outcome.scores,
                placements=outcome.placements,
                winners=outcome.winners,
                hands=outcome.hands_played,
                forfeited=tuple(s.forfeited for s in self.seats),
                faults=tuple(dict(s.faults) for s in self.seats),
            )
        )
        return GameRecord(
            game_id=spec.game_id,
            seed=spec.seed,
            bots=spec.bots,
            scores=outcome.scores,
            placements=outcome.placements,
            winners=outcome.winners,
            hand_scores=tuple(r.scores for r in state.hand_results),
            moons=tuple(
                sum(1 for r in state.hand_results if r.moon_shooter == s) for s in range(state.n)
            ),
            faults=tuple(dict(s.faults) for s in self.seats),
            forfeited=tuple(s.forfeited for s in self.seats),
            decisions=tuple(s.decisions for s in self.seats),
            think_ms=tuple(round(s.think_ms, 3) for s in self.seats),
            log_path=str(self.writer.path),
            duration_s=round(time.perf_counter() - started, 3),
            meta=spec.meta,
        )

    def start_hand(self) -> None:
        state = self.state
        self.write(
            DealRecord(
                hand=state.hand_number,
                pass_direction=state.pass_direction,
                hands=tuple(tuple(card_list(h)) for h in state.dealt),
            )
        )
        views = {seat.seat: state.view(seat.seat) for seat in self.seats}
        self.notify_all(
            "DealHand",
            lambda seat, t: seat.player.deal_hand(self.spec.game_id, views[seat.seat], t),
        )

    def passing(self) -> None:
        state, game_id = self.state, self.spec.game_id
        count = state.rules.pass_count
        asks: dict[int, Any] = {}
        # Passes are simultaneous: no request shows another's pass. Where a bot of the game is
        # frozen between its calls (it was caught using CPU there), they are asked one at a
        # time all the same, so that it does not run while another thinks (asked at the same
        # moment, it could burn every core meanwhile). Bots idle between their calls are
        # asked together: none of them takes CPU it is not asked for.
        remote = [p.player for p in self.seats if p.player.out_of_process]
        one_by_one = any(p.runs_only_when_asked for p in remote)
        for s in state.to_act():
            seat = self.seats[s]
            if seat.forfeited:
                continue
            view = state.view(s)
            decision = pass_decision(state.hand_number, s)

            def question(
                deadline: Deadline, seat: _Seat = seat, view: Any = view, d: str = decision
            ) -> Any:
                return seat.player.pass_cards(game_id, view, d, deadline)

            if seat.player.out_of_process and not one_by_one:
                asks[s] = _CALL_POOL.submit(self.ask, seat, question)
            else:
                asks[s] = self.ask(seat, question)
        for s in state.to_act():
            seat = self.seats[s]
            decision = pass_decision(state.hand_number, s)
            if s in asks:
                result = asks[s]
                answer, ms, fault = (
                    result.result() if isinstance(result, concurrent.futures.Future) else result
                )
            else:
                answer, ms, fault = None, 0.0, None
            recorded: Fault | None = None
            refused: tuple[str, ...] | None = None
            cards: list[Card] | None = None
            if fault is None and answer is not None:
                cards = list(answer)
                try:  # the engine refuses a bad pass (R2) and is left as it was
                    state.pass_cards(s, cards)
                except ActionError as error:
                    fault = BotFault(error.kind, str(error))
            if fault is not None or cards is None:
                if fault is not None:
                    recorded = self.fault(seat, fault.kind, fault.message)
                    if answer is not None:
                        refused = tuple(str(c) for c in answer)
                cards = fallback_pass(self.spec.seed, decision, state.hands[s], count)
                source = "fallback"
                state.pass_cards(s, cards)
            else:
                source = "bot"
            self.write(
                PassRecord(
                    hand=state.hand_number,
                    seat=s,
                    decision=decision,
                    fault=recorded,
                    answer=refused,
                    source=source,
                    cards=tuple(cards),
                    ms=round(ms, 3),
                    note=seat.player.take_note(game_id, decision),
                )
            )

    def play_one(self) -> None:
        state = self.state
        s = state.current
        seat = self.seats[s]
        hand, trick = state.hand_number, state.trick_number + 1
        decision = play_decision(hand, trick, s)
        legal = state.legal_mask()
        answer, ms, fault = None, 0.0, None
        if not seat.forfeited:
            view = state.view(s)
            answer, ms, fault = self.ask(
                seat, lambda d: seat.player.play_card(self.spec.game_id, view, decision, d)
            )
        recorded: Fault | None = None
        refused: str | None = None
        card = answer
        if fault is None and card is not None:
            try:
                state.check_play(s, card)
            except ActionError as error:  # its kind: illegal_card or card_not_held
                fault = BotFault(error.kind, str(error))
        if fault is not None or card is None:
            if fault is not None:
                recorded = self.fault(seat, fault.kind, fault.message)
                if answer is not None:
                    refused = str(answer)
            card = fallback_play(self.spec.seed, decision, legal)
            source = "fallback"
        else:
            source = "bot"
        record = PlayRecord(
            hand=hand,
            trick=trick,
            seat=s,
            decision=decision,
            legal=tuple(card_list(legal)),
            fault=recorded,
            answer=refused,
            source=source,
            card=card,
            ms=round(ms, 3),
            bank_ms=seat.bank_ms,
            note=seat.player.take_note(self.spec.game_id, decision),
        )
        tricks_before = len(state.tricks)
        state.play(card)
        self.write(record)
        if len(state.tricks) != tricks_before or state.hand_number != hand or state.is_over:
            t = state.last_trick
            assert t is not None
            self.write(
                TrickRecord(
                    hand=hand,
                    trick=trick,
                    leader=t.leader,
                    cards=tuple(c for _, c in t.plays),
                    winner=t.winner,
                    points=t.points,
                )
            )

    def moon_choice(self) -> None:
        state = self.state
        s = state.current
        seat = self.seats[s]
        decision = moon_decision(state.hand_number, s)
        answer, ms, fault = None, 0.0, None
        if not seat.forfeited:
            view = state.view(s)
            answer, ms, fault = self.ask(
                seat,
                lambda d: seat.player.choose_moon_scoring(self.spec.game_id, view, decision, d),
            )
        recorded: Fault | None = None
        if fault is not None or answer not in (
            MoonScoring.ADD_TO_OTHERS,
            MoonScoring.SUBTRACT_FROM_SELF,
        ):
            if fault is not None:
                recorded = self.fault(seat, fault.kind, fault.message)
            elif answer is not None:
                recorded = self.fault(seat, FaultKind.MALFORMED, f"not a moon choice: {answer!r}")
            answer = FALLBACK_MOON_CHOICE
            source = "fallback"
        else:
            source = "bot"
        record = MoonChoiceRecord(
            hand=state.hand_number,
            seat=s,
            decision=decision,
            fault=recorded,
            source=source,
            choice=answer,
            ms=round(ms, 3),
            note=seat.player.take_note(self.spec.game_id, decision),
        )
        state.choose_moon_scoring(s, answer)
        self.write(record)

    def end_hand(self) -> None:
        result = self.state.hand_results[-1]
        self.write(
            HandEndRecord(
                hand=result.hand_number,
                points=result.points,
                scores=result.scores,
                moon_shooter=result.moon_shooter,
                moon_scoring=result.moon_scoring,
                totals=result.totals,
            )
        )
        self.notify_all(
            "EndHand",
            lambda seat, t: seat.player.end_hand(self.spec.game_id, seat.seat, result, t),
        )


def _notify_one(
    call: Callable[[_Seat, float], None], seat: _Seat, timeout_s: float
) -> Exception | None:
    """Make one notification call; returns what it raised (a fault to record), or None."""
    try:
        call(seat, timeout_s)
    except Exception as error:
        return error
    return None


def _seat_info(seat: int, bot: str, info: BotInfo) -> SeatInfo:
    return SeatInfo(
        seat=seat,
        bot=bot,
        name=info.name,
        version=info.version,
        author=info.author,
        language=info.language,
    )


def play_game(
    spec: GameSpec,
    players: Sequence[Player],
    log_path: str | os.PathLike[str],
    *,
    on_event: Callable[[str, dict[str, Any]], None] | None = None,
) -> GameRecord:
    """Play one game and return its record; the log is complete and synced on return.

    ``players`` holds one player per seat (the same player may sit in several
    seats). ``on_event(type, record)`` sees every log record as it is written.
    If the game cannot finish (a referee error, Ctrl-C), a ``game_abort``
    record closes the log and the exception propagates.
    """
    if len(players) != spec.rules.num_players:
        raise ValueError(f"{len(players)} players for {spec.rules.num_players} seats")
    # In the background: the log's lines are made and written while the next bot thinks.
    with GameLogWriter(log_path, background=True) as writer:
        game = _Game(spec, players, writer, on_event)
        try:
            return game.run()
        except BaseException as error:
            writer.write(
                GameAbortRecord(
                    hand=game.state.hand_number, reason=f"{type(error).__name__}: {error}"
                )
            )
            raise
