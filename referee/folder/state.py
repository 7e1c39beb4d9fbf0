"""``tournament.json`` (:class:`TournamentState`) and the folder's key, from its creation on.

The state is what a resumed run must agree with (the config's hash, the
seed, the participants), sealed with the folder's key (``state_mac``). The
key (:mod:`referee.folder.seal`) is made with a new folder, or copied in from
``--key-file``; a resumed folder must still have it, or have it given back
(:func:`new_folder_key`, :func:`resumed_folder_key`). The formats are
documented in docs/config.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import hmac
import json
import os
import pathlib
import secrets
from collections.abc import Mapping
from typing import Any, Protocol

from referee import __version__, durable
from referee.folder import seal
from referee.folder.checks import KeySpec, is_int, is_mac, keys_problem, strs
from referee.folder.entries import RunEntry
from referee.folder.errors import TournamentError
from referee.folder.layout import Layout
from referee.stats.standings import RANKING_KEYS

__all__ = [
    "STATE_FORMAT",
    "STATE_VERSION",
    "TournamentState",
    "given_key",
    "new_folder_key",
    "resumed_folder_key",
    "start_state",
    "state_problem",
    "write_atomic",
]

STATE_FORMAT = "hearts-referee/tournament"
#: 2: the folder has a key (``key_id``); a version 1 folder is read but not resumed.
#: 3: the state is sealed (``state_mac``) and records the journal's end (``finished``).
STATE_VERSION = 3


@dataclasses.dataclass(kw_only=True)
class TournamentState:
    """``tournament.json``: what a resumed run must agree with."""

    name: str
    config_hash: str
    #: The canonical config (to say what changed when a config is refused).
    config: dict[str, Any]
    seed: int
    #: Bots in the schedule; None until the first run's builds are done.
    participants: list[str] | None = None
    #: Bots left out after a failed build, with the reason.
    excluded: dict[str, str] = dataclasses.field(default_factory=dict)
    games_scheduled: int | None = None
    ranking: str = "points"
    created_at: str = ""
    referee_version: str = __version__
    #: The fingerprint of the folder's key (:func:`referee.folder.seal.key_id`), never the key;
    #: None for a folder of an older referee, made without a key.
    key_id: str | None = None
    #: The journal's last ``end`` entry once the tournament is finished: ``games`` (game
    #: entries before it), ``line`` (its line number) and ``end_mac`` (its MAC). The
    #: journal must still hold that line (:func:`~referee.folder.authenticate.end_problems`);
    #: None while unfinished.
    finished: dict[str, Any] | None = None
    #: The MAC of the other members (:meth:`sealed_body`, :func:`referee.folder.seal.state_mac`),
    #: set by :meth:`save` with the key; None in a folder of an older referee.
    state_mac: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"format": STATE_FORMAT, "version": STATE_VERSION, **dataclasses.asdict(self)}

    def sealed_body(self) -> bytes:
        """What ``state_mac`` covers: :meth:`to_dict` less ``state_mac``, as canonical JSON."""
        data = {k: v for k, v in self.to_dict().items() if k != "state_mac"}
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8")

    def seal_problem(self, key: bytes) -> str | None:
        """Why ``state_mac`` does not authenticate this state with ``key`` (None when it does)."""
        if self.state_mac is None:
            return "not sealed (no state_mac)"
        if not hmac.compare_digest(self.state_mac, seal.state_mac(key, self.sealed_body())):
            return (
                "its seal (state_mac) does not match: it was changed after the referee wrote "
                "it, or comes from another tournament"
            )
        return None

    def sealed_facts(self) -> dict[str, Any]:
        """What every ``run`` entry of the journal repeats under its MAC (see load_standings)."""
        return {name: getattr(self, name) for name in RunEntry.SEALED_FACTS}

    @classmethod
    def load(cls, path: pathlib.Path) -> TournamentState:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as error:
            raise TournamentError(f"{path}: cannot read the tournament state: {error}") from None
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            raise TournamentError(f"{path}: not a tournament state file ({STATE_FORMAT})")
        if data.get("version") not in (1, 2, STATE_VERSION):
            raise TournamentError(
                f"{path}: state version {data.get('version')!r}; this referee reads {STATE_VERSION}"
            )
        problem = state_problem(data)
        if problem:
            raise TournamentError(f"{path}: {problem}")
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TournamentState:
        """The state of checked data (:func:`state_problem`); unknown keys are left out."""
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})

    def save(self, path: pathlib.Path, *, key: bytes | None = None) -> None:
        """Write ``tournament.json`` atomically, sealed with ``key`` (the runner always gives it)."""
        self.state_mac = None
        if key is not None:
            self.state_mac = seal.state_mac(key, self.sealed_body())
        write_atomic(path, json.dumps(self.to_dict(), indent=2) + "\n")


_STATE_KEYS: dict[str, KeySpec] = {
    "name": (True, lambda v: isinstance(v, str) and v, "the tournament's name"),
    "config_hash": (True, lambda v: isinstance(v, str) and v, "the config's hash (hex digits)"),
    "config": (
        True,
        lambda v: (
            isinstance(v, dict)
            and all(isinstance(v.get(k, {}), dict) for k in ("bots", "rules", "schedule"))
        ),
        "the canonical config (an object whose bots, rules and schedule are objects)",
    ),
    "seed": (True, is_int, "an integer"),
    "participants": (False, lambda v: v is None or strs(v), "a list of bot names"),
    "excluded": (
        False,
        lambda v: isinstance(v, dict) and all(isinstance(r, str) for r in v.values()),
        "an object of bot name: reason",
    ),
    "games_scheduled": (False, lambda v: v is None or (is_int(v) and v >= 0), "a number"),
    "ranking": (False, lambda v: v in RANKING_KEYS, f"a ranking key ({', '.join(RANKING_KEYS)})"),
    "created_at": (False, lambda v: isinstance(v, str), "a time"),
    "referee_version": (False, lambda v: isinstance(v, str), "a version"),
    "key_id": (False, lambda v: v is None or isinstance(v, str), "the key's id (hex digits)"),
    "finished": (
        False,
        lambda v: (
            v is None
            or (
                isinstance(v, dict)
                and is_int(v.get("games"))
                and v["games"] >= 0
                and is_int(v.get("line"))
                and v["line"] >= 1
                and is_mac(v.get("end_mac"))
            )
        ),
        "null, or the journal's end: {games, line, end_mac}",
    ),
    "state_mac": (False, lambda v: v is None or is_mac(v), "a MAC (64 hex digits)"),
}


class FolderConfig(Protocol):
    """What a new folder's state is made of: a tournament's config or a ladder's."""

    @property
    def name(self) -> str: ...
    @property
    def seed(self) -> int | None: ...
    @property
    def ranking(self) -> str: ...
    @property
    def path(self) -> pathlib.Path: ...
    def canonical(self) -> dict[str, Any]: ...


def start_state(
    layout: Layout, config: FolderConfig, *, config_hash: str, key: bytes
) -> TournamentState:
    """A new folder's ``tournament.json``, saved sealed with ``key``, the config file copied
    beside it (:attr:`Layout.config`; best effort: the canonical config is in the state).

    The one way a folder is begun, by the tournament runner and the ladder alike.
    """
    state = TournamentState(
        name=config.name,
        config_hash=config_hash,
        config=config.canonical(),
        # 128 bits, though the deals do not depend on the seed's secrecy but on the key's.
        seed=config.seed if config.seed is not None else secrets.randbits(128),
        ranking=config.ranking,
        created_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        key_id=seal.key_id(key),
    )
    with contextlib.suppress(OSError):
        layout.config.write_bytes(config.path.read_bytes())
    state.save(layout.state, key=key)
    return state


def state_problem(data: Mapping[str, Any]) -> str | None:
    """What is wrong with the fields of ``tournament.json`` ("key: expected ..."), or None."""
    return keys_problem(data, _STATE_KEYS)


def write_atomic(path: pathlib.Path, text: str) -> None:
    """Write a whole text file so that a crash leaves the old or the new one, never half."""
    durable.write_bytes(path, text.encode("utf-8"))


# The key ----------------------------------------------------------------------------------


def given_key(key_file: str | os.PathLike[str] | None) -> bytes | None:
    """The key of ``--key-file`` (None without one); a bad key file is named."""
    try:
        return seal.load_key(key_file) if key_file is not None else None
    except seal.SealError as error:
        raise TournamentError(f"--key-file: {error}") from None


def new_folder_key(
    layout: Layout, given: bytes | None, key_file: str | os.PathLike[str] | None = None
) -> bytes:
    """The key of a new folder: ``given`` (``--key-file``'s) copied in, else a new random one.

    A key already in the folder (a first run that died before its state was
    saved) is kept, and must then be the one given.
    """
    path = layout.key
    try:
        key = seal.create_key(path, given)
    except seal.SealError as error:
        raise TournamentError(str(error)) from None
    except OSError as error:
        raise TournamentError(f"{path}: cannot write the key: {error.strerror}") from None
    if given is not None and key != given:
        raise TournamentError(_key_mismatch(path, key_file))
    return key


def resumed_folder_key(
    layout: Layout,
    state: TournamentState,
    given: bytes | None,
    key_file: str | os.PathLike[str] | None = None,
) -> bytes:
    """The key of the tournament being resumed: the folder's, or ``given`` put back.

    Refused: a folder of an older referee (made without a key), a key that is
    missing and not given, and a key that is not the tournament's (its id
    differs from ``state.key_id``).
    """
    root, path = layout.root, layout.key
    if state.key_id is None:
        raise TournamentError(
            f"{root} holds a tournament of an older referee, made without a key; finish it "
            "with that referee, or use --fresh to move it aside and start over"
        )
    try:
        own = seal.folder_key(root)
    except seal.SealError as error:
        raise TournamentError(str(error)) from None
    if own is not None and given is not None and own != given:
        raise TournamentError(_key_mismatch(path, key_file))
    key = own or given
    if key is None:
        raise TournamentError(
            f"{path}: the tournament's key is missing, and the deals of the games left and "
            "the journal's MACs depend on it: put it back, or give it with --key-file"
        )
    if seal.key_id(key) != state.key_id:
        raise TournamentError(
            f"{key_file or path}: not this tournament's key (key id {seal.key_id(key)}; "
            f"the tournament's is {state.key_id})"
        )
    if own is None:
        seal.create_key(path, key)
    return key


def _key_mismatch(path: pathlib.Path, key_file: str | os.PathLike[str] | None) -> str:
    return (
        f"{path.parent} already has a different key ({path}) than --key-file {key_file}; "
        "a tournament keeps its key: drop --key-file, or choose another output folder (--out)"
    )
