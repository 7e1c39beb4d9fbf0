"""Inside a build's sandbox: its proxy port on loopback, bridged to the referee's proxy socket.

Run by path (standard library only) as the first program of a sandboxed
build, which has a network namespace of its own with only a loopback::

    python -I buildnet_bridge.py --port 3128 --socket /run/hearts-build-net/proxy.sock \
        -- /bin/sh -c "the build command"

It listens on ``127.0.0.1:PORT``, copies every connection to and from the
Unix socket (bind-mounted from the referee, where :class:`referee.sandbox.buildnet.BuildProxy`
decides what may pass), runs the command, and exits with its exit status.
It holds no secret and makes no decision: a build that kills or replaces it
only loses its own way out.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import socket
import subprocess
import sys
import threading


def _copy(source: socket.socket, sink: socket.socket) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def _bridge(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=_copy, args=(upstream, client), daemon=True)
    back.start()
    _copy(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_bridge, args=(client, path), daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--socket", required=True, help="the proxy's Unix socket")
    parser.add_argument("command", nargs="+", help="the build command, after --")
    args = parser.parse_args(argv)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(128)
    threading.Thread(target=_serve, args=(listener, args.socket), daemon=True).start()
    try:
        proc = subprocess.Popen(args.command)
    except OSError as error:
        print(f"cannot run the build: {error}", file=sys.stderr)
        return 127
    # The supervisor stops a build with SIGTERM or SIGKILL to the whole sandbox; pass a
    # SIGTERM on so the build's own tools can clean up.
    signal.signal(signal.SIGTERM, lambda *_: proc.terminate())
    code = proc.wait()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
