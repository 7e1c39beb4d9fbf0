"""Audits: game logs and tournament folders checked against the engine, replays and their renderers."""
