"""The worked example of docs/rules.md (source 004), encoded move by move.

Four players; play order Bo -> Cleo -> You -> Ada, so Bo = 0, Cleo = 1, You = 2,
Ada = 3, and "left" (R1) is the next seat in play order. Hand 1 passes left (R2):
You (2) pass A♠ Q♠ K♥ to Ada (3) and receive K♣ J♥ 8♣ from Cleo (1).

The text gives You's hand, the passes of You and Cleo and four tricks. The rest
is completed with cards consistent with it: Ada is void in diamonds after the
pass (she discards in tricks 3 and 4), Ada passes Q♦ K♦ K♠ to Bo and Bo passes
Q♥ 10♥ 7♥ to Cleo. The last nine tricks are chosen so that the hand ends with
the points of the text: You 3, Ada 4, Cleo 3, Bo 16.
"""

from __future__ import annotations

from referee.engine import GameState, PassDirection, Phase, Rules

from .helpers import cards, cs, play_trick

BO, CLEO, YOU, ADA = 0, 1, 2, 3

DEALT = {
    BO: "2C 6C 4D 7D 10D AD 2S 5S 6S 10S 7H 10H QH",
    CLEO: "4C 9C QC KC 8C 3D 5D 9D 4H 6H JH 8S JS",
    # "You hold ♠ A Q 4, ♥ K 9 3, ♦ J 8 6 2, ♣ 10 7 5"
    YOU: "AS QS 4S KH 9H 3H JD 8D 6D 2D 10C 7C 5C",
    ADA: "3C JC AC 2H 5H 8H AH 3S 7S 9S QD KD KS",
}
PASSES = {
    BO: "QH 10H 7H",
    CLEO: "KC JH 8C",  # "receive K♣ J♥ 8♣ from Cleo"
    YOU: "AS QS KH",  # "you pass A♠ Q♠ K♥ to Ada"
    ADA: "QD KD KS",
}

# (cards in play order, leader, winner, points)
GIVEN_TRICKS = [
    ("2C 9C KC 3C", BO, YOU, 0),  # "Bo 2♣, Cleo 9♣, You K♣, Ada 3♣ - You win, no points"
    ("4S 7S 10S JS", YOU, CLEO, 0),  # "Cleo wins"
    ("5D 6D QS AD", CLEO, BO, 13),  # "Ada Q♠ (void), Bo A♦ - Bo takes 13"
    ("10D 9D 8D KH", BO, BO, 1),  # "Ada K♥ (void; hearts now broken) - Bo wins"
]
COMPLETION = [
    ("6C QC 10C AC", BO, ADA, 0),
    ("8H 5S 6H 9H", ADA, YOU, 3),
    ("5C JC 7D 4C", YOU, ADA, 0),
    ("5H QD QH 3H", ADA, CLEO, 3),
    ("7H JH AH KD", CLEO, ADA, 3),
    ("AS 6S 8S JD", ADA, ADA, 0),
    ("9S 2S 10H 7C", ADA, ADA, 1),
    ("3S KS 3D 2D", ADA, BO, 0),
    ("4D 4H 8C 2H", BO, BO, 2),
]


def test_worked_example_004():
    state = GameState.from_hands([DEALT[s] for s in range(4)], Rules(), hand_number=1)

    # R2: hand 1 passes left; You's left is Ada, Cleo's left is You.
    assert state.pass_direction is PassDirection.LEFT
    assert state.pass_to(YOU) == ADA
    assert state.pass_to(CLEO) == YOU
    for seat in (YOU, ADA, BO, CLEO):
        state.pass_cards(seat, cards(PASSES[seat]))
    assert state.view(YOU).received == cs("KC JH 8C")
    assert state.view(ADA).received == cs("AS QS KH")
    assert state.hands[YOU] == cs("4S 9H 3H JH JD 8D 6D 2D 10C 7C 5C KC 8C")
    assert not state.hands[ADA] & cs("2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD")

    # R3: Bo now holds 2♣ and leads.
    assert state.phase is Phase.PLAYING
    assert state.to_act() == [BO]

    running = {BO: 0, CLEO: 0, YOU: 0, ADA: 0}
    for number, (plays, leader, winner, points) in enumerate(GIVEN_TRICKS, start=1):
        if number == 4:
            assert not state.hearts_broken  # Q♠ in trick 3 did not break hearts (R6)
        trick = play_trick(state, plays, leader=leader)
        assert (trick.leader, trick.winner, trick.points) == (leader, winner, points), number
        running[winner] += points
        assert state.points_taken == [running[s] for s in range(4)]
    assert state.hearts_broken  # "hearts now broken" by K♥
    assert state.points_taken == [14, 0, 0, 0]

    for plays, leader, winner, points in COMPLETION:
        trick = play_trick(state, plays, leader=leader)
        assert (trick.winner, trick.points) == (winner, points), plays

    (result,) = state.hand_results
    # "Hand ends You 3, Ada 4, Cleo 3, Bo 16 (26 in all, no moon)."
    assert result.points[YOU] == 3
    assert result.points[ADA] == 4
    assert result.points[CLEO] == 3
    assert result.points[BO] == 16
    assert sum(result.points) == 26
    assert result.moon_shooter is None
    assert result.scores == result.points
    assert state.scores == [16, 3, 3, 4]
    assert state.hand_number == 2
    assert state.pass_direction is PassDirection.RIGHT
