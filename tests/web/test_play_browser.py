"""``referee play`` in headless Chromium: a whole game as the human, by clicks and keys only.

The command runs as a user runs it (a subprocess on a free port, three
built-in bots, a config with a one-hand game and V2 ``shooter_chooses``);
the page is driven over the DevTools protocol (tests/web/cdp.py) with real
mouse and key events. The seed is one where South, choosing as the built-in
``random`` bot would (tests/web/human_robot.py), shoots the moon (R8), so
the moon question is answered on the page too. The log then verifies
(``referee verify``). Screenshots of the table, at 1280 px and at a phone's
390 px, go to $PLAY_TEST_OUTPUT or /tmp/referee-play-screenshots.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.web.cdp import Browser, Page
from tests.web.human_robot import choose, illegal_card
from tests.web.test_human import MOON_SEED

pytestmark = pytest.mark.slow

READY = "document.getElementById('app').dataset.ready === '1'"


@pytest.fixture(scope="module")
def shots() -> pathlib.Path:
    folder = pathlib.Path(os.environ.get("PLAY_TEST_OUTPUT", "/tmp/referee-play-screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots of referee play's table: {folder}")
    return folder


@pytest.fixture
def referee_play(tmp_path: pathlib.Path) -> Iterator[tuple[str, pathlib.Path, subprocess.Popen]]:
    """``referee play heuristic random heuristic`` with the human at South; (url, log, process)."""
    config = tmp_path / "play.yaml"
    config.write_text("rules: {target_score: 1, moon_scoring: shooter_chooses}\n")
    out = tmp_path / "game"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "referee.cli",
            "play",
            "heuristic",
            "random",
            "heuristic",
            "--seat",
            "south",
            "--config",
            str(config),
            "--seed",
            str(MOON_SEED),
            "--port",
            "0",
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("South: play at http://127.0.0.1:"), line + process.stderr.read()
        yield line.split(" at ", 1)[1].strip(), out / "game.jsonl", process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _click(page: Page, selector: str) -> None:
    """A real left click in the middle of the element (mouse events, not element.click())."""
    box = page.evaluate(
        f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
        " if (!e) return null; e.scrollIntoView({block: 'center'});"
        " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    assert box, f"nothing to click at {selector}"
    for kind in ("mousePressed", "mouseReleased"):
        page.send(
            "Input.dispatchMouseEvent",
            {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1},
        )


def _key(page: Page, key: str) -> None:
    codes = {"ArrowRight": 39, "ArrowLeft": 37, "Enter": 13, "Tab": 9}
    # As Puppeteer sends them: a key without text is a "rawKeyDown" (Tab's focus move needs it).
    for kind in ("keyDown" if key == "Enter" else "rawKeyDown", "keyUp"):
        params: dict[str, Any] = {
            "type": kind,
            "key": key,
            "code": key,
            "windowsVirtualKeyCode": codes[key],
        }
        if key == "Enter" and kind == "keyDown":
            params["text"] = "\r"
        page.send("Input.dispatchKeyEvent", params)


def _card(code: str) -> str:
    return f'#hand button[data-card="{code}"]'


_SUIT_ORDER = "CDSH"  # the colours alternate
_RANKS = "23456789TJQKA"


def _check_table(page: Page, table: dict[str, Any]) -> dict[str, Any]:
    """What the page shows of the seat's table (issue 32's list), checked against it."""
    shown = page.evaluate(
        "(() => ({"
        " hand: [...document.querySelectorAll('#hand button.card')].map(b => b.dataset.card),"
        " tags: Object.fromEntries([...document.querySelectorAll('#trick li')]"
        "   .map(li => [li.dataset.seat, li.querySelector('.tag').textContent])),"
        " slots: Object.fromEntries([...document.querySelectorAll('#trick li')]"
        "   .map(li => [li.dataset.seat, li.querySelector('.slot').dataset.card || null])),"
        " last: document.getElementById('last-trick').textContent,"
        " lastWinner: document.getElementById('last-trick').dataset.winner,"
        " hearts: document.getElementById('hearts').textContent,"
        " totals: [...document.querySelectorAll('#score-total td')].map(td => td.textContent),"
        " rows: document.querySelectorAll('#score-body tr').length,"
        "}))()"
    )
    hand = [c["card"] for c in table["hand"]]
    assert shown["hand"] == hand
    assert hand == sorted(hand, key=lambda c: (_SUIT_ORDER.index(c[1]), _RANKS.index(c[0])))
    trick = table["trick"]
    for seat, card in trick["plays"]:
        assert shown["slots"][str(seat)] == card
    if trick["plays"]:
        assert shown["tags"][str(trick["leader"])] == "led"
    elif trick["to_lead"] >= 0 and trick["to_lead"] != table["seat"]:
        assert shown["tags"][str(trick["to_lead"])] == "to lead"
    last = table["last_trick"]
    if last is not None:
        assert shown["lastWinner"] == str(last["winner"]) and "taken by" in shown["last"]
    assert shown["hearts"] == ("♥ hearts broken" if table["hearts_broken"] else "hearts not broken")
    assert shown["totals"] == [str(s) for s in table["scores"]]
    assert shown["rows"] == len(table["hands"])  # a row per hand played
    return shown


def _next_decision(page: Page, url: str, answered: set[str]) -> dict[str, Any] | None:
    """The table once the page shows a decision not answered yet (None at the game's end)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        shown = page.evaluate(
            "[document.getElementById('app').dataset.decisionId || '',"
            " document.getElementById('end').hidden]"
        )
        if shown[0] and shown[0] not in answered:
            table = httpx.get(f"{url}/state", timeout=10).json()
            if table["decision"] and table["decision"]["id"] == shown[0]:
                return table
        elif not shown[1]:
            return None
        time.sleep(0.05)
    raise AssertionError("the page showed no new decision")


def test_a_whole_game_by_clicks_verifies(referee_play, shots):
    url, log, process = referee_play
    answered: set[str] = set()
    kinds: list[str] = []
    with Browser() as browser:
        page = browser.open(url)
        page.wait_for(READY)
        keyboard_used = illegal_tried = phone_shot = False
        hearts_seen: set[bool] = set()
        while (table := _next_decision(page, url, answered)) is not None:
            decision = table["decision"]
            kinds.append(decision["kind"])
            _check_table(page, table)
            hearts_seen.add(table["hearts_broken"])
            if decision["kind"] == "pass":
                cards = choose(table, "play-95")
                assert page.evaluate("document.getElementById('pass').disabled")
                # The keyboard lifts a card and puts it back: Tab to the hand, Enter twice.
                _click(page, "#title")
                _key(page, "Tab")
                first = page.evaluate("document.activeElement.dataset.card")
                assert first == table["hand"][0]["card"]
                pressed = "document.activeElement.getAttribute('aria-pressed')"
                _key(page, "Enter")
                assert page.evaluate(pressed) == "true"
                _key(page, "Enter")
                assert page.evaluate(pressed) == "false"
                for index, code in enumerate(cards):
                    _click(page, _card(code))
                    lifted = page.evaluate(
                        f"document.querySelector({json.dumps(_card(code))})"
                        ".getAttribute('aria-pressed')"
                    )
                    assert lifted == "true"
                    # R2: the button is active only with exactly the pass count chosen.
                    disabled = page.evaluate("document.getElementById('pass').disabled")
                    assert disabled == (index + 1 != table["rules"]["pass_count"])
                page.screenshot(shots / "play-pass.png")
                _key(page, "Tab")  # from the last card lifted, Tab goes on to the pass button
                assert page.evaluate("document.activeElement.id") == "pass"
                _click(page, "#pass")
            elif decision["kind"] == "play":
                card = choose(table, "play-95")
                bad = illegal_card(table)
                if bad is not None and not illegal_tried:
                    illegal_tried = True
                    label = page.evaluate(
                        f"document.querySelector({json.dumps(_card(bad['card']))})"
                        ".getAttribute('aria-label')"
                    )
                    assert bad["reason"] in label  # said before any click
                    _click(page, _card(bad["card"]))  # the page says why, and sends nothing
                    reason = page.wait_for("document.getElementById('reason').textContent")
                    assert f"({bad['rule']})" in reason and bad["reason"] in reason
                    again = httpx.get(f"{url}/state", timeout=10).json()
                    assert again["decision"]["id"] == decision["id"]
                    assert again["refused"] is None  # nothing was sent: the server refused none
                    # Sent anyway (as a doctored page would): the engine refuses it, with its rule.
                    result = page.evaluate(
                        f"window.playAnswer({json.dumps({'decision': decision['id'], 'card': bad['card']})})"
                    )
                    assert result["rule"] == bad["rule"]
                    shown = page.wait_for(
                        "document.getElementById('reason').textContent.startsWith('Refused')"
                        " && document.getElementById('reason').textContent"
                    )
                    assert f"({bad['rule']})" in shown
                    page.screenshot(shots / "play-table.png")
                    page.send(
                        "Emulation.setDeviceMetricsOverride",
                        {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
                    )
                    time.sleep(0.3)
                    width = page.evaluate("document.documentElement.scrollWidth")
                    assert width <= 390, f"the table is {width} px wide at a phone's 390"
                    page.screenshot(shots / "play-table-390.png")
                    phone_shot = True
                    page.send("Emulation.clearDeviceMetricsOverride")
                if not keyboard_used and len(table["hand"]) > 3:
                    keyboard_used = True  # Tab stops at the hand once; arrows move; Enter plays
                    _click(page, "#title")  # Tab from the top of the page: the hand is first
                    _key(page, "Tab")
                    assert page.evaluate("document.activeElement.classList.contains('card')")
                    codes = [c["card"] for c in table["hand"]]
                    focused = page.evaluate("document.activeElement.dataset.card")
                    steps = codes.index(card) - codes.index(focused)
                    for _ in range(abs(steps)):
                        _key(page, "ArrowRight" if steps > 0 else "ArrowLeft")
                    assert page.evaluate("document.activeElement.dataset.card") == card
                    _key(page, "Enter")
                else:
                    _click(page, _card(card))
            else:  # V2: the shooter chooses
                assert not page.evaluate("document.getElementById('moon').hidden")
                page.screenshot(shots / "play-moon.png")
                _click(page, "#moon-add")
            answered.add(decision["id"])
        page.wait_for("!document.getElementById('end').hidden")
        placements = page.evaluate(
            "Array.from(document.querySelectorAll('#placements li')).map(li => li.textContent)"
        )
        assert len(placements) == 4 and placements[0].startswith("#1 You (South)")
        end = httpx.get(f"{url}/state", timeout=10).json()
        shown = _check_table(page, end)  # the sidebar: the hand's row, the final totals
        assert shown["rows"] == 1 and shown["totals"] == [str(s) for s in end["outcome"]["scores"]]
        assert "☾" in page.evaluate("document.getElementById('score-body').textContent")
        page.screenshot(shots / "play-end.png")
        assert page.errors() == []
        replay = page.evaluate("document.getElementById('replay').href")
        page.goto(replay)
        page.wait_for("document.title.startsWith('Hearts replay: play-95')")
    assert illegal_tried and keyboard_used and phone_shot
    assert hearts_seen == {False, True}  # the badge was seen before and after hearts broke
    assert kinds[0] == "pass" and kinds.count("play") == 13 and "moon" in kinds
    process.send_signal(signal.SIGINT)  # the table stays open until Ctrl-C
    assert process.wait(timeout=30) == 0, process.stderr.read()
    summary = process.stdout.read()
    assert "1 hand in " in summary and "human" in summary
    records = [json.loads(line) for line in log.read_text().splitlines()]
    mine = [r for r in records if r["type"] in ("pass", "play", "moon_choice") and r["seat"] == 2]
    assert len(mine) == 15 and all(r["source"] == "bot" for r in mine)  # no fallback: all clicks
    assert records[-1]["type"] == "game_end" and records[-1]["placements"][2] == 1
    verify = subprocess.run(
        [sys.executable, "-m", "referee.cli", "verify", str(log)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "OK" in verify.stdout
