"""Tournaments: the output folder, the schedule, where games run, the runner, progress.

- :mod:`~referee.folder.core`: the one owner of the output folder's
  layout, ``tournament.json`` and the sealed journal; every reader goes
  through it.
- :mod:`~referee.tournament.schedule`: tables, seatings and deal seeds.
- :mod:`~referee.tournament.executors`: where games run (threads, local
  worker processes; :mod:`~referee.tournament.ray_executor` for a Ray
  cluster), each turning a :class:`~referee.match.runner.GameSpec` into a
  :class:`~referee.match.runner.GameRecord`.
- :mod:`~referee.tournament.runner`: :class:`Tournament`, which builds,
  schedules, hands games to an executor, checks and journals them, resumes.
- :mod:`~referee.tournament.progress`: the live progress line.
"""

__all__ = [
    "JOURNAL_FORMAT",
    "JOURNAL_VERSION",
    "STATE_FORMAT",
    "STATE_VERSION",
    "Journal",
    "JournalError",
    "Layout",
    "Progress",
    "RunResult",
    "Tournament",
    "TournamentError",
    "TournamentState",
    "authenticated_journal",
    "journal_entry",
    "load_standings",
    "read_journal",
]


_FROM_FOLDER = frozenset(
    (
        "JOURNAL_FORMAT",
        "JOURNAL_VERSION",
        "STATE_FORMAT",
        "STATE_VERSION",
        "Journal",
        "JournalError",
        "Layout",
        "TournamentError",
        "TournamentState",
        "authenticated_journal",
        "journal_entry",
        "load_standings",
        "read_journal",
    )
)


def __getattr__(name: str) -> object:
    # Imported when first asked for: the folder package imports the schedule, which sits in
    # this package, so this package must be importable before the folder is.
    if name in ("RunResult", "Tournament"):
        from referee.tournament import runner

        return getattr(runner, name)
    if name in _FROM_FOLDER:
        from referee.folder import core

        return getattr(core, name)
    if name == "Progress":
        from referee.tournament.progress import Progress

        return Progress
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
