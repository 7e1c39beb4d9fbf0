"""bench/referee.py's Go kit part: tournament throughput of this tree against a baseline commit.

Four Go kit bots play full games (default rules) in a tournament run by the real runner
(bench/referee_drive.py: ``Tournament(...).run()``, as ``referee tournament``
does, from a generated config, sandboxed, ``bot_processes: per_worker``), at
``concurrency`` 1 and 2. The same runs are made with the baseline's code: a
``git worktree`` of the commit in a temporary folder, whose referee the
driver imports (PYTHONPATH; it refuses to run another and prints its
``referee.__file__``). Each tree plays its own Go kit (its sample_bots/go, built
once into a temporary copy with its build.sh, whose bot.yaml then has no build
step, so that no run rebuilds it): the kit is part of a release, and its server's
options are part of what a decision costs the referee. With ``same_bots`` both
trees play this tree's kit, which measures the referee's code alone. Every run
uses the same tournament key, so both trees play the very same deals (the Go
bot's strategy is deterministic: the same games too).

The runs go old, new, then new, old, and so on (each round: concurrency 1 then
2, the side that goes first swapped each round), so that a machine getting
faster or slower favours neither; each figure is the median over the rounds
with its spread, and the ratio new / old is the ratio of the medians, with the
per-round ratios' spread.
Games per minute are counted over the runner's time of play (from the last
bot start to the last game, the rate ``referee tournament`` prints), per core:
divided by the cores this process may use (``os.sched_getaffinity``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pathlib
import secrets
import shutil
import statistics
import subprocess
import sys
import textwrap
from collections.abc import Iterable
from typing import TextIO, TypeVar

import referee

ROOT = pathlib.Path(__file__).resolve().parent.parent
DRIVER = pathlib.Path(__file__).resolve().parent / "referee_drive.py"
#: The code before issue 27's changes: the default baseline.
BASELINE = "b6c745a"
CONCURRENCIES = (1, 2)
GOAL = 1.5


def cores() -> int:
    """The cores this process (and so the referee it starts) may run on."""
    return len(os.sched_getaffinity(0))


def build_go_kit(tmp: pathlib.Path, tree: pathlib.Path, side: str) -> pathlib.Path | str:
    """A built copy of ``tree``'s sample_bots/go with no build step left, or why there is none."""
    if shutil.which("go") is None:
        return "Go is not installed (no `go` on PATH)"
    folder = tmp / f"go-kit-{side}"
    shutil.copytree(tree / "sample_bots" / "go", folder, ignore=shutil.ignore_patterns("bin"))
    try:
        subprocess.run(
            ["./build.sh"], cwd=folder, check=True, capture_output=True, text=True, timeout=600
        )
    except subprocess.CalledProcessError as error:
        return f"the Go kit's build.sh failed: {(error.stderr or error.stdout).strip()[-500:]}"
    except subprocess.TimeoutExpired:
        return "the Go kit's build.sh took over 10 minutes"
    manifest = folder / "bot.yaml"
    lines = manifest.read_text().splitlines()
    manifest.write_text("".join(f"{x}\n" for x in lines if not x.startswith("build:")))
    return folder


def write_key(tmp: pathlib.Path) -> str:
    """A new tournament key file, the same for every run: the same deals in each."""
    key = tmp / "go-kit.key"
    key.write_text(secrets.token_hex(32) + "\n")
    key.chmod(0o600)
    return str(key)


def write_config(
    tmp: pathlib.Path, kit: pathlib.Path, side: str, games: int, lifetime: str | None
) -> pathlib.Path:
    """The tournament config of one side: four of its Go bots at one table."""
    deal_sets = max(1, math.ceil(games / 4))  # duplicate: 4 games (seatings) per deal set
    config = tmp / f"go-kit-{side}.yaml"
    config.write_text(
        textwrap.dedent(
            f"""\
            name: bench-go-kit
            seed: 27
            bots: {{go1: {kit}, go2: {kit}, go3: {kit}, go4: {kit}}}
            schedule: {{deal_sets: {deal_sets}}}
            # Longer than the default, so that a loaded machine's delays are not timeouts.
            time_control: {{move_time_ms: 2000}}
            """
        )
        + (f"bot_lifetime: {lifetime}\n" if lifetime else "")
    )
    return config


class Baseline:
    """A ``git worktree`` of a commit in ``folder``, removed by :meth:`close`."""

    def __init__(self, commit: str, folder: pathlib.Path) -> None:
        self.folder = folder
        self.added = False
        found = _git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
        if found.returncode:
            raise SystemExit(f"--baseline {commit}: no such commit in {ROOT}")
        self.commit = found.stdout.strip()
        title = _git("log", "-1", "--format=%h %s", self.commit).stdout.strip()
        self.title = title if len(title) <= 60 else title[:59] + "…"
        added = _git("worktree", "add", "--detach", "--quiet", str(folder), self.commit)
        if added.returncode:
            raise SystemExit(f"git worktree add {commit} failed: {added.stderr.strip()}")
        self.added = True

    def close(self) -> None:
        if self.added:
            _git("worktree", "remove", "--force", str(self.folder))
            self.added = False
        shutil.rmtree(self.folder, ignore_errors=True)
        _git("worktree", "prune")


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def drive(
    tree: pathlib.Path, config: pathlib.Path, key: str, concurrency: int, out: pathlib.Path
) -> dict:
    """One tournament run with the referee of ``tree``; its figures (see referee_drive.py)."""
    # The environment as the user gave it: bench/referee.py may have set GRPC_EXPERIMENTS,
    # and each tree's driver chooses its grpcio client itself (the baseline's knows nothing
    # of it).
    env = {**referee.environ_as_found(), "PYTHONPATH": str(tree)}
    args = [sys.executable, str(DRIVER), str(config), str(out), key, str(concurrency), str(tree)]
    process = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        stdout, stderr = process.communicate(timeout=1800)
    except BaseException:  # Ctrl-C (the driver gets it too and stops its tournament) or a hang
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        raise
    finally:
        shutil.rmtree(out, ignore_errors=True)
    if process.returncode:
        tail = stderr.decode(errors="replace").strip()[-1500:]
        raise SystemExit(f"the tournament run with {tree}'s referee failed:\n{tail}")
    figures = json.loads(stdout.decode().strip().splitlines()[-1])
    figures["per_core"] = figures["games"] / figures["play_s"] * 60 / cores()
    figures["referee_ms"] = figures["referee_cpu_s"] * 1000 / figures["decisions"]
    figures["all_ms"] = figures["all_cpu_s"] * 1000 / figures["decisions"]
    figures["bots_ms"] = figures["bots_cpu_s"] * 1000 / figures["decisions"]
    return figures


@dataclasses.dataclass
class Side:
    """One tree's runs at one concurrency."""

    runs: list[dict] = dataclasses.field(default_factory=list)

    def median(self, key: str) -> float:
        return statistics.median(r[key] for r in self.runs)

    def spread(self, key: str, digits: int = 1) -> str:
        values = [r[key] for r in self.runs]
        return f"{min(values):.{digits}f}..{max(values):.{digits}f}"


@dataclasses.dataclass
class GoFigures:
    """The Go kit part's results, or why it was skipped."""

    skipped: str = ""
    baseline: str = ""
    files: dict[str, str] = dataclasses.field(default_factory=dict)
    games: int = 0
    lifetime: str = "game"
    #: Both trees played this tree's Go kit (else each its own).
    same_bots: bool = False
    new: dict[int, Side] = dataclasses.field(default_factory=dict)
    old: dict[int, Side] = dataclasses.field(default_factory=dict)

    def ratio(self, concurrency: int) -> float:
        return self.new[concurrency].median("per_core") / self.old[concurrency].median("per_core")

    def round_ratios(self, concurrency: int) -> list[float]:
        pairs = zip(self.new[concurrency].runs, self.old[concurrency].runs, strict=True)
        return [n["per_core"] / o["per_core"] for n, o in pairs]

    def report(self) -> list[str]:
        """The part's lines for the summary (each figure beside the baseline's)."""
        if self.skipped:
            return [f"  Go kit throughput: skipped: {self.skipped}"]
        runs = next(iter(self.new.values())).runs
        first = runs[0]
        lines = [
            f"  Go kit throughput: 4 launched Go bots (sandboxed, bot_lifetime {self.lifetime}),"
            f" {self.games} games a run (~{first['decisions'] // first['games']} decisions a "
            f"game), {len(runs)} round(s) of old and new, in turn first; "
            f"per core = / {cores()} cores (os.sched_getaffinity); baseline {self.baseline}; "
            + ("both with this tree's Go kit" if self.same_bots else "each with its own Go kit")
        ]
        counts = {r["decisions"] for s in [*self.new.values(), *self.old.values()] for r in s.runs}
        lines.append(
            f"    the same games in every run: {first['decisions']} decisions each"
            if len(counts) == 1
            else f"    NOT the same games in every run: {min(counts)}..{max(counts)} decisions"
        )
        for concurrency in self.new:
            new, old = self.new[concurrency], self.old[concurrency]
            ratio, ratios = self.ratio(concurrency), self.round_ratios(concurrency)
            faults = sum(r["faults"] for r in new.runs + old.runs)
            lines.append(
                f"    concurrency {concurrency}: games/min/core {new.median('per_core'):.1f} "
                f"({new.spread('per_core')}) vs baseline {old.median('per_core'):.1f} "
                f"({old.spread('per_core')}): {ratio:.2f}x "
                f"(rounds {min(ratios):.2f}..{max(ratios):.2f}) "
                f"[>= {GOAL}x: {'met' if ratio >= GOAL else 'NOT met'}]"
            )
            lines.append(
                f"      CPU per decision: the referee (its process and game workers) "
                f"{new.median('referee_ms'):.3f} ms vs baseline {old.median('referee_ms'):.3f} ms;"
                f" everything (the referee's process tree with the supervisors, and the bots'"
                f" cgroups) {new.median('all_ms'):.3f} vs {old.median('all_ms'):.3f} ms, of which"
                f" the bots' cgroups {new.median('bots_ms'):.3f} vs {old.median('bots_ms'):.3f} ms"
                + (f"; {faults} faults" if faults else "")
            )
        return lines


T = TypeVar("T")


def in_turn_first(items: Iterable[T], n: int) -> list[T]:
    """``items`` in their order for an odd ``n`` (round, game, start), reversed for an even one.

    ABBA: whichever goes first changes each time, so that a machine getting faster or
    slower during a run favours none of them (on the 2-core VM of issue 27's fifth round,
    the second game of a pair was the faster by several per cent, whatever it ran).
    """
    ordered = list(items)
    return ordered if n % 2 else ordered[::-1]


def go_throughput(
    tmp: pathlib.Path,
    *,
    baseline: str,
    rounds: int,
    games: int,
    lifetime: str | None = None,
    same_bots: bool = False,
    log: TextIO = sys.stderr,
) -> GoFigures:
    """Add the baseline's worktree, build the Go kits, run ABBA..., remove the worktree."""
    figures = GoFigures(
        games=4 * max(1, math.ceil(games / 4)), lifetime=lifetime or "game", same_bots=same_bots
    )
    if shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode:
        figures.skipped = f"{ROOT} is not a git checkout: no baseline to compare with"
        return figures
    worktree = Baseline(baseline, tmp / "baseline")  # a wrong commit stops before the build
    figures.baseline = worktree.title
    trees = {"old": worktree.folder, "new": ROOT}
    try:
        configs: dict[str, pathlib.Path] = {}
        kits: dict[pathlib.Path, pathlib.Path] = {}  # by the tree it is built from: once each
        for side, tree in trees.items():
            source = ROOT if same_bots else tree
            kit = kits.get(source) or build_go_kit(tmp, source, side)
            if isinstance(kit, str):
                figures.skipped = f"{side} tree: {kit}"
                return figures
            kits[source] = kit
            configs[side] = write_config(tmp, kit, side, games, lifetime)
        key = write_key(tmp)
        for n in range(1, rounds + 1):
            for concurrency in CONCURRENCIES:
                for side, tree in in_turn_first(trees.items(), n):
                    run = drive(tree, configs[side], key, concurrency, tmp / f"out-{side}")
                    figures.files.setdefault(side, run["referee_file"])
                    sides = figures.new if side == "new" else figures.old
                    sides.setdefault(concurrency, Side()).runs.append(run)
                    print(
                        f"  Go round {n}, concurrency {concurrency}, {side} "
                        f"({run['referee_file']}): {run['per_core']:.1f} games/min/core, "
                        f"referee CPU {run['referee_ms']:.3f} ms/decision, "
                        f"{run['play_s']:.1f} s of play "
                        f"({run['elapsed_s']:.1f} s in all)",
                        file=log,
                    )
    finally:
        worktree.close()
    return figures
