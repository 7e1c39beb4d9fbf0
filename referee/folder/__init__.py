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
- :mod:`~referee.folder.state`: ``tournament.json`` (:class:`TournamentState`)
  and the key's lifecycle (:func:`new_folder_key`, :func:`resumed_folder_key`);
- :mod:`~referee.folder.authenticate`: the journal authenticated with the key
  to its end (:func:`authenticated_journal`, :class:`JournalEnd`);
- :mod:`~referee.folder.reading`: a folder read back (:func:`open_journal`,
  :func:`load_standings`, :func:`game_entries`, :func:`game_log_path`);
- :mod:`~referee.folder.seal`: the key, and the MACs of lines, logs and the state.

Writing a journal::

    journal = Journal(layout.journal, key, promise_end=True)
    journal.append(RunEntry(run=1, ...))
    entry = GameEntry.of(record, place=game.meta(), log_path=..., log_mac=mac, run=1)
    journal.append(entry)  # journal_entry(...) is the same entry as a JSON object

Reading one, strictly (the first problem raises :class:`JournalError`) or
leniently (every problem collected, the reading goes on)::

    for line in read_lines(layout.journal, key=key):
        line.number, line.entry, line.typed
    problems = Collect()
    lines = list(read_lines(layout.journal, key=key, on_problem=problems))
"""

from referee.folder.authenticate import (
    JournalEnd,
    authenticated_journal,
    check_journal_end,
    end_problems,
)
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
    journal_entry,
    read_journal,
    read_lines,
    strict,
)
from referee.folder.layout import (
    BOTS_NAME,
    BUILDS_NAME,
    CONFIG_NAME,
    GAME_LOG_NAME,
    GAMES_NAME,
    GAMES_PER_FOLDER,
    GAUNTLET_JSON_NAME,
    GAUNTLET_TXT_NAME,
    HEAD_TO_HEAD_NAME,
    JOURNAL_NAME,
    KEY_NAME,
    LOG_SUFFIX,
    PLAIN_LOG_SUFFIX,
    STANDINGS_JSON_NAME,
    STANDINGS_TXT_NAME,
    STATE_NAME,
    Layout,
    MatchLayout,
    log_game_id,
    recorded_file,
)
from referee.folder.reading import game_entries, game_log_path, load_standings, open_journal
from referee.folder.state import (
    STATE_FORMAT,
    STATE_VERSION,
    TournamentState,
    given_key,
    new_folder_key,
    resumed_folder_key,
    start_state,
    state_problem,
    write_atomic,
)

__all__ = [
    "BOTS_NAME",
    "BUILDS_NAME",
    "CONFIG_NAME",
    "ENTRY_TYPES",
    "GAMES_NAME",
    "GAMES_PER_FOLDER",
    "GAME_LOG_NAME",
    "GAUNTLET_JSON_NAME",
    "GAUNTLET_TXT_NAME",
    "HEAD_TO_HEAD_NAME",
    "JOURNAL_FORMAT",
    "JOURNAL_NAME",
    "JOURNAL_VERSION",
    "KEY_NAME",
    "LOG_SUFFIX",
    "PLAIN_LOG_SUFFIX",
    "STANDINGS_JSON_NAME",
    "STANDINGS_TXT_NAME",
    "STATE_FORMAT",
    "STATE_NAME",
    "STATE_VERSION",
    "BotEntry",
    "Collect",
    "EndEntry",
    "EntryError",
    "GameEntry",
    "Journal",
    "JournalEnd",
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
    "TournamentState",
    "WarningEntry",
    "authenticated_journal",
    "check_journal_end",
    "end_problems",
    "entry_problem",
    "game_entries",
    "game_log_path",
    "given_key",
    "journal_entry",
    "load_standings",
    "log_game_id",
    "new_folder_key",
    "open_journal",
    "parse_entry",
    "read_journal",
    "read_lines",
    "recorded_file",
    "resumed_folder_key",
    "start_state",
    "state_problem",
    "strict",
    "write_atomic",
]
