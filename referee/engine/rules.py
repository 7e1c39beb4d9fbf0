"""The rule set: every variant of docs/rules.md (V1-V8) in one frozen, validated value."""

from __future__ import annotations

import dataclasses
import enum

from referee.engine.cards import ALL_CARDS, QUEEN_OF_SPADES, Card, Suit, mask_of, parse_cards

__all__ = [
    "DEFAULT_MAX_HANDS",
    "MAX_HANDS",
    "MAX_TARGET_SCORE",
    "MoonScoring",
    "PassDirection",
    "Rules",
    "RulesError",
    "TieRule",
]


class RulesError(ValueError):
    """A rule set with an invalid value; the message names the field."""


class MoonScoring(enum.Enum):
    """V2: how a moon (R8) is scored."""

    ADD_TO_OTHERS = "add_to_others"
    SUBTRACT_FROM_SELF = "subtract_from_self"
    SHOOTER_CHOOSES = "shooter_chooses"


class TieRule(enum.Enum):
    """V5: ties for the lowest total when the game reaches its target."""

    PLAY_ON = "play_on"
    LAST_HAND = "last_hand"
    SHARE = "share"


class PassDirection(enum.Enum):
    """R2/V6: where a hand's passes go. ``offset`` is added to the seat."""

    LEFT = "left"
    RIGHT = "right"
    ACROSS = "across"
    HOLD = "hold"

    def offset(self, num_players: int) -> int:
        """Seats to count in play order from the passer to the receiver."""
        if self is PassDirection.LEFT:
            return 1
        if self is PassDirection.RIGHT:
            return num_players - 1
        if self is PassDirection.ACROSS:
            return num_players // 2
        return 0


# V6: the cards removed so that the deck divides evenly.
_REMOVED = {
    3: "2D",
    4: "",
    5: "2D 2C",
    6: "2D 3D 3C 4C",
    7: "2D 3D 3C",
}
_DECKS = {n: ALL_CARDS & ~mask_of(parse_cards(removed)) for n, removed in _REMOVED.items()}
_FOUR_PLAYER_CYCLE = (
    PassDirection.LEFT,
    PassDirection.RIGHT,
    PassDirection.ACROSS,
    PassDirection.HOLD,
)
_OTHER_CYCLE = (PassDirection.LEFT, PassDirection.RIGHT)


#: The largest target score: a game to it takes some 1,500 hands (a game to 100, about 10).
MAX_TARGET_SCORE = 10_000
#: The largest hand cap (V8).
MAX_HANDS = 10_000
#: V8's default cap, for targets up to 100 (a larger target is its own default cap).
DEFAULT_MAX_HANDS = 100


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """One rule set. The defaults are the marked defaults of docs/rules.md.

    >>> Rules().target_score
    100
    >>> Rules(num_players=5).cards_per_player
    10
    >>> Rules().max_hands, Rules(target_score=50).max_hands, Rules(target_score=500).max_hands
    (100, 100, 500)
    """

    #: V6: players at the table, 3 to 7.
    num_players: int = 4
    #: R9/V4: the game ends after the hand in which a total reaches this.
    target_score: int = 100
    #: V1: Q♠ played to a trick breaks hearts too.
    queen_breaks_hearts: bool = False
    #: V2: moon scoring.
    moon_scoring: MoonScoring = MoonScoring.ADD_TO_OTHERS
    #: V3: J♦ counts -10 and belongs to a moon.
    omnibus: bool = False
    #: V5: ties for the lowest total at game end.
    tie_rule: TieRule = TieRule.PLAY_ON
    #: V7: hearts and Q♠ may be played to the first trick (R5 dropped).
    points_on_first_trick: bool = False
    #: V8: the game ends after this hand even if no total reached the target. None (the
    #: default) is :data:`DEFAULT_MAX_HANDS`, or the target score if that is more; 0 is no
    #: cap, as in the logs of referees before V8 (:meth:`from_dict`).
    max_hands: int | None = None

    def __post_init__(self) -> None:
        for name in ("queen_breaks_hearts", "omnibus", "points_on_first_trick"):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{name} must be true or false, not {getattr(self, name)!r}")
        if (
            not isinstance(self.num_players, int)
            or isinstance(self.num_players, bool)
            or not 3 <= self.num_players <= 7
        ):
            raise RulesError(f"num_players must be 3 to 7 (V6), not {self.num_players!r}")
        if (
            not isinstance(self.target_score, int)
            or isinstance(self.target_score, bool)
            or not 0 < self.target_score <= MAX_TARGET_SCORE
        ):
            raise RulesError(
                f"target_score must be an integer 1 to {MAX_TARGET_SCORE} (V4), "
                f"not {self.target_score!r}"
            )
        if self.max_hands is None:
            # Each hand without a moon adds at least 16 points (26, or 16 with V3) to the
            # totals, so some total reaches the target within target * 7 / 16 + 1 hands at any
            # table: the default cap stops only a game kept going by moons shot under
            # subtract_from_self, or by a long run of ties under play_on.
            object.__setattr__(self, "max_hands", max(DEFAULT_MAX_HANDS, self.target_score))
        if (
            not isinstance(self.max_hands, int)
            or isinstance(self.max_hands, bool)
            or not 0 <= self.max_hands <= MAX_HANDS
        ):
            raise RulesError(
                f"max_hands must be an integer 1 to {MAX_HANDS} (V8; 0 for no cap), "
                f"not {self.max_hands!r}"
            )
        # Accept the enum values' strings too, as configs and logs hold them.
        for name, kind in (("moon_scoring", MoonScoring), ("tie_rule", TieRule)):
            value = getattr(self, name)
            if not isinstance(value, kind):
                try:
                    object.__setattr__(self, name, kind(value))
                except ValueError:
                    choices = ", ".join(m.value for m in kind)
                    raise RulesError(f"{name} must be one of {choices}, not {value!r}") from None

    @property
    def removed_cards(self) -> list[Card]:
        """V6: the cards taken out of the deck for this player count."""
        return parse_cards(_REMOVED[self.num_players])

    @property
    def deck(self) -> int:
        """The mask of the cards in play."""
        return _DECKS[self.num_players]

    @property
    def cards_per_player(self) -> int:
        return _DECKS[self.num_players].bit_count() // self.num_players

    @property
    def pass_cycle(self) -> tuple[PassDirection, ...]:
        """R2/V6: the pass directions of hands 1, 2, ... repeating."""
        return _FOUR_PLAYER_CYCLE if self.num_players == 4 else _OTHER_CYCLE

    def pass_direction(self, hand_number: int) -> PassDirection:
        """The pass direction of a hand (1-based)."""
        cycle = self.pass_cycle
        return cycle[(hand_number - 1) % len(cycle)]

    def breaks_hearts(self, card: int) -> bool:
        """R6/V1: whether playing ``card`` breaks hearts (a heart; Q♠ too with V1)."""
        return card // 13 == Suit.HEARTS or (self.queen_breaks_hearts and card == QUEEN_OF_SPADES)

    @property
    def pass_count(self) -> int:
        """Cards passed per player (R2)."""
        return 3

    @property
    def hand_points(self) -> int:
        """Points in one hand's cards: 26, or 16 with Omnibus (V3)."""
        return 16 if self.omnibus else 26

    def hand_cap_reached(self, hand_number: int) -> bool:
        """V8: whether the game ends after hand ``hand_number`` (1-based) whatever the totals."""
        return 0 < (self.max_hands or 0) <= hand_number

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict; :meth:`from_dict` gives the same rules back.

        ``max_hands`` is left out when it is 0 (no cap), as the referees before
        V8 wrote every log, so their logs read back byte for byte.
        """
        data: dict[str, object] = {
            "num_players": self.num_players,
            "target_score": self.target_score,
            "queen_breaks_hearts": self.queen_breaks_hearts,
            "moon_scoring": self.moon_scoring.value,
            "omnibus": self.omnibus,
            "tie_rule": self.tie_rule.value,
            "points_on_first_trick": self.points_on_first_trick,
        }
        if self.max_hands:
            data["max_hands"] = self.max_hands
        return data

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Rules:
        """The inverse of :meth:`to_dict`; unknown keys are an error.

        A dict without ``max_hands`` is a record of a referee before V8 (a log
        header, say), whose games had no cap: it gets 0, so that its game ends
        as it did.
        """
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - fields)
        if unknown:
            raise RulesError(f"unknown rule {unknown[0]!r}; known: {', '.join(sorted(fields))}")
        return cls(**{"max_hands": 0, **data})  # type: ignore[arg-type]
