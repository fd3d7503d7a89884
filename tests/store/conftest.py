"""Fixtures for the run store: one throw-away PostgreSQL cluster per session (initdb and
pg_ctl in a temp dir, on a free loopback port), and ``store_url``, a fresh empty database on
each backend in turn: an SQLite file, then a new schema in that PostgreSQL cluster.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'runs.db'}"
    return request.getfixturevalue("postgres").new_schema()
