"""A bot restarted mid-game plays a variant game correctly from the requests alone.

The referee does not send StartGame again to a bot it restarts, so a bot that
learnt the rules there loses them. Decision requests carry the rules in force
(``rules``) and ``current_trick.leader`` is always set: this bot keeps no
state at all, ignores every notification, and checks every decision request
against what the rules in it imply (hand size, pass count and target, the
legal plays worked out with the engine's cascade, the moon choice only under
V2 ``shooter_chooses``). A request that does not agree gets a card the bot
does not hold: a fault. The bot kills itself once, in the middle of the
game; the referee restarts it, and the new process, which never sees a
StartGame, plays on without a fault.
"""

from __future__ import annotations

import pathlib
import textwrap

import pytest

from referee.engine import MoonScoring, Rules
from referee.match.runner import GameSpec, play_game
from referee.players.policy import FaultPolicy, TimeControl
from referee.players.specs import parse_bot
from referee.players.supply import BotPool

BOT = textwrap.dedent(
    '''
    """Stateless and strict: every decision is checked against request.rules."""
    import os
    import pathlib

    from referee.botkit import Bot, pb, serve
    from referee.engine import CardSet, legal
    from referee.protocol import cards_from_pb, card_to_pb, rules_from_pb

    HERE = pathlib.Path(__file__).resolve().parent
    PID = os.getpid()
    TARGETS = {
        pb.PASS_DIRECTION_LEFT: 1,
        pb.PASS_DIRECTION_RIGHT: -1,
        pb.PASS_DIRECTION_ACROSS: 2,
        pb.PASS_DIRECTION_HOLD: 0,
    }


    def note(kind):
        with open(HERE / f"{kind}.{PID}", "a") as f:
            f.write("x")


    def wrong(request, why):
        """A card the seat does not hold: the referee logs a fault with our reason."""
        note("wrong")
        (HERE / f"why.{PID}").write_text(why)
        held = CardSet.of(cards_from_pb(request.hand))
        other = next(c for c in range(52) if not held >> c & 1)
        return card_to_pb(other)


    class Strict(Bot):
        name = "strict-stateless"

        def start_game(self, request):
            note("start")

        def pass_cards(self, request):
            note("decision")
            rules = rules_from_pb(request.rules)
            n = rules.num_players
            if len(request.hand) != rules.cards_per_player or request.count != rules.pass_count:
                return [wrong(request, "hand size or pass count")] * request.count
            if request.pass_to != (request.seat + TARGETS[request.pass_direction]) % n:
                return [wrong(request, "pass target")] * request.count
            return list(request.hand)[: request.count]

        def play_card(self, request):
            note("decision")
            if request.hand_number == 2 and not (HERE / "crashed").exists():
                (HERE / "crashed").write_text(str(PID))
                os._exit(3)  # a crash in the middle of the game
            rules = rules_from_pb(request.rules)
            plays = request.current_trick.plays
            leader = plays[0].seat if plays else request.seat
            if request.current_trick.leader != leader:
                return wrong(request, "current_trick.leader")
            if request.current_trick.HasField("winner"):
                return wrong(request, "a winner for the trick in progress")
            removed = CardSet.of(rules.removed_cards)
            lowest_club = next(c for c in range(13) if not removed >> c & 1)
            _, mask = legal.legal_case(
                CardSet.of(cards_from_pb(request.hand)),
                plays[0].card.suit - 1 if plays else -1,
                first_trick=request.trick_number == 1,
                hearts_broken=request.hearts_broken,
                clean_first_trick=not rules.points_on_first_trick,
                first_lead=1 << lowest_club,
            )
            if mask != CardSet.of(cards_from_pb(request.legal_moves)):
                return wrong(request, "legal moves")
            return request.legal_moves[-1]

        def choose_moon_scoring(self, request):
            note("decision")
            if request.rules.moon_scoring != pb.MOON_SCORING_SHOOTER_CHOOSES:
                return pb.MOON_SCORING_UNSPECIFIED  # malformed: a fault
            return pb.MOON_SCORING_SUBTRACT_FROM_SELF


    serve(Strict())
    '''
)

#: V6 (five players: 2♣ and 2♦ removed, so 3♣ leads), V7 (points on the
#: first trick), V1, V2 shooter_chooses, V3: what the bot must get from the
#: requests.
RULES = Rules(
    num_players=5,
    target_score=40,
    points_on_first_trick=True,
    queen_breaks_hearts=True,
    moon_scoring=MoonScoring.SHOOTER_CHOOSES,
    omnibus=True,
)


@pytest.mark.timeout(600)
def test_a_restarted_bot_plays_a_variant_from_the_requests_alone(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "strict"
    folder.mkdir()
    (folder / "bot.py").write_text(BOT)
    (folder / "bot.yaml").write_text(
        'name: strict\nversion: "1"\nrun: "{python} bot.py --address {address}"\n'
    )
    strict = parse_bot(str(folder))
    others = [parse_bot(name) for name in ("heuristic", "random")]
    time_control = TimeControl(move_time_ms=5000, startup_timeout_ms=60000)
    policy = FaultPolicy(max_faults=5)
    bots = (strict.name, "heuristic", "random", "heuristic", "random")
    with BotPool(
        log_dir=tmp_path / "bots", time_control=time_control, fault_policy=policy, sandbox="none"
    ) as pool:
        players = pool.start_all([strict, *others], stand_in=False)
        game = GameSpec(
            game_id="restarted",
            seed=77,
            bots=bots,
            rules=RULES,
            time_control=time_control,
            fault_policy=policy,
        )
        record = play_game(game, [players[b] for b in bots], tmp_path / "game.jsonl")
    why = {p.name: p.read_text() for p in folder.glob("why.*")}
    assert not why, f"the bot found requests that do not carry what it needs: {why}"
    assert (folder / "crashed").exists(), f"the bot never reached hand 2: {record.faults[0]}"
    crashed = int((folder / "crashed").read_text())
    # The one fault: the call the crash cut short.
    assert sum(record.faults[0].values()) == 1, record.faults[0]
    assert not record.forfeited[0]
    assert record.hand_scores and len(record.hand_scores) >= 2
    # Two processes: the first had the StartGame; the restarted one had none,
    # and made the rest of the game's decisions.
    processes = {int(p.suffix[1:]) for p in folder.glob("decision.*")}
    assert crashed in processes and len(processes) == 2, processes
    (restarted,) = processes - {crashed}
    assert (folder / f"start.{crashed}").exists()
    assert not (folder / f"start.{restarted}").exists()
    assert len((folder / f"decision.{restarted}").read_text()) > 10
