"""``referee check-bot``: a compliance checker for bot authors.

It starts (or connects to) one bot and drives it through scripted situations,
talking hearts.v1 directly so that each situation is exactly the one wanted.
The engine deals the hands, plays the other seats, builds every request
(:mod:`referee.protocol`) and judges every answer against the rules. The
result is a :class:`Report`: one :class:`CheckResult` per check, PASS, FAIL,
WARN, INFO or SKIP, with the reason, and the answer times of every RPC.

The situations are real hands played from the deal, the bot playing its seat
throughout (so a bot that keeps state sees a consistent game): crafted deals
force the rare situations (void in clubs on the first trick, only hearts and
Q♠, a moon), a four-hand game covers the pass directions, games of 3, 5, 6 and
7 players cover V6, eight games are played at once on the one bot process,
and a last game goes through the referee's own match runner. Every decision
is classified by its situation (first lead, void discard, ...) and each
situation is a check. See docs/check-bot.md.

Nothing here raises on a misbehaving bot: crashes, hangs, errors and bad
answers become FAILs with a message, and a launched bot is always stopped.

The modules, from the edge in:

- :mod:`~referee.checkbot.run`: :func:`check_bot`; builds and starts the bot
  through the tournament's own :class:`~referee.players.supply.BotPool`, runs the rest.
- :mod:`~referee.checkbot.checks`: the checks, each a function to a verdict.
- :mod:`~referee.checkbot.play`: plays the situations with the bot.
- :mod:`~referee.checkbot.situations`: the games, and how each decision is
  classified and judged.
- :mod:`~referee.checkbot.full_game`: a game through the match runner.
- :mod:`~referee.checkbot.calls`: every call to the bot, timed.
- :mod:`~referee.checkbot.report`: the report, as text and JSON.
"""

from referee.checkbot.report import CHECKS, CheckResult, Report, Status
from referee.checkbot.run import check_bot

__all__ = ["CHECKS", "CheckResult", "Report", "Status", "check_bot"]
