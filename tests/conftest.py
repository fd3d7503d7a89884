"""Shared fixtures: real server processes on loopback for the probe servers."""

from __future__ import annotations

import pytest

from probes import probe_server


@pytest.fixture(scope="session")
def probe_world():
    with probe_server("ProbeWorld") as server:
        yield server


@pytest.fixture(scope="session")
def probe_mind():
    with probe_server("ProbeMind") as server:
        yield server
