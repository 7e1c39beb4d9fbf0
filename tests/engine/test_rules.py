"""referee.engine.rules: the rule set, its defaults (docs/rules.md) and validation."""

from __future__ import annotations

import pytest

from referee.engine import MoonScoring, PassDirection, Rules, RulesError, TieRule

from .helpers import cards


def test_defaults_are_the_marked_defaults():
    """V1 false, V2 add_to_others, V3 off, V4 100, V5 play_on, V6 four players, V7 forbidden."""
    rules = Rules()
    assert rules.queen_breaks_hearts is False
    assert rules.moon_scoring is MoonScoring.ADD_TO_OTHERS
    assert rules.omnibus is False
    assert rules.target_score == 100
    assert rules.tie_rule is TieRule.PLAY_ON
    assert rules.num_players == 4
    assert rules.points_on_first_trick is False


def test_r1_four_players_thirteen_cards_full_deck():
    rules = Rules()
    assert rules.cards_per_player == 13
    assert rules.removed_cards == []
    assert rules.deck == 2**52 - 1


@pytest.mark.parametrize(
    ("players", "removed", "each"),
    [
        (3, "2D", 17),
        (4, "", 13),
        (5, "2D 2C", 10),
        (6, "2D 3D 3C 4C", 8),
        (7, "2D 3D 3C", 7),
    ],
)
def test_v6_removed_cards_and_cards_each(players, removed, each):
    """V6: the table of removed cards; the rest divides evenly; all points remain."""
    rules = Rules(num_players=players)
    assert sorted(rules.removed_cards) == sorted(cards(removed))
    assert rules.cards_per_player == each
    assert rules.deck.bit_count() == 52 - len(cards(removed)) == players * each
    for card in cards(removed):
        assert not rules.deck >> card & 1
    for card in cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS JD"):
        assert rules.deck >> card & 1


def test_v8_the_default_hand_cap_is_100_or_the_target():
    """V8: 100 hands, or the target score if that is more; any cap 1 to 10,000 may be chosen."""
    assert Rules().max_hands == 100
    assert Rules(target_score=26).max_hands == 100
    assert Rules(target_score=500).max_hands == 500
    assert Rules(max_hands=7).max_hands == 7
    assert Rules(max_hands=7) != Rules()
    assert Rules(max_hands=100) == Rules()  # the default, said or not


@pytest.mark.parametrize("bad", [-1, 10_001, 2.5, True, "100"])
def test_v8_a_bad_hand_cap_is_refused(bad):
    with pytest.raises(RulesError, match=r"max_hands must be an integer 1 to 10000 \(V8"):
        Rules(max_hands=bad)


def test_v8_a_record_without_max_hands_is_of_an_older_referee_no_cap():
    """A log header written before V8 has no max_hands: its game had no cap, and reads back so."""
    old = Rules(target_score=50).to_dict()
    del old["max_hands"]
    rules = Rules.from_dict(old)
    assert rules.max_hands == 0 and not rules.hand_cap_reached(10_000)
    assert rules.to_dict() == old  # written back as it was, byte for byte in a log
    assert Rules.from_dict(Rules(max_hands=9).to_dict()).max_hands == 9


def test_r2_four_player_pass_cycle():
    """R2: hand 1 left, 2 right, 3 across, 4 hold, then the cycle repeats."""
    rules = Rules()
    expected = ["left", "right", "across", "hold"] * 3
    assert [rules.pass_direction(h).value for h in range(1, 13)] == expected


@pytest.mark.parametrize("players", [3, 5, 6, 7])
def test_v6_other_player_counts_pass_left_right(players):
    """V6: with other than four players the passing cycle is left, right, repeat."""
    rules = Rules(num_players=players)
    assert [rules.pass_direction(h).value for h in range(1, 9)] == ["left", "right"] * 4


def test_pass_direction_offsets():
    """R1: left is the next seat in play order; right the previous; across two on."""
    assert PassDirection.LEFT.offset(4) == 1
    assert PassDirection.RIGHT.offset(4) == 3
    assert PassDirection.ACROSS.offset(4) == 2
    assert PassDirection.HOLD.offset(4) == 0
    assert PassDirection.RIGHT.offset(7) == 6


def test_r2_pass_count_and_hand_points():
    assert Rules().pass_count == 3
    assert Rules().hand_points == 26  # R7
    assert Rules(omnibus=True).hand_points == 16  # V3: 26 - 10


@pytest.mark.parametrize("target", [1, 50, 100, 1000])
def test_v4_any_positive_target(target):
    assert Rules(target_score=target).target_score == target


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"num_players": 2}, "num_players"),
        ({"num_players": 8}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"num_players": "4"}, "num_players"),
        ({"target_score": 0}, "target_score"),
        ({"target_score": -5}, "target_score"),
        ({"target_score": 50.0}, "target_score"),
        ({"target_score": False}, "target_score"),
        ({"moon_scoring": "sideways"}, "moon_scoring"),
        ({"tie_rule": "coin_toss"}, "tie_rule"),
        ({"omnibus": 1}, "omnibus"),
        ({"queen_breaks_hearts": "yes"}, "queen_breaks_hearts"),
        ({"points_on_first_trick": None}, "points_on_first_trick"),
    ],
)
def test_invalid_values_are_refused_naming_the_field(kwargs, field):
    with pytest.raises(RulesError, match=field):
        Rules(**kwargs)


def test_rules_error_is_value_error():
    assert issubclass(RulesError, ValueError)


def test_enum_values_accepted_as_strings():
    rules = Rules(moon_scoring="shooter_chooses", tie_rule="last_hand")
    assert rules.moon_scoring is MoonScoring.SHOOTER_CHOOSES
    assert rules.tie_rule is TieRule.LAST_HAND


def test_dict_round_trip():
    rules = Rules(
        num_players=5,
        target_score=50,
        queen_breaks_hearts=True,
        moon_scoring=MoonScoring.SUBTRACT_FROM_SELF,
        omnibus=True,
        tie_rule=TieRule.SHARE,
        points_on_first_trick=True,
    )
    data = rules.to_dict()
    assert data == {
        "num_players": 5,
        "target_score": 50,
        "queen_breaks_hearts": True,
        "moon_scoring": "subtract_from_self",
        "omnibus": True,
        "tie_rule": "share",
        "points_on_first_trick": True,
        "max_hands": 100,
    }
    assert Rules.from_dict(data) == rules
    assert Rules(**data) == rules


def test_from_dict_rejects_unknown_keys():
    with pytest.raises(RulesError, match="unknown rule 'omnibuss'"):
        Rules.from_dict({"omnibuss": True})


def test_rules_are_frozen_and_hashable():
    rules = Rules()
    with pytest.raises(AttributeError):
        rules.num_players = 5  # type: ignore[misc]
    assert hash(rules) == hash(Rules())
