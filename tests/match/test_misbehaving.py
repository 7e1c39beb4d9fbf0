"""Misbehaving bots as real gRPC servers: every game completes and every fault is recorded.

The misbehaving bot (tests/match/bots/misbehaving.py) is served in-process on
port 0 for the faults of an answer, and launched as a process by the referee
for the faults of a process (crash, restart, never serving, a bad handshake).
The other seats are built-in random bots, so the games are quick.
"""

from __future__ import annotations

import os
import pathlib
import random
from collections.abc import Iterator
from typing import Any

import pytest

from referee.audit.replay import load_game, state_at
from referee.engine import (
    ActionError,
    Card,
    GameState,
    MoonScoring,
    PassDirection,
    Play,
    Rules,
    card_list,
    parse_cards,
)
from referee.players import BotFault, FaultKind, builtin_player
from referee.players.policy import FaultPolicy, TimeControl
from referee.players.specs import parse_bot
from referee.players.supply import DeadPlayer
from referee.sandbox import procfs
from tests.match.bots import misbehaving
from tests.match.conftest import (
    assert_no_process_left,
    decisions_of,
    faulted,
    misbehaving_command,
    play,
)

SMALL = FaultPolicy(max_faults=5, max_restarts=2, max_message_bytes=4096)
RELAXED = TimeControl(move_time_ms=2000, notify_timeout_ms=2000)


@pytest.fixture()
def serve(make_pool) -> Iterator[Any]:
    """Start an in-process misbehaving bot; returns (player, bot)."""
    servers = []

    def start(
        *args: str,
        time_control: TimeControl = RELAXED,
        fault_policy: FaultPolicy = SMALL,
    ) -> tuple[Any, misbehaving.MisbehavingBot]:
        server, port, bot = misbehaving.start_in_process(*args)
        servers.append(server)
        pool = make_pool(time_control, fault_policy)
        return pool.start(parse_bot(f"127.0.0.1:{port}")), bot

    yield start
    for server in servers:
        server.stop(None)


def randoms(n: int = 3) -> list[Any]:
    return [builtin_player("random") for _ in range(n)]


def fallback_play(seed: int, record: dict[str, Any]) -> str:
    rng = random.Random(f"fallback/{seed}/{record['decision']}")
    return rng.choice(parse_cards(" ".join(record["legal"]))).__str__()


def fallback_pass(seed: int, record: dict[str, Any], records: list[dict[str, Any]]) -> list[str]:
    deal = next(r for r in records if r["type"] == "deal" and r["hand"] == record["hand"])
    hand = parse_cards(" ".join(deal["hands"][record["seat"]]))
    rng = random.Random(f"fallback/{seed}/{record['decision']}")
    return [str(c) for c in sorted(rng.sample(hand, 3))]


# Faults of an answer ---------------------------------------------------------------

ANSWER_FAULTS = [
    # (bot options, fault kind, decision type, how many)
    (["--fault", "illegal", "--on", "play", "--times", "2"], "illegal_card", "play", 2),
    (["--fault", "not_held", "--on", "play", "--after", "2"], "card_not_held", "play", 1),
    (["--fault", "not_held", "--on", "pass"], "card_not_held", "pass", 1),
    (["--fault", "pass_size", "--on", "pass"], "wrong_pass_size", "pass", 1),
    (["--fault", "duplicate", "--on", "pass"], "duplicate_cards", "pass", 1),
    (["--fault", "bad_enum", "--on", "play"], "malformed", "play", 1),
    (["--fault", "bad_enum", "--on", "pass"], "malformed", "pass", 1),
    (["--fault", "unset", "--on", "play", "--after", "1"], "malformed", "play", 1),
    (["--fault", "unset", "--on", "pass"], "malformed", "pass", 1),
    (["--fault", "raise", "--on", "play", "--after", "3"], "rpc_error", "play", 1),
    (["--fault", "raise", "--on", "pass"], "rpc_error", "pass", 1),
    (["--fault", "huge", "--on", "pass"], "oversized", "pass", 1),
]


@pytest.mark.parametrize(("args", "kind", "decision", "count"), ANSWER_FAULTS)
def test_answer_fault(tmp_path: pathlib.Path, serve, args, kind, decision, count) -> None:
    player, bot = serve(*args)
    record, records = play(
        tmp_path, [player, *randoms()], time_control=RELAXED, fault_policy=SMALL, seed=4
    )
    assert record.faults == ({kind: count}, {}, {}, {})
    assert record.forfeited == (False,) * 4
    bad = faulted(records, 0)
    assert len(bad) == count
    for r in bad:
        assert r["type"] == decision
        assert r["fault"]["kind"] == kind
        assert r["fault"]["message"]
        assert r["source"] == "fallback"
        if decision == "play":
            assert r["card"] == fallback_play(4, r)
        else:
            assert r["cards"] == fallback_pass(4, r, records)
        if kind in ("illegal_card", "card_not_held", "wrong_pass_size", "duplicate_cards"):
            assert "answer" in r
    # The bot is still asked after its faults, and its good answers are taken.
    asked = decisions_of(records, 0, "play")
    assert asked[-1]["source"] == "bot"
    assert len(bot.requests["PlayCard"]) == len(asked)
    assert len(bot.requests["EndGame"]) == 1


def test_illegal_answer_is_recorded(tmp_path: pathlib.Path, serve) -> None:
    player, _ = serve("--fault", "illegal", "--on", "play")
    record, records = play(tmp_path, [player, *randoms()], time_control=RELAXED)
    (bad,) = faulted(records, 0)
    assert bad["answer"] not in bad["legal"]
    assert bad["card"] in bad["legal"]
    # The refusal is the engine's for the position replayed from the log: its legal cards,
    # and the rule its cascade says restricts them (R4 here: seat 0 held clubs, led to it).
    game = load_game(record.log_path)
    (trick,) = [
        t
        for h in game.hands
        if h.number == bad["hand"]
        for t in h.tricks
        if t.number == bad["trick"]
    ]
    state = state_at(game, bad["hand"], bad["trick"], [p.seat for p in trick.plays].index(0))
    found = state.legal_case()
    assert found is not None and found[0].rule == "R4", found
    assert bad["legal"] == [str(c) for c in card_list(found[1])]
    with pytest.raises(ActionError) as refused:
        state.apply(Play(0, Card.parse(bad["answer"])))
    assert bad["fault"]["message"] == str(refused.value) == "must follow suit: clubs (R4)"


# The clock tests leave a second or more on each side of every deadline: a prompt answer
# has over a second to spare, a late one comes a second or more after the deadline, and a
# measured time is asserted a second or more from where it could fail to be.


def test_timeout(tmp_path: pathlib.Path, serve) -> None:
    tc = TimeControl(move_time_ms=1500, grace_ms=500)  # the deadline: 2 s
    player, _ = serve(
        "--fault", "sleep", "--sleep-ms", "4000", "--on", "play", "--after", "1", time_control=tc
    )
    record, records = play(tmp_path, [player, *randoms()], time_control=tc)
    assert record.faults[0] == {"timeout": 1}
    (bad,) = faulted(records, 0)
    assert bad["fault"]["kind"] == "timeout"
    assert 1900 <= bad["ms"] < 3000  # abandoned at the deadline, not when the bot answered
    assert bad["card"] == fallback_play(1, bad)


def test_time_bank_pays_for_an_overrun(tmp_path: pathlib.Path, serve) -> None:
    # 2.5 s against a 1 s move time: 1.5 s from the 3 s bank, 2 s before the deadline (4.5 s).
    tc = TimeControl(move_time_ms=1000, time_bank_ms=3000, grace_ms=500)
    player, bot = serve(
        "--fault", "sleep", "--sleep-ms", "2500", "--on", "play", "--after", "1", time_control=tc
    )
    record, records = play(tmp_path, [player, *randoms()], time_control=tc)
    assert record.faults[0] == {}
    plays = decisions_of(records, 0, "play")
    first, slow, after = plays[0], plays[1], plays[2:]
    assert first["bank_ms"] == 3000
    assert slow["source"] == "bot" and 2500 <= slow["ms"] < 3500
    assert slow["bank_ms"] == 3000 - round(slow["ms"] - 1000)
    assert slow["bank_ms"] < 3000 - 1000  # the bank did pay (at least the 1.5 s overrun)
    assert all(r["bank_ms"] == slow["bank_ms"] for r in after if r["ms"] <= 1000)
    # The bot is told what is left of its bank.
    clocks = [r.clock for r in bot.requests["PlayCard"]]
    assert clocks[0].move_time_ms == 1000 and clocks[0].time_bank_ms == 3000
    assert clocks[1].time_bank_ms == 3000
    assert clocks[2].time_bank_ms == slow["bank_ms"]


def test_time_bank_overdrawn_is_a_timeout(tmp_path: pathlib.Path, serve) -> None:
    tc = TimeControl(move_time_ms=1000, time_bank_ms=1000, grace_ms=500)  # the deadline: 2.5 s
    player, bot = serve(
        "--fault", "sleep", "--sleep-ms", "4500", "--on", "play", "--after", "1", time_control=tc
    )
    record, records = play(tmp_path, [player, *randoms()], time_control=tc)
    assert record.faults[0] == {"timeout": 1}
    (bad,) = faulted(records, 0)
    assert 2400 <= bad["ms"] < 3500  # move time + bank + grace
    assert bad["bank_ms"] == 0
    assert bot.requests["PlayCard"][2].clock.time_bank_ms == 0


def test_forfeit_after_max_faults(tmp_path: pathlib.Path, serve) -> None:
    policy = FaultPolicy(max_faults=3, max_message_bytes=4096)
    player, bot = serve("--fault", "illegal", "--on", "play", "--times", "0", fault_policy=policy)
    record, records = play(
        tmp_path, [player, *randoms()], fault_policy=policy, time_control=RELAXED
    )
    assert record.faults[0] == {"illegal_card": 3}
    assert record.forfeited == (True, False, False, False)
    (forfeit,) = [r for r in records if r["type"] == "forfeit"]
    assert forfeit["seat"] == 0 and forfeit["faults"] == 3
    # The forfeit is written as the third fault is counted, just before the
    # record of the decision that had it; after that the seat is not asked.
    at = records.index(forfeit)
    trigger = records[at + 1]
    assert trigger["seat"] == 0 and trigger["fault"]["kind"] == "illegal_card"
    later = [r for r in records[at + 2 :] if r["type"] in ("pass", "play") and r["seat"] == 0]
    assert later and all(r["source"] == "fallback" and "fault" not in r for r in later)
    # The forfeited seat is not asked again; it is told that it forfeited.
    asked = [r for r in decisions_of(records, 0) if r not in later]
    assert len(bot.requests["PlayCard"]) + len(bot.requests.get("PassCards", [])) == len(asked)
    (end,) = bot.requests["EndGame"]
    assert end.forfeited


def test_unknown_enum_in_an_answer(tmp_path: pathlib.Path, serve) -> None:
    player, _ = serve("--fault", "bad_enum", "--on", "play")
    _, records = play(tmp_path, [player, *randoms()], time_control=RELAXED)
    (bad,) = faulted(records, 0)
    assert "suit 9" in bad["fault"]["message"]


def test_oversized_answer(tmp_path: pathlib.Path, serve) -> None:
    player, _ = serve("--fault", "huge", "--on", "pass")
    _, records = play(tmp_path, [player, *randoms()], time_control=RELAXED)
    (bad,) = faulted(records, 0)
    assert bad["fault"]["kind"] == "oversized"
    assert "4096" in bad["fault"]["message"]


# Handshake -----------------------------------------------------------------------


def test_wrong_protocol_version_is_refused(make_pool) -> None:
    server, port, _ = misbehaving.start_in_process("--protocol-version", "2")
    try:
        pool = make_pool()
        spec = parse_bot(f"127.0.0.1:{port}")
        with pytest.raises(BotFault) as caught:
            pool.start(spec)
        assert caught.value.kind == FaultKind.HANDSHAKE
        assert "protocol version 2" in caught.value.message
        stand_in = pool.start_or_stand_in(spec)
        assert isinstance(stand_in, DeadPlayer)
        assert "protocol version 2" in pool.failures[spec.name]
    finally:
        server.stop(None)


# The moon choice (V2 shooter_chooses) ---------------------------------------------

# Seat 0 holds the top card of every suit it can lead, so a greedy bot (always
# the highest legal card) takes all 13 tricks: a moon in hand 1.
MOON_HANDS = [
    "AC AD AS KS QS AH KH QH JH TH 9H 8H 7H",
    "2C 3C 4C 5C 6C 7C 8C 2D 3D 4D 5D 2H 3H",
    "9C TC JC QC KC 6D 7D 8D 9D TD 4H 5H 6H",
    "JD QD KD 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
]


@pytest.fixture()
def rigged_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hand 1 of every game is MOON_HANDS (a hold hand); later hands are dealt as usual."""
    import referee.match.runner

    class Rigged:
        @staticmethod
        def new(rules: Rules, seed: Any) -> GameState:
            return GameState.from_hands(
                MOON_HANDS, rules, pass_direction=PassDirection.HOLD, seed=seed
            )

    monkeypatch.setattr(referee.match.runner, "GameState", Rigged)


MOON_RULES = Rules(target_score=26, moon_scoring=MoonScoring.SHOOTER_CHOOSES)


def _moon_game(tmp_path: pathlib.Path, serve, *args: str) -> tuple[Any, list[dict[str, Any]]]:
    player, _ = serve("--strategy", "greedy", *args)
    spec_rules = MOON_RULES
    from referee.match.runner import GameSpec, play_game

    spec = GameSpec(
        game_id="moon",
        seed=2,
        bots=("shooter", "r1", "r2", "r3"),
        rules=spec_rules,
        time_control=RELAXED,
        fault_policy=SMALL,
    )
    record = play_game(spec, [player, *randoms()], tmp_path / "moon.jsonl")
    from tests.match.conftest import load

    records = load(record.log_path)
    assert records[-1]["type"] == "game_end"
    (end,) = [r for r in records if r["type"] == "hand_end" and r["hand"] == 1]
    assert end["moon_shooter"] == 0
    return record, records


def test_unimplemented_moon_choice_gets_the_default(tmp_path, serve, rigged_deal) -> None:
    record, records = _moon_game(tmp_path, serve, "--no-moon-rpc")
    (choice,) = [r for r in records if r["type"] == "moon_choice"]
    assert choice["seat"] == 0
    assert choice["choice"] == "add_to_others"
    assert "fault" not in choice
    assert record.faults[0] == {}
    assert record.hand_scores[0] == (0, 26, 26, 26)


def test_moon_choice_of_the_bot(tmp_path, serve, rigged_deal) -> None:
    record, records = _moon_game(tmp_path, serve)  # answers subtract_from_self
    choice = next(r for r in records if r["type"] == "moon_choice")
    assert (choice["choice"], choice["source"]) == ("subtract_from_self", "bot")
    assert record.hand_scores[0] == (-26, 0, 0, 0)
    assert record.faults[0] == {}


def test_malformed_moon_choice(tmp_path, serve, rigged_deal) -> None:
    record, records = _moon_game(tmp_path, serve, "--fault", "bad_moon", "--on", "moon")
    choice = next(r for r in records if r["type"] == "moon_choice")
    assert (choice["choice"], choice["source"]) == ("add_to_others", "fallback")
    assert choice["fault"]["kind"] == "malformed"
    assert record.faults[0] == {"malformed": 1}


def test_moon_choice_error(tmp_path, serve, rigged_deal) -> None:
    record, records = _moon_game(tmp_path, serve, "--fault", "raise", "--on", "moon")
    choice = next(r for r in records if r["type"] == "moon_choice")
    assert (choice["choice"], choice["source"]) == ("add_to_others", "fallback")
    assert record.faults[0] == {"rpc_error": 1}


# Faults of a process (launched bots) -----------------------------------------------


def test_launched_bot_answer_faults(tmp_path, make_pool, launched_pids) -> None:
    tc = TimeControl(move_time_ms=1500, grace_ms=500, notify_timeout_ms=3000)  # deadline 2 s
    pool = make_pool(tc, SMALL)
    player = pool.start(
        parse_bot(misbehaving_command("--fault", "sleep", "--sleep-ms", "3500", "--after", "2"))
    )
    record, _ = play(tmp_path, [player, *randoms()], time_control=tc, fault_policy=SMALL)
    assert record.faults[0] == {"timeout": 1}
    assert pool.restarts() == {"misbehaving": 0}


def test_crash_and_restart(tmp_path, make_pool, launched_pids) -> None:
    once = tmp_path / "crashed-once"
    # Unsandboxed: the bot marks its crash in a file outside its folder, to crash only once.
    pool = make_pool(RELAXED, FaultPolicy(max_restarts=2, max_faults=5), sandbox="none")
    player = pool.start(
        parse_bot(misbehaving_command("--fault", "exit", "--after", "3", "--once-file", str(once)))
    )
    record, records = play(tmp_path, [player, *randoms()], time_control=RELAXED)
    assert once.exists()
    assert record.faults[0] == {"crash": 1}
    (bad,) = faulted(records, 0)
    assert "restarted (1 of 2)" in bad["fault"]["message"]
    assert "exited with code 3" in bad["fault"]["message"]
    assert decisions_of(records, 0, "play")[-1]["source"] == "bot"
    assert pool.restarts() == {"misbehaving": 1}
    assert len(launched_pids) == 2
    pool.close()
    assert_no_process_left(launched_pids)


def test_crash_for_good_forfeits(tmp_path, make_pool, launched_pids) -> None:
    policy = FaultPolicy(max_restarts=1, max_faults=3)
    pool = make_pool(RELAXED, policy)
    player = pool.start(parse_bot(misbehaving_command("--fault", "exit", "--after", "2")))
    record, records = play(
        tmp_path, [player, *randoms()], time_control=RELAXED, fault_policy=policy
    )
    assert record.faults[0] == {"crash": 3}
    assert record.forfeited[0]
    messages = [r["fault"]["message"] for r in faulted(records, 0)] + [
        r["message"] for r in records if r["type"] == "fault"
    ]
    assert any("no restarts left" in m for m in messages)
    assert pool.restarts() == {"misbehaving": 1}
    assert len(launched_pids) == 2
    pool.close()
    assert_no_process_left(launched_pids)


def test_crash_leaves_no_child_behind(tmp_path, make_pool, launched_pids) -> None:
    pids = tmp_path / "pids"
    # Unsandboxed, so that the bot can write its pids where the test reads them (a sandboxed
    # bot's children die with its pid namespace; tests/fairplay attacks that with daemons).
    pool = make_pool(RELAXED, FaultPolicy(max_restarts=0, max_faults=2), sandbox="none")
    player = pool.start(
        parse_bot(
            misbehaving_command(
                "--spawn-child", "--pid-file", str(pids), "--fault", "exit", "--after", "1"
            )
        )
    )
    record, _ = play(tmp_path, [player, *randoms()], time_control=RELAXED)
    assert record.forfeited[0]
    bot_pid, child_pid = (int(line.split()[0]) for line in pids.read_text().splitlines())
    assert_no_process_left(launched_pids)  # gone while the pool is still open
    for pid in (bot_pid, child_pid):
        assert not os.path.exists(f"/proc/{pid}") or _zombie(pid)


def _zombie(pid: int) -> bool:
    """Gone, or a zombie: not a live process."""
    return not any(p.pid == pid and p.alive for p in procfs.processes())


def test_stand_in_for_a_bot_that_never_starts(tmp_path, make_pool, launched_pids) -> None:
    policy = FaultPolicy(max_faults=4)
    pool = make_pool(TimeControl(startup_timeout_ms=1000), policy)
    spec = parse_bot(misbehaving_command("--no-listen"))
    player = pool.start_or_stand_in(spec)
    assert isinstance(player, DeadPlayer)
    assert "not serving" in pool.failures[spec.name]
    record, records = play(tmp_path, [player, *randoms()], fault_policy=policy)
    assert record.faults[0] == {"start_failed": 4}
    assert record.forfeited[0]
    assert all(r["source"] == "fallback" for r in decisions_of(records, 0))
    assert_no_process_left(launched_pids)


def test_referee_interrupted_mid_game_writes_game_abort(tmp_path) -> None:
    from referee.match.runner import GameSpec, play_game
    from tests.match.conftest import load

    class Interrupting(type(builtin_player("random"))):  # type: ignore[misc]
        calls = 0

        def play_card(self, *args: Any) -> Any:
            Interrupting.calls += 1
            if Interrupting.calls == 5:
                raise KeyboardInterrupt
            return super().play_card(*args)

    spec = GameSpec(game_id="abort", seed=1, bots=("a", "b", "c", "d"))
    with pytest.raises(KeyboardInterrupt):
        play_game(spec, [Interrupting(), *randoms()], tmp_path / "abort.jsonl")
    records = load(tmp_path / "abort.jsonl")
    assert records[0]["type"] == "game"
    assert records[-1]["type"] == "game_abort"
    assert "KeyboardInterrupt" in records[-1]["reason"]


def test_a_seat_forfeited_in_deal_hand_is_not_asked_to_pass(tmp_path, serve) -> None:
    """Two remote bots: DealHand's faults are recorded before any pass is asked or logged.

    Seat 0 fails DealHand and forfeits at once (max_faults 1): it is never asked to
    pass, and its forfeit and DealHand fault are logged before any pass (R2). Seat 1,
    the other remote bot, is told its hand before it is asked its pass, every hand.
    """
    policy = FaultPolicy(max_faults=1)
    failing, failing_bot = serve("--raise-in", "DealHand", fault_policy=policy)
    good, good_bot = serve(fault_policy=policy)
    record, records = play(tmp_path, [failing, good, *randoms(2)], fault_policy=policy)
    assert record.forfeited == (True, False, False, False)
    assert failing_bot.calls[:2] == ["StartGame", "DealHand"]
    assert "PassCards" not in failing_bot.calls
    first_hand = [r for r in records if r.get("hand") == 1 and r["type"] != "play"]
    kinds = [(r["type"], r.get("seat")) for r in first_hand]
    assert kinds[:3] == [("deal", None), ("forfeit", 0), ("fault", 0)]
    assert kinds[3:7] == [("pass", s) for s in range(4)]
    assert first_hand[3]["source"] == "fallback"
    assert all(r["source"] == "bot" for r in first_hand[4:7])
    passing_hands = sum(1 for r in records if r["type"] == "deal" and r["pass_direction"] != "hold")
    assert good_bot.calls.count("PassCards") == passing_hands
    deals_and_passes = [c for c in good_bot.calls if c in ("DealHand", "PassCards")]
    for i, call in enumerate(deals_and_passes):
        if call == "PassCards":
            assert deals_and_passes[i - 1] == "DealHand"


def test_failing_notifications(tmp_path, serve) -> None:
    player, bot = serve("--raise-in", "DealHand", "--raise-in", "EndGame")
    record, records = play(tmp_path, [player, *randoms()], fault_policy=FaultPolicy(max_faults=0))
    hands = len(record.hand_scores)
    notes = [r for r in records if r["type"] == "fault"]
    assert [r["during"] for r in notes] == ["DealHand"] * hands + ["EndGame"]
    assert all(r["seat"] == 0 and r["kind"] == "rpc_error" for r in notes)
    assert record.faults[0] == {"rpc_error": hands + 1}
    assert records[-1]["type"] == "game_end"  # EndGame is sent before game_end is written
    assert len(bot.requests["EndGame"]) == 1
    assert all(r["source"] == "bot" for r in decisions_of(records, 0))
