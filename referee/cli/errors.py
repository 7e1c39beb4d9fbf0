"""The one boundary where every error of a command becomes a short message, never a traceback.

The commands turn the errors they expect into click errors themselves, with
the file, key path, line or seat at fault. Whatever still escapes them is
turned into one here (:class:`RefereeGroup`): the library's own error types
(their messages already name the file and what was expected), file-system
errors (the path and the reason), text that is not UTF-8, and, as a last
resort, anything else as a short "internal error, please report it" with the
exception's type. ``REFEREE_DEBUG=1`` shows the traceback instead.

Every message is cut to a readable length: a message that quotes a 50 MB line
of a damaged file shows its beginning and end only.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

__all__ = ["MAX_MESSAGE_CHARS", "RefereeGroup", "as_click_error", "short"]

#: The most characters of one error message.
MAX_MESSAGE_CHARS = 2000


def short(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` cut in the middle to at most about ``limit`` characters."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]} ... ({len(text) - limit} characters left out) ... {text[-half:]}"


def _debug() -> bool:
    return os.environ.get("REFEREE_DEBUG", "") not in ("", "0")


def _library_errors() -> tuple[type[BaseException], ...]:
    """The referee's own error types: their messages name the file and what was expected."""
    from referee.engine import RulesError
    from referee.folder import TournamentError
    from referee.folder.seal import SealError
    from referee.match.gamelog import LogError
    from referee.players.manifest import ManifestError
    from referee.players.specs import BotSpecError
    from referee.sandbox.bwrap import SandboxUnavailable
    from referee.tournament.config import ConfigError

    return (
        ConfigError,
        ManifestError,
        BotSpecError,
        LogError,
        TournamentError,
        SealError,
        RulesError,
        SandboxUnavailable,
    )


def as_click_error(error: BaseException) -> click.ClickException:
    """The message for an error that escaped a command (see the module docs)."""
    if isinstance(error, _library_errors()):
        return click.ClickException(short(str(error)))
    if isinstance(error, OSError):
        where = error.filename if error.filename is not None else ""
        reason = error.strerror or str(error)
        also = f" -> {error.filename2}" if error.filename2 is not None else ""
        what = f"{where}{also}: " if where else ""
        return click.ClickException(short(f"{what}{reason}"))
    if isinstance(error, UnicodeError):
        return click.ClickException(short(f"not UTF-8 text: {error}"))
    if isinstance(error, RecursionError):
        return click.ClickException("the input is nested too deeply to be read")
    if isinstance(error, MemoryError):
        return click.ClickException("out of memory: the input is too large")
    detail = short(str(error), 300)
    return click.ClickException(
        f"internal error ({type(error).__name__}: {detail}); please report it, with the "
        "command; REFEREE_DEBUG=1 shows the traceback"
    )


class RefereeGroup(click.Group):
    """A command group whose commands never end in a traceback (see the module docs)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException as error:
            error.message = short(error.message)
            raise
        except (click.exceptions.Exit, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except BrokenPipeError:
            # The reader went away (`referee replay LOG | head`): what it wanted it has, so
            # stop quietly, as cat and git do. Python would complain again on exit when it
            # flushes stdout: point stdout at /dev/null first.
            _quiet_stdout()
            raise click.exceptions.Exit(0) from None
        except Exception as error:
            if _debug():
                raise
            raise as_click_error(error) from None


def _quiet_stdout() -> None:
    """Send what is left of stdout to /dev/null (the pipe's reader has gone)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing will complain
