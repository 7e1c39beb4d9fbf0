"""The tournament key: secret deals and results that cannot be forged.

Every tournament output folder holds a random 256-bit key in ``<out>/key``
(64 hex digits and a newline, mode 0600), made on the first run. It never
leaves the referee process: it is not in ``tournament.json``, a game spec, a
log, a request or a bot's environment. From it come:

- **the deal seeds**: :func:`game_seed` is HMAC-SHA-256 of the tournament
  seed and the game's place in the schedule (table, deal set), so nobody
  without the key can compute a deal in advance, even knowing the seed; the
  deal itself stays ``referee.engine.deal(rules, game_seed, hand)``, which
  anyone can recompute from the seed recorded in a log after the game;
- **the journal MACs**: each ``journal.jsonl`` line ends with a ``mac``
  member, HMAC-SHA-256 over the previous line's MAC and the line's own bytes
  (:func:`seal_line`, :func:`check_line`), so a changed, inserted, deleted or
  reordered line is caught;
- **the log MACs**: each game line of the journal carries ``log_mac``, the
  HMAC-SHA-256 of its game log's bytes (:func:`log_mac`);
- **the state MAC**: ``tournament.json`` carries ``state_mac``, the
  HMAC-SHA-256 of its other members (:func:`state_mac`), so that the end of
  the journal it records (``finished``) cannot be taken out of it.

Each use has its own domain string, so a MAC of one kind never passes for
another. A folder published without its key can be replayed and checked
against the rules, but neither authenticated nor used to predict the deals
of another tournament (each has its own key).

>>> key = bytes(range(32))
>>> game_seed(key, 7, table=1, deal_set=2)
'9c96996f2a8a023d4bb6c6de2216fc9a'
>>> line = seal_line(key, "", b'{"type":"journal"}')
>>> check_line(key, "", line) == line_mac(line)
True
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import pathlib
import re
import secrets
import stat

from referee import durable
from referee.folder.layout import KEY_NAME  # the key file's name in an output folder

__all__ = [
    "KEY_BYTES",
    "KEY_NAME",
    "SealError",
    "check_line",
    "create_key",
    "folder_key",
    "game_seed",
    "is_key_file",
    "key_id",
    "line_mac",
    "load_key",
    "log_mac",
    "open_key",
    "seal_line",
    "state_mac",
]

#: 256 bits.
KEY_BYTES = 32

_SEED_DOMAIN = b"hearts-referee/game-seed/v1\n"
_JOURNAL_DOMAIN = b"hearts-referee/journal-line/v1\n"
_LOG_DOMAIN = b"hearts-referee/game-log/v1\n"
_KEY_ID_DOMAIN = b"hearts-referee/key-id/v1\n"
_STATE_DOMAIN = b"hearts-referee/tournament-state/v1\n"
#: A sealed journal line ends with this member (then ``}`` and the newline).
_MAC_TAIL = re.compile(rb',"mac":"([0-9a-f]{64})"\}\r?\n?\Z')
_HEX_KEY = re.compile(r"[0-9a-f]{64}\n?\Z")


class SealError(Exception):
    """A key file that cannot be used, or a MAC that does not match; the message says which."""

    def __init__(self, reason: str, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__(f"{path}: {reason}" if path is not None else reason)
        #: What is wrong, without the file's name.
        self.reason = reason
        self.path = None if path is None else str(path)


# The key file --------------------------------------------------------------------------


def load_key(path: str | os.PathLike[str]) -> bytes:
    """The key in ``path``, refused unless it is 64 hex digits and only its owner may read it."""
    path = pathlib.Path(path)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise SealError("the key is not a regular file", path)
        text = path.read_bytes()
    except FileNotFoundError:
        raise SealError("no such key file", path) from None
    except OSError as error:
        raise SealError(f"cannot read the key file: {error.strerror}", path) from None
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        raise SealError(
            f"the key file has mode {mode:04o}, so others may read it; it must be 0600 "
            f"(chmod 600 {path}), and if others did read it, start a fresh tournament",
            path,
        )
    try:
        decoded = text.decode("ascii")
    except UnicodeDecodeError:
        decoded = ""
    if not _HEX_KEY.match(decoded):
        raise SealError(
            f"not a tournament key: expected {2 * KEY_BYTES} lowercase hex digits "
            f"({KEY_BYTES} bytes), got {len(text)} bytes",
            path,
        )
    return bytes.fromhex(decoded.strip())


def create_key(path: str | os.PathLike[str], key: bytes | None = None) -> bytes:
    """Write a new key file (``key``, else 32 random bytes) atomically, mode 0600.

    An existing key file is never replaced: if one appears meanwhile, it is
    the one returned (after :func:`load_key`'s checks).
    """
    path = pathlib.Path(path)
    key = secrets.token_bytes(KEY_BYTES) if key is None else key
    if len(key) != KEY_BYTES:
        raise ValueError(f"a key is {KEY_BYTES} bytes, not {len(key)}")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(key.hex().encode() + b"\n")
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(tmp, path)  # unlike a rename, never replaces a key already there
        except FileExistsError:
            return load_key(path)
    finally:
        tmp.unlink(missing_ok=True)
    durable.sync_folder(path.parent)
    return key


def is_key_file(name: str) -> bool:
    """A key file's name, or that of the temporary file :func:`create_key` writes first."""
    return name == KEY_NAME or (name.startswith(f".{KEY_NAME}.") and name.endswith(".tmp"))


def folder_key(root: str | os.PathLike[str]) -> bytes | None:
    """The key of an output folder, or None if it has no key file (a published folder)."""
    path = pathlib.Path(root) / KEY_NAME
    if not path.exists() and not path.is_symlink():
        return None
    return load_key(path)


def open_key(
    root: str | os.PathLike[str], key_file: str | os.PathLike[str] | None = None
) -> bytes | None:
    """The key to check a folder with: ``key_file`` if given, else the folder's (or None)."""
    return load_key(key_file) if key_file is not None else folder_key(root)


def key_id(key: bytes) -> str:
    """A public fingerprint of a key (it tells keys apart without revealing them)."""
    return hmac.new(key, _KEY_ID_DOMAIN, hashlib.sha256).hexdigest()[:16]


# Deals ------------------------------------------------------------------------------------


def game_seed(key: bytes, tournament_seed: int | str, *, table: int, deal_set: int) -> str:
    """The deal seed of a duplicate set: 128 bits of HMAC-SHA-256, as 32 hex digits.

    The message is the JSON array ``[tournament_seed as a string, table,
    deal_set]``, so no two places in a schedule share a message.
    """
    message = json.dumps([str(tournament_seed), table, deal_set], separators=(",", ":"))
    return hmac.new(key, _SEED_DOMAIN + message.encode(), hashlib.sha256).hexdigest()[:32]


# MACs -----------------------------------------------------------------------------------------


def log_mac(key: bytes, data: bytes) -> str:
    """The MAC of a game log's bytes (the journal's ``log_mac``)."""
    return hmac.new(key, _LOG_DOMAIN + data, hashlib.sha256).hexdigest()


def state_mac(key: bytes, body: bytes) -> str:
    """The MAC of a tournament state's canonical JSON (``tournament.json``'s ``state_mac``)."""
    return hmac.new(key, _STATE_DOMAIN + body, hashlib.sha256).hexdigest()


def _line_mac(key: bytes, previous: str, body: bytes) -> str:
    return hmac.new(
        key, _JOURNAL_DOMAIN + previous.encode("ascii") + b"\n" + body, hashlib.sha256
    ).hexdigest()


def seal_line(key: bytes, previous: str, body: bytes) -> bytes:
    """A journal line: ``body`` (one JSON object, no newline) with its ``mac`` as last member.

    The MAC covers ``previous`` (the MAC of the line before, ``""`` for the
    first line) and ``body`` exactly as written, so the chain catches lines
    changed, removed, inserted or moved.
    """
    body = body.rstrip(b"\n")
    if not body.endswith(b"}") or body == b"{}":
        raise ValueError("a journal line is a non-empty JSON object")
    mac = _line_mac(key, previous, body)
    return body[:-1] + b',"mac":"' + mac.encode() + b'"}\n'


def line_mac(line: bytes) -> str | None:
    """The MAC a sealed line carries (None if it has none)."""
    match = _MAC_TAIL.search(line)
    return match.group(1).decode() if match else None


def check_line(key: bytes, previous: str, line: bytes) -> str:
    """The line's MAC if it is the MAC of this line after ``previous``; else :class:`SealError`."""
    match = _MAC_TAIL.search(line)
    if match is None:
        raise SealError("no MAC: the line was not written by the referee (or was rewritten)")
    mac = match.group(1).decode()
    body = line[: match.start()] + b"}"
    if not hmac.compare_digest(mac, _line_mac(key, previous, body)):
        raise SealError(
            "the MAC does not match: the line was changed, lines before it were removed, "
            "inserted or moved, or it comes from another tournament"
        )
    return mac
