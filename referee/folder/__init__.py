"""The tournament folder: its layout, its journal, its state and its key (the one owner).

Every writer and reader of a tournament folder goes through this package:

- :mod:`~referee.folder.layout`: every file and folder name, of a tournament
  folder (:class:`Layout`) and of a match or check-bot folder (:class:`MatchLayout`);
- :mod:`~referee.folder.entries`: the journal's entries, one frozen dataclass
  per kind (:class:`RunEntry`, :class:`BotEntry`, :class:`WarningEntry`,
  :class:`GameEntry`, :class:`EndEntry`, :class:`JournalHeader`), each with
  ``to_json``/``from_json``;
- :mod:`~referee.folder.journal`: the one writer (:class:`Journal`) and the one
  reader (:class:`JournalReader`, :func:`read_lines`), strict or lenient
  through its problem hook (:func:`strict`, :class:`Collect`);
- :mod:`~referee.folder.seal`: the key, and the MACs of lines, logs and the state.

Writing a journal::

    journal = Journal(layout.journal, key, promise_end=True)
    journal.append(RunEntry(run=1, ...))

Reading one, strictly (the first problem raises :class:`JournalError`) or
leniently (every problem collected, the reading goes on)::

    for line in read_lines(layout.journal, key=key):
        line.number, line.entry, line.typed
    problems = Collect()
    lines = list(read_lines(layout.journal, key=key, on_problem=problems))
"""

from referee.folder.entries import (
    ENTRY_TYPES,
    JOURNAL_FORMAT,
    JOURNAL_VERSION,
    BotEntry,
    EndEntry,
    EntryError,
    GameEntry,
    JournalEntry,
    JournalHeader,
    RunEntry,
    WarningEntry,
    entry_problem,
    parse_entry,
)
from referee.folder.errors import JournalError, TournamentError
from referee.folder.journal import (
    Collect,
    Journal,
    JournalLine,
    JournalProblem,
    JournalReader,
    OnProblem,
    ProblemKind,
    read_journal,
    read_lines,
    strict,
)
from referee.folder.layout import (
    GAMES_PER_FOLDER,
    LOG_SUFFIX,
    PLAIN_LOG_SUFFIX,
    Layout,
    MatchLayout,
    log_game_id,
    recorded_file,
)

__all__ = [
    "ENTRY_TYPES",
    "GAMES_PER_FOLDER",
    "JOURNAL_FORMAT",
    "JOURNAL_VERSION",
    "LOG_SUFFIX",
    "PLAIN_LOG_SUFFIX",
    "BotEntry",
    "Collect",
    "EndEntry",
    "EntryError",
    "GameEntry",
    "Journal",
    "JournalEntry",
    "JournalError",
    "JournalHeader",
    "JournalLine",
    "JournalProblem",
    "JournalReader",
    "Layout",
    "MatchLayout",
    "OnProblem",
    "ProblemKind",
    "RunEntry",
    "TournamentError",
    "WarningEntry",
    "entry_problem",
    "log_game_id",
    "parse_entry",
    "read_journal",
    "read_lines",
    "recorded_file",
    "strict",
]
