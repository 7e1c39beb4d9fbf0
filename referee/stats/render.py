"""The standings rendered: a terminal table, markdown, CSV, JSON and the head-to-head CSV.

Computing is :mod:`referee.stats.standings`; this module only formats a
:class:`~referee.stats.standings.Standings`. The JSON is its versioned
contract (``Standings.to_dict``); the CSV columns are documented in
docs/config.md.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from tabulate import tabulate

from referee.safetext import shown_name, shown_text
from referee.stats.standings import DID_NOT_START, OK, BotStanding, Standings

__all__ = ["FORMATS", "H2H_SHOWN", "LEGEND", "TIED_MARK", "percent", "render"]

FORMATS = ("table", "markdown", "csv", "json", "h2h-csv")
#: The most bots whose head to head the table and markdown show (by rank): at 12 a line
#: is about 150 characters; the whole matrix is in the json and h2h-csv formats.
H2H_SHOWN = 12
#: The table's mark of a rank that cannot be told apart from another bot's.
TIED_MARK = "\u2248"


# The journal may be old or written by hand, and a status reason quotes a bot's
# stderr: every string of the table and markdown renderings is made printable
# (one line, no terminal escapes), while the JSON and CSV keep the exact values.


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _faults_text(faults: Mapping[str, int]) -> str:
    """``timeout 2, rpc_error 1``, or ``0`` (as forfeits show none: ``-`` means not known)."""
    return ", ".join(f"{shown_name(k)} {v}" for k, v in sorted(faults.items())) or "0"


#: The line under the table that says what its rating columns are.
LEGEND = (
    "pts/hand: points per hand (lower is better) with its 95% CI over the duplicate sets; "
    "rank 95%: the rank's bootstrap interval, widened to every bot it is not clearly "
    "separated from (a t test over at least 6 duplicate sets each); "
    "mu, sigma: the OpenSkill (Plackett-Luce) rating and its uncertainty; "
    "ordinal = mu - 3 sigma, a conservative rating"
)


_HEADERS = [
    "rank",
    "bot",
    "games",
    "wins",
    "avg place",
    "pts/hand",
    "95% CI",
    "rank 95%",
    "mu",
    "sigma",
    "ordinal",
    "moons",
    "faults",
    "forfeits",
    "status",
]


def _notes(standings: Standings) -> list[tuple[str, str]]:
    """(bot, text) of the bots whose status needs explaining, in rank order.

    The reasons (a build's or a start-up's stderr tail) are long: the table
    shows a footnote number and the text follows it.
    """
    notes = []
    for b in standings.bots:
        text = "" if b.status == OK else b.reason
        if b.notes:
            text = "; ".join([text, *b.notes]) if text else "; ".join(b.notes)
        if text:
            notes.append((b.bot, shown_text(text)))
    return notes


def _table_rows(standings: Standings) -> list[list[Any]]:
    rows = []
    footnotes = {bot: n for n, (bot, _) in enumerate(_notes(standings), start=1)}
    for b in standings.bots:
        ci = b.points_ci95
        status = b.status + (f" [{footnotes[b.bot]}]" if b.bot in footnotes else "")
        rows.append(
            [
                b.rank,
                shown_name(b.bot),
                b.games,
                f"{b.wins:.2f}".rstrip("0").rstrip("."),
                _num(b.avg_placement),
                _num(b.points_per_hand, 3),
                f"{ci[0]:.2f} .. {ci[1]:.2f}" if ci else "-",
                _rank_range(b),
                _num(b.mu),
                _num(b.sigma),
                _num(b.ordinal),
                b.moons,
                _faults_text(b.faults),
                b.forfeits,
                status,
            ]
        )
    return rows


def _rank_range(b: BotStanding) -> str:
    """``2..4 ≈`` (≈: the rank cannot be told apart from another bot's), ``1..1``, or ``-``."""
    if b.rank_ci95 is None:
        return "-"
    text = f"{b.rank_ci95[0]}..{b.rank_ci95[1]}"
    return f"{text} {TIED_MARK}" if b.rank_tied_with else text


def _tied_note(standings: Standings) -> str | None:
    """The line under the table that explains the mark, naming the bots it marks."""
    tied = [shown_name(b.bot) for b in standings.bots if b.rank_tied_with]
    if not tied:
        return None
    return (
        f"{TIED_MARK}: ranks that cannot be told apart (their 95% rank intervals, a bootstrap "
        f"over the duplicate sets widened to the bots not clearly separated, overlap): "
        f"{', '.join(tied)}"
    )


def percent(share: float) -> str:
    """``share`` as a whole percentage, halves rounded up, as the web view's Math.round does
    (Python's ``:.0%`` rounds halves to even: 1/8 showed 12% here and 13% there).

    >>> percent(0.125), percent(0.375), percent(2 / 3)
    ('13%', '38%', '67%')
    """
    return f"{math.floor(share * 100 + 0.5)}%"


#: The head to head's mark of a bot that did not start: the referee's fallback moves played it.
FALLBACK_MARK = "*"


def _h2h_label(bot: str, stood_in: set[str]) -> str:
    return shown_name(bot) + (FALLBACK_MARK if bot in stood_in else "")


def _stood_in(standings: Standings) -> set[str]:
    """The bots whose seats the referee played (they never started)."""
    return {b.bot for b in standings.bots if b.status == DID_NOT_START}


def _h2h_rows(standings: Standings) -> tuple[list[str], list[list[str]]]:
    order = [b.bot for b in standings.bots][:H2H_SHOWN]
    stood_in = _stood_in(standings)
    rows = []
    for a in order:
        cells = []
        for b in order:
            h = standings.head_to_head.get(a, {}).get(b)
            cells.append(f"{percent(h.score)} ({h.games})" if h and h.score is not None else "-")
        rows.append([_h2h_label(a, stood_in), *cells])
    return ["ahead of ->", *(_h2h_label(b, stood_in) for b in order)], rows


def _title(standings: Standings) -> str:
    played = standings.games_played
    name = f"{shown_name(standings.name)}: " if standings.name else ""
    if standings.games_scheduled is None:
        # No schedule (a ladder plays on): "of ?" and "incomplete" would say an end is missing.
        return f"{name}{played} games played so far; ranked by {standings.ranking}"
    state = "" if standings.complete else " (incomplete)"
    scheduled = standings.games_scheduled
    return f"{name}{played} of {scheduled} games{state}; ranked by {standings.ranking}"


def render(standings: Standings, fmt: str = "table") -> str:
    """The standings as ``table`` / ``markdown`` (both tables), ``csv`` (rows), ``json``,
    or ``h2h-csv`` (the whole head to head, a row per pair).

    Past :data:`H2H_SHOWN` bots, the tables' head to head shows the top of the
    ranking and says where the whole matrix is.
    """
    if fmt == "json":
        return json.dumps(standings.to_dict(), indent=2)
    if fmt == "csv":
        return _csv(standings)
    if fmt == "h2h-csv":
        return _h2h_csv(standings)
    if fmt not in ("table", "markdown"):
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    markdown = fmt == "markdown"
    style = "github" if markdown else "simple"
    headers, h2h = _h2h_rows(standings)
    rows = _table_rows(standings)
    notes = [(shown_name(bot), text) for bot, text in _notes(standings)]
    tied = _tied_note(standings)
    if markdown:  # a "|" in a name would add a column
        headers, h2h, rows = _md(headers), [_md(r) for r in h2h], [_md(r) for r in rows]
        notes = [(bot.replace("|", "\\|"), text.replace("|", "\\|")) for bot, text in notes]
    parts = [
        ("## " if markdown else "") + _title(standings),
        tabulate(rows, headers=_HEADERS, tablefmt=style, disable_numparse=True),
        LEGEND,
        *([tied] if tied else []),
        *(f"[{n}] {bot}: {text}" for n, (bot, text) in enumerate(notes, start=1)),
        *(
            [
                f"Not sandboxed (sandbox: none, trusted): {', '.join(map(shown_name, standings.unsandboxed))}"
            ]
            if standings.unsandboxed
            else []
        ),
        "",
        ("## " if markdown else "")
        + "Head to head: how often the row's bot finished ahead of the column's (ties half; games)",
        tabulate(h2h, headers=headers, tablefmt=style, disable_numparse=True),
        *(
            [
                f"{FALLBACK_MARK}: did not start; the referee's fallback moves played its seats, so "
                f"its figures measure the fallback, not the bot: {', '.join(map(shown_name, sorted(_stood_in(standings))))}"
            ]
            if _stood_in(standings)
            else []
        ),
    ]
    if len(standings.bots) > H2H_SHOWN:
        parts.append(
            f"(the top {H2H_SHOWN} of {len(standings.bots)} bots by rank; the whole matrix: "
            "head_to_head.csv and standings.json in the output folder, "
            "referee standings OUT_DIR --format h2h-csv, and the web view, referee serve)"
        )
    return "\n".join(parts) + "\n"


def _md(cells: Sequence[Any]) -> list[Any]:
    """Cells for a markdown table: ``|`` escaped."""
    return [c.replace("|", "\\|") if isinstance(c, str) else c for c in cells]


_CSV_FIELDS = [
    "rank",
    "bot",
    "status",
    "games",
    "wins",
    "avg_placement",
    "points_per_hand",
    "ci95_low",
    "ci95_high",
    "duplicate_sets",
    "hands",
    "moons",
    "faults",
    "forfeits",
    "mu",
    "sigma",
    "ordinal",
    "ms_per_decision",
    "reason",
    "rank_low",
    "rank_high",
]


_H2H_CSV_FIELDS = ["bot", "opponent", "games", "ahead", "tied", "behind", "score"]


def _h2h_csv(standings: Standings) -> str:
    """The whole head to head, one row per pair that met (both ways), the bots in rank order."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_H2H_CSV_FIELDS)
    order = [b.bot for b in standings.bots]
    for a in order:
        row = standings.head_to_head.get(a, {})
        for b in order:
            h = row.get(b)
            if h is not None and h.games:
                writer.writerow([a, b, h.games, h.ahead, h.tied, h.behind, h.score])
    return out.getvalue()


def _csv(standings: Standings) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_CSV_FIELDS)
    for b in standings.bots:
        data = b.to_dict()
        ci = b.points_ci95 or (None, None)
        ranks = b.rank_ci95 or (None, None)
        data.update(
            rank_low=ranks[0],
            rank_high=ranks[1],
            ci95_low=ci[0],
            ci95_high=ci[1],
            faults=";".join(f"{k}={v}" for k, v in sorted(b.faults.items())),
        )
        writer.writerow(["" if data[f] is None else data[f] for f in _CSV_FIELDS])
    return out.getvalue()
