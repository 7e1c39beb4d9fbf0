"""``referee.audit.replay``: a log as a structured game, and engine states rebuilt from it."""

from __future__ import annotations

import dataclasses
import json
import pathlib

import pytest

from referee.audit.replay import game_actions, load_game, state_at
from referee.engine import Card, MoonChoice, Phase, card_list, replay
from referee.match.gamelog import GameHeader, LogError, SeatInfo
from tests.replay.fixtures import FAULTS_LOG, MOON_LOG


def test_the_structure_of_a_game() -> None:
    game = load_game(FAULTS_LOG)
    assert (game.game_id, game.seed, game.n, len(game.hands)) == ("faults-7", 7, 4, 2)
    assert game.names == ["heuristic", "flaky", "random", "heuristic#2"]
    hand = game.hand(1)
    assert [len(d) for d in hand.dealt] == [13] * 4
    assert [(p.seat, p.to) for p in hand.passes] == [(0, 1), (1, 2), (2, 3), (3, 0)]
    assert hand.passes[1].fault is not None and hand.passes[1].answer == ["9H", "QS"]
    assert [t.number for t in hand.tricks] == list(range(1, 14))
    assert [t.breaks_hearts for t in hand.tricks].index(True) == 2
    assert hand.result is not None and hand.result.totals == [3, 22, 0, 1]
    notes = game.hand(2).notes
    assert [(n.kind, n.seat, n.stage) for n in notes] == [
        ("forfeit", 1, "deal"),
        ("fault", 1, "deal"),
    ]
    assert game.end is not None and game.end.forfeited == [False, True, False, False]
    assert game.totals_before(2) == [3, 22, 0, 1]


def test_cards_held_follow_the_passes_and_plays() -> None:
    game = load_game(FAULTS_LOG)
    for hand in game.hands:
        for seat in range(game.n):
            start = hand.cards_at_play(seat)
            assert len(start) == 13
            assert hand.held(seat, 0) == start
            assert hand.held(seat, 13) == []
        union = {c for s in range(game.n) for c in hand.cards_at_play(s)}
        assert union == set(card_list((1 << 52) - 1))


def test_states_rebuilt_with_the_engine_offer_the_recorded_legal_sets() -> None:
    game = load_game(FAULTS_LOG)
    for hand in game.hands:
        for trick in hand.tricks:
            for index, play in enumerate(trick.plays):
                state = state_at(game, hand.number, trick.number, index)
                assert state.phase is Phase.PLAYING and state.current == play.seat
                assert card_list(state.legal_mask()) == play.legal
    before = state_at(game, 1, 0)  # after the passes: N passed K♥ to E
    assert before.trick_number == 0 and not before.trick_plays
    assert Card.parse("KH") in card_list(before.hands[1])


def test_the_actions_of_a_moon_game_replay_to_its_end() -> None:
    game = load_game(MOON_LOG)
    actions = game_actions(game)
    assert sum(1 for a in actions if isinstance(a, MoonChoice)) == 1
    state = replay(game.rules, game.seed, actions)
    assert state.is_over and state.outcome is not None
    assert list(state.outcome.scores) == game.end.scores  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", 1, "empty file"),
        ('{"type":"game","format":"hearts-referee/game-log","version":1}\n', 1, "bad game header"),
    ],
)
def test_unreadable_logs(tmp_path: pathlib.Path, text: str, line: int, message: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LogError) as caught:
        load_game(path)
    assert caught.value.line == line and message in str(caught.value)


def test_records_out_of_order_name_their_line(tmp_path: pathlib.Path) -> None:
    lines = FAULTS_LOG.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "x.jsonl"
    path.write_text("".join(lines[:10] + lines[11:]), encoding="utf-8")  # a trick record gone
    with pytest.raises(LogError) as caught:
        load_game(path)
    assert caught.value.line == 11 and "trick 2 while trick 1 is open" in str(caught.value)
    game = load_game(path, strict=False)
    assert game.damage is not None and len(game.hand(1).tricks) == 1


def test_the_seats_are_the_headers_seat_records(tmp_path: pathlib.Path) -> None:
    """One class for a seat (gamelog's SeatInfo); a seat whose bot has no name shows its number."""
    game = load_game(FAULTS_LOG)
    header = GameHeader.from_json(json.loads(FAULTS_LOG.read_text().splitlines()[0]))
    assert all(type(seat) is SeatInfo for seat in game.seats)
    assert tuple(game.seats) == header.seats
    lines = FAULTS_LOG.read_text(encoding="utf-8").splitlines(keepends=True)
    first = json.loads(lines[0])
    first["seats"][1]["bot"] = ""
    unnamed = tmp_path / "unnamed.jsonl"
    unnamed.write_text(json.dumps(first) + "\n" + "".join(lines[1:]), encoding="utf-8")
    seats = load_game(unnamed).seats
    assert seats[1] == dataclasses.replace(header.seats[1], bot="seat 1")
    assert seats[0] == header.seats[0]
