"""Players: the bots as the match runner sees them, and how they are named, built and supplied.

One module per concern:

- :mod:`~referee.players.base`: :class:`Player`, what the match runner asks
  (pass, play, moon choice, notifications), and :class:`BotFault`;
- :mod:`~referee.players.builtin`, :mod:`~referee.players.remote`,
  :mod:`~referee.players.launcher`: the kinds of bot (in-process, a gRPC
  connection, a launched and sandboxed process);
- :mod:`~referee.players.policy`: the terms a bot plays under (its clock,
  the fault policy, its resource limits and its build's), which the match
  runner and the sandbox's supervisor apply;
- :mod:`~referee.players.specs`: naming bots (``heuristic``, ``HOST:PORT``,
  a command, a folder with a ``bot.yaml`` read by
  :mod:`~referee.players.manifest`) as :class:`~referee.players.specs.BotSpec`;
- :mod:`~referee.players.builds`: building a bot folder in the build sandbox,
  and :mod:`~referee.players.build_progress`, how a running build is shown;
- :mod:`~referee.players.supply`: starting bots and handing out their players
  (:class:`~referee.players.supply.BotPool`,
  :class:`~referee.players.supply.BotSupply`, spares, stand-ins).

The builds stay flat here rather than in a ``builds/`` subpackage: what is
the players' of a build is two modules (running it and showing it); the rest
of a build (its sandbox, the settings and credentials it sees, its network)
is the sandbox's, in :mod:`referee.sandbox`, below the players.

The players are below the match (:mod:`referee.match`, whose runner asks
them): nothing here imports the match, a tournament or the web. A seat
played by a person (``referee play``) follows the game's log, so it is
above the match, beside the page that serves it: :mod:`referee.web.human`.
"""

from referee.players.base import BotFault, BotInfo, Deadline, FaultKind, Player
from referee.players.builtin import BUILTIN_BOTS, HeuristicPlayer, RandomPlayer, builtin_player
from referee.players.launcher import LaunchedBot, stop_all
from referee.players.remote import BotConnection, Connection, RemotePlayer

__all__ = [
    "BUILTIN_BOTS",
    "BotConnection",
    "BotFault",
    "BotInfo",
    "Connection",
    "Deadline",
    "FaultKind",
    "HeuristicPlayer",
    "LaunchedBot",
    "Player",
    "RandomPlayer",
    "RemotePlayer",
    "builtin_player",
    "stop_all",
]
