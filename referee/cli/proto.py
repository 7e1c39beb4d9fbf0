"""``referee proto DIR``: the bot protocol, for a bot kept outside this repository."""

from __future__ import annotations

import pathlib

import click

from referee.cli.scaffold import ScaffoldError, write_proto


@click.command("proto")
@click.argument("dest", metavar="DIR", type=click.Path(path_type=pathlib.Path))
def proto(dest: pathlib.Path) -> None:
    """Write the bot protocol to DIR/hearts/v1/hearts.proto.

    The path under DIR is the one the protocol's package expects: generate
    code with DIR as the include path (protoc -I DIR hearts/v1/hearts.proto).
    An identical file already there is left alone; a different one is refused.
    """
    try:
        path = write_proto(dest)
    except ScaffoldError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"wrote {path}")
