"""Game logs: one JSON Lines file per game, written as the game goes.

The format is documented record by record in docs/log-format.md, and defined
here once: one class per record type (:class:`GameHeader`, :class:`DealRecord`,
... :class:`GameAbortRecord`), each with ``to_json()`` (what the match runner
writes) and ``from_json()`` (the checked parse that both readers,
:mod:`referee.audit.replay` and :mod:`referee.audit.logs`, start from). ``from_json``
checks the shape of a record (its fields, their types, the cards); what a record
must say in its place in a game is the readers' business.

Each line is flushed when written, so a crash of the referee loses at most the
decision in flight (and, as the match runner writes, in its writer's thread, the
line or two not yet written); :meth:`GameLogWriter.close` also syncs the file to
disk, which the tournament journal relies on before it counts a game.

The package has two modules, and this one is their public face (import from
``referee.match.gamelog``):

- :mod:`~referee.match.gamelog.records`: the record types and the checked
  reading of their fields (:class:`RecordError`, :func:`field`, ...);
- :mod:`~referee.match.gamelog.files`: the files: :class:`GameLogWriter`,
  :func:`read_log` and :func:`open_log` (plain or gzip-compressed, streamed),
  :func:`store_log`, and :class:`LogError`, which names the file and line.
"""

from referee.match.gamelog.files import (
    COMPRESS_LEVEL,
    GZIP_MAGIC,
    GameLogWriter,
    LogError,
    is_compressed_name,
    open_log,
    read_log,
    store_log,
)
from referee.match.gamelog.records import (
    LOG_FORMAT,
    LOG_VERSION,
    RECORD_TYPES,
    DealRecord,
    Fault,
    FaultRecord,
    ForfeitRecord,
    GameAbortRecord,
    GameEndRecord,
    GameHeader,
    HandEndRecord,
    LogRecord,
    MoonChoiceRecord,
    PassRecord,
    PlayRecord,
    RecordError,
    SeatInfo,
    TrickRecord,
    card_field,
    cards_field,
    field,
    parse_card_list,
    parse_record,
)

__all__ = [
    "COMPRESS_LEVEL",
    "GZIP_MAGIC",
    "LOG_FORMAT",
    "LOG_VERSION",
    "RECORD_TYPES",
    "DealRecord",
    "Fault",
    "FaultRecord",
    "ForfeitRecord",
    "GameAbortRecord",
    "GameEndRecord",
    "GameHeader",
    "GameLogWriter",
    "HandEndRecord",
    "LogError",
    "LogRecord",
    "MoonChoiceRecord",
    "PassRecord",
    "PlayRecord",
    "RecordError",
    "SeatInfo",
    "TrickRecord",
    "card_field",
    "cards_field",
    "field",
    "is_compressed_name",
    "open_log",
    "parse_card_list",
    "parse_record",
    "read_log",
    "store_log",
]
