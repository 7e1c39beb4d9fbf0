"""Supplying bots for play: starting them, handing out their players, stopping them.

:class:`BotPool` turns specs (:class:`~referee.players.specs.BotSpec`) into
players (a launched process under the sandbox, a connection to a running
bot, or a built-in) and stops everything it started. :class:`BotSupply` hands
out the players of one game at a time under a bot lifetime (``run``,
``table``, or a fresh process per ``game`` with spares started ahead). A bot
that cannot start is stood in by a :class:`DeadPlayer`, whose every answer is
a fault. Launched bots run in a sandbox (:mod:`referee.sandbox.bwrap`) unless
their spec says ``sandbox="none"``.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import os
import pathlib
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from referee.players.base import BotFault, BotInfo, Deadline, FaultKind, Player
from referee.players.builtin import builtin_player
from referee.players.launcher import LaunchedBot
from referee.players.policy import FaultPolicy, Limits, TimeControl
from referee.players.remote import BotConnection, RemotePlayer
from referee.players.specs import BotSpec

__all__ = ["REFUSED_S", "BotPool", "BotSupply", "DeadPlayer"]

log = logging.getLogger(__name__)

#: How long a ``HOST:PORT`` bot may refuse connections before it is said not to be running.
REFUSED_S = 2.0


class DeadPlayer(Player):
    """Stands in for a bot that could not be started: every call is a fault."""

    def __init__(self, name: str, reason: str) -> None:
        self.info = BotInfo(name=name)
        self.reason = reason

    def _fail(self) -> Any:
        raise BotFault(FaultKind.START_FAILED, self.reason)

    def pass_cards(self, game_id: str, view: Any, decision_id: str, deadline: Deadline) -> Any:
        return self._fail()

    def play_card(self, game_id: str, view: Any, decision_id: str, deadline: Deadline) -> Any:
        return self._fail()


class BotPool:
    """Starts bots from specs, hands out their players, and stops them all.

    A launched bot is one process shared by every seat and game it plays, as
    are connections to running bots; built-ins are in-process objects.
    """

    def __init__(
        self,
        *,
        log_dir: str | os.PathLike[str],
        time_control: TimeControl | None = None,
        fault_policy: FaultPolicy | None = None,
        limits: Limits | None = None,
        sandbox: str = "bwrap",
        hidden: Sequence[str | os.PathLike[str]] = (),
        shared: bool = False,
    ) -> None:
        self.log_dir = pathlib.Path(log_dir)
        #: Each launched bot serves several games at once: a CPU quota instead of freezing.
        self.shared = shared
        #: The sandbox of launched bots whose spec does not choose one.
        self.sandbox = sandbox
        #: Folders no launched bot may see (the output folder).
        self.hidden = list(hidden)
        #: Default resource limits of launched bots; a spec's own limits override them.
        self.limits = limits or Limits()
        self.time_control = time_control or TimeControl()
        self.fault_policy = fault_policy or FaultPolicy()
        self._players: dict[str, Player] = {}
        self._connections: list[Any] = []
        self._failures: dict[str, str] = {}
        self._lock = threading.Lock()

    @property
    def failures(self) -> dict[str, str]:
        """Bots that could not be started, with the reason."""
        return dict(self._failures)

    def start(self, spec: BotSpec) -> Player:
        """Start (or connect to) a bot; raises :class:`BotFault` if it cannot."""
        player = self.launch(spec)
        with self._lock:
            self._players[spec.name] = player
        return player

    def stop(self, player: Player) -> None:
        """Stop one player's process (or connection) started by :meth:`launch`."""
        conn = getattr(player, "connection", None)
        if conn is None:
            return
        with self._lock:
            if conn in self._connections:
                self._connections.remove(conn)
        with contextlib.suppress(Exception):
            conn.close()

    def launch(self, spec: BotSpec) -> Player:
        """A new player for ``spec`` (a new process for a launched bot), not kept by name."""
        tc, policy = self.time_control, self.fault_policy
        if spec.builtin:
            player = builtin_player(spec.builtin)
        elif spec.address:
            conn = BotConnection(spec.address, max_message_bytes=policy.max_message_bytes)
            with self._lock:
                self._connections.append(conn)
            # A HOST:PORT bot is started by the user: refused connections mean it is not running.
            conn.wait_serving(tc.startup_timeout_ms / 1000, refused_s=REFUSED_S)
            conn.handshake(max(tc.notify_timeout_ms / 1000, 5.0))
            player = RemotePlayer(conn)
        else:
            assert spec.command is not None
            try:
                bot = LaunchedBot(
                    spec.name,
                    spec.command,
                    cwd=spec.cwd,
                    log_dir=self.log_dir,
                    startup_timeout_s=tc.startup_timeout_ms / 1000,
                    handshake_timeout_s=max(tc.notify_timeout_ms / 1000, 5.0),
                    max_restarts=policy.max_restarts,
                    max_message_bytes=policy.max_message_bytes,
                    limits={**self.limits.to_dict(), **spec.limits},
                    sandbox=spec.sandbox or self.sandbox,
                    folder=spec.folder,
                    hidden=[*self.hidden, self.log_dir],
                    shared=self.shared,
                )
            except ValueError as error:
                raise BotFault(FaultKind.START_FAILED, str(error)) from None
            with self._lock:
                self._connections.append(bot)
            bot.start()
            player = RemotePlayer(bot)
        return player

    def start_or_stand_in(self, spec: BotSpec) -> Player:
        """Start a bot; if it cannot start, a :class:`DeadPlayer` records why."""
        try:
            return self.start(spec)
        except BotFault as fault:
            reason = f"did not start: {fault.message}"
            log.info("bot %s %s", spec.name, reason)  # the runner says it once
            with self._lock:
                self._failures[spec.name] = reason
                player = DeadPlayer(spec.name, reason)
                self._players[spec.name] = player
            return player

    def start_all(self, specs: Iterable[BotSpec], *, stand_in: bool = True) -> dict[str, Player]:
        """Start several bots at once (their start-ups overlap)."""
        specs = list(specs)
        start = self.start_or_stand_in if stand_in else self.start
        errors: list[BaseException] = []

        def run(spec: BotSpec) -> None:
            try:
                start(spec)
            except BotFault as fault:
                # Several bots start at once: the message says which one did not.
                errors.append(
                    BotFault(fault.kind, f"{spec.name}: {fault.message}", status=fault.status)
                )
            except BaseException as error:
                errors.append(error)

        threads = [threading.Thread(target=run, args=(s,), daemon=True) for s in specs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return {s.name: self._players[s.name] for s in specs}

    def player(self, name: str) -> Player:
        return self._players[name]

    def restarts(self) -> dict[str, int]:
        return {c.name: c.restarts for c in self._connections if isinstance(c, LaunchedBot)}

    def close(self) -> None:
        """Stop every launched bot and close every connection."""
        with self._lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            with contextlib.suppress(Exception):
                conn.close()

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


BotEvent = Callable[[dict[str, Any]], None]


class BotSupply:
    """Players for one game at a time, with launched bots' processes living as long as ``lifetime``.

    - ``run``: one process per bot, for every game;
    - ``table``: one per bot per table: a game of another table gets a new one
      (and the idle process of the old table is stopped);
    - ``game``: a fresh process (a fresh sandbox, a fresh tmp) for every game,
      so that nothing a bot remembers carries over to the next game of a
      duplicate set. A spare process of each bot is started ahead, while the
      current game plays, so that the start cost overlaps play.

    Built-ins and running bots (``host:port``) are shared whatever the
    lifetime. A bot that cannot start is stood in by a :class:`DeadPlayer`
    for that game. ``on_event`` hears of each bot's first start and of every
    failure, as ``{"bot", "status", ...}`` dicts.
    """

    def __init__(
        self,
        pool: BotPool,
        specs: Mapping[str, BotSpec],
        *,
        lifetime: str,
        broken: Mapping[str, str] | None = None,
        on_event: BotEvent | None = None,
    ) -> None:
        if lifetime not in ("game", "table", "run"):
            raise ValueError(f"lifetime must be game, table or run, not {lifetime!r}")
        self.pool = pool
        self.specs = dict(specs)
        self.lifetime = lifetime
        self.broken = dict(broken or {})
        self.on_event = on_event or (lambda event: None)
        self._lock = threading.Lock()
        self._shared: dict[str, Player] = {}
        self._by_table: dict[str, tuple[Any, Player, int]] = {}  # name -> (table, player, users)
        self._spares: dict[str, list[concurrent.futures.Future[Player]]] = {}
        self._in_game: dict[Any, list[Player]] = {}
        self._reported: set[str] = set()
        self._closed = False
        self._starter = concurrent.futures.ThreadPoolExecutor(4, thread_name_prefix="bot-start")

    def _fresh(self, name: str) -> bool:
        spec = self.specs[name]
        return spec.command is not None and name not in self.broken and self.lifetime != "run"

    def _start(self, name: str) -> Player:
        """A new player for ``name``, or a stand-in that says why it could not start."""
        if name in self.broken:
            self._report(name, "build_failed", self.broken[name])
            return DeadPlayer(name, self.broken[name])
        try:
            player = self.pool.launch(self.specs[name])
        except BotFault as fault:
            reason = f"did not start: {fault.message}"
            log.info("bot %s %s", name, reason)  # the runner says it once
            self._report(name, "start_failed", reason, always=True)
            return DeadPlayer(name, reason)
        self._report(name, "started", info=player.info.to_dict())
        return player

    def _report(
        self, name: str, status: str, reason: str = "", *, always: bool = False, **extra: Any
    ) -> None:
        with self._lock:
            if name in self._reported and not always:
                return
            self._reported.add(name)
        event: dict[str, Any] = {"bot": name, "status": status, **extra}
        if reason:
            event["reason"] = reason
        self.on_event(event)

    def warm_up(self, names: Iterable[str]) -> None:
        """Start the bots (or, for ``game``, their first spares) now rather than at the first game."""
        names = list(names)
        if self.lifetime == "game":
            for name in names:
                if self._fresh(name):
                    self._add_spare(name)
            for name in names:
                for future in list(self._spares.get(name, [])):
                    future.result()
            return
        for name in names:
            if not self._fresh(name):
                self._shared_player(name)

    def _shared_player(self, name: str) -> Player:
        with self._lock:
            player = self._shared.get(name)
        if player is None:
            player = self._start(name)
            with self._lock:
                self._shared.setdefault(name, player)
                player = self._shared[name]
        return player

    def _add_spare(self, name: str) -> None:
        with self._lock:
            if self._closed:
                return
            future = self._starter.submit(self._start, name)
            self._spares.setdefault(name, []).append(future)

    def _take_spare(self, name: str) -> Player:
        with self._lock:
            queue = self._spares.get(name) or []
            future = queue.pop(0) if queue else None
        self._add_spare(name)  # the next game's, started while this one plays
        return future.result() if future is not None else self._start(name)

    def players(self, game: Any, table: Any, names: Sequence[str]) -> list[Player]:
        """The players of game ``game`` (a key) at ``table``, by seat."""
        by_name: dict[str, Player] = {}
        for name in dict.fromkeys(names):
            if not self._fresh(name):
                by_name[name] = self._shared_player(name)
            elif self.lifetime == "game":
                by_name[name] = self._take_spare(name)
            else:
                by_name[name] = self._table_player(name, table)
        with self._lock:
            self._in_game[game] = [p for n, p in by_name.items() if self._fresh(n)]
        return [by_name[n] for n in names]

    def _table_player(self, name: str, table: Any) -> Player:
        old = None
        with self._lock:
            current = self._by_table.get(name)
            if current is not None and current[0] == table:
                self._by_table[name] = (table, current[1], current[2] + 1)
                return current[1]
            if current is not None and current[2] == 0:
                old = current[1]
        if old is not None:
            self.pool.stop(old)
        player = self._start(name)
        with self._lock:
            self._by_table[name] = (table, player, 1)
        return player

    def release(self, game: Any) -> None:
        """Game ``game`` is over: stop its fresh processes (``game``) or count it done (``table``)."""
        with self._lock:
            used = self._in_game.pop(game, [])
        if self.lifetime == "game":
            for player in used:  # in the background: the next game need not wait for it
                with self._lock:
                    if not self._closed:
                        self._starter.submit(self.pool.stop, player)
                        continue
                self.pool.stop(player)
            return
        with self._lock:
            for name, (table, player, users) in list(self._by_table.items()):
                if player in used:
                    self._by_table[name] = (table, player, max(0, users - 1))

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._starter.shutdown(wait=True, cancel_futures=True)
        self.pool.close()
