"""Fair play: colluding moon shooters cannot make a game go on without end (V8).

Under ``subtract_from_self`` (V2) a moon takes 26 off the shooter's total and
gives nobody anything, so bots that shot the moon hand after hand would keep
every total below the target and the game from ending (R9). The hand cap (V8,
docs/rules.md) ends it after hand ``max_hands`` all the same, scored as usual.

A moon every hand cannot be played on demand (against two honest bots the
colluders here shoot now and then; even four seats playing together with
every hand in view found a moon in 22 of 100 random deals in a bounded
search), so the tests set the target out of reach instead (1000): nothing but
the cap can end the game in the hands played, as with the endless moons. The colluders are
in-process players of the real match runner: a shooter that tries to take
every trick and a partner that feeds it its points, against two built-in
heuristic bots; the log is replayed by ``referee verify``'s checker.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Sequence

from referee.audit.logs import verify_log
from referee.engine import HEARTS, QUEEN_OF_SPADES, Card, MoonScoring, Rules, SeatView, card_list
from referee.match.runner import GameRecord, GameSpec, play_game
from referee.players.base import BotInfo, Deadline, Player
from referee.players.builtin import builtin_player
from tests.logs import log_text, write_log_text

_POINTS = HEARTS | 1 << QUEEN_OF_SPADES
SEATS = ("moon-shooter", "heuristic-1", "moon-feeder", "heuristic-2")


def _rank(card: int) -> int:
    return card % 13


def _is_points(card: int) -> bool:
    return bool(1 << card & _POINTS)


class Colluder(Player):
    """One of two colluders: the seat named ``moon-shooter`` shoots, the other feeds it."""

    def __init__(self) -> None:
        self.info = BotInfo(name="colluder", version="1", author="tests", language="Python")
        self.shooter = -1

    def start_game(
        self, game_id: str, seat: int, names: Sequence[str], rules: Rules, timeout_s: float
    ) -> None:
        self.shooter = list(names).index("moon-shooter")

    def pass_cards(
        self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline
    ) -> list[Card]:
        hand = card_list(view.hand)
        if view.seat != self.shooter and view.pass_to == self.shooter:  # its points, to shoot
            return sorted(hand, key=lambda c: (_is_points(c), _rank(c)), reverse=True)[:3]
        return sorted(hand, key=_rank)[:3]

    def play_card(self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline) -> Card:
        legal = card_list(view.legal_moves)
        plays = view.current_trick.plays
        lead = plays[0][1] // 13 if plays else None
        following = [c for c in legal if lead is not None and c // 13 == lead]
        if view.seat == self.shooter:  # win every trick it can
            if following or not plays:
                return max(following or legal, key=_rank)
            return min(legal, key=lambda c: (_is_points(c), _rank(c)))
        winning = max((c for _, c in plays if c // 13 == lead), key=_rank, default=None)
        shooter_winning = any(s == self.shooter and c == winning for s, c in plays)
        if following or not plays:  # never win a trick
            return min(following or legal, key=lambda c: (_is_points(c), _rank(c)))
        if shooter_winning:  # void: its points onto the shooter's trick
            return max(legal, key=lambda c: (_is_points(c), _rank(c)))
        return min(legal, key=lambda c: (_is_points(c), _rank(c)))


def _players() -> list[Player]:
    return [
        Colluder() if name.startswith("moon") else builtin_player("heuristic") for name in SEATS
    ]


def _play(rules: Rules, log: pathlib.Path) -> GameRecord:
    spec = GameSpec(game_id="colluders", seed=23, bots=SEATS, rules=rules)
    return play_game(spec, _players(), log)


def test_v8_a_game_of_two_colluding_shooters_ends_at_the_cap(tmp_path: pathlib.Path) -> None:
    """V8: the game ends after hand max_hands though no total is near the target (R9)."""
    rules = Rules(moon_scoring=MoonScoring.SUBTRACT_FROM_SELF, target_score=1000, max_hands=30)
    log = tmp_path / "capped.jsonl"
    record = _play(rules, log)
    assert len(record.hand_scores) == 30 and max(record.scores) < 1000
    records = [json.loads(line) for line in log_text(log).splitlines()]
    assert records[0]["rules"]["max_hands"] == 30
    assert records[-1]["type"] == "game_end" and records[-1]["hands"] == 30
    assert verify_log(log).ok, verify_log(log).problem
    # The same game without the cap goes on after hand 30 (and ends at the target only).
    no_cap = Rules(moon_scoring=MoonScoring.SUBTRACT_FROM_SELF, target_score=1000, max_hands=0)
    uncapped = _play(no_cap, tmp_path / "uncapped.jsonl")
    assert len(uncapped.hand_scores) > 30 and max(uncapped.scores) >= 1000
    assert uncapped.hand_scores[:30] == record.hand_scores


def test_v8_verify_holds_a_log_to_the_cap_its_header_records(tmp_path: pathlib.Path) -> None:
    """A capped log whose header loses max_hands reads as an older referee's, uncapped: refused."""
    log = tmp_path / "capped.jsonl"
    _play(Rules(moon_scoring=MoonScoring.SUBTRACT_FROM_SELF, target_score=1000, max_hands=5), log)
    records = [json.loads(line) for line in log_text(log).splitlines()]
    del records[0]["rules"]["max_hands"]
    write_log_text(log, "".join(json.dumps(r) + "\n" for r in records))
    report = verify_log(log)
    assert not report.ok
    assert report.problem is not None
    assert "expected the deal of hand 6, found a game_end record" in report.problem.message
