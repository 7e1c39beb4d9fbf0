#!/usr/bin/env python3
"""The gauntlet's SPRT on real Hearts sets: error rates and sets to a decision.

    python bench/sprt_games.py [--runs 200] [--p 0.1] [--jobs 2] [--model robust]

(bench/sprt.py is the harness of record: synthetic set distributions, 4,000
runs each, both models. This one draws the sets from real games.)

The subjects are the built-in heuristic bot handicapped: with probability
``p`` a decision plays a random legal card instead (seeded by the game and
decision ids, so a game is reproducible). The opponents are three built-in
heuristics. Every run is a full gauntlet on its own key (fresh deals): the
schedule of ``referee.schedule.GauntletScheduler``, each
game played in-process on the engine (``GameState`` and the built-in
players, without the match runner's log: about six times faster than
``referee.match.runner.play_game``; ``--play-game`` uses it), each result fed to
the ``GauntletTracker`` the referee uses, which stops at its first decision.

1. **Calibration**: ``--calibrate-sets`` paired sets of the H1 pair
   (candidate handicapped ``--p-candidate``, baseline ``--p``) estimate the
   true mean paired difference and its standard deviation; ``delta1`` is set
   to that mean (unless ``--delta1`` is given), ``delta0`` is 0.
2. **H0 runs** (``--runs``): candidate and baseline both handicapped with
   ``--p``; the true mean is 0 = delta0 by symmetry. An H1 acceptance is a
   false positive; the rate should be at most alpha (plus sampling error).
3. **H1 runs** (``--runs``): the calibrated pair, true mean = delta1 (up to
   the calibration's error). An H0 acceptance is a false negative; the rate
   should be at most beta.

Prints, per side, the decisions, the error rate with its 95% (Wilson)
interval, the mean and quantiles of the sets to a decision; ``--json``
writes them. Results of a run are in docs/sprt.md.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import pathlib
import random
import statistics
import sys
import tempfile
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.engine import GameState, Rules  # noqa: E402
from referee.engine.state import Phase  # noqa: E402
from referee.match.runner import GameSpec, play_game  # noqa: E402
from referee.players import builtin_player  # noqa: E402
from referee.players.builtin import HeuristicPlayer  # noqa: E402
from referee.schedule import GauntletScheduler  # noqa: E402
from referee.stats.sprt import SequentialTest, SprtSettings, fixed_summary  # noqa: E402
from referee.tournament.gauntlet_config import GauntletConfig  # noqa: E402
from referee.tournament.gauntlet_tracker import GauntletTracker  # noqa: E402


class HandicappedHeuristic(HeuristicPlayer):
    """The built-in heuristic that plays a random legal card with probability ``p``."""

    def __init__(self, p: float, salt: str) -> None:
        super().__init__()
        self.p = p
        self.salt = salt

    def play_card(self, game_id, view, decision_id, deadline):  # type: ignore[no-untyped-def]
        rng = random.Random(f"handicap/{self.salt}/{game_id}/{decision_id}")
        if rng.random() < self.p:
            legal = [c for c in range(52) if view.legal_moves >> c & 1]
            return rng.choice(legal)
        return super().play_card(game_id, view, decision_id, deadline)


def fast_game(rules: Rules, seed: str, game_id: str, players: list[Any]) -> dict[str, Any]:
    """One game on the engine alone: hand scores and placements."""
    state = GameState.new(rules, seed)
    while not state.is_over:
        if state.phase is Phase.PASSING:
            for s in state.to_act():
                decision = f"p{state.hand_number}-{s}"
                state.pass_cards(s, players[s].pass_cards(game_id, state.view(s), decision, None))
        elif state.phase is Phase.PLAYING:
            s = state.current
            decision = f"{state.hand_number}-{state.trick_number}-{s}"
            state.play(players[s].play_card(game_id, state.view(s), decision, None))
        else:
            raise RuntimeError(f"the simulation plays the standard rules, not {state.phase}")
    assert state.outcome is not None
    return {
        "hand_scores": [list(h.scores) for h in state.hand_results],
        "placements": list(state.outcome.placements),
    }


def runner_game(rules: Rules, seed: str, game_id: str, players: list[Any]) -> dict[str, Any]:
    """One game through referee.match.runner.play_game (the match runner, with its log)."""
    with tempfile.TemporaryDirectory() as folder:
        record = play_game(
            GameSpec(game_id=game_id, seed=seed, bots=("a", "b", "c", "d"), rules=rules),
            players,
            pathlib.Path(folder) / "game.jsonl",
        )
    return {
        "hand_scores": [list(h) for h in record.hand_scores],
        "placements": list(record.placements),
    }


def one_run(job: dict[str, Any]) -> dict[str, Any]:
    """One gauntlet to its decision (or ``max_sets``); job: run, side, p's, settings."""
    settings = SprtSettings.from_dict(job["sprt"])
    gauntlet = GauntletConfig(
        candidate="cand",
        baselines=("base",),
        opponents=("o1", "o2", "o3"),
        test=job.get("test", "sprt"),
        sprt=settings,
    )
    key = (f"{job['side']}/{job['run']}/{job['seed']}".encode() * 32)[:32]
    scheduler = GauntletScheduler(gauntlet, deal_sets=job["max_sets"], seed=job["run"])
    schedule = scheduler.schedule(key)
    players = {
        "cand": HandicappedHeuristic(job["p_candidate"], "cand"),
        "base": HandicappedHeuristic(job["p_baseline"], "base"),
        "o1": builtin_player("heuristic"),
        "o2": builtin_player("heuristic"),
        "o3": builtin_player("heuristic"),
    }
    play = runner_game if job.get("play_game") else fast_game
    tracker = GauntletTracker.of(gauntlet, scheduler)
    rules = Rules()
    for game in schedule.games:
        result = play(rules, game.seed, game.game_id, [players[b] for b in game.bots])
        entry = {"type": "game", "game_id": game.game_id, "bots": list(game.bots), **result}
        entry["meta"] = game.meta()
        tracker.add(entry)
        if tracker.decided:
            break
    stop = tracker.stops.get("base")
    samples = tracker.samples["base"]["points"]
    return {
        "side": job["side"],
        "run": job["run"],
        "decision": stop.decision if stop else "none",
        "sets": stop.sets if stop else len(samples),
        "samples": samples if job.get("keep_samples") else None,
    }


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    z = 1.959964
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarize(results: list[dict[str, Any]], error: str) -> dict[str, Any]:
    decisions = [r["decision"] for r in results]
    sets = [r["sets"] for r in results if r["decision"] != "none"]
    k, n = decisions.count(error), len(results)
    quantiles = statistics.quantiles(sets, n=10) if len(sets) >= 2 else []
    return {
        "runs": n,
        "H1": decisions.count("H1"),
        "H0": decisions.count("H0"),
        "none": decisions.count("none"),
        "error": error,
        "error_rate": k / n if n else None,
        "error_rate_ci95": list(wilson(k, n)),
        "mean_sets": statistics.fmean(sets) if sets else None,
        "median_sets": statistics.median(sets) if sets else None,
        "p10_p90_sets": [quantiles[0], quantiles[-1]] if quantiles else None,
        "max_sets": max(sets) if sets else None,
    }


def resampled_run(pool: list[float], settings: SprtSettings, max_sets: int, rng: random.Random):
    """One SPRT (referee.stats.sprt's own) on sets drawn with replacement from ``pool``."""
    test = SequentialTest(settings)
    for n in range(1, max_sets + 1):
        decision = test.add(rng.choice(pool))
        if decision != "none":
            return decision, n
    return "none", max_sets


def play_pool(
    executor, base: dict[str, Any], side: str, p_c: float, p_b: float, sets: int, jobs: int
) -> list[float]:
    """``sets`` paired sets of real games (fixed length), split over the jobs."""
    chunks = [sets // jobs + (i < sets % jobs) for i in range(jobs)]
    work = [
        {
            **base,
            "side": side,
            "run": i,
            "p_candidate": p_c,
            "p_baseline": p_b,
            "max_sets": c,
            "test": "fixed",
            "keep_samples": True,
            "sprt": {"delta0": 0.0, "delta1": 1.0},
        }
        for i, c in enumerate(chunks)
        if c
    ]
    return [x for r in executor.map(one_run, work) for x in r["samples"]]


def describe(name: str, samples: list[float]) -> dict[str, Any]:
    f = fixed_summary(samples)
    assert f.mean is not None and f.ci95 is not None and f.sd is not None
    print(
        f"{name}: {f.sets} real paired sets: mean {f.mean:+.3f} pts/hand "
        f"[{f.ci95[0]:+.3f}, {f.ci95[1]:+.3f}], sd per set {f.sd:.3f}",
        flush=True,
    )
    return {"sets": f.sets, "mean": f.mean, "sd": f.sd, "ci95": list(f.ci95)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["pool", "live"], default="pool")
    parser.add_argument("--runs", type=int, default=1000, help="SPRT runs on each side")
    parser.add_argument("--p", type=float, default=0.1, help="the baseline's handicap")
    parser.add_argument("--p-candidate", type=float, default=0.02, help="the H1 candidate's")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--delta1", type=float, default=None, help="default: calibrated")
    parser.add_argument("--min-sets", type=int, default=SprtSettings().min_sets)
    parser.add_argument("--model", choices=["robust", "normal"], default="robust")
    parser.add_argument("--max-sets", type=int, default=1000)
    parser.add_argument("--pool-sets", type=int, default=500, help="real sets per side (pool)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--play-game", action="store_true", help="play through play_game")
    parser.add_argument("--json", type=pathlib.Path, default=None)
    parser.add_argument(
        "--pools",
        type=pathlib.Path,
        default=None,
        help="pool mode: read (if it exists) or write the played sets here",
    )
    args = parser.parse_args()
    started = time.monotonic()
    executor = concurrent.futures.ProcessPoolExecutor(args.jobs)
    base = {"seed": args.seed, "play_game": args.play_game, "min_sets": args.min_sets}

    # The real paired sets: H0 pair (same handicap) and H1 pair (less handicap).
    if args.pools and args.pools.exists():
        pools = json.loads(args.pools.read_text())
    else:
        pools = {
            "H0": play_pool(executor, base, "pool-H0", args.p, args.p, args.pool_sets, args.jobs),
            "H1": play_pool(
                executor, base, "pool-H1", args.p_candidate, args.p, args.pool_sets, args.jobs
            ),
        }
        if args.pools:
            args.pools.write_text(json.dumps(pools) + "\n")
    h0_real = describe(f"H0 pair (p={args.p} vs p={args.p})", pools["H0"])
    h1_real = describe(f"H1 pair (p={args.p_candidate} vs p={args.p})", pools["H1"])
    delta1 = args.delta1 if args.delta1 is not None else round(h1_real["mean"], 3)
    settings = SprtSettings(
        delta0=0.0,
        delta1=delta1,
        alpha=args.alpha,
        beta=args.beta,
        min_sets=args.min_sets,
        model=args.model,
    )
    print(f"delta0 = 0, delta1 = {delta1} (effect {delta1 / h1_real['sd']:.2f} sd per set)")
    results: dict[str, list[dict[str, Any]]] = {"H0": [], "H1": []}
    if args.mode == "pool":
        # The H0 pool centred on 0 (its true mean, by symmetry); the H1 pool's mean is delta1.
        centred = [x - h0_real["mean"] for x in pools["H0"]]
        shift = delta1 - h1_real["mean"]
        drawn = {"H0": centred, "H1": [x + shift for x in pools["H1"]]}
        rng = random.Random(args.seed)
        for side in ("H0", "H1"):
            for run in range(args.runs):
                decision, sets = resampled_run(drawn[side], settings, args.max_sets, rng)
                results[side].append({"side": side, "run": run, "decision": decision, "sets": sets})
    else:
        jobs = []
        sprt = settings.to_dict()
        for run in range(args.runs):
            for side, p_c in (("H0", args.p), ("H1", args.p_candidate)):
                jobs.append(
                    {
                        **base,
                        "side": side,
                        "run": run,
                        "p_candidate": p_c,
                        "p_baseline": args.p,
                        "max_sets": args.max_sets,
                        "sprt": sprt,
                    }
                )
        for i, result in enumerate(executor.map(one_run, jobs, chunksize=2), start=1):
            results[result["side"]].append(result)
            if i % 20 == 0:
                h0, h1 = results["H0"], results["H1"]
                fp = sum(r["decision"] == "H1" for r in h0)
                fn = sum(r["decision"] == "H0" for r in h1)
                print(
                    f"  {i}/{len(jobs)} runs, {time.monotonic() - started:.0f} s: "
                    f"false positives {fp}/{len(h0)}, false negatives {fn}/{len(h1)}",
                    flush=True,
                )
    executor.shutdown()
    report = {
        "mode": args.mode,
        "sprt": settings.to_dict(),
        "p_baseline": args.p,
        "p_candidate": args.p_candidate,
        "pool_H0": h0_real,
        "pool_H1": h1_real,
        "H0_true": summarize(results["H0"], "H1"),
        "H1_true": summarize(results["H1"], "H0"),
        "elapsed_s": round(time.monotonic() - started, 1),
        "engine": "play_game" if args.play_game else "engine loop",
    }
    for side, label, bound in (
        ("H0_true", "false positives", "alpha"),
        ("H1_true", "false negatives", "beta"),
    ):
        s = report[side]
        lo, hi = s["error_rate_ci95"]
        print(
            f"{side}: {s['runs']} runs: H1 {s['H1']}, H0 {s['H0']}, none {s['none']}; "
            f"{label} {s['error_rate']:.3f} [{lo:.3f}, {hi:.3f}] ({bound} = "
            f"{getattr(settings, bound)}); sets to a decision: mean {s['mean_sets']:.1f}, "
            f"median {s['median_sets']}, 10%-90% {s['p10_p90_sets']}, max {s['max_sets']}"
        )
    print(f"{report['elapsed_s']} s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
