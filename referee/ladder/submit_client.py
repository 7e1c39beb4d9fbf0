"""The client side of ``referee submit``: a bot folder packed, uploaded to a ladder, and followed.

:func:`pack` makes the ``.tar.gz`` the ladder accepts (:mod:`referee.ladder.unpack`):
the files it is given (``referee submit`` gives the folder's files less
what its ``.gitignore`` ignores: the filter of ``referee new-bot``,
:func:`referee.cli.scaffold.kit_files`, which the command line owns), plain
files and folders only, with neutral owners and modes. :class:`LadderClient` speaks the
ladder's HTTP API (:mod:`referee.ladder.web`) with the standard library, and
turns every failure (a refused upload, a wrong token, an unreachable URL)
into a :class:`SubmitError` with a message for the submitter.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
import pathlib
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

from referee.ladder.unpack import ARCHIVE_TYPE
from referee.players.manifest import ManifestError, load_manifest
from referee.safetext import shown_name, shown_text

__all__ = [
    "FINAL_STATUSES",
    "LadderClient",
    "Packed",
    "SubmitError",
    "pack",
    "wait_for",
]

#: Statuses after which a submission changes no more (but for retiring, much later).
FINAL_STATUSES = frozenset({"active", "rejected", "retired"})
#: The most bytes :func:`pack` makes (the ladder's own limit is usually far lower).
MAX_PACKED_BYTES = 1024**3


class SubmitError(Exception):
    """A submission that could not be made or followed; the message says why."""


@dataclasses.dataclass(frozen=True)
class Packed:
    """A packed bot folder: the archive's bytes, its files and the bot's name."""

    data: bytes
    files: list[str]
    name: str


def pack(folder: pathlib.Path, files: Sequence[pathlib.PurePosixPath]) -> Packed:
    """The ``.tar.gz`` of ``files`` (relative paths) of the bot folder ``folder``, as the
    ladder accepts it.

    ``folder`` must hold a valid ``bot.yaml`` (its ``name`` is the bot's
    default name). A symbolic link among the files is refused: the ladder
    accepts none, so it would be refused there with less help.
    """
    folder = folder.resolve()
    if not folder.is_dir():
        raise SubmitError(f"{folder}: not a folder")
    try:
        manifest = load_manifest(folder)
    except ManifestError as error:
        raise SubmitError(str(error)) from None
    names = list(files)
    buf = io.BytesIO()
    # mtime 0 in the gzip header: the same folder packs to the same bytes.
    with (
        gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=6, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for relative in names:
            path = folder / relative
            for parent in [*reversed(relative.parents)][1:]:
                if (folder / parent).is_symlink():
                    raise SubmitError(_link_message(folder / parent))
            if path.is_symlink():
                raise SubmitError(_link_message(path))
            info = tar.gettarinfo(str(path), arcname=str(relative))
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mode = 0o755 if info.mode & 0o111 else 0o644
            with path.open("rb") as data:
                tar.addfile(info, data)
            if buf.tell() > MAX_PACKED_BYTES:
                raise SubmitError(f"{folder}: more than 1 GiB packed; is a build folder in it?")
    return Packed(buf.getvalue(), [str(n) for n in names], manifest.name)


def _link_message(path: pathlib.Path) -> str:
    return (
        f"{path}: a symbolic link; a ladder accepts only files and folders "
        "(put the file itself there, or list the link in .gitignore)"
    )


class LadderClient:
    """The HTTP API of one ladder, with one team's token."""

    def __init__(self, url: str, token: str, *, timeout: float = 60.0) -> None:
        parsed = urllib.parse.urlsplit(url.strip())
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise SubmitError(f"{url!r}: the ladder's URL starts with http:// or https://")
        self.url = urllib.parse.urlunsplit(
            (parsed.scheme, parsed.netloc, parsed.path.rstrip("/"), "", "")
        )
        self.token = token.strip()
        if not self.token:
            raise SubmitError("the token is empty (referee ladder team add prints a team's token)")
        self.timeout = timeout

    @property
    def in_clear(self) -> bool:
        """True when the token would cross the network unencrypted (http:// to another machine)."""
        parsed = urllib.parse.urlsplit(self.url)
        return parsed.scheme == "http" and parsed.hostname not in ("localhost", "127.0.0.1", "::1")

    def submit(self, data: bytes, bot: str) -> dict[str, Any]:
        """Upload ``data`` (a packed folder) as a new version of the team's ``bot``."""
        query = urllib.parse.urlencode({"bot": bot})
        return self._call("POST", f"/api/submissions?{query}", data, ARCHIVE_TYPE)

    def status(
        self, submission: int, *, after: str | None = None, wait_s: float = 0.0
    ) -> dict[str, Any]:
        """The submission's status as the ladder has it (its team's view); with ``after``,
        once it is another state than ``after`` (or after ``wait_s`` seconds)."""
        path = f"/api/submissions/{int(submission)}"
        if after is not None:
            path += "?" + urllib.parse.urlencode({"after": after, "wait": f"{wait_s:g}"})
        return self._call("GET", path, timeout=self.timeout + wait_s)

    def check_size(self, size: int) -> None:
        """Refuse an archive of ``size`` bytes over the ladder's limit before sending it
        (the ladder would cut the connection mid-upload, with less to say)."""
        try:
            limits = self._call("GET", "/api/limits", auth=False)
        except SubmitError:
            return  # the upload itself will say
        cap = limits.get("compressed_bytes")
        if isinstance(cap, int) and size > cap:
            raise SubmitError(
                f"the upload is too large: the packed folder is {size} bytes, over the "
                f"ladder's limit of {cap} bytes compressed ({shown_text(limits.get('described', ''))})"
            )

    def _call(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        kind: str | None = None,
        *,
        auth: bool = True,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        headers = {"Accept": "application/json"}
        if auth:
            headers["Authorization"] = f"Bearer {self.token}"
        if kind:
            headers["Content-Type"] = kind
        request = urllib.request.Request(self.url + path, body, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.timeout) as response:
                return _json_of(response.read())
        except urllib.error.HTTPError as error:
            raise SubmitError(_refusal(error)) from None
        except urllib.error.URLError as error:
            reason = getattr(error.reason, "strerror", None) or error.reason
            if body and isinstance(error.reason, ConnectionResetError | BrokenPipeError):
                raise SubmitError(
                    f"the ladder at {self.url} closed the connection during the upload "
                    f"(over its size limit?): {reason}"
                ) from None
            raise SubmitError(f"cannot reach the ladder at {self.url}: {reason}") from None
        except TimeoutError:
            raise SubmitError(
                f"the ladder at {self.url} did not answer within {self.timeout:g} s"
            ) from None
        except (ConnectionError, OSError) as error:
            during = " during the upload (over its size limit?)" if body else ""
            raise SubmitError(
                f"the ladder at {self.url} closed the connection{during}: {error}"
            ) from None


def _json_of(data: bytes) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise SubmitError(
            "the server's answer is not a ladder's (no JSON object): is the URL right?"
        )
    return value


def _refusal(error: urllib.error.HTTPError) -> str:
    """The message for a refused request: the ladder's reason, with what to do."""
    try:
        reason = shown_text(json.loads(error.read()).get("error", ""))
    except (ValueError, AttributeError, OSError):
        reason = ""
    reason = reason or error.reason or "refused"
    code = error.code
    if code == 401:
        return (
            f"the ladder refused the token: {reason} (check --token; a revoked token stays refused)"
        )
    if code == 403:
        return f"not allowed: {reason}"
    if code == 413:
        return f"the upload is too large: {reason}"
    if code == 429:
        wait = error.headers.get("Retry-After") if error.headers else None
        return f"too many requests: {reason}" + (f" (try again in {wait} s)" if wait else "")
    if code == 404:
        return f"not found on the ladder: {reason} (is the URL a ladder's?)"
    return f"the ladder refused the upload ({code}): {reason}"


def wait_for(
    client: LadderClient,
    submission: int,
    on_change: Callable[[dict[str, Any]], None],
    *,
    poll_s: float = 1.0,
    timeout_s: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
    seen: str | None = None,
) -> dict[str, Any]:
    """Follow ``submission`` until its status is final; ``on_change`` gets each new status.

    Each request asks the ladder to answer once the state changes (a long
    poll of up to 20 s), so no state is missed however briefly it lasts; an
    answer that came back at once unchanged waits ``poll_s`` before the next.
    ``seen`` is the state already shown (the upload's answer said it).
    """
    start = time.monotonic()
    while True:
        left = None if timeout_s is None else max(0.0, timeout_s - (time.monotonic() - start))
        wait = 0.0 if seen is None else min(20.0, left if left is not None else 20.0)
        asked = time.monotonic()
        status = client.status(submission, after=seen, wait_s=wait)
        quick = time.monotonic() - asked < wait / 2
        if status.get("state") != seen:
            quick = False
            seen = status.get("state")
            on_change(status)
        if seen in FINAL_STATUSES:
            return status
        if timeout_s is not None and time.monotonic() - start > timeout_s:
            raise SubmitError(
                f"submission {submission} is still {shown_name(seen)} after {timeout_s:g} s "
                "(it goes on: see the ladder's pages)"
            )
        if quick:
            sleep(poll_s)
