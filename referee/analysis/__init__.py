"""Game analysis, as recorded: what an analysis is and what its readers need (docs/analysis.md).

``referee analyze`` (:mod:`referee.analyzer`, which makes an analysis) writes
an analysis file beside a game's log; the replays (:mod:`referee.audit`'s
renderers), the web pages and the command's summary read it through this
package, which imports only the engine, :mod:`referee.durable` and
:mod:`referee.safetext`. So the renderers can show an analysis without
depending on the search that made it, and the analyzer, which reads logs
through :mod:`referee.audit.replay`, sits above the audit package without a
cycle between them.

One module per part:

- :mod:`~referee.analysis.grading`: the classes (inaccuracy, mistake,
  blunder), thresholds and phases.
- :mod:`~referee.analysis.record`: the analysis file beside the log, and
  :func:`~referee.analysis.record.analysis_for_log`, which ignores a file that
  no longer matches its log.
- :mod:`~referee.analysis.summary`: points lost per hand by phase, worst
  decisions, per bot.
- :mod:`~referee.analysis.marks`: the analysed decisions a replay marks.
"""
