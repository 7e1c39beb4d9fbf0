"""A bare HTTP/2 client that makes gRPC calls and counts the frames the server sends.

A gRPC library hides the frames a server sends besides the answers: PINGs of a
bandwidth probe, WINDOW_UPDATEs, SETTINGS. Each is work for the referee, which
must read it and, for a PING, answer it, on every decision. This client speaks
just enough HTTP/2 (RFC 9113) and HPACK (RFC 7541: literal headers, no Huffman,
no table) to make unary calls one after another and tally what comes back.
"""

from __future__ import annotations

import collections
import socket
import struct

#: Frame types (RFC 9113 section 6).
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE = 0, 1, 3, 4, 6, 7, 8
FRAME_NAMES = {
    DATA: "DATA",
    HEADERS: "HEADERS",
    RST_STREAM: "RST_STREAM",
    SETTINGS: "SETTINGS",
    PING: "PING",
    GOAWAY: "GOAWAY",
    WINDOW_UPDATE: "WINDOW_UPDATE",
}
_END_STREAM, _ACK, _END_HEADERS = 0x1, 0x1, 0x4
_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def _frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return (
        struct.pack(">I", len(payload))[1:]
        + bytes([kind, flags])
        + struct.pack(">I", stream)
        + payload
    )


def _literal(name: str, value: str) -> bytes:
    """One header as an HPACK literal without indexing, with a new name (section 6.2.2)."""
    out = b"\x00"
    for text in (name.encode(), value.encode()):
        assert len(text) < 127, text  # a one-byte length, no Huffman coding
        out += bytes([len(text)]) + text
    return out


class Http2Probe:
    """One HTTP/2 connection to a gRPC server on a Unix socket."""

    def __init__(self, socket_path: str, timeout_s: float = 10.0) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout_s)
        self._sock.connect(socket_path)
        self._buffer = b""
        self._next_stream = 1
        #: Frames received from the server by type name, over every call so far.
        self.received: collections.Counter[str] = collections.Counter()
        self._sock.sendall(_PREFACE + _frame(SETTINGS, 0, 0))

    def close(self) -> None:
        self._sock.close()

    def _read_frame(self) -> tuple[int, int, int, bytes]:
        while len(self._buffer) < 9 or len(self._buffer) < 9 + int.from_bytes(
            self._buffer[:3], "big"
        ):
            chunk = self._sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self._buffer += chunk
        length = int.from_bytes(self._buffer[:3], "big")
        kind, flags = self._buffer[3], self._buffer[4]
        stream = struct.unpack(">I", self._buffer[5:9])[0] & 0x7FFFFFFF
        payload, self._buffer = self._buffer[9 : 9 + length], self._buffer[9 + length :]
        return kind, flags, stream, payload

    def call(self, path: str, message: bytes) -> bytes:
        """One unary call of ``path`` with a serialized ``message``; the answer's bytes."""
        stream, self._next_stream = self._next_stream, self._next_stream + 2
        headers = b"".join(
            _literal(name, value)
            for name, value in (
                (":method", "POST"),
                (":scheme", "http"),
                (":path", path),
                (":authority", "localhost"),
                ("content-type", "application/grpc"),
                ("te", "trailers"),
            )
        )
        body = b"\x00" + struct.pack(">I", len(message)) + message  # gRPC's length prefix
        self._sock.sendall(
            _frame(HEADERS, _END_HEADERS, stream, headers) + _frame(DATA, _END_STREAM, stream, body)
        )
        answer = b""
        while True:
            kind, flags, on, payload = self._read_frame()
            self.received[FRAME_NAMES.get(kind, f"type {kind}")] += 1
            if kind == SETTINGS and not flags & _ACK:
                self._sock.sendall(_frame(SETTINGS, _ACK, 0))
            elif kind == PING and not flags & _ACK:
                self._sock.sendall(_frame(PING, _ACK, 0, payload))  # as a client must
            elif kind in (GOAWAY, RST_STREAM):
                raise ConnectionError(f"the server sent {FRAME_NAMES[kind]}: {payload.hex()}")
            elif on == stream and kind == DATA:
                answer += payload
            if on == stream and kind in (DATA, HEADERS) and flags & _END_STREAM:
                return answer[5:]  # after gRPC's length prefix
