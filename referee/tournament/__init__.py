"""Tournaments: where games run, the runner, progress, gauntlets.

The output folder (its layout, ``tournament.json``, the sealed journal) is
:mod:`referee.folder`'s, the one owner that every reader and writer goes through.

The schedule (tables, seatings and deal seeds) is :mod:`referee.schedule`'s, a layer
below, so that the audits rebuild it without importing tournaments.

- :mod:`~referee.tournament.executors`: where games run (threads, local
  worker processes; :mod:`~referee.tournament.ray_executor` for a Ray
  cluster), each turning a :class:`~referee.match.runner.GameSpec` into a
  :class:`~referee.match.runner.GameRecord`.
- :mod:`~referee.tournament.runner`: :class:`Tournament`, which builds,
  schedules, hands games to an executor, checks and journals them, resumes.
- :mod:`~referee.tournament.progress`: the live progress line.
- :mod:`~referee.tournament.gauntlet`: a gauntlet's runner, with its tracker
  (:mod:`~referee.tournament.gauntlet_tracker`) and report
  (:mod:`~referee.tournament.gauntlet_report`).
"""

__all__ = ["Progress", "RunResult", "Tournament"]


def __getattr__(name: str) -> object:
    # Imported when first asked for: the runner imports the folder package, the players and
    # the executors, which importing this package for its config or gauntlet modules skips.
    if name in ("RunResult", "Tournament"):
        from referee.tournament import runner

        return getattr(runner, name)
    if name == "Progress":
        from referee.tournament.progress import Progress

        return Progress
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
