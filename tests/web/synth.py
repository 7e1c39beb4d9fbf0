"""A tournament folder made without playing it: sealed journal entries and small real logs.

For the web tests' filters and for ``bench/serve.py``'s 10,000 games: the
folder goes through :mod:`referee.folder` (``tournament.json``,
the key, a :class:`~referee.folder.journal.Journal` that seals every
entry), so the server reads it exactly as it reads a real one. The results
are drawn from a seeded generator (hands of 26 points, now and then a moon
or a fault); the logs are one real one-hand game between built-ins, played
once, its header renamed per game, so a replay opens. A log does not agree
with its journal entry (``referee verify`` would say so); its MAC does.
"""

from __future__ import annotations

import itertools
import json
import pathlib
import random
import tempfile
from collections.abc import Sequence
from typing import Any

from referee.engine import Rules
from referee.folder import Journal, Layout, TournamentState, seal
from referee.match.runner import GameSpec, play_game
from referee.players.builtin import builtin_player

__all__ = ["synthesize", "template_log"]


def template_log() -> list[dict[str, Any]]:
    """The records of a real one-hand game between built-ins (target score 1)."""
    with tempfile.TemporaryDirectory(prefix="synth-") as tmp:
        path = pathlib.Path(tmp) / "game.jsonl"
        rules = Rules(target_score=1)
        spec = GameSpec(game_id="template", seed=1, bots=("a", "b", "c", "d"), rules=rules)
        players = [builtin_player("heuristic" if s % 2 else "random") for s in range(4)]
        play_game(spec, players, path)
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _hand(rng: random.Random, n: int) -> tuple[list[int], int | None]:
    """One hand's points by seat (26 in all), and the moon shooter if any."""
    if rng.random() < 0.02:
        shooter = rng.randrange(n)
        return [0 if s == shooter else 26 for s in range(n)], shooter
    points = [0] * n
    for _ in range(13):  # the hearts, one at a time
        points[rng.randrange(n)] += 1
    points[rng.randrange(n)] += 13  # the queen of spades
    return points, None


def _placements(scores: Sequence[int]) -> list[int]:
    return [1 + sum(other < score for other in scores) for score in scores]


def synthesize(
    root: pathlib.Path,
    *,
    games: int,
    bots: Sequence[str] = tuple(f"bot{i:02d}" for i in range(1, 21)),
    seed: int = 1,
    key: bool = True,
    name: str = "synthetic",
    skill: dict[str, float] | None = None,
) -> Layout:
    """A finished tournament folder of ``games`` games between ``bots`` at tables of 4.

    Games come in duplicate sets of 4 (tables x deal sets x rotations);
    ``skill`` (bot -> weight, default: the later bots a little better) tilts
    the points away from the better bots. Without ``key`` the key file is
    removed at the end (a published folder).
    """
    rng = random.Random(seed)
    layout = Layout(root)
    root.mkdir(parents=True, exist_ok=True)
    layout.games.mkdir(exist_ok=True)
    folder_key = seal.create_key(root / seal.KEY_NAME)
    skill = skill or {b: 1.0 + i / len(bots) for i, b in enumerate(bots)}
    state = TournamentState(
        name=name,
        config_hash="0" * 16,
        config={"name": name, "bots": {b: "random" for b in bots}},
        seed=seed,
        participants=list(bots),
        games_scheduled=games,
        created_at="2026-01-01T00:00:00+00:00",
        key_id=seal.key_id(folder_key),
    )
    state.save(layout.state)
    template = template_log()
    journal = Journal(layout.journal, folder_key)
    try:
        journal.append({"type": "run", "run": 1, "games_left": games, **state.sealed_facts()})
        for bot in bots:
            info = {"name": bot, "version": "1", "author": "synth", "language": "Python"}
            journal.append({"type": "bot", "run": 1, "bot": bot, "status": "started", "info": info})
        tables = itertools.count(1)
        index = 0
        while index < games:
            table = next(tables)
            seated = rng.sample(list(bots), 4)
            for deal_set in (1, 2, 3):
                for rotation in range(4):
                    if index >= games:
                        break
                    order = seated[rotation:] + seated[:rotation]
                    game_id = f"t{table}-d{deal_set}-r{rotation + 1}"
                    entry = _game(rng, order, skill, game_id, index, table, deal_set, rotation)
                    data = _log(template, game_id, order)
                    path = layout.game_log(game_id)
                    path.write_bytes(data)
                    entry["log_path"] = layout.relative(path)
                    entry["log_mac"] = seal.log_mac(folder_key, data)
                    journal.append(entry)
                    index += 1
    finally:
        journal.close()
    if not key:
        (root / seal.KEY_NAME).unlink()
    return layout


def _game(
    rng: random.Random,
    order: Sequence[str],
    skill: dict[str, float],
    game_id: str,
    index: int,
    table: int,
    deal_set: int,
    rotation: int,
) -> dict[str, Any]:
    n = len(order)
    hand_scores: list[list[int]] = []
    totals = [0] * n
    moons = [0] * n
    while max(totals) < 100:
        points, shooter = _hand(rng, n)
        if shooter is None and rng.random() < 0.5:  # the better bot dodges some points
            best = max(range(n), key=lambda s: skill[order[s]] * rng.random())
            worst = min(range(n), key=lambda s: skill[order[s]] * rng.random())
            moved = min(points[best], 3)
            points[best] -= moved
            points[worst] += moved
        if shooter is not None:
            moons[shooter] += 1
        hand_scores.append(points)
        totals = [t + p for t, p in zip(totals, points, strict=True)]
    placements = _placements(totals)
    faults: list[dict[str, int]] = [{} for _ in order]
    if rng.random() < 0.05:
        faults[rng.randrange(n)] = {rng.choice(["timeout", "illegal_card"]): rng.randint(1, 3)}
    decisions = [13 * len(hand_scores) + 3 * len(hand_scores)] * n
    meta = {"index": index, "table": table, "deal_set": deal_set, "seating": rotation + 1}
    return {
        "type": "game",
        "game_id": game_id,
        "seed": f"{rng.getrandbits(128):032x}",
        "bots": list(order),
        "scores": totals,
        "placements": placements,
        "winners": [s for s in range(n) if placements[s] == 1],
        "hand_scores": hand_scores,
        "moons": moons,
        "faults": faults,
        "forfeited": [False] * n,
        "decisions": decisions,
        "think_ms": [round(d * rng.uniform(0.05, 3.0), 3) for d in decisions],
        "duration_s": 0.05,
        "meta": {"tournament": "synthetic", **meta},
        **meta,
        "run": 1,
    }


def _log(template: list[dict[str, Any]], game_id: str, order: Sequence[str]) -> bytes:
    header = dict(template[0], game_id=game_id)
    header["seats"] = [dict(s, bot=order[i]) for i, s in enumerate(template[0]["seats"])]
    lines = [header, *template[1:]]
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in lines).encode()
