"""The referee's command line chooses grpcio's client before grpcio starts (referee/__init__.py).

Each case runs in a fresh interpreter: grpcio reads ``GRPC_EXPERIMENTS`` once,
when it is first imported, and this test process has imported it long ago.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import referee

#: Prints what the referee chose, then makes a call over a real channel to a server
#: of the same process, so that a setting grpcio refused would show as a failure.
PROBE = """
import json, os, sys
{before}
import {entry}
import referee
from concurrent import futures
import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from referee.players.remote import open_channel
server = grpc.server(futures.ThreadPoolExecutor(1))
health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
port = server.add_insecure_port("127.0.0.1:0")
server.start()
reply = health_pb2_grpc.HealthStub(open_channel(f"127.0.0.1:{{port}}")).Check(
    health_pb2.HealthCheckRequest(), timeout=10
)
server.stop(None)
print(json.dumps({{"chosen": referee.GRPC_CLIENT_CHOSEN,
                  "env": os.environ.get("GRPC_EXPERIMENTS"),
                  "serving": reply.status == health_pb2.HealthCheckResponse.SERVING}}))
"""


def _probe(
    *, before: str = "", entry: str = "referee.cli", env_value: str | None = None
) -> tuple[dict, str]:
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    if env_value is not None:
        env["GRPC_EXPERIMENTS"] = env_value
    run = subprocess.run(
        [sys.executable, "-c", PROBE.format(before=before, entry=entry)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1]), run.stderr


def _measured() -> bool:
    version = referee._grpcio_version()
    return version is not None and version.startswith(referee.GRPC_MEASURED)


def test_the_installed_grpcio_is_read_without_importing_it() -> None:
    import grpc

    assert referee._grpcio_version() == grpc.__version__


def test_the_installed_grpcio_gets_the_older_client_if_measured_and_its_calls_work() -> None:
    seen, stderr = _probe()
    if _measured():
        assert seen == {"chosen": True, "env": referee.GRPC_EXPERIMENTS, "serving": True}
    else:  # a newer grpcio: its own defaults until it is measured (GRPC_MEASURED)
        assert seen == {"chosen": False, "env": None, "serving": True}
    assert "nknown experiment" not in stderr, stderr


def test_the_users_own_setting_wins() -> None:
    seen, _ = _probe(env_value="")
    assert seen == {"chosen": False, "env": "", "serving": True}


def test_a_grpcio_imported_first_is_left_as_it_started() -> None:
    seen, _ = _probe(before="import grpc")
    assert seen == {"chosen": False, "env": None, "serving": True}


def test_a_bot_that_imports_the_botkit_keeps_grpcios_defaults() -> None:
    # The Python sample bots import referee.botkit: the choice was measured for the
    # referee's calls, not for a bot's server, which keeps grpcio's defaults.
    seen, _ = _probe(entry="referee.botkit")
    assert seen == {"chosen": False, "env": None, "serving": True}


def test_a_grpcio_not_measured_runs_with_its_own_defaults(monkeypatch) -> None:
    # In this process grpcio is imported, so only the version test is left to decide.
    monkeypatch.delitem(sys.modules, "grpc")
    monkeypatch.setattr(referee, "GRPC_CLIENT_CHOSEN", False)
    monkeypatch.setattr(referee, "GRPC_EXPERIMENTS_BEFORE", None)
    monkeypatch.setenv("GRPC_EXPERIMENTS", "untouched")
    monkeypatch.setattr(referee, "_grpcio_version", lambda: "1.99.0")
    assert referee.choose_grpc_client() is False
    assert os.environ["GRPC_EXPERIMENTS"] == "untouched"
    monkeypatch.setattr(referee, "_grpcio_version", lambda: None)
    assert referee.choose_grpc_client() is False
    monkeypatch.setattr(referee, "_grpcio_version", lambda: "1.85.9")
    assert referee.choose_grpc_client() is True
    assert os.environ["GRPC_EXPERIMENTS"] == referee.GRPC_EXPERIMENTS


def test_rays_processes_start_with_the_variable_as_found(monkeypatch) -> None:
    ray_executor = pytest.importorskip(
        "referee.tournament.ray_executor", reason="Ray is not installed (pip install '.[ray]')"
    )
    monkeypatch.setattr(referee, "GRPC_CLIENT_CHOSEN", True)
    monkeypatch.setenv("GRPC_EXPERIMENTS", referee.GRPC_EXPERIMENTS)
    with ray_executor._grpc_client_as_found():
        assert "GRPC_EXPERIMENTS" not in os.environ  # what ray.init's processes inherit
    assert os.environ["GRPC_EXPERIMENTS"] == referee.GRPC_EXPERIMENTS


def test_a_child_that_chooses_its_own_client_gets_the_environment_as_found(monkeypatch) -> None:
    monkeypatch.setenv("GRPC_EXPERIMENTS", referee.GRPC_EXPERIMENTS)
    monkeypatch.setattr(referee, "GRPC_EXPERIMENTS_BEFORE", None)
    assert "GRPC_EXPERIMENTS" not in referee.environ_as_found()
    monkeypatch.setattr(referee, "GRPC_EXPERIMENTS_BEFORE", "")
    assert referee.environ_as_found()["GRPC_EXPERIMENTS"] == ""
