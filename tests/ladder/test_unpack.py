"""referee.ladder.unpack: a submitted archive unpacked into its folder, or refused with a reason.

Each attack asserts both a clear refusal and that nothing was written
outside the submission's folder (which a refusal removes too): the whole
tree around it is the same before and after.
"""

from __future__ import annotations

import io
import pathlib
import stat
import tarfile

import pytest

from referee.ladder import unpack as unpack_module
from referee.ladder.unpack import UnpackLimits, UploadRefused, unpack
from tests.ladder.archives import entry, folder, link, special, tar_gz, tree, zero_file_bomb

SMALL = UnpackLimits(
    compressed_bytes=256 * 1024, unpacked_bytes=2 << 20, files=20, ratio_free_bytes=1 << 20
)


@pytest.fixture
def place(tmp_path: pathlib.Path) -> pathlib.Path:
    """A ladder-like tree: the submissions' folder beside files an attack would aim at."""
    (tmp_path / "ladder" / "submissions").mkdir(parents=True)
    (tmp_path / "ladder" / "journal.jsonl").write_text("{}\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "victim.txt").write_text("untouched")
    return tmp_path


def _refused(place: pathlib.Path, data: bytes, limits: UnpackLimits = SMALL) -> str:
    before = tree(place)
    dest = place / "ladder" / "submissions" / "7"
    with pytest.raises(UploadRefused) as refusal:
        unpack(io.BytesIO(data), dest, limits, compressed_size=len(data))
    assert tree(place) == before, "a refused upload changed the tree around its folder"
    assert not dest.exists()
    message = str(refusal.value)
    assert "\n" not in message and len(message) < 600
    return message


def test_a_bot_folder_unpacks_with_safe_modes(place: pathlib.Path) -> None:
    data = tar_gz(
        [
            entry("bot.yaml", b"name: b\n"),
            folder("src"),
            entry("src/run.sh", b"#!/bin/sh\n", mode=0o4755 & 0o777),
            entry("./src/lib.py", b"x = 1\n", mode=0o666),
        ]
    )
    dest = place / "ladder" / "submissions" / "1"
    result = unpack(io.BytesIO(data), dest, SMALL, compressed_size=len(data))
    assert (result.files, result.folders) == (3, 1)
    assert (dest / "bot.yaml").read_text() == "name: b\n"
    assert stat.S_IMODE((dest / "src" / "run.sh").stat().st_mode) == 0o700
    assert stat.S_IMODE((dest / "src" / "lib.py").stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("../escaped.txt", "'..'"),
        ("src/../../escaped.txt", "'..'"),
        ("/tmp/escaped.txt", "absolute path"),
        ("a\nb", "control characters"),
        ("a\\..\\b", "backslashes"),
    ],
)
def test_paths_out_of_the_folder_are_refused(place: pathlib.Path, name: str, said: str) -> None:
    message = _refused(place, tar_gz([entry("bot.yaml"), entry(name, b"pwned")]))
    assert said in message
    assert not (place / "ladder" / "submissions" / "escaped.txt").exists()


@pytest.mark.parametrize(
    ("member", "said"),
    [
        (link("out", "../../../outside/victim.txt"), "a symbolic link"),
        (link("abs", "/etc/passwd"), "a symbolic link (to /etc/passwd)"),
        (link("inside", "bot.yaml"), "a symbolic link"),
        (link("hard", "../../../outside/victim.txt", hard=True), "a hard link"),
    ],
)
def test_links_are_refused(place: pathlib.Path, member: tuple, said: str) -> None:
    # The link then a file through it: had the link been made, the write would land outside.
    name = member[0].name
    data = tar_gz([entry("bot.yaml"), member, entry(f"{name}/x", b"pwned")])
    assert said in _refused(place, data)
    assert (place / "outside" / "victim.txt").read_text() == "untouched"


@pytest.mark.parametrize(
    ("kind", "said"),
    [(tarfile.CHRTYPE, "a device file"), (tarfile.BLKTYPE, "a device file"),
     (tarfile.FIFOTYPE, "a FIFO")],
)  # fmt: skip
def test_devices_and_fifos_are_refused(place: pathlib.Path, kind: bytes, said: str) -> None:
    assert said in _refused(place, tar_gz([entry("bot.yaml"), special("dev/null", kind)]))


@pytest.mark.parametrize("bits", [stat.S_ISUID, stat.S_ISGID])
def test_setuid_and_setgid_are_refused(place: pathlib.Path, bits: int) -> None:
    data = tar_gz([entry("bot.yaml"), entry("run", b"#!/bin/sh\n", mode=0o755 | bits)])
    assert "setuid or setgid" in _refused(place, data)


def test_a_decompression_bomb_is_refused_before_it_is_written(
    place: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[int] = []
    real_write = unpack_module._write

    def counting(dest, names, source, *, executable):  # type: ignore[no-untyped-def]
        class Counted:
            def read(self, size: int) -> bytes:
                data = source.read(size)
                written.append(len(data))
                return data

        return real_write(dest, names, Counted(), executable=executable)

    monkeypatch.setattr(unpack_module, "_write", counting)
    bomb = zero_file_bomb(64 << 20)  # 64 MiB of zeros in about 64 KiB
    assert len(bomb) < SMALL.compressed_bytes
    message = _refused(place, bomb)
    assert "decompression bomb" in message and "zeros.bin" in message
    assert sum(written) == 0  # refused from its header, before a byte was written


def test_many_files_each_small_are_a_bomb_too(place: pathlib.Path) -> None:
    members = [entry("bot.yaml")] + [entry(f"f{i}", bytes(400 << 10)) for i in range(10)]
    assert "decompression bomb" in _refused(place, tar_gz(members))


def test_a_huge_pax_header_is_refused_while_read(place: pathlib.Path) -> None:
    # tarfile gathers a pax header in memory: the count of what it reads stops it first.
    info, data = entry("bot.yaml")
    info.pax_headers = {"comment": "x" * (24 << 20)}
    assert "decompression bomb" in _refused(place, tar_gz([(info, data)]))


def test_the_limits_on_files_and_compressed_size(place: pathlib.Path) -> None:
    many = tar_gz([entry(f"f{i}") for i in range(SMALL.files + 1)])
    assert f"more than {SMALL.files} files" in _refused(place, many)
    over = SMALL.compressed_bytes + 1
    message = _refused(place, b"\x1f\x8b" + bytes(over - 2))
    assert "over the limit" in message


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"PK\x03\x04rest", "a zip file"),
        (b"plain text", "not gzip-compressed"),
        (b"\x1f\x8b\x08\x00garbage", "damaged"),
        (tar_gz([]), "no files"),
        (tar_gz([entry("a"), entry("a", b"again")]), "appears twice"),
        (tar_gz([entry("a"), entry("a/b")]), "clash"),
    ],
)
def test_what_is_no_tar_gz_of_files(place: pathlib.Path, data: bytes, said: str) -> None:
    assert said in _refused(place, data)


def test_the_destination_is_a_new_folder(place: pathlib.Path) -> None:
    dest = place / "ladder" / "submissions" / "1"
    dest.mkdir()
    data = tar_gz([entry("bot.yaml")])
    with pytest.raises(FileExistsError):
        unpack(io.BytesIO(data), dest, SMALL, compressed_size=len(data))


def test_limits_are_positive() -> None:
    with pytest.raises(ValueError, match="files must be a positive number"):
        UnpackLimits(files=0)
    assert "20 MiB compressed" in UnpackLimits().describe()
