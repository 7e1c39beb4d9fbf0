"""A Hearts bot that plays like a sensible human. Copy it and make it yours.

It passes Q♠ when it lacks cover and high hearts, ducks under the winning
card, dumps Q♠ and high hearts when void, and avoids taking Q♠. It keeps no
state: every request carries what the bot may know (docs/rules.md has the rules).

Run:  python bot.py --port 50051
"""

from referee.botkit import Bot, pb, serve

QUEEN, KING, ACE = pb.RANK_QUEEN, pb.RANK_KING, pb.RANK_ACE
SPADES, HEARTS = pb.SUIT_SPADES, pb.SUIT_HEARTS


def is_queen_of_spades(card):
    return card.suit == SPADES and card.rank == QUEEN


def queen_of_spades_gone(request):
    """True if Q♠ was played in an earlier trick or in this one."""
    plays = [p for t in request.tricks for p in t.plays] + list(request.current_trick.plays)
    return any(is_queen_of_spades(p.card) for p in plays)


class HeuristicBot(Bot):
    name = "heuristic-py"
    version = "1.0.0"
    author = "Hearts referee authors"

    def pass_cards(self, request):
        hand = list(request.hand)
        spades = [c for c in hand if c.suit == SPADES and not is_queen_of_spades(c)]
        holds_queen = any(is_queen_of_spades(c) for c in hand)
        queen_covered = holds_queen and len(spades) >= 4

        def danger(card):
            if is_queen_of_spades(card):
                return (0, 0) if queen_covered else (3, 0)
            if card.suit == SPADES and card.rank in (KING, ACE) and not queen_covered:
                return (2, card.rank)  # they catch Q♠ when somebody dumps it
            if card.suit == HEARTS:
                return (1, card.rank + 2)  # high hearts take points
            return (1, card.rank)

        return sorted(hand, key=danger, reverse=True)[: request.count]

    def play_card(self, request):
        legal = sorted(request.legal_moves, key=lambda c: c.rank)
        if len(legal) == 1:
            return legal[0]
        plays = request.current_trick.plays
        queen_out = not queen_of_spades_gone(request) and not any(
            is_queen_of_spades(c) for c in request.hand
        )
        if not plays:  # leading: low cards of safe suits first

            def risk(card):
                risky = is_queen_of_spades(card) or (
                    queen_out and card.suit == SPADES and card.rank in (KING, ACE)
                )
                return (risky, card.rank)

            return min(legal, key=risk)
        led = plays[0].card.suit
        if legal[0].suit == led:  # following suit
            winning = max(p.card.rank for p in plays if p.card.suit == led)
            under = [c for c in legal if c.rank < winning]
            if under:
                return under[-1]  # duck with the highest card that still loses
            safe = [c for c in legal if not is_queen_of_spades(c)] or legal
            last = len(plays) == request.rules.num_players - 1
            points = any(p.card.suit == HEARTS or is_queen_of_spades(p.card) for p in plays)
            return safe[-1] if last and not points else safe[0]
        # Void in the led suit: get rid of the most dangerous card.
        for card in legal:
            if is_queen_of_spades(card):
                return card
        if queen_out:
            for card in reversed(legal):
                if card.suit == SPADES and card.rank in (KING, ACE):
                    return card
        hearts = [c for c in legal if c.suit == HEARTS]
        return hearts[-1] if hearts else legal[-1]

    def choose_moon_scoring(self, request):
        return pb.MOON_SCORING_ADD_TO_OTHERS


if __name__ == "__main__":
    serve(HeuristicBot())
