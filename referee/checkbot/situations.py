"""Situations: the games check-bot plays with the bot, and how each decision is classified and judged.

The situations are real hands played from the deal, the bot playing one seat
throughout. :func:`scripted_games` are the hands played one after the other
(a four-hand game for the pass directions, games of 3, 5, 6 and 7 players for
V6, and crafted deals that force the rare situations); :func:`concurrent_games`
are the eight hands played at once. :func:`classify_play` names the check a
play decision belongs to, from the engine's legal case, and :func:`judge_play`
and :func:`judge_pass` say what is wrong with an answer, in words, with the
rule it breaks.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from typing import Any

from referee import protocol
from referee.engine import (
    ActionError,
    Card,
    CardNotHeldError,
    CardSet,
    GameState,
    IllegalMoveError,
    LegalCase,
    MoonScoring,
    PassDirection,
    Rules,
    SeatView,
    card_list,
    deal,
    parse_cards,
)
from referee.pb.hearts.v1 import hearts_pb2 as pb


@dataclasses.dataclass(slots=True)
class Game:
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


def crafted_deal(rules: Rules, fixed: dict[int, str], seed: int) -> GameState:
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


def scripted_games(seed: int) -> list[Game]:
    """The hands played one after the other: the pass directions, V6 and the crafted deals."""
    games = [
        Game(
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
            Game(
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
            Game(
                f"check-{check}",
                crafted_deal(rules, fixed, seed * 100 + number),
                seat=seat,
                checks=(f"players-{rules.num_players}",) if rules.num_players != 4 else (),
                script={s: parse_cards(cards) for s, cards in script.items()},
            )
        )
    return games


def concurrent_games(seed: int, count: int = 8) -> list[Game]:
    """``count`` hands dealt from ``seed`` for the bot to play at once.

    Their first PlayCard requests meet at one barrier, so that they are sent
    at the same moment.
    """
    barrier = threading.Barrier(count)
    burst: dict[str, tuple[int, int]] = {}
    games = []
    for i in range(count):
        rules = Rules()
        game_seed = seed * 1000 + 100 + i
        state = GameState.from_hands(
            deal(rules, game_seed, 1), rules, pass_direction=PassDirection.HOLD, seed=game_seed
        )
        games.append(
            Game(
                f"check-concurrent-{i + 1}",
                state,
                seat=i % 4,
                checks=("concurrent",),
                barrier=barrier,
                burst=burst,
            )
        )
    return games


# Classifying and judging the decisions --------------------------------------


def classify_play(case: LegalCase, view: SeatView) -> tuple[str | None, str]:
    """The check a play decision belongs to, and the situation in words.

    ``case`` is the engine's own statement of why the plays are legal
    (:meth:`GameState.legal_case <referee.engine.GameState.legal_case>`);
    check-bot only tells following on the first trick (``first-trick-follow``)
    from following later (``follow-suit``), which the rules do not.
    """
    trick = view.trick_number
    if case is LegalCase.FIRST_LEAD:
        return "first-lead", "leading the first trick"
    if case is LegalCase.HEARTS_NOT_BROKEN:
        return "lead-hearts-unbroken", f"leading trick {trick}, hearts not broken"
    if case is LegalCase.ONLY_HEARTS:
        return "lead-only-hearts", f"leading trick {trick} holding only hearts, not broken"
    if case is LegalCase.LEAD:
        return None, f"leading trick {trick}"
    name = view.current_trick.plays[0][1].suit.word
    clean_first_trick = trick == 1 and not view.rules.points_on_first_trick
    if case is LegalCase.FOLLOW_SUIT:
        if clean_first_trick:
            return "first-trick-follow", f"on the first trick, following {name}"
        return "follow-suit", f"on trick {trick}, following {name}"
    if case is LegalCase.FIRST_TRICK_CLEAN:
        return "first-trick-void", f"on the first trick, void in {name}"
    if case is LegalCase.FIRST_TRICK_ONLY_POINTS:
        return (
            "first-trick-only-points",
            f"on the first trick, void in {name}, holding only hearts and Q♠",
        )
    if clean_first_trick:  # void, and neither a heart nor Q♠ to hold back
        return None, f"on the first trick, void in {name}"
    return "void-discard", f"on trick {trick}, void in {name}"


def judge_play(state: GameState, seat: int, reply: pb.PlayCardResponse) -> tuple[str | None, Any]:
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


def judge_pass(reply: pb.PassCardsResponse, hand: int, count: int) -> tuple[str | None, Any]:
    """(problem, cards): what is wrong with a PassCards answer, or None and the cards."""
    answered = list(reply.cards)
    if len(answered) != count:
        shown = " ".join(pb_card_text(c) for c in answered[:20])
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


def pb_card_text(card: pb.Card) -> str:
    try:
        return protocol.card_from_pb(card).symbol()
    except protocol.MalformedAnswer:
        return f"(suit {card.suit}, rank {card.rank})"


def mixed_up_hint(game_id: str, card: pb.Card, burst: dict[str, tuple[int, int]]) -> str:
    """Whether a bad answer of a concurrent game fits another game's request."""
    try:
        c = protocol.card_from_pb(card)
    except protocol.MalformedAnswer:
        return ""
    for other, (legal, _hand) in sorted(burst.items()):
        if other != game_id and legal >> c & 1:
            return f" (it is legal in the request of {other}, sent at the same time: answers mixed up?)"
    return ""
