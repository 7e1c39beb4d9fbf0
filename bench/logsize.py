"""Benchmark: the size of a game's log before and after compression, and what reading costs.

A script, not a test. It plays a tournament of built-in bots (5 bots, 5
tables of 4, duplicate deal sets, target 100: the games of a real
tournament) into a temporary folder, where finished logs are stored as the
referee stores them (``games/<hundred>/<id>.jsonl.gz``), and prints side by
side, per game:

- the log's bytes plain (as written while the game is played, and as every
  log was stored before) and gzip-compressed (as stored now, and MACed);
  with other gzip levels for reference, and zstd when ``zstandard`` is
  installed (it is not a dependency);
- the time to compress a log, and to replay-check it (``verify_log``) from
  the plain file and from the compressed one (so reading compressed costs
  next to nothing);
- the files per folder of ``games/``, and the extrapolation to 30,000 games.

Usage::

    python bench/logsize.py                # 100 games
    python bench/logsize.py --deal-sets 10
"""

from __future__ import annotations

import argparse
import gzip
import os
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from verify import GAMES_PER_DEAL_SET, make_folder

from referee.audit.logs import verify_log
from referee.folder import Layout
from referee.match.gamelog import COMPRESS_LEVEL, open_log


def _kb(size: float) -> str:
    return f"{size / 1000:7.1f} KB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deal-sets", type=int, default=5, help="deal sets (x20 games)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating timing rounds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-logsize-") as tmp:
        folder = make_folder(pathlib.Path(tmp), args.deal_sets, name="bench-logsize")
        logs = [path for _, path in Layout(folder).game_logs()]
        games = len(logs)
        assert games == args.deal_sets * GAMES_PER_DEAL_SET, games
        stored = [path.stat().st_size for path in logs]
        plain_copies = pathlib.Path(tmp) / "plain"
        plain_copies.mkdir()
        plain_paths = []
        for path in logs:
            with open_log(path) as handle:
                data = handle.read()
            copy = plain_copies / path.name.removesuffix(".gz")
            copy.write_bytes(data)
            plain_paths.append(copy)
        plain = [path.stat().st_size for path in plain_paths]
        texts = [path.read_bytes() for path in plain_paths]
        print(
            f"log size: {games} games of built-in bots (target 100, "
            f"{statistics.mean(len(t.splitlines()) for t in texts):.0f} lines a game); "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        print(f"  {'form':<34} {'per game':>10} {'ratio':>7} {'compress':>12}")
        mean_plain = statistics.mean(plain)
        print(f"  {'plain .jsonl (before)':<34} {_kb(mean_plain)} {1.0:6.1f}x {'-':>12}")
        levels = (1, COMPRESS_LEVEL, 9)
        sizes = {level: [len(gzip.compress(t, compresslevel=level, mtime=0)) for t in texts]
                 for level in levels}  # fmt: skip
        timings: dict[int, list[float]] = {level: [] for level in levels}
        for _ in range(args.rounds):  # alternately, so a busy moment hits them all alike
            for level in levels:
                started = time.perf_counter()
                for t in texts:
                    gzip.compress(t, compresslevel=level, mtime=0)
                timings[level].append((time.perf_counter() - started) / games * 1000)
        for level in levels:
            mark = " (stored, after)" if level == COMPRESS_LEVEL else ""
            mean = statistics.mean(sizes[level])
            ms = statistics.median(timings[level])
            print(
                f"  {f'gzip level {level}' + mark:<34} {_kb(mean)} {mean_plain / mean:6.1f}x "
                f"{ms:7.2f} ms/game"
            )
        try:
            import zstandard  # type: ignore[import-not-found]
        except ImportError:
            print(f"  {'zstd':<34} (zstandard not installed; not a dependency)")
        else:
            for level in (3, 19):
                compressor = zstandard.ZstdCompressor(level=level)
                started = time.perf_counter()
                sizes = [len(compressor.compress(t)) for t in texts]
                ms = (time.perf_counter() - started) / games * 1000
                mean = statistics.mean(sizes)
                print(
                    f"  {f'zstd level {level}':<34} {_kb(mean)} {mean_plain / mean:6.1f}x "
                    f"{ms:7.2f} ms/game"
                )
        mean_stored = statistics.mean(stored)
        print(
            f"  as stored in the folder: {_kb(mean_stored)} a game "
            f"(min {_kb(min(stored)).strip()}, max {_kb(max(stored)).strip()}); "
            f"30,000 games: {mean_plain * 30000 / 1e9:.2f} GB plain -> "
            f"{mean_stored * 30000 / 1e9:.2f} GB"
        )
        per_folder = [len(list(p.iterdir())) for p in Layout(folder).games.iterdir()]
        print(
            f"  games/ holds {len(per_folder)} folder(s) of at most {max(per_folder)} logs "
            f"(30,000 games: 300 folders of 100, not 30,000 files in one)"
        )
        reads: dict[str, list[float]] = {"plain": [], "gzip": []}
        for _ in range(args.rounds):
            for name, paths in (("plain", plain_paths), ("gzip", logs)):
                started = time.perf_counter()
                for path in paths:
                    assert verify_log(path).ok
                reads[name].append((time.perf_counter() - started) / games * 1000)
        plain_ms, gzip_ms = (statistics.median(reads[name]) for name in ("plain", "gzip"))
        print(
            f"  verify_log (median of {args.rounds} alternating rounds): from the plain file "
            f"{plain_ms:.1f} ms/game, from the gzip file {gzip_ms:.1f} ms/game "
            f"({gzip_ms / plain_ms - 1:+.0%})"
        )


if __name__ == "__main__":
    main()
