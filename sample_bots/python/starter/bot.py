"""python-starter: a Hearts bot in Python. Put your strategy here.

Three functions decide everything the bot does:

- ``choose_pass``: which cards to pass before a hand (R2);
- ``choose_play``: which card to play to the current trick (R3-R6);
- ``choose_moon``: how to score a moon shot under V2 "shooter chooses".

``play_note`` (optional) explains a play in the replays.

Each request carries everything the bot may know (hand, tricks so far, legal
moves, scores, and the rules in force in ``request.rules``), so these
functions need no state and can run for many games and seats at once.
``referee.botkit`` does the rest: the gRPC server, the health and reflection
services, the command line (``--address`` or ``--port``) and SIGTERM.

Run:  python bot.py --port 50051   (or let the referee start it from bot.yaml)
"""

from referee.botkit import Bot, noted, pb, serve

NAME = "python-starter"

SPADES, HEARTS = pb.SUIT_SPADES, pb.SUIT_HEARTS
JACK, QUEEN, KING = pb.RANK_JACK, pb.RANK_QUEEN, pb.RANK_KING


def is_queen_of_spades(card):
    return card.suit == SPADES and card.rank == QUEEN


def highest_first(cards):
    """The cards by rank, highest first (ties: spades, hearts, diamonds, clubs)."""
    return sorted(cards, key=lambda c: (c.rank, c.suit), reverse=True)


def lowest(cards):
    """The lowest-ranked card, preferring one that is not a heart on ties."""
    return min(cards, key=lambda c: (c.rank, c.suit == HEARTS))


def queen_played(request):
    """True if Q♠ has been played in this hand so far (this trick included)."""
    tricks = [*request.tricks, request.current_trick]
    return any(is_queen_of_spades(p.card) for t in tricks for p in t.plays)


def choose_pass(request):
    """``request.count`` distinct cards of ``request.hand``.

    Q♠ unless it is guarded by at least 3 other spades, A♠ and K♠ when Q♠ is
    not held, then the highest hearts, then the highest other cards.
    """
    hand = list(request.hand)
    picked = []

    def take(card):
        if len(picked) < request.count and card not in picked:
            picked.append(card)

    spades = [c for c in hand if c.suit == SPADES]
    queen = next((c for c in hand if is_queen_of_spades(c)), None)
    if queen is not None:
        if len(spades) < 4:  # fewer than 3 guards
            take(queen)
    else:
        for card in spades:
            if card.rank >= KING:
                take(card)
    for card in highest_first(c for c in hand if c.suit == HEARTS):
        take(card)
    for card in highest_first(hand):
        if not is_queen_of_spades(card):  # keep a guarded Q♠ unless nothing else is left
            take(card)
    for card in hand:
        take(card)
    return picked


def choose_play(request):
    """One of ``request.legal_moves``."""
    legal = list(request.legal_moves)
    plays = request.current_trick.plays
    queen_out = not queen_played(request) and not any(is_queen_of_spades(c) for c in request.hand)

    if not plays:  # leading: the lowest card, avoiding high spades while Q♠ is out
        safe = [c for c in legal if c.suit != SPADES or c.rank <= JACK] if queen_out else legal
        return lowest(safe or legal)

    led = plays[0].card.suit
    following = [c for c in legal if c.suit == led]
    if following:  # duck under the current winner if we can
        winner = max(p.card.rank for p in plays if p.card.suit == led)
        under = [c for c in following if c.rank < winner]
        if under:
            return highest_first(under)[0]
        if len(plays) == request.rules.num_players - 1:
            # Last to play and we win anyway: shed our highest card (but not Q♠).
            no_queen = [c for c in following if not is_queen_of_spades(c)]
            return highest_first(no_queen or following)[0]
        return lowest(following)

    # Void in the led suit: dump Q♠, then A♠/K♠ while Q♠ is out, then the
    # highest heart, then the highest card.
    for card in legal:
        if is_queen_of_spades(card):
            return card
    if not queen_played(request):
        big = [c for c in legal if c.suit == SPADES and c.rank > QUEEN]
        if big:
            return highest_first(big)[0]
    hearts = [c for c in legal if c.suit == HEARTS]
    return highest_first(hearts or legal)[0]


def play_note(request, card):
    """An optional line about a play, sent with it as the answer's note.

    ``referee replay`` and the web replay show it beside the card, for this
    seat only (at most 200 characters are kept; "" sends none). Any answer
    can carry one: return ``noted(answer, text)`` from a decision method.
    """
    name = "??23456789TJQKA"[card.rank] + "?CDHS"[card.suit]
    return f"{name} of {len(request.legal_moves)} legal (trick {request.trick_number})"


def choose_moon(request):
    """Add 26 to the others when that leaves us strictly lowest, else subtract 26 from us.

    Both leave the standings in the same order; they differ only in whether
    the others' totals grow and may end the game (R9).
    """
    scores = list(request.scores)
    me = request.seat
    if 0 <= me < len(scores) and any(
        s != me and total + 26 <= scores[me] for s, total in enumerate(scores)
    ):
        return pb.MOON_SCORING_SUBTRACT_FROM_SELF
    return pb.MOON_SCORING_ADD_TO_OTHERS


class StarterBot(Bot):
    name = NAME
    version = "0.1.0"
    author = "Hearts referee authors"

    def pass_cards(self, request):
        return choose_pass(request)

    def play_card(self, request):
        card = choose_play(request)
        return noted(card, play_note(request, card))

    def choose_moon_scoring(self, request):
        return choose_moon(request)


if __name__ == "__main__":
    serve(StarterBot())
