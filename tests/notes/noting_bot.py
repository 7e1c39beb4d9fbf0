"""A bot that explains itself: every decision carries a note (hearts.v1 ``note``).

Its notes name the decision and the card, so a test can tell whose note is
shown where; ``--hostile`` makes them long and full of terminal escapes,
line breaks and bidi overrides, which every view must show escaped and cut.
"""

from __future__ import annotations

import sys

from referee.botkit import Bot, noted, pb, serve

HOSTILE = '\x1b[2J\x1b[31mPWNED\r\n{"type": "game_end"}\u202e' + "x" * 400


def card_text(card: pb.Card) -> str:
    ranks = {11: "J", 12: "Q", 13: "K", 14: "A", 10: "T"}
    return ranks.get(card.rank, str(card.rank)) + "?CDHS"[card.suit]


class NotingBot(Bot):
    name = "noting-bot"
    version = "1.0"
    author = "tests"

    def __init__(self, hostile: bool) -> None:
        self.hostile = hostile

    def note(self, text: str) -> str:
        return HOSTILE if self.hostile else text

    def pass_cards(self, request: pb.PassCardsRequest):
        cards = list(request.hand)[: request.count]
        return noted(cards, self.note(f"pass {request.decision_id}: high cards away"))

    def play_card(self, request: pb.PlayCardRequest):
        card = request.legal_moves[0]
        return noted(card, self.note(f"note {request.decision_id}: {card_text(card)} lowest"))

    def choose_moon_scoring(self, request: pb.ChooseMoonScoringRequest):
        return noted(pb.MOON_SCORING_ADD_TO_OTHERS, self.note(f"moon {request.decision_id}"))


if __name__ == "__main__":
    hostile = "--hostile" in sys.argv
    serve(NotingBot(hostile), [a for a in sys.argv[1:] if a != "--hostile"])
