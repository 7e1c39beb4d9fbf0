"""Issue 7: ``referee check-bot`` passes the sample bots and names the defect of broken ones.

The broken bots are real gRPC servers launched as processes (bots/broken.py,
built on referee.botkit), each with one deliberate defect; each must fail the
right check with a message that says what was wrong, and exit non-zero.
"""

from __future__ import annotations

import pytest

from referee import botkit
from referee.checkbot import CHECKS
from referee.checkbot.calls import DECISIONS, GONE_AFTER
from tests.checkbot.bots.broken import BrokenBot
from tests.checkbot.conftest import ROOT, broken_bot

SITUATIONS = [
    "pass-left",
    "pass-right",
    "pass-across",
    "pass-hold",
    "players-3",
    "players-5",
    "players-6",
    "players-7",
    "first-lead",
    "first-trick-follow",
    "first-trick-void",
    "first-trick-only-points",
    "void-discard",
    "lead-hearts-unbroken",
    "lead-only-hearts",
    "follow-suit",
]


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_sample_bots_pass(check_bot, name):
    run = check_bot(str(ROOT / "sample_bots" / "python" / name))
    assert run.exit_code == 0, run.output
    assert list(run.checks) == list(CHECKS)
    assert run.statuses() == dict.fromkeys(CHECKS, "PASS"), run.output
    report = run.report
    assert report["ok"] is True
    assert report["handshake"]["protocol_version"] == 1
    assert report["handshake"]["name"] == f"{name}-py"
    assert "Hearts referee authors" in report["handshake"]["author"]
    # Every situation was reached with answers to judge.
    for check in SITUATIONS:
        assert "all correct" in run.checks[check]["summary"], run.checks[check]
    assert "chose add_to_others" in run.text("moon")
    assert "up to 8 requests in flight" in run.text("concurrent")
    assert "zero faults" in run.text("full-game")
    timing = {t["rpc"]: t for t in report["timing"]}
    for rpc in (
        "Handshake",
        "StartGame",
        "DealHand",
        "EndHand",
        "EndGame",
        "PassCards",
        "PlayCard",
    ):
        assert timing[rpc]["calls"] > 0, rpc
        assert timing[rpc]["failed"] == 0, rpc
    assert timing["PlayCard"]["limit_ms"] == 1000
    assert timing["PlayCard"]["over"] == 0
    assert timing["PlayCard"]["max_ms"] >= timing["PlayCard"]["median_ms"] > 0


def test_illegal_first_trick_fails_r5_with_the_card(check_bot):
    run = check_bot(broken_bot("illegal-first-trick"), "--format", "text")
    assert run.exit_code == 1
    out = run.output
    assert "FAIL  first-trick-void" in out
    assert (
        "PlayCard on the first trick, void in clubs: answered Q♠, which is not in legal_moves "
        "(R5: Q♠ not allowed on the first trick)" in out
    )
    assert "[game check-first-trick-void, hand 1, trick 1, seat 3]" in out
    # What it does right still passes.
    for check in ("first-lead", "first-trick-follow", "void-discard", "follow-suit", "timing"):
        assert f"PASS  {check}" in out, check
    assert out.rstrip().splitlines()[-3].startswith("FAIL: ")


def test_wrong_protocol_version_fails_the_handshake(check_bot):
    run = check_bot(broken_bot("wrong-version"))
    assert run.exit_code == 1
    assert run.status("start") == "PASS"
    assert run.status("handshake") == "FAIL"
    assert "protocol version 2" in run.text("handshake")
    assert "refuses" in run.text("handshake")
    skipped = [c for c in CHECKS if c not in ("build", "start", "handshake")]
    assert {run.status(c) for c in skipped} == {"SKIP"}
    assert "the referee refuses a bot whose handshake fails" in run.text("first-lead")


def test_slow_bot_fails_timing(check_bot):
    run = check_bot(
        broken_bot("slow", "--sleep-ms", "200"), "--move-time-ms", "100", "--no-full-game"
    )
    assert run.exit_code == 1
    assert run.status("timing") == "FAIL"
    text = run.text("timing")
    assert "took longer than the move time (100 ms)" in text
    assert "answered after" in text
    passes = next(t for t in run.report["timing"] if t["rpc"] == "PassCards")
    assert passes["over"] == passes["calls"] > 0
    assert passes["median_ms"] >= 200
    # Slow but right: the answers themselves pass (on a loaded machine a call may
    # still run out of time, but no answer is wrong).
    for check in ("pass-left", "pass-right", "pass-across", "players-5"):
        assert "answered" not in run.text(check), run.checks[check]
    assert run.status("full-game") == "SKIP"


def test_passing_two_cards_fails_every_pass(check_bot):
    run = check_bot(broken_bot("pass-two"), "--no-full-game")
    assert run.exit_code == 1
    for check in ("pass-left", "pass-right", "pass-across", "players-3", "players-7"):
        assert run.status(check) == "FAIL", check
        assert "answered 2 cards" in run.text(check)
        assert "`count` is 3 (R2)" in run.text(check)
    assert run.status("pass-hold") == "PASS"  # nothing is passed on a hold hand
    assert run.status("first-trick-void") == "PASS"


def test_crashing_bot_fails_clearly_and_is_stopped(check_bot, launched_pids):
    run = check_bot(broken_bot("crash"), "--move-time-ms", "200")
    assert run.exit_code == 1
    assert run.status("start") == "PASS"
    failed = [c for c, s in run.statuses().items() if s == "FAIL"]
    assert failed
    assert "the bot process died: bot process exited with code 3" in run.text(failed[0])
    assert "the bot stopped answering" in run.text("full-game")
    assert run.status("full-game") == "SKIP"
    assert len(launched_pids) >= 2  # restarted, and every process stopped (fixture)


def test_hanging_bot_times_out_and_stops_early(check_bot):
    run = check_bot(broken_bot("hang"), "--move-time-ms", "100")
    assert run.exit_code == 1
    assert "no answer within 1100 ms" in run.text("first-trick-follow")
    assert run.status("timing") == "FAIL"
    assert "no answer after" in run.text("timing")
    assert run.status("concurrent") == "SKIP"
    # It stopped early: after GONE_AFTER calls in a row without an answer it asks no more,
    # so it does not wait out a deadline for each of the hundreds of decisions left.
    asked = sum(t["calls"] for t in run.report["timing"] if t["rpc"] in DECISIONS)
    unanswered = sum(t["over"] for t in run.report["timing"] if t["rpc"] in DECISIONS)
    assert unanswered == GONE_AFTER and asked <= GONE_AFTER + 1, run.report["timing"]


def test_bot_that_never_starts(check_bot):
    run = check_bot(broken_bot("no-start"), "--startup-timeout-s", "10")
    assert run.exit_code == 1
    assert run.status("start") == "FAIL"
    assert "exited while starting" in run.text("start")
    assert "stderr: broken bot: cannot start (on purpose)" in run.text("start")
    assert run.status("handshake") == "SKIP"


def test_bare_server_health_reflection_and_moon(check_bot):
    run = check_bot(broken_bot("bare"), "--no-full-game")
    assert run.exit_code == 1
    assert run.status("health") == "FAIL"
    assert "no grpc.health.v1.Health service" in run.text("health")
    assert run.status("reflection") == "WARN"
    assert run.status("moon") == "INFO"
    assert "UNIMPLEMENTED" in run.text("moon")
    assert "add_to_others" in run.text("moon")
    assert run.status("first-trick-void") == "PASS"


def test_running_bot_by_address(check_bot):
    server, port = botkit.make_server(BrokenBot("none", 0), "127.0.0.1:0")
    try:
        run = check_bot(f"127.0.0.1:{port}", "--no-full-game")
    finally:
        server.stop(None)
    assert run.exit_code == 0, run.output
    assert run.status("build") == "SKIP"
    assert f"answering at 127.0.0.1:{port}" in run.text("start")
    assert run.status("concurrent") == "PASS"


def test_built_in_bots_are_refused(check_bot):
    run = check_bot("random")
    assert run.exit_code == 2
    assert "built-in" in run.output
