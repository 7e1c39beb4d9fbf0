"""The simultaneous passes are asked one seat at a time only when a bot of the game is frozen.

A bot frozen between its calls (caught using CPU there) must not run while
another thinks, so its game's passes are asked one after the other; while no
bot of the game is frozen they are asked together (R2: no request shows
another's pass either way), which costs nothing.
"""

from __future__ import annotations

import pathlib
import threading
import time

import pytest

from referee.engine import Rules
from referee.match.runner import GameSpec, play_game
from referee.players.builtin import RandomPlayer


class Counting(RandomPlayer):
    """A random bot out of process (asked from a thread) that counts passes asked at once."""

    out_of_process = True

    def __init__(self, frozen: bool, seen: list[int], lock: threading.Lock) -> None:
        super().__init__()
        self.runs_only_when_asked = frozen
        self.seen, self.lock = seen, lock

    def pass_cards(self, game_id, view, decision_id, deadline):  # type: ignore[no-untyped-def]
        with self.lock:
            self.seen[0] += 1
            self.seen[1] = max(self.seen[1], self.seen[0])
        time.sleep(0.1)  # long enough for the others to be asked meanwhile, if they are
        with self.lock:
            self.seen[0] -= 1
        return super().pass_cards(game_id, view, decision_id, deadline)


@pytest.mark.parametrize(("frozen", "at_once"), [(0, 4), (1, 1)])
def test_passes_are_asked_one_at_a_time_only_beside_a_frozen_bot(
    tmp_path: pathlib.Path, frozen: int, at_once: int
) -> None:
    seen, lock = [0, 0], threading.Lock()  # [asked now, most asked at once]
    players = [Counting(seat < frozen, seen, lock) for seat in range(4)]
    spec = GameSpec(game_id="g", seed=23, bots=("a", "b", "c", "d"), rules=Rules(target_score=30))
    play_game(spec, players, tmp_path / "g.jsonl")
    assert seen[1] == at_once  # R2: the passes are still simultaneous in what each sees
