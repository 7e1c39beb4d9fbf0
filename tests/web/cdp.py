"""Headless Chromium driven over the DevTools protocol on a pipe: for pages that stay live.

The replay viewer's tests (tests/replay/browser.py) dump the DOM after a
budget of virtual time; a page that holds an event stream open never lets
virtual time run out, and a live test must act, wait and look again. So
these tests talk to Chromium the way its own tools do, over the DevTools
protocol, on the pipe that ``--remote-debugging-pipe`` opens (file
descriptors 3 and 4; messages are JSON ended by a NUL byte), with no driver
package. Skips without Chromium, like the replay tests.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import itertools
import json
import os
import pathlib
import subprocess
import tempfile
import threading
import time
from typing import Any

from tests.replay.browser import HEADLESS, chromium

_FLAGS = (
    *HEADLESS,
    "--remote-debugging-pipe",
    "--window-size=1280,900",
)


class BrowserError(AssertionError):
    """Chromium answered a command with an error, or a page threw."""


class Browser:
    """One headless Chromium; :meth:`open` gives a :class:`Page`."""

    def __init__(self) -> None:
        executable = chromium()  # skips the test without Chromium
        self._profile = tempfile.TemporaryDirectory(prefix="serve-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def fds() -> None:  # in the child: the pipe ends become fds 3 and 4
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self._process = subprocess.Popen(
            [executable, *_FLAGS, f"--user-data-dir={self._profile.name}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=fds,
            close_fds=False,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._replies: dict[int, dict[str, Any]] = {}
        self._arrived = threading.Condition()
        self.events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_chrome, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._arrived:
                    self._arrived.notify_all()
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                with self._arrived:
                    if "id" in message:
                        self._replies[message["id"]] = message
                    else:
                        self.events.append(message)
                    self._arrived.notify_all()

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: str | None = None,
        timeout: float = 60.0,
    ) -> dict[str, Any]:
        ident = next(self._ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        with self._lock:
            os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._arrived:
            while ident not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0 or self._process.poll() is not None:
                    raise BrowserError(f"{method}: no answer from Chromium")
                self._arrived.wait(min(left, 0.5))
            reply = self._replies.pop(ident)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def open(self, url: str) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        page = Page(self, session)
        page.send("Runtime.enable")
        page.send("Page.enable")
        page.goto(url)
        return page

    def close(self) -> None:
        with contextlib.suppress(BrowserError):
            self.send("Browser.close", timeout=5)
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._to_chrome, self._from_chrome):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Page:
    """One tab: evaluate script, wait for a condition, take a screenshot."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session)

    def goto(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete'")

    def evaluate(self, expression: str) -> Any:
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30.0) -> Any:
        """Evaluate ``expression`` until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for: {expression}")
            time.sleep(0.1)

    def errors(self) -> list[str]:
        """Uncaught exceptions and console errors of this page so far."""
        found = []
        for event in list(self.browser.events):
            if event.get("sessionId") != self.session:
                continue
            if event["method"] == "Runtime.exceptionThrown":
                found.append(json.dumps(event["params"]["exceptionDetails"])[:500])
            elif (
                event["method"] == "Runtime.consoleAPICalled" and event["params"]["type"] == "error"
            ):
                found.append(json.dumps(event["params"]["args"])[:500])
        return found

    def screenshot(self, path: pathlib.Path) -> pathlib.Path:
        """A PNG of the whole page (not only the window)."""
        height = self.evaluate("Math.ceil(document.documentElement.scrollHeight)")
        width = self.evaluate("Math.ceil(document.documentElement.scrollWidth)")
        data = self.send(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
            },
        )["data"]
        path.write_bytes(base64.b64decode(data))
        return path
