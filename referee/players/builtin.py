"""Built-in in-process bots for fast local work: ``random`` and ``heuristic``.

They play from the same :class:`~referee.engine.SeatView` a remote bot gets as
a message, through the same runner checks, but without gRPC. Their choices
are seeded by the game id and decision id, so games are reproducible.
"""

from __future__ import annotations

import random

from referee.engine import (
    HEARTS,
    QUEEN_OF_SPADES,
    SUIT_MASKS,
    Card,
    SeatView,
    Suit,
    card_list,
)
from referee.players.base import BotInfo, Deadline, Player

__all__ = ["BUILTIN_BOTS", "HeuristicPlayer", "RandomPlayer", "builtin_player"]

_QS_BIT = 1 << QUEEN_OF_SPADES
_AS = Card.parse("AS")
_KS = Card.parse("KS")
_SPADES = SUIT_MASKS[Suit.SPADES]


class RandomPlayer(Player):
    """Plays a uniformly random legal card and passes random cards."""

    def __init__(self) -> None:
        self.info = BotInfo(name="random", version="1", author="built-in", language="Python")

    @staticmethod
    def _rng(game_id: str, decision_id: str) -> random.Random:
        return random.Random(f"builtin-random/{game_id}/{decision_id}")

    def pass_cards(
        self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline
    ) -> list[Card]:
        return self._rng(game_id, decision_id).sample(card_list(view.hand), view.rules.pass_count)

    def play_card(self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline) -> Card:
        return self._rng(game_id, decision_id).choice(card_list(view.legal_moves))


def _played_cards(view: SeatView) -> int:
    mask = 0
    for trick in view.tricks:
        for _, card in trick.plays:
            mask |= 1 << card
    for _, card in view.current_trick.plays:
        mask |= 1 << card
    return mask


def _rank(card: int) -> int:
    return card % 13


class HeuristicPlayer(Player):
    """Plays like a sensible human.

    Passes Q♠ without cover, A♠/K♠ without Q♠, and high hearts; ducks under
    the winning card; dumps Q♠ and high cards when void; avoids taking Q♠.
    """

    def __init__(self) -> None:
        self.info = BotInfo(name="heuristic", version="1", author="built-in", language="Python")

    def pass_cards(
        self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline
    ) -> list[Card]:
        hand = int(view.hand)
        spades = hand & _SPADES
        covered_queen = hand & _QS_BIT and (spades & ~_QS_BIT).bit_count() >= 4

        def danger(card: Card) -> tuple[int, int]:
            if card == QUEEN_OF_SPADES:
                return (0 if covered_queen else 3, 0)
            if card in (_AS, _KS) and not (hand & _QS_BIT and covered_queen):
                return (2, _rank(card))
            if 1 << card & HEARTS:
                return (1, _rank(card) + 2)  # hearts a little ahead of equal ranks
            return (1, _rank(card))

        ranked = sorted(card_list(hand), key=danger, reverse=True)
        return ranked[: view.rules.pass_count]

    def play_card(self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline) -> Card:
        legal = card_list(view.legal_moves)
        if len(legal) == 1:
            return legal[0]
        plays = view.current_trick.plays
        queen_out = not _played_cards(view) & _QS_BIT and not view.hand & _QS_BIT
        if not plays:
            return self._lead(legal, queen_out)
        lead_suit = plays[0][1] // 13
        if legal[0] // 13 == lead_suit:  # following suit: all legal cards are of it
            winning = max(c for _, c in plays if c // 13 == lead_suit)
            under = [c for c in legal if c < winning]
            if under:
                return under[-1]  # duck with the highest card that still loses
            last = len(plays) == view.rules.num_players - 1
            safe = [c for c in legal if c != QUEEN_OF_SPADES] or legal
            if last and not (
                view.current_trick.cards & HEARTS or view.current_trick.cards & _QS_BIT
            ):
                return safe[-1]  # a clean trick we win anyway: shed the highest
            return safe[0]
        # Void in the led suit: dump the most dangerous card.
        if QUEEN_OF_SPADES in legal:
            return Card(QUEEN_OF_SPADES)
        if queen_out:
            for big in (_AS, _KS):
                if big in legal:
                    return big
        hearts = [c for c in legal if 1 << c & HEARTS]
        if hearts:
            return hearts[-1]
        return max(legal, key=_rank)

    @staticmethod
    def _lead(legal: list[Card], queen_out: bool) -> Card:
        def risk(card: Card) -> tuple[int, int]:
            risky = card == QUEEN_OF_SPADES or (queen_out and card in (_AS, _KS))
            return (1 if risky else 0, _rank(card))

        return min(legal, key=risk)


#: The built-in bots by name.
BUILTIN_BOTS: dict[str, type[Player]] = {"random": RandomPlayer, "heuristic": HeuristicPlayer}


def builtin_player(name: str) -> Player:
    """A new built-in player by name (``random`` or ``heuristic``)."""
    try:
        return BUILTIN_BOTS[name]()
    except KeyError:
        raise ValueError(
            f"no built-in bot {name!r}; built-ins: {', '.join(BUILTIN_BOTS)}"
        ) from None
