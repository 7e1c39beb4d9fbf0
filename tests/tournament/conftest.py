"""Fixtures of the tournament tests: configs in temporary folders, process checks."""

from __future__ import annotations

import json
import pathlib
import shutil
from typing import Any

import pytest

from tests.helpers import (  # noqa: F401 (re-exported)
    processes_in,
    wait_no_processes_in,
    write_config,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE_HEURISTIC = ROOT / "sample_bots" / "python" / "heuristic"


def copy_heuristic(folder: pathlib.Path, name: str = "hbot") -> pathlib.Path:
    """A copy of the Python heuristic sample bot's folder (so its processes run in ``folder``)."""
    target = folder / name
    shutil.copytree(SAMPLE_HEURISTIC, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def journal_games(path: pathlib.Path) -> dict[str, dict[str, Any]]:
    """The game entries of a journal by game id (the deterministic fields only)."""
    keep = ("bots", "seed", "scores", "placements", "winners", "hand_scores", "moons")
    games = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        if entry["type"] == "game":
            assert entry["game_id"] not in games, f"{entry['game_id']} journaled twice"
            games[entry["game_id"]] = {k: entry[k] for k in keep} | {
                "faults": entry["faults"],
                "forfeited": entry["forfeited"],
            }
    return games


def without_timing(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Standings rows without what differs from run to run (timings, per-run notes)."""
    return [{k: v for k, v in r.items() if k not in ("ms_per_decision", "notes")} for r in rows]


@pytest.fixture
def builtin_config(tmp_path: pathlib.Path) -> pathlib.Path:
    """A quick tournament of five built-in bots (5 tables x 1 deal set x 4 rotations)."""
    return write_config(
        tmp_path,
        """
        name: quick
        seed: 7
        bots: {r1: random, r2: random, h1: heuristic, h2: heuristic, h3: heuristic}
        rules: {target_score: 40}
        concurrency: 2
        output: out
        """,
    )
