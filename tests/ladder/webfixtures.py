"""A ladder folder for the web tests: a synthetic tournament folder, a database of teams whose
bots played in it, and the app over both (no service loop: the tests play its part)."""

from __future__ import annotations

import dataclasses
import pathlib
import random

from referee.folder import Journal, Layout, seal
from referee.ladder.config import LadderConfig, parse_ladder_config
from referee.ladder.db import LadderDB
from referee.ladder.web import LadderSite
from tests.web import synth

__all__ = ["TEAMS", "Built", "append_game", "make_ladder"]

#: Team -> its bots; each has one active version (``bot.v1``) that played the synthetic games.
TEAMS = {"owls": ["hoot", "screech"], "larks": ["trill", "song"]}


@dataclasses.dataclass
class Built:
    site: LadderSite
    tokens: dict[str, str]
    received: list[int]

    @property
    def root(self) -> pathlib.Path:
        return self.site.root

    @property
    def db(self) -> LadderDB:
        return self.site.db


def make_ladder(
    tmp: pathlib.Path, *, games: int = 24, submissions: dict[str, object] | None = None
) -> Built:
    """The ladder folder ``tmp/ladder`` with :data:`TEAMS` and ``games`` synthetic games."""
    root = tmp / "ladder"
    players = [f"{b}.v1" for bots in TEAMS.values() for b in bots]
    synth.synthesize(root, games=games, bots=players, name="class-ladder")
    config: LadderConfig = parse_ladder_config(
        {"name": "class-ladder", "output": str(root), "submissions": submissions or {}},
        path=tmp / "LADDER.yaml",
    )
    db = LadderDB(root / "ladder.db")
    tokens = {}
    for team, bots in TEAMS.items():
        record, tokens[team] = db.add_team(team)
        for bot in bots:
            sub = db.new_submission(record, bot, per_hour=100)
            for state in ("received", "building", "checking"):
                db.set_state(sub.id, state)
            db.activate(sub.id, keep=1)
    received: list[int] = []
    site = LadderSite(root, db, config, on_received=lambda: received.append(1))
    return Built(site, tokens, received)


def append_game(root: pathlib.Path, seed: int = 99) -> str:
    """One more game journaled in the synthetic folder at ``root`` (as the ladder would)."""
    layout = Layout(root)
    key = seal.folder_key(root)
    assert key is not None
    rng = random.Random(seed)
    players = [f"{b}.v1" for bots in TEAMS.values() for b in bots]
    order = rng.sample(players, 4)
    game_id = f"x{seed}-d1-r1"
    entry = synth._game(rng, order, dict.fromkeys(players, 1.0), game_id, 10_000 + seed, 900, 1, 0)
    data = synth._log(synth.template_log(), game_id, order)
    path = layout.game_log(game_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    entry["log_path"] = layout.relative(path)
    entry["log_mac"] = seal.log_mac(key, data)
    journal = Journal(layout.journal, key)
    try:
        journal.append(entry)
    finally:
        journal.close()
    return game_id
