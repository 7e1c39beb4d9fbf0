"""referee.stats.sprt: the GSPRT on paired differences, its bounds, the fixed-length figures."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from referee.stats.sprt import (
    SequentialTest,
    SprtSettings,
    first_decision,
    fixed_summary,
    los,
    normal_llr,
    paired_counts,
    robust_llr,
    skew_inflation,
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
    assert normal_llr(xs, 0.0, 0.5) == pytest.approx(n * 0.5 * (2 * m - 0.5) / (2 * v))
    assert normal_llr(xs[:3], 0.0, 0.5) == 0.0  # too few to estimate the variance


def test_llr_is_zero_midway_and_antisymmetric() -> None:
    xs = [0.25 + d for d in (-1.0, 1.0, -0.5, 0.5, 0.0)]
    assert normal_llr(xs, 0.0, 0.5) == pytest.approx(0.0)
    ys = [0.5 - x for x in xs]
    assert normal_llr(ys, 0.0, 0.5) == pytest.approx(-normal_llr(xs, 0.0, 0.5))


def test_llr_grows_with_the_effect() -> None:
    """Unlike a GLR that maximizes the variance under each hypothesis, a big effect decides fast."""
    base = [-1.0, 1.0, -0.5, 0.5, 0.0, 0.2, -0.2, 0.1]
    values = [normal_llr([x + shift for x in base], 0.0, 0.5) for shift in (0.5, 2.0, 8.0)]
    assert values == sorted(values)


@pytest.mark.parametrize("model", ["robust", "normal"])
def test_identical_samples_decide_at_once(model: str) -> None:
    s = SprtSettings(model=model)
    assert sprt_status([0.0] * 16, s).decision == "H0"
    assert sprt_status([1.0] * 16, s).decision == "H1"


@pytest.mark.parametrize("model", ["robust", "normal"])
def test_no_decision_before_min_sets(model: str) -> None:
    s = SprtSettings(min_sets=8, model=model)
    assert sprt_status([5.0, 5.1, 4.9, 5.0, 5.2, 4.8, 5.0], s).decision == "none"
    assert sprt_status([5.0, 5.1, 4.9, 5.0, 5.2, 4.8, 5.0, 5.0], s).decision == "H1"


def test_first_decision_is_the_first_crossing() -> None:
    s = SprtSettings(delta0=0.0, delta1=0.5, min_sets=4, model="normal")
    xs = [0.6, 0.4, 0.5, 0.55, 0.45, -3.0, -3.0, -3.0]
    stop = first_decision(xs, s)
    assert stop.decision == "H1" and stop.sets == 4
    final = sprt_status(xs, s)
    assert final.llr < final.upper  # the later sets would not say so
    assert final.decision == "H1"  # but the decision is the first crossing's


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"delta0": 1.0, "delta1": 0.5}, "delta1"),
        ({"alpha": 0.0}, "alpha"),
        ({"beta": 0.7}, "beta"),
        ({"min_sets": 3}, "min_sets"),
        ({"model": "bayes"}, "model"),
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
    test = SequentialTest(s)
    for _ in range(max_sets):
        if (decision := test.add(rng.gauss(mu, 1.0))) != "none":
            return decision
    return "none"


@pytest.mark.parametrize("model", ["robust", "normal"])
def test_error_rates_on_normal_samples(model: str) -> None:
    """400 runs on each side; the rates stay within alpha and beta plus three standard errors."""
    s = SprtSettings(delta0=0.0, delta1=0.7, alpha=0.05, beta=0.05, model=model)
    rng = random.Random(7)
    runs = 400
    fp = sum(_normal_run(rng, 0.0, s) == "H1" for _ in range(runs)) / runs
    fn = sum(_normal_run(rng, 0.7, s) == "H0" for _ in range(runs)) / runs
    margin = 3 * math.sqrt(0.05 * 0.95 / runs)
    assert fp <= 0.05 + margin and fn <= 0.05 + margin


def test_robust_llr_worked_by_hand() -> None:
    """The robust model's LLR, step by step.

    x = 0.4, 0.9, 0.2, 0.7, 0.6, 0.5, 0.8, 0.3: n = 8, m = 0.55, sum of squares
    0.42, v = 0.42 / (8 - 5) = 0.14, no skewness: LLR = 8 (0.5)(1.1 - 0.5) / 0.28.

    y = 1 (seven times) and -7: n = 8, m = 0, m2 = 56/8 = 7, m3 = (7 - 343)/8 = -42,
    skewness -42 / 7^1.5 = -2.268; v = 56 / 3. For delta0 = -1, delta1 = 0 the LLR
    leans to H1 (8 (1)(1) / (2 v) = 3/14) and the skewness is negative: the
    variance grows by 1 + 8 (2.268) / sqrt(8).
    """
    xs = [0.4, 0.9, 0.2, 0.7, 0.6, 0.5, 0.8, 0.3]
    assert robust_llr(xs, 0.0, 0.5) == pytest.approx(8 * 0.5 * 0.6 / 0.28)
    ys = [1.0] * 7 + [-7.0]
    skew = -42 / 7**1.5
    factor = 1 + 8 * -skew / math.sqrt(8)
    assert skew_inflation(1.0, skew, 8) == pytest.approx(factor)
    assert robust_llr(ys, -1.0, 0.0) == pytest.approx(3 / 14 / factor)
    assert robust_llr([-y for y in ys], 0.0, 1.0) == pytest.approx(-3 / 14 / factor)
    assert robust_llr([-y for y in ys], -1.0, 0.0) == pytest.approx(3 / 14)  # skew helps
    assert robust_llr(xs[:5], 0.0, 0.5) == 0.0  # n - 5 = 0: nothing yet


def test_the_skewness_guard_slows_a_positive_llr_on_negatively_skewed_sets() -> None:
    """The same mean and spread, mirrored: the sample with the long left tail gets less LLR."""
    right = [0.1, 0.2, 0.3, 0.2, 0.1, 0.3, 2.5, 0.2, 0.3, 0.1, 0.2, 0.3]
    mean = sum(right) / len(right)
    left = [2 * mean - x for x in right]  # the same mean, the tail now a large loss
    assert sum(left) == pytest.approx(sum(right))
    assert 0 < robust_llr(left, 0.0, 0.25) < robust_llr(right, 0.0, 0.25)
    assert robust_llr(right, 0.0, 0.25) == pytest.approx(normal_llr(right, 0.0, 0.25) * 7 / 9)


def test_overshoot_correction_worked_by_hand() -> None:
    """fishtest's correction: the bounds move inward by E[H^2] / (2 E[H]) of the ladder heights.

    LLR path 0, -1, -0.5, -2, 1, 3: new lows by 1 and 1 (E[H^2]/(2 E[H]) = 2/4), new
    highs by 1 and 2 (5/6).
    """
    test = SequentialTest(SprtSettings())
    for value in (0.0, -1.0, -0.5, -2.0, 1.0, 3.0):
        test._ladder(value)
    assert test.overshoot() == pytest.approx((0.5, 5 / 6))
    lower, upper = test.bounds()
    assert lower == pytest.approx(math.log(0.05 / 0.95) + 0.5)
    assert upper == pytest.approx(math.log(0.95 / 0.05) - 5 / 6)
    assert SequentialTest(SprtSettings(model="normal")).bounds() == pytest.approx(
        (math.log(0.05 / 0.95), math.log(0.95 / 0.05))
    )


def test_expected_sets_left_is_the_brownian_asn() -> None:
    """At the midway mean the LLR has no drift: E[T] = (x - a)(b - x) / variance per set."""
    s = SprtSettings(delta0=0.0, delta1=0.5, min_sets=4, model="normal")
    test = SequentialTest(s)
    test.extend([0.25 + d for d in (-1.0, 1.0, -0.5, 0.5, 0.0, 0.0)])
    status = test.status()
    var = statistics.variance(test.samples)
    expected = (status.llr - s.lower) * (s.upper - status.llr) / (0.25 / var)
    assert status.expected_sets_left == pytest.approx(expected)
    early = SequentialTest(SprtSettings(min_sets=16))
    early.extend([5.0, 5.1, 4.9])
    assert early.status().expected_sets_left >= 13  # never fewer than min_sets - n
    assert "no decision before 16 sets" in early.status().line()


def test_paired_counts_and_settings_round_trip() -> None:
    assert paired_counts([0.5, 0.0, -0.25, 1.0, 0.0]) == (2, 2, 1)
    robust = SprtSettings(delta1=0.3)
    assert robust.model == "robust" and SprtSettings.from_dict(robust.to_dict()) == robust
    normal = SprtSettings(model="normal")
    assert "model" not in normal.to_dict()  # the digest of folders from before the model
    assert SprtSettings.from_dict(normal.to_dict()) == normal
