"""Gauntlets: the config section, the paired schedule, the tracker, and runs with built-ins."""

from __future__ import annotations

import dataclasses
import json
import pathlib

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.folder import seal
from referee.schedule import make_gauntlet_schedule
from referee.stats.sprt import SprtSettings
from referee.tournament.config import ConfigError, load_config
from referee.tournament.gauntlet import GauntletProgress, GauntletTournament
from referee.tournament.gauntlet_config import GauntletConfig
from referee.tournament.gauntlet_report import exit_code, folder_report, make_report, render_report
from referee.tournament.gauntlet_tracker import GauntletTracker, tracker_from_journal
from tests.tournament.conftest import write_config

GAUNTLET = """
    seed: 3
    bots: {new: heuristic, old: random, o1: heuristic, o2: heuristic, o3: random}
    gauntlet: {candidate: new, baseline: old}
"""


def test_config_defaults(tmp_path: pathlib.Path) -> None:
    config = load_config(write_config(tmp_path, GAUNTLET))
    g = config.gauntlet
    assert g is not None
    assert (g.candidate, g.baselines, g.opponents) == ("new", ("old",), ("o1", "o2", "o3"))
    assert (g.metric, g.test, g.sprt) == ("points", "sprt", SprtSettings())
    assert config.schedule.deal_sets == 200
    assert config.canonical()["gauntlet"]["candidate"] == "new"
    plain = load_config(
        write_config(tmp_path, "bots: {a: random, b: random, c: random, d: random}")
    )
    assert plain.gauntlet is None and "gauntlet" not in plain.canonical()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("gauntlet: {baseline: old}", "gauntlet.candidate: missing"),
        ("gauntlet: {candidate: nwe, baseline: old}", "did you mean 'new'?"),
        ("gauntlet: {candidate: new, baseline: new}", "gauntlet.baseline: 'new' is the candidate"),
        ("gauntlet: {candidate: new}", "gauntlet.baseline: missing"),
        (
            "gauntlet: {candidate: new, baseline: old, opponents: [o1, o2]}",
            "needs at least 3 opponents, got 2",
        ),
        (
            "gauntlet: {candidate: new, baseline: old, opponents: [o1, o2, new]}",
            "gauntlet.opponents: 'new' is the candidate or a baseline",
        ),
        (
            "gauntlet: {candidate: new, baseline: old, opponents: [o1, o2]}\nrules: {num_players: 3}",
            "bots.o3: not in the gauntlet",
        ),
        ("gauntlet: {candidate: new, baseline: old, sprt: {alpah: 0.1}}", "did you mean 'alpha'"),
        ("gauntlet: {candidate: new, baseline: old, sprt: {alpha: 0.5}}", "gauntlet.sprt.alpha"),
        (
            "gauntlet: {candidate: new, baseline: old, sprt: {delta0: 1, delta1: 0.5}}",
            "must be above delta0",
        ),
        ("gauntlet: {candidate: new, baseline: old, metric: elo}", "gauntlet.metric: expected"),
        (
            "gauntlet: {candidate: new, baseline: old, sprt: {model: robst}}",
            "gauntlet.sprt.model: expected one of robust, normal, got 'robst'; did you mean 'robust'?",
        ),
        ("format: gauntlet", "gauntlet: missing"),
        ("format: tournament\ngauntlet: {candidate: new, baseline: old}", "needs format: gauntlet"),
        (
            "gauntlet: {candidate: new, baseline: old}\nschedule: {max_tables: 2}",
            "schedule.max_tables: not used by a gauntlet",
        ),
    ],
)
def test_config_errors(tmp_path: pathlib.Path, text: str, message: str) -> None:
    bots = "bots: {new: heuristic, old: random, o1: heuristic, o2: heuristic, o3: random}\n"
    path = write_config(tmp_path, bots + text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value).startswith(f"{path}: ") and message in str(error.value)


def _gauntlet(baselines: tuple[str, ...] = ("old",), **kwargs: object) -> GauntletConfig:
    return GauntletConfig(
        candidate="new", baselines=baselines, opponents=("a", "b", "c", "d"), **kwargs
    )


def test_schedule_pairs_the_games() -> None:
    s = make_gauntlet_schedule(_gauntlet(("old", "older")), deal_sets=2, seed=5, key=bytes(32))
    assert len(s.tables) == 4  # C(4, 3) opponent groups
    assert len(s) == 2 * 4 * 4 * 3
    assert len({g.game_id for g in s.games}) == len(s)
    pairs: dict[str, list] = {}
    for g in s.games:
        pairs.setdefault(g.meta()["pair"], []).append(g)
    for games in pairs.values():
        assert [g.meta()["role"] for g in games] == ["candidate", "baseline", "baseline"]
        assert [g.meta()["subject"] for g in games] == ["new", "old", "older"]
        assert len({g.seed for g in games}) == 1
        seats = [g.bots.index(g.meta()["subject"]) for g in games]
        assert len(set(seats)) == 1
        others = {tuple(b for i, b in enumerate(g.bots) if i != seats[0]) for g in games}
        assert len(others) == 1  # the same opponents in the same seats
    first = [g for g in s.games if g.set_key == (1, 1) and g.meta()["role"] == "candidate"]
    assert sorted(g.bots.index("new") for g in first) == [0, 1, 2, 3]  # every seat


def _entry(game, hand_scores, placements):
    return {
        "type": "game",
        "game_id": game.game_id,
        "bots": list(game.bots),
        "hand_scores": hand_scores,
        "placements": placements,
        "meta": game.meta(),
    }


def test_tracker_paired_differences_and_sticky_stop() -> None:
    g = GauntletConfig(
        candidate="new",
        baselines=("old",),
        opponents=("a", "b", "c"),
        sprt=SprtSettings(delta0=0.0, delta1=1.0, min_sets=4, model="normal"),
    )
    s = make_gauntlet_schedule(g, deal_sets=6, duplicate=False, seed=1, key=bytes(32))
    entries = []
    for game in s.games:
        seat = game.bots.index(game.meta()["subject"])
        # The candidate takes 2 points per hand fewer than the baseline in sets 1-4,
        # then 10 more (the games that were in flight).
        gap = 2 if game.deal_set <= 4 else -10
        mine = 5 if game.meta()["role"] == "candidate" else 5 + gap + game.deal_set % 2
        hands = [[mine if i == seat else 7 for i in range(4)] for _ in range(3)]
        entries.append(_entry(game, hands, [1 if i == seat else 2 for i in range(4)]))
    tracker = tracker_from_journal(entries, g, per_set=1)
    assert tracker.samples["old"]["points"][:4] == [3.0, 2.0, 3.0, 2.0]
    stop = tracker.stops["old"]
    assert (stop.decision, stop.sets) == ("H1", 4)
    assert tracker.decided and tracker.status("old").sets == 6
    assert "H1 accepted" in tracker.line()
    # A set counts once its candidate and baseline games are both in, in any order.
    again = GauntletTracker(g, 1)
    for e in reversed(entries[:4]):
        again.add(e)
    assert again.samples["old"]["points"] == [2.0, 3.0]
    assert again.add(entries[0]) is False  # a game seen twice is counted once


def test_exit_codes() -> None:
    assert [exit_code(d) for d in (["H1"], ["H1", "H1"], ["H1", "H0"], ["H1", "none"], [])] == [
        0,
        0,
        1,
        2,
        2,
    ]


#: A key whose deals let the heuristic-against-random gauntlet of ``_write`` decide H1 after
#: 35 of its 80 games (one at a time; 36 two at a time). With a new key each run the test
#: sometimes never decided, and a test that must see it decide failed (a suite run, once).
DECIDING_KEY = "5eed" * 16


def _deciding_key(tmp_path: pathlib.Path) -> pathlib.Path:
    key = tmp_path / "deciding.key"
    seal.create_key(key, bytes.fromhex(DECIDING_KEY))
    return key


def _write(
    tmp_path: pathlib.Path, candidate: str, baseline: str, third: str = "random"
) -> pathlib.Path:
    return write_config(
        tmp_path,
        f"""
        seed: 11
        bots: {{cand: {candidate}, base: {baseline}, o1: heuristic, o2: heuristic, o3: {third}}}
        rules: {{target_score: 40}}
        schedule: {{deal_sets: 40, duplicate: false}}
        bot_processes: shared
        concurrency: 2
        gauntlet:
          candidate: cand
          baseline: base
          sprt: {{delta0: 0, delta1: 3}}
        """,
    )


def test_gauntlet_run_resume_and_report(tmp_path: pathlib.Path) -> None:
    """Built-in heuristic against built-in random: H1, exit 0; a second run plays nothing."""
    config = _write(tmp_path, "heuristic", "random")
    out = tmp_path / "out"
    runner = CliRunner()
    key = _deciding_key(tmp_path)
    first = runner.invoke(
        cli, ["gauntlet", str(config), "--out", str(out), "--key-file", str(key), "-q"]
    )
    assert first.exit_code == 0, first.output
    report = json.loads((out / "gauntlet.json").read_text())
    row = report["results"][0]
    assert report["decision"] == "H1" and row["decision"] == "H1"
    assert report["faults"] == {"cand": {}, "base": {}}
    assert 16 <= row["stop"]["sets"] < 40
    assert row["points_per_hand"]["mean"] > 1.5
    assert report["games_played"] < report["games_scheduled"] == 80
    assert "H1 accepted after" in first.output
    again = runner.invoke(cli, ["gauntlet", str(config), "--out", str(out), "--format", "json"])
    assert again.exit_code == 0, again.output
    assert "nothing to play" in again.output
    assert json.loads((out / "gauntlet.json").read_text())["results"] == report["results"]
    shown = runner.invoke(cli, ["gauntlet", str(out), "--format", "json"])
    assert shown.exit_code == 0 and json.loads(shown.output)["results"] == report["results"]
    verified = runner.invoke(cli, ["verify", str(out)])
    assert verified.exit_code == 0, verified.output
    assert "a gauntlet:" in verified.output and "not in the schedule" not in verified.output


def test_a_candidate_against_itself_is_not_accepted(tmp_path: pathlib.Path) -> None:
    """Deterministic bots: every paired game is the same game, every difference 0."""
    config = _write(tmp_path, "heuristic", "heuristic", third="heuristic")
    result = CliRunner().invoke(cli, ["gauntlet", str(config), "--out", str(tmp_path / "o"), "-q"])
    assert result.exit_code == 1, result.output
    assert "H0 accepted after 16 sets" in result.output


def test_errors_exit_3(tmp_path: pathlib.Path) -> None:
    bad = write_config(tmp_path, "bots: {a: random}\ngauntlet: {candidate: a}", name="bad.yaml")
    result = CliRunner().invoke(cli, ["gauntlet", str(bad)])
    assert result.exit_code == 3 and "bad.yaml" in result.output
    plain = write_config(tmp_path, "bots: {a: random, b: random, c: random, d: random}")
    result = CliRunner().invoke(cli, ["gauntlet", str(plain)])
    assert result.exit_code == 3 and "not a gauntlet" in result.output


class _StopAfter(GauntletTournament):
    """A gauntlet runner that is interrupted (as by Ctrl-C) after ``games`` games."""

    games = 10

    def _finish(self, game, future):  # type: ignore[no-untyped-def]
        ok = super()._finish(game, future)
        if self.progress.played >= self.games:
            self.stop.set()
        return ok


@pytest.mark.slow
def test_resume_rebuilds_the_test_from_the_journal(tmp_path: pathlib.Path) -> None:
    """Interrupted, then resumed: the same stopping point and figures as one run."""
    config = load_config(_write(tmp_path, "heuristic", "random"))
    config = dataclasses.replace(config, concurrency=1)
    key = _deciding_key(tmp_path)  # the same deals in both runs, and a test that decides
    whole = GauntletTournament(config, out_dir=tmp_path / "whole", key_file=key).run()
    assert whole.complete is False and not whole.interrupted
    broken = _StopAfter(config, out_dir=tmp_path / "parts", key_file=key).run()
    assert broken.interrupted and broken.games_done < whole.games_done
    resumed = GauntletTournament(config, out_dir=tmp_path / "parts")
    resumed.run()
    one = json.loads((tmp_path / "whole" / "gauntlet.json").read_text())
    two = json.loads((tmp_path / "parts" / "gauntlet.json").read_text())
    assert one["results"] == two["results"] and one["results"][0]["decision"] == "H1"
    assert two == folder_report(tmp_path / "parts")


def test_fixed_length_two_baselines_and_placement(tmp_path: pathlib.Path) -> None:
    """test: fixed plays every set; each baseline gets its row; referee tournament runs it too."""
    config = write_config(
        tmp_path,
        """
        seed: 5
        bots: {new: heuristic, old: random, older: random, o1: heuristic, o2: heuristic, o3: heuristic}
        rules: {target_score: 30}
        schedule: {deal_sets: 6, duplicate: false}
        bot_processes: shared
        gauntlet: {candidate: new, baseline: [old, older], test: fixed, metric: placement}
        """,
    )
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["tournament", str(config), "--out", str(out), "-q"])
    report = json.loads((out / "gauntlet.json").read_text())
    assert report["games_played"] == report["games_scheduled"] == 6 * 3
    assert [r["baseline"] for r in report["results"]] == ["old", "older"]
    assert [r["sets"] for r in report["results"]] == [6, 6]
    assert all("stop" not in r for r in report["results"])
    assert result.exit_code == report["exit_code"], result.output
    assert "fixed length" in result.output and "placement" in result.output


def test_progress_line_shows_the_llr() -> None:
    import io

    progress = GauntletProgress(stream=io.StringIO(), tty=False)
    progress.sprt = "vs old: 3 sets, LLR 0.12 (-2.94, 2.94)"
    assert progress.line().endswith("| vs old: 3 sets, LLR 0.12 (-2.94, 2.94)")


def _paired_entries(g: GauntletConfig, sets: int, gaps: list[float]) -> list[dict[str, object]]:
    """Journal entries of ``sets`` one-game sets: the baseline takes ``gaps[d]`` more a hand."""
    s = make_gauntlet_schedule(g, deal_sets=sets, duplicate=False, seed=1, key=bytes(32))
    entries = []
    for game in s.games:
        seat = game.bots.index(game.meta()["subject"])
        gap = gaps[(game.deal_set - 1) % len(gaps)]
        mine = 5 if game.meta()["role"] == "candidate" else 5 + gap
        hands = [[mine if i == seat else 7 for i in range(4)] for _ in range(2)]
        entries.append(_entry(game, hands, [1 if i == seat else 2 for i in range(4)]))
    return entries


def test_tracker_line_and_report_show_candidate_against_baseline() -> None:
    """W/D/L of the paired sets, the estimate and its interval, the LLR, what is left."""
    g = GauntletConfig(
        candidate="new",
        baselines=("old",),
        opponents=("a", "b", "c"),
        sprt=SprtSettings(delta0=0.0, delta1=1.0, min_sets=16),
    )
    early = tracker_from_journal(_paired_entries(g, 6, [1, 0, -1, 2, 1, 3]), g, per_set=1)
    line = early.line()
    assert line.startswith("new vs old: 6 sets W4 D1 L1, +1.00 pts/hand [")
    assert "no decision before 16 sets" in line and "sets to go" in line
    assert early.expected_sets_left() is not None and early.expected_sets_left() >= 10
    report = make_report(early, name="t", games_played=12, games_scheduled=400, sets_scheduled=200)
    row = report["results"][0]
    assert row["paired_sets"] == {"won": 4, "drawn": 1, "lost": 1}
    assert row["final_llr"]["min_sets"] == 16 and row["final_llr"]["expected_sets_left"] >= 10
    text = render_report(report)
    assert "new vs old:\n  no decision after 6 sets: LLR" in text
    assert "  no decision before 16 sets (min_sets)" in text
    assert "  expected sets to a decision: about" in text
    assert "paired sets: the candidate won 4, drew 1, lost 1" in text
    assert "SPRT (robust model)" in text
    done = tracker_from_journal(_paired_entries(g, 30, [1, 0, 2, 1, 3, 2]), g, per_set=1)
    stop = done.stops["old"]
    assert stop.decision == "H1" and stop.upper <= stop.wald_upper
    decided = render_report(
        make_report(done, name="t", games_played=60, games_scheduled=400, sets_scheduled=200)
    )
    assert f"H1 accepted after {stop.sets} sets: LLR" in decided
    assert "moved in by the overshoot correction" in decided or stop.upper == stop.wald_upper
    assert "H1 accepted" in done.line() and "sets to go" not in done.line()


def test_gauntlet_progress_line_has_no_leaders_and_an_expected_eta() -> None:
    import io

    progress = GauntletProgress(stream=io.StringIO(), tty=False)
    progress.start(400)
    progress.add(
        {"bots": ["new", "a", "b", "c"], "hand_scores": [[1, 2, 3, 20]], "faults": [{}] * 4}
    )
    progress.expected_left = 40
    progress.sprt = "new vs old: 1 sets W1 D0 L0"
    line = progress.line()
    assert "pts/hand:" not in line and "(expected)" in line
    assert line.endswith("| new vs old: 1 sets W1 D0 L0")


def test_a_folder_from_before_the_robust_test_keeps_the_normal_test() -> None:
    from referee.tournament.gauntlet_config import gauntlet_from_dict

    old = {"candidate": "c", "baselines": ["b"], "opponents": ["x", "y", "z"]}
    old["sprt"] = {"delta0": 0.0, "delta1": 0.5, "alpha": 0.05, "beta": 0.05, "min_sets": 16}
    assert gauntlet_from_dict(old).sprt.model == "normal"
    new = gauntlet_from_dict({**old, "sprt": {**old["sprt"], "model": "robust"}})
    assert new.sprt.model == "robust"
    assert new.to_dict()["sprt"]["model"] == "robust"
    assert "model" not in gauntlet_from_dict(old).to_dict()["sprt"]  # its digest is unchanged
