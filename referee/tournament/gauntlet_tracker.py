"""A gauntlet's statistics: paired differences and sequential tests, from journal entries.

For each baseline, a duplicate set (an opponent group and a deal set) gives
one sample once all its games with the candidate and with that baseline are
journaled: ``baseline - candidate`` in points per hand over the set's games,
or in mean placement. :class:`GauntletTracker` is fed the journal's game
entries in journal order, so its figures are a pure function of the journal
(rebuilt on resume, by the report of a folder and by the web view).
docs/sprt.md has the statistics.
"""

from __future__ import annotations

import collections
import dataclasses
import math
from collections.abc import Iterable, Mapping
from typing import Any

from referee.schedule import GauntletScheduler
from referee.stats.sprt import (
    SequentialTest,
    SprtStatus,
    fixed_summary,
    paired_counts,
)
from referee.tournament.gauntlet_config import GauntletConfig

__all__ = ["GauntletTracker", "tracker_from_journal"]


@dataclasses.dataclass(slots=True)
class _Side:
    points: int = 0
    hands: int = 0
    placement: float = 0.0
    games: int = 0

    def add(self, entry: Mapping[str, Any], seat: int) -> None:
        self.points += sum(hand[seat] for hand in entry["hand_scores"])
        self.hands += len(entry["hand_scores"])
        self.placement += entry["placements"][seat]
        self.games += 1

    def value(self, metric: str) -> float:
        if metric == "placement":
            return self.placement / self.games
        return self.points / self.hands if self.hands else 0.0


class GauntletTracker:
    """The paired differences and the sequential tests, fed journal entries in journal order.

    For each baseline, a duplicate set gives its sample when the set's last
    candidate or baseline game arrives: ``baseline - candidate`` in points per
    hand over the set's games (or mean placement). The test of a baseline
    stops at the first sample that crosses a bound; later samples (the games
    that were in flight) count in the final figures only.
    """

    def __init__(self, gauntlet: GauntletConfig, games_per_set: int) -> None:
        self.gauntlet = gauntlet
        #: Games of one subject in one duplicate set (the seatings).
        self.games_per_set = games_per_set
        self._sides: dict[tuple[int, int], dict[str, dict[str, _Side]]] = collections.defaultdict(
            lambda: collections.defaultdict(dict)
        )
        self._seen: set[str] = set()
        self.samples: dict[str, dict[str, list[float]]] = {
            b: {"points": [], "placement": []} for b in gauntlet.baselines
        }
        self.stops: dict[str, SprtStatus] = {}
        #: Each baseline's sequential test, fed its sets in journal order.
        self.tests: dict[str, SequentialTest] = {
            b: SequentialTest(gauntlet.sprt) for b in gauntlet.baselines
        }
        #: Faults charged to each subject in its games, by kind (a bot that times out or
        #: did not start plays fallback moves: its games do not measure it).
        self.faults: dict[str, collections.Counter[str]] = {
            name: collections.Counter() for name in (gauntlet.candidate, *gauntlet.baselines)
        }

    @classmethod
    def of(cls, gauntlet: GauntletConfig, scheduler: GauntletScheduler) -> GauntletTracker:
        """The tracker of ``gauntlet`` on its schedule (a set holds a game per seating and subject)."""
        return cls(gauntlet, len(scheduler.seatings()))

    @property
    def metric(self) -> str:
        return self.gauntlet.metric

    def add(self, entry: Mapping[str, Any]) -> bool:
        """Count a journaled game; True if a test decided with it."""
        meta = {**entry.get("meta", {}), **entry}
        game_id, subject = str(meta.get("game_id")), meta.get("subject")
        if game_id in self._seen or subject not in entry.get("bots", ()):
            return False
        self._seen.add(game_id)
        set_key = (int(meta["table"]), int(meta["deal_set"]))
        seat = list(entry["bots"]).index(subject)
        if subject in self.faults and "faults" in entry:
            self.faults[subject].update(entry["faults"][seat])
        side = _Side()
        side.add(entry, seat)
        self._sides[set_key][subject][game_id] = side
        decided = False
        subjects = self._sides[set_key]
        if subject == self.gauntlet.candidate:
            changed = list(self.gauntlet.baselines)
        else:
            changed = [subject] if subject in self.samples else []
        for baseline in changed:
            cand, base = subjects.get(self.gauntlet.candidate, {}), subjects.get(baseline, {})
            if len(cand) != self.games_per_set or len(base) != self.games_per_set:
                continue
            for metric in ("points", "placement"):
                c, b = _merge(cand.values()), _merge(base.values())
                self.samples[baseline][metric].append(b.value(metric) - c.value(metric))
            decided |= self._step(baseline)
        return decided

    def _step(self, baseline: str) -> bool:
        if self.gauntlet.test != "sprt":
            return False
        test = self.tests[baseline]
        test.add(self.samples[baseline][self.metric][-1])
        if baseline in self.stops or test.stop is None:
            return False
        self.stops[baseline] = test.stop
        return True

    @property
    def decided(self) -> bool:
        """Every baseline's sequential test has decided (never, in fixed mode)."""
        return self.gauntlet.test == "sprt" and len(self.stops) == len(self.gauntlet.baselines)

    def status(self, baseline: str) -> SprtStatus:
        """The test over every sample so far (the final figures)."""
        return self.tests[baseline].status()

    def expected_sets_left(self) -> float | None:
        """The sets still expected before every test has decided (None: fixed, or unknown)."""
        if self.gauntlet.test != "sprt":
            return None
        undecided = [b for b in self.gauntlet.baselines if b not in self.stops]
        left = [self.status(b).expected_sets_left for b in undecided]
        if any(x is None for x in left):
            return None
        return max(left, default=0.0)

    def line(self) -> str:
        """For the progress line: the candidate against each baseline.

        Sets won/drawn/lost by the candidate, its mean difference with the
        95% interval, and the LLR with its bounds (and the decision, or when
        one may come), or the interval alone in fixed mode.
        """
        unit = "pts/hand" if self.metric == "points" else "places"
        parts = []
        for baseline in self.gauntlet.baselines:
            xs = self.samples[baseline][self.metric]
            won, drawn, lost = paired_counts(xs)
            f = fixed_summary(xs)
            text = (
                f"{self.gauntlet.candidate} vs {baseline}: {len(xs)} sets W{won} D{drawn} L{lost}"
            )
            if f.mean is not None:
                text += f", {f.mean:+.2f} {unit}"
                if f.ci95:
                    text += f" [{f.ci95[0]:+.2f}, {f.ci95[1]:+.2f}]"
            if self.gauntlet.test == "sprt":
                now = self.stops.get(baseline) or self.status(baseline)
                text += f", {now.line()}"
                if now.decision == "none" and now.expected_sets_left is not None:
                    text += f", ~{math.ceil(now.expected_sets_left)} sets to go"
            parts.append(text)
        return "; ".join(parts)


def _merge(sides: Iterable[_Side]) -> _Side:
    total = _Side()
    for s in sides:
        total.points += s.points
        total.hands += s.hands
        total.placement += s.placement
        total.games += s.games
    return total


def tracker_from_journal(
    entries: Iterable[Mapping[str, Any]], gauntlet: GauntletConfig, per_set: int
) -> GauntletTracker:
    """The tracker after the journal's game entries, in journal order."""
    tracker = GauntletTracker(gauntlet, per_set)
    for entry in entries:
        if entry.get("type") == "game":
            tracker.add(entry)
    return tracker
