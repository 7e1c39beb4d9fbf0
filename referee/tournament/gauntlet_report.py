"""A gauntlet's report: the verdict of each baseline's test, as JSON and as text.

:func:`make_report` turns a :class:`~referee.tournament.gauntlet_tracker.GauntletTracker`
into the report the runner writes (``gauntlet.json`` and ``gauntlet.txt``);
:func:`folder_report` recomputes it from a folder's journal, read through the
folder's owner (:mod:`referee.folder`) and with the schedule's shape from
:func:`referee.schedule.scheduler_of`; :func:`exit_code` is what
``referee gauntlet`` exits with.
"""

from __future__ import annotations

import json
import math
import pathlib
from collections.abc import Mapping, Sequence
from typing import Any

from referee.folder import Layout, TournamentError, TournamentState, open_journal
from referee.schedule import GauntletScheduler, scheduler_of
from referee.stats.sprt import FixedSummary, fixed_summary, paired_counts
from referee.tournament.gauntlet_config import gauntlet_from_dict
from referee.tournament.gauntlet_tracker import GauntletTracker, tracker_from_journal

__all__ = [
    "GAUNTLET_FORMAT",
    "GAUNTLET_VERSION",
    "exit_code",
    "folder_report",
    "make_report",
    "render_report",
]

GAUNTLET_FORMAT = "hearts-referee/gauntlet"
GAUNTLET_VERSION = 1


def _verdict(summary: FixedSummary) -> str:
    """Fixed-length mode: H1 if the 95% interval is above 0, H0 if below, else none."""
    if summary.ci95 is None:
        return "none"
    if summary.ci95[0] > 0:
        return "H1"
    if summary.ci95[1] < 0:
        return "H0"
    return "none"


def exit_code(decisions: Sequence[str]) -> int:
    """0 if every baseline's test accepted H1, 1 if any accepted H0, else 2."""
    if decisions and all(d == "H1" for d in decisions):
        return 0
    if any(d == "H0" for d in decisions):
        return 1
    return 2


def make_report(
    tracker: GauntletTracker,
    *,
    name: str,
    games_played: int,
    games_scheduled: int,
    sets_scheduled: int,
) -> dict[str, Any]:
    """The gauntlet's result as the versioned JSON contract (docs/sprt.md)."""
    g = tracker.gauntlet
    rows = []
    for baseline in g.baselines:
        samples = tracker.samples[baseline]
        final = {m: fixed_summary(samples[m]) for m in ("points", "placement")}
        row: dict[str, Any] = {"baseline": baseline, "sets": len(samples[g.metric])}
        won, drawn, lost = paired_counts(samples[g.metric])
        row["paired_sets"] = {"won": won, "drawn": drawn, "lost": lost}
        if g.test == "sprt":
            stop = tracker.stops.get(baseline)
            row["decision"] = stop.decision if stop else "none"
            row["stop"] = stop.to_dict() if stop else None
            row["final_llr"] = tracker.status(baseline).to_dict()
        else:
            row["decision"] = _verdict(final[g.metric])
        row["points_per_hand"] = final["points"].to_dict()
        row["placement"] = final["placement"].to_dict()
        rows.append(row)
    decisions = [r["decision"] for r in rows]
    code = exit_code(decisions)
    return {
        "format": GAUNTLET_FORMAT,
        "version": GAUNTLET_VERSION,
        "name": name,
        "candidate": g.candidate,
        "baselines": list(g.baselines),
        "opponents": list(g.opponents),
        "metric": g.metric,
        "test": g.test,
        "sprt": g.sprt.to_dict() if g.test == "sprt" else None,
        "games_played": games_played,
        "games_scheduled": games_scheduled,
        "sets_scheduled": sets_scheduled,
        "results": rows,
        "faults": {name: dict(kinds) for name, kinds in tracker.faults.items()},
        "decision": {0: "H1", 1: "H0"}.get(code, "none"),
        "exit_code": code,
    }


def _llr(value: float) -> str:
    return f"{value:.3f}" if abs(value) < 1e4 else f"{value:.3g}"


def _bounds(status: Mapping[str, Any]) -> str:
    """``bounds (-2.901, 2.874)``, with Wald's when the overshoot correction moved them."""
    text = f"bounds ({status['lower']:.3f}, {status['upper']:.3f})"
    wald = status.get("wald")
    if wald and (wald[0], wald[1]) != (status["lower"], status["upper"]):
        text += f"; Wald's ({wald[0]:.3f}, {wald[1]:.3f}) moved in by the overshoot correction"
    return text


def _sprt_lines(r: Mapping[str, Any], sets_scheduled: int) -> list[str]:
    """What a fishtest user looks for: the decision, the LLR against its bounds, what is left."""
    stop, final = r["stop"], r["final_llr"]
    if stop:
        crossed = ">=" if stop["decision"] == "H1" else "<="
        bound = stop["upper"] if stop["decision"] == "H1" else stop["lower"]
        return [
            f"  {stop['decision']} accepted after {stop['sets']} sets: "
            f"LLR {_llr(stop['llr'])} {crossed} {bound:.3f} ({_bounds(stop)})"
        ]
    lines = [
        f"  no decision after {final['sets']} sets: LLR {_llr(final['llr'])} ({_bounds(final)})"
    ]
    if final["sets"] < final.get("min_sets", 0):
        lines.append(f"  no decision before {final['min_sets']} sets (min_sets)")
    left = final.get("expected_sets_left")
    if left is not None:
        room = max(0, sets_scheduled - final["sets"])
        capped = "" if left <= room else f", more than the {room} left before deal_sets"
        lines.append(
            f"  expected sets to a decision: about {math.ceil(left)} more (the test's average "
            f"sample number at the estimate so far{capped})"
        )
    return lines


def _fmt_summary(s: Mapping[str, Any], unit: str) -> str:
    if s["mean"] is None:
        return "no sets"
    text = f"{s['mean']:+.3f} {unit}"
    if s["ci95"] is not None:
        text += f" [{s['ci95'][0]:+.3f}, {s['ci95'][1]:+.3f}]"
    if s["los"] is not None:
        text += f", LOS {100 * s['los']:.1f}%"
    return text


def render_report(report: Mapping[str, Any], fmt: str = "text") -> str:
    """The report as text (for people) or JSON (the contract)."""
    if fmt == "json":
        return json.dumps(report, indent=2)
    unit = "points per hand" if report["metric"] == "points" else "places"
    lines = [
        f"gauntlet {report['name']}: candidate {report['candidate']}, "
        f"{report['games_played']} of at most {report['games_scheduled']} games",
        f"paired difference per duplicate set = baseline - candidate in {unit} "
        "(positive: the candidate is better)",
    ]
    sprt = report.get("sprt")
    if sprt:
        model = sprt.get("model", "normal")
        lines.append(
            f"SPRT ({model} model): H0 delta0={sprt['delta0']:g}, H1 delta1={sprt['delta1']:g}, "
            f"alpha={sprt['alpha']:g}, beta={sprt['beta']:g}, min_sets {sprt['min_sets']}"
        )
    else:
        lines.append("fixed length: 95% intervals (Student's t over the sets), LOS")
    for r in report["results"]:
        lines.append(f"{report['candidate']} vs {r['baseline']}:")
        if sprt:
            lines += _sprt_lines(r, report["sets_scheduled"])
        counts = r.get("paired_sets")
        if counts:
            lines.append(
                f"  paired sets: the candidate won {counts['won']}, drew {counts['drawn']}, "
                f"lost {counts['lost']}"
            )
        lines.append(f"  final, {r['sets']} sets:")
        if sprt:
            lines.append(f"    LLR {_llr(r['final_llr']['llr'])}")
        lines.append(f"    points per hand: {_fmt_summary(r['points_per_hand'], 'pts/hand')}")
        lines.append(f"    placement:       {_fmt_summary(r['placement'], 'places')}")
        if sprt and r["stop"]:
            lines.append(
                "    (95% t intervals over the sets; after an early stop the estimate leans "
                "towards the decision)"
            )
    faulty = {name: kinds for name, kinds in report.get("faults", {}).items() if kinds}
    for name, kinds in faulty.items():
        shown = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
        lines.append(
            f"warning: {name} was charged faults ({shown}): its faulted decisions were "
            "fallback moves, not its own"
        )
    code = report["exit_code"]
    meaning = {0: "H1 accepted", 1: "H0 accepted", 2: "no decision"}[code]
    lines.append(f"result: {meaning} (exit code {code})")
    return "\n".join(lines) + "\n"


def folder_report(
    root: Any, *, key: bytes | None = None, authenticate: bool = True
) -> dict[str, Any]:
    """A gauntlet folder's report, recomputed from its journal (authenticated with the key)."""
    state_path = Layout(pathlib.Path(root)).state
    if state_path.exists() and not TournamentState.load(state_path).config.get("gauntlet"):
        raise TournamentError(f"{state_path}: not a gauntlet (its config has no gauntlet)")
    layout, state, entries = open_journal(root, key=key, authenticate=authenticate)
    try:
        scheduler = scheduler_of(state.to_dict())
        gauntlet = gauntlet_from_dict(state.config["gauntlet"])
    except (KeyError, TypeError, ValueError) as error:
        raise TournamentError(
            f"{layout.state}: its gauntlet config cannot be read: {error!r}"
        ) from None
    if not isinstance(scheduler, GauntletScheduler):
        raise TournamentError(f"{layout.state}: not a gauntlet (its config has no gauntlet)")
    games = [e for e in entries if e.get("type") == "game"]
    tracker = tracker_from_journal(games, gauntlet, len(scheduler.seatings()))
    return make_report(
        tracker,
        name=state.name,
        games_played=len(games),
        games_scheduled=state.games_scheduled or len(scheduler),
        sets_scheduled=scheduler.sets,
    )
