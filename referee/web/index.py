"""What the pages show, kept up to date in memory: one :class:`FolderIndex` per tournament folder.

A request never reads the journal: it reads the folder's current
:class:`Snapshot`, made by the watcher thread (:class:`Catalog`), which
follows every journal with a :class:`~referee.web.journal.JournalTail` and
keeps, per folder:

- the game rows (for the filterable game list), and per bot the points per
  hand (a histogram), appended as games are journaled;
- the standings (:func:`referee.stats.standings.compute_standings` over the
  journal's entries, exactly what ``referee standings`` prints) and each
  bot's OpenSkill ordinal after each of its games, recomputed when the
  journal has grown; this costs time proportional to the games (about a
  second per few thousand games), so it runs at most once per four times
  its last duration: a 10,000-game tournament's standings move every few
  seconds while it plays, a small one's at once;
- the slowest decisions per bot, from a scan of the game logs
  (:mod:`referee.web.slowest`; each log read once, in the background; the
  page says how far the scan is);
- the gauntlet's sequential test: entries of the journal with an ``llr``
  (see docs/serve.md).

Everything read is data: strings go to the page as JSON and are put in with
``textContent``; they are also made :func:`~referee.safetext.printable`.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import os
import pathlib
import re
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

from referee.folder import JournalError, Layout, TournamentError, TournamentState, seal
from referee.safetext import shown_name, shown_text
from referee.stats.ratings import Ratings
from referee.stats.standings import RANKING_KEYS, compute_standings
from referee.web.journal import JournalReset, JournalTail, log_path
from referee.web.slowest import SlowestDecisions

__all__ = [
    "FILTERS",
    "Catalog",
    "FolderIndex",
    "GameRow",
    "Snapshot",
    "filter_games",
    "game_index",
    "rating_history",
]

log = logging.getLogger(__name__)

#: A tournament folder is named by its path under the served folder, made of these.
_ID_PART = re.compile(r"^[A-Za-z0-9_.+-]{1,128}$")
#: How deep under the served folder tournament folders are looked for.
MAX_DEPTH = 3
#: A journal written to within this long is taken as a tournament being played.
LIVE_WINDOW_S = 120.0
#: Points of a bot's rating chart at most (older games are thinned out beyond it).
MAX_RATING_POINTS = 2000
#: Journal lines read at once beyond which the standings wait for the next round.
BATCH = 500


@dataclasses.dataclass(frozen=True, slots=True)
class GameRow:
    """One game of the game list (what the filters need, and the line shown)."""

    index: int
    position: int
    game_id: str
    bots: tuple[str, ...]
    scores: tuple[int, ...]
    placements: tuple[int, ...]
    hands: int
    moons: tuple[int, ...]
    faults: tuple[int, ...]
    fault_kinds: tuple[tuple[str, ...], ...]
    forfeited: tuple[bool, ...]
    log: str | None
    log_mac: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "game_id": shown_name(self.game_id),
            "bots": [shown_name(b) for b in self.bots],
            "scores": list(self.scores),
            "placements": list(self.placements),
            "hands": self.hands,
            "moons": list(self.moons),
            "faults": list(self.faults),
            "fault_kinds": [[shown_name(k) for k in kinds] for kinds in self.fault_kinds],
            "forfeited": list(self.forfeited),
            "has_log": self.log is not None,
        }


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """A folder as the pages show it at one moment; replaced, never changed."""

    id: str
    version: int
    name: str
    #: ``starting``, ``playing``, ``finished``, ``stopped`` (unfinished, not written lately),
    #: ``refused`` (failed authentication) or ``unreadable``.
    status: str
    games_played: int
    games_scheduled: int | None
    #: True: every line checked with the key; False: no key (a published folder).
    authenticated: bool
    error: str | None
    updated_at: float | None
    #: True until the first pass over the journal (and the standings) is done.
    indexing: bool
    standings: dict[str, Any] | None
    #: The time the standings were computed, and the games they count.
    standings_games: int
    bots: Mapping[str, dict[str, Any]]
    games: tuple[GameRow, ...]
    gauntlet: dict[str, Any] | None
    is_gauntlet: bool
    missing_logs: int
    scan: dict[str, int]
    #: A gauntlet's candidate (its config's ``gauntlet.candidate``), the bot its list line is about.
    candidate: str | None = None

    def summary(self) -> dict[str, Any]:
        """The line of the tournament list."""
        return {
            "id": self.id,
            "name": shown_name(self.name),
            "version": self.version,
            "status": self.status,
            "games_played": self.games_played,
            "games_scheduled": self.games_scheduled,
            "authenticated": self.authenticated,
            "error": shown_text(self.error) if self.error else None,
            "updated_at": self.updated_at,
            "indexing": self.indexing,
            "is_gauntlet": self.is_gauntlet,
            "leader": self._leader(),
        }

    def _leader(self) -> str | None:
        """The list's "leader": the top bot, or in a gauntlet the candidate and its rank (the
        top bot there may be an opponent, which is not what a gauntlet is about)."""
        if not (self.standings and self.standings["bots"] and self.games_played):
            return None
        rows = self.standings["bots"]
        if self.is_gauntlet and self.candidate:
            rank = next((r["rank"] for r in rows if r["bot"] == self.candidate), None)
            where = f" (rank {rank} of {len(rows)})" if rank is not None else ""
            return f"candidate {shown_name(self.candidate)}{where}"
        return shown_name(rows[0]["bot"])


def _candidate(config: Mapping[str, Any]) -> str | None:
    """A gauntlet config's candidate, when it names one."""
    gauntlet = config.get("gauntlet")
    candidate = gauntlet.get("candidate") if isinstance(gauntlet, Mapping) else None
    return candidate if isinstance(candidate, str) else None


def _empty(folder_id: str, name: str, status: str, error: str | None = None) -> Snapshot:
    return Snapshot(
        id=folder_id,
        version=0,
        name=name,
        status=status,
        games_played=0,
        games_scheduled=None,
        authenticated=False,
        error=error,
        updated_at=None,
        indexing=status == "starting",
        standings=None,
        standings_games=0,
        bots={},
        games=(),
        gauntlet=None,
        is_gauntlet=False,
        missing_logs=0,
        scan={"scanned": 0, "games": 0},
    )


class _Bot:
    """What is kept per bot as games arrive."""

    def __init__(self) -> None:
        self.points = collections.Counter[int]()
        self.info: dict[str, Any] = {}


class FolderIndex:
    """One tournament folder, followed: :meth:`refresh` reads what changed, :attr:`snapshot` shows it."""

    def __init__(self, folder_id: str, root: pathlib.Path) -> None:
        self.id = folder_id
        self.layout = Layout(root)
        self._lock = threading.Lock()
        self.snapshot = _empty(folder_id, root.name, "starting")
        self._version = 0
        self._reset()

    def _reset(self) -> None:
        self._state: TournamentState | None = None
        self._tail: JournalTail | None = None
        self._key: bytes | None = None
        #: Game and bot entries, for the standings.
        self._entries: list[dict[str, Any]] = []
        self._games: list[GameRow] = []
        self._seen: set[str] = set()
        self._bots: dict[str, _Bot] = collections.defaultdict(_Bot)
        self._slowest = SlowestDecisions()
        self._llr: list[dict[str, Any]] = []
        self._tracker: Any = None
        self._sprt: dict[str, list[dict[str, Any]]] = {}
        self._error: str | None = None
        self._open_error: str | None = None
        self._standings: dict[str, Any] | None = None
        self._ratings: dict[str, list[tuple[int, float]]] = {}
        self._standings_games = -1
        self._next_compute = 0.0
        self._scanned = 0
        self._missing = 0
        self._first = True

    @property
    def pending(self) -> bool:
        """The standings lag behind the games read (they are recomputed at most so often)."""
        return (
            self._state is not None
            and self._error is None
            and len(self._seen) != self._standings_games
        )

    # Reading ------------------------------------------------------------------------------

    def refresh(self, *, scan_budget_s: float = 0.1) -> bool:
        """Read what changed; True if the snapshot changed.

        The snapshot's ``version`` goes up when games or standings change, not
        when the scan of the logs for slow decisions moves on.
        """
        with self._lock:
            try:
                data, scan = self._refresh(scan_budget_s)
            except JournalReset as reset:
                log.info("%s: %s; reading it again", self.layout.root, reset)
                self._reset()
                data, scan = self._refresh(scan_budget_s)
            if data or scan:
                self._publish(new_version=data)
            return data or scan

    def _refresh(self, scan_budget_s: float) -> tuple[bool, bool]:
        if self._error is not None:
            return False, False
        if self._state is None:
            before = self._open_error
            if not self._open():
                return self._open_error != before, False
        assert self._tail is not None
        try:
            new = self._tail.read()
        except JournalError as error:
            self._error = str(error)
            return True, False
        for entry in new:
            self._add(entry)
        if (new or self._first) and self._cut():
            return True, False
        data = bool(new) or self._first
        self._first = False
        if len(new) > BATCH:  # a long read: show the games first, the standings next round
            self._next_compute = min(self._next_compute, time.monotonic())
        elif len(self._seen) != self._standings_games and time.monotonic() >= self._next_compute:
            self._compute()
            data = True
        return data, self._scan(scan_budget_s)

    def _cut(self) -> bool:
        """Refuse a finished tournament's journal cut short at its end (as the CLI does)."""
        assert self._tail is not None and self._state is not None
        problem = self._tail.end_problem(self._state)
        if problem is not None:
            # tournament.json may have been written since it was read (a run begun since).
            try:
                problem = self._tail.end_problem(TournamentState.load(self.layout.state))
            except TournamentError as error:
                problem = str(error)
        if problem is not None:
            self._error = problem
        return problem is not None

    def _open(self) -> bool:
        """Read ``tournament.json`` and the key; False (and why) while they cannot be read.

        Tried again on every refresh: the runner writes ``tournament.json``
        atomically, but a folder copied in by hand may be caught half way.
        """
        if not self.layout.state.exists():
            return False
        try:
            state = TournamentState.load(self.layout.state)
            key = seal.folder_key(self.layout.root)
            self._tail = JournalTail(self.layout, state, key)
        except (TournamentError, seal.SealError) as error:
            self._open_error = str(error)
            return False
        self._state, self._key, self._open_error = state, key, None
        self._tracker = _tracker(state)
        return True

    def _add(self, entry: dict[str, Any]) -> None:
        kind = entry.get("type")
        position = len(self._entries)  # as compute_standings counts them
        if kind == "bot":
            self._entries.append(entry)
            if isinstance(entry.get("info"), dict) and entry.get("status") == "started":
                self._bots[str(entry.get("bot"))].info = entry["info"]
        elif "llr" in entry and kind != "game":
            self._llr.append(entry)
        if kind != "game":
            return
        try:
            row = _row(self.layout, entry, position)
        except (KeyError, TypeError, ValueError) as error:
            self._error = f"{self.layout.journal}: game entry {position}: {error!r}"
            return
        if row.game_id in self._seen:
            return
        self._entries.append(entry)
        self._seen.add(row.game_id)
        self._games.append(row)
        if self._tracker is not None:
            self._track(entry)
        if row.log is None or not (self.layout.root / row.log).is_file():
            self._missing += 1
        for seat, bot in enumerate(row.bots):
            self._bots[bot].points.update(hand[seat] for hand in entry["hand_scores"])

    def _track(self, entry: dict[str, Any]) -> None:
        """Feed a game to the gauntlet's tracker; a point of the LLR chart per new sample."""
        tracker = self._tracker
        counts = {b: len(tracker.samples[b][tracker.metric]) for b in tracker.samples}
        tracker.add(entry)
        for baseline, before in counts.items():
            samples = tracker.samples[baseline][tracker.metric]
            if len(samples) == before:
                continue
            status = tracker.status(baseline)
            stop = tracker.stops.get(baseline)
            self._sprt.setdefault(baseline, []).append(
                {
                    "x": len(self._seen),
                    "sets": len(samples),
                    "llr": _number(status.llr),
                    "lower": _number(status.lower),
                    "upper": _number(status.upper),
                    "decision": stop.decision if stop else "",
                }
            )

    def _compute(self) -> None:
        """Standings and rating histories from the entries so far (the costly part)."""
        assert self._state is not None
        started = time.monotonic()
        state = self._state
        ranking = state.ranking if state.ranking in RANKING_KEYS else "points"
        standings = compute_standings(
            self._entries,
            bots=state.participants or list(state.config.get("bots", {})),
            excluded=state.excluded,
            ranking=ranking,
            name=state.name,
            games_scheduled=state.games_scheduled,
        )
        self._standings = standings.to_dict()
        self._ratings = rating_history(self._games)
        self._standings_games = len(self._seen)
        took = time.monotonic() - started
        self._next_compute = time.monotonic() + 3 * took

    def _scan(self, budget_s: float) -> bool:
        """Read more game logs for the slowest decisions, for at most ``budget_s``."""
        if self._scanned >= len(self._games):
            return False
        deadline = time.monotonic() + budget_s
        while self._scanned < len(self._games) and time.monotonic() < deadline:
            row = self._games[self._scanned]
            self._scanned += 1
            if row.log is not None:
                self._slowest.add_log(self.layout.root / row.log, row.bots, row.game_id)
        return True

    # Publishing ---------------------------------------------------------------------------

    def _publish(self, *, new_version: bool = True) -> None:
        self._version += new_version
        state = self._state
        name = state.name if state else self.layout.root.name
        if self._open_error is not None and state is None:
            self.snapshot = dataclasses.replace(
                _empty(self.id, name, "unreadable", self._open_error), version=self._version
            )
            return
        if state is None:
            self.snapshot = dataclasses.replace(
                _empty(self.id, name, "starting"), version=self._version
            )
            return
        played = len(self._seen)
        updated = _mtime(self.layout.journal, None)
        if self._error is not None:
            status = "refused"
        elif state.games_scheduled is not None and played >= state.games_scheduled:
            status = "finished"
        elif self._tracker is not None and self._tracker.decided:
            status = "decided"  # a gauntlet whose tests have all decided stops early
        elif updated is None:
            status = "starting"  # no journal yet: building the bots
        elif time.time() - updated < LIVE_WINDOW_S:
            status = "playing"
        else:
            status = "stopped"
        refused = self._error is not None
        self.snapshot = Snapshot(
            id=self.id,
            version=self._version,
            name=name,
            status=status,
            games_played=played,
            games_scheduled=state.games_scheduled,
            authenticated=self._key is not None,
            error=self._error,
            updated_at=updated,
            indexing=self._standings is None and not refused,
            standings=None if refused else self._standings,
            standings_games=max(self._standings_games, 0),
            bots={} if refused else self._bot_pages(),
            games=() if refused else tuple(self._games),
            gauntlet=None if refused else self._gauntlet(),
            is_gauntlet=bool(state.config.get("gauntlet")) or bool(self._llr),
            candidate=_candidate(state.config),
            missing_logs=self._missing,
            scan={"scanned": self._scanned, "games": len(self._games)},
        )

    def _bot_pages(self) -> dict[str, dict[str, Any]]:
        pages: dict[str, dict[str, Any]] = {}
        for bot, data in self._bots.items():
            top = max(data.points, default=26)
            pages[bot] = {
                "points_histogram": [data.points.get(p, 0) for p in range(max(top, 26) + 1)],
                "negative_points": {str(p): n for p, n in data.points.items() if p < 0},
                "ratings": self._ratings.get(bot, []),
                "info": {k: shown_name(v) for k, v in data.info.items() if isinstance(k, str)},
                "slowest": [
                    {"ms": ms, "game_id": shown_name(game), "decision": shown_name(decision)}
                    for ms, game, decision in self._slowest.of(bot)
                ],
            }
        return pages

    def _gauntlet(self) -> dict[str, Any] | None:
        if self._sprt:
            return {
                "source": "games",
                "series": {f"vs {shown_name(b)}": list(points) for b, points in self._sprt.items()},
            }
        if not self._llr:
            return None
        series: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
        for n, entry in enumerate(self._llr, start=1):
            label = entry.get("baseline") or entry.get("test") or entry.get("name") or "sprt"
            point = {
                "x": entry.get("games", entry.get("sets", n)),
                "llr": _number(entry.get("llr")),
                "lower": _number(entry.get("lower")),
                "upper": _number(entry.get("upper")),
                "decision": shown_name(entry.get("decision", "")),
            }
            series[shown_name(label)].append(point)
        return {"source": "entries", "series": dict(series)}


def _tracker(state: TournamentState) -> Any:
    """A gauntlet's tracker of paired differences (referee.tournament.gauntlet_tracker), or None."""
    config = state.config
    if not isinstance(config.get("gauntlet"), dict):
        return None
    try:
        from referee.schedule import GauntletScheduler, scheduler_of
        from referee.tournament.gauntlet_config import gauntlet_from_dict
        from referee.tournament.gauntlet_tracker import GauntletTracker

        scheduler = scheduler_of(state.to_dict())  # its shape: no key needed
        if not isinstance(scheduler, GauntletScheduler):
            return None
        return GauntletTracker.of(gauntlet_from_dict(config["gauntlet"]), scheduler)
    except (ImportError, KeyError, TypeError, ValueError) as error:
        log.warning("%s: cannot follow the gauntlet's test: %s", state.name, error)
        return None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _mtime(path: pathlib.Path, default: Any) -> Any:
    try:
        return path.stat().st_mtime
    except OSError:
        return default


def _row(layout: Layout, entry: dict[str, Any], position: int) -> GameRow:
    bots = tuple(str(b) for b in entry["bots"])
    n = len(bots)
    faults = [f if isinstance(f, dict) else {} for f in entry["faults"]]
    path = log_path(layout, entry)
    return GameRow(
        index=int(entry.get("index", position)),
        position=position,
        game_id=str(entry["game_id"]),
        bots=bots,
        scores=tuple(int(s) for s in entry["scores"]),
        placements=tuple(int(p) for p in entry["placements"]),
        hands=len(entry["hand_scores"]),
        moons=tuple(int(m) for m in entry.get("moons", [0] * n)),
        faults=tuple(sum(int(v) for v in f.values()) for f in faults),
        fault_kinds=tuple(tuple(sorted(str(k) for k in f)) for f in faults),
        forfeited=tuple(bool(x) for x in entry.get("forfeited", [False] * n)),
        log=layout.relative(path) if path is not None else None,
        log_mac=entry["log_mac"] if isinstance(entry.get("log_mac"), str) else None,
    )


def rating_history(games: list[GameRow]) -> dict[str, list[tuple[int, float]]]:
    """Each bot's OpenSkill ordinal after each of its games (``(game number, ordinal)``).

    The one model (:mod:`referee.stats.ratings`) in the same order as
    :func:`referee.stats.standings.compute_standings` (games by schedule index
    then journal position), so a bot's last point is its ordinal in the
    standings; a test holds them together. A bot with more than
    :data:`MAX_RATING_POINTS` games keeps every k-th point and its last.
    """
    ratings = Ratings()
    history: dict[str, list[tuple[int, float]]] = collections.defaultdict(list)
    for row in sorted(games, key=lambda g: (g.index, g.position)):
        rated = ratings.rate(row.bots, row.placements)
        for bot, rating in zip(row.bots, rated, strict=True):
            points = history[bot]
            points.append((len(points) + 1, round(rating.ordinal, 4)))
    for bot, points in history.items():
        if len(points) > MAX_RATING_POINTS:
            step = -(-len(points) // MAX_RATING_POINTS)
            history[bot] = [*points[:-1:step], points[-1]]
    return dict(history)


# Filtering the game list -----------------------------------------------------------------

FILTERS = {
    "faults": ("", "any", "none"),
    "moons": ("", "any", "none"),
    "result": ("", "win", "loss"),
}


def filter_games(
    games: tuple[GameRow, ...],
    *,
    bot: str = "",
    faults: str = "",
    moons: str = "",
    result: str = "",
) -> list[GameRow]:
    """The games that pass the filters, in schedule order.

    ``bot``: games it played; ``faults`` / ``moons``: ``any`` (some, by the
    bot if given, else by any seat) or ``none``; ``result``: ``win`` or
    ``loss``, the bot placed first or not (ignored without a bot).
    """
    rows = []
    for row in games:
        seats = [s for s, b in enumerate(row.bots) if b == bot] if bot else None
        if bot and not seats:
            continue
        which = seats if seats is not None else range(len(row.bots))
        if faults and (any(row.faults[s] for s in which)) != (faults == "any"):
            continue
        if moons and (any(row.moons[s] for s in which)) != (moons == "any"):
            continue
        if result and seats is not None:
            won = any(row.placements[s] == 1 for s in seats)
            if won != (result == "win"):
                continue
        rows.append(row)
    rows.sort(key=lambda g: (g.index, g.position))
    return rows


# The catalog -------------------------------------------------------------------------------


class Catalog:
    """Every tournament folder under ``root``, found again now and then, each followed."""

    def __init__(self, root: pathlib.Path, *, interval_s: float = 0.5) -> None:
        self.root = root.resolve()
        self.interval_s = interval_s
        self._folders: dict[str, FolderIndex] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._version = 0
        self._changed = threading.Condition()

    @property
    def version(self) -> int:
        """Goes up whenever any folder's snapshot changes (or a folder appears)."""
        return self._version

    def folders(self) -> list[FolderIndex]:
        with self._lock:
            return sorted(self._folders.values(), key=lambda f: f.id)

    def get(self, folder_id: str) -> FolderIndex | None:
        with self._lock:
            return self._folders.get(folder_id)

    def resolve(self, path: str) -> tuple[FolderIndex, str] | None:
        """The folder a URL path starts with, and the rest of the path (longest id first)."""
        parts = path.strip("/").split("/") if path.strip("/") else []
        with self._lock:
            for cut in range(min(len(parts), MAX_DEPTH), 0, -1):
                folder = self._folders.get("/".join(parts[:cut]))
                if folder is not None:
                    return folder, "/".join(parts[cut:])
        return None

    def discover(self) -> bool:
        """Look for tournament folders (a ``tournament.json``); True if new ones were found."""
        found = dict(_find(self.root))
        with self._lock:
            new = {k: v for k, v in found.items() if k not in self._folders}
            for folder_id, path in new.items():
                self._folders[folder_id] = FolderIndex(folder_id, path)
        return bool(new)

    def refresh_all(self, *, scan_budget_s: float = 0.2) -> bool:
        changed = self.discover()
        for folder in self.folders():
            try:
                changed |= folder.refresh(scan_budget_s=scan_budget_s)
            except Exception:  # one broken folder must not stop the others
                log.exception("%s: cannot index", folder.layout.root)
        if changed:
            with self._changed:
                self._version += 1
                self._changed.notify_all()
        return changed

    def wait_change(self, version: int, timeout: float) -> int:
        """Wait until :attr:`version` differs from ``version`` (or ``timeout``); the new version."""
        with self._changed:
            self._changed.wait_for(lambda: self._version != version, timeout=timeout)
            return self._version

    def start(self) -> None:
        """Follow the folders from a thread of its own (until :meth:`stop`)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="serve-index", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                busy = self.refresh_all()
            except Exception:
                log.exception("indexing failed")
                busy = False
            # Busy (a long journal read, the scan of the logs): a short pause all the same, so
            # that requests get the interpreter often.
            pause = 0.05 if busy else self.interval_s - (time.monotonic() - started)
            self._stop.wait(max(0.0, pause))


def _find(root: pathlib.Path) -> Iterator[tuple[str, pathlib.Path]]:
    """``(id, path)`` of the tournament folders at most :data:`MAX_DEPTH` below ``root``."""
    if Layout(root).state.exists():
        yield (root.name if _ID_PART.match(root.name) else "tournament"), root
        return
    todo = [(root, ())]
    while todo:
        folder, parts = todo.pop()
        try:
            children = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for child in children:
            if not _ID_PART.match(child.name) or child.name.startswith("."):
                continue
            if not child.is_dir(follow_symlinks=False):
                continue
            path = pathlib.Path(child.path)
            if Layout(path).state.exists():
                yield "/".join((*parts, child.name)), path
            elif len(parts) + 1 < MAX_DEPTH:
                todo.append((path, (*parts, child.name)))


def game_index(games: tuple[GameRow, ...], game_id: str) -> GameRow | None:
    """The row of a game by id (a linear search: only the replay link needs it)."""
    for row in games:
        if row.game_id == game_id:
            return row
    return None
