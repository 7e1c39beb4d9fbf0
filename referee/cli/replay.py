"""``referee replay``: a game in the terminal, trick by trick, or as an HTML page."""

from __future__ import annotations

import contextlib
import os
import pathlib
import sys
from typing import Any

import click
from tabulate import tabulate

from referee.analysis.marks import Marks
from referee.analysis.record import analysis_for_log
from referee.audit.render_text import render_chunks
from referee.audit.replay import COMPASS, Game, load_game
from referee.folder import (
    TournamentError,
    game_entries,
    game_log_path,
    recorded_file,
)
from referee.match.gamelog import LogError
from referee.safetext import shown_name, shown_text

__all__ = ["replay"]

#: What marks a page as a replay page written by the referee (referee/templates/replay.html).
_GENERATOR = b'<meta name="generator" content="hearts-referee replay">'


@click.command()
@click.argument(
    "source", metavar="LOG_OR_DIR", type=click.Path(exists=True, path_type=pathlib.Path)
)
@click.option("--game", "game_id", help="The game to show from a tournament folder (its id).")
@click.option("--hand", type=click.IntRange(min=1), help="Show only this hand.")
@click.option(
    "--seat",
    help="Show the game as this seat saw it: a seat number, N/E/S/W, or a bot name.",
)
@click.option("--step", is_flag=True, help="Wait for a key after each trick (q quits).")
@click.option(
    "--html",
    "html_out",
    type=click.Path(dir_okay=False, writable=True, path_type=pathlib.Path),
    help="Write a self-contained HTML replay to this file instead.",
)
@click.option(
    "--force",
    is_flag=True,
    help="With --html: replace a file that is not a replay page (never a file the referee "
    "recorded).",
)
@click.option(
    "--color/--no-color",
    default=None,
    help="Colour the suits (default: when the output is a terminal).",
)
def replay(
    source: pathlib.Path,
    game_id: str | None,
    hand: int | None,
    seat: str | None,
    step: bool,
    html_out: pathlib.Path | None,
    force: bool,
    color: bool | None,
) -> None:
    """Replay a game: every deal, pass and trick, with faults, scores and totals.

    \b
    LOG_OR_DIR is a game log (a .jsonl file), or a tournament output folder:
    then --game ID picks the game, and without it the games are listed.
    With an analysis beside the log (referee analyze), its inaccuracies,
    mistakes and blunders are marked.

    \b
    Examples:
      referee replay runs/match-1/game.jsonl
      referee replay runs/match-1/game.jsonl --hand 3 --seat S --step
      referee replay out/example --game t1-d1-r1
      referee replay runs/match-1/game.jsonl --html replay.html
    """
    if source.is_dir():
        if game_id is None:
            click.echo(list_games(source))
            return
        source = _game_log(source, game_id)
    elif game_id is not None:
        raise click.UsageError("--game picks a game from a tournament folder, not from a log")
    if html_out is not None:
        _check_html_target(html_out, source, force=force)
    game = _load(source)
    viewer = _parse_seat(game, seat) if seat is not None else None
    marks = Marks.of(analysis_for_log(source), viewer=viewer)
    if hand is not None and not any(h.number == hand for h in game.hands):
        raise click.BadParameter(f"the log has hands 1 to {len(game.hands)}", param_hint="--hand")
    if html_out is not None:
        _write_html(game, html_out, viewer, hand, marks)
        return
    _print(game, viewer, hand, step=step, color=color, marks=marks)


def _load(path: pathlib.Path) -> Game:
    """Read the log, warning (not failing) when it is damaged after the header."""
    try:
        game = load_game(path, strict=False)
    except LogError as error:
        raise click.ClickException(str(error)) from None
    if game.damage is not None:
        click.echo(
            f"warning: {shown_text(game.damage)}; showing the game up to there",
            err=True,
        )
    elif game.end is None and game.abort is None:
        what = (
            "holds only its game header"
            if not game.hands
            else "has no game_end record: the game is unfinished, or the log was cut"
        )
        click.echo(
            f"warning: {shown_text(path)}:{game.last_line}: the log {what}; "
            "showing the game up to there",
            err=True,
        )
    return game


def _print(
    game: Game,
    viewer: int | None,
    hand: int | None,
    *,
    step: bool,
    color: bool | None,
    marks: Marks,
) -> None:
    for chunk in render_chunks(game, seat=viewer, hand=hand, color=True, marks=marks):
        click.echo(chunk.text, color=color)
        if step and chunk.kind == "trick" and not _wait_key():
            return


def _wait_key() -> bool:
    """Wait for a key press; False when it was q (or Ctrl-C / Ctrl-D)."""
    click.echo(click.style("  -- a key: next trick, q: quit --", dim=True), nl=False, err=True)
    try:
        key = _read_key()
    except KeyboardInterrupt:
        key = "q"
    click.echo("\r" + " " * 40 + "\r", nl=False, err=True)
    return key not in ("q", "Q", "\x03", "\x04")


def _read_key() -> str:
    """A key from the terminal; without one, a character of stdin ("" at its end: go on)."""
    try:
        return click.getchar()
    except EOFError:
        return ""
    except OSError:  # no terminal (cron, CI): keys may come from a pipe
        return sys.stdin.read(1)


def _check_html_target(out: pathlib.Path, source: pathlib.Path, *, force: bool) -> None:
    """Refuse to write over a recorded file, or over a file not ours without --force."""
    what = recorded_file(out)
    if what is None and out.exists() and out.resolve() == source.resolve():
        what = "the log being replayed"
    if what is not None:
        raise click.BadParameter(
            f"{out} is {what}, recorded by the referee: it is never written over; "
            "choose another file",
            param_hint="--html",
        )
    if out.is_dir():
        raise click.BadParameter(f"{out} is a folder; give a file name", param_hint="--html")
    if out.exists() and not out.is_file():
        raise click.BadParameter(f"{out} is not a regular file", param_hint="--html")
    if out.is_file() and not force and not _is_replay_page(out):
        raise click.BadParameter(
            f"{out} exists and is not a replay page written by the referee; use --force to "
            "replace it",
            param_hint="--html",
        )


def _is_replay_page(path: pathlib.Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return _GENERATOR in handle.read(4096)
    except OSError:
        return False


def _write_html(
    game: Game, out: pathlib.Path, viewer: int | None, hand: int | None, marks: Marks
) -> None:
    from referee.audit.render_html import render_html

    page = render_html(game, seat=viewer, hand=hand, marks=marks)
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(page, encoding="utf-8")
        os.replace(tmp, out)  # a failed write leaves the old file as it was
    except OSError as error:
        with contextlib.suppress(OSError):
            tmp.unlink()
        where = error.filename or out
        raise click.BadParameter(
            f"cannot write {out}: {where}: {error.strerror}", param_hint="--html"
        ) from None
    click.echo(f"wrote {out}: open it in a browser (file://{out.resolve()})", err=True)


def _parse_seat(game: Game, text: str) -> int:
    """A seat from its number, its compass letter (at four) or its bot's name."""
    value = text.strip()
    if value.isascii() and value.isdigit() and int(value) < game.n:
        return int(value)
    if game.n == 4 and value.upper() in COMPASS:
        return COMPASS.index(value.upper())
    for s in game.seats:
        if s.bot == value:
            return s.seat
    names = [shown_name(s.bot) for s in game.seats]
    raise click.BadParameter(
        f"no seat {text!r}: give 0-{game.n - 1}"
        + (", N, E, S, W" if game.n == 4 else "")
        + f" or a bot ({', '.join(names)})",
        param_hint="--seat",
    )


# Tournament folders ----------------------------------------------------------------


def _journal_games(folder: pathlib.Path) -> list[dict[str, Any]]:
    """The game entries of a folder's journal (read through the folder module)."""
    try:
        return game_entries(folder)
    except TournamentError as error:
        raise click.UsageError(shown_text(error)) from None


def list_games(folder: pathlib.Path) -> str:
    """The folder's games with their results, as a table."""
    games = _journal_games(folder)
    if not games:
        return f"{folder}: no finished game in the journal yet"
    rows = []
    for entry in games:
        bots = entry.get("bots", [])
        scores = entry.get("scores", [])
        winners = ", ".join(shown_name(bots[w]) for w in entry.get("winners", []) if w < len(bots))
        faults = sum(sum(f.values()) for f in entry.get("faults", []) if isinstance(f, dict))
        rows.append(
            [
                shown_name(entry["game_id"]),
                "  ".join(
                    f"{shown_name(b)} {shown_name(s)}" for b, s in zip(bots, scores, strict=False)
                ),
                winners,
                len(entry.get("hand_scores", [])),
                faults or "",
            ]
        )
    table = tabulate(rows, headers=["game", "bots and totals by seat", "winner", "hands", "faults"])
    return f"{table}\n\n{len(games)} games; show one with: referee replay {folder} --game ID"


def _game_log(folder: pathlib.Path, game_id: str) -> pathlib.Path:
    """The log of game ``game_id`` in a tournament folder."""
    try:
        return game_log_path(folder, game_id)
    except TournamentError as error:
        raise click.BadParameter(shown_text(error), param_hint="--game") from None
