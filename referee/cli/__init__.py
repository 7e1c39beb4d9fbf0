"""The ``referee`` command line: one module per subcommand."""

from __future__ import annotations

# Before anything imports grpcio: the referee's calls run on the client it chooses.
import referee

referee.choose_grpc_client()

import logging  # noqa: E402
import sys  # noqa: E402

import click  # noqa: E402

from referee import __version__  # noqa: E402
from referee.cli.errors import RefereeGroup  # noqa: E402


@click.group(
    cls=RefereeGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="referee")
@click.option("-v", "--verbose", count=True, help="More log output on stderr (-v info, -vv debug).")
def cli(verbose: int) -> None:
    """A referee for Hearts bot tournaments.

    Plays games between bots that speak the hearts.v1 gRPC protocol, runs
    tournaments, prints standings, and replays and verifies game logs.
    """
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )


def _register() -> None:
    from referee.cli import match
    from referee.cli.analyze import analyze
    from referee.cli.check_bot import check_bot
    from referee.cli.gauntlet import gauntlet
    from referee.cli.ladder import ladder
    from referee.cli.new_bot import new_bot_command
    from referee.cli.play import play
    from referee.cli.proto import proto
    from referee.cli.replay import replay
    from referee.cli.serve import serve
    from referee.cli.standings import standings
    from referee.cli.submit import submit
    from referee.cli.tournament import tournament
    from referee.cli.verify import verify

    cli.add_command(match.match)
    cli.add_command(play)
    cli.add_command(check_bot)
    cli.add_command(tournament)
    cli.add_command(gauntlet)
    cli.add_command(standings)
    cli.add_command(replay)
    cli.add_command(verify)
    cli.add_command(analyze)
    cli.add_command(serve)
    cli.add_command(new_bot_command)
    cli.add_command(proto)
    cli.add_command(submit)
    cli.add_command(ladder)


_register()


def main() -> None:
    """Entry point of the ``referee`` console script."""
    cli()


if __name__ == "__main__":
    main()
