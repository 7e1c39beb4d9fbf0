"""Benchmark: full random hands per second, our engine against OpenSpiel's C++ Hearts.

Both sides do the same work from Python with a seeded ``random.Random``: deal,
pass (three random cards each; one hand in four is a hold hand on both sides),
13 tricks of random legal cards, scoring. Ours is driven the way a bot drives
it (``legal_mask`` / ``card_list`` / ``play``) through whole games with the
default rules, counting completed hands; OpenSpiel's game is one hand, its
chance outcomes (pass direction, the deal) are drawn from the same generator.

The machine may be shared, so the two are measured in the same run, in short
alternating slices grouped into rounds; each round prints both rates and their
ratio, and the summary gives the overall rates, their ratio, and the minimum
and median of the per-round ratios. Usage::

    python bench/engine.py --seconds 20 --seed 1

Needs the ``bench`` extra (``open-spiel``) for the comparison; without it only
our figure is printed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.engine import GameState, Phase, Rules, card_list

SLICE_SECONDS = 0.25


class OursRunner:
    """Plays whole games with the default rules, one hand per call of :meth:`hand`."""

    def __init__(self, rng: random.Random, first_seed: int) -> None:
        self.rules = Rules()
        self.rng = rng
        self.seed = first_seed
        self.state = GameState.new(self.rules, self.seed)
        self.plays_per_hand = self.rules.num_players * self.rules.cards_per_player

    def hand(self) -> None:
        state = self.state
        if state.is_over:
            self.seed += 1
            state = self.state = GameState.new(self.rules, self.seed)
        rng = self.rng
        if state.phase is Phase.PASSING:
            for seat in state.to_act():
                state.pass_cards(seat, rng.sample(card_list(state.hands[seat]), 3))
        choice, play, legal_mask = rng.choice, state.play, state.legal_mask
        for _ in range(self.plays_per_hand):
            play(choice(card_list(legal_mask())))
        if state.phase is Phase.MOON_CHOICE:  # not with the default rules
            raise AssertionError("unexpected moon choice")


class OpenSpielRunner:
    """Plays OpenSpiel hands (one game = one hand), one per call of :meth:`hand`."""

    def __init__(self, rng: random.Random) -> None:
        import pyspiel

        self.game = pyspiel.load_game("hearts")
        self.rng = rng

    def hand(self) -> None:
        state = self.game.new_initial_state()
        choice = self.rng.choice
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))


def run_for(runner: OursRunner | OpenSpielRunner, seconds: float) -> tuple[int, float]:
    """Play hands for about ``seconds``; return (hands, elapsed)."""
    hand = runner.hand
    clock = time.perf_counter
    hands = 0
    start = clock()
    deadline = start + seconds
    while True:
        for _ in range(10):
            hand()
        hands += 10
        now = clock()
        if now >= deadline:
            return hands, now - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="total time per side")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random driver")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rounds <= 0:
        parser.error("--seconds and --rounds must be positive")
    per_round = args.seconds / args.rounds

    try:
        import pyspiel  # noqa: F401

        have_openspiel = True
    except ImportError:
        have_openspiel = False
        print(
            "pyspiel not found: install the bench extra (pip install open-spiel) "
            "to compare with OpenSpiel; measuring our engine only",
            file=sys.stderr,
        )

    ours = OursRunner(random.Random(args.seed), first_seed=args.seed * 1_000_000)
    spiel = OpenSpielRunner(random.Random(args.seed)) if have_openspiel else None
    # Short alternating slices, so that both sides see the same load on a
    # shared machine; a round is the sum of its slices.
    slices = max(1, round(per_round / SLICE_SECONDS))
    ours_rates: list[float] = []
    spiel_rates: list[float] = []
    ratios: list[float] = []
    totals = [0, 0.0, 0, 0.0]
    for r in range(1, args.rounds + 1):
        counts = [0, 0.0, 0, 0.0]
        for _ in range(slices):
            hands, elapsed = run_for(ours, per_round / slices)
            counts[0] += hands
            counts[1] += elapsed
            if spiel is not None:
                hands, elapsed = run_for(spiel, per_round / slices)
                counts[2] += hands
                counts[3] += elapsed
        totals = [t + c for t, c in zip(totals, counts, strict=True)]
        ours_rates.append(counts[0] / counts[1])
        line = f"round {r}: ours {ours_rates[-1]:7.0f} hands/s"
        if spiel is not None:
            spiel_rates.append(counts[2] / counts[3])
            ratios.append(ours_rates[-1] / spiel_rates[-1])
            line += f"   openspiel {spiel_rates[-1]:7.0f} hands/s   ratio {ratios[-1]:.2f}"
        print(line, flush=True)

    print(f"ours:      {totals[0] / totals[1]:7.0f} hands/s ({totals[0]} hands)")
    if spiel is not None:
        print(f"openspiel: {totals[2] / totals[3]:7.0f} hands/s ({totals[2]} hands)")
        ratio = (totals[0] / totals[1]) / (totals[2] / totals[3])
        print(
            f"ratio ours/openspiel: {ratio:.2f} overall "
            f"(per round: min {min(ratios):.2f}, median {statistics.median(ratios):.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
