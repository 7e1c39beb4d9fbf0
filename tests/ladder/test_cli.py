"""referee ladder team add/list/revoke and serve's refusals: messages, never tracebacks."""

from __future__ import annotations

import pathlib

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.ladder.db import LadderDB


def _config(tmp_path: pathlib.Path, text: str = "name: cli\noutput: out\n") -> pathlib.Path:
    path = tmp_path / "LADDER.yaml"
    path.write_text(text)
    return path


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_team_add_prints_a_token_once_and_list_shows_no_token(tmp_path: pathlib.Path) -> None:
    config = _config(tmp_path)
    code, out, err = _run("ladder", "team", "add", str(config), "owls")
    assert code == 0 and out.strip().startswith("hl_") and "shown once" in err
    token = out.strip()
    db = LadderDB(tmp_path / "out" / "ladder.db")
    assert db.authenticate(token, client="test").name == "owls"
    code, out, _ = _run("ladder", "team", "list", str(config))
    assert code == 0 and "owls" in out and "hl_" not in out
    # The folder is a ladder's from the first command on.
    assert (tmp_path / "out" / "tournament.json").is_file()


def test_team_mistakes_are_messages(tmp_path: pathlib.Path) -> None:
    config = _config(tmp_path)
    code, _, err = _run("ladder", "team", "add", str(config), "<b>owls</b>")
    assert code == 1 and "expected 1-24 letters" in err
    _run("ladder", "team", "add", str(config), "owls")
    code, _, err = _run("ladder", "team", "add", str(config), "owls")
    assert code == 1 and "already" in err
    code, _, err = _run("ladder", "team", "revoke", str(config), "larks")
    assert code == 1 and "no team 'larks'" in err
    code, _, err = _run("ladder", "team", "revoke", str(config), "owls")
    assert code == 0 and "revoked" in err
    code, out, _ = _run("ladder", "team", "list", str(config))
    assert "revoked" in out


def test_a_bad_config_is_named(tmp_path: pathlib.Path) -> None:
    config = _config(tmp_path, "name: cli\nsubmissions: {max_files: lots}\n")
    for args in (("team", "list"), ("serve",)):
        code, _, err = _run("ladder", *args, str(config))
        assert code == 1
        assert "LADDER.yaml: submissions.max_files: expected an integer" in err


def test_a_folder_that_holds_no_ladder_is_refused(tmp_path: pathlib.Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    code, _, err = _run("ladder", "team", "add", str(_config(tmp_path)), "owls")
    assert code == 1 and "holds no ladder" in err


def test_serve_beyond_loopback_warns_that_teams_upload(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not referee serve's warning ("nothing can be changed"): a ladder takes uploads."""
    from referee.ladder import service, web

    served: list[str] = []
    monkeypatch.setattr(service.Ladder, "start", lambda self: None)
    monkeypatch.setattr(service.Ladder, "stop", lambda self: None)
    monkeypatch.setattr(web, "serve", lambda ladder, host, port: served.append(host))
    monkeypatch.setattr("referee.web.server.bind_problem", lambda host, port: None)
    code, _, err = _run("ladder", "serve", str(_config(tmp_path)), "--host", "0.0.0.0")
    assert code == 0 and served == ["0.0.0.0"]
    assert "teams upload with their tokens" in err and "nothing can be changed" not in err
    code, _, err = _run("ladder", "serve", str(_config(tmp_path)), "--host", "127.0.0.1")
    assert code == 0 and "warning" not in err
