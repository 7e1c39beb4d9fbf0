"""A game replay as one self-contained HTML file (``referee replay LOG --html OUT``).

The page (``referee/templates/replay.html``: inline CSS and JavaScript, no
network, no external fonts) shows the table from above and plays the game
trick by trick. :func:`game_data` turns a :class:`~referee.audit.replay.Game` into
the JSON the page embeds; with ``seat`` set, only what that seat could see
goes into the file (the other hands are sent as card counts), so a replay can
be shared with a bot's author without revealing the other bots' cards.

The page reads its position from the URL's fragment, which makes it
testable and linkable: ``#hand=2&trick=5`` (trick 0 is the deal and the
passes), ``view=N`` (show the hands as seat N saw them), ``autoplay`` or
``autoplay=K`` (play on, or take K steps and pause), ``speed=2``, and
``do=back,step,play`` (click those buttons in turn).

With an analysis (``referee analyze``; :class:`~referee.analysis.marks.Marks`)
the page marks each graded decision on its card or pass (``?!`` inaccuracy,
``?`` mistake, ``??`` blunder, with the loss and the best choice), lists it
under *This step*, and shows a panel of each analysed seat's points lost per
hand and its worst decisions, each a link to its position. With ``seat``
set only that seat's analysis goes into the page.

A bot's note on a decision (hearts.v1 ``note``) is listed under *This step*
(``✎``, with its seat) and marks its card; a seat view carries only that
seat's notes.

Strings read from the log are never markup: the title is HTML-escaped, the
data is JSON that cannot close its ``<script>`` element, and the page puts
every string in with ``textContent``. The strings shown (bot names and
handshake fields, fault messages, notes, answers) are also made
:func:`~referee.safetext.printable` first, so that a bidi override or a
control character in a bot's name cannot reorder or hide what the page
shows.
"""

from __future__ import annotations

import html
import importlib.resources
import json
from collections.abc import Sequence
from typing import Any

from referee.analysis.grading import Grade
from referee.analysis.marks import Marks
from referee.analysis.record import Decision
from referee.audit.replay import Game, Hand, Note, PassMove, PlayMove, Trick
from referee.safetext import shown_name, shown_note, shown_text

__all__ = ["REPLAY_DATA_FORMAT", "game_data", "render_html"]

#: The ``format`` of the JSON embedded in the page.
REPLAY_DATA_FORMAT = "hearts-referee/replay-data"
_DATA_MARK = "/*@GAME_DATA@*/null"
_TITLE_MARK = "@TITLE@"


def _text(text: Any) -> str | None:
    return None if text is None else shown_text(text)


def render_html(
    game: Game,
    *,
    seat: int | None = None,
    hand: int | None = None,
    marks: Marks | None = None,
    links: Sequence[tuple[str, str]] = (),
) -> str:
    """The replay page for ``game``, as seen by ``seat`` (None: every hand shown).

    ``hand`` is the hand the page opens at (the URL fragment still wins);
    ``marks`` the analysed decisions to mark; ``links`` (text, href) pairs shown
    in the page's header (``referee serve``: back to the games and standings).
    """
    template = _template()
    data = game_data(game, seat=seat, marks=marks)
    if links:
        data["links"] = [{"text": text, "href": href} for text, href in links]
    if hand is not None:
        data["start"] = {"hand": hand, "trick": 0}
    title = f"Hearts replay: {shown_name(game.game_id)}" + (
        f" (as seat {seat})" if seat is not None else ""
    )
    page = template.replace(_TITLE_MARK, html.escape(title))
    return page.replace(_DATA_MARK, _script_json(data), 1)


def _template() -> str:
    return (
        importlib.resources.files("referee")
        .joinpath("templates/replay.html")
        .read_text(encoding="utf-8")
    )


def _script_json(data: dict[str, Any]) -> str:
    """JSON that is safe inside a ``<script>`` element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def game_data(game: Game, *, seat: int | None = None, marks: Marks | None = None) -> dict[str, Any]:
    """The JSON the page plays: the game hand by hand, hidden cards left out."""
    return {
        "analysis": _analysis_data(game, marks, seat),
        "format": REPLAY_DATA_FORMAT,
        "version": 1,
        "game_id": shown_name(game.game_id),
        "seed": game.seed if isinstance(game.seed, int) else shown_name(game.seed),
        "rules": game.rules.to_dict(),
        "seats": [
            {
                "seat": s.seat,
                "label": game.label(s.seat),
                "bot": shown_name(s.bot),
                "about": ", ".join(
                    x
                    for x in (
                        f"{shown_name(s.name)} {shown_name(s.version)}".strip(),
                        shown_name(s.language),
                        shown_name(s.author),
                    )
                    if x
                ),
            }
            for s in game.seats
        ],
        "view": seat,
        "hands": [_hand_data(game, h, seat) for h in game.hands],
        "notes": [_note_data(n) for n in game.notes],
        "end": _end_data(game),
        "abort": _text(game.abort),
        "damage": _text(game.damage) if game.damage else None,
        "start": None,
    }


def _visible(seat: int | None, owner: int) -> bool:
    return seat is None or seat == owner


def _bot_note(note: str | None, owner: int, seat: int | None) -> str | None:
    """A bot's note on its decision; in a seat view only that seat's own (it may name its cards)."""
    return shown_note(note) if note is not None and _visible(seat, owner) else None


def _cards(cards: list[Any]) -> list[str]:
    return [str(c) for c in sorted(cards)]


def _hand_data(game: Game, hand: Hand, seat: int | None) -> dict[str, Any]:
    n = game.n
    return {
        "number": hand.number,
        "pass_direction": hand.pass_direction.value,
        "dealt": [_cards(hand.dealt[s]) if _visible(seat, s) else None for s in range(n)],
        "start": [_cards(hand.cards_at_play(s)) if _visible(seat, s) else None for s in range(n)],
        "counts": [len(hand.dealt[s]) for s in range(n)],
        "passes": [_pass_data(p, seat) for p in sorted(hand.passes, key=lambda p: p.seat)],
        "tricks": [_trick_data(t, seat) for t in hand.tricks],
        "moon_choice": (
            {
                "seat": hand.moon_choice.seat,
                "choice": shown_name(hand.moon_choice.choice),
                "fallback": hand.moon_choice.fallback,
                "fault": _fault_text(hand.moon_choice.fault, hand.moon_choice.seat, seat),
                "note": _bot_note(hand.moon_choice.note, hand.moon_choice.seat, seat),
            }
            if hand.moon_choice
            else None
        ),
        "result": (
            {
                "points": hand.result.points,
                "scores": hand.result.scores,
                "moon_shooter": hand.result.moon_shooter,
                "moon_scoring": _text(hand.result.moon_scoring),
                "totals": hand.result.totals,
            }
            if hand.result
            else None
        ),
        "totals_before": game.totals_before(hand.number),
        "notes": [_note_data(note) for note in hand.notes],
    }


def _fault_text(fault: Any, owner: int, seat: int | None) -> str | None:
    """The fault as text; in a seat view only the kind of another seat's fault."""
    if fault is None:
        return None
    return _text(fault) if _visible(seat, owner) else shown_name(fault.kind)


def _pass_data(move: PassMove, seat: int | None) -> dict[str, Any]:
    shown = _visible(seat, move.seat) or _visible(seat, move.to)
    return {
        "seat": move.seat,
        "to": move.to,
        "cards": _cards(move.cards) if shown else None,
        "count": len(move.cards),
        "fallback": move.fallback,
        "fault": _fault_text(move.fault, move.seat, seat),
        "answer": _answer(move.answer) if move.answer and _visible(seat, move.seat) else None,
        "note": _bot_note(move.note, move.seat, seat),
    }


def _play_data(play: PlayMove, seat: int | None) -> dict[str, Any]:
    return {
        "seat": play.seat,
        "card": str(play.card),
        "fallback": play.fallback,
        "fault": _fault_text(play.fault, play.seat, seat),
        "answer": _answer(play.answer) if play.answer and _visible(seat, play.seat) else None,
        "note": _bot_note(play.note, play.seat, seat),
    }


def _answer(answer: list[str] | str) -> list[str] | str:
    """What a bot answered when refused (card strings, or not)."""
    return shown_name(answer) if isinstance(answer, str) else [shown_name(a) for a in answer]


def _trick_data(trick: Trick, seat: int | None) -> dict[str, Any]:
    return {
        "number": trick.number,
        "leader": trick.leader,
        "plays": [_play_data(p, seat) for p in trick.plays],
        "winner": trick.winner,
        "points": trick.points,
        "breaks_hearts": trick.breaks_hearts,
    }


def _note_data(note: Note) -> dict[str, Any]:
    return {
        "kind": note.kind,
        "seat": note.seat,
        "text": _text(note.text),
        "trick": note.trick,
        "after_hand": note.after_hand,
    }


def _end_data(game: Game) -> dict[str, Any] | None:
    end = game.end
    if end is None:
        return None
    return {
        "scores": end.scores,
        "placements": end.placements,
        "winners": end.winners,
        "hands": end.hands,
        "forfeited": end.forfeited,
        "faults": [{shown_name(k): v for k, v in f.items()} for f in end.faults],
    }


#: Worst decisions listed per analysed seat in the page's analysis panel.
_WORST_SHOWN = 8


def _decision_data(seat: int, d: Decision) -> dict[str, Any]:
    return {
        "seat": seat,
        "kind": d.kind,
        "phase": d.phase.value,
        "hand": d.hand,
        "trick": d.trick,
        "position": d.position,
        "grade": d.grade.value if d.grade else None,
        "mark": d.grade.mark if d.grade else "",
        "loss": round(d.loss, 2),
        "error": round(d.error, 2),
        "what": d.what(),
        "chosen": [str(c) for c in d.chosen],
        "best": [str(c) for c in d.best],
        "options": [
            {"cards": [str(c) for c in o.cards], "points": o.points, "loss": round(o.loss, 2)}
            for o in d.options[:6]
        ],
        "exact": d.exact,
        "worlds": d.worlds,
    }


def _analysis_data(game: Game, marks: Marks | None, seat: int | None) -> dict[str, Any] | None:
    """The analysed decisions (graded ones marked) and each analysed seat's summary."""
    if not marks:
        return None
    seats = []
    graded: dict[str, dict[str, Any]] = {}
    for s, summary in marks.summaries(game.game_id):
        if seat is not None and s != seat:
            continue  # another seat's options would show its cards
        for d in marks.seats[s].decisions:
            if d.grade is not None:
                key = f"{d.kind}:{s}:{d.hand}:{d.trick}:{d.position}"
                graded[key] = _decision_data(s, d)
        seats.append(
            {
                "seat": s,
                "bot": shown_name(summary.bot),
                "hands": summary.hands,
                "per_hand": round(summary.per_hand, 2),
                "by_phase": {p.value: round(summary.phase_per_hand(p), 2) for p in summary.loss},
                "grades": {g.value: summary.grades[g] for g in Grade},
                "worst": [_decision_data(s, w.decision) for w in summary.worst[:_WORST_SHOWN]],
            }
        )
    return {"seats": seats, "marks": graded} if seats else None
