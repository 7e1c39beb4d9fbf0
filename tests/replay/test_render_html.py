"""The HTML replay: a self-contained page, checked in headless Chromium against the log.

The browser tests need Debian's ``chromium`` package and skip without it.
A screenshot of a mid-game position is kept in pytest's temporary folder
(its path is printed; ``pytest -s`` shows it) or in $REPLAY_TEST_OUTPUT.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil

import pytest

from referee.audit.render_html import game_data, render_html
from referee.audit.replay import Game, load_game
from referee.engine import Rules
from tests.replay.browser import Node, dump_dom, screenshot
from tests.replay.fixtures import FAULTS_LOG, MOON_LOG, play


def write_page(game: Game, path: pathlib.Path, **options: object) -> pathlib.Path:
    path.write_text(render_html(game, **options), encoding="utf-8")  # type: ignore[arg-type]
    return path


def embedded_data(page: str) -> dict[str, object]:
    match = re.search(r'<script id="game-data" type="application/json">(.*?)</script>', page, re.S)
    assert match, "no embedded game data"
    return json.loads(match.group(1))


@pytest.fixture(scope="module")
def faults_game() -> Game:
    return load_game(FAULTS_LOG)


@pytest.fixture(scope="module")
def faults_page(faults_game: Game, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return write_page(faults_game, tmp_path_factory.mktemp("html") / "faults.html")


# Without a browser --------------------------------------------------------------------


def test_the_page_is_self_contained(faults_game: Game) -> None:
    page = render_html(faults_game)
    assert page.startswith("<!DOCTYPE html>")
    for outside in ("http://", "https://", "<link", " src=", "@import", "url(", "@font-face"):
        assert outside not in page, f"the page refers outside itself: {outside}"
    assert embedded_data(page) == json.loads(json.dumps(game_data(faults_game)))


def test_names_cannot_break_out_of_the_script(tmp_path: pathlib.Path) -> None:
    records = [json.loads(line) for line in FAULTS_LOG.read_text(encoding="utf-8").splitlines()]
    evil = "</script><script>document.title='owned'</script>&amp;\u2028"
    records[0]["seats"][0]["bot"] = evil
    log = tmp_path / "evil.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    page = render_html(load_game(log))
    assert page.count("</script>") == 2  # the data's and the code's
    assert embedded_data(page)["seats"][0]["bot"] == evil  # type: ignore[index]


def test_a_seat_view_file_holds_no_hidden_cards(faults_game: Game) -> None:
    data = game_data(faults_game, seat=2)
    for hand in data["hands"]:  # type: ignore[union-attr]
        assert [h is not None for h in hand["dealt"]] == [False, False, True, False]
        assert [h is not None for h in hand["start"]] == [False, False, True, False]
        for move in hand["passes"]:
            shown = move["cards"] is not None
            assert shown == (2 in (move["seat"], move["to"]))
        for trick in hand["tricks"]:
            for play_ in trick["plays"]:
                if play_["seat"] != 2:
                    assert play_["answer"] is None
                    assert play_["fault"] in (None, *_KINDS)
    # E's answers and the engine's messages about them are left out too.
    page = render_html(faults_game, seat=2)
    assert "may not be led" not in page and '"answer":"5H"' not in page


_KINDS = ("illegal_card", "card_not_held", "timeout", "wrong_pass_size", "rpc_error")


# In the browser ---------------------------------------------------------------------


def seat_cards(dom: Node, seat: int) -> list[str]:
    section = dom.with_class("seat", data_seat=str(seat))
    assert len(section) == 1
    return [c.attrs["data-card"] for c in section[0].with_class("card") if "data-card" in c.attrs]


def hidden_count(dom: Node, seat: int) -> int:
    return len(dom.with_class("seat", data_seat=str(seat))[0].with_class("back"))


def score_row(dom: Node, seat: int) -> dict[str, str]:
    rows = dom.by_id("scores").find_all(
        lambda n: n.tag == "tr" and n.attrs.get("data-seat") == str(seat)
    )
    assert len(rows) == 1
    return {cls: rows[0].with_class(cls)[0].text for cls in ("hand-points", "total", "faults")}


def check_position(dom: Node, game: Game, hand_number: int, trick_number: int) -> None:
    """What is on screen is what the log says at (hand, trick)."""
    hand = game.hand(hand_number)
    assert dom.by_id("hand-number").text == str(hand_number)
    assert dom.by_id("trick-number").text == str(trick_number)
    for seat in range(game.n):
        if trick_number == 0:
            want = sorted(str(c) for c in hand.dealt[seat])
        else:
            want = sorted(str(c) for c in hand.held(seat, trick_number))
        assert sorted(seat_cards(dom, seat)) == want, f"seat {seat}"
    totals = game.totals_before(hand_number)
    taken = [0] * game.n
    for trick in hand.tricks[:trick_number]:
        assert trick.winner is not None
        taken[trick.winner] += trick.points
    last = trick_number == len(hand.tricks) and hand.result is not None
    for seat in range(game.n):
        row = score_row(dom, seat)
        if last:
            assert hand.result is not None
            assert row["total"] == str(hand.result.totals[seat])
        else:
            assert row["total"] == str(totals[seat])
            assert row["hand-points"] == str(taken[seat])
    if trick_number:
        trick = hand.tricks[trick_number - 1]
        shown = dom.by_id("trick").with_class("card")
        assert [c.attrs["data-card"] for c in shown] == [str(p.card) for p in trick.plays]
        assert [c.attrs["data-seat"] for c in shown] == [str(p.seat) for p in trick.plays]
        winners = [c.attrs["data-seat"] for c in shown if "winner" in c.classes]
        assert winners == [str(trick.winner)]
        fallbacks = [c.attrs["data-seat"] for c in shown if "fallback" in c.classes]
        assert fallbacks == [str(p.seat) for p in trick.plays if p.fallback]


def test_a_mid_game_position(faults_game: Game, faults_page: pathlib.Path) -> None:
    dom = dump_dom(faults_page, "hand=1&trick=5")
    check_position(dom, faults_game, 1, 5)
    # Trick 5: seat 1 timed out; its 4 faults so far are counted and explained.
    assert score_row(dom, 1)["faults"] == "4"
    events = dom.by_id("events").text
    assert "E flaky played 6♦ as a fallback (timeout: no answer within 1000 ms)" in events


def test_the_deal_and_the_passes(faults_game: Game, faults_page: pathlib.Path) -> None:
    dom = dump_dom(faults_page, "hand=1&trick=0")
    check_position(dom, faults_game, 1, 0)
    hand = faults_game.hand(1)
    for move in hand.passes:
        section = dom.with_class("seat", data_seat=str(move.seat))[0]
        passing = sorted(c.attrs["data-card"] for c in section.with_class("passing"))
        assert passing == sorted(str(c) for c in move.cards)
    items = dom.by_id("passes").find_all(lambda n: n.tag == "li")
    assert len(items) == 4 and "fallback" in items[1].text


def test_the_end_of_a_hand_and_of_the_game(faults_game: Game, faults_page: pathlib.Path) -> None:
    dom = dump_dom(faults_page, "hand=2&trick=13")
    check_position(dom, faults_game, 2, 13)
    assert "Hand 2 scored" in dom.by_id("result").text
    final = dom.by_id("final")
    assert "hidden" not in final.classes
    rows = final.find_all(lambda n: n.tag == "tr" and "data-seat" in n.attrs)
    end = faults_game.end
    assert end is not None
    order = sorted(range(4), key=lambda s: (end.placements[s], s))
    assert [r.attrs["data-seat"] for r in rows] == [str(s) for s in order]
    assert "forfeited" in rows[-1].text
    forfeited = dom.with_class("seat", data_seat="1")[0]
    assert "forfeited" in forfeited.classes


def test_the_moon(faults_game: Game, tmp_path: pathlib.Path) -> None:
    game = load_game(MOON_LOG)
    dom = dump_dom(write_page(game, tmp_path / "moon.html"), "hand=1&trick=13")
    check_position(dom, game, 1, 13)
    assert "N random shot the moon (add to others)" in dom.by_id("result").text
    assert "chose add to others (fallback: timeout" in dom.by_id("events").text


def test_autoplay_steps_like_the_button(faults_game: Game, faults_page: pathlib.Path) -> None:
    dom = dump_dom(faults_page, "hand=1&trick=11&autoplay=4&speed=8", budget_ms=5000)
    check_position(dom, faults_game, 2, 1)  # trick 12, 13, hand 2's deal, its trick 1
    assert dom.by_id("play").text.strip() == "▶ Play"  # paused again


def test_the_buttons(faults_game: Game, faults_page: pathlib.Path) -> None:
    dom = dump_dom(faults_page, "hand=2&trick=1&do=back,back,back,step")
    check_position(dom, faults_game, 1, 13)  # hand 2's deal, trick 13, 12, and 13 again
    assert dom.by_id("back").attrs.get("disabled") is None
    dom = dump_dom(faults_page, "hand=1&trick=0&do=back")
    check_position(dom, faults_game, 1, 0)
    assert "disabled" in dom.by_id("back").attrs
    # Play then Pause: the timer is gone, the position unchanged.
    dom = dump_dom(faults_page, "hand=1&trick=3&do=play,play", budget_ms=5000)
    check_position(dom, faults_game, 1, 3)
    assert dom.by_id("play").text.strip() == "▶ Play"
    # Play alone keeps going (a step per 1.4 s at 1×; about 3 in 5 s of virtual time).
    dom = dump_dom(faults_page, "hand=1&trick=3&do=play", budget_ms=5000)
    trick = int(dom.by_id("trick-number").text)
    assert 4 <= trick <= 7, trick
    check_position(dom, faults_game, 1, trick)
    assert dom.by_id("play").text.strip() == "❚❚ Pause"


def test_seat_views(faults_game: Game, faults_page: pathlib.Path, tmp_path: pathlib.Path) -> None:
    seat_page = write_page(faults_game, tmp_path / "as-S.html", seat=2)
    for page, fragment in ((faults_page, "hand=1&trick=6&view=2"), (seat_page, "hand=1&trick=6")):
        dom = dump_dom(page, fragment)
        hand = faults_game.hand(1)
        assert sorted(seat_cards(dom, 2)) == sorted(str(c) for c in hand.held(2, 6))
        for other in (0, 1, 3):
            assert seat_cards(dom, other) == []
            assert hidden_count(dom, other) == len(hand.held(other, 6))
        played = [c.attrs["data-card"] for c in dom.by_id("trick").with_class("card")]
        assert played == [str(p.card) for p in hand.tricks[5].plays]


def test_a_truncated_log(tmp_path: pathlib.Path) -> None:
    lines = FAULTS_LOG.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:57]) + lines[57][:20], encoding="utf-8")
    game = load_game(cut, strict=False)
    dom = dump_dom(write_page(game, tmp_path / "cut.html"), "hand=1&trick=13")
    assert dom.by_id("trick-number").text == "11"  # the last trick, incomplete
    assert "(incomplete)" in dom.by_id("caption").text
    assert "The log is damaged" in dom.by_id("banner").text


@pytest.mark.parametrize("players", [3, 6])
def test_a_ring_of_seats(players: int, tmp_path: pathlib.Path) -> None:
    bots = [("random", "heuristic")[s % 2] + f"#{s}" for s in range(players)]
    log = tmp_path / "ring.jsonl"
    play(log, game_id="ring", seed=3, bots=bots, rules=Rules(num_players=players, target_score=30))
    game = load_game(log)
    dom = dump_dom(write_page(game, tmp_path / "ring.html"), "hand=1&trick=2")
    labels = [s.attrs["data-label"] for s in dom.with_class("seat")]
    assert labels == [f"#{s}" for s in range(players)]
    check_position(dom, game, 1, 2)


def test_screenshot_of_a_mid_game_position(
    faults_page: pathlib.Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = pathlib.Path(os.environ.get("REPLAY_TEST_OUTPUT") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    shot = screenshot(faults_page, "hand=1&trick=5", folder / "replay-hand1-trick5.png")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    shutil.copy(faults_page, folder / "replay.html")
    print(f"\nscreenshot of the HTML replay: {shot}")
