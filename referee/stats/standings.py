"""Standings: ranked figures per bot and head-to-head, computed from journal entries.

Everything here is a pure function of the journal's ``game`` entries (see
docs/config.md for the journal format), so standings can be recomputed at any
time (``referee standings``) and tested from a hand-made journal. The
renderings (table, markdown, CSV, JSON) are :mod:`referee.stats.render`.

Per bot:

- ``games``; ``wins``, ties shared (a win shared by k seats counts 1/k);
  ``avg_placement`` (1 = first; tied seats share the better placement);
- ``points_per_hand``: the mean over the bot's duplicate sets of its mean
  points per hand in that set, with a 95% confidence interval from Student's
  t over those per-set means (a duplicate set is the unit of statistics: its
  games share the deals, so they are not independent);
- ``moons`` shot, ``faults`` by kind, ``forfeits``;
- an OpenSkill Plackett-Luce rating (``mu``, ``sigma`` and the conservative
  ``ordinal`` = mu - 3 sigma), rating each game by its placements, games taken
  in schedule order so that the rating does not depend on which game finished
  first;
- ``rank_ci95``: a 95% interval of the bot's rank, bootstrapped over the
  duplicate sets (:mod:`referee.stats.ranks`) on the ranking's own measure, and
  ``rank_tied_with``: the bots whose rank intervals overlap its own (their
  ranks cannot be told apart). Not computed for the ``ordinal`` ranking (a
  rating of the games in order, not a mean over sets).

The ranking key (``ranking``) is one of :data:`RANKING_KEYS`; the default,
``points``, ranks by average points per hand (lower is better; ties broken by
ordinal). Bots that never started or whose build failed are ranked last,
with the reason.

>>> entry = {"type": "game", "game_id": "g1", "index": 0, "table": 1, "deal_set": 1,
...          "bots": ["a", "b", "c"], "scores": [10, 30, 86], "placements": [1, 2, 3],
...          "winners": [0], "hand_scores": [[10, 30, 86]], "moons": [0, 0, 0],
...          "faults": [{}, {}, {}], "forfeited": [False, False, False]}
>>> table = compute_standings([entry], bots=["a", "b", "c"])
>>> [(b.rank, b.bot, b.wins, b.points_per_hand) for b in table.bots]
[(1, 'a', 1.0, 10.0), (2, 'b', 0.0, 30.0), (3, 'c', 0.0, 86.0)]
"""

from __future__ import annotations

import collections
import dataclasses
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from referee.stats.distributions import t_quantile_975
from referee.stats.ranks import overlapping, rank_intervals
from referee.stats.ratings import Rating, Ratings

__all__ = [
    "CHANGED_SINCE",
    "RANKING_KEYS",
    "STANDINGS_FORMAT",
    "STANDINGS_VERSION",
    "BotStanding",
    "HeadToHead",
    "PointsPerHand",
    "Standings",
    "compute_standings",
    "duplicate_set",
]

#: ``format`` and ``version`` of the JSON standings (a versioned contract).
STANDINGS_FORMAT = "hearts-referee/standings"
#: 2: rank intervals are widened to every bot a paired t test does not separate
#: (:mod:`referee.stats.ranks`); version 1's came from the bootstrap alone.
STANDINGS_VERSION = 2
#: The fields whose method changed from one version to the next: what an older file's
#: recheck leaves out (its other figures are computed as they were).
CHANGED_SINCE: dict[int, tuple[str, ...]] = {1: ("rank_ci95", "rank_tied_with")}
RANKING_KEYS = ("points", "ordinal", "wins", "placement")
#: Bot statuses: played normally, never started (stood in), or left out after a failed build.
OK, DID_NOT_START, BUILD_FAILED = "ok", "did_not_start", "build_failed"


@dataclasses.dataclass(frozen=True, slots=True)
class HeadToHead:
    """How one bot fared against another at the tables they shared."""

    ahead: int = 0
    tied: int = 0
    behind: int = 0

    @property
    def games(self) -> int:
        return self.ahead + self.tied + self.behind

    @property
    def score(self) -> float | None:
        """Share of the games finished ahead, ties counting half."""
        return (self.ahead + self.tied / 2) / self.games if self.games else None


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class BotStanding:
    """One row of the standings."""

    rank: int
    bot: str
    status: str = OK
    #: Why the bot was ranked last (status not ok).
    reason: str = ""
    #: Things worth knowing that did not rank it last (a failed start in one run).
    notes: tuple[str, ...] = ()
    games: int = 0
    wins: float = 0.0
    avg_placement: float | None = None
    points_per_hand: float | None = None
    #: 95% confidence interval of points_per_hand (None with fewer than 2 sets).
    points_ci95: tuple[float, float] | None = None
    duplicate_sets: int = 0
    hands: int = 0
    moons: int = 0
    faults: Mapping[str, int] = dataclasses.field(default_factory=dict)
    forfeits: int = 0
    mu: float = 0.0
    sigma: float = 0.0
    ordinal: float = 0.0
    ms_per_decision: float | None = None
    #: 95% interval of the rank, bootstrapped over the duplicate sets (None: not ranked
    #: on a measure of its sets: no games, a status other than ok, or the ordinal ranking).
    rank_ci95: tuple[int, int] | None = None
    #: The bots whose rank interval overlaps this one's: ranks that cannot be told apart.
    rank_tied_with: tuple[str, ...] = ()

    @property
    def fault_count(self) -> int:
        return sum(self.faults.values())

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["notes"] = list(self.notes)
        data["faults"] = dict(sorted(self.faults.items()))
        data["points_ci95"] = list(self.points_ci95) if self.points_ci95 else None
        data["rank_ci95"] = list(self.rank_ci95) if self.rank_ci95 else None
        data["rank_tied_with"] = list(self.rank_tied_with)
        return data


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Standings:
    """Ranked standings and the head-to-head table."""

    name: str
    ranking: str
    games_played: int
    #: Games in the schedule (None when unknown).
    games_scheduled: int | None
    bots: tuple[BotStanding, ...]
    #: head_to_head[a][b]: how a fared against b.
    head_to_head: Mapping[str, Mapping[str, HeadToHead]]
    #: Launched bots that ran without a sandbox (``sandbox: none``): trusted, not isolated.
    unsandboxed: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return self.games_scheduled is not None and self.games_played >= self.games_scheduled

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract (``format`` / ``version``; documented in docs/config.md)."""
        return {
            "format": STANDINGS_FORMAT,
            "version": STANDINGS_VERSION,
            "tournament": self.name,
            "ranking": self.ranking,
            "games_played": self.games_played,
            "games_scheduled": self.games_scheduled,
            "complete": self.complete,
            "bots": [b.to_dict() for b in self.bots],
            "unsandboxed": list(self.unsandboxed),
            "head_to_head": {
                a: {b: dataclasses.asdict(h) for b, h in row.items()}
                for a, row in self.head_to_head.items()
            },
        }


# Computing -------------------------------------------------------------------------------


class PointsPerHand:
    """A bot's points per hand as the standings rank it: the mean of its per-set means.

    Each duplicate set (a table's deal set: its games share the deals) counts
    once, whatever its number of hands, so a set of long games weighs no more
    than a set of short ones; this is ``points_per_hand`` in the standings and
    ``pts/hand`` in the tournament's progress line (docs/config.md). Total
    points over total hands would differ when the sets' lengths differ.

    >>> p = PointsPerHand()
    >>> p.add({"game_id": "g1", "table": 1, "deal_set": 1, "hand_scores": [[0, 26]] * 3}, 1)
    >>> p.add({"game_id": "g2", "table": 1, "deal_set": 2, "hand_scores": [[26, 0]]}, 1)
    >>> p.mean()
    13.0
    """

    def __init__(self) -> None:
        #: (table, deal set) -> [points, hands]
        self.sets: dict[tuple[Any, Any], list[int]] = {}

    def add(self, entry: Mapping[str, Any], seat: int) -> None:
        """Count the hands of ``seat`` in the journal's game ``entry``."""
        hand_points = [hand[seat] for hand in entry["hand_scores"]]
        sums = self.sets.setdefault(duplicate_set(entry), [0, 0])
        sums[0] += sum(hand_points)
        sums[1] += len(hand_points)

    def set_means(self) -> list[float]:
        """Mean points per hand in each duplicate set with hands."""
        return [points / hands for points, hands in self.sets.values() if hands]

    def mean(self) -> float | None:
        """The mean of the per-set means (None before any hand)."""
        means = self.set_means()
        return statistics.fmean(means) if means else None

    def interval(self) -> tuple[float | None, tuple[float, float] | None]:
        """The mean of the per-set means, and its 95% t interval (None below two sets)."""
        means = self.set_means()
        if not means:
            return None, None
        mean = statistics.fmean(means)
        if len(means) < 2:
            return mean, None
        half = t_quantile_975(len(means) - 1) * statistics.stdev(means) / math.sqrt(len(means))
        return mean, (mean - half, mean + half)


def duplicate_set(entry: Mapping[str, Any]) -> tuple[Any, Any]:
    """The duplicate set of a journal game entry: ``(table, deal_set)``.

    A game outside a schedule (no ``table``) is a set of its own.
    """
    return (entry.get("table", entry.get("game_id")), entry.get("deal_set", 1))


class _Tally:
    """Running sums for one bot."""

    def __init__(self) -> None:
        self.games = 0
        self.wins = 0.0
        self.placements = 0
        self.hands = 0
        self.points = 0
        self.moons = 0
        self.faults: collections.Counter[str] = collections.Counter()
        self.forfeits = 0
        self.decisions = 0
        self.think_ms = 0.0
        self.per_set = PointsPerHand()
        #: duplicate set -> [placements, games, wins]: the other rankings' per-set measures.
        self.set_results: dict[tuple[Any, Any], list[float]] = {}

    def add(self, entry: Mapping[str, Any], seat: int) -> None:
        hand_points = [hand[seat] for hand in entry["hand_scores"]]
        self.games += 1
        winners = entry["winners"]
        if seat in winners:
            self.wins += 1 / len(winners)
        self.placements += entry["placements"][seat]
        self.hands += len(hand_points)
        self.points += sum(hand_points)
        self.moons += entry["moons"][seat]
        self.faults.update(entry["faults"][seat])
        self.forfeits += bool(entry["forfeited"][seat])
        if "decisions" in entry:
            self.decisions += entry["decisions"][seat]
            self.think_ms += entry["think_ms"][seat]
        self.per_set.add(entry, seat)
        results = self.set_results.setdefault(duplicate_set(entry), [0, 0, 0.0])
        results[0] += entry["placements"][seat]
        results[1] += 1
        if seat in winners:
            results[2] += 1 / len(winners)

    def set_measures(self, ranking: str) -> dict[tuple[Any, Any], float]:
        """The bot's measure in each of its duplicate sets, for a ranking other than ordinal."""
        if ranking == "points":
            return {k: points / hands for k, (points, hands) in self.per_set.sets.items() if hands}
        column = 0 if ranking == "placement" else 2
        return {k: r[column] / r[1] for k, r in self.set_results.items() if r[1]}


class _Accumulator:
    """One pass over the journal: order-free sums, plus what the ratings need, in order."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.tallies = {b: _Tally() for b in self.names}
        self.h2h: dict[str, dict[str, list[int]]] = {b: {} for b in self.names}
        self.seen: set[str] = set()
        #: (schedule index, journal position, bots, placements): small, for the ratings.
        self.order: list[tuple[int, int, tuple[str, ...], tuple[int, ...]]] = []
        self.started: set[str] = set()
        self.failures: dict[str, list[str]] = collections.defaultdict(list)

    def _bot(self, name: str) -> None:
        if name not in self.tallies:
            self.names.append(name)
            self.tallies[name] = _Tally()
            self.h2h[name] = {}

    def add(self, position: int, entry: Mapping[str, Any]) -> None:
        kind = entry.get("type", "game")
        if kind == "bot":
            self._bot_entry(entry)
        if kind != "game" or entry["game_id"] in self.seen:
            return
        self.seen.add(entry["game_id"])
        seats = tuple(entry["bots"])
        for seat, bot in enumerate(seats):
            self._bot(bot)
            self.tallies[bot].add(entry, seat)
        _head_to_head(self.h2h, seats, entry["placements"])
        self.order.append(
            (entry.get("index", position), position, seats, tuple(entry["placements"]))
        )

    def _bot_entry(self, entry: Mapping[str, Any]) -> None:
        if entry.get("status") == "started":
            self.started.add(entry["bot"])
        elif entry.get("reason"):
            run = f"run {entry['run']}: " if "run" in entry else ""
            self.failures[entry["bot"]].append(f"{run}{entry['reason']}")

    def ratings(self) -> Ratings:
        """OpenSkill ratings (:mod:`referee.stats.ratings`), the games taken in schedule order."""
        ratings = Ratings(self.names)
        for _, _, seats, placements in sorted(self.order, key=lambda g: g[:2]):
            ratings.rate(seats, placements)
        return ratings

    def statuses(self, excluded: Mapping[str, str]) -> dict[str, tuple[str, str, list[str]]]:
        """Status, reason and notes per bot."""
        result: dict[str, tuple[str, str, list[str]]] = {
            bot: (BUILD_FAILED, reason, []) for bot, reason in excluded.items()
        }
        for bot, reasons in self.failures.items():
            if bot in result:
                continue
            if bot in self.started:
                result[bot] = (OK, "", sorted(set(reasons)))
            else:
                result[bot] = (DID_NOT_START, reasons[-1], [])
        return result


def compute_standings(
    entries: Iterable[Mapping[str, Any]],
    *,
    bots: Sequence[str],
    excluded: Mapping[str, str] | None = None,
    ranking: str = "points",
    name: str = "",
    games_scheduled: int | None = None,
    unsandboxed: Sequence[str] = (),
) -> Standings:
    """Standings from journal ``entries`` (game and bot entries; others are ignored).

    ``bots`` are the bots of the tournament in config order (a bot that
    played no game still gets a row); ``excluded`` maps the bots left out
    (a failed build) to the reason. ``entries`` is read once, in any order
    (a game given twice counts once), and need not fit in memory.
    """
    if ranking not in RANKING_KEYS:
        raise ValueError(f"ranking must be one of {', '.join(RANKING_KEYS)}, not {ranking!r}")
    excluded = dict(excluded or {})
    acc = _Accumulator(list(dict.fromkeys([*bots, *excluded])))
    for position, entry in enumerate(entries):
        acc.add(position, entry)
    ratings = acc.ratings()
    statuses = acc.statuses(excluded)
    rows = [_row(b, acc.tallies[b], ratings[b], statuses.get(b, (OK, "", []))) for b in acc.names]
    rows.sort(key=_sort_key(ranking))
    ranked = _with_rank_intervals(
        [dataclasses.replace(row, rank=i) for i, row in enumerate(rows, start=1)],
        acc.tallies,
        ranking,
    )
    table = {
        a: {b: HeadToHead(*counts) for b, counts in sorted(row.items())}
        for a, row in acc.h2h.items()
    }
    return Standings(
        name=name,
        ranking=ranking,
        games_played=len(acc.seen),
        games_scheduled=games_scheduled,
        bots=ranked,
        head_to_head=table,
        unsandboxed=tuple(unsandboxed),
    )


def _with_rank_intervals(
    rows: list[BotStanding], tallies: Mapping[str, _Tally], ranking: str
) -> tuple[BotStanding, ...]:
    """The rows with their rank intervals: the bots ranked by the measure of their sets."""
    if ranking == "ordinal":
        return tuple(rows)
    ranked = {row.bot: row.rank for row in rows if row.status == OK and row.games}
    sets: dict[Any, dict[str, float]] = collections.defaultdict(dict)
    for bot in ranked:
        for key, value in tallies[bot].set_measures(ranking).items():
            sets[key][bot] = value
    intervals = rank_intervals(sets, ranked, lower_is_better=ranking != "wins")
    tied = overlapping(intervals)
    return tuple(
        dataclasses.replace(row, rank_ci95=intervals[row.bot], rank_tied_with=tuple(tied[row.bot]))
        if row.bot in intervals
        else row
        for row in rows
    )


def _head_to_head(
    h2h: dict[str, dict[str, list[int]]], seats: Sequence[str], placements: Sequence[int]
) -> None:
    for i, a in enumerate(seats):
        for j, b in enumerate(seats):
            if i == j:
                continue
            counts = h2h[a].setdefault(b, [0, 0, 0])
            if placements[i] < placements[j]:
                counts[0] += 1
            elif placements[i] == placements[j]:
                counts[1] += 1
            else:
                counts[2] += 1


def _row(
    bot: str, tally: _Tally, rating: Rating, status: tuple[str, str, list[str]]
) -> BotStanding:
    mean, ci = tally.per_set.interval()
    return BotStanding(
        rank=0,
        bot=bot,
        status=status[0],
        reason=status[1],
        notes=tuple(status[2]),
        games=tally.games,
        wins=round(tally.wins, 6),
        avg_placement=tally.placements / tally.games if tally.games else None,
        points_per_hand=mean,
        points_ci95=ci,
        duplicate_sets=len(tally.per_set.sets),
        hands=tally.hands,
        moons=tally.moons,
        faults=dict(tally.faults),
        forfeits=tally.forfeits,
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        ms_per_decision=tally.think_ms / tally.decisions if tally.decisions else None,
    )


def _sort_key(ranking: str) -> Any:
    """Sort key for a ranking: playing bots by the key, then the rest by name."""

    def key(row: BotStanding) -> tuple[Any, ...]:
        if row.status != OK:
            return (2, 0.0, 0.0, row.bot)
        if not row.games:
            return (1, 0.0, 0.0, row.bot)
        assert row.points_per_hand is not None and row.avg_placement is not None
        by = {
            "points": (row.points_per_hand, -row.ordinal),
            "ordinal": (-row.ordinal, row.points_per_hand),
            "wins": (-row.wins / row.games, row.points_per_hand),
            "placement": (row.avg_placement, row.points_per_hand),
        }[ranking]
        return (0, *by, row.bot)

    return key
