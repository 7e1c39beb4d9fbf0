"""Gauntlets: a candidate against its baselines on paired duplicate deals, with a GSPRT.

The schedule (:func:`make_gauntlet_schedule`) seats one *subject* with each
group of ``k - 1`` opponents. A duplicate set (an opponent group and a deal
set: ``table`` and ``deal_set``, one deal seed) is played with the subject
in every seat (the rotations), and every game of it is played once with the
candidate as the subject and once with each baseline: same deal seed, same
seat, same opponents in the same seats. Each game's ``meta`` says so
(``pair``: the games that differ only by the subject; ``role``:
``candidate`` or ``baseline``; ``subject``: the bot), so the statistics are
a pure function of the journal (:class:`GauntletTracker`), rebuilt on resume.

:class:`GauntletTournament` is the tournament runner with that schedule: the
same executors, sealed journal, log checks and resume. After each journaled
game it updates the test; once every baseline's test has decided, it stops
handing out games, lets those in flight finish (they are journaled and
counted in the final figures), and writes ``gauntlet.json`` and
``gauntlet.txt``. docs/sprt.md has the statistics.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import json
import math
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from referee.folder.core import TournamentError, journal_entry, read_journal, write_atomic
from referee.folder.seal import game_seed
from referee.stats.sprt import (
    FixedSummary,
    SequentialTest,
    SprtSettings,
    SprtStatus,
    fixed_summary,
    paired_counts,
)
from referee.tournament.gauntlet_config import GauntletConfig
from referee.tournament.progress import Progress
from referee.tournament.runner import Tournament
from referee.tournament.schedule import Schedule, ScheduledGame, _seatings, derive_seed

__all__ = [
    "GAUNTLET_FORMAT",
    "GAUNTLET_VERSION",
    "GauntletGame",
    "GauntletProgress",
    "GauntletTournament",
    "GauntletTracker",
    "exit_code",
    "folder_report",
    "gauntlet_from_dict",
    "make_gauntlet_schedule",
    "render_report",
]

GAUNTLET_FORMAT = "hearts-referee/gauntlet"
GAUNTLET_VERSION = 1
REPORT_JSON = "gauntlet.json"
REPORT_TXT = "gauntlet.txt"
_SUBJECT = "\0subject"


@dataclasses.dataclass(frozen=True, slots=True)
class GauntletGame(ScheduledGame):
    """A scheduled game of a gauntlet: which pair it belongs to and whose turn it is."""

    #: The games that share the deal seed, the seats and the opponents: ``t1-d2-r3``.
    pair: str
    #: ``candidate`` or ``baseline``.
    role: str
    #: The candidate or the baseline playing this game.
    subject: str

    def meta(self) -> dict[str, Any]:
        meta = ScheduledGame.meta(self)
        meta.update(pair=self.pair, role=self.role, subject=self.subject)
        return meta


def make_gauntlet_schedule(
    gauntlet: GauntletConfig,
    *,
    table_size: int = 4,
    deal_sets: int = 1,
    duplicate: bool = True,
    all_permutations: bool = False,
    seed: int | str = 0,
    key: bytes,
) -> Schedule:
    """The paired schedule of a gauntlet (see the module docs).

    Games come deal set by deal set, then opponent group, seating and
    subject (the candidate first), so duplicate sets complete in order.

    >>> g = GauntletConfig(candidate="new", baselines=("old",), opponents=("a", "b", "c"))
    >>> s = make_gauntlet_schedule(g, deal_sets=2, key=bytes(32))
    >>> len(s), [x.game_id for x in s.games[:3]]
    (16, ['t1-d1-r1-c', 't1-d1-r1-b1', 't1-d1-r2-c'])
    >>> a, b = s.games[:2]
    >>> a.seed == b.seed and [x if x != "new" else "old" for x in a.bots] == list(b.bots)
    True
    """
    k = table_size
    if len(gauntlet.opponents) < k - 1:
        raise ValueError(f"a table of {k} needs {k - 1} opponents")
    groups = list(itertools.combinations(gauntlet.opponents, k - 1))
    bases = []
    for t, group in enumerate(groups, start=1):
        seats = [_SUBJECT, *group]
        random.Random(derive_seed(seed, "seating", t)).shuffle(seats)
        bases.append(tuple(seats))
    seatings = _seatings(k, duplicate, all_permutations)
    letter = "p" if all_permutations else "r"
    subjects = [("candidate", gauntlet.candidate, "c")] + [
        ("baseline", name, f"b{j}") for j, name in enumerate(gauntlet.baselines, start=1)
    ]
    games: list[ScheduledGame] = []
    for d in range(1, deal_sets + 1):
        for t, base in enumerate(bases, start=1):
            deal_seed = game_seed(key, seed, table=t, deal_set=d)
            for r, order in enumerate(seatings, start=1):
                if not duplicate:
                    order = tuple((s + d - 1) % k for s in range(k))
                pair = f"t{t}-d{d}-{letter}{r}"
                for role, name, tag in subjects:
                    games.append(
                        GauntletGame(
                            index=len(games),
                            game_id=f"{pair}-{tag}",
                            table=t,
                            deal_set=d,
                            seating=r,
                            seed=deal_seed,
                            bots=tuple(name if base[i] == _SUBJECT else base[i] for i in order),
                            pair=pair,
                            role=role,
                            subject=name,
                        )
                    )
    tables = tuple((gauntlet.candidate, *group) for group in groups)
    return Schedule(tables=tables, games=tuple(games), sampled=False)


def gauntlet_from_dict(data: Mapping[str, Any]) -> GauntletConfig:
    """The gauntlet of a canonical config (``tournament.json``'s ``config.gauntlet``)."""
    return GauntletConfig(
        candidate=data["candidate"],
        baselines=tuple(data["baselines"]),
        opponents=tuple(data["opponents"]),
        metric=data.get("metric", "points"),
        test=data.get("test", "sprt"),
        sprt=SprtSettings.from_dict(data.get("sprt", {})),
    )


def schedule_from_config(config: Mapping[str, Any], *, seed: int | str, key: bytes) -> Schedule:
    """A gauntlet's schedule from its canonical config (for ``referee verify``)."""
    settings = config["schedule"]
    return make_gauntlet_schedule(
        gauntlet_from_dict(config["gauntlet"]),
        table_size=config["rules"]["num_players"],
        deal_sets=settings["deal_sets"],
        duplicate=settings["duplicate"],
        all_permutations=settings["all_permutations"],
        seed=seed,
        key=key,
    )


# The statistics, from journal entries -----------------------------------------------------


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


def games_per_set(schedule: Schedule) -> int:
    """Games of one subject in one duplicate set."""
    first = schedule.games[0]
    return sum(
        1
        for g in schedule.games
        if g.set_key == first.set_key and isinstance(g, GauntletGame) and g.role == "candidate"
    )


def tracker_from_journal(
    entries: Iterable[Mapping[str, Any]], gauntlet: GauntletConfig, per_set: int
) -> GauntletTracker:
    """The tracker after the journal's game entries, in journal order."""
    tracker = GauntletTracker(gauntlet, per_set)
    for entry in entries:
        if entry.get("type") == "game":
            tracker.add(entry)
    return tracker


# The report ----------------------------------------------------------------------------------


def _verdict(summary: FixedSummary) -> str:
    """Fixed-length mode: H1 if the 95% interval is above 0, H0 if below, else none."""
    if summary.ci95 is None:
        return "none"
    if summary.ci95[0] > 0:
        return "H1"
    if summary.ci95[1] < 0:
        return "H0"
    return "none"


def exit_code(decisions: Sequence[str]) -> int:
    """0 if every baseline's test accepted H1, 1 if any accepted H0, else 2."""
    if decisions and all(d == "H1" for d in decisions):
        return 0
    if any(d == "H0" for d in decisions):
        return 1
    return 2


def make_report(
    tracker: GauntletTracker,
    *,
    name: str,
    games_played: int,
    games_scheduled: int,
    sets_scheduled: int,
) -> dict[str, Any]:
    """The gauntlet's result as the versioned JSON contract (docs/sprt.md)."""
    g = tracker.gauntlet
    rows = []
    for baseline in g.baselines:
        samples = tracker.samples[baseline]
        final = {m: fixed_summary(samples[m]) for m in ("points", "placement")}
        row: dict[str, Any] = {"baseline": baseline, "sets": len(samples[g.metric])}
        won, drawn, lost = paired_counts(samples[g.metric])
        row["paired_sets"] = {"won": won, "drawn": drawn, "lost": lost}
        if g.test == "sprt":
            stop = tracker.stops.get(baseline)
            row["decision"] = stop.decision if stop else "none"
            row["stop"] = stop.to_dict() if stop else None
            row["final_llr"] = tracker.status(baseline).to_dict()
        else:
            row["decision"] = _verdict(final[g.metric])
        row["points_per_hand"] = final["points"].to_dict()
        row["placement"] = final["placement"].to_dict()
        rows.append(row)
    decisions = [r["decision"] for r in rows]
    code = exit_code(decisions)
    return {
        "format": GAUNTLET_FORMAT,
        "version": GAUNTLET_VERSION,
        "name": name,
        "candidate": g.candidate,
        "baselines": list(g.baselines),
        "opponents": list(g.opponents),
        "metric": g.metric,
        "test": g.test,
        "sprt": g.sprt.to_dict() if g.test == "sprt" else None,
        "games_played": games_played,
        "games_scheduled": games_scheduled,
        "sets_scheduled": sets_scheduled,
        "results": rows,
        "faults": {name: dict(kinds) for name, kinds in tracker.faults.items()},
        "decision": {0: "H1", 1: "H0"}.get(code, "none"),
        "exit_code": code,
    }


def _llr(value: float) -> str:
    return f"{value:.3f}" if abs(value) < 1e4 else f"{value:.3g}"


def _bounds(status: Mapping[str, Any]) -> str:
    """``bounds (-2.901, 2.874)``, with Wald's when the overshoot correction moved them."""
    text = f"bounds ({status['lower']:.3f}, {status['upper']:.3f})"
    wald = status.get("wald")
    if wald and (wald[0], wald[1]) != (status["lower"], status["upper"]):
        text += f"; Wald's ({wald[0]:.3f}, {wald[1]:.3f}) moved in by the overshoot correction"
    return text


def _sprt_lines(r: Mapping[str, Any], sets_scheduled: int) -> list[str]:
    """What a fishtest user looks for: the decision, the LLR against its bounds, what is left."""
    stop, final = r["stop"], r["final_llr"]
    if stop:
        crossed = ">=" if stop["decision"] == "H1" else "<="
        bound = stop["upper"] if stop["decision"] == "H1" else stop["lower"]
        return [
            f"  {stop['decision']} accepted after {stop['sets']} sets: "
            f"LLR {_llr(stop['llr'])} {crossed} {bound:.3f} ({_bounds(stop)})"
        ]
    lines = [
        f"  no decision after {final['sets']} sets: LLR {_llr(final['llr'])} ({_bounds(final)})"
    ]
    if final["sets"] < final.get("min_sets", 0):
        lines.append(f"  no decision before {final['min_sets']} sets (min_sets)")
    left = final.get("expected_sets_left")
    if left is not None:
        room = max(0, sets_scheduled - final["sets"])
        capped = "" if left <= room else f", more than the {room} left before deal_sets"
        lines.append(
            f"  expected sets to a decision: about {math.ceil(left)} more (the test's average "
            f"sample number at the estimate so far{capped})"
        )
    return lines


def _fmt_summary(s: Mapping[str, Any], unit: str) -> str:
    if s["mean"] is None:
        return "no sets"
    text = f"{s['mean']:+.3f} {unit}"
    if s["ci95"] is not None:
        text += f" [{s['ci95'][0]:+.3f}, {s['ci95'][1]:+.3f}]"
    if s["los"] is not None:
        text += f", LOS {100 * s['los']:.1f}%"
    return text


def render_report(report: Mapping[str, Any], fmt: str = "text") -> str:
    """The report as text (for people) or JSON (the contract)."""
    if fmt == "json":
        return json.dumps(report, indent=2)
    unit = "points per hand" if report["metric"] == "points" else "places"
    lines = [
        f"gauntlet {report['name']}: candidate {report['candidate']}, "
        f"{report['games_played']} of at most {report['games_scheduled']} games",
        f"paired difference per duplicate set = baseline - candidate in {unit} "
        "(positive: the candidate is better)",
    ]
    sprt = report.get("sprt")
    if sprt:
        model = sprt.get("model", "normal")
        lines.append(
            f"SPRT ({model} model): H0 delta0={sprt['delta0']:g}, H1 delta1={sprt['delta1']:g}, "
            f"alpha={sprt['alpha']:g}, beta={sprt['beta']:g}, min_sets {sprt['min_sets']}"
        )
    else:
        lines.append("fixed length: 95% intervals (Student's t over the sets), LOS")
    for r in report["results"]:
        lines.append(f"{report['candidate']} vs {r['baseline']}:")
        if sprt:
            lines += _sprt_lines(r, report["sets_scheduled"])
        counts = r.get("paired_sets")
        if counts:
            lines.append(
                f"  paired sets: the candidate won {counts['won']}, drew {counts['drawn']}, "
                f"lost {counts['lost']}"
            )
        lines.append(f"  final, {r['sets']} sets:")
        if sprt:
            lines.append(f"    LLR {_llr(r['final_llr']['llr'])}")
        lines.append(f"    points per hand: {_fmt_summary(r['points_per_hand'], 'pts/hand')}")
        lines.append(f"    placement:       {_fmt_summary(r['placement'], 'places')}")
        if sprt and r["stop"]:
            lines.append(
                "    (95% t intervals over the sets; after an early stop the estimate leans "
                "towards the decision)"
            )
    faulty = {name: kinds for name, kinds in report.get("faults", {}).items() if kinds}
    for name, kinds in faulty.items():
        shown = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
        lines.append(
            f"warning: {name} was charged faults ({shown}): its faulted decisions were "
            "fallback moves, not its own"
        )
    code = report["exit_code"]
    meaning = {0: "H1 accepted", 1: "H0 accepted", 2: "no decision"}[code]
    lines.append(f"result: {meaning} (exit code {code})")
    return "\n".join(lines) + "\n"


# The runner ----------------------------------------------------------------------------------


class GauntletProgress(Progress):
    """The tournament's progress line, with the candidate against each baseline.

    Not the bots' points per hand: the test's line (:meth:`GauntletTracker.line`),
    and an ETA for the games the tests are still expected to need.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sprt = ""
        self.show_leaders = False

    def line(self) -> str:
        text = super().line()
        return f"{text} | {self.sprt}" if self.sprt else text


def _until(games: Iterable[ScheduledGame], tracker: GauntletTracker) -> Iterator[ScheduledGame]:
    """The games, until the tracker's tests have all decided."""
    for game in games:
        if tracker.decided:
            return
        yield game


class GauntletTournament(Tournament):
    """A tournament runner for a ``format: gauntlet`` config: paired games, a GSPRT."""

    def __init__(self, config: Any, **kwargs: Any) -> None:
        if config.gauntlet is None:
            raise TournamentError(f"{config.path}: not a gauntlet (format: gauntlet)")
        super().__init__(config, **kwargs)
        self.gauntlet: GauntletConfig = config.gauntlet
        self.tracker = GauntletTracker(self.gauntlet, 1)
        self.report: dict[str, Any] | None = None
        self._sets = 0
        self._announced = False

    def _participants(self, state: Any) -> tuple[list[str], dict[str, str]]:
        participants, broken = super()._participants(state)
        if state.excluded:
            raise TournamentError(
                "a gauntlet needs every one of its bots, and these failed to build: "
                + "; ".join(f"{name}: {why}" for name, why in state.excluded.items())
            )
        return participants, broken

    def _schedule(self, participants: Sequence[str], seed: int) -> Schedule:
        s = self.config.schedule
        schedule = make_gauntlet_schedule(
            self.gauntlet,
            table_size=self.config.table_size,
            deal_sets=s.deal_sets,
            duplicate=s.duplicate,
            all_permutations=s.all_permutations,
            seed=seed,
            key=self._key,
        )
        self.tracker = GauntletTracker(self.gauntlet, games_per_set(schedule))
        self._sets = len(schedule.tables) * s.deal_sets
        return schedule

    def _journaled(self, schedule: Schedule) -> set[str]:
        done = super()._journaled(schedule)
        ids = schedule.by_id()
        for entry in read_journal(self.layout.journal, key=self._key):
            if entry["type"] == "game" and entry.get("game_id") in ids:
                self.tracker.add(entry)
        self._show()
        if self.tracker.decided:
            self._announced = True
            self.echo(f"the journal's tests have decided: {self.tracker.line()}; nothing to play")
        return done

    def _show(self) -> None:
        if isinstance(self.progress, GauntletProgress):
            self.progress.sprt = self.tracker.line()
            sets = self.tracker.expected_sets_left()
            per_set = self.tracker.games_per_set * (1 + len(self.gauntlet.baselines))
            self.progress.expected_left = None if sets is None else math.ceil(sets) * per_set

    def _finish(self, game: ScheduledGame, future: Any) -> bool:
        ok = super()._finish(game, future)
        if ok:
            entry = journal_entry(
                future.result(), game, run=self.run_number, layout=self.layout, log_mac=""
            )
            self.tracker.add(entry)
            self._show()
            if self.tracker.decided and not self._announced:
                self._announced = True
                self.progress.refresh(force=True)
                self.echo(f"\nSPRT decided ({self.tracker.line()}); finishing the games in flight")
        return ok

    def _complete(self) -> bool:
        """Finished once every test has decided (the journal is closed then), or all is played."""
        return self.tracker.decided or super()._complete()

    def _start_bots(self, todo: Sequence[ScheduledGame], broken: Mapping[str, str]) -> None:
        if not self.tracker.decided:
            super()._start_bots(todo, broken)

    def _play_all(self, todo: Sequence[ScheduledGame], state: Any) -> bool:
        if self.tracker.decided:
            return True
        return super()._play_all(_until(todo, self.tracker), state)  # type: ignore[arg-type]

    def _describe(self, schedule: Schedule, left: int, seed: int) -> None:
        g, s = self.gauntlet, self.config.schedule
        test = (
            f"SPRT ({g.sprt.model}) delta0={g.sprt.delta0:g} delta1={g.sprt.delta1:g} "
            f"alpha={g.sprt.alpha:g} beta={g.sprt.beta:g} min_sets={g.sprt.min_sets}"
            if g.test == "sprt"
            else "fixed length"
        )
        self.echo(
            f"{self.config.name}: gauntlet of {g.candidate} vs {', '.join(g.baselines)}; "
            f"{len(schedule.tables)} opponent group(s) x up to {s.deal_sets} deal set(s) "
            f"x {self.tracker.games_per_set} seating(s) x {1 + len(g.baselines)} subjects = "
            f"at most {len(schedule)} games; {test} on {g.metric}; seed {seed}; "
            f"{left} left, {self.concurrency} at a time; output {self.layout.root}"
        )

    def _write_standings(self, state: Any) -> Any:
        standings = super()._write_standings(state)
        self.report = make_report(
            self.tracker,
            name=state.name,
            games_played=self.progress.done,
            games_scheduled=self._scheduled,
            sets_scheduled=self._sets,
        )
        write_atomic(self.layout.root / REPORT_JSON, render_report(self.report, "json") + "\n")
        write_atomic(self.layout.root / REPORT_TXT, render_report(self.report, "text"))
        return standings


def folder_report(
    root: Any, *, key: bytes | None = None, authenticate: bool = True
) -> dict[str, Any]:
    """A gauntlet folder's report, recomputed from its journal (authenticated with the key)."""
    import pathlib

    from referee.folder.core import Layout, TournamentState, open_journal

    state_path = Layout(pathlib.Path(root)).state
    if state_path.exists() and not TournamentState.load(state_path).config.get("gauntlet"):
        raise TournamentError(f"{state_path}: not a gauntlet (its config has no gauntlet)")
    layout, state, entries = open_journal(root, key=key, authenticate=authenticate)
    config = state.config
    try:
        gauntlet = gauntlet_from_dict(config["gauntlet"])
        k = config["rules"]["num_players"]
        settings = config["schedule"]
        per_set = len(_seatings(k, settings["duplicate"], settings["all_permutations"]))
    except (KeyError, TypeError, ValueError) as error:
        raise TournamentError(
            f"{layout.state}: its gauntlet config cannot be read: {error!r}"
        ) from None
    games = [e for e in entries if e.get("type") == "game"]
    tracker = tracker_from_journal(games, gauntlet, per_set)
    groups = len(list(itertools.combinations(gauntlet.opponents, k - 1)))
    sets = groups * settings["deal_sets"]
    return make_report(
        tracker,
        name=state.name,
        games_played=len(games),
        games_scheduled=state.games_scheduled or sets * per_set * (1 + len(gauntlet.baselines)),
        sets_scheduled=sets,
    )
