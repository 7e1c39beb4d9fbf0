"""The game analyzer: where a bot lost points (``referee analyze``; docs/analysis.md).

For every decision of a seat (passes, plays, the moon choice) the expected
points of each legal choice for the hand, from that seat's information only,
by the determinized search the strong bot plays with (:mod:`referee.search`),
seeded so that the analysis is reproducible; the expected loss of the choice
made, with the search's standard error; and a class (inaccuracy, mistake,
blunder) only when the loss is larger than the search's noise. What it
writes, and what the replays read, is :mod:`referee.analysis`.

One module per part:

- :mod:`~referee.analyzer.evaluate`: one decision's values (the search).
- :mod:`~referee.analyzer.game`: one game, replayed through the engine.
- :mod:`~referee.analyzer.run`: logs in worker processes that die with the referee.
- :mod:`~referee.analyzer.exact`: the exact values of end positions, for validation.
"""
