"""A Hearts bot whose every string is an attack on whoever shows it.

Its handshake's name, version, author and language hold line breaks, a
carriage return, ANSI escapes (clear the screen, set the window title), bidi
overrides and isolates, DEL and a C1 control, and HTML that would close a
``<script>`` element. It plays the first legal card, except that it answers
the first PlayCard of each process with a gRPC error (UNKNOWN) whose details
hold the same strings. Built on referee.botkit.

Run:  python evil_strings.py --port 50051   (or --address unix:/path/bot.sock)
"""

from __future__ import annotations

import threading

from referee.botkit import Bot, pb, serve

#: A fake line after a line break, then terminal escapes (clear the screen, set the
#: window title, colour), bidi overrides and isolates, DEL, a C1 control, NUL, a tab.
ATTACKS = (
    "\n  1  evil  0.000 pts/hand  (fake line)\r"
    "\x1b[2J\x1b]0;title\x07\x1b[31mred"
    "\u202eevil\u202c\u2066isolated\u2069\u202a\u202b\u202d\u2067\u2068"
    "\x7f\x9b\x00\t"
)
#: What would end the replay page's data and run a script.
SCRIPT = "</script><script>alert(1)</script>"


class EvilStringsBot(Bot):
    name = "evil" + ATTACKS + SCRIPT
    version = SCRIPT + ATTACKS  # the page shows the version: the script first
    author = "mallory" + ATTACKS + SCRIPT
    language = "Py\nthon\r\x1b[2J\u202e" + SCRIPT

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failed = False

    def pass_cards(self, request: pb.PassCardsRequest) -> list[pb.Card]:
        return list(request.hand)[: request.count]

    def play_card(self, request: pb.PlayCardRequest) -> pb.Card:
        with self._lock:
            fail, self._failed = not self._failed, True
        if fail:
            # botkit answers an exception with UNKNOWN, the message in the details.
            raise RuntimeError("details" + ATTACKS + SCRIPT)
        return request.legal_moves[0]


if __name__ == "__main__":
    serve(EvilStringsBot())
