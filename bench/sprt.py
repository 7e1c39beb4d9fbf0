#!/usr/bin/env python3
"""The gauntlet's sequential test by simulation: false positives, power and sets.

    python bench/sprt.py [--runs 4000] [--jobs 2] [--effect 0.25] [--json out.json]

Every run is one sequential test, ``referee.stats.sprt.SequentialTest`` itself (the
class the gauntlet runs), fed simulated set differences until it decides or
reaches ``--max-sets``. For each set distribution, games per set (1 or 4),
true mean (delta0, midway, delta1) and model (``robust``, the default
test, and ``normal``, the test of earlier versions, in the same run), it
prints the share of H1 decisions (the false positives at delta0, the power
at delta1), the mean sets to the end of the test, and the wall time.

The set differences have standard deviation 1 (``--effect`` is
delta1 / sigma; delta0 = 0). A set of ``g`` games is the mean of ``g``
independent game differences, scaled back to sd 1, so that four games per set
keep the effect and halve the skewness. The game differences, each with mean
0 and sd 1 before the shift to the true mean:

- ``normal``;
- ``heavy``: Student's t with 5 degrees of freedom (excess kurtosis 6);
- ``skewed``: a moon against the candidate in one game in ten, on top of a
  normal spread: with probability 0.1 a loss of J sd (skewness -0.74, as in
  issue 28: the rare large loss that a short sample has not seen);
- ``moon``: moons either way: with probability 0.05 each, +-2.6 sd, else a
  narrow normal (symmetric, trimodal, excess kurtosis 3.8).

The random draws are seeded (``--seed``) per configuration, so every figure
can be reproduced; the runs of a configuration are split over ``--jobs``
worker processes.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import pathlib
import random
import sys
import time
from collections.abc import Callable
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.stats.sprt import SequentialTest, SprtSettings  # noqa: E402

DISTRIBUTIONS = ("normal", "heavy", "skewed", "moon")
#: Skewness of one game's difference in ``skewed`` and the chance of its large loss.
SKEW, SKEW_P = -0.74, 0.1
#: ``moon``: the chance of a moon either way, and the spread of the other games.
MOON_Q, MOON_INNER = 0.1, 0.6


def game_draw(kind: str) -> Callable[[random.Random], float]:
    """A draw of one game's difference with mean 0 and standard deviation 1."""
    if kind == "normal":
        return lambda r: r.gauss(0.0, 1.0)
    if kind == "heavy":
        nu = 5
        scale = math.sqrt((nu - 2) / nu)

        def heavy(r: random.Random) -> float:
            chi2 = r.gammavariate(nu / 2, 2.0)
            return r.gauss(0.0, 1.0) / math.sqrt(chi2 / nu) * scale

        return heavy
    if kind == "skewed":
        p = SKEW_P
        jump = (-SKEW / (p * (1 - p) * (1 - 2 * p))) ** (1 / 3)
        spread = math.sqrt(1 - jump * jump * p * (1 - p))

        def skewed(r: random.Random) -> float:
            loss = jump if r.random() < p else 0.0
            return p * jump - loss + spread * r.gauss(0.0, 1.0)

        return skewed
    if kind == "moon":
        q, inner = MOON_Q, MOON_INNER
        lump = math.sqrt((1 - (1 - q) * inner**2) / q)

        def moon(r: random.Random) -> float:
            u = r.random()
            if u < q / 2:
                return lump
            if u < q:
                return -lump
            return inner * r.gauss(0.0, 1.0)

        return moon
    raise ValueError(f"unknown distribution {kind!r}")


def set_draw(kind: str, games: int) -> Callable[[random.Random], float]:
    """One set's difference: the mean of ``games`` game differences, scaled to sd 1."""
    one = game_draw(kind)
    if games == 1:
        return one
    root = math.sqrt(games)
    return lambda r: sum(one(r) for _ in range(games)) / root


def moments(kind: str, games: int, draws: int = 200_000) -> tuple[float, float, float, float]:
    """Mean, sd, skewness and excess kurtosis of a set's difference, by sampling."""
    draw, r = set_draw(kind, games), random.Random(99)
    xs = [draw(r) for _ in range(draws)]
    m = sum(xs) / draws
    m2 = sum((x - m) ** 2 for x in xs) / draws
    m3 = sum((x - m) ** 3 for x in xs) / draws
    m4 = sum((x - m) ** 4 for x in xs) / draws
    return m, math.sqrt(m2), m3 / m2**1.5, m4 / m2**2 - 3


def job(task: dict[str, Any]) -> dict[str, Any]:
    """Some runs of one configuration: decisions and sets of each."""
    settings = SprtSettings.from_dict(task["settings"])
    draw = set_draw(task["kind"], task["games"])
    r = random.Random(task["seed"])
    mean, cap = task["mean"], task["max_sets"]
    decisions = {"H1": 0, "H0": 0, "none": 0}
    sets = []
    started = time.process_time()
    for _ in range(task["runs"]):
        test = SequentialTest(settings)
        decision = "none"
        for _ in range(cap):
            decision = test.add(mean + draw(r))
            if decision != "none":
                break
        decisions[decision] += 1
        sets.append(len(test.samples))
    return {**decisions, "sets": sets, "cpu_s": time.process_time() - started}


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion k/n."""
    z = 1.959964
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=4000, help="runs per configuration")
    parser.add_argument("--effect", type=float, default=0.25, help="delta1 / sigma of a set")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--min-sets", type=int, default=SprtSettings().min_sets)
    parser.add_argument("--max-sets", type=int, default=2000, help="the truncation")
    parser.add_argument("--distributions", default=",".join(DISTRIBUTIONS))
    parser.add_argument("--games", default="1,4", help="games per set")
    parser.add_argument("--models", default="robust,normal")
    parser.add_argument("--means", default="delta0,midway,delta1")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=pathlib.Path, default=None)
    args = parser.parse_args()
    kinds = args.distributions.split(",")
    per_set = [int(g) for g in args.games.split(",")]
    models = args.models.split(",")
    means = {"delta0": 0.0, "midway": args.effect / 2, "delta1": args.effect}
    chosen = args.means.split(",")
    started = time.monotonic()
    tasks = []
    for kind in kinds:
        for games in per_set:
            for label in chosen:
                for model in models:
                    settings = SprtSettings(
                        delta0=0.0,
                        delta1=args.effect,
                        alpha=args.alpha,
                        beta=args.beta,
                        min_sets=args.min_sets,
                        model=model,
                    )
                    # The same seeds for both models: they see the same sample paths.
                    seed = f"{args.seed}/{kind}/{games}/{label}"
                    chunk = -(-args.runs // args.jobs)
                    for i in range(args.jobs):
                        runs = min(chunk, args.runs - i * chunk)
                        if runs > 0:
                            tasks.append(
                                {
                                    "kind": kind,
                                    "games": games,
                                    "label": label,
                                    "model": model,
                                    "mean": means[label],
                                    "settings": settings.to_dict(),
                                    "seed": f"{seed}/{i}",
                                    "runs": runs,
                                    "max_sets": args.max_sets,
                                }
                            )
    results: dict[tuple[str, int, str, str], dict[str, Any]] = {}
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for task, out in zip(tasks, pool.map(job, tasks), strict=True):
            key = (task["kind"], task["games"], task["label"], task["model"])
            total = results.setdefault(key, {"H1": 0, "H0": 0, "none": 0, "sets": [], "cpu_s": 0})
            for field in ("H1", "H0", "none", "cpu_s"):
                total[field] += out[field]
            total["sets"] += out["sets"]
    wall = time.monotonic() - started
    print(
        f"effect delta1/sigma = {args.effect}, alpha = {args.alpha}, beta = {args.beta}, "
        f"min_sets {args.min_sets}, {args.runs} runs per configuration, truncation "
        f"{args.max_sets} sets; P(H1): false positives at delta0, power at delta1"
    )
    header = (
        f"{'distribution':<12} {'games':>5} {'skew':>6} {'kurt':>5}  {'true mean':<9} "
        f"{'model':<9} {'P(H1)':>6} {'95% interval':>15} {'mean sets':>9} {'none':>5} "
        f"{'cpu s':>6}"
    )
    print(header)
    report = []
    for kind in kinds:
        for games in per_set:
            _, _, skew, kurt = moments(kind, games, draws=100_000)
            for label in chosen:
                for model in models:
                    total = results[(kind, games, label, model)]
                    n = total["H1"] + total["H0"] + total["none"]
                    p = total["H1"] / n
                    lo, hi = wilson(total["H1"], n)
                    mean_sets = sum(total["sets"]) / n
                    print(
                        f"{kind:<12} {games:>5} {skew:>6.2f} {kurt:>5.1f}  {label:<9} "
                        f"{model:<9} {p:>6.4f} [{lo:.4f}, {hi:.4f}] {mean_sets:>9.1f} "
                        f"{total['none']:>5} {total['cpu_s']:>6.0f}",
                        flush=True,
                    )
                    report.append(
                        {
                            "distribution": kind,
                            "games_per_set": games,
                            "skewness": round(skew, 3),
                            "excess_kurtosis": round(kurt, 3),
                            "true_mean": label,
                            "model": model,
                            "runs": n,
                            "H1": total["H1"],
                            "H0": total["H0"],
                            "none": total["none"],
                            "p_h1": p,
                            "p_h1_ci95": [lo, hi],
                            "mean_sets": mean_sets,
                            "cpu_s": round(total["cpu_s"], 1),
                        }
                    )
    print(f"wall time {wall:.0f} s with {args.jobs} worker process(es)")
    if args.json:
        args.json.write_text(
            json.dumps({"args": vars(args) | {"json": str(args.json)}, "results": report}, indent=1)
            + "\n"
        )


if __name__ == "__main__":
    main()
