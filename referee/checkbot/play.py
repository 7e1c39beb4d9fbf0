"""Playing the situations: the bot plays its seat, the engine the others, every answer judged.

A :class:`Driver` plays a :class:`~referee.checkbot.situations.Game` from the
deal: it sends the bot every notification and every decision of its seat,
exactly as the referee builds them (:mod:`referee.protocol`), judges each
answer and counts it towards its checks in a
:class:`~referee.checkbot.checks.Tallies`. Where an answer is wrong, the
engine plays a legal card in its place and the hand goes on.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import random
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

from referee import protocol
from referee.checkbot.calls import CallFailed, Calls
from referee.checkbot.checks import Tallies
from referee.checkbot.situations import (
    Game,
    classify_play,
    concurrent_games,
    judge_pass,
    judge_play,
    mixed_up_hint,
    scripted_games,
)
from referee.engine import Card, MoonScoring, Phase, card_list


class Driver:
    """Plays games with the bot over ``calls``, counting every answer in ``tallies``."""

    def __init__(self, calls: Calls, tallies: Tallies, *, bot_name: str, move_time_ms: int) -> None:
        self.calls = calls
        self.tallies = tallies
        self.bot_name = bot_name
        self.move_time_ms = move_time_ms

    def play_scripted(self, seed: int) -> None:
        """Play the scripted games one after the other."""
        for game in scripted_games(seed):
            self.drive(game)

    def play_concurrent(self, seed: int) -> None:
        """Play the concurrent games at once, one thread each, on the one bot process."""
        games = concurrent_games(seed)
        count = len(games)
        barrier = games[0].barrier
        assert barrier is not None
        started = time.perf_counter()

        def play(game: Game) -> None:
            try:
                self.drive(game)
            finally:
                barrier.abort()  # a game that ends early must not hold the others up

        with concurrent.futures.ThreadPoolExecutor(count) as pool:
            errors = [f.exception() for f in [pool.submit(play, g) for g in games]]
        seconds = time.perf_counter() - started
        for error in errors:
            if error is not None:
                raise error
        self.tallies.note(
            "concurrent",
            f"{count} hands played at once in {seconds:.2f} s, "
            f"up to {self.calls.max_in_flight} requests in flight",
        )

    def drive(self, game: Game) -> None:
        """Play ``game`` from its current hand: the bot's seat asked, the others by the engine."""
        state, seat = game.state, game.seat
        rng = random.Random(f"check-bot/{game.game_id}")
        names = [self.bot_name if s == seat else f"engine-{s}" for s in range(state.n)]
        self.notify(
            game,
            "StartGame",
            protocol.start_game_request(game.game_id, seat, names, state.rules),
            game.checks,
        )
        hands = 0
        while not state.is_over and hands < game.max_hands:
            hand = state.hand_number
            hand_checks = (*game.checks, *game.hand_checks.get(hand, ()))
            self.notify(
                game,
                "DealHand",
                protocol.deal_hand_request(game.game_id, state.view(seat)),
                hand_checks,
            )
            if state.phase is Phase.PASSING:
                for s in state.to_act():
                    if s == seat:
                        cards = self.ask_pass(game, hand_checks, rng)
                    else:
                        cards = rng.sample(card_list(state.hands[s]), state.rules.pass_count)
                    state.pass_cards(s, cards)
            first_play = True
            while state.hand_number == hand and not state.is_over:
                s = state.current
                if state.phase is Phase.PLAYING:
                    if s == seat:
                        checks = hand_checks if first_play else game.checks
                        card = self.ask_play(game, checks, rng)
                        first_play = False
                    else:
                        card = self.engine_play(game, rng)
                    state.play(card)
                elif state.phase is Phase.MOON_CHOICE:
                    choice = self.ask_moon(game) if s == seat else MoonScoring.ADD_TO_OTHERS
                    state.choose_moon_scoring(s, choice)
            result = state.hand_results[-1]
            self.notify(
                game,
                "EndHand",
                protocol.end_hand_request(game.game_id, seat, result),
                game.checks,
            )
            hands += 1
        if state.is_over:
            assert state.outcome is not None
            self.notify(
                game,
                "EndGame",
                protocol.end_game_request(game.game_id, seat, state.outcome, False),
                game.checks,
            )

    def engine_play(self, game: Game, rng: random.Random) -> Card:
        state = game.state
        legal = state.legal_mask()
        for card in game.script.get(state.current, ()):
            if legal >> card & 1:
                return card
        return rng.choice(card_list(legal))

    def notify(self, game: Game, rpc: str, request: Any, checks: Iterable[str]) -> None:
        where = f"game {game.game_id}, seat {game.seat}"
        if rpc in ("DealHand", "EndHand"):
            where += f", hand {request.hand_number}"
        try:
            self.calls.call(rpc, request, where)
        except CallFailed as failure:
            self.tallies.add(("notifications", *checks), fail=f"{rpc} ({where}): {failure.message}")
            return
        self.tallies.accepted(rpc)
        self.tallies.add(("notifications", *checks))

    def ask_pass(self, game: Game, checks: Sequence[str], rng: random.Random) -> list[Card]:
        state, seat = game.state, game.seat
        view = state.view(seat)
        count = state.rules.pass_count
        hand = int(state.hands[seat])
        where = f"game {game.game_id}, hand {view.hand_number}, seat {seat}"
        what = f"PassCards, passing {view.pass_direction.value} ({state.n} players)"
        request = protocol.pass_request(
            game.game_id, view, f"h{view.hand_number}-pass-s{seat}", self.move_time_ms, 0
        )
        try:
            reply = self.calls.call("PassCards", request, where)
        except CallFailed as failure:
            self.tallies.add(checks, fail=f"{what}: {failure.message} [{where}]")
            return rng.sample(card_list(hand), count)
        problem, cards = judge_pass(reply, hand, count)
        if problem:
            self.tallies.add(checks, fail=f"{what}: {problem} [{where}]")
            return rng.sample(card_list(hand), count)
        self.tallies.add(checks, example=f"passed {' '.join(c.symbol() for c in cards)}")
        return list(cards)

    def ask_play(self, game: Game, checks: Sequence[str], rng: random.Random) -> Card:
        state, seat = game.state, game.seat
        view = state.view(seat)
        found = state.legal_case(seat)
        assert found is not None  # the bot's seat is to play
        situation, described = classify_play(found[0], view)
        where = (
            f"game {game.game_id}, hand {view.hand_number}, trick {view.trick_number}, seat {seat}"
        )
        request = protocol.play_request(
            game.game_id,
            view,
            f"h{view.hand_number}-t{view.trick_number}-s{seat}",
            self.move_time_ms,
            0,
        )
        checks = (situation, *checks)
        legal = int(view.legal_moves)
        burst = None
        if game.barrier is not None and game.burst is not None and not game.waited:
            # The first PlayCard of every concurrent game goes out at the same moment.
            game.waited = True
            burst = game.burst
            burst[game.game_id] = (legal, int(view.hand))
            with contextlib.suppress(threading.BrokenBarrierError):
                game.barrier.wait(timeout=30)
        try:
            reply = self.calls.call("PlayCard", request, where)
        except CallFailed as failure:
            self.tallies.add(checks, fail=f"PlayCard {described}: {failure.message} [{where}]")
            return rng.choice(card_list(legal))
        problem, card = judge_play(state, seat, reply)
        if problem:
            hint = ""
            if burst is not None and reply.HasField("card"):
                hint = mixed_up_hint(game.game_id, reply.card, burst)
            self.tallies.add(checks, fail=f"PlayCard {described}: {problem}{hint} [{where}]")
            return rng.choice(card_list(legal))
        self.tallies.add(
            checks, example=f"answered {card.symbol()} of {view.legal_moves.symbols()}"
        )
        return card

    def ask_moon(self, game: Game) -> MoonScoring:
        state, seat = game.state, game.seat
        view = state.view(seat)
        where = f"game {game.game_id}, hand {view.hand_number}, seat {seat}"
        request = protocol.moon_scoring_request(
            game.game_id, view, f"h{view.hand_number}-moon-s{seat}", self.move_time_ms, 0
        )
        checks = ("moon", *game.checks)
        try:
            reply = self.calls.call("ChooseMoonScoring", request, where)
        except CallFailed as failure:
            if failure.unimplemented:
                self.tallies.add(
                    checks,
                    info="ChooseMoonScoring is not implemented (UNIMPLEMENTED): the referee "
                    "scores the moon add_to_others, the documented default",
                )
            else:
                self.tallies.add(checks, fail=f"ChooseMoonScoring: {failure.message} [{where}]")
            return MoonScoring.ADD_TO_OTHERS
        try:
            choice = protocol.moon_choice_from_pb(reply.choice)
        except protocol.MalformedAnswer as error:
            self.tallies.add(checks, fail=f"ChooseMoonScoring: {error} [{where}]")
            return MoonScoring.ADD_TO_OTHERS
        self.tallies.add(checks, example=f"chose {choice.value}")
        return choice
