"""Shared fixtures: real server processes on loopback for the probe servers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wwm.testing import ServerProcess

TESTS = Path(__file__).resolve().parent
PROBE_ENV = {"PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}


def probe_server(target: str, **kwargs) -> ServerProcess:
    """A ``wwm serve probes:<Class>`` process (not started)."""
    return ServerProcess(f"probes:{target}", env=PROBE_ENV, **kwargs)


@pytest.fixture(scope="session")
def probe_world():
    with probe_server("ProbeWorld") as server:
        yield server


@pytest.fixture(scope="session")
def probe_mind():
    with probe_server("ProbeMind") as server:
        yield server
