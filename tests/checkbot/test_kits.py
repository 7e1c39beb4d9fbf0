"""check-bot builds a bot folder itself: a starter kit scaffolded outside the repository.

Every kit is built (sandboxed) and checked with ``referee check-bot . --no-build``
by tests/kits/test_new_bot.py; this test covers check-bot's own build step,
on the kit that builds fastest (Go: ``go build`` of committed code). A machine
without Go skips it with what to install.
"""

from __future__ import annotations

import pytest

from tests.kits.conftest import kit_unavailable, scaffold_kit


@pytest.mark.toolchain
@pytest.mark.timeout(900)  # the first build on a fresh machine starts from a cold module cache
def test_check_bot_builds_a_fresh_scaffold_and_passes_it(tmp_path, check_bot):
    reason = kit_unavailable("go")
    if reason:
        pytest.skip(reason)
    folder = scaffold_kit("go", tmp_path)
    assert not (folder / "bin" / "bot").exists()
    run = check_bot(str(folder), "--startup-timeout-s", "60")
    failed = {c: run.text(c) for c, s in run.statuses().items() if s == "FAIL"}
    assert run.exit_code == 0, failed or run.output
    assert run.status("build") == "PASS"
    assert (folder / "bin" / "bot").exists()
    assert set(run.statuses().values()) == {"PASS"}, run.statuses()
