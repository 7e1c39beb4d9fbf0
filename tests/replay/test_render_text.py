"""The text replay: golden output of stored games, colours, and the seat view.

The golden files in tests/replay/golden/ are the exact output for the stored
logs in tests/replay/data/. After an intended change of the rendering,
regenerate them with ``REPLAY_REGEN_GOLDEN=1 python -m pytest tests/replay``
and review the diff.
"""

from __future__ import annotations

import os
import pathlib

import click
import pytest

from referee.audit.render_text import render_chunks, render_text
from referee.audit.replay import load_game
from referee.engine import Card
from tests.replay.fixtures import FAULTS_LOG, GOLDEN, MOON_LOG

REGEN = os.environ.get("REPLAY_REGEN_GOLDEN") == "1"

#: golden file -> (log, options)
CASES = {
    "faults.txt": (FAULTS_LOG, {}),
    "faults-as-S.txt": (FAULTS_LOG, {"seat": 2}),
    "faults-hand2-as-E.txt": (FAULTS_LOG, {"seat": 1, "hand": 2}),
    "moon.txt": (MOON_LOG, {}),
}


def check_golden(name: str, text: str) -> None:
    """Compare with the golden file (or rewrite it when REPLAY_REGEN_GOLDEN=1)."""
    path = GOLDEN / name
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        pytest.skip(f"regenerated {path}")
    assert path.exists(), f"no golden file {path}: run with REPLAY_REGEN_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, (
        f"the replay of {name} differs from {path}; if intended, regenerate with "
        "REPLAY_REGEN_GOLDEN=1 python -m pytest tests/replay and review the diff"
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    log, options = CASES[name]
    check_golden(name, render_text(load_game(log), **options) + "\n")


def test_colour_is_only_styling() -> None:
    game = load_game(FAULTS_LOG)
    plain = render_text(game)
    coloured = render_text(game, color=True)
    assert coloured != plain
    assert click.unstyle(coloured) == plain
    assert click.style("A♥", fg="red") in coloured
    assert click.style("Q♦", fg="red") in coloured
    assert click.style("2♣", fg="red") not in coloured


def test_chunks_are_hand_tricks_result() -> None:
    game = load_game(FAULTS_LOG)
    kinds = [c.kind for c in render_chunks(game)]
    per_hand = ["hand"] + ["trick"] * 13 + ["result"]
    assert kinds == ["header", *per_hand, *per_hand, "end"]
    assert [c.kind for c in render_chunks(game, hand=2)] == ["header", *per_hand]


def _hidden_cards(game_path: pathlib.Path, seat: int) -> tuple[str, list[Card]]:
    """The hand intros as ``seat`` sees them, and the cards others held unplayed there."""
    game = load_game(game_path)
    intros = "\n".join(c.text for c in render_chunks(game, seat=seat) if c.kind == "hand")
    hidden = [c for h in game.hands for s in range(game.n) if s != seat for c in h.dealt[s]]
    return intros, hidden


def test_seat_view_hides_other_hands() -> None:
    game = load_game(FAULTS_LOG)
    for seat in range(game.n):
        chunks = list(render_chunks(game, seat=seat))
        for chunk in chunks:
            if chunk.kind != "hand":
                continue
            for line in chunk.text.splitlines():
                owner = next(
                    (s for s in range(game.n) if line.startswith(f"  {game.label(s)} ")), None
                )
                if owner is None or "→" in line:
                    continue
                if owner == seat:
                    assert "♣" in line and "cards)" not in line, line
                else:
                    assert line.rstrip().endswith("(13 cards)"), line


def test_seat_view_hides_other_passes_and_answers() -> None:
    game = load_game(FAULTS_LOG)
    text = render_text(game, seat=2)  # S: passes to W in hand 1, receives from E
    hand1 = game.hand(1)
    passes = {p.seat: p for p in hand1.passes}
    assert "N heuristic → E flaky: 3 cards" in text  # neither N nor E is S
    s_pass = " ".join(c.symbol() for c in sorted(passes[2].cards))
    assert f"S random → W heuristic#2: {s_pass}" in text
    e_pass = " ".join(c.symbol() for c in sorted(passes[1].cards))
    assert f"E flaky → S random: {e_pass}" in text  # S received these
    # E's refused answers and the engine's messages about them stay hidden.
    assert "(answered" not in text
    assert "may not be led" not in text
    assert "! illegal_card → fallback" in text
    # The same game seen by E shows E's own faults in full.
    as_e = render_text(game, seat=1)
    assert "may not be led (answered 5♥)" in as_e


def test_every_played_card_is_shown_in_a_seat_view() -> None:
    game = load_game(FAULTS_LOG)
    text = render_text(game, seat=0)
    tricks = [line for line in text.splitlines() if line[:5].strip().isdigit()]
    assert len(tricks) == 26
    for hand in game.hands:
        for trick in hand.tricks:
            line = tricks.pop(0)
            for play in trick.plays:
                assert f"{game.label(play.seat)} {play.card.symbol()}" in line


def test_incomplete_game_says_where_it_ends(tmp_path: pathlib.Path) -> None:
    lines = FAULTS_LOG.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:40]) + lines[40][:25], encoding="utf-8")
    game = load_game(cut, strict=False)
    assert game.damage is not None and game.damage.line == 41
    text = render_text(game)
    assert "(incomplete)" in text
    assert "Hand 1 was not finished." in text
    assert f"The log is damaged: {cut}:41: not JSON" in text
