"""check-bot against every starter kit whose toolchain is installed (as CI does).

Each kit is built in place by check-bot itself (its bot.yaml build step; the
outputs are git-ignored, and warm builds take seconds), then must pass every
check. A kit whose toolchain is missing is skipped with what to install.
"""

from __future__ import annotations

import pytest

from tests.checkbot.conftest import ROOT
from tests.kits.test_starter_kits import _requirements

KITS = ["go", "node", "cpp", "rust", "java"]


@pytest.mark.toolchain
@pytest.mark.slow
@pytest.mark.timeout(1800)  # the first build of a kit on a fresh machine starts from cold caches
@pytest.mark.parametrize("kit", KITS)
def test_starter_kit_passes_check_bot(kit, check_bot):
    reason = _requirements(kit)
    if reason:
        pytest.skip(reason)
    run = check_bot(str(ROOT / "sample_bots" / kit), "--startup-timeout-s", "60")
    failed = {c: run.text(c) for c, s in run.statuses().items() if s == "FAIL"}
    assert run.exit_code == 0, failed or run.output
    assert run.status("build") == "PASS"
    assert set(run.statuses().values()) == {"PASS"}, run.statuses()
