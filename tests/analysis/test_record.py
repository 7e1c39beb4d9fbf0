"""The analysis file beside a log (issue 31): written whole, read back the same, used only while
it describes the log's bytes, and a damaged one named with what is wrong, never a traceback."""

from __future__ import annotations

import json
import pathlib
import subprocess

import pytest

from referee.analysis.record import (
    AnalysisError,
    analysis_for_log,
    analysis_path,
    read_analysis,
    write_analysis,
)
from referee.folder import Layout


def _copy(folder: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    """One analysed log and its analysis file, copied."""
    log = next(path for _, path in Layout(folder).game_logs())
    copy = tmp_path / "game.jsonl.gz"
    copy.write_bytes(log.read_bytes())
    analysis_path(copy).write_bytes(analysis_path(log).read_bytes())
    return copy


def test_names_beside_the_log() -> None:
    assert analysis_path("g/000/t1-d1-r1.jsonl.gz") == pathlib.Path("g/000/t1-d1-r1.analysis.json")
    assert analysis_path("run/game.jsonl") == pathlib.Path("run/game.analysis.json")
    assert analysis_path("notes.txt") == pathlib.Path("notes.txt.analysis.json")


def test_read_back_the_same_and_ignored_once_the_log_changes(
    folder: pathlib.Path, analysed: subprocess.CompletedProcess[str], tmp_path: pathlib.Path
) -> None:
    log = _copy(folder, tmp_path)
    found = analysis_for_log(log)
    assert found is not None and found.seats
    write_analysis(tmp_path / "again.json", found)
    assert read_analysis(tmp_path / "again.json") == found
    log.write_bytes(log.read_bytes() + b"\n")  # another log now: the marks would be wrong
    assert analysis_for_log(log) is None
    assert read_analysis(analysis_path(log)) == found  # the file itself is kept


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="other"), "not an analysis file"),
        (lambda d: d.update(version=9), "analysis version 9"),
        (lambda d: d.pop("log_sha256"), "missing key 'log_sha256'"),
        (lambda d: d["seats"][0]["decisions"][0].update(phase="dancing"), "malformed"),
        (lambda d: d["seats"][0]["decisions"][0].update(chosen=["ZZ"]), "malformed"),
    ],
)
def test_a_damaged_file_is_named_with_what_is_wrong(
    folder: pathlib.Path,
    analysed: subprocess.CompletedProcess[str],
    tmp_path: pathlib.Path,
    change,
    message: str,
) -> None:
    log = _copy(folder, tmp_path)
    where = analysis_path(log)
    data = json.loads(where.read_text())
    change(data)
    where.write_text(json.dumps(data))
    with pytest.raises(AnalysisError) as raised:
        read_analysis(where)
    assert str(raised.value).startswith(f"{where}: ") and message in str(raised.value)
    assert analysis_for_log(log) is None  # the viewers show the game unmarked
