"""Protocol stability: no new exception to buf's breaking-change rules, and a changelog.

A rename in hearts.v1 (``PassCardsRequest.direction`` -> ``pass_direction``)
broke a real outside bot written against the first stubs: its pass answers
became ``rpc_error`` faults in every hand. buf calls a rename breaking; the
rename got in through an exception in ``buf.yaml``. From now on that list is
frozen here, exactly as it is: a new exception fails
:func:`test_the_breaking_exceptions_never_grow`, so a breaking change can no
longer land unnoticed. docs/protocol.md names the break and its fix, and
:func:`test_the_rename_broke_old_bots_and_the_fix_mends_them` plays both bots.
"""

from __future__ import annotations

import pathlib

import yaml

from referee.botkit import Bot, make_server, pb
from referee.match.gamelog import read_log
from referee.match.runner import GameSpec, play_game
from referee.players.builtin import RandomPlayer
from referee.players.policy import FaultPolicy, TimeControl
from referee.players.remote import BotConnection, RemotePlayer
from tests.test_proto_lint import BREAKING_EXCEPTIONS, PROTO, RECORDED_CHANGES

ROOT = pathlib.Path(__file__).resolve().parent.parent

#: buf.yaml's breaking-change exceptions, frozen: rule -> the files exempt from it.
FROZEN_EXCEPTIONS = {
    "FIELD_SAME_NAME": ["proto/hearts/v1/hearts.proto"],
    "FIELD_SAME_JSON_NAME": ["proto/hearts/v1/hearts.proto"],
    "FIELD_SAME_CARDINALITY": ["proto/hearts/v1/hearts.proto"],
}
#: The changes they were made for (tests/test_proto_lint.py's RECORDED_CHANGES), frozen too.
FROZEN_CHANGES = 4


def test_the_breaking_exceptions_never_grow():
    breaking = yaml.safe_load((ROOT / "buf.yaml").read_text())["breaking"]
    assert breaking["use"] == ["FILE"]
    exceptions = breaking.get("ignore_only", {})
    assert set(breaking) <= {"use", "ignore_only"}, "no `ignore` list: every file is checked"
    assert exceptions == FROZEN_EXCEPTIONS, (
        "buf.yaml's breaking-change exceptions changed: hearts.v1 admits no new breaking "
        "change (every bot carries its own copy of the proto); add a field instead"
    )
    assert len(RECORDED_CHANGES) == FROZEN_CHANGES
    assert {rule: [PROTO] for rule in BREAKING_EXCEPTIONS} == FROZEN_EXCEPTIONS


def test_the_changelog_names_the_rename_and_its_fix():
    text = (ROOT / "docs" / "protocol.md").read_text()
    log = text[text.index("### Changelog") :]
    log = log[: log.index("\n## ")]
    assert "`PassCardsRequest.direction` became `pass_direction`" in log
    assert "rpc_error" in log
    assert "read\n  `request.pass_direction` instead of `request.direction`" in log
    assert "`referee.botkit`" in log


class _FirstStubsBot(Bot):
    """A bot written against the first stubs: it reads the pass's ``direction``."""

    name = "first-stubs"

    def pass_cards(self, request):
        request.direction  # noqa: B018 (the first hearts.v1's name: AttributeError now)
        return list(request.hand)[: request.count]

    def play_card(self, request):
        return request.legal_moves[0]


class _FixedBot(_FirstStubsBot):
    """The same bot after the one-line fix of docs/protocol.md."""

    def pass_cards(self, request):
        assert request.pass_direction != pb.PASS_DIRECTION_UNSPECIFIED
        return list(request.hand)[: request.count]


def _passes_of(bot: Bot, tmp_path: pathlib.Path) -> list[dict]:
    server, port = make_server(bot, "127.0.0.1:0")
    connection = BotConnection(f"127.0.0.1:{port}")
    try:
        players = [RemotePlayer(connection), RandomPlayer(), RandomPlayer(), RandomPlayer()]
        spec = GameSpec(
            game_id="rename",
            seed=4,
            bots=("bot", "r1", "r2", "r3"),
            time_control=TimeControl(move_time_ms=2000),
            fault_policy=FaultPolicy(max_faults=0),  # never forfeit: every pass is asked
        )
        log = tmp_path / f"{bot.name}.jsonl"
        play_game(spec, players, log)
    finally:
        connection.close()
        server.stop(0)
    return [r for _, r in read_log(log) if r["type"] == "pass" and r["seat"] == 0]


def test_the_rename_broke_old_bots_and_the_fix_mends_them(tmp_path: pathlib.Path):
    broken = _passes_of(_FirstStubsBot(), tmp_path)
    assert broken and all(r["fault"]["kind"] == "rpc_error" for r in broken)
    fixed = _passes_of(_FixedBot(), tmp_path)
    assert fixed and all("fault" not in r and r["source"] == "bot" for r in fixed)
