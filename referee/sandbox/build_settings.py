"""The user's package-manager settings that a build sees, and the credentials left out of them.

A sandboxed build runs with a home of its own, but mirrors, certificates and
registries configured for the user (``~/.npmrc``, ``~/.m2/settings.xml``,
``~/.config/pip/pip.conf``, ...) should still apply. The referee binds each
such file read-only into the build (:func:`referee.sandbox.bwrap.build_command`): it
never copies anything into the build's home, which the build writes.

The same files may hold credentials: registry tokens, passwords, client
keys. A build runs a stranger's code, so credentials reach it only when the
organiser names their kind in the config (``build.credentials``, see
:data:`CREDENTIAL_KINDS`). Otherwise the referee binds a copy with them left
out (written to its own runtime folder, which no sandbox can write), or, for
a file that is nothing but credentials (``~/.netrc``, ``~/.cargo/credentials.toml``,
``~/.git-credentials``), nothing at all. The environment is filtered the same
way (:func:`filter_env`). Each file or variable left out is said in the build's
log.

>>> strip_userinfo("https://me:s3cret@registry.example/simple")
'https://registry.example/simple'
"""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
import re
import secrets
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Collection, Iterator, Mapping

from referee.sandbox import safepath

__all__ = [
    "CREDENTIAL_KINDS",
    "Setting",
    "filter_env",
    "prepared_settings",
    "strip_userinfo",
    "user_settings",
]

#: What ``build.credentials`` may name: the credentials of each package manager.
CREDENTIAL_KINDS = ("npm", "pip", "cargo", "maven", "go", "git", "netrc")

_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/@\s'\"<>]+@")
# npm keys that are credentials (alone or scoped to a registry: //host/path/:_authToken).
_NPM_SECRET_KEYS = {
    "_authtoken",
    "_auth",
    "_password",
    "username",
    "password",
    "email",
    "certfile",
    "keyfile",
    "cert",
    "key",
    "otp",
}
_CARGO_SECRET_KEYS = {
    "token",
    "secret-key",
    "secret-key-subject",
    "credential-provider",
    "global-credential-providers",
}
# git's keys that carry a credential or name a client key (http.extraHeader: Authorization).
_GIT_SECRET_KEYS = {"extraheader", "sslkey", "sslcert", "sslcertpasswordprotected"}
_PIP_SECRET_KEYS = {"client-cert", "client_cert"}
# Environment variables of a build that carry a credential by their name alone.
_SECRET_NAME = re.compile(r"(?i)(token|auth|passw|secret|credential|client_cert|_key$|keyfile)")
# Which kind an environment variable belongs to, by its prefix.
_ENV_KINDS = (
    ("npm_config_", "npm"),
    ("NPM_CONFIG_", "npm"),
    ("CARGO_", "cargo"),
    ("PIP_", "pip"),
    ("UV_", "pip"),
    ("GO", "go"),
    ("GIT_", "git"),
    ("MAVEN_", "maven"),
)


@dataclasses.dataclass(frozen=True, slots=True)
class Setting:
    """One settings file a build sees: ``source`` bound read-only at ``target`` in its home."""

    #: The file bound: the user's own, or a copy with the credentials left out.
    source: pathlib.Path
    #: Its path relative to the build's home (``.npmrc``, ``.m2/settings.xml``).
    target: str


def strip_userinfo(text: str) -> str:
    """``text`` with the ``user:password@`` part of every URL left out."""
    return _USERINFO.sub(r"\1", text)


# Filters: (the text without credentials, how many lines or entries were left out) --------------


def _key_of(line: str) -> str:
    """The key of an ini, ``.npmrc`` or TOML line, lower case (``//host/:_authToken=x``: ``_authtoken``)."""
    text = line.strip()
    if not text or text.startswith(("#", ";", "[")):
        return ""
    if text.startswith("//"):  # npm's registry-scoped keys hold colons themselves
        return text.partition("=")[0].rsplit(":", 1)[-1].strip().lower()
    key = re.split(r"[=:]", text, maxsplit=1)[0]
    return key.strip().strip('"').lower() if len(key) < len(text) else ""


def _filter_lines(text: str, secret_keys: set[str]) -> tuple[str, int]:
    out, dropped = [], 0
    for line in text.splitlines(keepends=True):
        if _key_of(line) in secret_keys:
            dropped += 1
            continue
        clean = strip_userinfo(line)
        dropped += clean != line
        out.append(clean)
    return "".join(out), dropped


def _npmrc(text: str) -> tuple[str, int]:
    return _filter_lines(text, _NPM_SECRET_KEYS)


def _pip_conf(text: str) -> tuple[str, int]:
    return _filter_lines(text, _PIP_SECRET_KEYS)


def _cargo_config(text: str) -> tuple[str, int]:
    return _filter_lines(text, _CARGO_SECRET_KEYS)


def _urls_only(text: str) -> tuple[str, int]:
    return _filter_lines(text, set())


def _gitconfig(text: str) -> tuple[str, int]:
    """Without ``[credential]`` sections, ``extraHeader`` (Authorization headers) and userinfo."""
    out, dropped, in_credential = [], 0, False
    for line in text.splitlines(keepends=True):
        header = re.match(r'\s*\[\s*([A-Za-z0-9.\-]+)(\s+"[^"]*")?\s*\]', line)
        if header:
            in_credential = header.group(1).lower() == "credential"
        if in_credential or _key_of(line) in _GIT_SECRET_KEYS:
            dropped += bool(line.strip()) and not line.lstrip().startswith(("#", ";"))
            continue
        clean = strip_userinfo(line)
        dropped += clean != line
        out.append(clean)
    return "".join(out), dropped


def _maven_settings(text: str) -> tuple[str, int]:
    """Without ``<servers>`` (their passwords, keys), proxies' user names and passwords, userinfo."""
    root = ElementTree.fromstring(text)  # a ParseError is a file left out, by the caller
    namespace = root.tag[: root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    if namespace:
        ElementTree.register_namespace("", namespace[1:-1])
    dropped = 0
    for parent in root.iter():
        for child in list(parent):
            name = child.tag[len(namespace) :] if child.tag.startswith(namespace) else child.tag
            if (name == "servers" and len(child)) or (
                parent.tag == f"{namespace}proxy" and name in ("username", "password")
            ):
                dropped += len(child) if name == "servers" else 1
                parent.remove(child)
    text = ElementTree.tostring(root, encoding="unicode") + "\n"
    clean = strip_userinfo(text)
    return clean, dropped + (clean != text)


_Filter = Callable[[str], tuple[str, int]]

#: Each per-user settings file a build may see: (path under HOME, kind, filter). A filter
#: of None marks a file that is nothing but credentials, bound only when its kind is allowed.
USER_SETTINGS: tuple[tuple[str, str, _Filter | None], ...] = (
    (".npmrc", "npm", _npmrc),
    (".config/pip/pip.conf", "pip", _pip_conf),
    (".pip/pip.conf", "pip", _pip_conf),
    (".cargo/config.toml", "cargo", _cargo_config),
    (".cargo/config", "cargo", _cargo_config),
    (".cargo/credentials.toml", "cargo", None),
    (".cargo/credentials", "cargo", None),
    (".m2/settings.xml", "maven", _maven_settings),
    (".m2/settings-security.xml", "maven", None),
    (".config/go/env", "go", _urls_only),
    (".gitconfig", "git", _gitconfig),
    (".git-credentials", "git", None),
    (".config/git/credentials", "git", None),
    (".netrc", "netrc", None),
)
#: The system-wide settings files a build sees, filtered the same way (absolute paths).
SYSTEM_SETTINGS: tuple[tuple[str, str, _Filter | None], ...] = (
    ("/etc/npmrc", "npm", _npmrc),
    ("/etc/pip.conf", "pip", _pip_conf),
    ("/etc/gitconfig", "git", _gitconfig),
    ("/etc/maven/settings.xml", "maven", _maven_settings),
)


def _allowed_hint(kind: str) -> str:
    return f"build.credentials: [{kind}] lets them in"


def user_settings(
    allowed: Collection[str],
    scratch: pathlib.Path,
    *,
    home: pathlib.Path | None = None,
    notes: list[str] | None = None,
) -> list[Setting]:
    """The settings files a build sees (the user's ``home``'s and /etc's), credentials left out unless allowed.

    A :class:`Setting`'s target is relative to the build's home for the
    user's files, absolute for the system's. Filtered copies are written into ``scratch`` (a folder only the referee
    writes); what was left out is appended to ``notes`` for the build's log.
    A file that cannot be read is skipped.
    """
    home = home or pathlib.Path.home()
    notes = [] if notes is None else notes
    out: list[Setting] = []
    for relative, kind, clean in USER_SETTINGS + SYSTEM_SETTINGS:
        source = home / relative
        shown = relative if relative.startswith("/") else f"~/{relative}"
        if not source.is_file():
            continue
        if kind in allowed:
            out.append(Setting(source, relative))
            continue
        if clean is None:
            notes.append(f"{shown}: credentials only, not shown ({_allowed_hint(kind)})")
            continue
        try:
            text = source.read_text(encoding="utf-8")
            kept, dropped = clean(text)
        except (OSError, UnicodeDecodeError, ElementTree.ParseError) as error:
            notes.append(f"{shown}: not shown, it could not be read or parsed ({error})")
            continue
        if not dropped:
            out.append(Setting(source, relative))
            continue
        copy = scratch / relative.strip("/").replace("/", "_")
        copy.write_text(kept, encoding="utf-8")
        notes.append(f"{shown}: shown without {dropped} credential line(s) ({_allowed_hint(kind)})")
        out.append(Setting(copy, relative))
    return out


def _env_kind(name: str) -> str | None:
    for prefix, kind in _ENV_KINDS:
        if name.startswith(prefix):
            return kind
    return None


def filter_env(
    env: Mapping[str, str], allowed: Collection[str], *, notes: list[str] | None = None
) -> dict[str, str]:
    """``env`` without the package managers' credentials, unless their kind is allowed.

    A variable of a package manager (``npm_config_*``, ``PIP_*``, ``CARGO_*``,
    ...) named like a credential (``..._authToken``, ``..._TOKEN``,
    ``..._PASSWORD``) is left out; one holding a URL with a user and password
    keeps the URL without them. Other variables pass unchanged.
    """
    notes = [] if notes is None else notes
    out: dict[str, str] = {}
    for name, value in env.items():
        kind = _env_kind(name)
        if kind is None or kind in allowed:
            out[name] = value
        elif _SECRET_NAME.search(name):
            notes.append(f"${name}: a credential, not passed ({_allowed_hint(kind)})")
        else:
            out[name] = strip_userinfo(value)
            if out[name] != value:
                notes.append(
                    f"${name}: passed without its user and password ({_allowed_hint(kind)})"
                )
    return out


@contextlib.contextmanager
def prepared_settings(
    allowed: Collection[str], runtime: pathlib.Path, *, home: pathlib.Path | None = None
) -> Iterator[tuple[list[Setting], list[str]]]:
    """The settings of one build and the notes on what was left out; the copies removed after.

    The copies live in a folder of their own in ``runtime`` (the referee's
    private runtime folder).
    """
    scratch = runtime / f"settings-{secrets.token_hex(6)}"
    scratch.mkdir(mode=0o700)
    try:
        notes: list[str] = []
        yield user_settings(allowed, scratch, home=home, notes=notes), notes
    finally:
        safepath.remove(scratch, ignore_errors=True)


def check_kinds(kinds: Collection[str]) -> list[str]:
    """The kinds of ``kinds`` that are not credential kinds (for the config's error)."""
    return [k for k in kinds if k not in CREDENTIAL_KINDS]
