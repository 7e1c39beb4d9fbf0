"""Strings from bots, logs and journals made safe to show on a terminal or a page.

A bot chooses its handshake fields, the details of the gRPC errors it
returns and what it writes to stderr; a game log, journal or standings file
may be old or written by hand. Shown raw, such a string could inject lines
(``\\n``, ``\\r``), rewrite the terminal (ANSI escapes start with ESC,
``\\x1b``) or reorder what follows it (bidi overrides such as U+202E), and so
spoof a replay or the standings. :func:`printable` is the one function that
every place showing such a string goes through: where a bot's strings enter
the referee (:mod:`referee.players.remote`), and again wherever strings read
from files are printed or rendered. :func:`shown_name` and :func:`shown_text`
are it at the two lengths every display uses (:data:`NAME_CHARS`,
:data:`TEXT_CHARS`).
"""

from __future__ import annotations

import unicodedata

__all__ = [
    "ELLIPSIS",
    "NAME_CHARS",
    "NOTE_CHARS",
    "TEXT_CHARS",
    "printable",
    "shown_name",
    "shown_note",
    "shown_text",
]

#: What ends a string cut at its limit.
ELLIPSIS = "…"
#: The most characters shown of a name (bot, game id, handshake field, fault kind).
NAME_CHARS = 64
#: The most characters shown of a message, a reason or a note.
TEXT_CHARS = 1000
#: The most characters kept of a bot's note on a decision (hearts.v1 ``note``).
NOTE_CHARS = 200

_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Unicode categories shown as escapes: controls (C0, DEL, C1), format characters
#: (bidi controls, zero-width and invisible characters), and lone surrogates
#: (which cannot even be written out as UTF-8).
_HIDDEN = frozenset(("Cc", "Cf", "Cs"))


def _escape(char: str) -> str:
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str, limit: int) -> str:
    """``text`` with every invisible or controlling character as a visible escape,
    cut to at most ``limit`` characters (``limit`` >= 1).

    Control characters (C0 with ``\\n``, ``\\r`` and ``\\t``, DEL, C1), format
    characters (Unicode category Cf: the bidi embeddings, overrides and
    isolates U+202A-U+202E and U+2066-U+2069, zero-width characters) and lone
    surrogates become escapes as Python writes them (``\\n``, ``\\x1b``,
    ``\\u202e``). Everything else, backslashes included, is kept, so the result
    is one line of what was sent and applying the function again changes
    nothing (U+2028 and U+2029 are kept too: terminals do not break lines on
    them, and a page shows them as spaces). A longer result is cut at an
    escape's edge and ends with ``…``.

    >>> printable("bot\\nN   1000 pts", 64)
    'bot\\\\nN   1000 pts'
    >>> print(printable("\\x1b[2Jclear\\r\\t\\x7f\\x85", 64))
    \\x1b[2Jclear\\r\\t\\x7f\\x85
    >>> print(printable("abc\\u202edcba\\u2066x\\u2069\\u200b", 64))
    abc\\u202edcba\\u2066x\\u2069\\u200b
    >>> printable("Zoë ♥ 名前 C:\\\\bots", 64) == "Zoë ♥ 名前 C:\\\\bots"
    True
    >>> printable("a" * 100, 10)
    'aaaaaaaaa…'
    >>> printable("abcdefgh\\x1b", 10)  # an escape is never cut in half
    'abcdefgh…'
    >>> printable(printable("x\\ny\\u202e" * 9, 20), 20) == printable("x\\ny\\u202e" * 9, 20)
    True
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    if len(text) <= limit and text.isascii() and text.isprintable():
        # Plain ASCII text (a bot's usual note or name) has nothing to escape: the
        # per-character check costs about as much as the rest of a bot's decision.
        return text
    pieces = []
    size = 0
    for char in text:
        piece = _escape(char) if unicodedata.category(char) in _HIDDEN else char
        pieces.append(piece)
        size += len(piece)
        if size > limit:
            break
    if size <= limit:
        return "".join(pieces)
    kept = []
    size = 0
    for piece in pieces:
        if size + len(piece) > limit - len(ELLIPSIS):
            break
        kept.append(piece)
        size += len(piece)
    return "".join(kept) + ELLIPSIS


def shown_name(text: object) -> str:
    """A name as shown anywhere: :func:`printable`, at most :data:`NAME_CHARS`."""
    return printable(str(text), NAME_CHARS)


def shown_text(text: object) -> str:
    """A message, reason or note as shown anywhere: :func:`printable`, at most :data:`TEXT_CHARS`."""
    return printable(str(text), TEXT_CHARS)


def shown_note(text: object) -> str:
    """A bot's note on a decision as recorded and shown: :func:`printable`, at most :data:`NOTE_CHARS`."""
    return printable(str(text), NOTE_CHARS)
