"""V6: three to seven players: stripped decks, cards each, the first lead, whole hands."""

from __future__ import annotations

import pytest

from referee.engine import GameState, PassDirection, Phase, Rules, card_list

from .helpers import cards, cs, hold_hand, play_out, play_trick, points_of

# V6's table: players -> (removed, cards each, lowest club in the deck)
TABLE = {
    3: ("2D", 17, "2C"),
    4: ("", 13, "2C"),
    5: ("2D 2C", 10, "3C"),
    6: ("2D 3D 3C 4C", 8, "2C"),
    7: ("2D 3D 3C", 7, "2C"),
}


@pytest.mark.parametrize("players", sorted(TABLE))
@pytest.mark.parametrize("seed", [1, 2])
def test_v6_new_game_deals_the_stripped_deck(players, seed):
    removed, each, _ = TABLE[players]
    state = GameState.new(Rules(num_players=players), seed=seed)
    assert len(state.hands) == players
    held = []
    for hand in state.hands:
        assert len(card_list(hand)) == each
        held += card_list(hand)
    assert len(held) == len(set(held)) == 52 - len(cards(removed))
    for card in cards(removed):
        assert card not in held
    assert state.to_act() == list(range(players))


@pytest.mark.parametrize("players", sorted(TABLE))
def test_v6_r3_lowest_club_present_leads(players):
    lowest = TABLE[players][2]
    state = GameState.new(Rules(num_players=players), seed=11)
    for seat in range(players):
        state.pass_cards(seat, card_list(state.hands[seat])[-3:])
    holder = next(s for s in range(players) if cards(lowest)[0] in card_list(state.hands[s]))
    assert state.phase is Phase.PLAYING
    assert state.to_act() == [holder]
    assert state.legal_moves() == cs(lowest)


@pytest.mark.parametrize("players", sorted(TABLE))
def test_v6_whole_hand_has_26_points_and_n_card_tricks(players):
    _, each, _ = TABLE[players]
    state = GameState.new(Rules(num_players=players), seed=3)
    for seat in range(players):
        state.pass_cards(seat, card_list(state.hands[seat])[:3])
    play_out(state)
    (result,) = state.hand_results
    assert len(result.tricks) == each
    for trick in result.tricks:
        assert len(trick.plays) == players
        assert [seat for seat, _ in trick.plays] == [
            (trick.leader + i) % players for i in range(players)
        ]
        assert trick.points == points_of(card for _, card in trick.plays)
    assert sum(result.points) == 26  # V6: all hearts and Q♠ remain
    assert state.hand_number == 2
    assert state.pass_direction is PassDirection.RIGHT


FIVE = [
    "3C 4C 5C 6C 7C 8C 9C TC JC QC",
    "KC AC 3D 4D 5D 6D 7D 8D 9D TD",
    "JD QD KD AD 2S 3S 4S 5S 6S 7S",
    "8S 9S TS JS QS KS AS 2H 3H 4H",
    "5H 6H 7H 8H 9H TH JH QH KH AH",
]


def test_v6_five_players_first_trick():
    """V6/R3: five players, 2♣ and 2♦ removed: 3♣ leads; R4/R5 as usual."""
    state = hold_hand(FIVE, Rules(num_players=5))
    assert state.to_act() == [0]
    assert state.legal_moves() == cs("3C")
    state.play(cards("3C")[0])
    assert state.legal_moves() == cs("KC AC")  # R4: follow clubs
    state.play(cards("AC")[0])
    assert state.legal_moves() == cs(FIVE[2])  # void, nothing forbidden
    state.play(cards("AD")[0])
    assert state.legal_moves() == cs("8S 9S TS JS KS AS")  # R5: no Q♠, no hearts
    state.play(cards("AS")[0])
    assert state.legal_moves() == cs(FIVE[4])  # only hearts: any of them
    state.play(cards("AH")[0])
    trick = state.tricks[0]
    assert (trick.winner, trick.points) == (1, 1)
    assert state.to_act() == [1]


def test_v6_five_players_refuse_removed_cards():
    hands = list(FIVE)
    hands[0] = hands[0].replace("3C", "2C")
    with pytest.raises(ValueError, match="not the deck"):
        hold_hand(hands, Rules(num_players=5))


THREE = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 3D 4D 5D 6D",
    "7D 8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS",
    "JS QS KS AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]


def test_v6_three_players_first_trick():
    state = hold_hand(THREE, Rules(num_players=3))
    trick = play_trick(state, "2C TS AS", leader=0)
    assert (trick.winner, trick.points) == (0, 0)
    assert state.trick_number == 1


def test_v6_three_players_legal_discards():
    state = hold_hand(THREE, Rules(num_players=3))
    state.play(cards("2C")[0])
    assert state.legal_moves() == cs(THREE[1])
    state.play(cards("7D")[0])
    assert state.legal_moves() == cs("JS KS AS")


@pytest.mark.parametrize("players", [6, 7])
def test_v6_six_and_seven_players_pass_three_cards(players):
    state = GameState.new(Rules(num_players=players), seed=4)
    each = TABLE[players][1]
    for seat in range(players):
        state.pass_cards(seat, card_list(state.hands[seat])[:3])
    assert all(len(card_list(h)) == each for h in state.hands)
    assert state.to_act() == [next(s for s in range(players) if state.hands[s] & 1)]  # 2♣
