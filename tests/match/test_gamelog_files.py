"""Game log files (referee/match/gamelog/files.py): written plain as the game goes, compressed
when closed, read back in either form; and the package's one public face."""

from __future__ import annotations

import doctest
import gzip
import pathlib
import threading

import pytest

from referee.engine import PassDirection
from referee.match import gamelog
from referee.match.gamelog import (
    DealRecord,
    GameLogWriter,
    LogError,
    files,
    open_log,
    read_log,
    records,
    store_log,
)

HEADER = {"type": "game", "format": gamelog.LOG_FORMAT, "version": gamelog.LOG_VERSION}
DEAL = DealRecord(hand=1, pass_direction=PassDirection.LEFT, hands=((), (), ()))


def test_the_package_exports_both_modules_whole() -> None:
    assert set(gamelog.__all__) == set(files.__all__) | set(records.__all__)
    for name in gamelog.__all__:
        home = files if name in files.__all__ else records
        assert getattr(gamelog, name) is getattr(home, name), name


def test_the_records_doctest() -> None:
    result = doctest.testmod(records)
    assert result.attempted > 0 and result.failed == 0


def test_a_gz_log_is_plain_while_written_and_compressed_when_closed(
    tmp_path: pathlib.Path,
) -> None:
    path = tmp_path / "games" / "g1.jsonl.gz"
    writer = GameLogWriter(path)
    writer.write(HEADER)
    writer.write(DEAL)
    plain = path.with_suffix("")
    assert plain.read_text("utf-8").count("\n") == 2 and not path.exists()
    writer.close()
    writer.close()  # idempotent
    assert not plain.exists() and path.read_bytes()[:2] == files.GZIP_MAGIC
    assert [r["type"] for _, r in read_log(path)] == ["game", "deal"]
    with open_log(path) as handle:
        assert handle.read().startswith(b'{"type":"game"')
    with pytest.raises(ValueError, match="already closed"):
        writer.write(DEAL)


def test_store_log_writes_the_form_its_name_says_the_same_bytes_each_time(
    tmp_path: pathlib.Path,
) -> None:
    data = b'{"type":"game","format":"hearts-referee/game-log","version":1}\n'
    store_log(tmp_path / "a.jsonl.gz", data)
    store_log(tmp_path / "b.jsonl.gz", data)
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()
    store_log(tmp_path / "c.jsonl", (tmp_path / "a.jsonl.gz").read_bytes())
    assert (tmp_path / "c.jsonl").read_bytes() == data


def test_a_cut_compressed_log_names_its_line(tmp_path: pathlib.Path) -> None:
    lines = b"".join(
        [b'{"type":"game","format":"hearts-referee/game-log","version":1}\n']
        + [b'{"type":"trick","n":%d}\n' % i for i in range(2000)]
    )
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(lines)[:-200])
    with pytest.raises(
        LogError, match=r"cut\.jsonl\.gz:\d+: a damaged compressed log \(cut short\?\)"
    ):
        for _ in read_log(path):
            pass


def test_a_background_writer_writes_the_same_lines_in_the_same_order(
    tmp_path: pathlib.Path,
) -> None:
    given = [
        HEADER,
        *(
            DealRecord(hand=h, pass_direction=PassDirection.LEFT, hands=((), (), ()))
            for h in range(1, 200)
        ),
    ]
    with GameLogWriter(tmp_path / "fore.jsonl") as fore:
        for record in given:
            fore.write(record)
    back = GameLogWriter(tmp_path / "back.jsonl", background=True)
    for record in given:
        back.write(record)
    back.flush()  # every line given is in the file before close
    assert (tmp_path / "back.jsonl").read_bytes() == (tmp_path / "fore.jsonl").read_bytes()
    back.close()
    assert (tmp_path / "back.jsonl").read_bytes() == (tmp_path / "fore.jsonl").read_bytes()
    assert not any(t.name.startswith("log ") for t in threading.enumerate())


def test_a_background_writer_compresses_on_close(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "g.jsonl.gz"
    with GameLogWriter(path, background=True) as writer:
        writer.write(HEADER)
        writer.write(DEAL)
    assert not (tmp_path / "g.jsonl").exists()
    assert [r["type"] for _, r in read_log(path)] == ["game", "deal"]


def test_a_failed_background_write_is_raised_to_the_writer_and_nothing_after_it_is_written(
    tmp_path: pathlib.Path,
) -> None:
    path = tmp_path / "g.jsonl"
    writer = GameLogWriter(path, background=True)
    writer.write(HEADER)
    writer.write({"type": "deal", "bad": object()})  # not JSON: fails in the writer's thread
    writer.write(DEAL)  # queued before the failure is known: never written
    with pytest.raises(TypeError, match="not JSON serializable"):
        writer.flush()
    with pytest.raises(TypeError, match="not JSON serializable"):
        writer.write(DEAL)
    with pytest.raises(TypeError, match="not JSON serializable"):
        writer.close()
    writer.close()  # closed all the same: idempotent
    assert [r["type"] for _, r in read_log(path)] == ["game"]
    with pytest.raises(ValueError, match="log already closed"):
        writer.write(DEAL)
