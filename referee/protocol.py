"""Conversions between the engine's values and the hearts.v1 protocol messages.

This is the only module that knows both sides. Answers from bots are parsed
strictly: an unset or unknown enum value is a :class:`MalformedAnswer`, never
a guess.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from referee.engine import (
    Card,
    CardSet,
    HandResult,
    MoonScoring,
    Outcome,
    PassDirection,
    Rules,
    SeatView,
    TieRule,
    Trick,
    card_list,
)
from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.safetext import NOTE_CHARS, shown_note

__all__ = [
    "NOTE_CHARS",
    "PROTOCOL_VERSION",
    "MalformedAnswer",
    "card_from_pb",
    "card_to_pb",
    "cards_from_pb",
    "cards_to_pb",
    "deal_hand_request",
    "end_game_request",
    "end_hand_request",
    "moon_choice_from_pb",
    "moon_scoring_request",
    "note_from_pb",
    "pass_request",
    "play_request",
    "play_request_bytes",
    "rules_to_pb",
    "start_game_request",
    "view_from_play_request",
]

#: The protocol version this referee speaks (hearts.v1).
PROTOCOL_VERSION = 1


class MalformedAnswer(ValueError):
    """A bot's answer that is not a valid message of its kind."""


def note_from_pb(note: str) -> str | None:
    """A decision answer's ``note`` as recorded: None when empty, else :func:`printable`
    (control and bidi characters escaped), cut to :data:`NOTE_CHARS`.

    A note is the bot's own text for its author; it never changes the game.

    >>> note_from_pb("")
    >>> note_from_pb("duck\\n\x1b[31m")
    'duck\\\\n\\\\x1b[31m'
    >>> len(note_from_pb("x" * 500))
    200
    """
    return shown_note(note) if note else None


# The engine's suits are 0..3 in the order clubs, diamonds, hearts, spades; the
# protocol's are 1..4 in the same order (0 is SUIT_UNSPECIFIED).
_PB_CARDS = [pb.Card(suit=c // 13 + 1, rank=c % 13 + 2) for c in range(52)]

_DIRECTION_TO_PB = {
    PassDirection.LEFT: pb.PASS_DIRECTION_LEFT,
    PassDirection.RIGHT: pb.PASS_DIRECTION_RIGHT,
    PassDirection.ACROSS: pb.PASS_DIRECTION_ACROSS,
    PassDirection.HOLD: pb.PASS_DIRECTION_HOLD,
}
_DIRECTION_FROM_PB = {v: k for k, v in _DIRECTION_TO_PB.items()}
_MOON_TO_PB = {
    MoonScoring.ADD_TO_OTHERS: pb.MOON_SCORING_ADD_TO_OTHERS,
    MoonScoring.SUBTRACT_FROM_SELF: pb.MOON_SCORING_SUBTRACT_FROM_SELF,
    MoonScoring.SHOOTER_CHOOSES: pb.MOON_SCORING_SHOOTER_CHOOSES,
}
_MOON_FROM_PB = {v: k for k, v in _MOON_TO_PB.items()}
_TIE_TO_PB = {
    TieRule.PLAY_ON: pb.TIE_RULE_PLAY_ON,
    TieRule.LAST_HAND: pb.TIE_RULE_LAST_HAND,
    TieRule.SHARE: pb.TIE_RULE_SHARE,
}
_TIE_FROM_PB = {v: k for k, v in _TIE_TO_PB.items()}


def card_to_pb(card: int) -> pb.Card:
    return _PB_CARDS[card]


def cards_to_pb(cards: Iterable[int]) -> list[pb.Card]:
    return [_PB_CARDS[c] for c in cards]


def card_from_pb(card: pb.Card) -> Card:
    """The engine card of a message; an unset or unknown suit or rank is malformed."""
    suit, rank = card.suit, card.rank
    if not 1 <= suit <= 4:
        raise MalformedAnswer(f"card with invalid suit {suit} (expected 1..4)")
    if not 2 <= rank <= 14:
        raise MalformedAnswer(f"card with invalid rank {rank} (expected 2..14)")
    return Card((suit - 1) * 13 + rank - 2)


def cards_from_pb(cards: Iterable[pb.Card]) -> list[Card]:
    return [card_from_pb(c) for c in cards]


def moon_choice_from_pb(choice: int) -> MoonScoring:
    if choice not in (pb.MOON_SCORING_ADD_TO_OTHERS, pb.MOON_SCORING_SUBTRACT_FROM_SELF):
        raise MalformedAnswer(
            f"moon scoring choice {choice} is not ADD_TO_OTHERS (1) or SUBTRACT_FROM_SELF (2)"
        )
    return _MOON_FROM_PB[choice]


def direction_to_pb(direction: PassDirection) -> int:
    return _DIRECTION_TO_PB[direction]


def rules_to_pb(rules: Rules) -> pb.Rules:
    return pb.Rules(
        num_players=rules.num_players,
        target_score=rules.target_score,
        queen_breaks_hearts=rules.queen_breaks_hearts,
        moon_scoring=_MOON_TO_PB[rules.moon_scoring],
        omnibus=rules.omnibus,
        tie_rule=_TIE_TO_PB[rules.tie_rule],
        points_on_first_trick=rules.points_on_first_trick,
        removed_cards=cards_to_pb(rules.removed_cards),
        cards_per_player=rules.cards_per_player,
    )


def rules_from_pb(rules: pb.Rules) -> Rules:
    """The engine's rules a message describes (removed cards and hand size follow from them)."""
    return Rules(
        num_players=rules.num_players,
        target_score=rules.target_score,
        queen_breaks_hearts=rules.queen_breaks_hearts,
        moon_scoring=_MOON_FROM_PB[rules.moon_scoring],
        omnibus=rules.omnibus,
        tie_rule=_TIE_FROM_PB[rules.tie_rule],
        points_on_first_trick=rules.points_on_first_trick,
    )


def trick_to_pb(trick: Trick) -> pb.Trick:
    """The message of a trick: ``winner`` is unset while it is in progress (the engine's -1)."""
    return pb.Trick(
        leader=trick.leader,
        plays=[pb.Play(seat=s, card=_PB_CARDS[c]) for s, c in trick.plays],
        winner=trick.winner if trick.winner >= 0 else None,
        points=trick.points,
    )


#: id(rules) -> (rules, its message, its encoding as PlayCardRequest.rules).
#: A game's requests share one Rules object: looking it up by identity skips
#: hashing the dataclass on every request; holding the object keeps its id
#: from being reused while the entry lives.
_RULES_CACHE: dict[int, tuple[Rules, pb.Rules, bytes]] = {}


def _rules_entry(rules: Rules) -> tuple[Rules, pb.Rules, bytes]:
    entry = _RULES_CACHE.get(id(rules))
    if entry is None or entry[0] is not rules:
        message = rules_to_pb(rules)
        entry = (rules, message, pb.PlayCardRequest(rules=message).SerializeToString())
        if len(_RULES_CACHE) >= 256:
            _RULES_CACHE.clear()
        _RULES_CACHE[id(rules)] = entry
    return entry


def _rules_pb(rules: Rules) -> pb.Rules:
    """The message of a rule set, shared: never modify it."""
    return _rules_entry(rules)[1]


# Building a PlayCardRequest field by field costs more than the gRPC call
# around it (nested messages are copied card by card). Instead, the repeated
# and message fields are concatenated from their serialised encodings (a
# serialised message is the concatenation of its fields; repeated fields
# append in order) and parsed once. Tricks are immutable, so each one is
# encoded once. tests/test_protocol.py checks the result against the
# plain construction.
def _card_fields(name: str) -> list[bytes]:
    return [pb.PlayCardRequest(**{name: [card]}).SerializeToString() for card in _PB_CARDS]


_HAND_FIELD = _card_fields("hand")
_PASSED_FIELD = _card_fields("passed")
_RECEIVED_FIELD = _card_fields("received")
_LEGAL_FIELD = _card_fields("legal_moves")


def _rules_field(rules: Rules) -> bytes:
    """The rules as PlayCardRequest's field ``rules``."""
    return _rules_entry(rules)[2]


@functools.lru_cache(maxsize=8192)
def _trick_pb(trick: Trick) -> pb.Trick:
    """The message of a trick, shared: never modify it."""
    return trick_to_pb(trick)


@functools.lru_cache(maxsize=8192)
def _trick_field(trick: Trick, current: bool) -> bytes:
    """A trick as PlayCardRequest's field ``current_trick`` or one of ``tricks``."""
    if current:
        return pb.PlayCardRequest(current_trick=_trick_pb(trick)).SerializeToString()
    return pb.PlayCardRequest(tricks=[_trick_pb(trick)]).SerializeToString()


#: id(trick) -> (trick, its encoding as one of PlayCardRequest's ``tricks``). A hand's
#: completed tricks are the same objects in every later view of it: looked up by
#: identity, a request skips hashing each trick (its plays, card by card); holding the
#: trick keeps its id from being reused while the entry lives.
_DONE_TRICKS: dict[int, tuple[Trick, bytes]] = {}


def _done_trick_field(trick: Trick) -> bytes:
    entry = _DONE_TRICKS.get(id(trick))
    if entry is None or entry[0] is not trick:
        entry = (trick, _trick_field(trick, False))
        if len(_DONE_TRICKS) >= 8192:
            _DONE_TRICKS.clear()
        _DONE_TRICKS[id(trick)] = entry
    return entry[1]


# The scalar fields of a request, encoded as protobuf does (proto3: a field at its
# default is left out; an int32 below zero is ten bytes, as int64; repeated scalars
# packed), so that a request can be sent as the bytes grpcio would have made of it.
_SMALL_VARINTS = [bytes((n,)) for n in range(128)]


def _varint(value: int) -> bytes:
    if 0 <= value < 128:
        return _SMALL_VARINTS[value]
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _int_field(tag: bytes, value: int) -> bytes:
    return tag + _varint(value) if value else b""


def _text_field(tag: bytes, text: str) -> bytes:
    if not text:
        return b""
    data = text.encode()
    return tag + _varint(len(data)) + data


def _packed_field(tag: bytes, values: Sequence[int]) -> bytes:
    if not values:
        return b""
    if min(values) >= 0 and max(values) < 128:  # each value one byte: the usual scores
        data = bytes(values)
    else:
        data = b"".join([_varint(v) for v in values])
    return tag + _varint(len(data)) + data


def _clock_field(tag: bytes, move_time_ms: int, time_bank_ms: int) -> bytes:
    """A ``Clock`` message field (always present: a message field has presence)."""
    body = _int_field(b"\x08", move_time_ms) + _int_field(b"\x10", time_bank_ms)
    return tag + _varint(len(body)) + body


def trick_from_pb(trick: pb.Trick) -> Trick:
    return Trick(
        trick.leader,
        tuple((p.seat, card_from_pb(p.card)) for p in trick.plays),
        trick.winner if trick.HasField("winner") else -1,
        trick.points,
    )


def start_game_request(
    game_id: str, seat: int, names: Sequence[str], rules: Rules
) -> pb.StartGameRequest:
    return pb.StartGameRequest(
        game_id=game_id,
        seat=seat,
        players=[pb.PlayerInfo(seat=s, name=name) for s, name in enumerate(names)],
        rules=_rules_pb(rules),
    )


def deal_hand_request(game_id: str, view: SeatView) -> pb.DealHandRequest:
    return pb.DealHandRequest(
        game_id=game_id,
        seat=view.seat,
        hand_number=view.hand_number,
        hand=cards_to_pb(view.dealt),
        pass_direction=_DIRECTION_TO_PB[view.pass_direction],
        pass_to=view.pass_to,
        scores=view.scores,
    )


def _clock(move_time_ms: int, time_bank_ms: int) -> pb.Clock:
    return pb.Clock(move_time_ms=move_time_ms, time_bank_ms=time_bank_ms)


def pass_request(
    game_id: str, view: SeatView, decision_id: str, move_time_ms: int, time_bank_ms: int
) -> pb.PassCardsRequest:
    return pb.PassCardsRequest(
        game_id=game_id,
        seat=view.seat,
        decision_id=decision_id,
        clock=_clock(move_time_ms, time_bank_ms),
        hand_number=view.hand_number,
        pass_direction=_DIRECTION_TO_PB[view.pass_direction],
        pass_to=view.pass_to,
        hand=cards_to_pb(view.hand),
        scores=view.scores,
        count=view.rules.pass_count,
        rules=_rules_pb(view.rules),
    )


def play_request(
    game_id: str, view: SeatView, decision_id: str, move_time_ms: int, time_bank_ms: int
) -> pb.PlayCardRequest:
    return pb.PlayCardRequest.FromString(
        play_request_bytes(game_id, view, decision_id, move_time_ms, time_bank_ms)
    )


def play_request_bytes(
    game_id: str, view: SeatView, decision_id: str, move_time_ms: int, time_bank_ms: int
) -> bytes:
    """:func:`play_request`'s message serialised, byte for byte as ``SerializeToString``
    writes it (fields in number order), built without making the message.

    The referee sends these bytes as they are (:class:`~referee.players.remote.BotConnection`):
    building the message, then serialising it in grpcio, cost more than the rest of the
    referee's work on a decision.
    """
    parts = [
        _text_field(b"\x0a", game_id),  # 1 game_id
        _int_field(b"\x10", view.seat),  # 2 seat
        _text_field(b"\x1a", decision_id),  # 3 decision_id
        _clock_field(b"\x22", move_time_ms, time_bank_ms),  # 4 clock
        _int_field(b"\x28", view.hand_number),  # 5 hand_number
        _int_field(b"\x30", view.trick_number),  # 6 trick_number
    ]
    parts += [_HAND_FIELD[c] for c in card_list(view.hand)]  # 7
    if view.passed:
        parts += [_PASSED_FIELD[c] for c in card_list(view.passed)]  # 8
    if view.received:
        parts += [_RECEIVED_FIELD[c] for c in card_list(view.received)]  # 9
    parts.append(_int_field(b"\x50", view.pass_to))  # 10 pass_to
    parts.append(_int_field(b"\x58", _DIRECTION_TO_PB[view.pass_direction]))  # 11
    done = _DONE_TRICKS
    parts += [  # 12 tricks (the lookup of _done_trick_field inlined: up to 12 a request)
        entry[1]
        if (entry := done.get(id(t))) is not None and entry[0] is t
        else _done_trick_field(t)
        for t in view.tricks
    ]
    parts.append(_trick_field(view.current_trick, True))  # 13 current_trick
    parts.append(_packed_field(b"\x72", view.points_taken))  # 14 points_taken
    parts.append(_packed_field(b"\x7a", view.scores))  # 15 scores
    if view.hearts_broken:
        parts.append(b"\x80\x01\x01")  # 16 hearts_broken (a two-byte tag)
    parts += [_LEGAL_FIELD[c] for c in card_list(view.legal_moves)]  # 17 legal_moves
    parts.append(_rules_field(view.rules))  # 18 rules
    return b"".join(parts)


def moon_scoring_request(
    game_id: str, view: SeatView, decision_id: str, move_time_ms: int, time_bank_ms: int
) -> pb.ChooseMoonScoringRequest:
    return pb.ChooseMoonScoringRequest(
        game_id=game_id,
        seat=view.seat,
        decision_id=decision_id,
        clock=_clock(move_time_ms, time_bank_ms),
        hand_number=view.hand_number,
        scores=view.scores,
        rules=_rules_pb(view.rules),
    )


def end_hand_request(game_id: str, seat: int, result: HandResult) -> pb.EndHandRequest:
    return pb.EndHandRequest(
        game_id=game_id,
        seat=seat,
        hand_number=result.hand_number,
        hand_scores=result.scores,
        moon_shooter=result.moon_shooter,
        scores=result.totals,
        tricks=[_trick_pb(t) for t in result.tricks],
    )


def end_game_request(
    game_id: str, seat: int, outcome: Outcome, forfeited: bool
) -> pb.EndGameRequest:
    return pb.EndGameRequest(
        game_id=game_id,
        seat=seat,
        scores=outcome.scores,
        placements=outcome.placements,
        forfeited=forfeited,
    )


def _dealt_cards(request: pb.PlayCardRequest) -> CardSet:
    """A seat's dealt cards: held now or played, plus passed, minus received."""
    played = [p.card for t in request.tricks for p in t.plays if p.seat == request.seat]
    played += [p.card for p in request.current_trick.plays if p.seat == request.seat]
    now = CardSet.of(cards_from_pb([*request.hand, *played, *request.passed]))
    return CardSet(now & ~CardSet.of(cards_from_pb(request.received)))


def view_from_play_request(request: pb.PlayCardRequest, rules: Rules | None = None) -> SeatView:
    """The engine view a PlayCardRequest describes (for Python bots).

    The rules are the request's own (``request.rules``) unless ``rules`` is
    given.
    """
    from referee.engine import Phase

    return SeatView(
        seat=request.seat,
        rules=rules_from_pb(request.rules) if rules is None else rules,
        phase=Phase.PLAYING,
        hand_number=request.hand_number,
        trick_number=request.trick_number,
        hand=CardSet.of(cards_from_pb(request.hand)),
        dealt=_dealt_cards(request),
        pass_direction=_DIRECTION_FROM_PB.get(request.pass_direction, PassDirection.HOLD),
        pass_to=request.pass_to,
        passed=CardSet.of(cards_from_pb(request.passed)),
        received=CardSet.of(cards_from_pb(request.received)),
        tricks=tuple(trick_from_pb(t) for t in request.tricks),
        current_trick=trick_from_pb(request.current_trick),
        points_taken=tuple(request.points_taken),
        scores=tuple(request.scores),
        hearts_broken=request.hearts_broken,
        legal_moves=CardSet.of(cards_from_pb(request.legal_moves)),
    )
