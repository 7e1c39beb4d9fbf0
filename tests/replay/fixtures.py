"""Game logs for the replay and verify tests, made with the real match runner.

The stored logs in ``tests/replay/data/`` are what the golden text replays
are rendered from; they are made by this module and kept in the repository
so that a change of the built-in bots does not look like a change of the
rendering. Regenerate them (then the golden files) with::

    python -m tests.replay.fixtures
    REPLAY_REGEN_GOLDEN=1 python -m pytest tests/replay -q
"""

from __future__ import annotations

import pathlib
from collections.abc import Mapping, Sequence

from referee.engine import Card, MoonScoring, Rules, SeatView, card_list
from referee.match.runner import GameRecord, GameSpec, play_game
from referee.players.base import BotFault, Deadline, FaultKind, Player
from referee.players.builtin import builtin_player
from referee.players.policy import FaultPolicy

DATA = pathlib.Path(__file__).resolve().parent / "data"
GOLDEN = pathlib.Path(__file__).resolve().parent / "golden"

#: The stored logs: name -> how to make it.
FAULTS_LOG = DATA / "faults.jsonl"
MOON_LOG = DATA / "moon.jsonl"


class FlakyPlayer(Player):
    """A built-in bot that misbehaves on chosen decisions and notifications.

    ``plan`` maps a decision id (``h1-t2-s1``, ``h1-pass-s1``, ``h1-moon-s0``)
    or a notification (``DealHand:2`` for hand 2) to a misbehaviour:
    ``illegal`` (a held card that is not legal), ``not_held``, ``timeout``,
    ``pass_size`` (two cards), ``duplicate``, ``error`` (an RPC error).
    """

    def __init__(self, inner: Player, plan: Mapping[str, str]) -> None:
        self.inner = inner
        self.info = inner.info
        self.plan = dict(plan)

    def _fault(self, kind: str) -> BotFault:
        if kind == "timeout":
            return BotFault(FaultKind.TIMEOUT, "no answer within 1000 ms")
        return BotFault(FaultKind.RPC_ERROR, "StatusCode.UNKNOWN: boom")

    def pass_cards(
        self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline
    ) -> list[Card]:
        how = self.plan.get(decision_id)
        cards = self.inner.pass_cards(game_id, view, decision_id, deadline)
        if how == "pass_size":
            return list(cards)[:2]
        if how == "duplicate":
            return [cards[0], cards[0], cards[1]]
        if how == "not_held":
            others = [c for c in card_list(view.rules.deck) if c not in view.hand]
            return [others[0], *list(cards)[1:]]
        if how is not None:
            raise self._fault(how)
        return cards

    def play_card(self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline) -> Card:
        how = self.plan.get(decision_id)
        if how == "illegal":
            illegal = [c for c in view.hand if c not in view.legal_moves]
            if illegal:
                return illegal[0]
        elif how == "not_held":
            played = {c for t in view.tricks for _, c in t.plays}
            played |= {c for _, c in view.current_trick.plays}
            return next(
                c for c in card_list(view.rules.deck) if c not in view.hand and c not in played
            )
        elif how is not None:
            raise self._fault(how)
        return self.inner.play_card(game_id, view, decision_id, deadline)

    def choose_moon_scoring(
        self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline
    ) -> MoonScoring:
        how = self.plan.get(decision_id)
        if how is not None:
            raise self._fault(how)
        return self.inner.choose_moon_scoring(game_id, view, decision_id, deadline)

    def deal_hand(self, game_id: str, view: SeatView, timeout_s: float) -> None:
        how = self.plan.get(f"DealHand:{view.hand_number}")
        if how is not None:
            raise self._fault(how)


def play(
    path: pathlib.Path,
    *,
    game_id: str,
    seed: int,
    bots: Sequence[str],
    rules: Rules,
    plans: Mapping[int, Mapping[str, str]] | None = None,
    max_faults: int = 5,
) -> GameRecord:
    """Play a game of built-in bots (some flaky) and write its log to ``path``."""
    plans = plans or {}
    players: list[Player] = []
    for seat, bot in enumerate(bots):
        player = builtin_player("random" if bot == "flaky" else bot.split("#")[0])
        players.append(FlakyPlayer(player, plans[seat]) if seat in plans else player)
    spec = GameSpec(
        game_id=game_id,
        seed=seed,
        bots=tuple(bots),
        rules=rules,
        fault_policy=FaultPolicy(max_faults=max_faults),
    )
    return play_game(spec, players, path)


def faults_game(path: pathlib.Path = FAULTS_LOG) -> GameRecord:
    """A short game (target 26) in which seat 1 faults in every way, then forfeits."""
    plan = {
        "h1-pass-s1": "pass_size",
        "h1-t2-s1": "illegal",
        "h1-t3-s1": "not_held",
        "h1-t5-s1": "timeout",
        "DealHand:2": "error",
    }
    return play(
        path,
        game_id="faults-7",
        seed=7,
        bots=("heuristic", "flaky", "random", "heuristic#2"),
        rules=Rules(target_score=26),
        plans={1: plan},
        max_faults=5,
    )


def moon_game(path: pathlib.Path = MOON_LOG) -> GameRecord:
    """A one-hand game (V2 shooter_chooses) in which seat 0 shoots the moon and times out choosing."""
    return play(
        path,
        game_id="moon-55",
        seed=55,
        bots=("random", "heuristic", "random#2", "heuristic#2"),
        rules=Rules(target_score=26, moon_scoring=MoonScoring.SHOOTER_CHOOSES),
        plans={0: {"h1-moon-s0": "timeout"}},
    )


def main() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for make in (faults_game, moon_game):
        record = make()
        print(f"{record.log_path}: {len(record.hand_scores)} hands, faults {record.faults}")


if __name__ == "__main__":
    main()
