"""Players: the bots as the match runner sees them (gRPC, launched, built-in)."""

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
