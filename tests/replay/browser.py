"""Headless Chromium for the HTML replay tests: dump the DOM or take a screenshot.

No Python browser driver: Chromium's ``--dump-dom`` prints the page's DOM
after ``--virtual-time-budget`` ms of (virtual) time, which runs the page's
scripts and timers deterministically; the page takes its position and
actions from the URL fragment. :class:`Node` is a small DOM tree parsed from
that output, with the few queries the tests need.
"""

from __future__ import annotations

import dataclasses
import html.parser
import pathlib
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator

import pytest

#: Debian's package (``apt-get install chromium``), or a Chromium on PATH.
_NAMES = ("chromium", "chromium-browser", "google-chrome")
#: Chromium headless and quiet: no sandbox of its own, no background networking, no GPU.
HEADLESS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
_FLAGS = (
    *HEADLESS,
    # Console messages go to stderr, so that a script error fails the test.
    "--enable-logging=stderr",
    "--v=0",
)


def chromium() -> str:
    """The Chromium executable, or skip the test with what to install."""
    for name in _NAMES:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("headless Chromium not found: install it (Debian: apt-get install chromium)")


def _run(args: list[str], timeout: float = 90) -> str:
    with tempfile.TemporaryDirectory(prefix="replay-chromium-") as profile:
        command = [chromium(), *_FLAGS, f"--user-data-dir={profile}", *args]
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, check=False
        )
    if result.returncode != 0:
        raise AssertionError(f"chromium failed ({result.returncode}): {result.stderr[-2000:]}")
    errors = [line for line in result.stderr.splitlines() if "Uncaught" in line]
    assert not errors, "script errors in the page:\n" + "\n".join(errors)
    return result.stdout


def dump_dom(page: pathlib.Path, fragment: str = "", *, budget_ms: int = 3000) -> Node:
    """The DOM of ``page#fragment`` once ``budget_ms`` of virtual time has passed."""
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    return parse_dom(_run([f"--virtual-time-budget={budget_ms}", "--dump-dom", url]))


def screenshot(
    page: pathlib.Path, fragment: str, out: pathlib.Path, *, size: str = "1280,900"
) -> pathlib.Path:
    """A PNG of ``page#fragment`` at window size ``size``."""
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    _run(["--virtual-time-budget=3000", f"--window-size={size}", f"--screenshot={out}", url])
    return out


# A small DOM -------------------------------------------------------------------------


@dataclasses.dataclass(eq=False)
class Node:
    """An element: its tag, attributes, children and text."""

    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = dataclasses.field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    @property
    def text(self) -> str:
        """All the text inside, joined."""
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def find_all(self, match: Callable[[Node], bool]) -> list[Node]:
        return [n for n in self.walk() if match(n)]

    def by_id(self, ident: str) -> Node:
        found = self.find_all(lambda n: n.attrs.get("id") == ident)
        assert found, f"no element #{ident}"
        return found[0]

    def with_class(self, name: str, **attrs: str) -> list[Node]:
        """Elements with class ``name`` and these attribute values (``data_seat="0"``)."""
        wanted = {k.replace("_", "-"): v for k, v in attrs.items()}
        return self.find_all(
            lambda n: name in n.classes and all(n.attrs.get(k) == v for k, v in wanted.items())
        )


_VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "wbr",
}


class _Builder(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.stack) - 1, 0, -1):
            if self.stack[index].tag == tag:
                del self.stack[index:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse_dom(text: str) -> Node:
    builder = _Builder()
    builder.feed(text)
    builder.close()
    return builder.root
