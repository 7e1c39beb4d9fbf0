"""Fixtures of the player tests: the match tests' pool of launched bots, and no process left."""

from tests.helpers import launched_pids  # noqa: F401 (an autouse fixture)
from tests.match.conftest import make_pool  # noqa: F401 (a fixture)
