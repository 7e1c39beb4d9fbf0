"""The one OpenSkill model: how a table's placements become rating updates.

Standings, the web's rating charts and the ladder all rate games here, so a
bot has one rating whoever shows it. The model is OpenSkill's Plackett-Luce
with its defaults (mu 25, sigma 25/3); each seat is a team of one, and a
table's placements (1 = first, tied seats share a placement) are its ranks.
The ``ordinal``, mu - 3 sigma, is the conservative rating: the bot is better
than that with about 99.7% confidence.

Ratings depend on the order of the games; callers rate them in schedule order
(standings and the web: by schedule index, then journal position), so that a
rating does not depend on which game finished first.

>>> ratings = Ratings()
>>> [round(r.mu, 2) for r in ratings.rate(["a", "b", "c", "d"], [1, 2, 3, 4])]
[27.8, 26.55, 24.69, 20.96]
>>> ratings["a"].ordinal == ratings["a"].mu - 3 * ratings["a"].sigma
True
>>> Rating(mu=30.0, sigma=2.0).ordinal
24.0
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from openskill.models import PlackettLuce

#: The model's defaults: a new bot's rating.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3
#: How many sigmas below mu the ordinal is.
ORDINAL_Z = 3.0


@dataclasses.dataclass(frozen=True)
class Rating:
    """A bot's rating: ``mu`` (the estimate) and ``sigma`` (its uncertainty)."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    @property
    def ordinal(self) -> float:
        """The conservative rating, mu - 3 sigma (what rankings by rating use)."""
        return self.mu - ORDINAL_Z * self.sigma

    def to_dict(self) -> dict[str, float]:
        return {"mu": self.mu, "sigma": self.sigma}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rating:
        return cls(mu=float(data["mu"]), sigma=float(data["sigma"]))


class Ratings(Mapping[str, Rating]):
    """Bots' ratings, updated one table at a time.

    A mapping from bot name to :class:`Rating`; a bot not yet rated has the
    default rating once it sits at a table (or is named in ``bots``).
    ``initial`` restores ratings saved earlier (``Rating.to_dict``), for a
    rating that carries over from run to run.
    """

    def __init__(
        self, bots: Iterable[str] = (), *, initial: Mapping[str, Rating] | None = None
    ) -> None:
        self._model = PlackettLuce()
        self._ratings: dict[str, Any] = {}
        for bot, rating in (initial or {}).items():
            self._ratings[bot] = self._model.rating(mu=rating.mu, sigma=rating.sigma, name=bot)
        for bot in bots:
            self._add(bot)

    def _add(self, bot: str) -> Any:
        rating = self._ratings.get(bot)
        if rating is None:
            rating = self._ratings[bot] = self._model.rating(name=bot)
        return rating

    def rate(self, bots: Sequence[str], placements: Sequence[int]) -> tuple[Rating, ...]:
        """Rate one game: ``bots`` by seat and their ``placements`` (1 = first).

        Returns the seats' new ratings, in seat order. (Schedules seat a bot
        once per table; a hand-made journal that seats one twice is still
        rated, seat by seat, the last seat's update kept, as before.)
        """
        if len(bots) != len(placements):
            raise ValueError(f"{len(bots)} bots but {len(placements)} placements")
        teams = [[self._add(bot)] for bot in bots]
        rated = self._model.rate(teams, ranks=list(placements))
        for bot, team in zip(bots, rated, strict=True):
            self._ratings[bot] = team[0]
        return tuple(Rating(mu=team[0].mu, sigma=team[0].sigma) for team in rated)

    def __getitem__(self, bot: str) -> Rating:
        rating = self._ratings[bot]
        return Rating(mu=rating.mu, sigma=rating.sigma)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ratings)

    def __len__(self) -> int:
        return len(self._ratings)


def rate_games(
    games: Iterable[tuple[Sequence[str], Sequence[int]]], *, bots: Iterable[str] = ()
) -> Ratings:
    """The ratings after ``games`` (``(bots by seat, placements)``), rated in the order given."""
    ratings = Ratings(bots)
    for seats, placements in games:
        ratings.rate(seats, placements)
    return ratings
