"""What the ladder's pages show: the standings' ratings joined with the teams' bots and versions.

A pure function of the database's submissions and the folder's snapshot
(:class:`referee.web.index.Snapshot`, whose standings the watcher thread
computes from the journal), so a page costs a join, never a pass over the
games. Every string from a team or a bot is made printable here
(:mod:`referee.safetext`) and escaped again by the templates; the reasons a
submission was rejected are not in it (they are for its own team).
"""

from __future__ import annotations

from typing import Any

from referee.ladder.db import LadderDB
from referee.safetext import shown_name
from referee.web.index import Snapshot

__all__ = ["RATING_Z", "ladder_view"]

#: The rating interval shown: mu within this many sigmas (95% of a normal belief).
RATING_Z = 1.96


def _rating_interval(mu: Any, sigma: Any, games: Any) -> list[float] | None:
    """The 95% interval of a rating, OpenSkill's belief about the bot (None before a game)."""
    if not isinstance(mu, int | float) or not isinstance(sigma, int | float) or not games:
        return None
    return [mu - RATING_Z * sigma, mu + RATING_Z * sigma]


def ladder_view(db: LadderDB, snapshot: Snapshot | None, *, version: Any = None) -> dict[str, Any]:
    """The ladder as JSON: ``rows`` (ranked versions with ratings), ``bots`` (per bot, its
    versions and their states), and the folder's progress."""
    subs = db.submissions()
    by_player = {s.player: s for s in subs}
    standings = (snapshot.standings if snapshot is not None else None) or {}
    rows: list[dict[str, Any]] = []
    ranked: set[str] = set()
    for row in standings.get("bots", []):
        sub = by_player.get(row["bot"])
        ranked.add(row["bot"])
        rows.append(
            {
                "rank": row.get("rank"),
                "player": shown_name(row["bot"]),
                "team": shown_name(sub.team) if sub else None,
                "bot": shown_name(sub.bot) if sub else None,
                "version": sub.version if sub else None,
                "state": sub.state if sub else "unknown",
                "games": row.get("games", 0),
                "mu": row.get("mu"),
                "sigma": row.get("sigma"),
                "ordinal": row.get("ordinal"),
                "rank_ci95": row.get("rank_ci95"),
                "rating_ci95": _rating_interval(row.get("mu"), row.get("sigma"), row.get("games")),
                "points_per_hand": row.get("points_per_hand"),
                "tied": bool(row.get("rank_tied_with")),
            }
        )
    for sub in subs:  # active versions without a game yet: at the end, unranked
        if sub.state == "active" and sub.player not in ranked:
            rows.append(
                {
                    "rank": None,
                    "player": shown_name(sub.player),
                    "team": shown_name(sub.team),
                    "bot": shown_name(sub.bot),
                    "version": sub.version,
                    "state": sub.state,
                    "games": 0,
                    "mu": None,
                    "sigma": None,
                    "ordinal": None,
                    "rank_ci95": None,
                    "rating_ci95": None,
                    "points_per_hand": None,
                    "tied": False,
                }
            )
    bots: dict[tuple[str, str], dict[str, Any]] = {}
    for sub in subs:
        entry = bots.setdefault(
            (sub.team, sub.bot),
            {"team": shown_name(sub.team), "bot": shown_name(sub.bot), "versions": []},
        )
        entry["versions"].append(
            {
                "version": sub.version,
                "player": shown_name(sub.player),
                "state": sub.state,
                "received_at": sub.received_at,
                "activated_at": sub.activated_at,
                "retired_at": sub.retired_at,
            }
        )
    for entry in bots.values():
        entry["versions"].reverse()  # newest first
    return {
        "version": version,
        "name": shown_name(snapshot.name) if snapshot is not None else "",
        "status": snapshot.status if snapshot is not None else "starting",
        "games_played": snapshot.games_played if snapshot is not None else 0,
        "standings_games": snapshot.standings_games if snapshot is not None else 0,
        "rows": rows,
        "bots": list(bots.values()),
    }
