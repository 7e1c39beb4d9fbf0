"""The whole suite's hooks and shared fixtures: under ``HEARTS_CI=1`` a skip is a failure.

Tests that need something the machine may lack (a language toolchain,
Chromium, bubblewrap, cgroups, Ray, the git history) skip with a message
saying what to install, so that ``python -m pytest`` works anywhere. ``.ci/run``
installs all of it and sets ``HEARTS_CI=1``: there, a skip means a check that
silently did not run, so this hook reports it as a failure carrying the
skip's own message (which names what is missing). Strict xfails are left
alone: they are expected failures, not skips, and one fixed fails as XPASS.
A lax xfail (a ``pytest.xfail()`` call, or a mark without ``strict=True``)
would be green whether or not its check ran: it fails too.
"""

from __future__ import annotations

import pathlib
from collections.abc import Generator

import pytest

from tests.helpers import CI_FLAG, in_ci, play_mini_tournament


def _skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _fail_the_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    report.outcome = "failed"
    report.longrepr = (
        f"{CI_FLAG}=1: this test skipped, and a skip is a failure here: {_skip_reason(report)}"
    )


def _strict_xfail(item: pytest.Item) -> bool:
    """True if the test is marked ``xfail(strict=True)``: a known hole whose fix must show."""
    strict_default = bool(item.config.getini("xfail_strict"))
    return any(
        mark.kwargs.get("strict", strict_default) for mark in item.iter_markers(name="xfail")
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if not in_ci():
        return report
    if report.skipped and not hasattr(report, "wasxfail"):
        _fail_the_skip(report)
    elif report.skipped and not _strict_xfail(item):
        # A pytest.xfail() call or a lax xfail mark would pass whether or not the check ran.
        report.outcome = "failed"
        report.longrepr = (
            f"{CI_FLAG}=1: only a strict xfail may stand for a known hole, and this one is not "
            f"(mark it xfail(strict=True) or fix it): {report.wasxfail}"
        )
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    if in_ci() and report.skipped:  # a module-level skip or importorskip
        _fail_the_skip(report)
    return report


@pytest.fixture(scope="session")
def mini_tournament(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """The folder of one played :data:`tests.helpers.MINI_TOURNAMENT`, for the whole session.

    Tests only read it: one that changes a folder changes
    :func:`tests.helpers.copy_folder` of it.
    """
    return play_mini_tournament(tmp_path_factory.mktemp("mini-tournament"))
