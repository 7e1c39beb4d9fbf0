"""The errors of a tournament folder: one that cannot be used, and a journal line that is wrong."""

from __future__ import annotations

__all__ = ["JournalError", "TournamentError"]


class TournamentError(Exception):
    """A tournament that cannot run or be read; the message says why and what to do."""


class JournalError(TournamentError):
    """A journal line that cannot be read (not a torn last line)."""
