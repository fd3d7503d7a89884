"""Shared fixtures: real server processes on loopback for the probe servers."""

from __future__ import annotations

import os
import tempfile

import pytest

from probes import probe_server


def pytest_configure(config):
    """Runs recorded by the tests (and by the processes they start) go to a throw-away
    database, never to the user's own ~/.local/share/wwm/runs.db."""
    if "WWM_DATABASE_URL" not in os.environ:
        folder = tempfile.mkdtemp(prefix="wwm-test-runs-")
        os.environ["WWM_DATABASE_URL"] = f"sqlite:///{folder}/runs.db"


@pytest.fixture(scope="session")
def probe_world():
    with probe_server("ProbeWorld") as server:
        yield server


@pytest.fixture(scope="session")
def probe_mind():
    with probe_server("ProbeMind") as server:
        yield server
