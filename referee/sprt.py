"""Sequential and fixed-length tests on paired duplicate sets (pure statistics).

A gauntlet plays every deal twice (or more): once with the candidate and
once with each baseline, in the same seat, against the same opponents. Each
duplicate set then gives one number per baseline, the *paired difference*
``x = baseline - candidate`` in points per hand (positive: the candidate
took fewer points, so it is better), or in mean placement. The sets are the
independent samples; the games inside a set are not (they share the deals).

The sequential test is a generalized SPRT (GSPRT) on the mean ``mu`` of
``x``, H0: ``mu = delta0`` against H1: ``mu = delta1``, the variance being
unknown and estimated from the samples, as in fishtest's GSPRT (Van den
Bergh's normal approximation of the log-likelihood ratio). With ``n`` sets
of mean ``m``,

    LLR = n * (delta1 - delta0) * (2*m - delta0 - delta1) / (2*v)
    v = sum((x - m)**2) / (n - 3)

the sum over the sets of ``ln(phi((x - delta1)/s) / phi((x - delta0)/s))``
with the variance ``s**2`` replaced by its estimate ``v``: the sample
variance times (n - 1)/(n - 3), the variance of Student's t with n - 1
degrees of freedom, which keeps a small sample's underestimated variance from
stopping the test early (bench/sprt.py measured the error rates). Wald's
bounds: accept H1 when ``LLR >= ln((1 - beta) / alpha)``, H0 when
``LLR <= ln(beta / (1 - alpha))``. The derivation and the assumptions are in
docs/sprt.md.

>>> s = SprtSettings(delta0=0.0, delta1=0.5, alpha=0.05, beta=0.05, min_sets=8)
>>> round(s.lower, 3), round(s.upper, 3)
(-2.944, 2.944)
>>> round(llr([0.4, 0.9, 0.2, 0.7, 0.6, 0.5, 0.8, 0.3], 0.0, 0.5), 3)
14.286
>>> sprt_status([0.4, 0.9, 0.2, 0.7, 0.6, 0.5, 0.8, 0.3], s).decision
'H1'
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Sequence
from typing import Any

from referee.standings import t_quantile_975

__all__ = [
    "DECISIONS",
    "FixedSummary",
    "SprtSettings",
    "SprtStatus",
    "first_decision",
    "fixed_summary",
    "llr",
    "los",
    "sprt_status",
]

#: What a test can end with: H1 accepted, H0 accepted, or no decision (yet).
DECISIONS = ("H1", "H0", "none")
#: Relative floor of the variance, so that identical samples give a finite LLR.
_VARIANCE_FLOOR = 1e-12


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
    #: No decision before this many sets (the variance estimate needs a few).
    min_sets: int = 16

    def __post_init__(self) -> None:
        if not self.delta1 > self.delta0:
            raise ValueError(f"delta1 ({self.delta1}) must be above delta0 ({self.delta0})")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, not {value}")
        if self.min_sets < 4:
            raise ValueError(f"min_sets must be at least 4, not {self.min_sets}")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: ln(beta / (1 - alpha))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: ln((1 - beta) / alpha)."""
        return math.log((1 - self.beta) / self.alpha)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def llr(samples: Sequence[float], delta0: float, delta1: float) -> float:
    """The generalized log-likelihood ratio of H1 (mean ``delta1``) to H0 (mean ``delta0``).

    Normal model, the variance estimated from the samples (see the module
    docs); 0 with fewer than four samples.

    >>> llr([1.0, -1.0, 0.5, -0.5], 0.0, 0.5) < 0 < llr([1.0, 0.0, 0.5, 1.5], 0.0, 0.5)
    True
    """
    n = len(samples)
    if n < 4:
        return 0.0
    mean = math.fsum(samples) / n
    var = math.fsum((x - mean) ** 2 for x in samples) / (n - 3)
    var = max(var, _VARIANCE_FLOOR * (delta1 - delta0) ** 2)
    return n * (delta1 - delta0) * (2 * mean - delta0 - delta1) / (2 * var)


@dataclasses.dataclass(frozen=True, slots=True)
class SprtStatus:
    """Where a sequential test stands after ``sets`` samples."""

    sets: int
    llr: float
    lower: float
    upper: float
    #: ``H1``, ``H0`` or ``none``.
    decision: str

    def line(self) -> str:
        """For the progress line: ``LLR 1.23 (-2.94, 2.94)``, and the decision once made."""
        value = f"{self.llr:.2f}" if abs(self.llr) < 1e4 else f"{self.llr:.3g}"
        text = f"LLR {value} ({self.lower:.2f}, {self.upper:.2f})"
        return text if self.decision == "none" else f"{text} {self.decision} accepted"

    def to_dict(self) -> dict[str, Any]:
        return {
            "sets": self.sets,
            "llr": round(self.llr, 4),
            "lower": round(self.lower, 4),
            "upper": round(self.upper, 4),
            "decision": self.decision,
        }


def sprt_status(samples: Sequence[float], settings: SprtSettings) -> SprtStatus:
    """The test on ``samples`` taken as one batch: its LLR and decision now."""
    value = llr(samples, settings.delta0, settings.delta1)
    decision = "none"
    if len(samples) >= settings.min_sets:
        if value >= settings.upper:
            decision = "H1"
        elif value <= settings.lower:
            decision = "H0"
    return SprtStatus(len(samples), value, settings.lower, settings.upper, decision)


def first_decision(samples: Sequence[float], settings: SprtSettings) -> SprtStatus:
    """The sequential test over ``samples`` in order: the status at its stopping point.

    The first prefix at which a bound is crossed, or the whole sequence
    without a decision. The LLR is recomputed from the prefix at every step,
    as the live test does after every completed set.
    """
    status = sprt_status(samples[:0], settings)
    for n in range(max(1, settings.min_sets), len(samples) + 1):
        status = sprt_status(samples[:n], settings)
        if status.decision != "none":
            return status
    return sprt_status(samples, settings)


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
