"""Determinized search (PIMC) over the unseen cards: the strong bot's decisions.

For a play, :func:`choose_play` samples *worlds*: deals of the cards this seat
has not seen to the other seats, consistent with everything the seat knows
(see :class:`Knowledge`). In each world it plays every candidate card and then
the rest of the hand with a fast playout policy (:mod:`referee.search.sim`), and
scores the outcome for this seat; the card with the best mean over the worlds
wins. Every candidate is tried in the same worlds (common random numbers), so
the comparison is paired. The search stops at a wall-clock deadline and
counts only worlds in which every candidate was played out.

Passing (:func:`choose_pass`) is a hand-evaluation heuristic, and the moon
question (:func:`choose_moon`) a comparison of the two outcomes' standings.
docs/strategy.md explains the choices and the measurements behind them.

Standard library only, so that a launched Python bot can import it from the
referee package the sandbox shows it read-only (sample_bots/python/strong does);
the game analysis (:mod:`referee.analysis`) searches with the same core. The
cards are the engine's ints (``suit * 13 + rank - 2``).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import time

from referee.search.sim import (
    ADD_TO_OTHERS,
    AS,
    FULL,
    HEARTS,
    JD,
    KS,
    QS,
    SHOOTER_CHOOSES,
    SPADES,
    SUBTRACT_FROM_SELF,
    SUIT_MASKS,
    Variant,
    hand_scores,
    heuristic_card,
    playout,
)


@dataclasses.dataclass(slots=True)
class Settings:
    """Search settings (docs/strategy.md measures them against each other)."""

    #: Probability of a random legal card at each playout play (0: pure heuristic policy).
    epsilon: float = 0.0
    #: Playouts per candidate card in each sampled world.
    playouts_per_world: int = 1
    #: Weight of the others' mean score in the utility: mine - w * mean(others).
    others_weight: float = 0.0
    #: Share of the free move time the search may use.
    move_share: float = 0.55
    #: Seconds kept back from every deadline for transport and scheduling.
    margin: float = 0.012
    #: Share of the time bank the bot plans to spend over the game.
    bank_share: float = 0.8
    #: Passing: "evaluate" (choose_pass), "search" (search_pass) or "simple" (the
    #: built-in heuristic's rule).
    passing: str = "search"


DEFAULT = Settings()


@dataclasses.dataclass(slots=True)
class Knowledge:
    """What one seat knows in the middle of a hand (the engine's card ints and masks)."""

    variant: Variant
    seat: int
    hand: int
    #: Completed tricks: (leader, [cards in play order]).
    tricks: list[tuple[int, list[int]]]
    #: The trick in progress: its leader and cards so far.
    leader: int
    current: list[int]
    hearts_broken: bool
    legal: int
    #: Cards this seat passed and the seat that got them (-1: none, a hold hand).
    passed: int = 0
    pass_to: int = -1
    received: int = 0
    scores: tuple[int, ...] = ()
    target_score: int = 100


def trick_winner(leader: int, cards: list[int], n: int) -> int:
    """The seat that wins a complete trick (R4)."""
    suit = cards[0] // 13
    best = max(range(len(cards)), key=lambda i: cards[i] if cards[i] // 13 == suit else -1)
    return (leader + best) % n


class Worlds:
    """Samples the other seats' hands consistently with a seat's :class:`Knowledge`.

    Constraints: the seat's own cards and every card played are known; a seat
    that did not follow suit is void in the led suit (R4); a seat that
    discarded a heart or Q♠ to the clean first trick holds nothing else (R5);
    a seat that led a heart before hearts were broken holds only hearts (R6);
    the cards this seat passed are in the receiver's hand until played; and
    each seat holds as many cards as it has left to play.
    """

    def __init__(self, k: Knowledge, rng: random.Random) -> None:
        v = k.variant
        n = v.n
        self.n = n
        self.rng = rng
        played = 0
        count = [0] * n
        allowed = [FULL] * n
        taken = [0] * n
        broken = False
        tricks = [(leader, cards, True) for leader, cards in k.tricks]
        tricks.append((k.leader, k.current, False))
        for number, (leader, cards, complete) in enumerate(tricks):
            if not cards:
                continue
            suit = cards[0] // 13
            if number > 0 and not broken and suit == 2 and leader != k.seat:
                allowed[leader] &= HEARTS  # R6: led a heart unbroken, so holds only hearts
            trick = 0
            for i, c in enumerate(cards):
                s = (leader + i) % n
                played |= 1 << c
                trick |= 1 << c
                count[s] += 1
                if c // 13 != suit and s != k.seat:
                    allowed[s] &= ~SUIT_MASKS[suit]
                    if number == 0 and v.clean_first and (1 << c) & (HEARTS | QS):
                        allowed[s] &= HEARTS | QS  # R5: it had nothing clean
            for c in cards:
                if c // 13 == 2 or (v.qs_breaks and c == 49):
                    broken = True
            if complete:
                taken[trick_winner(leader, cards, n)] |= trick
        self.played = played
        self.taken = taken
        unseen = v.deck & ~played & ~k.hand
        self.need = [v.tricks - count[s] for s in range(n)]
        self.need[k.seat] = 0
        fixed = [0] * n
        if k.pass_to >= 0 and k.pass_to != k.seat and k.passed:
            fixed[k.pass_to] = k.passed & unseen
        self.fixed = fixed
        self.free = unseen & ~sum(fixed)
        others = [s for s in range(n) if s != k.seat]
        self.others = others
        for s in others:
            self.need[s] -= fixed[s].bit_count()
            allowed[s] |= fixed[s]
        self.allowed = allowed
        # The most constrained cards first: fewer dead ends.
        cards = [c for c in range(52) if self.free >> c & 1]
        options = {c: sum(1 for s in others if allowed[s] >> c & 1) for c in cards}
        self.cards = sorted(cards, key=lambda c: options[c])
        self.constrained = any(options[c] < len(others) for c in cards)
        self.hand = k.hand
        self.seat = k.seat

    def sample(self) -> list[int]:
        """One world: every seat's hand (this seat's own included)."""
        rng = self.rng
        others = self.others
        for _ in range(30):
            hands = list(self.fixed)
            need = list(self.need)
            ok = True
            if self.constrained:
                for c in self.cards:
                    bit = 1 << c
                    total = 0
                    for s in others:
                        if need[s] and self.allowed[s] & bit:
                            total += need[s]
                    if not total:
                        ok = False
                        break
                    r = rng.randrange(total)
                    for s in others:
                        if need[s] and self.allowed[s] & bit:
                            r -= need[s]
                            if r < 0:
                                break
                    hands[s] |= bit
                    need[s] -= 1
            else:
                cards = list(self.cards)
                rng.shuffle(cards)
                i = 0
                for s in others:
                    for c in cards[i : i + need[s]]:
                        hands[s] |= 1 << c
                    i += need[s]
            if ok:
                hands[self.seat] = self.hand
                return hands
        # Inconsistent knowledge (should not happen): deal ignoring the voids.
        hands = list(self.fixed)
        cards = list(self.cards)
        rng.shuffle(cards)
        i = 0
        for s in others:
            for c in cards[i : i + self.need[s]]:
                hands[s] |= 1 << c
            i += self.need[s]
        hands[self.seat] = self.hand
        return hands


def candidates(legal: int, played: int) -> list[int]:
    """The legal cards that play differently.

    Two legal cards of a suit with nothing but played cards between them win
    and lose the same tricks, so only the lower is searched. Q♠ and J♦ carry
    points of their own and are never merged with a neighbour.
    """
    out: list[int] = []
    previous = -1
    for c in range(52):
        bit = 1 << c
        if legal & bit:
            if (
                previous >= 0
                and c // 13 == previous // 13
                and not (bit | 1 << previous) & (QS | JD)
            ):
                previous = c  # the same as the last card kept
                continue
            out.append(c)
            previous = c
        elif not played & bit:
            previous = -1  # a card still out (or held back) splits the run
    return out


def utility(scores: list[int], seat: int, weight: float) -> float:
    """What a hand's scores are worth to ``seat`` (lower is better)."""
    if not weight:
        return scores[seat]
    others = (sum(scores) - scores[seat]) / (len(scores) - 1)
    return scores[seat] - weight * others


def moon_pick(k: Knowledge, taken: list[int]) -> str | None:
    """Under shooter_chooses: the choice assumed in playouts (ours if we shoot; else the worst)."""
    return SUBTRACT_FROM_SELF if taken[k.seat] & k.variant.moon == k.variant.moon else None


def choose_play(
    k: Knowledge,
    deadline: float,
    rng: random.Random | None = None,
    settings: Settings = DEFAULT,
    stats: dict | None = None,
) -> int:
    """The card to play: PIMC over sampled worlds until ``deadline`` (time.monotonic())."""
    legal = k.legal
    v = k.variant
    n = v.n
    rng = rng or random.Random()
    first = (legal & -legal).bit_length() - 1
    if legal & (legal - 1) == 0:
        return first
    worlds = Worlds(k, rng)
    moves = candidates(legal, worlds.played)
    qs_out = not worlds.played & QS
    trick = 0
    for c in k.current:
        trick |= 1 << c
    lead_suit = k.current[0] // 13 if k.current else -1
    fallback = heuristic_card(
        k.hand, legal, trick, lead_suit, len(k.current), len(k.current) == n - 1, qs_out
    )
    if len(moves) == 1:
        return moves[0]
    if time.monotonic() >= deadline:
        return fallback
    totals = [0.0] * len(moves)
    count = 0
    trick_number = len(k.tricks)
    eps = settings.epsilon
    per_world = settings.playouts_per_world
    weight = settings.others_weight
    choose = v.moon_scoring == SHOOTER_CHOOSES
    seat = k.seat
    clock = time.monotonic
    out_of_time = False
    while not out_of_time:
        hands = worlds.sample()
        row = []
        for m in moves:
            total = 0.0
            for _ in range(per_world):
                h = list(hands)
                h[seat] &= ~(1 << m)
                taken = playout(
                    v,
                    h,
                    list(worlds.taken),
                    k.leader,
                    [*k.current, m],
                    trick_number,
                    k.hearts_broken or bool((1 << m) & HEARTS) or (v.qs_breaks and m == 49),
                    rng,
                    eps,
                )
                choice = moon_pick(k, taken) if choose else None
                total += utility(hand_scores(v, taken, choice), seat, weight)
            row.append(total)
            if clock() >= deadline:
                out_of_time = True
                break
        if len(row) == len(moves):
            count += 1
            for i, value in enumerate(row):
                totals[i] += value
    if stats is not None:
        stats["worlds"] = stats.get("worlds", 0) + count
        stats["decisions"] = stats.get("decisions", 0) + 1
    if not count:
        return fallback
    best = min(range(len(moves)), key=lambda i: (totals[i], moves[i] != fallback))
    return moves[best]


# Passing ---------------------------------------------------------------------------------


def choose_pass(hand: int, count: int, variant: Variant) -> list[int]:
    """The cards to pass (R2): a hand evaluation that keeps the hand safe.

    Q♠ goes unless four other spades guard it; A♠ and K♠ go unless Q♠ stays
    guarded; short clubs and diamonds go to make a void (a void lets the
    hand shed Q♠ and hearts); then high hearts and the highest cards. Low
    cards stay: they duck tricks.
    """
    spades = hand & SPADES
    low_spades = (spades & ((1 << 49) - 1)).bit_count()  # spades below Q♠
    keep_queen = bool(hand & QS) and low_spades >= 4
    chosen: list[int] = []

    def danger(c: int, picked: int) -> float:
        bit = 1 << c
        rank = c % 13 + 2
        suit = c // 13
        if bit == QS:
            return 0.0 if keep_queen else 100.0
        if bit & (AS | KS):
            if keep_queen or (not hand & QS and low_spades >= 4):
                return 4.0
            return 80.0 + rank
        if variant.omnibus and bit == JD:
            return -5.0  # worth -10 to whoever takes it: keep it
        if suit == 2:  # hearts: the high ones take tricks full of points
            return 30.0 + rank if rank >= 11 else rank * 1.5
        if suit == 3:
            return rank * 0.5  # low spades guard against Q♠
        # Clubs and diamonds: high cards, more so in a short suit we can empty.
        left = (hand & ~picked & SUIT_MASKS[suit]).bit_count()
        short = max(0, 4 - left) * 6.0
        return rank + short + (8.0 if rank >= 12 else 0.0)

    picked = 0
    for _ in range(count):
        best = max(
            (c for c in range(52) if hand & ~picked & (1 << c)),
            key=lambda c: (danger(c, picked), c),
        )
        chosen.append(best)
        picked |= 1 << best
    return chosen


def search_pass(
    hand: int,
    count: int,
    variant: Variant,
    seat: int,
    pass_to: int,
    deadline: float,
    rng: random.Random | None = None,
    *,
    width: int = 6,
    stats: dict | None = None,
) -> list[int]:
    """The cards to pass, searched: candidate passes played out in sampled deals.

    The candidates are every ``count`` of the ``width`` cards :func:`choose_pass`
    finds most dangerous, and its own pick. Each sampled world deals the unseen
    cards to the other seats, lets them pass by :func:`simple_pass`, then, for
    every candidate, exchanges the passes and plays the hand out with the
    playout policy; the candidate with the lowest mean score wins (the same
    worlds for all: paired). Without the time for two worlds it is
    :func:`choose_pass`'s pick.
    """
    rng = rng or random.Random()
    base = choose_pass(hand, count, variant)
    n = variant.n
    offset = (pass_to - seat) % n
    if offset == 0:
        return base
    order = []
    picked = 0
    for _ in range(width):  # the width most dangerous cards, by choose_pass's own order
        left = hand & ~picked
        if not left:
            break
        c = choose_pass(left, 1, variant)[0]
        order.append(c)
        picked |= 1 << c
    options = [tuple(sorted(base))]
    for combo in itertools.combinations(sorted(order), count):
        if combo not in options:
            options.append(combo)
    masks = [sum(1 << c for c in combo) for combo in options]
    unseen = variant.deck & ~hand
    cards = [c for c in range(52) if unseen >> c & 1]
    per = variant.tricks
    others = [s for s in range(n) if s != seat]
    receiver = (seat + offset) % n
    first_lead = variant.first_lead
    totals = [0.0] * len(options)
    worlds = 0
    clock = time.monotonic
    while clock() < deadline:
        base_hands = pass_world(rng, cards, hand, seat, others, per, count, offset, n)
        row = []
        for m in masks:
            h = list(base_hands)
            h[seat] &= ~m
            h[receiver] |= m
            leader = next(s for s in range(n) if h[s] & first_lead)
            taken = playout(variant, h, [0] * n, leader, [], 0, False)
            row.append(hand_scores(variant, taken)[seat])
            if clock() >= deadline:
                break
        if len(row) < len(masks):
            break
        worlds += 1
        for i, value in enumerate(row):
            totals[i] += value
    if stats is not None:
        stats["pass_worlds"] = stats.get("pass_worlds", 0) + worlds
    if worlds < 2:
        return base
    best = min(range(len(options)), key=lambda i: (totals[i], i))
    return list(options[best])


def simple_pass(hand: int, count: int) -> list[int]:
    """The built-in heuristic's pass (referee/players/builtin.py), for comparison:
    unguarded Q♠, then A♠/K♠ without a guarded Q♠, then the highest cards, hearts first."""
    guarded = bool(hand & QS) and (hand & SPADES & ~QS).bit_count() >= 4

    def danger(c: int) -> tuple[int, int]:
        if 1 << c == QS:
            return (0 if guarded else 3, 0)
        if (1 << c) & (AS | KS) and not guarded:
            return (2, c % 13)
        if c // 13 == 2:
            return (1, c % 13 + 2)
        return (1, c % 13)

    return sorted((c for c in range(52) if hand >> c & 1), key=danger, reverse=True)[:count]


def pass_world(
    rng: random.Random,
    unseen: list[int],
    hand: int,
    seat: int,
    others: list[int],
    per: int,
    count: int,
    offset: int,
    n: int,
) -> list[int]:
    """One world of a pass: ``unseen`` shuffled (in place) and dealt ``per`` cards to
    each of ``others``, who pass ``count`` cards by :func:`simple_pass` to the seat
    ``offset`` to their left; the hands after those passes, ``seat``'s own not yet made.
    """
    rng.shuffle(unseen)
    hands = [0] * n
    hands[seat] = hand
    for i, s in enumerate(others):
        for c in unseen[i * per : (i + 1) * per]:
            hands[s] |= 1 << c
    passes = [0] * n
    for s in others:
        for c in simple_pass(hands[s], count):
            passes[s] |= 1 << c
    after = [hands[s] & ~passes[s] for s in range(n)]
    for s in others:
        after[(s + offset) % n] |= passes[s]
    return after


# The moon question -------------------------------------------------------------------------


def choose_moon(seat: int, scores: tuple[int, ...]) -> str:
    """V2 shooter_chooses: add 26 to the others, or take 26 off our own total.

    Both move our total 26 closer to (or further below) every other seat's;
    they differ only in when the game ends, since adding 26 to the others may
    end it (R9) and subtracting never does. So: add when we would then be alone
    lowest (if that ends the game we win it; if not, a leader wants the end
    sooner), subtract otherwise (if adding ended the game we would lose it; if
    not, a trailer wants more hands to catch up).
    """
    add = [s if i == seat else s + 26 for i, s in enumerate(scores)]
    alone_lowest = all(add[seat] < t for i, t in enumerate(add) if i != seat)
    return ADD_TO_OTHERS if alone_lowest else SUBTRACT_FROM_SELF


# Time ---------------------------------------------------------------------------------------


def time_budget(
    move_time_ms: int,
    time_bank_ms: int,
    decisions_left: int,
    settings: Settings = DEFAULT,
    *,
    load: float = 1.0,
    lateness: float = 0.0,
) -> float:
    """Seconds to think: a share of the move time plus a slice of the bank, less a margin.

    ``load`` (the run queue per CPU, from the load average) above 1 means that
    the machine is busy and every step, the answer's transport included, takes
    longer: the budget shrinks in proportion, to 40% at most.
    ``lateness`` (seconds by which recent searches overran their deadline
    in this process) is kept back twice.
    """
    move = max(0, move_time_ms) / 1000
    bank = max(0, time_bank_ms) / 1000
    spend = move * settings.move_share
    if bank > 0:
        spend += bank * settings.bank_share / max(1, decisions_left)
    spend *= min(1.0, max(0.4, 1.0 / load)) if load > 0 else 1.0
    return max(0.0, spend - settings.margin - 2 * lateness)


def decisions_left(k_tricks_left: int, scores: tuple[int, ...], target: int, per_hand: int) -> int:
    """A guess of this seat's decisions left in the game (to share the time bank out)."""
    top = max(scores) if scores else 0
    n = max(1, len(scores))
    hands_left = max(0, (target - top)) * n / 30  # the leader gains ~30/n points a hand
    return k_tricks_left + int(hands_left * (per_hand + 1))


__all__ = [
    "DEFAULT",
    "Knowledge",
    "Settings",
    "Worlds",
    "candidates",
    "choose_moon",
    "choose_pass",
    "choose_play",
    "decisions_left",
    "moon_pick",
    "pass_world",
    "time_budget",
    "trick_winner",
]
