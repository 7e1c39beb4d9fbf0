"""Fixtures of the command tests: no launched bot process may be left."""

from tests.helpers import launched_pids  # noqa: F401 (an autouse fixture)
