"""referee.sprt: the GSPRT on paired differences, its bounds, the fixed-length figures."""

from __future__ import annotations

import math
import random

import pytest

from referee.sprt import (
    SprtSettings,
    first_decision,
    fixed_summary,
    llr,
    los,
    sprt_status,
)


def test_wald_bounds() -> None:
    s = SprtSettings(delta0=0.0, delta1=1.0, alpha=0.05, beta=0.1)
    assert s.upper == pytest.approx(math.log(0.9 / 0.05))
    assert s.lower == pytest.approx(math.log(0.1 / 0.95))


def test_llr_formula() -> None:
    xs = [0.1, 0.7, -0.2, 0.9, 0.4, 0.3]
    n, m = len(xs), sum(xs) / len(xs)
    v = sum((x - m) ** 2 for x in xs) / (n - 3)
    assert llr(xs, 0.0, 0.5) == pytest.approx(n * 0.5 * (2 * m - 0.5) / (2 * v))
    assert llr(xs[:3], 0.0, 0.5) == 0.0  # too few to estimate the variance


def test_llr_is_zero_midway_and_antisymmetric() -> None:
    xs = [0.25 + d for d in (-1.0, 1.0, -0.5, 0.5, 0.0)]
    assert llr(xs, 0.0, 0.5) == pytest.approx(0.0)
    ys = [0.5 - x for x in xs]
    assert llr(ys, 0.0, 0.5) == pytest.approx(-llr(xs, 0.0, 0.5))


def test_llr_grows_with_the_effect() -> None:
    """Unlike a GLR that maximizes the variance under each hypothesis, a big effect decides fast."""
    base = [-1.0, 1.0, -0.5, 0.5, 0.0, 0.2, -0.2, 0.1]
    values = [llr([x + shift for x in base], 0.0, 0.5) for shift in (0.5, 2.0, 8.0)]
    assert values == sorted(values)


def test_identical_samples_decide_at_once() -> None:
    s = SprtSettings()
    assert sprt_status([0.0] * 16, s).decision == "H0"
    assert sprt_status([1.0] * 16, s).decision == "H1"


def test_no_decision_before_min_sets() -> None:
    s = SprtSettings(min_sets=8)
    assert sprt_status([5.0, 5.1, 4.9, 5.0, 5.2, 4.8, 5.0], s).decision == "none"
    assert sprt_status([5.0, 5.1, 4.9, 5.0, 5.2, 4.8, 5.0, 5.0], s).decision == "H1"


def test_first_decision_is_the_first_crossing() -> None:
    s = SprtSettings(delta0=0.0, delta1=0.5, min_sets=4)
    xs = [0.6, 0.4, 0.5, 0.55, 0.45, -3.0, -3.0, -3.0]
    stop = first_decision(xs, s)
    assert stop.decision == "H1" and stop.sets == 4
    assert sprt_status(xs, s).decision != "H1"  # the later sets would not say so


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"delta0": 1.0, "delta1": 0.5}, "delta1"),
        ({"alpha": 0.0}, "alpha"),
        ({"beta": 0.7}, "beta"),
        ({"min_sets": 3}, "min_sets"),
    ],
)
def test_settings_are_checked(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SprtSettings(**kwargs)


def test_fixed_summary_and_los() -> None:
    f = fixed_summary([1.0, 2.0, 3.0, 4.0])
    assert f.mean == 2.5 and f.sd == pytest.approx(1.2909944)
    assert f.ci95 is not None and f.ci95[0] == pytest.approx(2.5 - 3.182 * f.sd / 2)
    assert f.los is not None and f.los > 0.99 and f.effect == pytest.approx(2.5 / f.sd)
    assert fixed_summary([]).mean is None and fixed_summary([1.0]).ci95 is None
    assert los([1.0, -1.0, 2.0, -2.0]) == pytest.approx(0.5)


def _normal_run(rng: random.Random, mu: float, s: SprtSettings, max_sets: int = 2000) -> str:
    xs: list[float] = []
    for _ in range(max_sets):
        xs.append(rng.gauss(mu, 1.0))
        decision = sprt_status(xs, s).decision if len(xs) >= s.min_sets else "none"
        if decision != "none":
            return decision
    return "none"


def test_error_rates_on_normal_samples() -> None:
    """400 runs on each side; the rates stay within alpha and beta plus three standard errors."""
    s = SprtSettings(delta0=0.0, delta1=0.7, alpha=0.05, beta=0.05)
    rng = random.Random(7)
    runs = 400
    fp = sum(_normal_run(rng, 0.0, s) == "H1" for _ in range(runs)) / runs
    fn = sum(_normal_run(rng, 0.7, s) == "H0" for _ in range(runs)) / runs
    margin = 3 * math.sqrt(0.05 * 0.95 / runs)
    assert fp <= 0.05 + margin and fn <= 0.05 + margin
