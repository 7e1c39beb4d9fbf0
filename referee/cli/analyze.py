"""``referee analyze``: where a bot lost points, decision by decision (docs/analysis.md)."""

from __future__ import annotations

import difflib
import json
import pathlib
import sys
import time

import click

from referee.analysis.record import analysis_path
from referee.analysis.summary import BotSummary, game_report, summarize, summary_table
from referee.analyzer.evaluate import Settings
from referee.analyzer.run import LogResult, analyse_logs, cpu_count, logs_of, seat_choice
from referee.audit.replay import load_game
from referee.cli.options import jobs_option
from referee.folder import TournamentError
from referee.match.gamelog import LogError
from referee.safetext import shown_name, shown_text

__all__ = ["analyze"]

SUMMARY_FORMAT = "hearts-referee/analysis-summary"
SUMMARY_VERSION = 1
_DEFAULT = Settings()


@click.command()
@click.argument(
    "source", metavar="LOG_OR_DIR", type=click.Path(exists=True, path_type=pathlib.Path)
)
@click.option(
    "--seat",
    "seats",
    multiple=True,
    metavar="BOT",
    help="The bot to analyse: its name in the logs (for one log also a seat number or "
    "N/E/S/W). Repeat it for several bots.",
)
@click.option("--all", "every", is_flag=True, help="Analyse every seat.")
@click.option(
    "--budget-ms",
    type=click.IntRange(1, 600_000),
    default=_DEFAULT.budget_ms,
    show_default=True,
    help="Time for one decision's search; it stops at this or at --worlds, whichever first.",
)
@click.option(
    "--worlds",
    type=click.IntRange(8, 1_000_000),
    default=_DEFAULT.worlds,
    show_default=True,
    help="Deals searched per decision (every consistent deal when there are fewer).",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=_DEFAULT.seed,
    show_default=True,
    help="The seed of the searches (the same seed and settings give the same analysis).",
)
@jobs_option("Logs analysed at a time, in worker processes (default: one per core).", most=256)
@click.option(
    "--force",
    is_flag=True,
    help="Analyse again where the analysis file already holds these seats and settings.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def analyze(
    source: pathlib.Path,
    seats: tuple[str, ...],
    every: bool,
    budget_ms: int,
    worlds: int,
    seed: int,
    jobs: int | None,
    force: bool,
    as_json: bool,
) -> None:
    """Where did a bot lose points? Every decision of a bot, judged by search.

    \b
    For each pass, play and moon choice of the bot, the expected points of
    every legal choice, from what that seat knew only (a determinized search
    over the deals consistent with it, seeded: reproducible), the expected loss
    of the choice made, and a class: inaccuracy (0.5 points or more), mistake
    (1.5), blunder (4), only when the loss exceeds two standard errors of the
    search. Writes <game>.analysis.json beside each log (never changing the
    log); replay and serve then mark the decisions.

    \b
    LOG_OR_DIR is a game log, a tournament folder (its journaled games) or a
    folder of logs. A folder prints a table per bot.

    \b
    Examples:
      referee analyze runs/match-1/game.jsonl --seat S
      referee analyze out/example --seat random --seat strong -j 2
    """
    if not seats and not every:
        raise click.UsageError("name the bot to analyse with --seat BOT (or --all)")
    settings = Settings(worlds=worlds, budget_ms=budget_ms, seed=seed)
    try:
        logs = logs_of(source)
    except (TournamentError, LogError) as error:
        raise click.UsageError(shown_text(error)) from None
    single = None
    if source.is_file():
        try:
            single = load_game(source)
        except LogError as error:
            raise click.ClickException(shown_text(error)) from None
    choice = seat_choice(seats, every=every, single=single)
    if single is not None:
        _check_seats(choice.bots, [s.bot for s in single.seats], str(source))
    results = _run(logs, choice, settings, jobs or cpu_count(), force, progress=single is None)
    errors = [r for r in results if r.error]
    if single is None:
        found = {b for r in results for b in r.bots}
        _check_seats(choice.bots, sorted(found), str(source))
    entries = [(r.game_id, a) for r in results for a in r.seats]
    summaries = summarize(entries)
    if as_json:
        click.echo(json.dumps(_json(summaries, settings, errors), indent=2))
    elif single is not None:
        for r in results:
            for a in r.seats:
                click.echo(game_report(r.game_id, a))
        click.echo(f"analysis: {analysis_path(source)}", err=True)
    else:
        click.echo(summary_table(summaries) if summaries else "no decision analysed")
    _footer(results, summaries, settings)
    for r in errors:
        click.echo(f"error: {shown_text(r.error)}", err=True)
    if errors:
        raise SystemExit(1)


def _check_seats(bots: tuple[str, ...], known: list[str], where: str) -> None:
    """A bot named with --seat that sits at no table is an error naming the bots there."""
    for bot in bots:
        if bot not in known:
            close = difflib.get_close_matches(bot, known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            names = ", ".join(shown_name(b) for b in dict.fromkeys(known))
            raise click.BadParameter(
                f"no bot {shown_name(bot)!r} in {where} (its bots: {names}){hint}",
                param_hint="--seat",
            )


def _run(
    logs: list[pathlib.Path],
    choice: object,
    settings: Settings,
    jobs: int,
    force: bool,
    *,
    progress: bool,
) -> list[LogResult]:
    """Every log's result in the logs' order, with a progress line on stderr for a folder."""
    started = time.monotonic()
    done: dict[str, LogResult] = {}
    searched = 0
    tty = sys.stderr.isatty()
    try:
        for result in analyse_logs(logs, choice, settings, jobs=jobs, force=force):  # type: ignore[arg-type]
            done[result.log] = result
            searched += result.searched
            if progress:
                elapsed = time.monotonic() - started
                left = elapsed / len(done) * (len(logs) - len(done))
                line = (
                    f"analyze: {len(done)}/{len(logs)} games, {searched} decisions searched, "
                    f"{elapsed:.0f} s elapsed, about {left:.0f} s left"
                )
                click.echo(("\r" + line + "   ") if tty else line, nl=not tty, err=True)
    except KeyboardInterrupt:
        click.echo("", err=True)
        raise click.ClickException(
            f"interrupted: {len(done)} of {len(logs)} games analysed and written; "
            "run again to go on (finished games are kept)"
        ) from None
    if progress and tty:
        click.echo("", err=True)
    return [done[str(log)] for log in logs if str(log) in done]


def _footer(results: list[LogResult], summaries: list[BotSummary], settings: Settings) -> None:
    searched = sum(b.searched for b in summaries)
    ms = sum(b.ms for b in summaries)
    cut = sum(b.cut for b in summaries)
    reused = sum(r.reused for r in results)
    parts = [
        f"{searched} decisions searched, {ms / searched if searched else 0:.0f} ms a decision "
        f"(at most {settings.worlds} worlds or {settings.budget_ms} ms each, seed {settings.seed})"
    ]
    if reused:
        parts.append(f"{reused} taken from earlier analysis files")
    if cut:
        parts.append(f"{cut} stopped at the time budget: raise --budget-ms for a reproducible run")
    click.echo("; ".join(parts), err=True)


def _json(summaries: list[BotSummary], settings: Settings, errors: list[LogResult]) -> dict:
    return {
        "format": SUMMARY_FORMAT,
        "version": SUMMARY_VERSION,
        "settings": settings.to_dict(),
        "bots": [
            {
                "bot": b.bot,
                "games": b.games,
                "hands": b.hands,
                "decisions": b.decisions,
                "fallbacks": b.fallbacks,
                "points_lost": round(b.lost, 3),
                "points_lost_per_hand": round(b.per_hand, 3),
                "per_hand_by_phase": {p.value: round(b.phase_per_hand(p), 3) for p in b.loss},
                "grades": {g.value: n for g, n in sorted(b.grades.items())},
                "ms_per_decision": round(b.ms_per_decision, 1),
                "cut": b.cut,
                "worst": [
                    {
                        "game_id": w.game_id,
                        "seat": w.seat,
                        **{k: v for k, v in w.decision.to_json().items() if k not in ("options",)},
                    }
                    for w in b.worst
                ],
            }
            for b in summaries
        ],
        "errors": [r.error for r in errors],
    }
