"""A cheating bot for Fair play II: it remembers the deals of a duplicate set.

In a duplicate set every game deals the same cards to the same seats, and the
bots move round the table. ``EndHand`` and the tricks show every card each
seat held, so a bot that remembers one game of a set knows the hands of the
next. This bot does exactly that:

- **It records** every hand it learns: at ``EndHand`` it stores its own dealt
  hand, what it passed and received, and every seat's cards after the pass
  (from the tricks), under the hand number.
- **It remembers** in its process, and also tries to persist the memory
  where a fresh process could find it: ``$HOME``, ``$TMPDIR``, ``/tmp``,
  ``/var/tmp``, ``/dev/shm``, its own folder and the folder above, and the
  folder of its socket and the one above. It reports on stderr which of
  these it could write and which it read records from.
- **It recognizes a deal** when its dealt hand shares at least 10 of its 13
  cards with a seat's hand in a stored record of the same hand number (a pass
  moves only 3 cards; two random hands share about 3). The seat offset then
  maps the record's seats onto this game's, and every stored record of that
  deal is combined into the dealt hand of each seat (exact for seats it sat
  at before, and on hold and across hands).
- **With a recognized deal it plays with (nearly) perfect information**: it
  predicts the other seats' passes with the heuristic's pass rule, tracks
  every seat's cards through the hand, and at each decision plays each legal
  card out to the end of the hand (every seat then playing like the built-in
  heuristic) and keeps the card that costs it the fewest points in the hand.
  It chooses its pass the same way, playing out the whole hand after each
  pass of 3 of the 9 cards the heuristic finds most dangerous.
- **Otherwise it is the honest heuristic**: it calls the Python sample bot's
  strategy (``heuristic_bot.py`` next to this file, else the repository's
  ``sample_bots/python/heuristic/bot.py``, which a sandboxed bot cannot see:
  copy it next to this file), so with no memory its every move
  is the sample bot's, and a tournament in which it remembers nothing gives
  the sample bot's results game by game.

Per game it writes ``memory-bot: game G seat S: recognized R of H hands`` to
stderr. Run:  python bot.py --address unix:/path/bot.sock
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import pathlib
import sys
import tempfile
import threading
import traceback
from typing import Any

from referee.botkit import Bot, pb, serve
from referee.protocol import card_from_pb, card_to_pb

HERE = pathlib.Path(__file__).resolve().parent

# Cards are ints 0..51, suit * 13 + rank - 2, suits clubs, diamonds, hearts, spades.
SUIT = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
HEARTS = SUIT[2]
QS = 3 * 13 + 10
KS, AS = QS + 1, QS + 2
QS_BIT = 1 << QS
JD_BIT = 1 << (13 + 9)
TWO_CLUBS = 0
#: A dealt hand shares at least this many cards with the same seat's cards after any pass.
MATCH = 10
FILE_NAME = ".hearts-memory.json"
#: Passes tried: every 3 of the heuristic's this many most dangerous cards (C(9, 3) = 84).
PASS_POOL = 9


def bits(mask: int) -> list[int]:
    """The cards of a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Any) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def pb_mask(cards: Any) -> int:
    return mask_of(card_from_pb(c) for c in cards)


# The honest strategy ---------------------------------------------------------------------------


def load_heuristic() -> type[Bot]:
    """The Python sample heuristic's bot class, loaded by path."""
    repository = HERE.parents[2] if len(HERE.parents) > 2 else HERE
    for path in (HERE / "heuristic_bot.py", repository / "sample_bots/python/heuristic/bot.py"):
        if path.is_file():
            spec = importlib.util.spec_from_file_location("memory_bot_heuristic", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module.HeuristicBot
    raise SystemExit("memory-bot: cannot find the heuristic sample bot (heuristic_bot.py)")


# A model of the others: the built-in heuristic on masks ----------------------------------------


def model_pass(hand: int, count: int) -> int:
    """The cards the built-in heuristic passes from ``hand``."""
    spades = hand & SUIT[3]
    covered = bool(hand & QS_BIT) and (spades & ~QS_BIT).bit_count() >= 4

    def danger(card: int) -> tuple[int, int]:
        if card == QS:
            return (0 if covered else 3, 0)
        if card in (AS, KS) and not covered:
            return (2, card % 13)
        if 1 << card & HEARTS:
            return (1, card % 13 + 2)
        return (1, card % 13)

    return mask_of(sorted(bits(hand), key=danger, reverse=True)[:count])


def model_play(hand: int, legal: int, plays: list[tuple[int, int]], played: int, n: int) -> int:
    """The card the built-in heuristic plays (``played``: cards gone this hand, incl. the trick)."""
    cards = bits(legal)
    if len(cards) == 1:
        return cards[0]
    queen_out = not (played | hand) & QS_BIT
    if not plays:
        return min(
            cards, key=lambda c: (1 if c == QS or (queen_out and c in (AS, KS)) else 0, c % 13)
        )
    lead = plays[0][1] // 13
    if cards[0] // 13 == lead:
        winning = max(c for _, c in plays if c // 13 == lead)
        under = [c for c in cards if c < winning]
        if under:
            return under[-1]
        safe = [c for c in cards if c != QS] or cards
        trick = mask_of(c for _, c in plays)
        if len(plays) == n - 1 and not trick & (HEARTS | QS_BIT):
            return safe[-1]
        return safe[0]
    if legal & QS_BIT:
        return QS
    if queen_out:
        for big in (AS, KS):
            if legal >> big & 1:
                return big
    hearts = legal & HEARTS
    if hearts:
        return hearts.bit_length() - 1
    return max(cards, key=lambda c: c % 13)


# A perfect-information simulator of the rest of a hand -----------------------------------------


class Sim:
    """One hand from some point on, every hand known (standard play rules and the game's variants)."""

    __slots__ = ("broken", "hands", "leader", "n", "played", "plays", "rules", "taken", "trick_no")

    def __init__(
        self,
        rules: dict[str, Any],
        hands: list[int],
        *,
        leader: int,
        plays: list[tuple[int, int]],
        played: int,
        broken: bool,
        trick_no: int,
        taken: list[int],
    ) -> None:
        self.rules, self.n, self.hands = rules, len(hands), hands
        self.leader, self.plays, self.played = leader, plays, played
        self.broken, self.trick_no, self.taken = broken, trick_no, taken

    def copy(self) -> Sim:
        return Sim(
            self.rules,
            self.hands.copy(),
            leader=self.leader,
            plays=self.plays.copy(),
            played=self.played,
            broken=self.broken,
            trick_no=self.trick_no,
            taken=self.taken.copy(),
        )

    def to_play(self) -> int:
        return (self.leader + len(self.plays)) % self.n

    def legal(self, seat: int) -> int:
        hand = self.hands[seat]
        if self.plays:
            follow = hand & SUIT[self.plays[0][1] // 13]
            if follow:
                return follow
            if self.trick_no == 0 and not self.rules["points_on_first_trick"]:
                return hand & ~(HEARTS | QS_BIT) or hand
            return hand
        if self.trick_no == 0:
            first = self.rules["first_lead"]
            if hand >> first & 1:
                return 1 << first
        if self.broken:
            return hand
        return hand & ~HEARTS or hand

    def play(self, card: int) -> None:
        seat = self.to_play()
        self.hands[seat] &= ~(1 << card)
        self.plays.append((seat, card))
        self.played |= 1 << card
        if 1 << card & HEARTS or (card == QS and self.rules["queen_breaks_hearts"]):
            self.broken = True
        if len(self.plays) == self.n:
            lead = self.plays[0][1] // 13
            winner = max((c, s) for s, c in self.plays if c // 13 == lead)[1]
            for _, c in self.plays:
                self.taken[winner] |= 1 << c
            self.plays, self.leader, self.trick_no = [], winner, self.trick_no + 1

    def done(self) -> bool:
        return not any(self.hands) and not self.plays

    def run_model(self) -> None:
        while not self.done():
            seat = self.to_play()
            self.play(
                model_play(self.hands[seat], self.legal(seat), self.plays, self.played, self.n)
            )

    def points(self, seat: int) -> int:
        """``seat``'s points for the hand (moons added to the others)."""

        def raw(s: int) -> int:
            m = self.taken[s]
            p = (m & HEARTS).bit_count() + (13 if m & QS_BIT else 0)
            return p - (10 if self.rules["omnibus"] and m & JD_BIT else 0)

        moon = HEARTS | QS_BIT
        for s in range(self.n):
            if self.taken[s] & moon == moon:
                return 0 if s == seat else 26
        return raw(seat)


# The memory ------------------------------------------------------------------------------------


class Memory:
    """Records of hands seen, in process and persisted wherever it can be."""

    def __init__(self, extra_folders: list[pathlib.Path]) -> None:
        self.lock = threading.Lock()
        self.records: list[dict[str, Any]] = []
        self.keys: set[str] = set()
        folders = [
            os.environ.get("HOME"),
            os.environ.get("TMPDIR"),
            "/tmp",
            "/var/tmp",
            "/dev/shm",
            HERE,
            HERE.parent,
            *extra_folders,
        ]
        self.paths = list(dict.fromkeys(pathlib.Path(f) / FILE_NAME for f in folders if f))
        self.writable: dict[pathlib.Path, bool] = {}
        self.loaded_from: set[pathlib.Path] = set()
        self.reload()

    def add(self, record: dict[str, Any]) -> None:
        with self.lock:
            self._add(record)
            data = json.dumps(self.records)
        self._persist(data)

    def _add(self, record: dict[str, Any]) -> bool:
        key = json.dumps(record, sort_keys=True)
        if key in self.keys:
            return False
        self.keys.add(key)
        self.records.append(record)
        return True

    def _persist(self, data: str) -> None:
        for path in self.paths:
            try:
                fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".mem-")
                with os.fdopen(fd, "w") as f:
                    f.write(data)
                os.replace(tmp, path)
                ok = True
            except OSError:
                ok = False
            if self.writable.get(path) != ok:
                self.writable[path] = ok
                print(
                    f"memory-bot: persist to {path}: {'ok' if ok else 'refused'}",
                    file=sys.stderr,
                    flush=True,
                )

    def reload(self) -> None:
        """Read back what an earlier process of this bot may have left."""
        for path in self.paths:
            try:
                records = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            with self.lock:
                new = sum(self._add(r) for r in records if isinstance(r, dict))
            if new and path not in self.loaded_from:
                self.loaded_from.add(path)
                print(f"memory-bot: read {new} records from {path}", file=sys.stderr, flush=True)

    def deal(self, n: int, hand_number: int, seat: int, dealt: int) -> list[dict[str, Any]]:
        """This hand's dealt cards by seat, if the deal was seen: [{"mask", "exact"}] or []."""
        found = self._find(n, hand_number, seat, dealt)
        if not found:
            self.reload()
            found = self._find(n, hand_number, seat, dealt)
        if not found:
            return []
        guesses: list[list[tuple[int, bool]]] = [[] for _ in range(n)]
        for record, offset in found:
            for x, (mask, exact) in enumerate(estimated_dealt(record)):
                guesses[(x + offset) % n].append((mask, exact))
        return combine(guesses, seat, dealt)

    def _find(
        self, n: int, hand_number: int, seat: int, dealt: int
    ) -> list[tuple[dict[str, Any], int]]:
        with self.lock:
            records = [r for r in self.records if r["n"] == n and r["hand"] == hand_number]
        found = []
        for record in records:
            for x, (mask, _) in enumerate(estimated_dealt(record)):
                if (mask & dealt).bit_count() >= MATCH:
                    found.append((record, (seat - x) % n))
                    break
        return found


def estimated_dealt(record: dict[str, Any]) -> list[tuple[int, bool]]:
    """Each seat's dealt cards as far as a record tells, and whether that is exact."""
    n, me, offset = record["n"], record["seat"], record["offset"]
    to, source = (me + offset) % n, (me - offset) % n
    out = []
    for x in range(n):
        if x == me:
            out.append((record["dealt"], True))
            continue
        mask = record["post"][x]
        if offset == 0:
            out.append((mask, True))
            continue
        if x == to:
            mask &= ~record["passed"]
        if x == source:
            mask |= record["received"]
        out.append((mask, x == to and x == source))
    return out


def combine(guesses: list[list[tuple[int, bool]]], seat: int, dealt: int) -> list[dict[str, Any]]:
    """One dealt hand per seat from several guesses: exact ones first, then the rest, 13 each."""
    n = len(guesses)
    size = dealt.bit_count()
    owner: dict[int, int] = {c: seat for c in bits(dealt)}
    exact = [s == seat for s in range(n)]
    for s in range(n):
        for mask, ok in guesses[s]:
            if ok and s != seat:
                exact[s] = True
                for c in bits(mask):
                    owner.setdefault(c, s)
    for s in range(n):
        for mask, ok in guesses[s]:
            if not ok and not exact[s]:
                for c in bits(mask):
                    owner.setdefault(c, s)
    hands = [0] * n
    for c, s in owner.items():
        hands[s] |= 1 << c
    deck = 0
    for g in guesses:
        for mask, _ in g:
            deck |= mask
    deck |= dealt
    return [
        {"mask": m, "exact": e}
        for m, e in zip(balance(hands, [size] * n, deck, exact), exact, strict=True)
    ]


def balance(
    hands: list[int],
    sizes: list[int],
    cards: int,
    fixed: list[bool],
    voids: list[int] | None = None,
) -> list[int]:
    """Make hand s hold exactly sizes[s] of ``cards`` (each once), moving guessed cards as needed.

    Fixed hands are not changed; ``voids[s]`` is a mask of suits hand s cannot hold.
    """
    n = len(hands)
    voids = voids or [0] * n
    hands = [h & cards for h in hands]
    seen = 0
    for s in sorted(range(n), key=lambda s: not fixed[s]):  # the fixed hands first
        if not fixed[s]:
            hands[s] &= ~voids[s] & ~seen
        seen |= hands[s]
    spare = cards & ~seen
    for s in range(n):
        if fixed[s]:
            continue
        while hands[s].bit_count() > sizes[s]:
            high = 1 << (hands[s].bit_length() - 1)
            hands[s] ^= high
            spare |= high
    for s in range(n):
        if fixed[s]:
            continue
        for c in bits(spare):
            if hands[s].bit_count() >= sizes[s]:
                break
            if not voids[s] >> c & 1:
                hands[s] |= 1 << c
                spare &= ~(1 << c)
    for s in range(n):  # voids could not all be respected: fill anyway
        if fixed[s]:
            continue
        for c in bits(spare):
            if hands[s].bit_count() >= sizes[s]:
                break
            hands[s] |= 1 << c
            spare &= ~(1 << c)
    return hands


def _ranking_request(request: pb.PassCardsRequest) -> pb.PassCardsRequest:
    """The same request asking for every card: the heuristic's danger ranking of the hand."""
    ranking = pb.PassCardsRequest()
    ranking.CopyFrom(request)
    ranking.count = len(request.hand)
    return ranking


# The bot ---------------------------------------------------------------------------------------


class MemoryBot(Bot):
    name = "memory-bot"
    version = "1.0.0"
    author = "Hearts referee tests (Fair play II)"

    def __init__(self, extra_folders: list[pathlib.Path]) -> None:
        self.honest = load_heuristic()()
        self.memory = Memory(extra_folders)
        self.games: dict[tuple[str, int], dict[str, Any]] = {}
        self.lock = threading.Lock()

    def _game(self, game_id: str, seat: int) -> dict[str, Any]:
        with self.lock:
            return self.games.setdefault(
                (game_id, seat), {"recognized": 0, "hands": 0, "errors": 0, "hand": None}
            )

    def start_game(self, request: pb.StartGameRequest) -> None:
        r = request.rules
        removed = pb_mask(r.removed_cards)
        clubs = [c for c in range(13) if not removed >> c & 1]
        game = self._game(request.game_id, request.seat)
        game["n"] = r.num_players
        game["rules"] = {
            "queen_breaks_hearts": r.queen_breaks_hearts,
            "points_on_first_trick": r.points_on_first_trick,
            "omnibus": r.omnibus,
            "first_lead": clubs[0] if clubs else TWO_CLUBS,
        }

    def deal_hand(self, request: pb.DealHandRequest) -> None:
        game = self._game(request.game_id, request.seat)
        n = game.get("n") or len(request.scores)
        dealt = pb_mask(request.hand)
        offset = (request.pass_to - request.seat) % n
        known = self.memory.deal(n, request.hand_number, request.seat, dealt)
        game["hands"] += 1
        game["recognized"] += bool(known)
        game["hand"] = {
            "number": request.hand_number,
            "dealt": dealt,
            "offset": offset,
            "known": known,
            "passed": 0,
            "received": 0,
        }

    def _hand(self, game_id: str, seat: int, number: int) -> dict[str, Any] | None:
        hand = self._game(game_id, seat).get("hand")
        return hand if hand and hand["number"] == number else None

    # Passing

    def pass_cards(self, request: pb.PassCardsRequest) -> list[pb.Card]:
        try:
            return self._cheat_pass(request)
        except Exception:  # a bug here must show, but not cost the game
            self._failed(request)
            return list(self.honest.pass_cards(request))

    def play_card(self, request: pb.PlayCardRequest) -> pb.Card:
        try:
            return self._cheat_play(request)
        except Exception:
            self._failed(request)
            return self.honest.play_card(request)

    def _failed(self, request: Any) -> None:
        self._game(request.game_id, request.seat)["errors"] += 1
        traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()

    def _cheat_pass(self, request: pb.PassCardsRequest) -> list[pb.Card]:
        game = self._game(request.game_id, request.seat)
        hand = self._hand(request.game_id, request.seat, request.hand_number)
        if not hand or not hand["known"] or "rules" not in game:
            return list(self.honest.pass_cards(request))
        n, seat, count = game["n"], request.seat, request.count
        mine = pb_mask(request.hand)
        honest = pb_mask(self.honest.pass_cards(request))
        dealt = [k["mask"] for k in hand["known"]]
        dealt[seat] = mine
        to = request.pass_to
        passes = [model_pass(dealt[s], count) for s in range(n)]
        best, best_points = honest, None
        # Every pass of the heuristic's most dangerous cards (see heuristic_bot.py).
        ranked = [card_from_pb(c) for c in self.honest.pass_cards(_ranking_request(request))]
        candidates = [
            honest,
            *(mask_of(c) for c in itertools.combinations(ranked[:PASS_POOL], count)),
        ]
        for cand in candidates:
            passes[seat] = cand
            hands = [dealt[s] & ~passes[s] for s in range(n)]
            for s in range(n):
                hands[(s + to - seat) % n] |= passes[s]
            leader = next(s for s in range(n) if hands[s] >> game["rules"]["first_lead"] & 1)
            sim = Sim(
                game["rules"],
                hands,
                leader=leader,
                plays=[],
                played=0,
                broken=False,
                trick_no=0,
                taken=[0] * n,
            )
            sim.run_model()
            points = sim.points(seat)
            if best_points is None or points < best_points:
                best, best_points = cand, points
        return [card_to_pb(c) for c in bits(best)]

    # Playing

    def _cheat_play(self, request: pb.PlayCardRequest) -> pb.Card:
        game = self._game(request.game_id, request.seat)
        hand = self._hand(request.game_id, request.seat, request.hand_number)
        if hand is not None:
            hand["passed"] = pb_mask(request.passed)
            hand["received"] = pb_mask(request.received)
        if len(request.legal_moves) == 1 or not hand or not hand["known"] or "rules" not in game:
            return self.honest.play_card(request)
        sim = self._position(game, hand, request)
        seat = request.seat
        honest = card_from_pb(self.honest.play_card(request))
        best, best_points = honest, None
        for card in [honest, *sorted(card_from_pb(c) for c in request.legal_moves)]:
            trial = sim.copy()
            trial.play(card)
            trial.run_model()
            points = trial.points(seat)
            if best_points is None or points < best_points:
                best, best_points = card, points
        return card_to_pb(best)

    def _position(
        self, game: dict[str, Any], hand: dict[str, Any], request: pb.PlayCardRequest
    ) -> Sim:
        """The position now, every seat's cards guessed from the remembered deal."""
        n, seat = game["n"], request.seat
        count = len(request.passed) or 3
        dealt = [k["mask"] for k in hand["known"]]
        offset = hand["offset"]
        holding = dealt.copy()
        if offset:
            passes = [model_pass(dealt[s], count) for s in range(n)]
            passes[seat] = pb_mask(request.passed)
            passes[(seat - offset) % n] = pb_mask(request.received)
            holding = [dealt[s] & ~passes[s] for s in range(n)]
            for s in range(n):
                holding[(s + offset) % n] |= passes[s]
        played, taken = 0, [0] * n
        start = dealt[seat].bit_count()
        sizes = [start] * n
        voids = [0] * n
        for trick in request.tricks:
            lead = card_from_pb(trick.plays[0].card) // 13
            for p in trick.plays:
                c = card_from_pb(p.card)
                played |= 1 << c
                taken[trick.winner] |= 1 << c
                sizes[p.seat] -= 1
                if c // 13 != lead:
                    voids[p.seat] |= SUIT[lead]
        plays = []
        current = request.current_trick
        for p in current.plays:
            c = card_from_pb(p.card)
            plays.append((p.seat, c))
            played |= 1 << c
            sizes[p.seat] -= 1
            if c // 13 != card_from_pb(current.plays[0].card) // 13:
                voids[p.seat] |= SUIT[card_from_pb(current.plays[0].card) // 13]
        mine = pb_mask(request.hand)
        unseen = 0
        for s in range(n):
            unseen |= dealt[s]
        unseen &= ~played & ~mine
        holding[seat] = mine
        fixed = [s == seat for s in range(n)]
        sizes[seat] = mine.bit_count()
        hands = balance([h & ~played for h in holding], sizes, unseen | mine, fixed, voids)
        leader = current.leader if current.plays else seat
        return Sim(
            game["rules"],
            hands,
            leader=leader,
            plays=plays,
            played=played,
            broken=request.hearts_broken,
            trick_no=len(request.tricks),
            taken=taken,
        )

    # Learning

    def end_hand(self, request: pb.EndHandRequest) -> None:
        game = self._game(request.game_id, request.seat)
        hand = self._hand(request.game_id, request.seat, request.hand_number)
        if not hand or "n" not in game:
            return
        n = game["n"]
        post = [0] * n
        for trick in request.tricks:
            for p in trick.plays:
                post[p.seat] |= 1 << card_from_pb(p.card)
        self.memory.add(
            {
                "n": n,
                "hand": request.hand_number,
                "seat": request.seat,
                "offset": hand["offset"],
                "dealt": hand["dealt"],
                "passed": hand["passed"],
                "received": hand["received"],
                "post": post,
            }
        )

    def end_game(self, request: pb.EndGameRequest) -> None:
        with self.lock:
            game = self.games.pop((request.game_id, request.seat), None)
        if game:
            print(
                f"memory-bot: game {request.game_id} seat {request.seat}: recognized "
                f"{game['recognized']} of {game['hands']} hands, {game['errors']} errors",
                file=sys.stderr,
                flush=True,
            )


def socket_folders(argv: list[str]) -> list[pathlib.Path]:
    """The folder of a Unix socket given as --address, and the folder above it."""
    for i, arg in enumerate(argv):
        value = argv[i + 1] if arg == "--address" and i + 1 < len(argv) else None
        if arg.startswith("--address="):
            value = arg.split("=", 1)[1]
        if value and value.startswith("unix:"):
            folder = pathlib.Path("/" + value[len("unix:") :].lstrip("/")).parent
            return [folder, folder.parent]
    return []


if __name__ == "__main__":
    serve(MemoryBot(socket_folders(sys.argv[1:])))
