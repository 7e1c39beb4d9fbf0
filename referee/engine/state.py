"""The state machine of a game of Hearts (R1-R9, V1-V7).

A :class:`GameState` moves through the phases of :class:`Phase`: every hand
is dealt from the game's seed, passed (all seats at once; nothing is revealed
until every pass is in), and played trick by trick; after the last trick the
hand is scored (with the moon, and the shooter's choice under V2
``shooter_chooses``), and the game either ends (R9, V5) or deals the next
hand. Dealing and the move to the next hand happen inside the action that
ends a hand, so a game is fully determined by its rules, its seed and the
sequence of actions (see :func:`referee.engine.replay.replay`).

Legality is separate from mutation: :meth:`GameState.legal_moves` and
:meth:`GameState.check_play` never change the state, and an action that is
refused raises an :class:`~referee.engine.errors.ActionError` and leaves the
state exactly as it was. Copying a state (:meth:`GameState.copy`) copies a few
small lists, so a searching bot can afford many.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import struct
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from referee.engine.cards import (
    HEARTS,
    JACK_OF_DIAMONDS,
    QUEEN_OF_SPADES,
    SUIT_MASKS,
    Card,
    CardSet,
    Suit,
    card_list,
    format_cards,
)
from referee.engine.errors import (
    ActionError,
    CardNotHeldError,
    GameOverError,
    IllegalMoveError,
    InvalidPassError,
    NotYourTurnError,
    WrongPhaseError,
)
from referee.engine.faults import FaultKind
from referee.engine.legal import CLEAN, LegalCase, legal_case
from referee.engine.rules import MoonScoring, PassDirection, Rules, TieRule

if TYPE_CHECKING:
    from referee.engine.view import SeatView

__all__ = [
    "Action",
    "GameState",
    "HandResult",
    "MoonChoice",
    "Outcome",
    "Pass",
    "Phase",
    "Play",
    "Trick",
    "deal",
]

_QS_BIT = 1 << QUEEN_OF_SPADES
_JD_BIT = 1 << JACK_OF_DIAMONDS
_NOT_HEARTS = ~HEARTS & ((1 << 52) - 1)
_CLEAN = CLEAN  # cards allowed on the first trick (R5)
_CLUBS = SUIT_MASKS[Suit.CLUBS]
_CARD = [Card(i) for i in range(52)]
_SUIT_MASKS = list(SUIT_MASKS)


class Phase(enum.Enum):
    """What the game is waiting for."""

    PASSING = "passing"
    PLAYING = "playing"
    MOON_CHOICE = "moon_choice"
    GAME_OVER = "game_over"


_PASSING = Phase.PASSING
_PLAYING = Phase.PLAYING
_MOON_CHOICE = Phase.MOON_CHOICE
_GAME_OVER = Phase.GAME_OVER


@dataclasses.dataclass(frozen=True, slots=True)
class Trick:
    """A trick: who led, the cards in play order, and (once complete) who won.

    ``winner`` is -1 and ``points`` 0 while the trick is in progress.
    """

    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int = -1
    points: int = 0

    @property
    def cards(self) -> CardSet:
        return CardSet.of(card for _, card in self.plays)

    def __str__(self) -> str:
        plays = " ".join(f"{seat}:{card}" for seat, card in self.plays)
        return f"[{plays}] -> {self.winner} ({self.points})" if self.winner >= 0 else f"[{plays}]"


@dataclasses.dataclass(frozen=True, slots=True)
class HandResult:
    """The scoring of one hand (R7, R8, V2, V3)."""

    hand_number: int
    pass_direction: PassDirection
    #: Points taken card by card, by seat (R7, V3), before moon scoring.
    points: tuple[int, ...]
    #: What each seat scores for the hand, after moon scoring.
    scores: tuple[int, ...]
    #: The seat that shot the moon, or None.
    moon_shooter: int | None
    #: How the moon was scored (the shooter's choice under V2), or None.
    moon_scoring: MoonScoring | None
    #: Running totals after this hand.
    totals: tuple[int, ...]
    tricks: tuple[Trick, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended (R9, V5)."""

    #: Final totals by seat.
    scores: tuple[int, ...]
    #: Placement by seat, 1 = first; tied seats share a placement.
    placements: tuple[int, ...]
    #: The seats placed first (more than one when they share, V5).
    winners: tuple[int, ...]
    hands_played: int


# Trick's generated __init__ (frozen) costs twice as much as setting its four
# slots directly; _finish_trick makes one per trick, so it does the latter.
_new_trick = object.__new__
_set_leader = Trick.__dict__["leader"].__set__
_set_plays = Trick.__dict__["plays"].__set__
_set_winner = Trick.__dict__["winner"].__set__
_set_points = Trick.__dict__["points"].__set__


# Actions ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Pass:
    """A seat passes cards (R2)."""

    seat: int
    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return f"pass {self.seat} {' '.join(map(str, self.cards))}"


@dataclasses.dataclass(frozen=True, slots=True)
class Play:
    """A seat plays a card to the current trick."""

    seat: int
    card: Card

    def __str__(self) -> str:
        return f"play {self.seat} {self.card}"


@dataclasses.dataclass(frozen=True, slots=True)
class MoonChoice:
    """The shooter picks the moon scoring (V2 ``shooter_chooses``)."""

    seat: int
    choice: MoonScoring

    def __str__(self) -> str:
        return f"moon {self.seat} {self.choice.value}"


Action = Pass | Play | MoonChoice


def deal(rules: Rules, seed: int | str, hand_number: int) -> list[int]:
    """The hands (masks, by seat) dealt for one hand of a game with this seed.

    Each hand's deal depends only on (seed, hand number), so duplicate games
    replay the same deals whatever happened before. The shuffle is defined
    without any language's random number generator, so that it is the same on
    every machine and easy to reproduce elsewhere: the cards of the deck, in
    index order, are sorted by 64-bit keys read big-endian from
    SHAKE-256("hearts/deal/{seed}/{hand_number}"), the i-th key for the i-th
    card; seat s gets the s-th run of ``cards_per_player`` cards.
    """
    bits = _DECK_BITS.get(rules.deck)
    if bits is None:
        bits = _DECK_BITS[rules.deck] = [1 << c for c in card_list(rules.deck)]
    m = len(bits)
    digest = hashlib.shake_256(f"hearts/deal/{seed}/{hand_number}".encode()).digest(8 * m)
    keys = struct.unpack(f">{m}Q", digest)
    order = sorted(range(m), key=keys.__getitem__)
    bit_of = bits.__getitem__
    k = rules.cards_per_player
    # The bits are distinct, so their sum is their union.
    return [sum(map(bit_of, order[s * k : (s + 1) * k])) for s in range(rules.num_players)]


# The one-bit masks of a deck's cards in index order, by deck (see deal).
_DECK_BITS: dict[int, list[int]] = {}


class GameState:
    """One game: create with :meth:`new` (dealt from a seed) or :meth:`from_hands`."""

    __slots__ = (
        "_clean_first_trick",
        "_first_lead",
        "_qs_breaks",
        "_tricks_per_hand",
        "current",
        "dealt",
        "hand_number",
        "hand_results",
        "hands",
        "hearts_broken",
        "last_trick",
        "lead_suit",
        "moon_shooter",
        "n",
        "outcome",
        "pass_direction",
        "passed",
        "phase",
        "points_taken",
        "received",
        "rules",
        "scores",
        "seed",
        "taken",
        "trick_leader",
        "trick_mask",
        "trick_number",
        "trick_plays",
        "tricks",
    )

    rules: Rules
    seed: int | str
    n: int
    phase: Phase
    hand_number: int
    #: Cards held now, by seat (masks).
    hands: list[int]
    #: Cards dealt at the start of the hand, before passing, by seat.
    dealt: list[int]
    #: Cards each seat passed this hand (None until it has passed).
    passed: list[int | None]
    #: Cards each seat received this hand (0 until all passes are in).
    received: list[int]
    pass_direction: PassDirection
    #: Running totals, by seat, before the current hand.
    scores: list[int]
    #: Cards taken in tricks this hand, by seat (masks).
    taken: list[int]
    points_taken: list[int]
    tricks: list[Trick]
    trick_plays: list[tuple[int, int]]
    trick_leader: int
    trick_mask: int
    #: Completed tricks in this hand (0-based index of the trick in progress).
    trick_number: int
    lead_suit: int
    hearts_broken: bool
    #: The seat to act while playing or choosing the moon scoring.
    current: int
    moon_shooter: int | None
    last_trick: Trick | None
    hand_results: list[HandResult]
    outcome: Outcome | None

    # Construction -------------------------------------------------------------

    @classmethod
    def new(cls, rules: Rules | None = None, seed: int | str = 0) -> GameState:
        """A new game; hand 1 is dealt from ``seed`` (see :func:`deal`)."""
        rules = rules or Rules()
        state = cls._empty(rules, seed, [0] * rules.num_players)
        state._start_hand(1, deal(rules, seed, 1))
        return state

    @classmethod
    def from_hands(
        cls,
        hands: Sequence[Iterable[int] | str | int],
        rules: Rules | None = None,
        *,
        hand_number: int = 1,
        scores: Sequence[int] | None = None,
        pass_direction: PassDirection | None = None,
        seed: int | str = 0,
    ) -> GameState:
        """A game whose current hand was dealt these cards (for tests and search).

        ``hands`` holds one entry per seat: a card string (``"2C 9C QS"``), a
        mask or an iterable of cards. Later hands are dealt from ``seed``. The
        cards must be a whole deck for the player count.
        """
        rules = rules or Rules()
        masks = []
        for h in hands:
            if isinstance(h, str):
                masks.append(int(CardSet.parse(h)))
            elif isinstance(h, int):
                masks.append(h)
            else:
                masks.append(int(CardSet.of(h)))
        if len(masks) != rules.num_players:
            raise ValueError(f"{len(masks)} hands given for {rules.num_players} players")
        union = 0
        for s, m in enumerate(masks):
            if union & m:
                raise ValueError(f"seat {s} holds a card dealt twice: {format_cards(union & m)}")
            if m.bit_count() != rules.cards_per_player:
                raise ValueError(
                    f"seat {s} holds {m.bit_count()} cards, not {rules.cards_per_player}"
                )
            union |= m
        if union != rules.deck:
            raise ValueError(
                f"the hands are not the deck: missing {format_cards(rules.deck & ~union)}"
            )
        if scores is not None and len(scores) != rules.num_players:
            raise ValueError(f"{len(scores)} scores given for {rules.num_players} players")
        state = cls._empty(rules, seed, list(scores) if scores else [0] * rules.num_players)
        state._start_hand(hand_number, masks, pass_direction)
        return state

    @classmethod
    def _empty(cls, rules: Rules, seed: int | str, scores: list[int]) -> GameState:
        state = object.__new__(cls)
        state.rules = rules
        state.seed = seed
        state.n = rules.num_players
        state.scores = scores
        state.hand_results = []
        state.outcome = None
        state.last_trick = None
        state._qs_breaks = rules.queen_breaks_hearts
        state._clean_first_trick = not rules.points_on_first_trick
        state._tricks_per_hand = rules.cards_per_player
        clubs = rules.deck & _CLUBS
        state._first_lead = clubs & -clubs  # R3: the lowest club in the deck
        return state

    def _start_hand(
        self, hand_number: int, hands: list[int], direction: PassDirection | None = None
    ) -> None:
        n = self.n
        self.hand_number = hand_number
        self.hands = list(hands)
        self.dealt = list(hands)
        self.pass_direction = direction or self.rules.pass_direction(hand_number)
        self.passed = [None] * n
        self.received = [0] * n
        self.taken = [0] * n
        self.points_taken = [0] * n
        self.tricks = []
        self.trick_plays = []
        self.trick_mask = 0
        self.trick_number = 0
        self.lead_suit = -1
        self.trick_leader = -1
        self.hearts_broken = False
        self.moon_shooter = None
        if self.pass_direction is PassDirection.HOLD:
            self._start_play()
        else:
            self.phase = _PASSING
            self.current = -1

    def _start_play(self) -> None:
        self.phase = _PLAYING
        lead = self._first_lead
        self.current = next(s for s in range(self.n) if self.hands[s] & lead)
        self.trick_leader = self.current

    def copy(self) -> GameState:
        """An independent copy (cheap: a few small lists; tricks are immutable)."""
        o = object.__new__(GameState)
        o.rules = self.rules
        o.seed = self.seed
        o.n = self.n
        o.phase = self.phase
        o.hand_number = self.hand_number
        o.hands = self.hands.copy()
        o.dealt = self.dealt.copy()
        o.passed = self.passed.copy()
        o.received = self.received.copy()
        o.pass_direction = self.pass_direction
        o.scores = self.scores.copy()
        o.taken = self.taken.copy()
        o.points_taken = self.points_taken.copy()
        o.tricks = self.tricks.copy()
        o.trick_plays = self.trick_plays.copy()
        o.trick_leader = self.trick_leader
        o.trick_mask = self.trick_mask
        o.trick_number = self.trick_number
        o.lead_suit = self.lead_suit
        o.hearts_broken = self.hearts_broken
        o.current = self.current
        o.moon_shooter = self.moon_shooter
        o.last_trick = self.last_trick
        o.hand_results = self.hand_results.copy()
        o.outcome = self.outcome
        o._qs_breaks = self._qs_breaks
        o._clean_first_trick = self._clean_first_trick
        o._tricks_per_hand = self._tricks_per_hand
        o._first_lead = self._first_lead
        return o

    # Queries -------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is _GAME_OVER

    def pass_to(self, seat: int) -> int:
        """The seat that receives ``seat``'s pass this hand (itself on a hold hand)."""
        return (seat + self.pass_direction.offset(self.n)) % self.n

    def to_act(self) -> list[int]:
        """The seats whose action the game waits for (several while passing)."""
        if self.phase is _PASSING:
            return [s for s in range(self.n) if self.passed[s] is None]
        if self.phase is _GAME_OVER:
            return []
        return [self.current]

    def legal_case(self, seat: int | None = None) -> tuple[LegalCase, int] | None:
        """Which case of the cascade decides ``seat``'s plays, and the plays (a mask).

        None when it is not that seat's turn to play. See
        :func:`referee.engine.legal.legal_case`, the cascade's one statement.
        """
        if self.phase is not _PLAYING or (seat is not None and seat != self.current):
            return None
        return legal_case(
            self.hands[self.current],
            self.lead_suit if self.trick_plays else -1,
            first_trick=self.trick_number == 0,
            hearts_broken=self.hearts_broken,
            clean_first_trick=self._clean_first_trick,
            first_lead=self._first_lead,
        )

    def legal_mask(self, seat: int | None = None) -> int:
        """The legal plays of ``seat`` (default: the player to move) as a mask.

        Zero when it is not that seat's turn to play. The cascade of
        :func:`referee.engine.legal.legal_case` (first lead R3, follow suit R4,
        first trick clean R5 and V7, hearts broken R6), written for speed and
        tested against it for every combination of its inputs.
        """
        if self.phase is not _PLAYING:
            return 0
        p = self.current
        if seat is not None and seat != p:
            return 0
        hand = self.hands[p]
        if self.trick_plays:
            follow = hand & _SUIT_MASKS[self.lead_suit]
            if follow:
                return follow
            if self.trick_number == 0 and self._clean_first_trick:
                return hand & _CLEAN or hand
            return hand
        if self.trick_number == 0:
            return self._first_lead
        if self.hearts_broken:
            return hand
        return hand & _NOT_HEARTS or hand

    def legal_moves(self, seat: int | None = None) -> CardSet:
        """The legal plays as a :class:`CardSet` (empty if not that seat's turn)."""
        return CardSet(self.legal_mask(seat))

    def is_legal(self, card: int, seat: int | None = None) -> bool:
        return bool(self.legal_mask(seat) >> card & 1) if 0 <= card < 52 else False

    def check_play(self, seat: int, card: int) -> None:
        """Raise the :class:`ActionError` that playing ``card`` would raise, or nothing."""
        self._check_phase(Phase.PLAYING, "play a card")
        if seat != self.current:
            raise NotYourTurnError(
                f"seat {seat} played out of turn: seat {self.current} is to play"
            )
        if not isinstance(card, int) or not 0 <= card < 52:
            raise CardNotHeldError(f"not a card: {card!r}")
        c = _CARD[card]
        if not self.hands[seat] >> card & 1:
            raise CardNotHeldError(f"seat {seat} does not hold {c.symbol()}")
        found = self.legal_case()
        assert found is not None
        case, legal = found
        if legal >> card & 1:
            return
        # Only the cases that restrict the plays can refuse a card the seat holds.
        if case is LegalCase.FIRST_LEAD:
            first = _CARD[self._first_lead.bit_length() - 1]
            message = f"the first trick must be led with {first.symbol()} (R3)"
        elif case is LegalCase.HEARTS_NOT_BROKEN:
            message = f"hearts not broken (R6): {c.symbol()} may not be led"
        elif case is LegalCase.FOLLOW_SUIT:
            message = f"must follow suit: {Suit(self.lead_suit).word} (R4)"
        elif case is LegalCase.FIRST_TRICK_CLEAN:
            what = "Q♠" if card == QUEEN_OF_SPADES else "hearts"
            message = f"{what} not allowed on the first trick (R5)"
        else:  # pragma: no cover - the other cases allow every card held
            raise AssertionError(f"{case} refused a card held")
        raise IllegalMoveError(message, rule=case.rule)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know now (see :class:`~referee.engine.view.SeatView`)."""
        from referee.engine.view import SeatView

        return SeatView.of(self, seat)

    # Actions ---------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply a :class:`Pass`, :class:`Play` or :class:`MoonChoice`."""
        if isinstance(action, Play):
            self.play(action.card, seat=action.seat)
        elif isinstance(action, Pass):
            self.pass_cards(action.seat, action.cards)
        elif isinstance(action, MoonChoice):
            self.choose_moon_scoring(action.seat, action.choice)
        else:
            raise TypeError(f"not an action: {action!r}")

    def pass_cards(self, seat: int, cards: Iterable[int]) -> None:
        """``seat`` passes ``cards`` (R2). The exchange happens when all have passed."""
        if self.phase is not _PASSING:
            self._check_phase(_PASSING, "pass cards")
        if not isinstance(seat, int) or not 0 <= seat < self.n:
            raise NotYourTurnError(f"no seat {seat!r} at a table of {self.n}")
        if self.passed[seat] is not None:
            raise NotYourTurnError(f"seat {seat} has already passed this hand")
        cards = list(cards)
        count = self.rules.pass_count
        for c in cards:
            if not isinstance(c, int) or not 0 <= c < 52:
                raise InvalidPassError(f"not a card: {c!r}")
        if len(cards) != count:
            raise InvalidPassError(
                f"must pass {count} cards, not {len(cards)} (R2)",
                rule="R2",
                kind=FaultKind.WRONG_PASS_SIZE,
            )
        mask = 0
        for c in cards:
            if mask >> c & 1:
                raise InvalidPassError(
                    f"duplicate card in pass: {_CARD[c].symbol()} (R2)",
                    rule="R2",
                    kind=FaultKind.DUPLICATE_CARDS,
                )
            mask |= 1 << c
        missing = mask & ~self.hands[seat]
        if missing:
            raise CardNotHeldError(
                f"seat {seat} does not hold {format_cards(missing, symbols=True)}"
            )
        self.passed[seat] = mask
        if None not in self.passed:
            self._exchange()

    def _exchange(self) -> None:
        n = self.n
        hands, passed, received = self.hands, self.passed, self.received
        offset = self.pass_direction.offset(n)
        for s in range(n):
            hands[s] &= ~passed[s]  # type: ignore[operator]
        for s in range(n):
            to = (s + offset) % n
            hands[to] |= passed[s]  # type: ignore[operator]
            received[to] = passed[s]  # type: ignore[assignment]
        self._start_play()

    def play(self, card: int, seat: int | None = None) -> None:
        """The player to move plays ``card`` (``seat``, if given, must be that player)."""
        p = self.current
        if (
            self.phase is not _PLAYING
            or (seat is not None and seat != p)
            or not isinstance(card, int)
            or not 0 <= card < 52
        ):
            self.check_play(p if seat is None else seat, card)
            raise AssertionError("unreachable: check_play accepted an illegal play")
        bit = 1 << card
        hand = self.hands[p]
        plays = self.trick_plays
        # Hottest path: a card held of the led suit is always legal (R4: the
        # cascade's FOLLOW_SUIT case); anything else asks legal_mask.
        if not (plays and hand & bit & _SUIT_MASKS[self.lead_suit]) and not (
            self.legal_mask() & bit
        ):
            self.check_play(p, card)
            raise AssertionError("unreachable: check_play accepted an illegal play")
        self.hands[p] = hand ^ bit
        if not plays:
            self.lead_suit = card // 13
            self.trick_leader = p
        plays.append((p, card))
        self.trick_mask |= bit
        if bit & HEARTS or (bit == _QS_BIT and self._qs_breaks):  # Rules.breaks_hearts, inlined
            self.hearts_broken = True
        if len(plays) == self.n:
            self._finish_trick()
        else:
            self.current = p + 1 if p + 1 < self.n else 0

    def _finish_trick(self) -> None:
        plays = self.trick_plays
        mask = self.trick_mask
        # The highest card of the led suit wins (R4); find who played it.
        best = (mask & _SUIT_MASKS[self.lead_suit]).bit_length() - 1
        for winner, c in plays:  # noqa: B007 (the loop finds the winner)
            if c == best:
                break
        points = (mask & HEARTS).bit_count()
        if mask & _QS_BIT:
            points += 13
        if mask & _JD_BIT and self.rules.omnibus:
            points -= 10
        self.taken[winner] |= mask
        self.points_taken[winner] += points
        trick = _new_trick(Trick)
        _set_leader(trick, self.trick_leader)
        _set_plays(trick, tuple([(s, _CARD[c]) for s, c in plays]))
        _set_winner(trick, winner)
        _set_points(trick, points)
        self.tricks.append(trick)
        self.last_trick = trick
        self.trick_plays = []
        self.trick_mask = 0
        self.trick_number += 1
        self.current = winner
        self.trick_leader = winner
        if self.trick_number == self._tricks_per_hand:
            self._end_hand()

    def _end_hand(self) -> None:
        moon = HEARTS | _QS_BIT | (_JD_BIT if self.rules.omnibus else 0)
        shooter = next((s for s in range(self.n) if self.taken[s] & moon == moon), None)
        if shooter is None:
            self._score_hand(None, None)
        elif self.rules.moon_scoring is MoonScoring.SHOOTER_CHOOSES:
            self.phase = _MOON_CHOICE
            self.current = shooter
            self.moon_shooter = shooter
        else:
            self._score_hand(shooter, self.rules.moon_scoring)

    def choose_moon_scoring(self, seat: int, choice: MoonScoring) -> None:
        """The shooter's choice under V2 ``shooter_chooses``."""
        self._check_phase(Phase.MOON_CHOICE, "choose the moon scoring")
        if seat != self.current:
            raise NotYourTurnError(f"seat {seat} did not shoot the moon; seat {self.current} did")
        if choice not in (MoonScoring.ADD_TO_OTHERS, MoonScoring.SUBTRACT_FROM_SELF):
            raise ActionError(
                f"the moon scoring must be add_to_others or subtract_from_self, not {choice!r} (V2)",
                rule="V2",
            )
        self._score_hand(seat, choice)

    def _score_hand(self, shooter: int | None, mode: MoonScoring | None) -> None:
        n = self.n
        points = tuple(self.points_taken)
        if shooter is None:
            hand_scores = points
        elif mode is MoonScoring.SUBTRACT_FROM_SELF:
            hand_scores = tuple(-26 if s == shooter else 0 for s in range(n))
        else:
            hand_scores = tuple(0 if s == shooter else 26 for s in range(n))
        totals = [t + h for t, h in zip(self.scores, hand_scores, strict=True)]
        self.scores = totals
        self.hand_results.append(
            HandResult(
                self.hand_number,
                self.pass_direction,
                points,
                hand_scores,
                shooter,
                mode,
                tuple(totals),
                tuple(self.tricks),
            )
        )
        self.moon_shooter = shooter
        if not self._check_game_end(hand_scores):
            self._start_hand(
                self.hand_number + 1, deal(self.rules, self.seed, self.hand_number + 1)
            )

    def _check_game_end(self, last: tuple[int, ...]) -> bool:
        """R9, V5 and V8: whether the game ends after this hand, and its outcome if so."""
        totals = self.scores
        capped = self.rules.hand_cap_reached(self.hand_number)
        if max(totals) < self.rules.target_score and not capped:
            return False
        low = min(totals)
        tied = [s for s in range(self.n) if totals[s] == low]
        rule = self.rules.tie_rule
        # V8: at the cap there is no hand to play on with; tied players share instead.
        if len(tied) > 1 and rule is TieRule.PLAY_ON and not capped:
            return False
        if rule is TieRule.LAST_HAND:
            keys = [(totals[s], last[s]) for s in range(self.n)]
        else:
            keys = [(totals[s], 0) for s in range(self.n)]
        # Competition ranking: tied keys share a placement ("1, 1, 3").
        placements = tuple(1 + sum(k < keys[s] for k in keys) for s in range(self.n))
        winners = tuple(s for s in range(self.n) if placements[s] == 1)
        self.outcome = Outcome(tuple(totals), placements, winners, self.hand_number)
        self.phase = _GAME_OVER
        self.current = -1
        return True

    def _check_phase(self, phase: Phase, doing: str) -> None:
        if self.phase is phase:
            return
        if self.phase is _GAME_OVER:
            raise GameOverError(f"cannot {doing}: the game is over")
        raise WrongPhaseError(f"cannot {doing} while the game is {self.phase.value}")

    def __repr__(self) -> str:
        return (
            f"<GameState hand {self.hand_number} trick {self.trick_number + 1} "
            f"{self.phase.value} scores {self.scores}>"
        )
