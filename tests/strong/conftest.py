"""The strong bot's folder on the import path (its bot.py); its search is referee.search."""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
STRONG = ROOT / "sample_bots" / "python" / "strong"

if str(STRONG) not in sys.path:
    sys.path.insert(0, str(STRONG))
