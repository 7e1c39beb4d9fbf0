"""Credentials reach a build only when the config names their kind (``build.credentials``).

The filters of referee.sandbox.build_settings, one per settings file, and a real
sandboxed build that prints what it sees of the organiser's settings.
"""

from __future__ import annotations

import pathlib
import shutil

import pytest

from referee.players.builds import build_bot
from referee.players.specs import parse_bot
from referee.sandbox import build_settings
from tests.helpers import require_sandbox

TOKEN = "npm_SECRETTOKEN0123456789"
HEURISTIC_FOLDER = (
    pathlib.Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "heuristic"
)


def _settings(home: pathlib.Path, allowed: tuple[str, ...] = ()) -> dict[str, str]:
    """What a build would see of each of ``home``'s settings files, by target."""
    scratch = home.parent / "scratch"
    scratch.mkdir(exist_ok=True)
    found = build_settings.user_settings(allowed, scratch, home=home)
    return {s.target: s.source.read_text() for s in found if not s.target.startswith("/")}


def test_npmrc_tokens_are_left_out(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".npmrc").write_text(
        "registry=https://me:pw@npm.example/\n"
        f"//npm.example/:_authToken={TOKEN}\n"
        "_auth=dXNlcjpwYXNz\n"
        "email=me@example.org\n"
        "strict-ssl=true\n"
    )
    seen = _settings(home)[".npmrc"]
    assert seen == "registry=https://npm.example/\nstrict-ssl=true\n"
    assert TOKEN in _settings(home, ("npm",))[".npmrc"]


def test_files_that_are_only_credentials_are_not_shown(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "home"
    (home / ".cargo").mkdir(parents=True)
    (home / ".cargo" / "credentials.toml").write_text('[registry]\ntoken = "cio_x"\n')
    (home / ".netrc").write_text("machine example.org login me password pw\n")
    (home / ".git-credentials").write_text("https://me:pw@github.com\n")
    notes: list[str] = []
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    found = build_settings.user_settings((), scratch, home=home, notes=notes)
    assert [s for s in found if not s.target.startswith("/")] == []  # (/etc's are the machine's)
    assert any("~/.netrc: credentials only, not shown" in n for n in notes), notes
    allowed = _settings(home, ("cargo", "netrc", "git"))
    assert set(allowed) == {".cargo/credentials.toml", ".netrc", ".git-credentials"}


def test_maven_servers_and_proxy_passwords_are_left_out(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "home"
    (home / ".m2").mkdir(parents=True)
    (home / ".m2" / "settings.xml").write_text(
        '<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">'
        "<mirrors><mirror><id>m</id><url>https://me:MIRRORSECRET@mirror.example/</url>"
        "</mirror></mirrors>"
        "<servers><server><id>m</id><password>MAVENSECRET</password></server></servers>"
        "<proxies><proxy><host>p</host><username>u</username><password>PROXYSECRET</password>"
        "</proxy></proxies></settings>"
    )
    seen = _settings(home)[".m2/settings.xml"]
    assert "https://mirror.example/" in seen and "<host>p</host>" in seen
    assert "MAVENSECRET" not in seen and "PROXYSECRET" not in seen and "<username>" not in seen
    assert "MIRRORSECRET" not in seen


def test_git_credential_helpers_and_headers_are_left_out(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Me\n"
        "[credential]\n\thelper = store\n"
        '[http "https://git.example"]\n\textraHeader = Authorization: Bearer GITSECRET\n'
        "\tsslKey = /home/me/.ssh/client.key\n"
        '[url "https://me:pw@git.example/"]\n\tinsteadOf = https://git.example/\n'
    )
    seen = _settings(home)[".gitconfig"]
    assert "name = Me" in seen and "insteadOf" in seen
    assert "helper" not in seen and "GITSECRET" not in seen and "me:pw" not in seen
    assert "client.key" not in seen


def test_pip_and_cargo_settings_lose_their_passwords(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "pip").mkdir(parents=True)
    (home / ".cargo").mkdir()
    (home / ".config" / "pip" / "pip.conf").write_text(
        "[global]\nindex-url = https://me:PIPSECRET@pypi.example/simple\ntimeout = 30\n"
    )
    (home / ".cargo" / "config.toml").write_text(
        '[registries.mine]\nindex = "sparse+https://cargo.example/"\ntoken = "CARGOSECRET"\n'
    )
    seen = _settings(home)
    assert seen[".config/pip/pip.conf"] == (
        "[global]\nindex-url = https://pypi.example/simple\ntimeout = 30\n"
    )
    assert "CARGOSECRET" not in seen[".cargo/config.toml"]
    assert "sparse+https://cargo.example/" in seen[".cargo/config.toml"]


def test_settings_without_credentials_are_the_users_own_file(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".npmrc").write_text("color=false\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    found = build_settings.user_settings((), scratch, home=home)
    assert build_settings.Setting(home / ".npmrc", ".npmrc") in found
    assert not (scratch / ".npmrc").exists()  # no copy of it


def test_the_environment_loses_the_package_managers_credentials() -> None:
    env = {
        "npm_config__authToken": TOKEN,
        "npm_config_registry": "https://npm.example/",
        "CARGO_REGISTRIES_MINE_TOKEN": "cio_x",
        "PIP_INDEX_URL": "https://me:pw@pypi.example/simple",
        "GOPROXY": "https://proxy.golang.org",
        "LANG": "C.UTF-8",
    }
    notes: list[str] = []
    out = build_settings.filter_env(env, (), notes=notes)
    assert out == {
        "npm_config_registry": "https://npm.example/",
        "PIP_INDEX_URL": "https://pypi.example/simple",
        "GOPROXY": "https://proxy.golang.org",
        "LANG": "C.UTF-8",
    }
    assert len(notes) == 3, notes
    assert build_settings.filter_env(env, ("npm", "cargo", "pip")) == env


@pytest.mark.parametrize("allowed", [(), ("npm",)])
def test_a_build_sees_the_npm_token_only_when_the_config_allows_it(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, allowed: tuple[str, ...]
) -> None:
    require_sandbox()
    home = tmp_path / "organiser"
    home.mkdir()
    (home / ".npmrc").write_text(f"registry=https://registry.npmjs.org/\n//x/:_authToken={TOKEN}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("npm_config__authToken", TOKEN + "-env")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.yaml").write_text(
        "name: reader\nrun: '{python} bot.py --address {address}'\n"
        "build: 'cat ~/.npmrc; env | grep -i authtoken; true'\n"
    )
    result = build_bot(parse_bot(str(bot)), tmp_path / "logs", credentials=allowed)
    log = pathlib.Path(result.log_path).read_text()
    assert result.ok, log
    assert "registry=https://registry.npmjs.org/" in log
    if allowed:
        assert f"_authToken={TOKEN}" in log and f"{TOKEN}-env" in log
    else:
        assert TOKEN not in log, log
        assert "~/.npmrc: shown without 1 credential line(s)" in log
        assert "$npm_config__authToken: a credential, not passed" in log
    # The organiser's file was bound, never copied into the build's home.
    home_copy = tmp_path / "cache" / "hearts-referee" / "build-homes" / "reader" / ".npmrc"
    assert home_copy.read_text() == ""


@pytest.mark.slow
def test_check_bot_lets_a_build_see_credentials_only_when_asked(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from referee.cli import cli

    bad = CliRunner().invoke(
        cli, ["check-bot", str(HEURISTIC_FOLDER), "--build-credentials", "npm,crates"]
    )
    assert bad.exit_code == 2
    assert "--build-credentials" in bad.output and "'crates' is not a kind of credentials" in (
        bad.output
    )
    require_sandbox()
    home = tmp_path / "organiser"
    home.mkdir()
    (home / ".npmrc").write_text(f"//x/:_authToken={TOKEN}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    bot = tmp_path / "bot"
    shutil.copytree(HEURISTIC_FOLDER, bot)
    manifest = (bot / "bot.yaml").read_text() + "build: 'cat ~/.npmrc'\n"
    (bot / "bot.yaml").write_text(manifest)
    for allowed, seen in (([], False), (["--build-credentials", "npm"], True)):
        out = tmp_path / f"out-{seen}"
        args = ["check-bot", str(bot), "--out", str(out), "--no-full-game", *allowed]
        result = CliRunner().invoke(cli, args)
        log = (out / "builds" / "heuristic-py.build.log").read_text()
        assert result.exit_code == 0, result.output + log
        assert (TOKEN in log) is seen, log
