"""docs/protocol.md agrees with the .proto: the JSON names grpcurl users see."""

from __future__ import annotations

import pathlib
import re

from referee.pb.hearts.v1 import hearts_pb2 as pb

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "protocol.md"


def _fields() -> list[tuple[str, str, str]]:
    """(message, proto name, JSON name) of every field of hearts.v1."""
    return [
        (message.name, field.name, field.json_name)
        for message in pb.DESCRIPTOR.message_types_by_name.values()
        for field in message.fields
    ]


def test_the_json_names_table_is_the_protos() -> None:
    text = DOC.read_text()
    block = re.search(r"<!-- json-names:.*?-->\n(.*?)<!-- /json-names -->", text, re.S)
    assert block, "docs/protocol.md lost its json-names table"
    rows = re.findall(r"^\| `(\w+)` \| `(\w+)` \|$", block.group(1), re.M)
    differing = {(name, json) for _, name, json in _fields() if name != json}
    assert sorted(rows) == sorted(differing), (
        "the JSON names table of docs/protocol.md differs from hearts.proto"
    )


def test_one_name_per_field_name() -> None:
    """A field name means one thing everywhere: the same JSON name, and the pass fields agree."""
    json_of: dict[str, set[str]] = {}
    for _, name, json in _fields():
        json_of.setdefault(name, set()).add(json)
    assert all(len(v) == 1 for v in json_of.values())
    names = {name for _, name, _ in _fields()}
    assert {"pass_direction", "pass_to"} <= names
    assert not names & {"direction", "passed_to"}


def test_every_decision_request_carries_the_rules() -> None:
    for request in (pb.PassCardsRequest, pb.PlayCardRequest, pb.ChooseMoonScoringRequest):
        field = request.DESCRIPTOR.fields_by_name["rules"]
        assert field.message_type is pb.Rules.DESCRIPTOR


def test_absent_seats_have_presence() -> None:
    """No -1 sentinels: the seat fields that may be absent are optional."""
    for message, name in ((pb.Trick, "winner"), (pb.EndHandRequest, "moon_shooter")):
        assert message.DESCRIPTOR.fields_by_name[name].has_presence
