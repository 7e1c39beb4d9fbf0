"""One game's analysis: every decision of the chosen seats, replayed through the engine.

:func:`analyse_game` replays the log's moves through :mod:`referee.engine`
and, at each decision of an analysed seat, takes that seat's
:class:`~referee.engine.SeatView` (what the referee showed it, never another
seat's cards) as the search's :class:`~referee.search.pimc.Knowledge`, and
values the choices (:mod:`referee.analyzer.evaluate`). The moon choice (V2
``shooter_chooses``) is judged exactly, by the engine: see :func:`judge_moon`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from referee.analysis.grading import Grade, Phase, grade, play_phase
from referee.analysis.record import Decision, Option, SeatAnalysis
from referee.analyzer.evaluate import (
    Estimate,
    Settings,
    decision_rng,
    evaluate_pass,
    evaluate_play,
)
from referee.audit.replay import Game, PlayMove
from referee.engine import (
    HEARTS,
    QUEEN_OF_SPADES,
    SUIT_MASKS,
    ActionError,
    Card,
    GameState,
    MoonChoice,
    MoonScoring,
    Pass,
    PassDirection,
    Play,
    Rules,
    SeatView,
)
from referee.search.pimc import Knowledge
from referee.search.sim import Variant

__all__ = [
    "MOON_CHOICE_LOSS",
    "AnalysisReplayError",
    "analyse_game",
    "judge_moon",
    "knowledge_of",
    "variant_of",
]

#: The loss counted for a decisive moon choice made wrong: the moon's 26 points.
MOON_CHOICE_LOSS = 26.0
_POINT_CARDS = HEARTS | 1 << QUEEN_OF_SPADES


class AnalysisReplayError(Exception):
    """The log's moves do not replay through the engine (``referee verify`` says more)."""


def variant_of(rules: Rules) -> Variant:
    """The search simulator's rules for the engine's."""
    return Variant(
        rules.num_players,
        queen_breaks_hearts=rules.queen_breaks_hearts,
        moon_scoring=rules.moon_scoring.value,
        omnibus=rules.omnibus,
        points_on_first_trick=rules.points_on_first_trick,
    )


def knowledge_of(view: SeatView, variant: Variant) -> Knowledge:
    """What a seat knew at a play, from its view (as the strong bot reads its request)."""
    hold = view.pass_direction is PassDirection.HOLD
    return Knowledge(
        variant=variant,
        seat=view.seat,
        hand=int(view.hand),
        tricks=[(t.leader, [int(c) for _, c in t.plays]) for t in view.tricks],
        leader=view.current_trick.leader,
        current=[int(c) for _, c in view.current_trick.plays],
        hearts_broken=view.hearts_broken,
        legal=int(view.legal_moves),
        passed=int(view.passed or 0),
        pass_to=-1 if hold else view.pass_to,
        received=int(view.received or 0),
        scores=tuple(view.scores),
        target_score=view.rules.target_score,
    )


def _point_cards_taken(view: SeatView) -> list[int]:
    taken = [0] * view.rules.num_players
    for trick in view.tricks:
        taken[trick.winner] += (int(trick.cards) & _POINT_CARDS).bit_count()
    return taken


def _decision(estimate: Estimate, chosen: tuple[int, ...], **fields: object) -> Decision:
    """The record of a searched decision: the choice's loss, error and grade."""
    made = estimate.of(chosen)
    options = tuple(
        Option(
            cards=tuple(Card(c) for c in o.cards),
            points=o.points,
            loss=o.loss,
            error=o.error,
            points_error=o.points_error,
        )
        for o in estimate.options
    )
    forced = estimate.worlds == 0
    return Decision(
        chosen=tuple(Card(c) for c in chosen),
        options=options,
        loss=made.loss,
        error=made.error,
        grade=None if forced else grade(made.loss, made.error),
        worlds=estimate.worlds,
        exact=estimate.exact,
        cut=estimate.cut,
        forced=forced,
        **fields,  # type: ignore[arg-type]
    )


def judge_moon(state: GameState, seat: int, made: MoonScoring) -> tuple[str, float, Grade | None]:
    """The best moon choice, the loss of ``made`` and its grade, from the engine (exact).

    The two choices move the shooter 26 points against every other seat
    alike; they differ in when the game ends (R9): subtracting never ends it,
    adding may. So the choice is decisive only when adding ends the game: then
    adding is right if the shooter places first, and subtracting (playing on)
    otherwise; a wrong decisive choice counts :data:`MOON_CHOICE_LOSS` and is a
    blunder. When adding does not end the game, either choice is fine.
    """
    added = state.copy()
    added.choose_moon_scoring(seat, MoonScoring.ADD_TO_OTHERS)
    if added.outcome is None:
        return made.value, 0.0, None
    wins = added.outcome.placements[seat] == 1
    best = MoonScoring.ADD_TO_OTHERS if wins else MoonScoring.SUBTRACT_FROM_SELF
    if made is best:
        return best.value, 0.0, None
    return best.value, MOON_CHOICE_LOSS, Grade.BLUNDER


def analyse_game(
    game: Game,
    seats: Iterable[int],
    settings: Settings,
    *,
    on_decision: Callable[[], None] | None = None,
) -> dict[int, SeatAnalysis]:
    """The analysis of ``seats`` in ``game``, decision by decision (see the module's text).

    Raises :class:`AnalysisReplayError` when the log's moves do not replay.
    """
    seats = sorted(set(seats))
    rules = game.rules
    variant = variant_of(rules)
    found: dict[int, list[Decision]] = {s: [] for s in seats}
    hands_played = dict.fromkeys(seats, 0)
    state = GameState.new(rules, seed=game.seed)

    def apply(action: Pass | Play | MoonChoice, line: int) -> None:
        try:
            state.apply(action)
        except ActionError as error:
            raise AnalysisReplayError(
                f"{game.path}:{line}: the log does not replay ({error}); run referee verify on it"
            ) from None

    for hand in game.hands:
        if state.is_over or state.hand_number != hand.number:
            break
        for seat in seats:
            hands_played[seat] += 1
        if hand.pass_direction is not PassDirection.HOLD:
            for move in hand.passes:
                if move.seat in found and not move.fallback:
                    started = time.perf_counter()
                    view = state.view(move.seat)
                    estimate = evaluate_pass(
                        hand=int(view.hand),
                        made=[int(c) for c in move.cards],
                        variant=variant,
                        seat=move.seat,
                        pass_to=view.pass_to,
                        settings=settings,
                        rng=decision_rng(settings, game.seed, move.decision or f"p{hand.number}"),
                    )
                    found[move.seat].append(
                        _decision(
                            estimate,
                            tuple(int(c) for c in move.cards),
                            kind="pass",
                            phase=Phase.PASSING,
                            hand=hand.number,
                            decision=move.decision,
                            line=move.line,
                            ms=(time.perf_counter() - started) * 1000,
                        )
                    )
                    if on_decision:
                        on_decision()
                elif move.seat in found:
                    found[move.seat].append(_fallback("pass", Phase.PASSING, hand.number, move))
            for move in hand.passes:
                apply(Pass(move.seat, tuple(move.cards)), move.line)
        for trick in hand.tricks:
            for position, move in enumerate(trick.plays):
                if move.seat in found:
                    found[move.seat].append(
                        _play_decision(game, state, move, trick.number, position, settings, variant)
                    )
                    if on_decision and not move.fallback:
                        on_decision()
                apply(Play(move.seat, move.card), move.line)
        moon = hand.moon_choice
        if moon is not None:
            made = MoonScoring(moon.choice)
            if moon.seat in found:
                best, loss, graded = judge_moon(state, moon.seat, made)
                found[moon.seat].append(
                    Decision(
                        kind="moon",
                        phase=Phase.MOON_CHOICE,
                        hand=hand.number,
                        line=moon.line,
                        choice=made.value,
                        best_choice=best,
                        loss=loss if not moon.fallback else 0.0,
                        grade=graded if not moon.fallback else None,
                        exact=True,
                        fallback=moon.fallback,
                    )
                )
            apply(MoonChoice(moon.seat, made), moon.line)
    return {
        seat: SeatAnalysis(
            seat=seat,
            bot=game.seats[seat].bot,
            settings=settings.to_dict(),
            hands=hands_played[seat],
            decisions=tuple(found[seat]),
        )
        for seat in seats
    }


def _play_decision(
    game: Game,
    state: GameState,
    move: PlayMove,
    trick: int,
    position: int,
    settings: Settings,
    variant: Variant,
) -> Decision:
    """The analysed play of ``move`` (the state is before it)."""
    started = time.perf_counter()
    view = state.view(move.seat)
    k = knowledge_of(view, variant)
    phase = play_phase(
        seat=move.seat,
        trick_cards=k.current,
        hand=k.hand,
        points_by_seat=_point_cards_taken(view),
        suit_masks=SUIT_MASKS,
    )
    hand = state.hand_number
    if move.fallback:
        return _fallback("play", phase, hand, move, trick, position)
    key = move.decision or f"{hand}.{trick}.{position}"
    estimate = evaluate_play(k, settings, decision_rng(settings, game.seed, key))
    return _decision(
        estimate,
        (int(move.card),),
        kind="play",
        phase=phase,
        hand=hand,
        trick=trick,
        position=position,
        decision=move.decision,
        line=move.line,
        ms=(time.perf_counter() - started) * 1000,
    )


def _fallback(
    kind: str, phase: Phase, hand: int, move: object, trick: int = 0, position: int = 0
) -> Decision:
    """A decision the referee made for the seat (a fault): recorded, not judged."""
    cards = getattr(move, "cards", None) or [move.card]  # type: ignore[attr-defined]
    return Decision(
        kind=kind,
        phase=phase,
        hand=hand,
        trick=trick,
        position=position,
        decision=getattr(move, "decision", ""),
        line=getattr(move, "line", 0),
        chosen=tuple(Card(c) for c in cards),
        fallback=True,
    )
