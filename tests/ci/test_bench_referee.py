"""bench/referee.py's options and the Go kit part's summary, without running or timing anything.

The bench itself is run by hand (its figures are a loaded machine's noise in
CI); this only keeps its command line and its last lines from breaking
unseen, since they come after a run of many minutes.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys
from types import ModuleType

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """bench/referee.py, loaded under another name (``referee`` is the package)."""
    monkeypatch.syspath_prepend(str(BENCH))  # its helper modules, bench/referee_*.py
    spec = importlib.util.spec_from_file_location("bench_referee", BENCH / "referee.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_referee", module)  # dataclasses look it up there
    spec.loader.exec_module(module)
    return module


def test_quick_sets_the_small_defaults_and_explicit_options_win(bench: ModuleType) -> None:
    full = bench.parse_args([])
    assert (full.games, full.starts, full.rounds, full.go_games) == (10, 8, 5, 16)
    assert full.parts == ("referee", "starts", "go") and full.baseline == "b6c745a"
    quick = bench.parse_args(["--quick", "--games", "3", "--only", "go, referee"])
    assert (quick.games, quick.starts, quick.rounds, quick.go_games) == (3, 2, 1, 4)
    assert quick.parts == ("go", "referee")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--only", "referee,gpu"], "--only referee,gpu: the parts are referee, starts, go"),
        (["--only", ","], "the parts are"),
        (["--games", "0"], "--games must be at least 1"),
        (["--go-games", "-4"], "--go-games must be at least 1"),
    ],
)
def test_bad_options_are_refused_naming_them(
    bench: ModuleType, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        bench.parse_args(argv)
    assert message in capsys.readouterr().err


def _run(per_core: float, referee_ms: float) -> dict:
    return {
        "per_core": per_core,
        "referee_ms": referee_ms,
        "all_ms": 2 * referee_ms,
        "bots_ms": 0.5 * referee_ms,
        "faults": 0,
        "decisions": 2800,
        "games": 4,
    }


def test_the_go_summary_gives_the_ratio_of_the_medians_and_its_verdict(bench: ModuleType) -> None:
    go = sys.modules["referee_go"]
    figures = go.GoFigures(games=4, baseline="b6c745a old")
    figures.new[1] = go.Side([_run(30.0, 0.5), _run(33.0, 0.5), _run(36.0, 0.6)])
    figures.old[1] = go.Side([_run(20.0, 0.9), _run(20.0, 1.0), _run(24.0, 1.0)])
    assert figures.ratio(1) == pytest.approx(33.0 / 20.0)
    text = "\n".join(figures.report())
    assert "games/min/core 33.0 (30.0..36.0) vs baseline 20.0 (20.0..24.0): 1.65x" in text
    assert "(rounds 1.50..1.65) [>= 1.5x: met]" in text
    assert "0.500 ms vs baseline 1.000 ms" in text and "baseline b6c745a old" in text
    assert "the same games in every run: 2800 decisions each" in text
    assert "each with its own Go kit" in text
    figures.same_bots = True
    assert "both with this tree's Go kit" in "\n".join(figures.report())
    assert bench.parse_args(["--go-same-bots"]).go_same_bots
    assert not bench.parse_args([]).go_same_bots
    figures.new[1].runs[:2] = [_run(25.0, 0.5), _run(26.0, 0.5)]  # median 26: 1.30x
    assert "[>= 1.5x: NOT met]" in "\n".join(figures.report())
    assert go.GoFigures(skipped="Go is not installed").report() == [
        "  Go kit throughput: skipped: Go is not installed"
    ]


def test_the_starts_summary_gives_the_median_wall_and_cpu_of_each_kind(bench: ModuleType) -> None:
    starts = bench.Starts(
        seconds={"bwrap": [0.30, 0.20, 0.25], "none": [0.15, 0.10, 0.40]},
        cpu_s={"bwrap": [0.080, 0.070, 0.090], "none": [0.030, 0.050, 0.040]},
    )
    first, second = bench.report_starts(starts)
    assert "a sandboxed start adds: +100 ms (median start 250 ms sandboxed, 150 ms not" in first
    assert "[<= 50 ms: NOT met]" in first
    assert second.endswith("80 ms sandboxed, 40 ms not (medians of 3)")
