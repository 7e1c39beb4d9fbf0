"""Every limit kind has its sandbox exit code, mapped in one place (the launcher)."""

from __future__ import annotations

from referee.engine import LIMIT_KINDS, FaultKind
from referee.players import launcher
from referee.sandbox import supervisor as sandbox


def test_the_launcher_maps_every_limit_exit_to_its_kind() -> None:
    exits = {getattr(sandbox, name) for name in dir(sandbox) if name.startswith("EXIT_")}
    assert set(launcher._LIMIT_EXITS) == exits
    assert set(launcher._LIMIT_EXITS.values()) == LIMIT_KINDS
    assert len(set(launcher._LIMIT_EXITS.values())) == len(exits), "one kind per code"
    for kind in launcher._LIMIT_EXITS.values():
        assert isinstance(kind, FaultKind)
