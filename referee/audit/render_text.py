"""A game replay as text for the terminal (``referee replay``).

:func:`render_chunks` yields the replay piece by piece (the header, then per
hand its deal and passes, each trick, and the result, then the game's end),
so that ``--step`` can wait for a key between tricks; :func:`render_text`
joins them. Suits are symbols; with ``color=True`` hearts and diamonds are
red, faults yellow, and headings bold (click strips the colours again when
the output is not a terminal).

With ``seat`` set, the game is shown as that seat saw it: its own cards, the
cards it passed and received, and every card played, but not the other
hands, the other passes' cards, or what other bots answered when refused.

With an analysis (``referee analyze``: :class:`~referee.analysis.marks.Marks`),
each inaccuracy, mistake and blunder is marked under its trick or pass with
the expected loss and the best choice, and the game's end sums up each
analysed seat's points lost per hand (only the viewing seat's, with ``seat``).

A bot's note on a decision (hearts.v1 ``note``) is shown under it, marked
``✎`` and labelled with its seat; a seat's view shows only its own notes.

Every string read from the log (bot names and handshake fields, fault
messages, notes; the log may be old or written by hand) is shown through
:func:`~referee.safetext.printable`: one line, no terminal escapes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import click
from tabulate import tabulate

from referee.analysis.grading import Grade
from referee.analysis.marks import Marks
from referee.analysis.record import Decision
from referee.audit.replay import Fault, Game, Hand, Note, PassMove, PlayMove, Trick
from referee.engine import Card, Suit
from referee.safetext import shown_name, shown_note, shown_text

__all__ = ["Chunk", "render_chunks", "render_text"]

_RED_SUITS = (Suit.DIAMONDS, Suit.HEARTS)
#: The line under a hand's title.
_RULE = "═"
#: Columns of one play in a trick line (``"N 10♥!"`` padded) with the two spaces after it.
_CELL = 8


@dataclasses.dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of the replay; ``kind`` is header, hand, trick, result or end."""

    kind: str
    text: str


class _Paint:
    """Styles text when colour is on, and leaves it alone otherwise."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def style(self, text: str, **styles: object) -> str:
        return click.style(text, **styles) if self.color and text else text  # type: ignore[arg-type]

    def card(self, card: Card, *, bold: bool = False) -> str:
        red = card.suit in _RED_SUITS
        return self.style(card.symbol(), fg="red" if red else None, bold=bold or None)

    def suit(self, suit: Suit, text: str) -> str:
        return self.style(text, fg="red" if suit in _RED_SUITS else None)

    def title(self, text: str) -> str:
        return self.style(text, bold=True)

    def warn(self, text: str) -> str:
        return self.style(text, fg="yellow", bold=True)

    def dim(self, text: str) -> str:
        return self.style(text, dim=True)


@dataclasses.dataclass(frozen=True, slots=True)
class _View:
    """What to show: the game, the seat whose view it is (or None), and the style."""

    game: Game
    seat: int | None
    paint: _Paint
    marks: Marks

    def sees(self, seat: int) -> bool:
        """May the viewer see ``seat``'s private cards?"""
        return self.seat is None or self.seat == seat

    def who(self, seat: int) -> str:
        """The seat's label and bot, ``"N random"``."""
        return f"{self.game.label(seat)} {shown_name(self.game.seats[seat].bot)}"


def render_text(
    game: Game,
    *,
    seat: int | None = None,
    hand: int | None = None,
    color: bool = False,
    marks: Marks | None = None,
) -> str:
    """The whole replay as one string (see :func:`render_chunks`)."""
    chunks = render_chunks(game, seat=seat, hand=hand, color=color, marks=marks)
    return "\n".join(c.text for c in chunks)


def render_chunks(
    game: Game,
    *,
    seat: int | None = None,
    hand: int | None = None,
    color: bool = False,
    marks: Marks | None = None,
) -> Iterator[Chunk]:
    """The replay piece by piece: only hand ``hand`` if given, as seen by ``seat`` if given,
    with the analysed decisions of ``marks`` marked."""
    shown = Marks({}, {}) if marks is None else marks
    if seat is not None:
        shown = Marks(
            {s: a for s, a in shown.seats.items() if s == seat},
            {k: d for k, d in shown.index.items() if k[0] == seat},
        )
    view = _View(game, seat, _Paint(color), shown)
    yield Chunk("header", _header(view))
    for h in game.hands:
        if hand is None or h.number == hand:
            yield from _hand_chunks(view, h)
    if hand is None:
        yield Chunk("end", _ending(view))


# The header -----------------------------------------------------------------------


def _header(view: _View) -> str:
    game, paint = view.game, view.paint
    rules = game.rules
    variants = [
        f"{rules.num_players} players",
        f"target {rules.target_score}",
        f"moon {rules.moon_scoring.value.replace('_', ' ')}",
    ]
    if rules.queen_breaks_hearts:
        variants.append("Q♠ breaks hearts")
    if rules.omnibus:
        variants.append("omnibus J♦ -10")
    if rules.points_on_first_trick:
        variants.append("points on the first trick")
    if rules.tie_rule.value != "play_on":
        variants.append(f"ties: {rules.tie_rule.value.replace('_', ' ')}")
    title = paint.title(f"Game {shown_name(game.game_id)}") + f"  seed {shown_name(game.seed)}  "
    lines = [title + ", ".join(variants)]
    width = max(len(shown_name(s.bot)) for s in game.seats)
    for s in game.seats:
        fields = (
            f"{shown_name(s.name)} {shown_name(s.version)}".strip(),
            shown_name(s.language),
            shown_name(s.author),
        )
        about = ", ".join(x for x in fields if x)
        mark = "  (you)" if view.seat == s.seat else ""
        line = (
            f"  {game.label(s.seat):>2}  seat {s.seat}  {shown_name(s.bot):<{width}}  {about}{mark}"
        )
        lines.append(line.rstrip())
    return "\n".join(lines)


# A hand ---------------------------------------------------------------------------


def _hand_chunks(view: _View, hand: Hand) -> Iterator[Chunk]:
    yield Chunk("hand", _hand_intro(view, hand))
    for trick in hand.tricks:
        yield Chunk("trick", _trick_text(view, hand, trick))
    yield Chunk("result", _hand_outro(view, hand))


def _hand_intro(view: _View, hand: Hand) -> str:
    game, paint = view.game, view.paint
    totals = game.totals_before(hand.number)
    standing = "  ".join(f"{game.label(s)} {t}" for s, t in enumerate(totals))
    title = f"Hand {hand.number}: pass {hand.pass_direction.value}; totals {standing} "
    lines = ["", paint.title(title + _RULE * max(3, 72 - len(title)))]
    lines.append("Dealt:")
    lines += _hands_block(view, hand.dealt)
    lines += _notes(view, hand, stage="deal")
    if hand.passes:
        lines.append(f"Passes ({hand.pass_direction.value}):")
        for p in sorted(hand.passes, key=lambda p: p.seat):
            lines.append(_pass_line(view, p))
            lines += _bot_note_lines(view, p.seat, p.note)
            lines += _mark_lines(view, p.seat, view.marks.pass_of(p.seat, hand.number))
        lines += _notes(view, hand, stage="pass")
        lines.append("After the pass:")
        lines += _hands_block(view, [hand.cards_at_play(s) for s in range(game.n)])
    else:
        lines.append("No passing (hold hand).")
    lines.append("Tricks (the leader's card first; → who took the trick, and its points):")
    return "\n".join(lines)


def _hands_block(view: _View, hands: list[list[Card]]) -> list[str]:
    """One line per seat, the cards grouped by suit in aligned columns."""
    groups = [[_suit_group(cards, suit) for suit in Suit] for cards in hands]
    widths = [max(len(g[suit]) for g in groups) for suit in Suit]
    name_width = max(len(view.who(s)) for s in range(len(hands)))
    lines = []
    for seat, cards in enumerate(hands):
        if view.sees(seat):
            cells = [
                view.paint.suit(suit, groups[seat][suit])
                + " " * (widths[suit] - len(groups[seat][suit]))
                for suit in Suit
            ]
            body = "  ".join(cells).rstrip()
        else:
            body = view.paint.dim(f"({len(cards)} cards)")
        lines.append(f"  {view.who(seat):<{name_width}}  {body}")
    return lines


def _suit_group(cards: list[Card], suit: Suit) -> str:
    """``"♥ 2 Q A"``, or ``"♥ -"`` for a void."""
    ranks = [c.symbol()[:-1] for c in cards if c.suit is suit]
    return f"{suit.symbol} {' '.join(ranks) if ranks else '-'}"


def _pass_line(view: _View, move: PassMove) -> str:
    paint = view.paint
    arrow = f"{view.who(move.seat)} → {view.who(move.to)}"
    if view.sees(move.seat) or view.sees(move.to):
        cards = " ".join(paint.card(c) for c in sorted(move.cards))
    else:
        cards = paint.dim(f"{len(move.cards)} cards")
    line = f"  {arrow}: {cards}"
    if move.fallback:
        line += "  " + paint.warn(_fault_text(view, move.seat, move.fault, move.answer))
    return line


def _fault_text(view: _View, seat: int, fault: Fault | None, answer: list[str] | str | None) -> str:
    """``"! timeout: ... (answered Q♠) → fallback"``; a seat view hides others' details."""
    if fault is None:
        return "* fallback (forfeited)"
    text = shown_text(fault) if view.sees(seat) else shown_name(fault.kind)
    if answer is not None and view.sees(seat):
        text += f" (answered {_answer_text(answer)})"
    return f"! {text} → fallback"


def _answer_text(answer: list[str] | str) -> str:
    """What a bot answered, with card symbols where the strings are cards."""
    items = [answer] if isinstance(answer, str) else answer
    shown = []
    for item in items:
        try:
            shown.append(Card.parse(item).symbol())
        except ValueError:
            shown.append(shown_name(repr(item)))
    return " ".join(shown)


def _trick_text(view: _View, hand: Hand, trick: Trick) -> str:
    game, paint = view.game, view.paint
    cells = [_play_cell(view, trick, p) for p in trick.plays]
    line = f"  {trick.number:>2}  " + "  ".join(cells)
    missing = game.n - len(trick.plays)
    line += " " * (_CELL * missing)
    if trick.complete:
        assert trick.winner is not None
        pts = f"{trick.points:>2} pt" + ("s" if abs(trick.points) != 1 else "")
        line += f"  → {game.label(trick.winner)} {pts}"
    else:
        line += "  " + paint.warn("(incomplete)")
    if trick.breaks_hearts:
        line += "  " + paint.suit(Suit.HEARTS, "♥ broken")
    lines = [line.rstrip()]
    for play in trick.plays:
        lines += _bot_note_lines(view, play.seat, play.note)
    for position, play in enumerate(trick.plays):
        lines += _mark_lines(
            view, play.seat, view.marks.play(play.seat, hand.number, trick.number, position)
        )
    for play in trick.plays:
        if play.fault is not None:
            text = _fault_text(view, play.seat, play.fault, play.answer)
            lines.append(
                f"        {paint.warn(f'{view.who(play.seat)}: {text} {play.card.symbol()}')}"
            )
    lines += _notes(view, hand, stage="play", trick=trick.number)
    return "\n".join(lines)


def _play_cell(view: _View, trick: Trick, play: PlayMove) -> str:
    """``"E 10♥ "``: 8 columns, the winning card bold, a fallback marked ``!`` (``*`` forfeited)."""
    label = view.game.label(play.seat)
    card = play.card.symbol()
    mark = ("!" if play.fault else "*") if play.fallback else ""
    text = view.paint.card(play.card, bold=play.seat == trick.winner)
    text = f"{label} {text}{view.paint.warn(mark)}"
    return text + " " * max(0, _CELL - len(label) - 1 - len(card) - len(mark) - 2)


def _notes(view: _View, hand: Hand, *, stage: str, trick: int | None = None) -> list[str]:
    """Faults outside decisions and forfeits that happened at this stage of the hand."""
    return [
        "        " + view.paint.warn(_note_text(view, n))
        for n in hand.notes
        if n.stage == stage and (trick is None or n.trick == trick)
    ]


def _note_text(view: _View, note: Note) -> str:
    if note.kind == "forfeit":
        return (
            f"{view.who(note.seat)} forfeits the game: {shown_text(note.text)}; "
            "the referee plays its fallback moves from here on (marked *)"
        )
    return f"{view.who(note.seat)}: ! {shown_text(note.text)}"


def _bot_note_lines(view: _View, seat: int, note: str | None) -> list[str]:
    """``✎ N noting-bot: ducked under the K♠``: the note a bot sent with its decision.

    A note is its seat's own text (it may name the seat's cards), so a seat's
    view shows only that seat's notes.
    """
    if note is None or not view.sees(seat):
        return []
    return [f"        {view.paint.dim('✎')} {view.who(seat)}: {shown_note(note)}"]


def _mark_lines(view: _View, seat: int, decision: Decision | None) -> list[str]:
    """``N random ?? blunder: A♠ (best 10♠) lost 12.62 ± 0.23``, for a graded decision."""
    if decision is None or decision.grade is None:
        return []
    paint = view.paint
    grade = decision.grade
    color = {"blunder": "red", "mistake": "yellow"}.get(grade.value, "cyan")
    label = paint.style(f"{grade.mark} {grade.value}", fg=color, bold=True)
    return [
        f"        {view.who(seat)} {label}: {decision.what()} lost {decision.loss:.2f}"
        f" ± {decision.error:.2f} points"
    ]


def _analysis_lines(view: _View) -> list[str]:
    """Each analysed seat's points lost per hand, by phase (the summary of referee analyze)."""
    lines = []
    for seat, s in view.marks.summaries(view.game.game_id):
        phases = ", ".join(f"{p.value} {s.phase_per_hand(p):.2f}" for p in s.loss if s.loss[p] > 0)
        counts = ", ".join(g.count(s.grades[g]) for g in Grade if s.grades[g])
        lines.append(
            f"  {view.who(seat)}: {s.per_hand:.2f} points lost a hand"
            + (f" ({phases})" if phases else "")
            + (f"; {counts}" if counts else "")
        )
    if lines:
        lines.insert(0, view.paint.title("Analysis (referee analyze): expected points lost"))
    return lines


def _hand_outro(view: _View, hand: Hand) -> str:
    game, paint = view.game, view.paint
    lines = []
    result = hand.result
    if result is None:
        lines.append(paint.warn(f"  Hand {hand.number} was not finished."))
        return "\n".join(lines)
    if result.moon_shooter is not None:
        scoring = shown_name(result.moon_scoring or "").replace("_", " ")
        how = "" if hand.moon_choice else f" ({scoring})"
        lines.append(paint.title(f"  ☾ {view.who(result.moon_shooter)} shot the moon{how}"))
    if hand.moon_choice is not None:
        m = hand.moon_choice
        choice = shown_name(m.choice).replace("_", " ")
        extra = "  " + paint.warn(_fault_text(view, m.seat, m.fault, None)) if m.fallback else ""
        lines.append(f"  {view.who(m.seat)} chose: {choice}{extra}")
        lines += _bot_note_lines(view, m.seat, m.note)
        lines += _mark_lines(view, m.seat, view.marks.moon(m.seat, hand.number))
    headers = [f"Hand {hand.number}", *(game.label(s) for s in range(game.n))]
    rows = [["points taken", *result.points]]
    if result.scores != result.points:
        rows.append(["scored", *result.scores])
    rows.append(["total", *result.totals])
    table = tabulate(rows, headers=headers, tablefmt="plain", numalign="right")
    lines += ["  " + row for row in table.splitlines()]
    lines += _notes(view, hand, stage="end")
    return "\n".join(lines)


# The end --------------------------------------------------------------------------


def _ending(view: _View) -> str:
    game, paint = view.game, view.paint
    lines = [""]
    lines += ["  " + paint.warn(_note_text(view, n)) for n in game.notes]
    if game.end is not None:
        end = game.end
        hands = f"{end.hands} hand" + ("s" if end.hands != 1 else "")
        lines.append(paint.title(f"Game over after {hands}"))
        lines.append(_final_table(view))
    elif game.abort is not None:
        lines.append(paint.warn(f"The game was aborted: {shown_text(game.abort)}"))
    else:
        lines.append(paint.warn(f"The log ends at line {game.last_line} before the game's end."))
    if game.damage is not None:
        lines.append(paint.warn(f"The log is damaged: {shown_text(game.damage)}"))
    lines += _analysis_lines(view)
    return "\n".join(lines)


def _final_table(view: _View) -> str:
    game = view.game
    end = game.end
    assert end is not None
    moons = [
        sum(1 for h in game.hands if h.result and h.result.moon_shooter == s) for s in range(game.n)
    ]
    rows = []
    for seat in sorted(range(game.n), key=lambda s: (end.placements[s], s)):
        faults = (
            ", ".join(f"{shown_name(k)} {v}" for k, v in sorted(end.faults[seat].items())) or "-"
        )
        rows.append(
            [
                end.placements[seat],
                game.label(seat),
                shown_name(game.seats[seat].bot),
                end.scores[seat],
                moons[seat],
                faults + ("  FORFEITED" if end.forfeited[seat] else ""),
            ]
        )
    table = tabulate(
        rows, headers=["place", "seat", "bot", "total", "moons", "faults"], tablefmt="simple"
    )
    return "\n".join("  " + row for row in table.splitlines())
