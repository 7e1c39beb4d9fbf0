"""Gauntlets: a candidate against its baselines on paired duplicate deals, with a GSPRT.

:class:`GauntletTournament` is the tournament runner for a ``format: gauntlet``
config: the paired schedule (:mod:`referee.schedule.gauntlet`),
the same executors, sealed journal, log checks and resume as every
tournament. After each journaled game it updates the test
(:mod:`referee.tournament.gauntlet_tracker`); once every baseline's test has
decided, it stops handing out games, lets those in flight finish (they are
journaled and counted in the final figures), and writes ``gauntlet.json`` and
``gauntlet.txt`` (:mod:`referee.tournament.gauntlet_report`). docs/sprt.md
has the statistics.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from referee.folder import TournamentError, journal_entry, read_journal, write_atomic
from referee.schedule import GauntletScheduler, Schedule, ScheduledGame, scheduler_of
from referee.tournament.gauntlet_config import GauntletConfig
from referee.tournament.gauntlet_report import make_report, render_report
from referee.tournament.gauntlet_tracker import GauntletTracker
from referee.tournament.progress import Progress
from referee.tournament.runner import Tournament

__all__ = ["GauntletProgress", "GauntletTournament"]


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

    def _schedule(self, state: Any) -> Schedule:
        schedule = super()._schedule(state)
        scheduler = scheduler_of(state.to_dict())  # the paired one: the config is a gauntlet's
        assert isinstance(scheduler, GauntletScheduler)
        self.tracker = GauntletTracker.of(self.gauntlet, scheduler)
        self._sets = scheduler.sets
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
        write_atomic(self.layout.gauntlet_json, render_report(self.report, "json") + "\n")
        write_atomic(self.layout.gauntlet_txt, render_report(self.report, "text"))
        return standings
