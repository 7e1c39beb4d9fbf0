"""tests.helpers' requirements: a missing sandbox skips, a broken probe fails.

``require_sandbox`` decides from ``referee.sandbox.bwrap.check_sandbox`` alone: its
``SandboxUnavailable`` (bwrap cannot run on this machine) is the one reason to
skip; any other error is a bug of the probe, which must fail the test rather
than silently skip every sandboxed attack.
"""

from __future__ import annotations

import pytest

from referee.sandbox import bwrap
from tests.helpers import missing_tools, require_sandbox, require_tools


def test_sandbox_unavailable_skips_with_its_message(monkeypatch: pytest.MonkeyPatch) -> None:
    def unavailable() -> None:
        raise bwrap.SandboxUnavailable("user namespaces are off")

    monkeypatch.setattr(bwrap, "check_sandbox", unavailable)
    with pytest.raises(pytest.skip.Exception) as skipped:
        require_sandbox()
    assert str(skipped.value) == ("bubblewrap cannot make a sandbox here: user namespaces are off")


@pytest.mark.parametrize("error", [RuntimeError("probe bug"), KeyError("x"), OSError(5, "EIO")])
def test_any_other_error_of_the_probe_is_not_a_skip(
    monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    def broken() -> None:
        raise error

    monkeypatch.setattr(bwrap, "check_sandbox", broken)
    with pytest.raises(type(error)):
        require_sandbox()


def test_a_working_sandbox_does_not_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bwrap, "check_sandbox", lambda: None)
    require_sandbox()  # returns: nothing to skip


def test_missing_tools_are_named(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    (tmp_path / "here").write_text("#!/bin/sh\n")
    (tmp_path / "here").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert missing_tools("here", "gone", "also-gone") == ["gone", "also-gone"]
    require_tools("here", purpose="x", install="y")  # all here: no skip
    with pytest.raises(pytest.skip.Exception) as skipped:
        require_tools("here", "gone", purpose="the gone kit", install="gone 1.0+")
    assert str(skipped.value) == "the gone kit skipped: gone not found; install gone 1.0+"
