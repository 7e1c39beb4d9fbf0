#!/usr/bin/env python3
"""Settings of the strong bot against each other, in process, on duplicate deals (quick).

    python bench/strong_compare.py --sets 60 --move-ms 100 base eps=0.1 others_weight=0.5

Each argument after the options is a variant of the search settings
(``base`` for the defaults, else ``name=value,name=value`` of
``strong_search.Settings``). For every deal seed, the strong bot plays once in
each seat against three built-in ``heuristic`` bots (the deal's rotations);
the baseline is the built-in heuristic in the same seat, in the game of four
heuristics on that deal (deterministic, so one game covers every rotation).
Games are one hand (target score 1, ties shared), pass left. Prints for each
variant the paired difference in points per hand (heuristic minus strong;
positive: strong is better) with a 95% CI over deal seeds, and the worlds
searched per decision; each variant after the first also against the first,
paired by deal seed (positive: that variant is better). bench/strong.py is the benchmark of record; this is
for measuring alternatives quickly, without gRPC.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import pathlib
import random
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "sample_bots" / "python" / "strong"))

from bot import StrongBot  # noqa: E402

from referee.engine import Card, Rules, SeatView  # noqa: E402
from referee.match.runner import GameSpec, play_game  # noqa: E402
from referee.players import builtin_player  # noqa: E402
from referee.players.base import BotInfo, Deadline, Player  # noqa: E402
from referee.players.policy import FaultPolicy, TimeControl  # noqa: E402
from referee.protocol import (  # noqa: E402
    card_from_pb,
    moon_choice_from_pb,
    moon_scoring_request,
    pass_request,
    play_request,
)
from referee.search import pimc as strong_search  # noqa: E402
from referee.stats.sprt import fixed_summary  # noqa: E402


class InProcessStrong(Player):
    """The strong bot's decisions, called in process on the protocol's messages."""

    def __init__(self, settings: strong_search.Settings, stats: dict) -> None:
        self.info = BotInfo(name="strong", version="1", author="bench", language="Python")
        self.bot = StrongBot(settings)
        self.stats = stats

    def pass_cards(self, game_id, view: SeatView, decision_id, deadline: Deadline) -> list[Card]:
        request = pass_request(game_id, view, decision_id, deadline.move_time_ms, 0)
        return [card_from_pb(c) for c in self.bot.pass_cards(request)]

    def play_card(self, game_id, view: SeatView, decision_id, deadline: Deadline) -> Card:
        request = play_request(game_id, view, decision_id, deadline.move_time_ms, 0)
        started = time.monotonic()
        k = _knowledge(request)
        budget = strong_search.time_budget(deadline.move_time_ms, 0, 1, self.bot.settings)
        choice = strong_search.choose_play(
            k, started + budget, random.Random(), self.bot.settings, self.stats
        )
        return Card(choice)

    def choose_moon_scoring(self, game_id, view, decision_id, deadline):
        request = moon_scoring_request(game_id, view, decision_id, deadline.move_time_ms, 0)
        return moon_choice_from_pb(self.bot.choose_moon_scoring(request))


def _knowledge(request):
    from bot import knowledge

    return knowledge(request)


def parse_variant(text: str) -> tuple[str, strong_search.Settings]:
    if text == "base":
        return text, strong_search.Settings()
    values = {}
    fields = {f.name: f.type for f in dataclasses.fields(strong_search.Settings)}
    for part in text.split(","):
        name, _, value = part.partition("=")
        if name not in fields:
            raise SystemExit(f"unknown setting {name!r}; known: {', '.join(fields)}")
        if name == "playouts_per_world":
            values[name] = int(value)
        elif name == "passing":
            values[name] = value
        else:
            values[name] = float(value)
    return text, strong_search.Settings(**values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("variants", nargs="*", default=["base"])
    parser.add_argument("--sets", type=int, default=40, help="deal seeds (default 40)")
    parser.add_argument("--move-ms", type=int, default=200, help="move time (default 200)")
    parser.add_argument("--seed", type=int, default=1000, help="first deal seed")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    n = args.players
    rules = Rules(num_players=n, target_score=1, tie_rule="share")
    tc = TimeControl(move_time_ms=args.move_ms)
    heuristic = builtin_player("heuristic")
    log = pathlib.Path(tempfile.mkdtemp(prefix="strong-compare-")) / "game.jsonl"
    baseline: dict[int, tuple[int, ...]] = {}
    for d in range(args.sets):
        seed = args.seed + d
        spec = GameSpec(game_id=f"h-{seed}", seed=seed, bots=("h",) * n, rules=rules)
        baseline[seed] = play_game(spec, [heuristic] * n, log).hand_scores[0]
    first: list[float] | None = None
    for text in args.variants:
        name, settings = parse_variant(text)
        stats: dict = {}
        strong = InProcessStrong(settings, stats)
        diffs, moons, wins, started = [], 0, 0.0, time.perf_counter()
        faults: collections.Counter[str] = collections.Counter()
        for d in range(args.sets):
            seed = args.seed + d
            per_seat = []
            for seat in range(n):
                players = [heuristic] * n
                players[seat] = strong
                bots = tuple("strong" if s == seat else "h" for s in range(n))
                spec = GameSpec(
                    game_id=f"s-{seed}-{seat}",
                    seed=seed,
                    bots=bots,
                    rules=rules,
                    time_control=tc,
                    fault_policy=FaultPolicy(max_faults=0),
                )
                record = play_game(spec, players, log)
                per_seat.append(baseline[seed][seat] - record.hand_scores[0][seat])
                moons += record.moons[seat]
                faults.update(record.faults[seat])
                if seat in record.winners:
                    wins += 1 / len(record.winners)
            diffs.append(statistics.fmean(per_seat))
        f = fixed_summary(diffs)
        ci = f"[{f.ci95[0]:+.2f}, {f.ci95[1]:+.2f}]" if f.ci95 else "[?]"
        per = stats.get("worlds", 0) / max(1, stats.get("decisions", 0))
        print(
            f"{name:<40} heuristic - strong {f.mean:+.2f} pts/hand {ci}  "
            f"wins {wins / (args.sets * n):.1%}  moons {moons}  faults {dict(faults) or 0}  "
            f"worlds/decision {per:.0f}  {time.perf_counter() - started:.0f} s",
            flush=True,
        )
        if first is None:
            first = diffs
        else:  # the same deals: paired by deal seed
            g = fixed_summary([a - b for a, b in zip(diffs, first, strict=True)])
            gi = f"[{g.ci95[0]:+.2f}, {g.ci95[1]:+.2f}]" if g.ci95 else "[?]"
            print(f"{'':<40} minus {args.variants[0]}: {g.mean:+.2f} pts/hand {gi} (paired)")


if __name__ == "__main__":
    main()
