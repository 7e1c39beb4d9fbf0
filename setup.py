"""The wheel carries the starter kits and the proto (``referee new-bot``, ``referee proto``).

Everything else is in pyproject.toml. At build time the kits' files (each
kit's folder less what its ``.gitignore`` ignores) and
``proto/hearts/v1/hearts.proto`` are copied into ``referee/_kits/`` of the
build, by the same function ``referee new-bot`` reads them with
(``referee/cli/scaffold.py``, run by path: the package's dependencies need not be
installed yet). An editable install reads them from the checkout instead.
"""

import importlib.util
import pathlib
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent


def _scaffold():
    spec = importlib.util.spec_from_file_location("_scaffold", ROOT / "referee" / "cli" / "scaffold.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class BuildPyWithKits(build_py):
    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):
            scaffold = _scaffold()
            target = pathlib.Path(self.build_lib) / "referee" / scaffold.PACKAGED
            scaffold.package_kits(ROOT, target)


setup(cmdclass={"build_py": BuildPyWithKits})
