"""``referee play``'s server on the wire: what a seat's page receives, and who may answer.

A real game (built-in bots, ``play_game``) with a human seat behind a real
server on a free port; the person is a robot (tests/web/human_robot.py)
answering over HTTP. Every server-sent event and every JSON answer of the
server is kept and checked against the game's log: no other seat's unplayed
card ever reaches the page.
"""

from __future__ import annotations

import json
import pathlib
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from referee.audit.logs import verify_log
from referee.engine import Rules
from referee.match.runner import GameSpec, play_game
from referee.players.builtin import HeuristicPlayer, RandomPlayer
from referee.players.policy import TimeControl
from referee.safetext import shown_name
from referee.web.human import HumanPlayer, follow_all
from referee.web.play import PlayServer
from tests.helpers import altered
from tests.web.conftest import EVIL
from tests.web.human_robot import choose, illegal_card

_CARD = re.compile(r'"((?:[2-9TJQKA])[CDHS])"')


class _Game:
    """A game with human seats, served; ``start()`` plays it in a thread."""

    def __init__(self, tmp_path: pathlib.Path, humans: list[HumanPlayer], seed: int) -> None:
        self.humans = humans
        self.log = tmp_path / "game.jsonl"
        seats = {h.seat for h in humans}
        bots = iter([HeuristicPlayer(), RandomPlayer(), HeuristicPlayer(), RandomPlayer()])
        self.players = [
            next(h for h in humans if h.seat == s) if s in seats else next(bots) for s in range(4)
        ]
        self.spec = GameSpec(
            game_id=f"play-{seed}",
            seed=seed,
            bots=tuple("human" if s in seats else f"{EVIL}{s}" for s in range(4)),
            rules=Rules(target_score=1),
            seat_time_controls={s: TimeControl(move_time_ms=60_000) for s in seats},
        )
        self.server = PlayServer(humans, self.log, port=0)
        assert self.server.start()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        play_game(self.spec, self.players, self.log, on_event=follow_all(self.humans))

    def url(self, human: HumanPlayer) -> str:
        return self.server.url(human)


@pytest.fixture
def game_for(tmp_path: pathlib.Path) -> Iterator[Any]:
    made: list[_Game] = []

    def make(humans: list[HumanPlayer], seed: int = 11) -> _Game:
        made.append(_Game(tmp_path, humans, seed))
        return made[-1]

    yield make
    for game in made:
        game.server.stop()


def _record_events(url: str, into: list[dict[str, Any]], stop: threading.Event) -> None:
    """Every ``table`` event of the stream, parsed, until ``stop`` or the game is over."""
    with httpx.stream("GET", f"{url}/events", timeout=60) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        kind = None
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind == "table":
                into.append({"raw": line[6:], **json.loads(line[6:])})
                if into[-1].get("outcome") or stop.is_set():
                    return


def _deals_and_plays(log: pathlib.Path) -> tuple[dict[int, list[list[str]]], dict[int, list[str]]]:
    deals: dict[int, list[list[str]]] = {}
    plays: dict[int, list[str]] = {}
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if record["type"] == "deal":
            deals[record["hand"]] = record["hands"]
        elif record["type"] == "play":
            plays.setdefault(record["hand"], []).append(record["card"])
    return deals, plays


def _unplayed_of_others(
    table: dict[str, Any], deals: dict[int, list[list[str]]], plays: dict[int, list[str]]
) -> set[str]:
    """The cards other seats held, unplayed, at the moment of ``table`` (by the log)."""
    hand, seat, n = table["hand_number"], table["seat"], len(table["seats"])
    others = {c for s, cards in enumerate(deals[hand]) if s != seat for c in cards}
    if table["phase"] != "passing":  # the cards passed in are the seat's own once exchanged
        others -= set(table["received"] or [])  # (R2: nothing is revealed before every pass)
    if table["phase"] in ("playing", "moon_choice", "game_over"):
        done = (table["trick_number"] - 1) * n + len(table["trick"]["plays"])
        others -= set(plays.get(hand, [])[:done])
    return others


def test_the_page_never_receives_another_seats_cards(game_for):
    """On the wire: every SSE table and every JSON answer, against the log's deals (R2, SeatView)."""
    human = HumanPlayer(2)
    game = game_for([human])
    url = game.url(human)
    events: list[dict[str, Any]] = []
    stop = threading.Event()
    reader = threading.Thread(target=_record_events, args=(url, events, stop), daemon=True)
    reader.start()
    time.sleep(0.3)  # the stream is open before the game starts: it sees every change
    early = httpx.get(f"{url}/replay")
    assert early.status_code == 409  # every hand is in the replay: not before the end
    game.thread.start()
    answers: list[dict[str, Any]] = []
    refused_rules: list[str] = []
    answered: set[str] = set()
    with httpx.Client(timeout=30) as client:
        seen = 0
        while game.thread.is_alive() or seen < len(events):
            if seen == len(events):  # the person answers what the page shows (the stream)
                time.sleep(0.01)
                continue
            table = events[seen]
            seen += 1
            decision = table.get("decision")
            if not decision or decision["id"] in answered:
                continue
            state = client.get(f"{url}/state").json()
            answers.append({"raw": json.dumps(state), **state})
            bad = illegal_card(table) if decision["kind"] == "play" else None
            if bad is not None:
                response = client.post(
                    f"{url}/answer", json={"decision": decision["id"], "card": bad["card"]}
                )
                assert response.status_code == 422
                assert response.json()["rule"] == bad["rule"]
                refused_rules.append(bad["rule"])
                answers.append({"raw": response.text})
            key = "cards" if decision["kind"] == "pass" else "card"
            response = client.post(
                f"{url}/answer",
                json={"decision": decision["id"], key: choose(table, game.spec.game_id)},
            )
            assert response.status_code == 200, response.text
            answers.append({"raw": response.text})
            answered.add(decision["id"])
        stale = client.post(f"{url}/answer", json={"decision": "h1-pass-s2", "cards": []})
        assert stale.status_code == 409
        replay = client.get(f"{url}/replay")
    reader.join(timeout=30)
    stop.set()
    assert refused_rules
    assert replay.status_code == 200 and "<html" in replay.text.lower()
    deals, plays = _deals_and_plays(game.log)
    tables = [e for e in events + answers if "hand_number" in e]
    assert len(events) > len(answered) > 10 and events[-1]["outcome"] is not None
    for table in tables:
        shown = set(_CARD.findall(table["raw"]))
        last = table.get("last_trick")
        if last and last["hand"] != table["hand_number"]:  # the last trick of the hand before
            assert [c for _, c in last["plays"]] == plays[last["hand"]][-4:]  # public, played
            shown -= {c for _, c in last["plays"]}
        leaked = shown & _unplayed_of_others(table, deals, plays)
        assert not leaked, f"version {table.get('version')} shows {sorted(leaked)}"
        assert set(table) <= _TABLE_KEYS | {"raw"}
    for raw in (a["raw"] for a in answers if "hand_number" not in a):
        assert not _CARD.findall(raw), raw  # answers and refusals name rules, not cards
    assert verify_log(game.log).ok


#: Every key a table may hold: a new one is a new thing sent to the page, to be checked here.
_TABLE_KEYS = {
    "version",
    "seat",
    "phase",
    "rules",
    "seats",
    "hand_number",
    "trick_number",
    "pass_direction",
    "pass_to",
    "pass_from",
    "hand",
    "passed",
    "received",
    "trick",
    "to_play",
    "last_trick",
    "hearts_broken",
    "points_taken",
    "scores",
    "hands",
    "decision",
    "refused",
    "notes",
    "outcome",
    "aborted",
}


def test_each_seat_has_its_own_secret_and_sees_only_its_hand(game_for):
    north, south = HumanPlayer(0), HumanPlayer(2)
    game = game_for([north, south])
    assert north.token != south.token and len(south.token) >= 32
    base = game.url(south).rsplit("/play/", 1)[0]
    game.thread.start()
    for _ in range(200):  # until both are asked to pass
        if all((h.table().get("decision") or {}).get("kind") == "pass" for h in (north, south)):
            break
        time.sleep(0.02)
    deals, _ = _deals_and_plays(game.log)
    with httpx.Client(timeout=10) as client:
        page = client.get(game.url(south))
        assert page.status_code == 200 and EVIL not in page.text  # names come as data only
        assert "script-src 'self'" in page.headers["content-security-policy"]
        for human in (north, south):
            table = client.get(f"{game.url(human)}/state").json()
            assert table["seat"] == human.seat
            # Bot names arrive printable (no newline, no bidi override), set as text by the page.
            assert table["seats"][1]["name"] == shown_name(f"{EVIL}1")
            assert (
                "\n" not in table["seats"][1]["name"] and "\u202e" not in table["seats"][1]["name"]
            )
            assert sorted(c["card"] for c in table["hand"]) == sorted(deals[1][human.seat])
        wrong = altered(south.token)
        assert client.get(f"{base}/play/{wrong}/state").status_code == 404
        assert client.get(f"{base}/play/{wrong}").status_code == 404
        assert (
            client.get(
                f"{base}/play/{south.token}/state", headers={"Host": "evil.example"}
            ).status_code
            == 400
        )
        answer = f"{game.url(south)}/answer"
        form = client.post(answer, content="decision=x", headers={"Content-Type": "text/plain"})
        assert form.status_code == 403
        foreign = client.post(
            answer, json={"decision": "x", "card": "2C"}, headers={"Origin": "http://evil.example"}
        )
        assert foreign.status_code == 403
        assert (
            client.post(
                answer, content=b"{" * 5000, headers={"Content-Type": "application/json"}
            ).status_code
            == 413
        )
        assert client.post(answer, json={"decision": "x"}).status_code == 400
        assert client.post(answer, json=[1]).status_code == 400
    for human in (north, south):  # let the game end
        threading.Thread(target=_answer_all, args=(human, game), daemon=True).start()
    game.thread.join(timeout=60)
    assert not game.thread.is_alive()
    assert verify_log(game.log).ok


def _answer_all(human: HumanPlayer, game: _Game) -> None:
    from tests.web.human_robot import play_out

    play_out(human.table, human.answer, game.spec.game_id, over=lambda: not game.thread.is_alive())
