from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_UNSPECIFIED: _ClassVar[Suit]
    SUIT_CLUBS: _ClassVar[Suit]
    SUIT_DIAMONDS: _ClassVar[Suit]
    SUIT_HEARTS: _ClassVar[Suit]
    SUIT_SPADES: _ClassVar[Suit]

class Rank(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RANK_UNSPECIFIED: _ClassVar[Rank]
    RANK_TWO: _ClassVar[Rank]
    RANK_THREE: _ClassVar[Rank]
    RANK_FOUR: _ClassVar[Rank]
    RANK_FIVE: _ClassVar[Rank]
    RANK_SIX: _ClassVar[Rank]
    RANK_SEVEN: _ClassVar[Rank]
    RANK_EIGHT: _ClassVar[Rank]
    RANK_NINE: _ClassVar[Rank]
    RANK_TEN: _ClassVar[Rank]
    RANK_JACK: _ClassVar[Rank]
    RANK_QUEEN: _ClassVar[Rank]
    RANK_KING: _ClassVar[Rank]
    RANK_ACE: _ClassVar[Rank]

class PassDirection(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PASS_DIRECTION_UNSPECIFIED: _ClassVar[PassDirection]
    PASS_DIRECTION_LEFT: _ClassVar[PassDirection]
    PASS_DIRECTION_RIGHT: _ClassVar[PassDirection]
    PASS_DIRECTION_ACROSS: _ClassVar[PassDirection]
    PASS_DIRECTION_HOLD: _ClassVar[PassDirection]

class MoonScoring(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MOON_SCORING_UNSPECIFIED: _ClassVar[MoonScoring]
    MOON_SCORING_ADD_TO_OTHERS: _ClassVar[MoonScoring]
    MOON_SCORING_SUBTRACT_FROM_SELF: _ClassVar[MoonScoring]
    MOON_SCORING_SHOOTER_CHOOSES: _ClassVar[MoonScoring]

class TieRule(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIE_RULE_UNSPECIFIED: _ClassVar[TieRule]
    TIE_RULE_PLAY_ON: _ClassVar[TieRule]
    TIE_RULE_LAST_HAND: _ClassVar[TieRule]
    TIE_RULE_SHARE: _ClassVar[TieRule]
SUIT_UNSPECIFIED: Suit
SUIT_CLUBS: Suit
SUIT_DIAMONDS: Suit
SUIT_HEARTS: Suit
SUIT_SPADES: Suit
RANK_UNSPECIFIED: Rank
RANK_TWO: Rank
RANK_THREE: Rank
RANK_FOUR: Rank
RANK_FIVE: Rank
RANK_SIX: Rank
RANK_SEVEN: Rank
RANK_EIGHT: Rank
RANK_NINE: Rank
RANK_TEN: Rank
RANK_JACK: Rank
RANK_QUEEN: Rank
RANK_KING: Rank
RANK_ACE: Rank
PASS_DIRECTION_UNSPECIFIED: PassDirection
PASS_DIRECTION_LEFT: PassDirection
PASS_DIRECTION_RIGHT: PassDirection
PASS_DIRECTION_ACROSS: PassDirection
PASS_DIRECTION_HOLD: PassDirection
MOON_SCORING_UNSPECIFIED: MoonScoring
MOON_SCORING_ADD_TO_OTHERS: MoonScoring
MOON_SCORING_SUBTRACT_FROM_SELF: MoonScoring
MOON_SCORING_SHOOTER_CHOOSES: MoonScoring
TIE_RULE_UNSPECIFIED: TieRule
TIE_RULE_PLAY_ON: TieRule
TIE_RULE_LAST_HAND: TieRule
TIE_RULE_SHARE: TieRule

class Card(_message.Message):
    __slots__ = ("suit", "rank")
    SUIT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    suit: Suit
    rank: Rank
    def __init__(self, suit: _Optional[_Union[Suit, str]] = ..., rank: _Optional[_Union[Rank, str]] = ...) -> None: ...

class Rules(_message.Message):
    __slots__ = ("num_players", "target_score", "queen_breaks_hearts", "moon_scoring", "omnibus", "tie_rule", "points_on_first_trick", "removed_cards", "cards_per_player")
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    QUEEN_BREAKS_HEARTS_FIELD_NUMBER: _ClassVar[int]
    MOON_SCORING_FIELD_NUMBER: _ClassVar[int]
    OMNIBUS_FIELD_NUMBER: _ClassVar[int]
    TIE_RULE_FIELD_NUMBER: _ClassVar[int]
    POINTS_ON_FIRST_TRICK_FIELD_NUMBER: _ClassVar[int]
    REMOVED_CARDS_FIELD_NUMBER: _ClassVar[int]
    CARDS_PER_PLAYER_FIELD_NUMBER: _ClassVar[int]
    num_players: int
    target_score: int
    queen_breaks_hearts: bool
    moon_scoring: MoonScoring
    omnibus: bool
    tie_rule: TieRule
    points_on_first_trick: bool
    removed_cards: _containers.RepeatedCompositeFieldContainer[Card]
    cards_per_player: int
    def __init__(self, num_players: _Optional[int] = ..., target_score: _Optional[int] = ..., queen_breaks_hearts: _Optional[bool] = ..., moon_scoring: _Optional[_Union[MoonScoring, str]] = ..., omnibus: _Optional[bool] = ..., tie_rule: _Optional[_Union[TieRule, str]] = ..., points_on_first_trick: _Optional[bool] = ..., removed_cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., cards_per_player: _Optional[int] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("move_time_ms", "time_bank_ms")
    MOVE_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    move_time_ms: int
    time_bank_ms: int
    def __init__(self, move_time_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class HandshakeRequest(_message.Message):
    __slots__ = ("protocol_version", "referee_version")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    REFEREE_VERSION_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    referee_version: str
    def __init__(self, protocol_version: _Optional[int] = ..., referee_version: _Optional[str] = ...) -> None: ...

class HandshakeResponse(_message.Message):
    __slots__ = ("name", "version", "author", "protocol_version", "language")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    author: str
    protocol_version: int
    language: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., author: _Optional[str] = ..., protocol_version: _Optional[int] = ..., language: _Optional[str] = ...) -> None: ...

class PlayerInfo(_message.Message):
    __slots__ = ("seat", "name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...

class StartGameRequest(_message.Message):
    __slots__ = ("game_id", "seat", "players", "rules")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    players: _containers.RepeatedCompositeFieldContainer[PlayerInfo]
    rules: Rules
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[_Iterable[_Union[PlayerInfo, _Mapping]]] = ..., rules: _Optional[_Union[Rules, _Mapping]] = ...) -> None: ...

class StartGameResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DealHandRequest(_message.Message):
    __slots__ = ("game_id", "seat", "hand_number", "hand", "pass_direction", "pass_to", "scores")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    PASS_DIRECTION_FIELD_NUMBER: _ClassVar[int]
    PASS_TO_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    hand_number: int
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    pass_direction: PassDirection
    pass_to: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., hand_number: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., pass_direction: _Optional[_Union[PassDirection, str]] = ..., pass_to: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class DealHandResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Play(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: Card
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[Card, _Mapping]] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("leader", "plays", "winner", "points")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    leader: int
    plays: _containers.RepeatedCompositeFieldContainer[Play]
    winner: int
    points: int
    def __init__(self, leader: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[Play, _Mapping]]] = ..., winner: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class PassCardsRequest(_message.Message):
    __slots__ = ("game_id", "seat", "decision_id", "clock", "hand_number", "pass_direction", "pass_to", "hand", "scores", "count", "rules")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    PASS_DIRECTION_FIELD_NUMBER: _ClassVar[int]
    PASS_TO_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    decision_id: str
    clock: Clock
    hand_number: int
    pass_direction: PassDirection
    pass_to: int
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    scores: _containers.RepeatedScalarFieldContainer[int]
    count: int
    rules: Rules
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., decision_id: _Optional[str] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., hand_number: _Optional[int] = ..., pass_direction: _Optional[_Union[PassDirection, str]] = ..., pass_to: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., scores: _Optional[_Iterable[int]] = ..., count: _Optional[int] = ..., rules: _Optional[_Union[Rules, _Mapping]] = ...) -> None: ...

class PassCardsResponse(_message.Message):
    __slots__ = ("cards", "note")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    note: str
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., note: _Optional[str] = ...) -> None: ...

class PlayCardRequest(_message.Message):
    __slots__ = ("game_id", "seat", "decision_id", "clock", "hand_number", "trick_number", "hand", "passed", "received", "pass_to", "pass_direction", "tricks", "current_trick", "points_taken", "scores", "hearts_broken", "legal_moves", "rules")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TRICK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_FIELD_NUMBER: _ClassVar[int]
    PASS_TO_FIELD_NUMBER: _ClassVar[int]
    PASS_DIRECTION_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_TRICK_FIELD_NUMBER: _ClassVar[int]
    POINTS_TAKEN_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HEARTS_BROKEN_FIELD_NUMBER: _ClassVar[int]
    LEGAL_MOVES_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    decision_id: str
    clock: Clock
    hand_number: int
    trick_number: int
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    passed: _containers.RepeatedCompositeFieldContainer[Card]
    received: _containers.RepeatedCompositeFieldContainer[Card]
    pass_to: int
    pass_direction: PassDirection
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    current_trick: Trick
    points_taken: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    hearts_broken: bool
    legal_moves: _containers.RepeatedCompositeFieldContainer[Card]
    rules: Rules
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., decision_id: _Optional[str] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., hand_number: _Optional[int] = ..., trick_number: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., passed: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., received: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., pass_to: _Optional[int] = ..., pass_direction: _Optional[_Union[PassDirection, str]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., current_trick: _Optional[_Union[Trick, _Mapping]] = ..., points_taken: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., hearts_broken: _Optional[bool] = ..., legal_moves: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., rules: _Optional[_Union[Rules, _Mapping]] = ...) -> None: ...

class PlayCardResponse(_message.Message):
    __slots__ = ("card", "note")
    CARD_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    card: Card
    note: str
    def __init__(self, card: _Optional[_Union[Card, _Mapping]] = ..., note: _Optional[str] = ...) -> None: ...

class ChooseMoonScoringRequest(_message.Message):
    __slots__ = ("game_id", "seat", "decision_id", "clock", "hand_number", "scores", "rules")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    decision_id: str
    clock: Clock
    hand_number: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    rules: Rules
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., decision_id: _Optional[str] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., hand_number: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., rules: _Optional[_Union[Rules, _Mapping]] = ...) -> None: ...

class ChooseMoonScoringResponse(_message.Message):
    __slots__ = ("choice", "note")
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    choice: MoonScoring
    note: str
    def __init__(self, choice: _Optional[_Union[MoonScoring, str]] = ..., note: _Optional[str] = ...) -> None: ...

class EndHandRequest(_message.Message):
    __slots__ = ("game_id", "seat", "hand_number", "hand_scores", "moon_shooter", "scores", "tricks")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HAND_SCORES_FIELD_NUMBER: _ClassVar[int]
    MOON_SHOOTER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    hand_number: int
    hand_scores: _containers.RepeatedScalarFieldContainer[int]
    moon_shooter: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., hand_number: _Optional[int] = ..., hand_scores: _Optional[_Iterable[int]] = ..., moon_shooter: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ...) -> None: ...

class EndHandResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EndGameRequest(_message.Message):
    __slots__ = ("game_id", "seat", "scores", "placements", "forfeited")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    placements: _containers.RepeatedScalarFieldContainer[int]
    forfeited: bool
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., placements: _Optional[_Iterable[int]] = ..., forfeited: _Optional[bool] = ...) -> None: ...

class EndGameResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
