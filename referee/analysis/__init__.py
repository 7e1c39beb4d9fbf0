"""Game analysis: where a bot lost points (``referee analyze``; docs/analysis.md).

For every decision of a seat (passes, plays, the moon choice) the expected
points of each legal choice for the hand, from that seat's information only,
by the determinized search the strong bot plays with (:mod:`referee.search`),
seeded so that the analysis is reproducible; the expected loss of the choice
made, with the search's standard error; and a class (inaccuracy, mistake,
blunder) only when the loss is larger than the search's noise.

One module per part:

- :mod:`~referee.analysis.grading`: the classes, thresholds and phases.
- :mod:`~referee.analysis.evaluate`: one decision's values (the search).
- :mod:`~referee.analysis.game`: one game, replayed through the engine.
- :mod:`~referee.analysis.record`: the analysis file beside the log.
- :mod:`~referee.analysis.summary`: points lost per hand by phase, worst decisions, per bot.
- :mod:`~referee.analysis.exact`: the exact values of end positions, for validation.
"""
