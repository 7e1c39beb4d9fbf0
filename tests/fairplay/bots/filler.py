"""A bot that fills the folder of its socket, then crashes (issue 23, hole 3).

    python filler.py --address {address} --mb 120

At the first PlayCard of each start it says on stderr which folder its socket
is in and whether anything of an earlier start is there, writes ``--mb`` MiB
into that folder (the one place on the host a sandboxed bot can write), says
how much it wrote, and exits with code 3 without answering. The referee
restarts it within its budget; with one folder per start, each start finds
an empty folder and the host never holds more than one start's worth.
"""

from __future__ import annotations

import argparse
import os
import sys

from referee.botkit import Bot, serve


def fill(folder: str, mb: int) -> str:
    block = b"\x5a" * (1 << 20)
    written = 0
    try:
        with open(os.path.join(folder, f"fill-{os.getpid()}.bin"), "wb") as f:
            for _ in range(mb):
                f.write(block)
                f.flush()
                written += 1
    except OSError as error:
        return f"wrote {written} MiB, then {error.strerror}"
    return f"wrote {written} MiB"


class FillerBot(Bot):
    name = "filler"

    def __init__(self, folder: str, mb: int) -> None:
        self.folder, self.mb = folder, mb

    def pass_cards(self, request):
        return sorted(request.hand, key=lambda c: (c.suit, c.rank))[: request.count]

    def play_card(self, request):
        found = sorted(n for n in os.listdir(self.folder) if n != "bot.sock")
        print(f"filler: start in {self.folder}; found {found}", file=sys.stderr, flush=True)
        print(f"filler: {fill(self.folder, self.mb)}", file=sys.stderr, flush=True)
        os._exit(3)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=120)
    args, rest = parser.parse_known_args()
    address = rest[rest.index("--address") + 1]
    serve(FillerBot(os.path.dirname(address.removeprefix("unix:")), args.mb), rest)


if __name__ == "__main__":
    main()
