"""Fair play III, holes 1 and 2: a build that plants links in its home, and a build that hogs.

Each attack is an ordinary bot folder whose build step attacks, played in a
real tournament (``referee tournament`` as a subprocess) with the Python
heuristic sample bot as the victim (a copy in the test's folder, its
``bot.py`` marked so that it can be recognised):

- **links** (hole 1): the attacker's build replaces the paths of its
  persistent build home where the referee puts the user's settings
  (``.gitconfig``, ``.npmrc``, ``.config/go``) and its ``tmp`` with links to
  the victim's ``bot.py``, the victim's folder and a folder elsewhere. A first
  tournament lets it plant them (the organiser has no settings files yet); the
  test checks that the links are there, pointing at the victim. A second
  tournament, the organiser now with settings files (an ``.npmrc`` with a
  token among them), builds in the same home: the victim's files must be
  unchanged, the folder elsewhere empty, the token unseen by the build, the
  victim must play with no start fault, and the standings must be those of a
  control tournament in which the attacker's build plants nothing.
- **hog** (hole 2): one build allocates 600 MiB, another forks 60
  processes, while an honest bot's build runs at the same time. The hog fails
  with ``build_failed`` naming the limit it reached; the honest build, which
  overlapped it, succeeds and its bot plays with no fault.

The build homes live under a ``XDG_CACHE_HOME`` of the test's own.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import re
import secrets
import shutil
import subprocess
import sys
from typing import Any

import pytest

from tests.helpers import require_cgroups, require_sandbox

pytestmark = pytest.mark.slow

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEURISTIC = ROOT / "sample_bots" / "python" / "heuristic" / "bot.py"
MIB = 1 << 20

# The attacker's build step (build.py in its folder): plants links where the referee
# puts the user's settings and the build's tmp, and says what it sees.
PLANT = r"""
import json, os, pathlib, shutil, sys
config = json.loads(pathlib.Path("attack.json").read_text())
home = pathlib.Path.home()
print("SEES-NPMRC:", (home / ".npmrc").read_text() if (home / ".npmrc").is_file() else "-")
print("SEES-ENV:", sorted(k for k in os.environ if "token" in k.lower()))
if not config["plant"]:
    sys.exit(0)
links = {
    ".gitconfig": config["victim_bot"],
    ".npmrc": config["victim_yaml"],
    ".config/go": config["victim_folder"],
    "tmp": config["elsewhere"],
}
for relative, target in links.items():
    path = home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
        path.symlink_to(target)
        print("PLANTED", relative, "->", target)
    except OSError as error:  # a settings file bound read-only over it: busy
        print("COULD NOT PLANT", relative, error)
"""

#: The hog waits this long before hogging, and the honest build takes twice as long: the
#: honest build runs while the other hogs, with seconds of margin either side.
HOG_AFTER_S = 3.0
HONEST_BUILD_S = 2 * HOG_AFTER_S

# A hog build: memory or processes, after a moment (so that the other build runs too).
HOG = r"""
import os, sys, time
print("START", time.time(), flush=True)
time.sleep(HOG_AFTER_S)
if sys.argv[1] == "memory":
    chunks = []
    for _ in range(600):
        chunks.append(bytearray(MIB))
        chunks[-1][::4096] = b"x" * len(chunks[-1][::4096])
    print("ALLOCATED 600 MiB", flush=True)
else:
    for n in range(60):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
    print("FORKED 60", flush=True)
time.sleep(5)
""".replace("MIB", str(MIB)).replace("HOG_AFTER_S", str(HOG_AFTER_S))

# An honest build that takes a few seconds and leaves the file its bot needs.
HONEST_BUILD = r"""
import pathlib, time
print("START", time.time(), flush=True)
time.sleep(HONEST_BUILD_S)
pathlib.Path("built.txt").write_text("built\n")
print("END", time.time(), flush=True)
""".replace("HONEST_BUILD_S", str(HONEST_BUILD_S))


def _bot_folder(
    base: pathlib.Path, name: str, *, build: str | None = None, needs_build: bool = False
) -> pathlib.Path:
    """A copy of the heuristic sample bot named ``name``, with a build step if given."""
    folder = base / name
    folder.mkdir(parents=True)
    source = HEURISTIC.read_text().replace('name = "heuristic-py"', f'name = "{name}"')
    marker = f"MARKER-{secrets.token_hex(6)}"
    source = source.replace(
        "from referee.botkit import", f'MARKER = "{marker}"\n\nfrom referee.botkit import', 1
    )
    if needs_build:  # a bot that cannot start without its build's output
        source = source.replace(
            "from referee.botkit import",
            'import pathlib as _p\n_p.Path("built.txt").read_text()\n\nfrom referee.botkit import',
            1,
        )
    (folder / "bot.py").write_text(source)
    manifest = f'name: {name}\nversion: 1.0.0\nlanguage: Python\nrun: "{{python}} bot.py --address {{address}}"\n'
    if build:
        manifest += f'build: "{build}"\n'
    (folder / "bot.yaml").write_text(manifest)
    return folder


def _config(folder: pathlib.Path, bots: dict[str, str], extra: str = "") -> pathlib.Path:
    lines = ["name: builds", "seed: 2026", "bots:"]
    lines += [f"  {name}: {bot}" for name, bot in bots.items()]
    lines += [
        # Short games, one process per bot for the run: the attacks are in the builds.
        "rules: {target_score: 15}",
        "schedule: {deal_sets: 1}",
        "time_control: {move_time_ms: 30000, notify_timeout_ms: 10000}",
        "bot_processes: shared",
        "bot_lifetime: run",
        "concurrency: 1",
    ]
    path = folder / "t.yaml"
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def _play(
    config: pathlib.Path, out: pathlib.Path, key: pathlib.Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "referee.cli", "tournament", str(config), "--out", str(out)]
    args += ["-q", "--format", "json", "--key-file", str(key)]
    return subprocess.run(
        args,
        cwd=config.parent,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _rows(out: pathlib.Path) -> dict[str, dict[str, Any]]:
    return {row["bot"]: row for row in json.loads((out / "standings.json").read_text())["bots"]}


def _comparable(out: pathlib.Path) -> list[dict[str, Any]]:
    """The standings rows without what differs between runs (timings, notes)."""
    drop = ("ms_per_decision", "notes", "reason")
    rows = json.loads((out / "standings.json").read_text())["bots"]
    return [{k: v for k, v in r.items() if k not in drop} for r in rows]


def _tree(folder: pathlib.Path) -> dict[str, str]:
    """Every file under ``folder`` with its hash (links by their target)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            out[str(path.relative_to(folder))] = "-> " + os.readlink(path)
        elif path.is_file():
            out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def key(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "key"
    path.write_text(secrets.token_hex(32) + "\n")
    path.chmod(0o600)
    return path


def _links_tournament(
    base: pathlib.Path, *, plant: bool, victim: pathlib.Path, elsewhere: pathlib.Path
) -> pathlib.Path:
    """The tournament folder of the links attack: the attacker, the victim, two built-ins."""
    base.mkdir(parents=True, exist_ok=True)
    attacker = _bot_folder(base, "attacker", build="python3 build.py")
    (attacker / "build.py").write_text(PLANT)
    attack = {
        "plant": plant,
        "victim_bot": str(victim / "bot.py"),
        "victim_yaml": str(victim / "bot.yaml"),
        "victim_folder": str(victim),
        "elsewhere": str(elsewhere),
    }
    (attacker / "attack.json").write_text(json.dumps(attack))
    bots = {
        "attacker": "attacker",
        "victim": str(victim),
        "random": "random",
        "heuristic": "heuristic",
    }
    return _config(base, bots)


def _organiser_home(folder: pathlib.Path, token: str) -> pathlib.Path:
    """A HOME with the settings files the referee shows a build (an npm token among them)."""
    (folder / ".config" / "go").mkdir(parents=True)
    (folder / ".gitconfig").write_text("[user]\n\tname = Organiser\n")
    (folder / ".config" / "go" / "env").write_text("GOFLAGS=-mod=mod\n")
    (folder / ".npmrc").write_text(
        f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={token}\n"
    )
    return folder


def test_links_planted_in_a_build_home_are_never_followed(
    tmp_path: pathlib.Path, key: pathlib.Path
) -> None:
    require_sandbox()
    victim = _bot_folder(tmp_path / "victims", "victim")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim_files = _tree(victim)
    token = f"npm_TOKEN{secrets.token_hex(8)}"
    settings_home = _organiser_home(tmp_path / "organiser", token)
    empty_home = tmp_path / "empty-home"
    empty_home.mkdir()
    # The referee's Python and packages live outside HOME here (a test may not assume so).
    cache = tmp_path / "cache"
    homes = cache / "hearts-referee" / "build-homes"

    control_config = _links_tournament(
        tmp_path / "control", plant=False, victim=victim, elsewhere=elsewhere
    )
    control = _play(
        control_config,
        tmp_path / "control-out",
        key,
        {"HOME": str(settings_home), "XDG_CACHE_HOME": str(tmp_path / "control-cache")},
    )
    assert control.returncode == 0, control.stderr[-3000:]

    # 1. The attacker plants its links (no settings file yet: nothing is bound over them).
    config = _links_tournament(tmp_path / "attack", plant=True, victim=victim, elsewhere=elsewhere)
    first = _play(
        config, tmp_path / "out-1", key, {"HOME": str(empty_home), "XDG_CACHE_HOME": str(cache)}
    )
    assert first.returncode == 0, first.stderr[-3000:]
    home = homes / "attacker"
    planted = {
        ".gitconfig": victim / "bot.py",
        ".npmrc": victim / "bot.yaml",
        ".config/go": victim,
        "tmp": elsewhere,
    }
    for relative, target in planted.items():
        assert (home / relative).is_symlink(), (relative, (tmp_path / "out-1" / "builds").iterdir())
        assert pathlib.Path(os.readlink(home / relative)) == target, relative

    # 2. The organiser now has settings files; the referee builds in the same home.
    second = _play(
        config, tmp_path / "out-2", key, {"HOME": str(settings_home), "XDG_CACHE_HOME": str(cache)}
    )
    log = (tmp_path / "out-2" / "builds" / "attacker.build.log").read_text()
    assert second.returncode == 0, second.stderr[-3000:] + log
    # Nothing of the victim changed, nothing was written elsewhere.
    assert _tree(victim) == victim_files, log
    assert not list(elsewhere.iterdir()), log
    # The referee replaced the links in the attacker's own home, and said so.
    for relative in (".gitconfig", ".npmrc", ".config/go", "tmp"):
        assert f"build home: {relative}: a symbolic link, replaced by a" in log, (relative, log)
    assert not any((home / r).is_symlink() for r in (".gitconfig", ".npmrc", ".config/go"))
    # The settings reached the build read-only, the npm token did not.
    assert "SEES-NPMRC: registry=https://registry.npmjs.org/" in log, log
    assert token not in log and token not in second.stdout + second.stderr
    assert "~/.npmrc: shown without 1 credential line(s)" in log, log
    # The victim played every game with no fault, and the results are the control's.
    rows = _rows(tmp_path / "out-2")
    assert rows["victim"]["status"] == "ok" and rows["victim"]["faults"] == {}, rows["victim"]
    assert all(row["faults"] == {} for row in rows.values()), rows
    assert _comparable(tmp_path / "out-2") == _comparable(tmp_path / "control-out")


@pytest.mark.parametrize("hog", ["memory", "processes"])
def test_a_hog_build_fails_at_its_limit_and_the_other_build_is_unaffected(
    tmp_path: pathlib.Path, key: pathlib.Path, hog: str
) -> None:
    require_sandbox()
    require_cgroups()
    base = tmp_path / "t"
    hogger = _bot_folder(base, "hog", build=f"python3 hog.py {hog}")
    (hogger / "hog.py").write_text(HOG)
    honest = _bot_folder(base, "honest", build="python3 build.py", needs_build=True)
    (honest / "build.py").write_text(HONEST_BUILD)
    bots = {
        "hog": "hog",
        "honest": "honest",
        "random": "random",
        "heuristic": "heuristic",
        "random2": "random",
    }
    limits = "build: {parallel: 2, limits: {memory_bytes: 400M, processes: 48}}\n"
    run = _play(
        _config(base, bots, limits),
        tmp_path / "out",
        key,
        {"XDG_CACHE_HOME": str(tmp_path / "cache")},
    )
    builds = tmp_path / "out" / "builds"
    hog_log = (builds / "hog.build.log").read_text()
    honest_log = (builds / "honest.build.log").read_text()
    assert run.returncode == 0, run.stderr[-3000:] + hog_log + honest_log
    # The hog was stopped at its limit, and the reason names it.
    rows = _rows(tmp_path / "out")
    key_name = "memory_bytes" if hog == "memory" else "processes"
    expected = f"{'memory' if hog == 'memory' else 'process'} limit (build.limits.{key_name}"
    assert rows["hog"]["status"] == "build_failed", rows["hog"]
    assert expected in rows["hog"]["reason"], rows["hog"]
    assert hog_log.rstrip().splitlines()[-1].startswith(f"build failed: {expected}"), hog_log
    assert ("ALLOCATED" if hog == "memory" else "FORKED 60") not in hog_log, hog_log
    # The honest build ran at the same time, succeeded, and its bot played every game.
    hog_start = float(re.search(r"^START (\S+)", hog_log, re.M).group(1))  # type: ignore[union-attr]
    honest_start = float(re.search(r"^START (\S+)", honest_log, re.M).group(1))  # type: ignore[union-attr]
    honest_end = float(re.search(r"^END (\S+)", honest_log, re.M).group(1))  # type: ignore[union-attr]
    assert honest_start < hog_start + HOG_AFTER_S < honest_end, (hog_log, honest_log)
    assert rows["honest"]["status"] == "ok" and rows["honest"]["faults"] == {}, rows["honest"]
    assert rows["honest"]["games"] > 0, rows["honest"]
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)


# A build that tries to write outside its folder, home and /tmp: into the sandbox's
# root (bwrap's own tmpfs, which nothing caps but memory) and over system folders.
ROOT_WRITER = r"""
import os
for path in ("/stash.bin", "/usr/stash.bin", "/etc/stash.bin", "/opt-stash/x"):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"x" * (1 << 20))
        print("WROTE", path, flush=True)
    except OSError as e:
        print("REFUSED", path, e.errno, flush=True)
open("built.txt", "w").write("built\n")
"""


def test_a_build_writes_only_its_folder_home_and_tmp(
    tmp_path: pathlib.Path, key: pathlib.Path
) -> None:
    require_sandbox()
    base = tmp_path / "t"
    writer = _bot_folder(base, "writer", build="python3 write.py", needs_build=True)
    (writer / "write.py").write_text(ROOT_WRITER)
    bots = {"writer": "writer", "random": "random", "heuristic": "heuristic", "random2": "random"}
    run = _play(
        _config(base, bots), tmp_path / "out", key, {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    )
    log = (tmp_path / "out" / "builds" / "writer.build.log").read_text()
    assert run.returncode == 0, run.stderr[-3000:] + log
    # Every write outside the build's own places was refused, and the build went on.
    assert "WROTE" not in log, log
    assert log.count("REFUSED") == 4, log
    rows = _rows(tmp_path / "out")
    assert rows["writer"]["status"] == "ok" and rows["writer"]["faults"] == {}, rows["writer"]
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)
