"""Sequential and fixed-length tests on paired duplicate sets (pure statistics).

A gauntlet plays every deal twice (or more): once with the candidate and
once with each baseline, in the same seat, against the same opponents. Each
duplicate set then gives one number per baseline, the *paired difference*
``x = baseline - candidate`` in points per hand (positive: the candidate
took fewer points, so it is better), or in mean placement. The sets are the
independent samples; the games inside a set are not (they share the deals).

The sequential test is a generalized SPRT (GSPRT) of H0: ``E[x] = delta0``
against H1: ``E[x] = delta1``, the distribution of ``x`` unknown. With ``n``
sets of mean ``m``,

    LLR = n * (delta1 - delta0) * (2*m - delta0 - delta1) / (2*v)

Van den Bergh's approximation of the GSPRT's LLR (fishtest's ``LLR_alt2``;
it is also the Euclidean member of the empirical-likelihood family, Owen's
quadratic divergence from the observed distribution). What the models differ
in is ``v``, the variance, and the bounds:

- ``model: robust`` (the default): ``v = sum((x - m)**2) / (n - 5)`` times
  the factor of :func:`skew_inflation`: ``1 + 8 g / sqrt(n)``, where ``g`` is
  the sample's skewness when it points towards the error the LLR leans to
  (negative skew when the LLR is positive: a sample that has not yet met its
  rare large loss looks better than its distribution and has too small a
  variance), else 0. Wald's
  bounds move inward by fishtest's dynamic overshoot correction (Siegmund,
  *Sequential Analysis*, corollary 8.33): ``E[H^2] / (2 E[H])`` of the
  ladder heights ``H`` of the LLR's path so far.
- ``model: normal``, the test of earlier versions: ``v = sum((x - m)**2) /
  (n - 3)``, Wald's bounds uncorrected.

bench/sprt.py measured both (false positives, power and sets on normal,
heavy-tailed, skewed and moon-shaped sets); docs/sprt.md has the figures and
the designs the harness turned down.

>>> s = SprtSettings(delta0=0.0, delta1=0.5, alpha=0.05, beta=0.05, min_sets=8)
>>> round(s.lower, 3), round(s.upper, 3)
(-2.944, 2.944)
>>> xs = [0.4, 0.9, 0.2, 0.7, 0.6, 0.5, 0.8, 0.3]
>>> round(normal_llr(xs, 0.0, 0.5), 3), round(robust_llr(xs, 0.0, 0.5), 3)
(14.286, 8.571)
>>> sprt_status(xs, s).decision
'H1'
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from referee.stats.distributions import t_quantile_975

__all__ = [
    "DECISIONS",
    "MODELS",
    "FixedSummary",
    "SequentialTest",
    "SprtSettings",
    "SprtStatus",
    "first_decision",
    "fixed_summary",
    "llr",
    "los",
    "normal_llr",
    "paired_counts",
    "robust_llr",
    "skew_inflation",
    "sprt_status",
]

#: What a test can end with: H1 accepted, H0 accepted, or no decision (yet).
DECISIONS = ("H1", "H0", "none")
#: The tests: with a variance robust to skewed sets (the default), or that of earlier versions.
MODELS = ("robust", "normal")
#: Relative floor of the variance, so that identical samples give a finite LLR.
_VARIANCE_FLOOR = 1e-12
#: The variance of ``model: robust`` is the sum of squares over n - SMALL_SAMPLE (the
#: normal test's n - 3, more conservative), times the skewness factor of
#: :func:`skew_inflation`: 1 + SKEW_GUARD * max(0, g) / sqrt(n). Both were chosen by
#: bench/sprt.py's figures (docs/sprt.md).
SMALL_SAMPLE = 5
SKEW_GUARD = 8.0


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class SprtSettings:
    """The hypotheses and error rates of a GSPRT on the mean paired difference."""

    #: H0's mean difference (baseline - candidate, in the metric's units; 0: no better).
    delta0: float = 0.0
    #: H1's mean difference; must be above ``delta0``.
    delta1: float = 0.5
    #: Probability of accepting H1 when H0 holds (false positive).
    alpha: float = 0.05
    #: Probability of accepting H0 when H1 holds (false negative).
    beta: float = 0.05
    #: No decision before this many sets (the likelihood needs a few).
    min_sets: int = 16
    #: ``robust`` (the default) or ``normal`` (the test of earlier versions).
    model: str = "robust"

    def __post_init__(self) -> None:
        if not self.delta1 > self.delta0:
            raise ValueError(f"delta1 ({self.delta1}) must be above delta0 ({self.delta0})")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, not {value}")
        if self.min_sets < 4:
            raise ValueError(f"min_sets must be at least 4, not {self.min_sets}")
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {', '.join(MODELS)}, not {self.model!r}")

    @property
    def lower(self) -> float:
        """Wald's bound at or below which H0 is accepted: ln(beta / (1 - alpha))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's bound at or above which H1 is accepted: ln((1 - beta) / alpha)."""
        return math.log((1 - self.beta) / self.alpha)

    def to_dict(self) -> dict[str, Any]:
        """As in the config's digest; ``model: normal`` is left out, as folders before it wrote."""
        data = dataclasses.asdict(self)
        if self.model == "normal":
            del data["model"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SprtSettings:
        """The settings a folder recorded; one without ``model`` ran the ``normal`` test."""
        return cls(**{"model": "normal", **data})


# The likelihoods ----------------------------------------------------------------------------


def normal_llr(samples: Sequence[float], delta0: float, delta1: float) -> float:
    """The LLR of ``model: normal``: Van den Bergh's approximation, variance over n - 3.

    0 with fewer than four samples.

    >>> normal_llr([1.0, -1.0, 0.5, -0.5], 0.0, 0.5) < 0 < normal_llr([1.0, 0.0, 0.5, 1.5], 0.0, 0.5)
    True
    """
    n = len(samples)
    if n < 4:
        return 0.0
    mean = math.fsum(samples) / n
    var = math.fsum((x - mean) ** 2 for x in samples) / (n - 3)
    var = max(var, _VARIANCE_FLOOR * (delta1 - delta0) ** 2)
    return n * (delta1 - delta0) * (2 * mean - delta0 - delta1) / (2 * var)


class _Robust:
    """The LLR of ``model: robust`` from running power sums (constant work per set)."""

    def __init__(self, delta0: float, delta1: float) -> None:
        self.delta0, self.delta1 = delta0, delta1
        self.n = 0
        self.sums = [0.0, 0.0, 0.0]  # of x, x^2, x^3

    def add(self, x: float) -> None:
        self.n += 1
        self.sums[0] += x
        self.sums[1] += x * x
        self.sums[2] += x * x * x

    def llr(self) -> float:
        n, (s1, s2, s3) = self.n, self.sums
        if n <= SMALL_SAMPLE:
            return 0.0
        d0, d1 = self.delta0, self.delta1
        mean = s1 / n
        m2 = max(s2 / n - mean * mean, 0.0)
        m3 = s3 / n - 3 * mean * s2 / n + 2 * mean**3
        var = max(m2 * n / (n - SMALL_SAMPLE), _VARIANCE_FLOOR * (d1 - d0) ** 2)
        value = n * (d1 - d0) * (2 * mean - d0 - d1) / (2 * var)
        return value / skew_inflation(value, _skewness(m2, m3, mean), n)


def _skewness(m2: float, m3: float, mean: float) -> float:
    """The sample skewness from central moments (0 for a sample without spread)."""
    if m2 <= _VARIANCE_FLOOR * (1.0 + mean * mean):
        return 0.0
    return m3 / m2**1.5


def skew_inflation(value: float, skewness: float, n: int) -> float:
    """The factor on the variance that the skewness calls for, on the side ``value`` leans to.

    A positive LLR errs when H0 holds and the sets have not yet shown their
    rare large losses: a negatively skewed sample's variance is then
    underestimated exactly when its mean looks good (their covariance is the
    third moment). A negative LLR, symmetrically, with positive skew. The
    factor fades as 1/sqrt(n), as the skewness of a mean does.

    >>> skew_inflation(2.0, -0.74, 64), skew_inflation(2.0, 0.74, 64)
    (1.74, 1.0)
    """
    towards_error = -skewness if value > 0 else skewness
    return 1.0 + SKEW_GUARD * max(0.0, towards_error) / math.sqrt(n)


def robust_llr(samples: Sequence[float], delta0: float, delta1: float) -> float:
    """The LLR of ``model: robust`` after ``samples`` (see the module docs); 0 up to 5 sets.

    >>> round(robust_llr([0.4, 0.9, 0.2, 0.7, 0.6, 0.5, 0.8, 0.3], 0.0, 0.5), 3)
    8.571
    """
    robust = _Robust(delta0, delta1)
    for x in samples:
        robust.add(x)
    return robust.llr()


def llr(samples: Sequence[float], delta0: float, delta1: float, model: str = "robust") -> float:
    """The LLR of ``model`` (``robust`` or ``normal``) after ``samples``."""
    if model == "normal":
        return normal_llr(samples, delta0, delta1)
    return robust_llr(samples, delta0, delta1)


# The sequential test ------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class SprtStatus:
    """Where a sequential test stands after ``sets`` samples."""

    sets: int
    llr: float
    #: The bounds in effect: Wald's, moved inward by the overshoot correction.
    lower: float
    upper: float
    #: ``H1``, ``H0`` or ``none``.
    decision: str
    #: Wald's bounds, before the correction.
    wald_lower: float = 0.0
    wald_upper: float = 0.0
    #: No decision before this many sets (``min_sets``).
    min_sets: int = 0
    #: The sets the test is still expected to need (its average sample number, from the
    #: estimate so far); None once decided, or before two sets.
    expected_sets_left: float | None = None

    def line(self) -> str:
        """For the progress line: ``LLR 1.23 (-2.90, 2.89)``, and the decision once made."""
        value = f"{self.llr:.2f}" if abs(self.llr) < 1e4 else f"{self.llr:.3g}"
        text = f"LLR {value} ({self.lower:.2f}, {self.upper:.2f})"
        if self.decision != "none":
            return f"{text} {self.decision} accepted"
        if self.sets < self.min_sets:
            return f"{text}, no decision before {self.min_sets} sets"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "sets": self.sets,
            "llr": round(self.llr, 4),
            "lower": round(self.lower, 4),
            "upper": round(self.upper, 4),
            "decision": self.decision,
            "wald": [round(self.wald_lower, 4), round(self.wald_upper, 4)],
            "min_sets": self.min_sets,
            "expected_sets_left": None
            if self.expected_sets_left is None
            else round(self.expected_sets_left, 1),
        }


class SequentialTest:
    """The GSPRT of ``settings`` fed one set at a time, as the live gauntlet feeds it.

    After each set: the LLR, the overshoot statistics of its path (the
    ladder heights: how far each new low or high went past the one before,
    counted from ``min_sets``), the bounds they correct, and the first
    decision, which then stays.

    >>> t = SequentialTest(SprtSettings(delta0=0.0, delta1=0.5, min_sets=4))
    >>> t.extend([0.4, 0.9, 0.2, 0.7, 0.6])
    >>> t.status().sets, t.decision
    (5, 'none')
    """

    def __init__(self, settings: SprtSettings) -> None:
        self.settings = settings
        self.samples: list[float] = []
        self.llr = 0.0
        self.decision = "none"
        #: The status at the first decision (None before it).
        self.stop: SprtStatus | None = None
        self._robust = _Robust(settings.delta0, settings.delta1)
        #: No decision before this many sets: ``min_sets``, and never before the robust
        #: variance has a degree of freedom (n > SMALL_SAMPLE).
        self.min_sets = (
            settings.min_sets
            if settings.model == "normal"
            else max(settings.min_sets, SMALL_SAMPLE + 1)
        )
        self._low: float | None = None
        self._high: float | None = None
        self._down = [0.0, 0.0]  # sum and sum of squares of the ladder heights down
        self._up = [0.0, 0.0]

    def add(self, x: float) -> str:
        """Count one set's difference; the decision (``none`` until one is made)."""
        s = self.settings
        self.samples.append(x)
        n = len(self.samples)
        if s.model == "normal":
            self.llr = normal_llr(self.samples, s.delta0, s.delta1)
        else:
            self._robust.add(x)
            self.llr = self._robust.llr()
        if n < self.min_sets:
            return self.decision
        if s.model == "robust":
            self._ladder(self.llr)
        if self.decision == "none":
            lower, upper = self.bounds()
            if self.llr >= upper:
                self.decision = "H1"
            elif self.llr <= lower:
                self.decision = "H0"
            if self.decision != "none":
                self.stop = self.status()
        return self.decision

    def extend(self, xs: Iterable[float]) -> None:
        for x in xs:
            self.add(x)

    def _ladder(self, value: float) -> None:
        if self._low is None or self._high is None:
            self._low = self._high = value
            return
        if value < self._low:
            height = self._low - value
            self._down[0] += height
            self._down[1] += height * height
            self._low = value
        if value > self._high:
            height = value - self._high
            self._up[0] += height
            self._up[1] += height * height
            self._high = value

    def overshoot(self) -> tuple[float, float]:
        """The expected overshoot past the lower and the upper bound: E[H^2] / (2 E[H])."""
        down = self._down[1] / (2 * self._down[0]) if self._down[0] else 0.0
        up = self._up[1] / (2 * self._up[0]) if self._up[0] else 0.0
        return down, up

    def bounds(self) -> tuple[float, float]:
        """The bounds in effect: Wald's, moved inward by the overshoot (never past 0)."""
        s = self.settings
        down, up = self.overshoot()
        return min(s.lower + down, 0.0), max(s.upper - up, 0.0)

    def expected_sets_left(self) -> float | None:
        """The sets still expected to a decision: the ASN of the LLR as a Brownian motion.

        The LLR's drift and variance per set at the estimated mean and
        standard deviation (Wald's approximation, as fishtest's Brownian
        model of the LLR), from where it stands to the bounds in effect;
        and no fewer than the sets left before ``min_sets``.
        """
        n = len(self.samples)
        if self.decision != "none" or n < 2:
            return None
        s = self.settings
        mean = statistics.fmean(self.samples)
        var = max(statistics.variance(self.samples), _VARIANCE_FLOOR * (s.delta1 - s.delta0) ** 2)
        width = s.delta1 - s.delta0
        drift = width * (mean - (s.delta0 + s.delta1) / 2) / var
        spread = width * width / var
        lower, upper = self.bounds()
        x = min(max(self.llr, lower), upper)
        if abs(drift) < 1e-9 * spread:
            left = (x - lower) * (upper - x) / spread
        else:
            k = 2 * drift / spread
            # P(upper first) = (1 - e^{-k (x - lower)}) / (1 - e^{-k (upper - lower)})
            p_up = math.expm1(-k * (x - lower)) / math.expm1(-k * (upper - lower))
            left = (p_up * (upper - lower) - (x - lower)) / drift
        return max(left, float(self.min_sets - n), 0.0)

    def status(self) -> SprtStatus:
        """The test now: after every set fed so far."""
        s = self.settings
        lower, upper = self.bounds()
        return SprtStatus(
            len(self.samples),
            self.llr,
            lower,
            upper,
            self.decision,
            s.lower,
            s.upper,
            self.min_sets,
            self.expected_sets_left(),
        )


def sprt_status(samples: Sequence[float], settings: SprtSettings) -> SprtStatus:
    """The sequential test fed ``samples`` in order: where it stands after the last.

    Its decision is the first one made along the way (the live test's).
    """
    test = SequentialTest(settings)
    test.extend(samples)
    return test.status()


def first_decision(samples: Sequence[float], settings: SprtSettings) -> SprtStatus:
    """The sequential test over ``samples`` in order: the status at its stopping point.

    The first set at which a bound is crossed, or the whole sequence
    without a decision.
    """
    test = SequentialTest(settings)
    for x in samples:
        if test.add(x) != "none":
            assert test.stop is not None
            return test.stop
    return test.status()


# Fixed-length figures ----------------------------------------------------------------------


def paired_counts(samples: Iterable[float]) -> tuple[int, int, int]:
    """Sets the candidate won (x > 0), drew (x = 0) and lost (x < 0).

    >>> paired_counts([0.5, 0.0, -0.25, 1.0])
    (2, 1, 1)
    """
    won = drawn = lost = 0
    for x in samples:
        if abs(x) <= 1e-12:
            drawn += 1
        elif x > 0:
            won += 1
        else:
            lost += 1
    return won, drawn, lost


def los(samples: Sequence[float]) -> float | None:
    """Likelihood of superiority: P(mean > 0), normal approximation of the t statistic.

    >>> los([0.5, 0.5, 0.5, 0.6]) > 0.99, los([1.0, -1.0])
    (True, 0.5)
    """
    n = len(samples)
    if n < 2:
        return None
    mean = statistics.fmean(samples)
    sd = statistics.stdev(samples)
    if sd == 0:
        return 1.0 if mean > 0 else 0.0 if mean < 0 else 0.5
    return 0.5 * (1 + math.erf(mean / (sd / math.sqrt(n)) / math.sqrt(2)))


@dataclasses.dataclass(frozen=True, slots=True)
class FixedSummary:
    """Fixed-length figures of paired differences: mean, 95% CI, LOS, effect size."""

    sets: int
    mean: float | None
    sd: float | None
    #: Student's t 95% interval of the mean (None with fewer than two sets).
    ci95: tuple[float, float] | None
    los: float | None
    #: mean / sd: the effect in standard deviations of one set (cf. normalized Elo).
    effect: float | None

    def to_dict(self) -> dict[str, Any]:
        def r(value: float | None) -> float | None:
            return None if value is None else round(value, 4)

        return {
            "sets": self.sets,
            "mean": r(self.mean),
            "sd": r(self.sd),
            "ci95": None if self.ci95 is None else [r(self.ci95[0]), r(self.ci95[1])],
            "los": r(self.los),
            "effect": r(self.effect),
        }


def fixed_summary(samples: Sequence[float]) -> FixedSummary:
    """Mean, standard deviation, Student's t 95% interval, LOS and effect size.

    >>> f = fixed_summary([1.0, 2.0, 3.0])
    >>> f.mean, f.sd, [round(x, 3) for x in f.ci95]
    (2.0, 1.0, [-0.484, 4.484])
    """
    n = len(samples)
    if n == 0:
        return FixedSummary(0, None, None, None, None, None)
    mean = statistics.fmean(samples)
    if n < 2:
        return FixedSummary(n, mean, None, None, None, None)
    sd = statistics.stdev(samples)
    half = t_quantile_975(n - 1) * sd / math.sqrt(n)
    effect = mean / sd if sd > 0 else None
    return FixedSummary(n, mean, sd, (mean - half, mean + half), los(samples), effect)
