"""The determinized search core: one copy, shared by the strong bot and the game analysis.

- :mod:`referee.search.sim`: a compact simulator of one hand (cards as ints,
  hands as bit masks) and the heuristic playout policy.
- :mod:`referee.search.pimc`: what a seat knows (:class:`~referee.search.pimc.Knowledge`),
  the world sampler, and the strong bot's searched decisions (plays, passes,
  the moon question, the clock).
- :mod:`referee.search.deals`: counting, enumerating and sampling uniformly the
  deals consistent with what a seat knows (the analysis's worlds).

Standard library only: sample_bots/python/strong imports it from the referee
package that its sandbox shows read-only, so the bot and ``referee analyze``
search alike (docs/strategy.md, docs/analysis.md).
"""
