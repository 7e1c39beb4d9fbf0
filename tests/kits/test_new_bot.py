"""``referee new-bot`` and ``referee proto`` (issue 15): kits that build outside this repository.

- What ``new-bot`` writes is exactly the kit's files in git (its name
  replaced by the bot's), so the sample kits and the scaffolds cannot drift;
  a wheel carries the same files (``setup.py``, ``referee/_kits``).
- Bad input is refused with a message naming it, never a traceback.
- For every language (toolchain tests), the scaffold in a temporary folder
  outside the repository is built by the referee's sandboxed build, which
  sees that folder and nothing of this checkout (``conftest.built_kit``),
  and passes ``referee check-bot`` run in it, as its README says.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable

import pytest
import yaml
from click.testing import CliRunner

from referee.cli import cli, scaffold
from tests.kits.conftest import Build, built_or_skip

ROOT = pathlib.Path(__file__).resolve().parents[2]
LANGUAGES = scaffold.LANGUAGES
PIP_WHEEL = (sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q")
#: The README's ``referee check-bot .``, without the build (the fixture built the bot).
CHECK_BOT = (sys.executable, "-m", "referee.cli", "check-bot", ".", "--no-build")
CHECK_BOT += ("--startup-timeout-s", "60")


def _tracked(language: str) -> dict[str, tuple[bytes, bool]]:
    """The kit's files in git: relative path -> (working tree content, executable)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the kits' files in git cannot be listed")
    folder = scaffold.KIT_FOLDERS[language]
    listing = subprocess.run(
        ["git", "ls-files", "-s", "-z", "--", folder],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    files = {}
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        mode = meta.split()[0]
        relative = pathlib.PurePosixPath(path).relative_to(folder)
        files[str(relative)] = ((ROOT / path).read_bytes(), mode == "100755")
    assert files, f"git lists no files in {folder}"
    return files


def _written(folder: pathlib.Path) -> dict[str, tuple[bytes, bool]]:
    return {
        path.relative_to(folder).as_posix(): (path.read_bytes(), bool(path.stat().st_mode & 0o100))
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _new_bot(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["new-bot", *args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def _differences(got: dict, want: dict) -> list[str]:
    out = [f"missing {p}" for p in sorted(want.keys() - got.keys())]
    out += [f"extra {p}" for p in sorted(got.keys() - want.keys())]
    out += [
        f"differs {p}: {'content' if got[p][0] != want[p][0] else 'executable bit'}"
        for p in sorted(got.keys() & want.keys())
        if got[p] != want[p]
    ]
    return out


# What new-bot writes ----------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_new_bot_writes_exactly_the_kits_files_in_git(
    language: str, tmp_path: pathlib.Path
) -> None:
    dest = tmp_path / scaffold.kit_name(language)  # the default name is the kit's own
    # The kit's own author too (without --author new-bot writes git's user.name).
    code, output = _new_bot(language, str(dest), "--author", scaffold.KIT_AUTHOR)
    assert code == 0, output
    assert _differences(_written(dest), _tracked(language)) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_new_bot_gives_the_bot_its_name_everywhere_the_kit_has_its_own(
    language: str, tmp_path: pathlib.Path
) -> None:
    dest = tmp_path / "somewhere"
    code, output = _new_bot(
        language, str(dest), "--name", "table-shark", "--author", scaffold.KIT_AUTHOR
    )
    assert code == 0, output
    own = scaffold.kit_name(language).encode()
    want = {
        path: (content.replace(own, b"table-shark"), executable)
        for path, (content, executable) in _tracked(language).items()
    }
    got = _written(dest)
    assert _differences(got, want) == []
    assert yaml.safe_load((dest / "bot.yaml").read_text())["name"] == "table-shark"
    assert not [path for path, (content, _) in got.items() if own in content]


def test_new_bot_names_the_bot_after_its_folder(tmp_path: pathlib.Path) -> None:
    code, output = _new_bot("python", str(tmp_path / "My Clever_Bot"))
    assert code == 0, output
    manifest = yaml.safe_load((tmp_path / "My Clever_Bot" / "bot.yaml").read_text())
    assert manifest["name"] == "my-clever-bot"
    assert "my-clever-bot" in output


def test_new_bot_into_an_empty_folder(tmp_path: pathlib.Path) -> None:
    (tmp_path / "bot").mkdir()
    code, output = _new_bot("go", str(tmp_path / "bot"))
    assert code == 0, output
    assert (tmp_path / "bot" / "bot.yaml").is_file()


@pytest.mark.parametrize(
    ("args", "setup", "message"),
    [
        (["cobol", "{tmp}/b"], None, "unknown language 'cobol': choose one of python, go"),
        (["go", "{tmp}/full"], "full", "full exists and is not empty"),
        (["go", "{tmp}/file"], "file", "file exists and is not a folder"),
        (["go", "{tmp}/b", "--name", "Bad Name"], None, "the bot name 'Bad Name' cannot be used"),
        (["go", "{tmp}/b", "--name", "-x"], None, "the bot name '-x' cannot be used"),
        (["go", "{tmp}/b", "--name", "a" * 65], None, "at most 64 characters"),
        (["go", "{tmp}/2024"], None, "from the folder name '2024'; give one with --name"),
        (["go", "{tmp}/___"], None, "from the folder name '___'"),
        (["rust", "{tmp}/build"], None, "'build' cannot be used for a rust bot"),
        (["rust", "{tmp}/b", "--name", "deps"], None, "'deps' cannot be used for a rust bot"),
    ],
)
def test_new_bot_refuses_bad_input_clearly(
    args: list[str], setup: str | None, message: str, tmp_path: pathlib.Path
) -> None:
    if setup == "full":
        (tmp_path / "full").mkdir()
        (tmp_path / "full" / "mine.txt").write_text("keep me")
    elif setup == "file":
        (tmp_path / "file").write_text("keep me")
    code, output = _new_bot(*(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert code != 0
    assert message in " ".join(output.split()), output
    assert "internal error" not in output
    if setup == "full":
        assert [p.name for p in (tmp_path / "full").iterdir()] == ["mine.txt"]
    if setup == "file":
        assert (tmp_path / "file").read_text() == "keep me"
    assert not (tmp_path / "b").exists()


def test_kit_files_leave_out_what_the_kits_gitignore_names(tmp_path: pathlib.Path) -> None:
    kit = tmp_path / "kit"
    for path in (
        "bot.yaml",
        "src/main.rs",
        "target/debug/bot",
        "bin/tool",
        "src/bin/keep.rs",
        "x/build/out.o",
        "node_modules/a/index.js",
        "Main.class",
        ".git/HEAD",
    ):
        (kit / path).parent.mkdir(parents=True, exist_ok=True)
        (kit / path).write_text("x")
    (kit / ".gitignore").write_text("# outputs\n/target/\n/bin/\nbuild/\nnode_modules/\n*.class\n")
    assert [str(p) for p in scaffold.kit_files(kit)] == [
        ".gitignore",
        "bot.yaml",
        "src/bin/keep.rs",
        "src/main.rs",
    ]
    (kit / ".gitignore").write_text("!keep\n")
    with pytest.raises(scaffold.ScaffoldError, match="negated patterns are not supported"):
        scaffold.kit_files(kit)


# referee proto ----------------------------------------------------------------------------------


def test_proto_writes_the_protocol_under_its_package_path(tmp_path: pathlib.Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["proto", str(tmp_path / "p")])
    assert result.exit_code == 0, result.output
    written = tmp_path / "p" / "hearts" / "v1" / "hearts.proto"
    assert written.read_bytes() == (ROOT / "proto/hearts/v1/hearts.proto").read_bytes()
    again = runner.invoke(cli, ["proto", str(tmp_path / "p")])  # identical: nothing to do
    assert again.exit_code == 0, again.output
    written.write_text("syntax = 'proto3';\n")
    refused = runner.invoke(cli, ["proto", str(tmp_path / "p")])
    assert refused.exit_code == 1
    assert "exists and differs" in refused.output
    assert written.read_text() == "syntax = 'proto3';\n"
    (tmp_path / "f").write_text("x")
    result = runner.invoke(cli, ["proto", str(tmp_path / "f")])
    assert result.exit_code == 1
    assert "is not a folder" in result.output
    assert "Traceback" not in result.output + refused.output


# The wheel carries the same files ---------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_wheel_carries_the_kits_and_new_bot_works_from_it(tmp_path: pathlib.Path) -> None:
    """A non-editable install has no checkout around it: the kits come from the wheel."""
    build = subprocess.run(
        [*PIP_WHEEL, "-w", str(tmp_path / "dist"), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("hearts_referee-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:  # as pip installs it: executable bits kept
        for info in archive.infolist():
            archive.extract(info, site)
            if info.external_attr >> 16 & 0o100:
                (site / info.filename).chmod(0o755)
    packaged = site / "referee" / scaffold.PACKAGED
    assert (packaged / scaffold.PROTO).read_bytes() == (ROOT / scaffold.PROTO).read_bytes()
    # The wheel's referee (first on the path), in a folder far from the checkout.
    env = {**os.environ, "PYTHONPATH": str(site)}
    for language in LANGUAGES:
        dest = tmp_path / "bots" / scaffold.kit_name(language)
        run = subprocess.run(
            [
                *(sys.executable, "-m", "referee.cli", "new-bot", language, str(dest)),
                *("--author", scaffold.KIT_AUTHOR),
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=60,
        )
        assert run.returncode == 0, run.stderr
        assert _differences(_written(dest), _tracked(language)) == [], language
    where = subprocess.run(
        [sys.executable, "-c", "import referee.cli.scaffold as s; print(s._data_root())"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    ).stdout.strip()
    assert where == str(packaged)


# Scaffolded, built in the sandbox, checked ------------------------------------------------------


@pytest.mark.toolchain
@pytest.mark.slow
@pytest.mark.timeout(1800)  # a cold build (Rust, Java) fetches and compiles everything
@pytest.mark.parametrize("language", LANGUAGES)
def test_scaffolded_bot_builds_in_the_sandbox_and_passes_check_bot(
    language: str, built_kit: Callable[[str], Build], tmp_path: pathlib.Path
) -> None:
    build = built_or_skip(language, built_kit)
    assert ROOT not in build.folder.parents, "the scaffold must be outside the repository"
    print(f"{language}: built in the sandbox in {build.seconds:.1f} s ({build.folder})")
    # The README's local test command, in the bot's folder (built already, by the fixture).
    run = subprocess.run(
        [*CHECK_BOT, "--format", "json", "--out", str(tmp_path / "check")],
        cwd=build.folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.stdout, run.stderr[-3000:]
    report = json.loads(run.stdout)
    failed = [c for c in report["checks"] if c["status"] == "FAIL"]
    assert run.returncode == 0 and not failed, failed or run.stderr[-3000:]
