"""The full game: one game through the referee's own match runner, judged by its faults.

The bot plays seat 0 against the built-in bots, over the same connection as
the scripted games (every call timed), under the time control and fault
policy a tournament uses; its faults are listed from the game's log.
"""

from __future__ import annotations

import pathlib

from referee.checkbot.calls import Calls, Gone, TimedConnection
from referee.checkbot.report import CheckResult, Status, shown
from referee.engine import Rules
from referee.folder.layout import MatchLayout
from referee.match.gamelog import (
    FaultRecord,
    MoonChoiceRecord,
    PassRecord,
    PlayRecord,
    parse_record,
    read_log,
)
from referee.match.runner import GameSpec, play_game
from referee.players import BotInfo, RemotePlayer, builtin_player
from referee.players.policy import FaultPolicy, TimeControl


def play_full_game(
    calls: Calls,
    *,
    bot_name: str,
    bot_info: BotInfo | None,
    seed: int,
    time_control: TimeControl,
    out_dir: pathlib.Path,
) -> CheckResult:
    """``full-game``: one game (target 50) through the match runner, the bot in seat 0.

    Raises :class:`~referee.checkbot.calls.Gone` if the bot already stopped answering.
    """
    if calls.gone:
        raise Gone(calls.gone)
    info = bot_info or BotInfo(name=bot_name)
    player = RemotePlayer(TimedConnection(calls, info))
    others = ["heuristic", "random", "heuristic"]
    spec = GameSpec(
        game_id=f"check-bot-game-{seed}",
        seed=seed,
        bots=(bot_name, *others),
        rules=Rules(target_score=50),
        time_control=time_control,
        fault_policy=FaultPolicy(),
    )
    log_path = MatchLayout(out_dir).game_log
    try:
        record = play_game(spec, [player, *(builtin_player(o) for o in others)], log_path)
    except Exception as error:
        return CheckResult(
            "full-game",
            Status.FAIL,
            f"the game could not finish: {type(error).__name__}: {error} (log: {log_path})",
        )
    faults = record.faults[0]
    where = f"{len(record.hand_scores)} hands, {record.decisions[0]} decisions; log {log_path}"
    if not faults:
        return CheckResult(
            "full-game",
            Status.PASS,
            f"zero faults; {where}; placed {record.placements[0]} with {record.scores[0]}",
        )
    total = sum(faults.values())
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(faults.items()))
    details = faults_of_seat(log_path, 0)
    forfeit = "; forfeited the game" if record.forfeited[0] else ""
    return CheckResult(
        "full-game",
        Status.FAIL,
        f"{total} faults ({kinds}){forfeit}; {where}",
        shown(details, more="more in the log"),
    )


def faults_of_seat(log_path: pathlib.Path, seat: int) -> list[str]:
    """One line per fault of ``seat`` in a game's log: the decision or notification, and why."""
    lines = []
    for _, raw in read_log(log_path):
        if raw.get("seat") != seat:
            continue
        record = parse_record(raw)
        if isinstance(record, FaultRecord):
            lines.append(f"{record.during} in hand {record.hand}: {record.message}")
        elif isinstance(record, PassRecord | PlayRecord | MoonChoiceRecord) and record.fault:
            at = f"hand {record.hand}"
            answered = ""
            if isinstance(record, PlayRecord):
                at += f", trick {record.trick}"
            if isinstance(record, PassRecord | PlayRecord) and record.answer is not None:
                answer = list(record.answer) if isinstance(record, PassRecord) else record.answer
                answered = f" (answered {answer})"
            lines.append(f"{record.TYPE} {at}: {record.fault.message}{answered}")
    return lines
