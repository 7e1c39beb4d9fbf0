"""Bot folders for the ladder's tests: the Python kit's bots and variants of the starter."""

from __future__ import annotations

import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots" / "python"

#: Redefinitions put before the starter's bot class (Python looks the function up per call).
_VARIANTS = {
    # Always the lowest legal card: a weaker cousin of the starter.
    "lowest": """
def choose_play(request):
    return lowest(list(request.legal_moves))
""",
    # An illegal card whenever one is held: check-bot fails it.
    "illegal": """
def choose_play(request):
    legal = list(request.legal_moves)
    illegal = [c for c in request.hand if c not in legal]
    return illegal[0] if illegal else legal[0]
""",
}


def bot_folder(dest: pathlib.Path, kind: str) -> pathlib.Path:
    """A bot folder at ``dest``: ``random``, ``heuristic``, ``starter``, or a starter variant
    (``lowest``, ``illegal``); ``crash`` starts and exits at once; ``no-manifest`` has no
    bot.yaml; ``endless-build`` has a build that never ends."""
    if kind in ("random", "heuristic", "starter"):
        shutil.copytree(SAMPLES / kind, dest, ignore=shutil.ignore_patterns("__pycache__"))
    elif kind in _VARIANTS:
        shutil.copytree(SAMPLES / "starter", dest, ignore=shutil.ignore_patterns("__pycache__"))
        source = (dest / "bot.py").read_text()
        marker = "\nclass StarterBot(Bot):"
        assert marker in source
        (dest / "bot.py").write_text(source.replace(marker, _VARIANTS[kind] + marker, 1))
    elif kind == "crash":
        dest.mkdir()
        (dest / "bot.yaml").write_text(
            "name: crash\nversion: 1.0.0\nauthor: tests\nlanguage: Python\n"
            'run: "{python} -c \\"raise SystemExit(3)\\" --address {address}"\n'
        )
    elif kind == "no-manifest":
        dest.mkdir()
        (dest / "bot.py").write_text("print('hello')\n")
    elif kind == "endless-build":
        shutil.copytree(SAMPLES / "random", dest, ignore=shutil.ignore_patterns("__pycache__"))
        with open(dest / "bot.yaml", "a") as manifest:
            manifest.write('build: "sleep 600"\n')
    else:
        raise ValueError(kind)
    return dest
